//! One turn, in the catalogue's deterministic order (section 3, "Resolution order").

use std::collections::{BTreeMap, BTreeSet};

use engine::{Report, ReportRow, Resolution, Score, TurnDice, TurnError, TurnInput};

use crate::board::{SHIP_LENGTH, Square};
use crate::orders::{Orders, Target};
use crate::{Damage, Fate, State};

/// What became of one ordered shot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Scored on another player's ship (index into `captains`), BARMY-08.
    Scored {
        victim: usize,
        square: Square,
    },
    Miss,
    OffBoard,
    Duplicate,
}

pub(crate) fn resolve(
    state: &State,
    input: &TurnInput<Orders>,
    dice: &mut TurnDice,
) -> Result<Resolution<State>, TurnError> {
    if state.finished {
        return Err(TurnError::GameOver);
    }
    let turn = state.turn;
    let mut next = state.clone();

    // Players the GM removed leave before the turn, ship and all (BARMY-GM-11).
    for captain in next.captains.iter_mut() {
        if input.leaving.contains(&captain.id) && !matches!(captain.fate, Fate::Left(_)) {
            captain.fate = Fate::Left(turn);
        }
    }

    // 1. Eligible shooters: in the game this turn and afloat at its start (BARMY-11, BARMY-GM-07).
    let eligible = |index: usize| {
        next.captains
            .get(index)
            .is_some_and(|c| c.is_afloat() && c.first_turn <= turn)
    };
    // Which ship, if any, stands on each square (ships of players who left are gone): a flat
    // grid, because a full board has hundreds of ships and this is the turn's hot path.
    let grid = next.setup.grid();
    let cell =
        |square: Square| usize::from(square.y) * usize::from(grid.width) + usize::from(square.x);
    let mut ship_at: Vec<Option<(usize, usize)>> =
        vec![None; usize::from(grid.width) * usize::from(grid.height)];
    for (owner, captain) in next.captains.iter().enumerate() {
        if !matches!(captain.fate, Fate::Left(_)) {
            for (part, square) in captain.ship.iter().enumerate() {
                if let Some(slot) = ship_at.get_mut(cell(*square)) {
                    *slot = Some((owner, part));
                }
            }
        }
    }

    // 2. Every eligible player's shots at once.
    let mut effects: Vec<Vec<Effect>> = vec![Vec::new(); next.captains.len()];
    let mut scoring: Vec<(Square, usize)> = Vec::new();
    for (shooter, captain) in next.captains.iter().enumerate() {
        if !eligible(shooter) {
            continue;
        }
        let Some(orders) = input.orders.get(&captain.id) else {
            continue;
        };
        let mut fired: Vec<Square> = Vec::with_capacity(crate::SHOTS_PER_TURN);
        for shot in orders.shots.iter().take(crate::SHOTS_PER_TURN) {
            let effect = match shot.target {
                Target::OffBoard => Effect::OffBoard,
                Target::Square(square) if fired.contains(&square) => Effect::Duplicate,
                Target::Square(square) => {
                    fired.push(square);
                    next.shots.insert(square);
                    match ship_at.get(cell(square)).copied().flatten() {
                        // Own ship: a complete no-op (BARMY-13, BARMY-GM-03).
                        Some((owner, _)) if owner == shooter => Effect::Miss,
                        // Already hit before this turn: a miss (BARMY-10, BARMY-GM-09).
                        Some((owner, part))
                            if next
                                .captains
                                .get(owner)
                                .and_then(|c| c.damage.get(part))
                                .is_some_and(Option::is_some) =>
                        {
                            Effect::Miss
                        }
                        Some((owner, _)) => {
                            scoring.push((square, shooter));
                            Effect::Scored {
                                victim: owner,
                                square,
                            }
                        }
                        None => Effect::Miss,
                    }
                }
            };
            if let Some(list) = effects.get_mut(shooter) {
                list.push(effect);
            }
        }
    }
    // Who scored on each square, in roster order.
    scoring.sort_unstable();
    let mut scorers: BTreeMap<Square, Vec<usize>> = BTreeMap::new();
    for (square, shooter) in scoring {
        scorers.entry(square).or_default().push(shooter);
    }

    // Shares of each scored square (BARMY-09), and 3. the squares marked hit.
    let mut scored_on: BTreeSet<usize> = BTreeSet::new();
    for (square, shooters) in &scorers {
        let share = Score::share_of_one(shooters.len());
        for shooter in shooters {
            if let Some(captain) = next.captains.get_mut(*shooter) {
                captain.score += share;
            }
        }
        if let Some((owner, part)) = ship_at.get(cell(*square)).copied().flatten() {
            scored_on.insert(owner);
            if let Some(slot) = next
                .captains
                .get_mut(owner)
                .and_then(|c| c.damage.get_mut(part))
            {
                *slot = Some(Damage::Shot(turn));
            }
        }
    }
    let sunk_by_shots: BTreeSet<usize> = next
        .captains
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_afloat() && c.hits_taken() == SHIP_LENGTH)
        .map(|(index, _)| index)
        .collect();

    // 4. NMR penalties, from a player's second turn, waived when someone scored on them
    // (BARMY-17, BARMY-18, BARMY-GM-06); draws in ascending player id.
    let mut penalised: Vec<usize> = (0..next.captains.len())
        .filter(|index| {
            next.captains.get(*index).is_some_and(|c| {
                c.is_afloat()
                    && c.first_turn < turn
                    && !input.orders.contains_key(&c.id)
                    && !scored_on.contains(index)
                    && c.hits_taken() < SHIP_LENGTH
            })
        })
        .collect();
    penalised.sort_by_key(|index| next.captains.get(*index).map(|c| c.id));
    for index in penalised {
        if let Some(captain) = next.captains.get_mut(index) {
            let unhit: Vec<usize> = (0..SHIP_LENGTH)
                .filter(|part| captain.damage.get(*part) == Some(&None))
                .collect();
            if let Some(part) = unhit.get(dice.sealed.pick(unhit.len()))
                && let Some(slot) = captain.damage.get_mut(*part)
            {
                *slot = Some(Damage::Penalty(turn));
            }
        }
    }

    // 5. Sinkings.
    for captain in next.captains.iter_mut() {
        if captain.is_afloat() && captain.hits_taken() == SHIP_LENGTH {
            captain.fate = Fate::Sunk(turn);
        }
    }

    let outcome = TurnEffects {
        effects,
        scorers,
        sunk_by_shots,
    };
    let report = report(state, &next, input, &outcome, turn);

    // Joiners get a ship for the next turn (BARMY-GM-11), placed with the sealed dice.
    let mut notes = Vec::new();
    let mut joining: Vec<&engine::Player> = input
        .joining
        .iter()
        .filter(|p| next.captain(p.id).is_none())
        .collect();
    joining.sort_by_key(|p| p.id);
    for player in joining {
        if engine::report::one_line(&player.name).is_empty() {
            continue;
        }
        if next
            .place(player.clone(), turn + 1, &mut dice.sealed)
            .is_none()
        {
            notes.push(format!(
                "No room on the board for {}'s ship: the GM must enlarge the board.",
                engine::report::one_line(&player.name)
            ));
        } else {
            notes.push(format!(
                "{} joins the game and fires from turn {}.",
                engine::report::one_line(&player.name),
                turn + 1
            ));
        }
    }

    // 6. The end (BARMY-GM-10).
    let afloat = next.captains.iter().filter(|c| c.is_afloat()).count();
    next.finished = afloat <= 1 || next.setup.final_turn.is_some_and(|last| turn >= last);
    next.turn = turn + 1;

    let mut report = report;
    report.notes.extend(notes);
    if next.finished {
        report.notes.push(crate::view::closing_line(&next));
    }
    Ok(Resolution {
        state: next,
        report,
    })
}

