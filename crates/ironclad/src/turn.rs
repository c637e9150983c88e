//! One turn, in the text's sequence (IRON-SEQ-01..07): fire checks, main fire, secondary fire,
//! torpedoes (all simultaneous), effects, initiative, then each side's movement.

use std::collections::{BTreeMap, BTreeSet};

use engine::{PlayerId, TurnDice, TurnError, TurnInput};
use serde::{Deserialize, Serialize};

use crate::fire::{self, FireProblem, Group, Volley};
use crate::movement::{self, Change, Move};
use crate::orders::{Manoeuvre, Orders, ShipOrders};
use crate::outcome;
use crate::state::{CRITICAL_POINT, Fate, MoveOrder, Ship, ShipId, State};
use crate::tables::FireCheck;

/// A burning ship's roll at the start of the turn (IRON-GUN-15, IRON-GM-13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireRoll {
    pub ship: ShipId,
    pub face: u32,
    pub result: FireCheck,
}

/// A weapon group that had orders but could not engage any of its targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldFire {
    pub ship: ShipId,
    pub group: Group,
    pub problem: FireProblem,
}

/// Everything that happened in a turn, in order: the report is written from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnLog {
    pub turn: u32,
    /// Ships on the board when the turn began: the report's rows.
    pub present: Vec<ShipId>,
    pub fire_rolls: Vec<FireRoll>,
    pub volleys: Vec<Volley>,
    pub held: Vec<HeldFire>,
    /// Ships that sank in the fire steps (IRON-DMG-03).
    pub sunk_by_fire: Vec<ShipId>,
    /// Ships that reached their Critical Point in the fire steps (IRON-DMG-02).
    pub broke_off: Vec<ShipId>,
    /// Each round of initiative dice, side 0 then side 1 (IRON-SEQ-05, IRON-GM-08).
    pub initiative: Vec<(u32, u32)>,
    pub first_side: usize,
    pub moves: Vec<Move>,
    /// Players who sent no orders (IRON-GM-18).
    pub nmr: BTreeSet<PlayerId>,
    /// Ships of players who sent orders, that had none of their own.
    pub unordered: BTreeSet<ShipId>,
    /// Ships with an order line refused when it was written (the reasons went to the player).
    #[serde(default)]
    pub refused: BTreeSet<ShipId>,
    /// Orders naming ships that are not the player's: ignored.
    pub ignored: Vec<(PlayerId, ShipId)>,
}

