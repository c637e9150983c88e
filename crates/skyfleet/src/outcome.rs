//! Standings and the winner: victory points from destroyed enemy units (SKY-GM-30).

use engine::{Outcome, rank};

use crate::state::State;

/// The standings by VP; once the battle is over, the side(s) with the most VP win.
pub fn outcome(state: &State) -> Outcome {
    let entries = state
        .sides
        .iter()
        .map(|side| {
            let in_play = state
                .units
                .iter()
                .filter(|u| {
                    state
                        .side(u.side)
                        .is_some_and(|s| s.player.id == side.player.id)
                })
                .filter(|u| u.in_play() && u.activates())
                .count();
            (
                side.player.id,
                side.player.name.clone(),
                side.vp,
                format!("{}: {in_play} units in play", side.name),
            )
        })
        .collect();
    let standings = rank(entries);
    let winners = if state.finished {
        standings
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| s.player)
            .collect()
    } else {
        Vec::new()
    };
    Outcome {
        finished: state.finished,
        standings,
        winners,
    }
}
