//! One turn, in the catalogue's deterministic order (section 3, "Resolution order").
//!
//! A full board has dozens of players and this runs at every deadline and every replay, so the
//! working data are flat vectors indexed by roster position, not maps.

use engine::{Report, ReportRow, Resolution, TurnDice, TurnError, TurnInput};

use crate::board::{SHIP_LENGTH, Square};
use crate::orders::{Orders, Target};
use crate::{Damage, Fate, Points, SHOTS_PER_TURN, State};

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

/// What the shots of the turn did, for the report.
struct TurnEffects {
    /// Per captain, per shot ordered (at most two).
    effects: Vec<[Option<Effect>; SHOTS_PER_TURN]>,
    /// Every scoring shot as (square, shooter), sorted: the shooters of a square are a run.
    scoring: Vec<(Square, usize)>,
    /// Ships that the turn's shots alone sank: their hits read `hit/sunk` (catalogue step 5).
    sunk_by_shots: Vec<bool>,
}

impl TurnEffects {
    /// How many players scored on `square` this turn.
    fn sharers(&self, square: Square) -> usize {
        let start = self.scoring.partition_point(|(s, _)| *s < square);
        let end = self.scoring.partition_point(|(s, _)| *s <= square);
        end - start
    }
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
    let count = next.captains.len();

    // Players the GM removed leave before the turn, ship and all (BARMY-GM-11), and the report
    // says so, as it does for joiners.
    let leaving: std::collections::BTreeSet<engine::PlayerId> =
        input.leaving.iter().copied().collect();
    let mut left_notes = Vec::new();
    for captain in next.captains.iter_mut() {
        if leaving.contains(&captain.id) && !matches!(captain.fate, Fate::Left(_)) {
            let was = match captain.fate {
                Fate::Sunk(_) => "; their sunk ship is taken off the board",
                _ if captain.first_turn > turn => " before firing a shot",
                _ => "; their ship is taken off the board, and shots at its squares miss",
            };
            left_notes.push(format!(
                "{} leaves the game before turn {turn}{was}.",
                captain.name
            ));
            captain.fate = Fate::Left(turn);
        }
    }

    // Which ship, if any, stands on each square (ships of players who left are gone).
    let grid = next.setup.grid();
    let cell =
        |square: Square| usize::from(square.y) * usize::from(grid.width) + usize::from(square.x);
    // Kept small (4 bytes a square, `NO_SHIP` or owner × 4 + part): a board sized for 10,000
    // players has 80,000 squares, looked up at random by every shot.
    const NO_SHIP: u32 = u32::MAX;
    let mut ship_at: Vec<u32> = vec![NO_SHIP; usize::from(grid.width) * usize::from(grid.height)];
    let ship_at_square = |ship_at: &[u32], square: Square| -> Option<(usize, usize)> {
        let packed = *ship_at.get(cell(square))?;
        (packed != NO_SHIP).then(|| {
            let packed = packed as usize;
            (packed / SHIP_LENGTH, packed % SHIP_LENGTH)
        })
    };
    for (owner, captain) in next.captains.iter().enumerate() {
        if !matches!(captain.fate, Fate::Left(_)) {
            for (part, square) in captain.ship.iter().enumerate() {
                if let Some(slot) = ship_at.get_mut(cell(*square))
                    && let Ok(packed) = u32::try_from(owner * SHIP_LENGTH + part)
                {
                    *slot = packed;
                }
            }
        }
    }