/// Resolves one turn, returning the new state and what happened.
pub fn resolve_turn(
    state: &State,
    input: &TurnInput<Orders>,
    dice: &mut TurnDice,
) -> Result<(State, TurnLog), TurnError> {
    if state.finished {
        return Err(TurnError::GameOver);
    }
    state.check().map_err(TurnError::BadState)?;
    let mut next = state.clone();
    let turn = state.turn;
    for leaving in &input.leaving {
        if let Some(commander) = next.commanders.iter_mut().find(|c| c.player.id == *leaving) {
            commander.left = true;
        }
    }
    let orders = ship_orders(&next, input);
    let mut log = TurnLog {
        turn,
        present: next
            .ships
            .iter()
            .filter(|s| s.afloat())
            .map(|s| s.id)
            .collect(),
        fire_rolls: Vec::new(),
        volleys: Vec::new(),
        held: Vec::new(),
        sunk_by_fire: Vec::new(),
        broke_off: Vec::new(),
        initiative: Vec::new(),
        first_side: 0,
        moves: Vec::new(),
        nmr: orders.nmr,
        unordered: orders.unordered,
        refused: orders.refused,
        ignored: orders.ignored,
    };
    let by_ship = orders.by_ship;
    let dice = &mut dice.open;

    // Fire checks, by ship ID, before the fire steps (IRON-GUN-15, IRON-GM-13).
    let burning: Vec<ShipId> = next
        .ships
        .iter()
        .filter(|s| s.afloat() && s.fire.is_some_and(|f| f.since_turn < turn))
        .map(|s| s.id)
        .collect();
    for id in burning {
        let face = dice.d6();
        let result = FireCheck::of(face);
        let mut credit = None;
        if let Some(ship) = next.ship_mut(id) {
            match result {
                FireCheck::Extinguished => ship.fire = None,
                FireCheck::Burning => {}
                FireCheck::MagazineExplodes => {
                    let lost = ship.fp;
                    ship.fp = 0;
                    ship.fate = Fate::Sunk { turn };
                    let starter = ship.fire.and_then(|f| f.started_by);
                    credit = starter.map(|player| (player, lost, ship.side));
                }
            }
        }
        if let Some((player, lost, side)) = credit {
            // Only an enemy's fire earns points; a ship only ever fires on enemies (IRON-GM-17).
            if next.commander(player).is_some_and(|c| c.side != side) {
                movement::credit(&mut next, player, lost);
            }
        }
        log.fire_rolls.push(FireRoll {
            ship: id,
            face,
            result,
        });
    }

    // Fire steps 1-3 against the positions and damage at the start of the fire steps; every
    // effect waits until all three are thrown (IRON-SEQ-04, IRON-GM-05).
    let firing = &next;
    let mut volleys = Vec::new();
    // Torpedoes leave the tube when fired, but the stock is written after the fire steps,
    // which read the state as it was when they began.
    let mut torpedoes_fired: Vec<ShipId> = Vec::new();
    // Main fire by ship ID; then secondaries by ship ID, port before starboard; then torpedoes
    // (catalogue RNG order).
    let steps: [&[Group]; 3] = [
        &[Group::Main],
        &[Group::Port, Group::Starboard],
        &[Group::Torpedo],
    ];
    for step in steps {
        // Every ship present when the turn began: one lost to her magazine before the fire
        // steps is reported as holding fire (IRON-GM-13).
        for firer in firing.ships.iter().filter(|s| log.present.contains(&s.id)) {
            for group in step.iter().copied() {
                let Some(ship_orders) = by_ship.get(&firer.id) else {
                    continue;
                };
                let (targets, tube) = match group {
                    Group::Main => (ship_orders.main.as_slice(), None),
                    Group::Port => (ship_orders.port.as_slice(), None),
                    Group::Starboard => (ship_orders.starboard.as_slice(), None),
                    Group::Torpedo => match &ship_orders.torpedo {
                        Some(order) => (order.targets.as_slice(), order.tube),
                        None => (&[][..], None),
                    },
                };
                if targets.is_empty() {
                    continue;
                }
                // The first listed target that can be engaged (IRON-GM-06).
                let mut first_problem = None;
                let mut engaged = None;
                for id in targets {
                    let Some(target) = firing.ship(*id) else {
                        first_problem.get_or_insert(FireProblem::TargetGone {
                            target: id.to_string(),
                        });
                        continue;
                    };
                    match fire::solve(firing, firer, target, group, tube) {
                        Ok(solution) => {
                            engaged = Some((target, solution));
                            break;
                        }
                        Err(problem) => {
                            first_problem.get_or_insert(problem);
                        }
                    }
                }
                match engaged {
                    Some((target, solution)) => {
                        volleys.push(fire::throw(dice, firer.id, group, target, solution));
                        if group == Group::Torpedo {
                            torpedoes_fired.push(firer.id);
                        }
                    }
                    None => log.held.push(HeldFire {
                        ship: firer.id,
                        group,
                        problem: first_problem.unwrap_or(FireProblem::FirerGone),
                    }),
                }
            }
        }
    }

    for id in torpedoes_fired {
        if let Some(ship) = next.ship_mut(id) {
            ship.torpedoes_left = ship.torpedoes_left.saturating_sub(1);
        }
    }

    // Step 5: apply every effect in the order thrown. Positions, owners and sides do not
    // change here, so the firer's are read from the state being damaged.
    for volley in &mut volleys {
        let firer = next.ship(volley.firer);
        let firer_area = firer.map(|s| s.area).unwrap_or(volley.target_area);
        let firer_player = firer.map(|s| s.player);
        let firer_side = firer.map(|s| s.side);
        let Some(target) = next.ship_mut(volley.target) else {
            continue;
        };
        let target_side = target.side;
        let removed = fire::apply(target, volley, firer_area, firer_player, turn);
        if let Some(player) = firer_player
            && firer_side != Some(target_side)
        {
            movement::credit(&mut next, player, removed);
        }
    }
    log.volleys = volleys;
    for ship in next.ships.iter_mut().filter(|s| s.afloat()) {
        if ship.fp == 0 {
            ship.fate = Fate::Sunk { turn };
            log.sunk_by_fire.push(ship.id);
        } else if ship.fp <= CRITICAL_POINT && !ship.broken_off {
            ship.broken_off = true;
            log.broke_off.push(ship.id);
        }
    }

    // Step 4 of the text: a D6 each, higher moves first; ties are thrown again (IRON-SEQ-05,
    // IRON-GM-08). The cap only keeps a broken dice source from looping for ever.
    for _ in 0..1000 {
        let (first, second) = (dice.d6(), dice.d6());
        log.initiative.push((first, second));
        if first != second {
            log.first_side = if first > second { 0 } else { 1 };
            break;
        }
    }

    // Steps 5-6: the sides move in turn, each ship into the positions of the moment.
    let first = log.first_side;
    for side in [first, 1 - first] {
        let mut waiting = move_sequence(&next, side, input);
        while !waiting.is_empty() {
            let index = match next.rules.move_order {
                MoveOrder::LeavingFirst => leaving_first(&next, &waiting, &by_ship, turn),
                MoveOrder::OrderLines | MoveOrder::ShipId => 0,
            };
            if index >= waiting.len() {
                break;
            }
            let id = waiting.remove(index);
            let Some(ship) = next.ship(id).filter(|s| s.afloat()) else {
                continue;
            };
            let ordered = by_ship.get(&id).and_then(|o| o.movement);
            let (manoeuvre, change) = planned(&next, ship, &by_ship, turn);
            if let Some(record) =
                movement::carry_out(&mut next, dice, id, ordered, manoeuvre, change)
            {
                log.moves.push(record);
            }
        }
    }

    next.turn = turn.saturating_add(1);
    next.finished = outcome::battle_over(&next, turn);
    Ok((next, log))
}

