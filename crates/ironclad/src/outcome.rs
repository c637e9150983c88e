//! When the battle ends and who won (IRON-GM-15): not in the text, so the catalogue's ruling.

use engine::{Outcome, PlayerId, Score, Standing};
use serde::{Deserialize, Serialize};

use crate::state::{Fate, STARTING_FP, State};

/// How the battle went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// One side won: the other had no ship in action, or lost the larger share of its FP.
    Won { side: usize, reason: String },
    /// Equal shares lost.
    Draw { reason: String },
}

/// Is the battle over after turn `resolved`? When a side has no ship afloat and not broken
/// off, or at the GM's turn limit (IRON-GM-15).
pub fn battle_over(state: &State, resolved: u32) -> bool {
    let out_of_action = (0..2).any(|side| ships_in_action(state, side) == 0);
    let limit = state
        .rules
        .turn_limit
        .is_some_and(|limit| resolved >= limit);
    out_of_action || limit
}

fn ships_in_action(state: &State, side: usize) -> usize {
    state
        .ships
        .iter()
        .filter(|s| s.side == side && s.in_action())
        .count()
}

/// A side's lost share of its starting FP: a sunk ship counts all 12, any other ship the FP it
/// has lost (IRON-GM-15).
pub fn lost_share(state: &State, side: usize) -> Score {
    let ships: Vec<_> = state.ships.iter().filter(|s| s.side == side).collect();
    let lost: i64 = ships
        .iter()
        .map(|s| match s.fate {
            Fate::Sunk { .. } => i64::from(STARTING_FP),
            _ => i64::from(STARTING_FP.saturating_sub(s.fp)),
        })
        .sum();
    let total = i64::try_from(ships.len()).unwrap_or(i64::MAX) * i64::from(STARTING_FP);
    Score::ratio(lost, total.max(1))
}

/// The verdict, once the battle is over.
pub fn verdict(state: &State) -> Option<Verdict> {
    if !state.finished {
        return None;
    }
    let in_action = [ships_in_action(state, 0), ships_in_action(state, 1)];
    match in_action {
        [0, n] if n > 0 => {
            return Some(Verdict::Won {
                side: 1,
                reason: format!("{} has no ship left in action", state.side_name(0)),
            });
        }
        [n, 0] if n > 0 => {
            return Some(Verdict::Won {
                side: 0,
                reason: format!("{} has no ship left in action", state.side_name(1)),
            });
        }
        _ => {}
    }
    let shares = [lost_share(state, 0), lost_share(state, 1)];
    let why = format!(
        "share of starting FP lost: {} {}, {} {}",
        state.side_name(0),
        String::from(shares[0]),
        state.side_name(1),
        String::from(shares[1])
    );
    Some(match shares[0].cmp(&shares[1]) {
        std::cmp::Ordering::Less => Verdict::Won {
            side: 0,
            reason: why,
        },
        std::cmp::Ordering::Greater => Verdict::Won {
            side: 1,
            reason: why,
        },
        std::cmp::Ordering::Equal => Verdict::Draw { reason: why },
    })
}

/// The standings: the winning side's players first once the battle is over, then by FP of
/// enemy ships removed (IRON-GM-15, catalogue section 5). A draw is shared by every player
/// (IRON-ADM-08).
pub fn outcome(state: &State) -> Outcome {
    let verdict = verdict(state);
    let won = |side: usize| match &verdict {
        Some(Verdict::Won { side: winner, .. }) => *winner == side,
        Some(Verdict::Draw { .. }) => true,
        None => false,
    };
    let mut entries: Vec<(bool, Score, PlayerId, String, String)> = state
        .commanders
        .iter()
        .map(|c| {
            let ships: Vec<_> = state
                .ships
                .iter()
                .filter(|s| s.player == c.player.id)
                .collect();
            let afloat = ships.iter().filter(|s| s.afloat()).count();
            let sunk = ships
                .iter()
                .filter(|s| matches!(s.fate, Fate::Sunk { .. }))
                .count();
            let escaped = ships
                .iter()
                .filter(|s| matches!(s.fate, Fate::Escaped { .. }))
                .count();
            let mut status = format!(
                "{}: {afloat} afloat, {sunk} sunk, {escaped} escaped",
                state.side_name(c.side)
            );
            match &verdict {
                Some(Verdict::Won { side, .. }) if *side == c.side => status.push_str(" · won"),
                Some(Verdict::Won { .. }) => status.push_str(" · lost"),
                Some(Verdict::Draw { .. }) => status.push_str(" · drawn"),
                None => {}
            }
            (
                won(c.side),
                Score::whole(i64::from(c.score)),
                c.player.id,
                c.player.name.clone(),
                status,
            )
        })
        .collect();
    entries.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let mut standings: Vec<Standing> = Vec::with_capacity(entries.len());
    let mut previous: Option<(bool, Score)> = None;
    for (index, (winner, score, player, name, status)) in entries.into_iter().enumerate() {
        let place = match (previous, standings.last()) {
            (Some(key), Some(last)) if key == (winner, score) => last.place,
            _ => u32::try_from(index + 1).unwrap_or(u32::MAX),
        };
        previous = Some((winner, score));
        standings.push(Standing {
            player,
            name,
            score,
            place,
            status,
        });
    }
    let winners = if verdict.is_some() {
        state
            .commanders
            .iter()
            .filter(|c| won(c.side))
            .map(|c| c.player.id)
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
