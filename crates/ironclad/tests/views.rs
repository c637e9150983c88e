#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! What each viewer may see (IRON-ADM-05): everything on the table is public, but the
//! torpedoes a ship has left are known only to her own side and the GM; the public report
//! never shows them. Also the standings (IRON-GM-15).

use engine::{Board, Engine, Mark, Player, PlayerId, TurnDice, TurnInput, Viewer};
use ironclad::{Ironclad, Setup, ShipId, State};

fn battle() -> State {
    let players = [(1, "Alice"), (2, "Bob"), (3, "Carol")].map(|(id, name)| Player {
        id: PlayerId(id),
        name: name.into(),
    });
    let mut state =
        Ironclad::new_game(&Setup::default(), &players, &mut TurnDice::scripted([], [])).unwrap();
    // Distinct counts, so a leak would show.
    for (ship, left) in state.ships.iter_mut().zip([1, 2, 3, 0, 1, 2]) {
        ship.torpedoes_left = left;
    }
    state
}

fn torpedo_lines(state: &State, viewer: Viewer) -> Vec<String> {
    Ironclad::view(state, viewer)
        .lines
        .into_iter()
        .filter(|l| l.contains("torpedoes"))
        .collect()
}

#[test]
fn torpedo_stocks_stay_with_their_own_side() {
    let state = battle();
    assert!(
        torpedo_lines(&state, Viewer::Public).is_empty(),
        "IRON-ADM-05: the public sees no torpedo stock"
    );
    // Alice (North) sees her side's three ships, Carol's included, and none of Bob's.
    let alice = torpedo_lines(&state, Viewer::Player(PlayerId(1)));
    assert_eq!(
        alice.len(),
        3,
        "IRON-ADM-05: a side sees its own stocks: {alice:#?}"
    );
    assert!(alice.iter().all(|l| {
        ["Agamemnon", "Bellerophon", "Colossus"]
            .iter()
            .any(|n| l.contains(n))
    }));
    let bob = torpedo_lines(&state, Viewer::Player(PlayerId(2)));
    assert_eq!(bob.len(), 3);
    assert!(
        bob.iter().all(|l| !l.contains("Agamemnon")),
        "IRON-ADM-05: and not the other side's"
    );
    assert_eq!(torpedo_lines(&state, Viewer::Gm).len(), 6);
    // A stranger is treated like the public.
    assert!(torpedo_lines(&state, Viewer::Player(PlayerId(99))).is_empty());
}

#[test]
fn the_board_marks_only_the_viewers_own_ships() {
    let mut state = battle();
    state.ship_mut(ShipId(1)).unwrap().fp = 9;
    let marks = |viewer| match Ironclad::view(&state, viewer).board {
        Some(Board::Grid(picture)) => picture.marks,
        _ => Vec::new(),
    };
    assert!(marks(Viewer::Public).is_empty());
    let alice: Vec<Mark> = marks(Viewer::Player(PlayerId(1)))
        .iter()
        .map(|m| m.mark)
        .collect();
    assert_eq!(alice, vec![Mark::Hit, Mark::OwnShip]);
    let carol = marks(Viewer::Player(PlayerId(3)));
    assert_eq!(
        carol.len(),
        1,
        "IRON-ADM-01: the North's three ships are dealt round Alice and Carol"
    );
    assert_eq!((carol[0].x, carol[0].y), (7, 1));
}

#[test]
fn the_public_report_never_shows_torpedo_stocks() {
    let state = battle();
    let mut input = TurnInput::default();
    let parsed = Ironclad::parse_orders(&state, PlayerId(1), "Agamemnon MAIN Dandolo");
    input.orders.insert(PlayerId(1), parsed.orders);
    let seed = engine::GameSecret::from_bytes([5; 32]);
    let resolution = Ironclad::resolve(&state, &input, &mut seed.turn_dice(1)).unwrap();
    let text = resolution.report.to_text();
    assert!(
        !text.contains("torpedo"),
        "IRON-ADM-05: the public report shows no torpedo stock: {text}"
    );
    assert!(resolution.report.press.is_empty());
    let json = serde_json::to_string(&resolution.report).unwrap();
    assert!(!json.contains("torpedoes_left"));
}

