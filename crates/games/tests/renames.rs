#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! A seat that changed hands (issue 18's replacements) goes by its new holder's name from the
//! turn whose input renames it (`TurnInput::renames`), in every engine: in the report's rows,
//! in the state after the turn, and in the next turn's orders; the other seats keep theirs.

use engine::{GameSecret, Player, PlayerId, TurnInput};
use games::{AnyState, EngineKind};

fn new_game(engine: EngineKind, n: u64) -> AnyState {
    let players: Vec<Player> = (1..=n)
        .map(|id| Player {
            id: PlayerId(id),
            name: format!("Player {id}"),
        })
        .collect();
    let secret = GameSecret::from_bytes([9; 32]);
    engine
        .default_setup()
        .new_game(&players, &mut secret.turn_dice(0))
        .unwrap()
}

#[test]
fn a_renamed_seat_goes_by_its_new_name_from_the_turn_in_every_engine() {
    for (engine, n) in [
        (EngineKind::Barmy, 3),
        (EngineKind::Salvo, 3),
        (EngineKind::Ironclad, 4),
        (EngineKind::Skyfleet, 2),
        (EngineKind::Forever, 3),
    ] {
        let state = new_game(engine, n);
        let input = TurnInput {
            renames: vec![Player {
                id: PlayerId(2),
                name: "Mary Jones".to_owned(),
            }],
            ..TurnInput::default()
        };
        let secret = GameSecret::from_bytes([9; 32]);
        let resolved = state
            .resolve(input, &[], &mut secret.turn_dice(state.turn()))
            .unwrap();
        let names: Vec<String> = resolved
            .state
            .roster()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert!(
            names.contains(&"Mary Jones".to_owned()),
            "{engine}: {names:?}"
        );
        assert!(
            !names.contains(&"Player 2".to_owned()),
            "{engine}: {names:?}"
        );
        assert!(
            names.contains(&"Player 1".to_owned()),
            "{engine}: {names:?}"
        );
        let text = resolved.report.to_text();
        assert!(!text.contains("Player 2"), "{engine}: {text}");
        // Without a rename, nothing changes: the same turn names Player 2.
        let plain = state
            .resolve(
                TurnInput::default(),
                &[],
                &mut secret.turn_dice(state.turn()),
            )
            .unwrap();
        assert!(
            plain.state.roster().iter().any(|p| p.name == "Player 2"),
            "{engine}"
        );
    }
}
