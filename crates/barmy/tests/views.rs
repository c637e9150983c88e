#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Who sees what (BARMY-14, BARMY-GM-13), and a full game from `new_game` (BARMY-02).

use barmy::{Barmy, Setup};
use engine::{Board, Engine, GameSecret, Mark, Player, PlayerId, TurnInput, Viewer};

fn players() -> Vec<Player> {
    ["Fred Bloggs", "John Smith", "Annette Curtain"]
        .iter()
        .zip(1..)
        .map(|(name, id)| Player {
            id: PlayerId(id),
            name: (*name).into(),
        })
        .collect()
}

#[test]
fn every_listed_player_gets_a_ship_in_roster_order() {
    // BARMY-02: every subscriber is in the game; BARMY-GM-04: placed by the seeded dice.
    let secret = GameSecret::from_bytes([9; 32]);
    let mut roster = players();
    roster.reverse();
    let state = Barmy::new_game(&Setup::default(), &roster, &mut secret.turn_dice(0)).unwrap();
    let names: Vec<String> = Barmy::roster(&state).into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["Annette Curtain", "John Smith", "Fred Bloggs"]);
    // The same secret places the same ships.
    let again = Barmy::new_game(&Setup::default(), &roster, &mut secret.turn_dice(0)).unwrap();
    assert_eq!(state, again);
}

#[test]
fn a_player_sees_their_own_ship_and_nobody_else_does() {
    // BARMY-14: a player may ask where their ship is; BARMY-GM-13: the answer is private.
    let secret = GameSecret::from_bytes([3; 32]);
    let state = Barmy::new_game(&Setup::default(), &players(), &mut secret.turn_dice(0)).unwrap();
    let fred = state.captain(PlayerId(1)).unwrap();
    let squares: Vec<String> = fred.ship.iter().map(|s| s.to_string()).collect();

    let own = Barmy::view(&state, Viewer::Player(PlayerId(1)));
    assert!(
        own.lines[0].contains(&squares.join(", ")),
        "BARMY-14: the player's own view says where their ship is: {:?}",
        own.lines
    );
    let Some(Board::Grid(picture)) = own.board else {
        panic!()
    };
    assert_eq!(
        picture
            .marks
            .iter()
            .filter(|m| m.mark == Mark::OwnShip)
            .count(),
        4
    );

    for viewer in [Viewer::Public, Viewer::Player(PlayerId(2))] {
        let view = Barmy::view(&state, viewer);
        let text = serde_json::to_string(&view).unwrap();
        for square in &squares {
            assert!(
                !view.lines.iter().any(|l| l.contains(square.as_str())),
                "{viewer:?} sees {square}"
            );
        }
        let Some(Board::Grid(picture)) = view.board else {
            panic!()
        };
        let own_marks = picture
            .marks
            .iter()
            .filter(|m| m.mark == Mark::OwnShip)
            .count();
        assert_eq!(
            own_marks,
            if viewer == Viewer::Public { 0 } else { 4 },
            "{text}"
        );
    }
    let gm = Barmy::view(&state, Viewer::Gm);
    assert!(gm.lines.iter().any(|l| l.contains(&squares.join(", "))));
}

#[test]
fn a_whole_game_runs_to_its_end_from_new_game() {
    let secret = GameSecret::from_bytes([5; 32]);
    let setup = Setup {
        width: 8,
        height: 8,
        ..Setup::default()
    };
    let mut state = Barmy::new_game(&setup, &players(), &mut secret.turn_dice(0)).unwrap();
    // Everyone sends nothing: NMR penalties sink every ship within five turns (BARMY-17).
    for _ in 0..10 {
        if state.finished {
            break;
        }
        let turn = Barmy::turn(&state);
        state = Barmy::resolve(&state, &TurnInput::default(), &mut secret.turn_dice(turn))
            .unwrap()
            .state;
    }
    assert!(state.finished);
    let outcome = Barmy::outcome(&state);
    assert!(outcome.finished);
    assert_eq!(outcome.standings.len(), 3);
    assert!(Barmy::resolve(&state, &TurnInput::default(), &mut secret.turn_dice(9)).is_err());
}

#[test]
fn bad_settings_are_refused_with_a_reason() {
    let secret = GameSecret::from_bytes([5; 32]);
    let narrow = Setup {
        width: 3,
        ..Setup::default()
    };
    let error = Barmy::new_game(&narrow, &players(), &mut secret.turn_dice(0)).unwrap_err();
    assert!(error.to_string().contains("columns wide"));
    let crowded: Vec<Player> = (1..=20)
        .map(|id| Player {
            id: PlayerId(id),
            name: format!("P{id}"),
        })
        .collect();
    let small = Setup {
        width: 4,
        height: 4,
        ..Setup::default()
    };
    let error = Barmy::new_game(&small, &crowded, &mut secret.turn_dice(0)).unwrap_err();
    assert!(error.to_string().contains("enlarge the board"));
}
