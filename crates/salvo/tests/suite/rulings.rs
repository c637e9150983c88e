//! Admiralty's own rulings that the case table cannot reach: orders stored as JSON and the
//! first view of a new game.

use engine::{Engine, PlayerId, TurnDice, Viewer};
use salvo::{Attack, Orders, Salvo, Setup, Special};

use crate::common::*;

/// SALVO-ADM-12, SALVO-GM-14: stored orders that can no longer be carried out are a pass with
/// the reason shown, spending no dice and no use.
#[test]
fn stored_orders_that_became_illegal_are_void() {
    let mut state = new_game(&Setup::default(), 2, 30);
    state.set_uses_left(ANN, Special::Nuke, 0);
    let nuke = Orders {
        fleet: None,
        attack: Attack::Nuke {
            at: BOB,
            centre: square("D4"),
        },
    };
    let at_nobody = Orders {
        fleet: None,
        attack: Attack::Scuba { at: PlayerId(9) },
    };
    let turn = input(vec![(ANN, nuke), (BOB, at_nobody)]);
    let resolution = Salvo::resolve(&state, &turn, &mut TurnDice::scripted([], [])).unwrap();
    let rows = &resolution.report.rows;
    assert_eq!(rows[0].coord, "NUKE D4");
    assert_eq!(
        rows[0].result,
        "order void (you have no tactical nuke left: 1 per game, and failures count (SALVO-GM-14)): pass",
        "SALVO-ADM-12: a stored order checked again at the deadline is void"
    );
    assert!(
        rows[1]
            .result
            .starts_with("order void (there is no opponent called 'player 9'")
    );
    let bob = resolution.state.admiral(BOB).unwrap();
    assert_eq!(
        bob.uses_left().scuba,
        2,
        "SALVO-ADM-12: a void order spends no use"
    );
}

/// SALVO-ADM-02, SALVO-GM-18: a new game already has every fleet, placed at random, shown to
/// its owner with the invitation to place it.
#[test]
fn a_new_game_shows_each_player_their_random_fleet() {
    let state = new_game(&Setup::default(), 2, 31);
    let view = Salvo::view(&state, Viewer::Player(ANN));
    assert!(view.lines.iter().any(|l| {
        l.contains("placed at random by the server (your first orders may place it yourself")
    }));
    let ships = view
        .lines
        .iter()
        .filter(|l| l.starts_with("  ") && l.contains(": afloat"))
        .count();
    assert_eq!(ships, 5, "SALVO-ADM-02: a new game already has every fleet");
    let parsed = Salvo::parse_orders(&state, ANN, "FIRE A1");
    assert!(
        parsed
            .understood
            .iter()
            .any(|u| u.contains("stays where the server placed it"))
    );
}

/// SALVO-ADM-10: the board and the fleet are not GM options. A setup naming either is refused,
/// and every fleet is the classic five ships on the 10×10 board.
#[test]
fn the_board_and_the_fleet_are_fixed() {
    for setting in [r#"{"board": 12}"#, r#"{"fleet": ["Carrier"]}"#] {
        let refused = serde_json::from_str::<Setup>(setting);
        assert!(refused.is_err(), "SALVO-ADM-10: {setting} was accepted");
    }
    let state = new_game(&Setup::default(), 2, 32);
    for player in [ANN, BOB] {
        let fleet = state.admiral(player).unwrap().fleet();
        let kinds: Vec<salvo::ShipKind> = fleet.ships().iter().map(|s| s.kind()).collect();
        assert_eq!(kinds, salvo::ShipKind::ALL.to_vec());
        // Each ship fits the board whole: 5 + 4 + 3 + 3 + 2 squares.
        let squares: usize = fleet.ships().iter().map(|s| s.squares().count()).sum();
        assert_eq!(squares, 17);
    }
    assert!(salvo::Square::parse("J10").is_ok());
    assert!(salvo::Square::parse("K1").is_err() && salvo::Square::parse("A11").is_err());
}

fn ruling_text(setup: &Setup, rule: &str) -> String {
    Salvo::rulings(setup)
        .into_iter()
        .find(|r| r.rule == rule)
        .unwrap_or_else(|| panic!("no ruling {rule}"))
        .text
}

/// SALVO-TORP-01, SALVO-BOMB-01, SALVO-GM-06, SALVO-GM-02: the game page lists every switch,
/// default or not, in words; a setup stored before the switches existed reads as the default.
#[test]
fn every_switch_is_listed_in_words_either_way() {
    let default = Setup::default();
    let old: Setup = serde_json::from_str(r#"{"dice_mode": "d20", "shots": "one"}"#).unwrap();
    assert_eq!(old, default);
    assert_eq!(default.captured_weapons, salvo::CapturedWeapons::Usable);
    let rules: Vec<String> = Salvo::rulings(&default)
        .into_iter()
        .map(|r| r.rule)
        .collect();
    for rule in [
        "SALVO-TORP-01, SALVO-BOMB-01",
        "SALVO-GM-02",
        "SALVO-GM-03",
        "SALVO-CL-04",
        "SALVO-TORP-06",
        "SALVO-GM-17",
        "SALVO-ADM-07",
        "SALVO-GEN-03",
    ] {
        assert!(rules.iter().any(|r| r == rule), "{rule} missing: {rules:?}");
    }
    assert!(
        ruling_text(&default, "SALVO-TORP-01, SALVO-BOMB-01").contains("only sinking stops them")
    );
    assert!(ruling_text(&default, "SALVO-GM-02").contains("share the win"));

    let switched: Setup =
        serde_json::from_str(r#"{"captured_weapons": "lost", "score_breaks_ties": true}"#).unwrap();
    assert!(
        ruling_text(&switched, "SALVO-TORP-01, SALVO-BOMB-01").contains("until it is recaptured")
    );
    assert!(ruling_text(&switched, "SALVO-GM-02").contains("higher Score"));
    let mut fewer = Setup::default();
    fewer.specials_enabled.remove(&Special::Nuke);
    assert!(ruling_text(&fewer, "SALVO-GEN-03").contains("tactical nuke: not in play"));
}

/// SALVO-TORP-01, SALVO-BOMB-01: HELP says what stops the torpedo and the bombers in this game.
#[test]
fn help_follows_the_captured_weapons_switch() {
    let state = new_game(&Setup::default(), 2, 30);
    assert!(Salvo::order_help(&state).contains("while your Submarine is not sunk"));
    let lost: Setup = serde_json::from_str(r#"{"captured_weapons": "lost"}"#).unwrap();
    let state = new_game(&lost, 2, 30);
    assert!(Salvo::order_help(&state).contains("while your Carrier is afloat and not captured"));
}

/// SALVO-TORP-01, SALVO-BOMB-01: the switch's default is not written into a game's state, so
/// states stored before it existed stay byte for byte as they were.
#[test]
fn the_default_switch_is_not_written_into_the_state() {
    let state = new_game(&Setup::default(), 2, 30);
    let json = serde_json::to_string(&state).unwrap();
    assert!(!json.contains("captured_weapons"), "{json}");
    let lost: Setup = serde_json::from_str(r#"{"captured_weapons": "lost"}"#).unwrap();
    let json = serde_json::to_string(&new_game(&lost, 2, 30)).unwrap();
    assert!(json.contains(r#""captured_weapons":"lost""#), "{json}");
}