    // 1. Eligible shooters: in the game this turn and afloat at its start (BARMY-11, BARMY-GM-07).
    // 2. Every eligible player's shots at once.
    let mut effects: Vec<[Option<Effect>; SHOTS_PER_TURN]> = vec![[None; SHOTS_PER_TURN]; count];
    let mut scoring: Vec<(Square, usize)> = Vec::with_capacity(count * SHOTS_PER_TURN);
    for (shooter, captain) in next.captains.iter().enumerate() {
        if !(captain.is_afloat() && captain.first_turn <= turn) {
            continue;
        }
        let Some(orders) = input.orders.get(&captain.id) else {
            continue;
        };
        let Some(slots) = effects.get_mut(shooter) else {
            continue;
        };
        let mut fired: [Option<Square>; SHOTS_PER_TURN] = [None; SHOTS_PER_TURN];
        for ((shot, slot), fired_at) in orders.shots.iter().zip(slots.iter_mut()).zip(0..) {
            let effect = match shot.target {
                Target::OffBoard => Effect::OffBoard,
                Target::Square(square) if fired.contains(&Some(square)) => Effect::Duplicate,
                Target::Square(square) => {
                    if let Some(mark) = fired.get_mut(fired_at) {
                        *mark = Some(square);
                    }
                    next.shots.insert(square);
                    match ship_at_square(&ship_at, square) {
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
            *slot = Some(effect);
        }
    }

    // Shares of each scored square (BARMY-09), and 3. the squares marked hit.
    scoring.sort_unstable();
    let mut scored_on = vec![false; count];
    for run in scoring.chunk_by(|a, b| a.0 == b.0) {
        let share = Points::share_of_one(run.len());
        for (_, shooter) in run {
            if let Some(captain) = next.captains.get_mut(*shooter) {
                captain.score += &share;
            }
        }
        if let Some((square, _)) = run.first()
            && let Some((owner, part)) = ship_at_square(&ship_at, *square)
        {
            if let Some(flag) = scored_on.get_mut(owner) {
                *flag = true;
            }
            if let Some(slot) = next
                .captains
                .get_mut(owner)
                .and_then(|c| c.damage.get_mut(part))
            {
                *slot = Some(Damage::Shot(turn));
            }
        }
    }
    let sunk_by_shots: Vec<bool> = next
        .captains
        .iter()
        .map(|c| c.is_afloat() && c.hits_taken() == SHIP_LENGTH)
        .collect();

    // 4. NMR penalties, from a player's second turn, waived when someone scored on them
    // (BARMY-17, BARMY-18, BARMY-GM-06) or when the player is excused as absent
    // (a variation of BARMY-17 the GM chooses: docs/rules/barmy.md); draws in ascending player id. Orders that fire no
    // shot are a missed turn unless the game lets press alone answer (BARMY-GM-08's switch).
    let setup = &next.setup;
    let answered = |id: &engine::PlayerId| {
        input
            .orders
            .get(id)
            .is_some_and(|orders| orders.answer_the_turn(setup))
    };
    let mut penalised: Vec<usize> = (0..count)
        .filter(|index| {
            next.captains.get(*index).is_some_and(|c| {
                c.is_afloat()
                    && c.first_turn < turn
                    && !answered(&c.id)
                    && !input.excused.contains(&c.id)
                    && !scored_on.get(*index).copied().unwrap_or(false)
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

    let turn_effects = TurnEffects {
        effects,
        scoring,
        sunk_by_shots,
    };
    let mut report = report(state, &next, input, &turn_effects, turn);
    report.notes.extend(left_notes);

    // Joiners get a ship for the next turn (BARMY-GM-11), placed with the sealed dice.
    let mut joining: Vec<&engine::Player> = input
        .joining
        .iter()
        .filter(|p| next.captain(p.id).is_none())
        .collect();
    joining.sort_by_key(|p| p.id);
    // Set up once, on the board as it stands after the leavers, and only if someone joins.
    let mut free = None;
    let placements: std::collections::BTreeMap<engine::PlayerId, _> = next
        .setup
        .placements
        .iter()
        .map(|p| (p.player, p.ship))
        .collect();
    for player in joining {
        let name = engine::report::one_line(&player.name);
        if name.is_empty() {
            continue;
        }
        let free = free.get_or_insert_with(|| next.free_placements());
        // The GM's placement for a joiner, if the squares are still free (BARMY-GM-04); else
        // at random, as anyone. The public report reads the same either way: that a placement
        // was taken would tell readers a ship stands on one of its squares.
        if let Some(ship) = placements.get(&player.id)
            && free.is_free(ship)
        {
            free.occupy(ship);
            next.captains
                .push(crate::Captain::new(player.clone(), *ship, turn + 1));
            report.notes.push(format!(
                "{name} joins the game and fires from turn {}.",
                turn + 1
            ));
            continue;
        }
        if next
            .place(free, player.clone(), turn + 1, &mut dice.sealed)
            .is_none()
        {
            report.notes.push(format!(
                "No room on the board for {name}'s ship: the GM must enlarge the board."
            ));
        } else {
            report.notes.push(format!(
                "{name} joins the game and fires from turn {}.",
                turn + 1
            ));
        }
    }

    // 6. The end (BARMY-GM-10).
    let afloat = next.captains.iter().filter(|c| c.is_afloat()).count();
    next.finished = afloat <= 1 || next.setup.final_turn.is_some_and(|last| turn >= last);
    next.turn = turn + 1;
    if next.finished {
        report.notes.push(crate::view::closing_line(&next));
    }
    Ok(Resolution {
        state: next,
        report,
    })
}

fn report(
    before: &State,
    after: &State,
    input: &TurnInput<Orders>,
    turn_effects: &TurnEffects,
    turn: u32,
) -> Report {
    let mut rows = Vec::with_capacity(after.captains.len());
    for (index, captain) in after.captains.iter().enumerate() {
        let in_game =
            captain.first_turn <= turn && !matches!(captain.fate, Fate::Left(t) if t <= turn);
        if !in_game {
            continue;
        }
        let afloat_before = before.captains.get(index).is_some_and(|c| c.is_afloat());
        let (coord, result) = match input.orders.get(&captain.id) {
            _ if !afloat_before => ("—".to_owned(), "—".to_owned()),
            None => ("NMR".to_owned(), "—".to_owned()),
            // Fired nothing: a missed turn (BARMY-17), unless press alone answers here.
            Some(orders) if !orders.answer_the_turn(&after.setup) => {
                ("NMR".to_owned(), "—".to_owned())
            }
            Some(orders) if orders.shots.is_empty() => ("—".to_owned(), "—".to_owned()),
            Some(orders) => {
                let mut coord = String::new();
                for shot in orders.shots.iter().take(SHOTS_PER_TURN) {
                    if !coord.is_empty() {
                        coord.push_str(", ");
                    }
                    coord.push_str(&shot.written);
                }
                let mut result = String::new();
                let effects = turn_effects.effects.get(index).copied().unwrap_or_default();
                for effect in effects {
                    if !result.is_empty() {
                        result.push_str(", ");
                    }
                    match effect {
                        Some(effect) => describe(&mut result, effect, after, turn_effects),
                        // A missing second shot reads `—` (BARMY-GM-08).
                        None => result.push('—'),
                    }
                }
                (coord, result)
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

fn describe(out: &mut String, effect: Effect, state: &State, turn_effects: &TurnEffects) {
    match effect {
        Effect::Scored { victim, square } => {
            let sunk = turn_effects
                .sunk_by_shots
                .get(victim)
                .copied()
                .unwrap_or(false);
            out.push_str(if sunk { "hit/sunk " } else { "hit " });
            out.push_str(
                state
                    .captains
                    .get(victim)
                    .map(|c| c.name.as_str())
                    .unwrap_or("?"),
            );
            if state.setup.show_shares {
                let sharers = turn_effects.sharers(square);
                if sharers > 1 {
                    out.push_str(&format!(" (1/{sharers})"));
                }
            }
        }
        Effect::Miss => out.push_str("miss"),
        Effect::OffBoard => out.push_str("miss (off board)"),
        Effect::Duplicate => out.push_str("miss (duplicate)"),
    }
}