#[test]
fn standings_put_the_winning_side_first() {
    // IRON-GM-15
    let mut state = battle();
    // South's ships all sunk: North wins.
    for ship in state.ships.iter_mut().filter(|s| s.side == 1) {
        ship.fp = 0;
        ship.fate = ironclad::state::Fate::Sunk { turn: 3 };
    }
    state.commanders[1].score = 30; // Bob did well but lost
    state.commanders[0].score = 10;
    state.finished = true;
    let outcome = Ironclad::outcome(&state);
    assert!(outcome.finished);
    assert_eq!(
        outcome.winners,
        vec![PlayerId(1), PlayerId(3)],
        "IRON-ADM-01: players 1 and 3 command the North"
    );
    let order: Vec<(u64, u32)> = outcome
        .standings
        .iter()
        .map(|s| (s.player.0, s.place))
        .collect();
    assert_eq!(
        order,
        vec![(1, 1), (3, 2), (2, 3)],
        "IRON-ADM-12: the winning side first, then by enemy FP removed"
    );
    assert!(outcome.standings[2].status.contains("lost"));
    assert!(outcome.standings[0].status.contains("won"));
    assert_eq!(Ironclad::roster(&state).len(), 3);
}

#[test]
fn the_default_turn_limit_is_30_iron_adm_07() {
    assert_eq!(
        battle().rules.turn_limit,
        Some(30),
        "IRON-ADM-07: a battle by mail cannot run for ever"
    );
}

#[test]
fn a_game_in_progress_has_no_winners() {
    let state = battle();
    let outcome = Ironclad::outcome(&state);
    assert!(!outcome.finished);
    assert!(outcome.winners.is_empty());
    assert!(outcome.standings.iter().all(|s| s.place == 1));
}

#[test]
fn a_finished_battle_resolves_no_more_turns() {
    let mut state = battle();
    state.finished = true;
    let error = Ironclad::resolve(
        &state,
        &TurnInput::default(),
        &mut TurnDice::scripted([], []),
    )
    .unwrap_err();
    assert_eq!(error, engine::TurnError::GameOver);
}

#[test]
fn joining_players_are_told_the_fleets_are_fixed() {
    let state = battle();
    let mut input = TurnInput::default();
    input.joining.push(Player {
        id: PlayerId(7),
        name: "Dave".into(),
    });
    let resolution =
        Ironclad::resolve(&state, &input, &mut TurnDice::scripted([2, 1], [])).unwrap();
    assert!(
        resolution
            .report
            .notes
            .iter()
            .any(|n| n.contains("Dave cannot join")),
        "IRON-ADM-09: the fleets are fixed"
    );
    assert_eq!(
        Ironclad::roster(&resolution.state).len(),
        3,
        "IRON-ADM-09: no joining mid-battle"
    );
}

#[test]
fn the_public_picture_shows_every_ship_afloat_with_her_heading() {
    // IRON-ADM-05: positions and headings are on the open table; torpedo stocks are not.
    let mut state = battle();
    state.ship_mut(ShipId(1)).unwrap().fp = 9;
    let pieces = |state: &State| match Ironclad::view(state, Viewer::Public).board {
        Some(Board::Grid(picture)) => picture.pieces,
        _ => Vec::new(),
    };
    let public = pieces(&state);
    assert_eq!(public.len(), state.ships.len());
    for (piece, ship) in public.iter().zip(&state.ships) {
        assert_eq!(piece.label, ship.name);
        assert_eq!(
            (piece.x, piece.y),
            (u16::from(ship.area.column()), u16::from(ship.area.row()))
        );
        assert!(piece.heading.is_some_and(|h| h % 45 == 0 && h < 360));
    }
    assert!(public.iter().filter(|p| p.damaged).count() == 1);
    // Changing a hidden fact (torpedoes left) changes nothing in the public view.
    let before = serde_json::to_string(&Ironclad::view(&state, Viewer::Public)).unwrap();
    for ship in &mut state.ships {
        ship.torpedoes_left = 7;
    }
    let after = serde_json::to_string(&Ironclad::view(&state, Viewer::Public)).unwrap();
    assert_eq!(before, after);
    // A sunk ship is a mark, no longer a piece.
    state.ship_mut(ShipId(2)).unwrap().fate = ironclad::state::Fate::Sunk { turn: 2 };
    assert_eq!(pieces(&state).len(), state.ships.len() - 1);
}
