//! The rules text's own worked examples, end to end through the engine (issue 7's list).

use engine::{Engine, TurnDice};
use salvo::{Salvo, Setup, ShipKind, ShipStatus};

use crate::common::*;

/// SALVO-NUKE-05, SALVO-NUKE-06, SALVO-EX-01: a nuke on D4 hits exactly B4, C3, C4, C5, D2,
/// D3, D4, D5, D6, E3, E4, E5, F4; the Cruiser on C5-E5 is destroyed, the Battleship loses F4.
#[test]
fn nuke_on_d4_hits_exactly_the_texts_thirteen_squares() {
    let mut state = new_game(&Setup::default(), 2, 1);
    place(
        &mut state,
        BOB,
        "PLACE Cruiser C5 V\nPLACE Battleship F4 V\nPLACE Carrier J1 H\nPLACE Submarine A8 H\nPLACE Destroyer H8 V",
    );
    let turn = input(vec![(ANN, orders(&state, ANN, "NUKE D4"))]);
    let resolution = Salvo::resolve(&state, &turn, &mut TurnDice::scripted([9], [])).unwrap();
    let called: Vec<_> = resolution
        .state
        .admiral(ANN)
        .unwrap()
        .calls_on(BOB)
        .unwrap()
        .iter()
        .copied()
        .collect();
    assert_eq!(
        called,
        squares("B4, C3, C4, C5, D2, D3, D4, D5, D6, E3, E4, E5, F4")
    );
    let bob = resolution.state.admiral(BOB).unwrap();
    assert!(bob.fleet().ship(ShipKind::Cruiser).unwrap().is_sunk());
    let battleship = bob.fleet().ship(ShipKind::Battleship).unwrap();
    assert_eq!(battleship.status(), ShipStatus::Afloat);
    assert_eq!(
        battleship.damage().keys().copied().collect::<Vec<_>>(),
        squares("F4")
    );
    let row = &resolution.report.rows[0];
    assert_eq!(
        row.result,
        "d20=9: the nuke explodes; hit C5, D5, E5, F4; miss B4, C3, C4, D2, D3, D4, D6, E3, E4; sank Cruiser"
    );
}

/// SALVO-TORP-05, SALVO-EX-06: "torpedo attack starting on F10" runs left and hits the
/// submarine at F7; the attack is then over.
#[test]
fn torpedo_from_f10_hits_the_submarine_at_f7() {
    let mut state = new_game(&Setup::default(), 2, 2);
    place(
        &mut state,
        BOB,
        "PLACE Submarine F5 H\nPLACE Carrier A1 H\nPLACE Battleship C1 H\nPLACE Cruiser H1 H\nPLACE Destroyer J9 H",
    );
    let turn = input(vec![(
        ANN,
        orders(&state, ANN, "torpedo attack starting on F10!"),
    )]);
    let resolution = Salvo::resolve(&state, &turn, &mut TurnDice::scripted([4], [])).unwrap();
    let submarine = resolution
        .state
        .admiral(BOB)
        .unwrap()
        .fleet()
        .ship(ShipKind::Submarine)
        .unwrap()
        .clone();
    assert_eq!(
        submarine.damage().keys().copied().collect::<Vec<_>>(),
        squares("F7")
    );
    assert!(submarine.is_afloat());
    assert_eq!(resolution.report.rows[0].coord, "TORP F10→W");
    assert!(resolution.report.rows[0].result.contains("hit F7"));
}

/// SALVO-EXP-05, SALVO-EX-08: a 3 with the pattern B2, B3, B4; a 5 with the smile G2, H3, H4,
/// H5, G6 (the second is legal because each square touches the one before it).
#[test]
fn experimental_patterns_b2_b4_and_the_smile() {
    let state = new_game(&Setup::default(), 2, 3);
    for (text, roll, expected) in [
        ("EXPERIMENTAL B2 B3 B4", 3, "B2 B3 B4"),
        ("EXPERIMENTAL B2-B4", 3, "B2 B3 B4"),
        ("EXPERIMENTAL G2 H3 H4 H5 G6", 5, "G2 G6 H3 H4 H5"),
    ] {
        let turn = input(vec![(ANN, orders(&state, ANN, text))]);
        let resolution =
            Salvo::resolve(&state, &turn, &mut TurnDice::scripted([roll], [])).unwrap();
        let called: Vec<_> = resolution
            .state
            .admiral(ANN)
            .unwrap()
            .calls_on(BOB)
            .unwrap()
            .iter()
            .copied()
            .collect();
        assert_eq!(called, squares(expected), "{text}");
    }
}

/// SALVO-BOMB-03, SALVO-EX-10: bombers over G6 hit every square around it and G6 itself.
#[test]
fn bombers_over_g6_drop_nine_bombs() {
    let state = new_game(&Setup::default(), 2, 4);
    let turn = input(vec![(ANN, orders(&state, ANN, "BOMBER G6"))]);
    let resolution = Salvo::resolve(&state, &turn, &mut TurnDice::scripted([8], [])).unwrap();
    let called: Vec<_> = resolution
        .state
        .admiral(ANN)
        .unwrap()
        .calls_on(BOB)
        .unwrap()
        .iter()
        .copied()
        .collect();
    assert_eq!(called, squares("F5 F6 F7 G5 G6 G7 H5 H6 H7"));
}