/// What the shots of the turn did, for the report.
struct TurnEffects {
    /// Per captain, per shot ordered.
    effects: Vec<Vec<Effect>>,
    /// Who scored on each square.
    scorers: BTreeMap<Square, Vec<usize>>,
    /// Ships that the turn's shots alone sank: their hits read `hit/sunk` (catalogue step 5).
    sunk_by_shots: BTreeSet<usize>,
}

fn report(
    before: &State,
    after: &State,
    input: &TurnInput<Orders>,
    turn_effects: &TurnEffects,
    turn: u32,
) -> Report {
    let mut rows = Vec::new();
    for (index, captain) in after.captains.iter().enumerate() {
        let in_game =
            captain.first_turn <= turn && !matches!(captain.fate, Fate::Left(t) if t <= turn);
        if !in_game {
            continue;
        }
        let afloat_before = before.captains.get(index).is_some_and(|c| c.is_afloat());
        let orders = input.orders.get(&captain.id);
        let (coord, result) = match orders {
            _ if !afloat_before => ("—".to_owned(), "—".to_owned()),
            None => ("NMR".to_owned(), "—".to_owned()),
            Some(orders) if orders.shots.is_empty() => ("—".to_owned(), "—".to_owned()),
            Some(orders) => {
                let shots: Vec<_> = orders.shots.iter().take(crate::SHOTS_PER_TURN).collect();
                let coord = shots
                    .iter()
                    .map(|s| s.written.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut results: Vec<String> = turn_effects
                    .effects
                    .get(index)
                    .map(|list| {
                        list.iter()
                            .map(|e| describe(*e, after, turn_effects))
                            .collect()
                    })
                    .unwrap_or_default();
                // A missing second shot reads `—` (BARMY-GM-08).
                while results.len() < crate::SHOTS_PER_TURN {
                    results.push("—".into());
                }
                (coord, results.join(", "))
            }
        };
        rows.push(ReportRow {
            name: captain.name.clone(),
            coord,
            result,
            score: captain.score.display(),
            own_status: captain.own_status(),
        });
    }
    Report {
        title: format!("{} — Turn {turn}", <crate::Barmy as engine::Engine>::TITLE),
        rows,
        press: Vec::new(),
        notes: Vec::new(),
    }
}

fn describe(effect: Effect, state: &State, turn_effects: &TurnEffects) -> String {
    match effect {
        Effect::Scored { victim, square } => {
            let name = state
                .captains
                .get(victim)
                .map(|c| c.name.as_str())
                .unwrap_or("?");
            let tag = if turn_effects.sunk_by_shots.contains(&victim) {
                "hit/sunk"
            } else {
                "hit"
            };
            let sharers = turn_effects.scorers.get(&square).map_or(1, Vec::len);
            if state.setup.show_shares && sharers > 1 {
                format!("{tag} {name} (1/{sharers})")
            } else {
                format!("{tag} {name}")
            }
        }
        Effect::Miss => "miss".into(),
        Effect::OffBoard => "miss (off board)".into(),
        Effect::Duplicate => "miss (duplicate)".into(),
    }
}