struct Sorted<'a> {
    by_ship: BTreeMap<ShipId, &'a ShipOrders>,
    nmr: BTreeSet<PlayerId>,
    unordered: BTreeSet<ShipId>,
    refused: BTreeSet<ShipId>,
    ignored: Vec<(PlayerId, ShipId)>,
}

/// Each afloat ship's orders, taken only from the player who commands it (IRON-GM-18: a
/// player who sent nothing, or has left, holds fire and position).
fn ship_orders<'a>(state: &State, input: &'a TurnInput<Orders>) -> Sorted<'a> {
    let mut sorted = Sorted {
        by_ship: BTreeMap::new(),
        nmr: BTreeSet::new(),
        unordered: BTreeSet::new(),
        refused: BTreeSet::new(),
        ignored: Vec::new(),
    };
    for commander in &state.commanders {
        let player = commander.player.id;
        let has_ships = state.ships.iter().any(|s| s.player == player && s.afloat());
        match input.orders.get(&player).filter(|_| !commander.left) {
            None if has_ships => {
                sorted.nmr.insert(player);
            }
            None => {}
            Some(orders) => {
                for (id, ship_orders) in &orders.ships {
                    if state.ship(*id).is_some_and(|s| s.player == player) {
                        sorted.by_ship.insert(*id, ship_orders);
                    } else {
                        sorted.ignored.push((player, *id));
                    }
                }
                for id in &orders.refused {
                    if state.ship(*id).is_some_and(|s| s.player == player) {
                        sorted.refused.insert(*id);
                    }
                }
                for ship in state
                    .ships
                    .iter()
                    .filter(|s| s.player == player && s.afloat())
                {
                    if !orders.ships.contains_key(&ship.id) {
                        sorted.unordered.insert(ship.id);
                    }
                }
            }
        }
    }
    sorted
}

