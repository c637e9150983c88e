#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The engine interface around the rules: names, help, roster, turn counter, players joining
//! and leaving (FOREVER-ADM-07), standings, and the default setup (FOREVER-GM-45).

mod common;

use common::{ALICE, BOB, armada, players, start};
use engine::{Engine, Player, PlayerId, TurnDice, TurnInput};
use forever::{Forever, Setup};

#[test]
fn names_help_roster_and_turns() {
    assert_eq!(Forever::NAME, "forever");
    assert_eq!(Forever::TITLE, "Battleships Forever");
    let building = start(serde_json::json!({}));
    let help = Forever::order_help(&building);
    for word in [
        "SHIP Lancer",
        "DEPLOY",
        "MOVE1",
        "FIRE",
        "BATTERY",
        "DEFLECT",
        "TORPEDO-MISSILE",
        "NANO",
    ] {
        assert!(help.contains(word), "help lacks {word}");
    }
    assert!(!Forever::order_help(&armada(1)).contains("BUILDING"));
    assert_eq!(Forever::roster(&building), players());
    assert_eq!(Forever::turn(&building), 1);
    let next = Forever::resolve(
        &building,
        &TurnInput::default(),
        &mut TurnDice::scripted([], []),
    )
    .unwrap();
    assert_eq!(Forever::turn(&next.state), 2);
    assert!(
        next.report
            .notes
            .iter()
            .any(|n| n.contains("Alice: no fleet received yet."))
    );
}

#[test]
fn forever_gm_45_the_default_setup_is_the_standard_game() {
    let setup = Setup::default();
    assert_eq!(
        (setup.table[0].hundredths(), setup.table[1].hundredths()),
        (7200, 4800)
    );
    assert_eq!(setup.points_limit, 200);
    assert!(setup.fleets.is_empty() && setup.rocks.is_empty() && !setup.meteors);
    // The setup JSON is readable and round-trips.
    let json = serde_json::to_value(&setup).unwrap();
    assert_eq!(json["table"], serde_json::json!([72, 48]));
    let back: Setup = serde_json::from_value(json).unwrap();
    assert_eq!(back, setup);
    // One player is not a battle; an unknown setting is refused.
    let lonely = Forever::new_game(&setup, &players()[..1], &mut TurnDice::scripted([], []));
    assert!(lonely.is_err());
    assert!(serde_json::from_value::<Setup>(serde_json::json!({"tabel": [1, 2]})).is_err());
}

#[test]
fn forever_adm_07_joining_is_refused_and_leaving_withdraws_the_fleet() {
    let state = armada(1);
    let mut input = TurnInput::default();
    input.joining.push(Player {
        id: PlayerId(3),
        name: "Carol".into(),
    });
    input.leaving.push(BOB);
    let resolution = Forever::resolve(&state, &input, &mut TurnDice::scripted([], [])).unwrap();
    assert!(
        resolution
            .report
            .notes
            .iter()
            .any(|n| n.contains("Carol cannot join a battle in progress"))
    );
    assert!(
        resolution
            .report
            .notes
            .iter()
            .any(|n| n.contains("Bob resigns"))
    );
    let outcome = Forever::outcome(&resolution.state);
    assert!(outcome.finished);
    assert_eq!(outcome.winners, vec![ALICE]);
    assert_eq!(outcome.standings[0].player, ALICE);
    assert_eq!(outcome.standings[1].status, "resigned");
    // A finished game resolves no further turns.
    assert!(
        Forever::resolve(
            &resolution.state,
            &TurnInput::default(),
            &mut TurnDice::scripted([], [])
        )
        .is_err()
    );
}