/// What a ship will do when her turn to move comes: her order within her limits, or the
/// forced move home if she has broken off (IRON-GM-07, IRON-GM-10).
fn planned(
    state: &State,
    ship: &Ship,
    by_ship: &BTreeMap<ShipId, &ShipOrders>,
    turn: u32,
) -> (Manoeuvre, Option<Change>) {
    let ordered = by_ship.get(&ship.id).and_then(|o| o.movement);
    if ship.broken_off {
        let home = state
            .sides
            .get(ship.side)
            .map(|s| s.home_edge)
            .unwrap_or(crate::grid::Edge::North);
        let preference = by_ship.get(&ship.id).and_then(|o| o.withdraw);
        (
            movement::forced_manoeuvre(
                ship,
                home,
                turn,
                preference,
                state.rules.allow_pivot_when_slowed,
            ),
            Some(Change::BrokenOff { home }),
        )
    } else {
        movement::limited(
            ship,
            ordered.unwrap_or(Manoeuvre::Hold),
            turn,
            state.rules.allow_pivot_when_slowed,
        )
    }
}

/// Under the GM's switch on IRON-GM-08, which waiting ship moves next: the first (in the usual
/// order) whose path enters no area held by a waiting ship that will leave it. When every
/// waiting ship waits on another (a ring), the first moves.
fn leaving_first(
    state: &State,
    waiting: &[ShipId],
    by_ship: &BTreeMap<ShipId, &ShipOrders>,
    turn: u32,
) -> usize {
    let leaves = |id: ShipId| -> Option<crate::grid::Area> {
        let ship = state.ship(id).filter(|s| s.afloat())?;
        let (manoeuvre, _) = planned(state, ship, by_ship, turn);
        (manoeuvre.forward_steps() > 0).then_some(ship.area)
    };
    let path = |id: ShipId| -> Vec<crate::grid::Area> {
        let Some(ship) = state.ship(id).filter(|s| s.afloat()) else {
            return Vec::new();
        };
        let (manoeuvre, _) = planned(state, ship, by_ship, turn);
        let mut areas = Vec::new();
        let mut area = ship.area;
        for _ in 0..manoeuvre.forward_steps() {
            match state.rules.board.step(area, ship.heading) {
                Ok(next) => {
                    areas.push(next);
                    area = next;
                }
                Err(_) => break,
            }
        }
        areas
    };
    waiting
        .iter()
        .position(|&id| {
            let entering = path(id);
            !waiting
                .iter()
                .filter(|&&other| other != id)
                .any(|&other| leaves(other).is_some_and(|area| entering.contains(&area)))
        })
        .unwrap_or(0)
}

/// The order a side's ships move in: each of its players' `ORDER` lists in roster order, then
/// the rest by ship ID (IRON-GM-08); by ship ID alone under the GM's switch.
pub(crate) fn move_sequence(state: &State, side: usize, input: &TurnInput<Orders>) -> Vec<ShipId> {
    let mut sequence: Vec<ShipId> = Vec::new();
    let use_lines = state.rules.move_order != MoveOrder::ShipId;
    for commander in state
        .commanders
        .iter()
        .filter(|c| use_lines && c.side == side && !c.left)
    {
        let Some(orders) = input.orders.get(&commander.player.id) else {
            continue;
        };
        for id in &orders.move_order {
            let own = state
                .ship(*id)
                .is_some_and(|s| s.player == commander.player.id && s.side == side);
            if own && !sequence.contains(id) {
                sequence.push(*id);
            }
        }
    }
    for ship in state.ships.iter().filter(|s| s.side == side) {
        if !sequence.contains(&ship.id) {
            sequence.push(ship.id);
        }
    }
    sequence
}
