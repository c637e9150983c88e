//! One PBEM turn: fleets built and deployed by mail, or a battle round mapped onto written
//! orders (FOREVER-GM-02): each player's player-turn in seat order, with the three phases of
//! FOREVER-PLAY-5, standing reactions for the enemy's turns, and the end-of-game checks.

use std::collections::{BTreeMap, BTreeSet};

use engine::{PlayerId, TurnDice, TurnError, TurnInput};

use crate::battle::{Battle, TurnLog};
use crate::design::{Hull, ModuleSpec, Points};
use crate::geometry::{Point, Polygon};
use crate::orders::{Action, Orders};
use crate::setup::{DeployMode, FirstPlayer, MoveOrder, ShipSetup, TurnMode, rock_polygon};
use crate::state::{Finish, Phase, SeatStatus, Ship, State};

/// Resolves a turn: the next state and what happened.
pub fn resolve_turn(
    state: &State,
    input: &TurnInput<Orders>,
    dice: &mut TurnDice,
) -> Result<(State, TurnLog), TurnError> {
    if state.phase == Phase::Over {
        return Err(TurnError::GameOver);
    }
    let mut next = state.clone();
    let mut log = TurnLog::default();
    if state.turn == 1 {
        let rolls: Vec<String> = state
            .roll_off
            .iter()
            .map(|(player, rolls)| {
                let shown: Vec<String> = rolls.iter().map(ToString::to_string).collect();
                format!("{} {}", state.player_name(*player), shown.join(" then "))
            })
            .collect();
        let first = state
            .seating
            .first()
            .map_or_else(String::new, |p| state.player_name(*p));
        log.notes.push(format!(
            "Roll-off (D6): {}. {first} goes first (FOREVER-PLAY-1).",
            rolls.join(", ")
        ));
    }
    // Leaving players and resignations take effect at once (FOREVER-PLAY-4, FOREVER-GM-43).
    let mut resigning: BTreeSet<PlayerId> = input.leaving.iter().copied().collect();
    for (player, orders) in &input.orders {
        if orders.resign {
            resigning.insert(*player);
        }
    }
    for player in resigning {
        resign(&mut next, player, &mut log);
    }
    // Standing reactions are kept until changed (FOREVER-GM-20, FOREVER-GM-46).
    for (player, orders) in &input.orders {
        if let Some(seat) = next.seat_mut(*player) {
            for deflect in &orders.deflect {
                let key = format!("{}.{}", deflect.ship, deflect.module);
                match &deflect.protect {
                    Some(protect) => {
                        seat.standing.insert(key, protect.clone());
                    }
                    None => {
                        seat.standing.remove(&key);
                    }
                }
            }
        }
    }
    match next.phase {
        Phase::Building => build(&mut next, input, &mut log),
        Phase::Battle => {
            let mut battle = Battle::new(next, dice).map_err(TurnError::BadState)?;
            battle.log = log;
            // Rows for every ship in play when the turn began, resigned fleets included.
            battle.log.ships_at_start = state
                .ships
                .iter()
                .filter(|s| !s.destroyed)
                .map(|s| s.id)
                .collect();
            let seating = battle.state.seating.clone();
            let seats: Vec<usize> = match battle.state.setup.turn_mode {
                TurnMode::Round => (0..seating.len()).collect(),
                TurnMode::Alternate => {
                    vec![battle.state.next_seat.min(seating.len().saturating_sub(1))]
                }
            };
            for seat in seats {
                if seat == 0 {
                    battle.round_start();
                } else if battle.state.setup.drift == crate::setup::DriftTiming::PerPlayerTurn {
                    battle.loose_things_move();
                }
                let Some(player) = seating.get(seat).copied() else {
                    continue;
                };
                let playing = battle
                    .state
                    .seat(player)
                    .is_some_and(|s| s.status == SeatStatus::Playing);
                if playing && !input.orders.contains_key(&player) {
                    // FOREVER-GM-46: said in the report, so nobody wonders why a fleet stood.
                    battle.log.notes.push(format!(
                        "{} sent no orders (NMR): their ships hold; automatic effects and standing orders still apply (FOREVER-GM-46).",
                        battle.state.player_name(player)
                    ));
                }
                if playing {
                    let opening = battle.state.round == 0 && seat == 0;
                    player_turn(&mut battle, player, input.orders.get(&player), opening);
                }
                if seat + 1 >= seating.len() {
                    battle.state.round += 1;
                    battle.state.next_seat = 0;
                    // FOREVER-PLAY-1 switched: the first player of a round goes last next.
                    if battle.state.setup.first_player == FirstPlayer::Alternating
                        && !battle.state.seating.is_empty()
                    {
                        battle.state.seating.rotate_left(1);
                    }
                } else {
                    battle.state.next_seat = seat + 1;
                }
            }
            next = battle.state;
            log = battle.log;
            log.hulls = battle.hulls;
            cleanup(&mut next);
            finish_checks(&mut next, input, &mut log);
        }
        Phase::Over => {}
    }
    next.turn += 1;
    Ok((next, log))
}

fn resign(state: &mut State, player: PlayerId, log: &mut TurnLog) {
    let Some(seat) = state.seat_mut(player) else {
        return;
    };
    if seat.status != SeatStatus::Playing {
        return;
    }
    seat.status = SeatStatus::Resigned;
    seat.pending.clear();
    let name = seat.player.name.clone();
    // A resigned fleet is withdrawn from the table (FOREVER-ADM-07).
    for ship in &mut state.ships {
        if ship.owner == player && !ship.destroyed {
            ship.destroyed = true;
            ship.towing = None;
            ship.towed_by = None;
        }
    }
    for ship in &mut state.ships {
        if ship.owner != player {
            ship.towing = None;
            ship.towed_by = None;
        }
    }
    for body in &mut state.bodies {
        body.towed_by = None;
    }
    state.demeters.retain(|d| d.owner != player);
    log.notes.push(format!("{name} resigns (FOREVER-PLAY-4)."));
}

/// One player's player-turn: start, movement 1, shooting, movement 2, end (FOREVER-PLAY-5).
fn player_turn(battle: &mut Battle, player: PlayerId, orders: Option<&Orders>, opening: bool) {
    battle.begin_player_turn(player);
    battle.pull_ships(player);
    battle.recharge(player);
    let empty = Orders::default();
    let orders = orders.unwrap_or(&empty);
    let own_ships: Vec<usize> = (0..battle.state.ships.len())
        .filter(|s| {
            battle
                .state
                .ships
                .get(*s)
                .is_some_and(|d| d.owner == player && !d.destroyed)
        })
        .collect();
    let moves_of = |battle: &Battle, ship: usize| {
        let name = battle.state.ships.get(ship).map_or("", |s| s.name.as_str());
        orders
            .moves
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, moves)| moves.clone())
    };
    for &ship in &own_ships {
        if moves_of(battle, ship).is_some_and(|m| m.release) {
            battle.release(ship);
        }
    }
    // Phase 1 (FOREVER-MOVE1-*): the first player's opening turn has none (FOREVER-GM-31).
    let mut demeter_moved: BTreeMap<usize, i64> = BTreeMap::new();
    if opening {
        if !orders.moves.values().all(|m| m.first.is_none()) {
            battle.log.notes.push(format!(
                "{} opens the battle in the shooting phase: movement 1 orders are ignored (FOREVER-PLAY-3).",
                battle.state.player_name(player)
            ));
        }
    } else {
        for ship in moving_order(battle, &own_ships, &orders.first_moves_written) {
            if let Some(first) = moves_of(battle, ship).and_then(|m| m.first) {
                let allowance = battle.speed_with_tow(ship);
                let moved = battle.move_ship(ship, &first, allowance, true);
                if let Some(turn) = battle.ship_turn.get_mut(ship) {
                    turn.moved_first = moved;
                }
            }
        }
        for (index, go, speed) in demeter_orders(battle, player, orders, |o| o.first) {
            let moved = battle.move_demeter(index, go, speed, "move 1");
            demeter_moved.insert(index, moved);
        }
    }
    // Phase 2 (FOREVER-SHOOT-*): flux lines first, then the actions in the order written.
    let owner_ships: BTreeSet<u32> = battle
        .state
        .ships
        .iter()
        .filter(|s| s.owner == player)
        .map(|s| s.id)
        .collect();
    battle
        .state
        .flux_lines
        .retain(|line| !owner_ships.contains(&line.ship));
    for action in &orders.actions {
        if let Action::Flux {
            ship,
            module,
            bearing,
            length,
        } = action
            && let Some(index) = own_ship(battle, player, ship)
        {
            battle.draw_flux(index, module, *bearing, *length);
        }
    }
    let mut computers: BTreeMap<(usize, usize), (usize, Option<crate::orders::Aim>)> =
        BTreeMap::new();
    for action in &orders.actions {
        if let Action::Computer {
            ship,
            module,
            weapon,
            fallback,
        } = action
            && let Some(index) = own_ship(battle, player, ship)
            && let Some(hull) = battle.hulls.get(index)
            && let (Some(tc), Some(gun)) = (
                hull.module(module, |m| matches!(m, ModuleSpec::TargetingComputer)),
                hull.weapon(weapon),
            )
        {
            computers.insert((index, gun), (tc, fallback.clone()));
        }
    }
    for action in &orders.actions {
        match action {
            Action::Fire {
                ship,
                weapon,
                aim,
                range,
                sweep,
            } => {
                let Some(index) = own_ship(battle, player, ship) else {
                    continue;
                };
                let computer = battle
                    .hulls
                    .get(index)
                    .and_then(|h| h.weapon(weapon))
                    .and_then(|gun| computers.get(&(index, gun)).cloned());
                battle.fire(index, weapon, aim, *range, *sweep, computer);
            }
            Action::Battery {
                ship,
                weapons,
                aim,
                range,
                sweep,
            } => {
                if let Some(index) = own_ship(battle, player, ship) {
                    battle.fire_battery(index, weapons, aim, *range, *sweep);
                }
            }
            Action::Emp { ship, module, aim } => {
                if let Some(index) = own_ship(battle, player, ship) {
                    battle.fire_emp(index, module, aim);
                }
            }
            Action::Heal {
                ship,
                module,
                target_ship,
                target_section,
                amount,
            } => {
                if let Some(index) = own_ship(battle, player, ship) {
                    battle.heal(index, module, target_ship, target_section, *amount);
                }
            }
            Action::Launch { ship, module, go } => {
                if let Some(index) = own_ship(battle, player, ship) {
                    battle.launch(index, module, *go);
                }
            }
            Action::Computer { .. } | Action::Flux { .. } => {}
        }
    }
    for (name, demeter_orders) in &orders.demeters {
        let Some(aim) = &demeter_orders.fire else {
            continue;
        };
        if let Some(index) = battle
            .state
            .demeters
            .iter()
            .position(|d| !d.gone && d.owner == player && d.name.eq_ignore_ascii_case(name))
        {
            let disabled = battle
                .state
                .demeters
                .get(index)
                .and_then(|d| battle.state.ships.iter().find(|s| s.id == d.ship))
                .is_none_or(|s| s.destroyed || s.is_disabled(battle.own_turn));
            if disabled {
                let key = crate::battle::RowKey::Demeter(name.clone());
                battle.log.result(
                    key,
                    "its ship is disabled: no action (FOREVER-DEF-DISABLED)",
                );
            } else {
                battle.demeter_fire(index, aim);
            }
        }
    }
    // Phase 3 (FOREVER-MOVE2-*): what is left of the speed, or half of it on the opening turn.
    for ship in moving_order(battle, &own_ships, &orders.second_moves_written) {
        if let Some(second) = moves_of(battle, ship).and_then(|m| m.second) {
            let speed = battle.speed_with_tow(ship);
            let allowance = if opening {
                speed / 2
            } else {
                (speed - battle.ship_turn.get(ship).map_or(0, |t| t.moved_first)).max(0)
            };
            battle.move_ship(ship, &second, allowance, false);
        }
    }
    for (index, go, speed) in demeter_orders(battle, player, orders, |o| o.second) {
        let allowance = (speed - demeter_moved.get(&index).copied().unwrap_or(0)).max(0);
        battle.move_demeter(index, go, allowance, "move 2");
    }
    battle.end_player_turn(player);
}

/// The order a player's ships move in a movement phase (FOREVER-MOVE1-1, setup `move_order`):
/// as written, then any others by id; or by id alone.
fn moving_order(battle: &Battle, own_ships: &[usize], written: &[String]) -> Vec<usize> {
    let mut order = Vec::with_capacity(own_ships.len());
    if battle.state.setup.move_order == MoveOrder::Written {
        for name in written {
            if let Some(index) = battle.state.ship_index(name)
                && own_ships.contains(&index)
                && !order.contains(&index)
            {
                order.push(index);
            }
        }
    }
    for ship in own_ships {
        if !order.contains(ship) {
            order.push(*ship);
        }
    }
    order
}

fn own_ship(battle: &Battle, player: PlayerId, name: &str) -> Option<usize> {
    battle.state.ship_index(name).filter(|i| {
        battle
            .state
            .ships
            .get(*i)
            .is_some_and(|s| s.owner == player && !s.destroyed)
    })
}

fn demeter_orders(
    battle: &Battle,
    player: PlayerId,
    orders: &Orders,
    pick: fn(&crate::orders::DemeterOrders) -> Option<crate::orders::Destination>,
) -> Vec<(usize, crate::orders::Destination, i64)> {
    let mut out = Vec::new();
    for (name, demeter_orders) in &orders.demeters {
        let Some(go) = pick(demeter_orders) else {
            continue;
        };
        if let Some(index) = battle
            .state
            .demeters
            .iter()
            .position(|d| !d.gone && d.owner == player && d.name.eq_ignore_ascii_case(name))
        {
            let speed = battle.state.demeters.get(index).map_or(0, |d| d.speed);
            out.push((index, go, speed));
        }
    }
    out
}

/// Drops what has left play.
fn cleanup(state: &mut State) {
    for group in &mut state.meteor_groups {
        group.meteors.retain(|m| m.hp > 0);
    }
    state.meteor_groups.retain(|g| !g.meteors.is_empty());
    state.demeters.retain(|d| !d.gone);
    state.bodies.retain(|b| !b.gone);
    let live: BTreeSet<u32> = state
        .ships
        .iter()
        .filter(|s| !s.destroyed)
        .map(|s| s.id)
        .collect();
    state.flux_lines.retain(|line| live.contains(&line.ship));
}

/// Wiped out, draws, resignations, the turn limit (FOREVER-GEN-1, FOREVER-PLAY-4, FOREVER-GM-43).
fn finish_checks(state: &mut State, input: &TurnInput<Orders>, log: &mut TurnLog) {
    let playing_before: Vec<PlayerId> = state.active_players();
    for player in &playing_before {
        let has_core = state
            .ships
            .iter()
            .any(|s| s.owner == *player && !s.destroyed);
        if !has_core && let Some(seat) = state.seat_mut(*player) {
            seat.status = SeatStatus::WipedOut;
            let name = seat.player.name.clone();
            log.notes.push(format!(
                "{name} has no ship left: wiped out (FOREVER-GEN-1)."
            ));
        }
    }
    let active = state.active_players();
    let finish = if let [last] = active.as_slice() {
        Some(Finish {
            reason: format!(
                "{} is the last admiral with a fleet (FOREVER-GEN-1)",
                state.player_name(*last)
            ),
            winners: active.clone(),
        })
    } else if active.is_empty() {
        Some(Finish {
            reason: "no fleet is left: a draw".to_string(),
            winners: playing_before,
        })
    } else if active
        .iter()
        .all(|p| input.orders.get(p).is_some_and(|o| o.offer_draw))
    {
        Some(Finish {
            reason: "every admiral agreed a draw (FOREVER-PLAY-4)".to_string(),
            winners: active.clone(),
        })
    } else if state
        .setup
        .turn_limit
        .is_some_and(|limit| state.round >= limit && state.next_seat == 0)
    {
        let best = active
            .iter()
            .filter_map(|p| state.seat(*p))
            .map(|s| s.score)
            .max()
            .unwrap_or(Points::ZERO);
        Some(Finish {
            reason: format!(
                "the turn limit of {} rounds is reached; the best score wins (FOREVER-GM-43)",
                state.setup.turn_limit.unwrap_or(0)
            ),
            winners: active
                .iter()
                .copied()
                .filter(|p| state.seat(*p).is_some_and(|s| s.score == best))
                .collect(),
        })
    } else {
        None
    };
    if let Some(finish) = finish {
        let names: Vec<String> = finish
            .winners
            .iter()
            .map(|p| state.player_name(*p))
            .collect();
        log.notes.push(format!(
            "The battle is over: {}. Winner{}: {}.",
            finish.reason,
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        ));
        state.finish = Some(finish);
        state.phase = Phase::Over;
    }
}

/// A player's fleet as ordered: designs checked and priced, names free, deployments in the
/// player's strip of the table, nothing overlapping (FOREVER-GEN-2, FOREVER-PLAY-2,
/// FOREVER-GM-44). Returns the ships to place, or every problem found.
pub fn check_fleet(
    state: &State,
    player: PlayerId,
    orders: &Orders,
) -> Result<Vec<ShipSetup>, Vec<String>> {
    let mut problems = Vec::new();
    if orders.designs.is_empty() {
        return Err(vec![
            "no ship designs: send a SHIP block for each ship".to_string(),
        ]);
    }
    // Only ships on the table are public: a name in another player's hidden fleet must not be
    // refused here, or the refusal would tell this player that name (FOREVER-GM-44). Clashes
    // with hidden fleets are settled when the fleets are placed (`place`, FOREVER-ADM-20).
    let taken: BTreeSet<String> = state
        .ships
        .iter()
        .map(|s| s.name.to_ascii_uppercase())
        .collect();
    let mut names = BTreeSet::new();
    let mut total = Points::ZERO;
    let mut fleet = Vec::new();
    let blind = state.setup.deploy_mode == DeployMode::Blind;
    for design in &orders.designs {
        let upper = design.name.to_ascii_uppercase();
        if !names.insert(upper.clone()) {
            problems.push(format!("two of your ships are named {}", design.name));
        }
        if taken.contains(&upper) {
            problems.push(format!(
                "the name {} is taken by a ship on the table: choose another (FOREVER-ADM-20)",
                design.name
            ));
        }
        let hull = match Hull::check(design) {
            Ok(hull) => hull,
            Err(issues) => {
                for issue in issues {
                    problems.push(format!("{}: {issue}", design.name));
                }
                continue;
            }
        };
        total += hull.cost();
        let deploy = orders
            .deploys
            .iter()
            .find(|d| d.ship.eq_ignore_ascii_case(&design.name));
        if blind && deploy.is_none() {
            problems.push(format!(
                "{} has no DEPLOY order (FOREVER-GM-44)",
                design.name
            ));
        }
        fleet.push((
            ShipSetup {
                design: design.clone(),
                name: None,
                at: deploy.map_or(Point::ORIGIN, |d| d.at),
                facing: deploy.map(|d| d.facing).unwrap_or_default(),
            },
            hull,
            deploy.is_some(),
        ));
    }
    for deploy in &orders.deploys {
        if !orders
            .designs
            .iter()
            .any(|d| d.name.eq_ignore_ascii_case(&deploy.ship))
        {
            problems.push(format!(
                "DEPLOY {}: no such ship in your designs",
                deploy.ship
            ));
        }
    }
    let limit = Points::whole(i64::from(state.setup.points_limit));
    if total > limit {
        problems.push(format!(
            "the fleet costs {total} points; the limit is {} (FOREVER-GEN-2)",
            state.setup.points_limit
        ));
    }
    let placed: Vec<(String, Vec<Polygon>)> = fleet
        .iter()
        .filter(|(_, _, deployed)| *deployed)
        .map(|(setup, hull, _)| {
            (
                setup.design.name.clone(),
                placed_shapes(setup, hull, player),
            )
        })
        .collect();
    for (index, (name, shapes)) in placed.iter().enumerate() {
        problems.extend(placement_problem(state, player, name, shapes));
        for (other, other_shapes) in placed.iter().skip(index + 1) {
            if shapes
                .iter()
                .any(|a| other_shapes.iter().any(|b| a.overlaps(b)))
            {
                problems.push(format!("{name} overlaps {other}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(fleet.into_iter().map(|(setup, _, _)| setup).collect())
    } else {
        Err(problems)
    }
}

fn placed_shapes(setup: &ShipSetup, hull: &Hull, player: PlayerId) -> Vec<Polygon> {
    let mut ship = Ship::new(0, &setup.design.name, player, setup.design.clone(), hull);
    ship.at = setup.at;
    ship.facing = setup.facing;
    ship.polygons(hull).into_iter().flatten().collect()
}

/// Must lie wholly in the player's strip of the table, clear of rocks and ships already placed.
pub fn placement_problem(
    state: &State,
    player: PlayerId,
    name: &str,
    shapes: &[Polygon],
) -> Vec<String> {
    let mut problems = Vec::new();
    let Some((low, high)) = state.deployment_strip(player) else {
        return vec!["you are not seated in this game".to_string()];
    };
    let strip = Polygon::rect(low, 0, high, state.setup.height());
    if shapes
        .iter()
        .any(|s| s.corners.iter().any(|c| !strip.contains(*c)))
    {
        problems.push(format!(
            "{name} must lie wholly in your deployment area, x {} to {}, y 0 to {} (FOREVER-PLAY-2)",
            crate::fixed::show_hundredths(low),
            crate::fixed::show_hundredths(high),
            crate::fixed::show_hundredths(state.setup.height())
        ));
    }
    for rock in &state.setup.rocks {
        let polygon = rock_polygon(rock);
        if shapes.iter().any(|s| s.overlaps(&polygon)) {
            problems.push(format!("{name} overlaps the rock {}", rock.name));
        }
    }
    if let Ok(hulls) = state.hulls() {
        for (ship, hull) in state.ships.iter().zip(&hulls) {
            if ship.destroyed {
                continue;
            }
            if ship
                .polygons(hull)
                .into_iter()
                .flatten()
                .any(|p| shapes.iter().any(|s| s.overlaps(&p)))
            {
                problems.push(format!("{name} overlaps {}", ship.name));
            }
        }
    }
    problems
}

/// The building turns: fleets accepted, then placed (FOREVER-PLAY-2, FOREVER-GM-44).
fn build(state: &mut State, input: &TurnInput<Orders>, log: &mut TurnLog) {
    let seating = state.seating.clone();
    for player in &seating {
        let Some(seat) = state.seat(*player) else {
            continue;
        };
        if seat.ready || seat.status != SeatStatus::Playing {
            continue;
        }
        let name = seat.player.name.clone();
        let Some(orders) = input.orders.get(player) else {
            log.notes.push(format!("{name}: no fleet received yet."));
            continue;
        };
        match check_fleet(state, *player, orders) {
            // The report is public: it says nothing of a hidden fleet, not even how many
            // ships it has or how many problems it had (FOREVER-GM-44).
            Ok(fleet) => {
                if let Some(seat) = state.seat_mut(*player) {
                    seat.pending = fleet;
                    seat.ready = true;
                }
                log.notes.push(format!(
                    "{name}: fleet accepted; it stays hidden until every fleet is in."
                ));
            }
            Err(_) => {
                log.notes.push(format!(
                    "{name}: fleet not accepted yet (the order confirmation says why)."
                ));
            }
        }
    }
    let playing: Vec<PlayerId> = seating
        .iter()
        .copied()
        .filter(|p| {
            state
                .seat(*p)
                .is_some_and(|s| s.status == SeatStatus::Playing)
        })
        .collect();
    match state.setup.deploy_mode {
        DeployMode::Blind => {
            if !playing
                .iter()
                .all(|p| state.seat(*p).is_some_and(|s| s.ready))
            {
                return;
            }
            for player in &playing {
                let fleet = state
                    .seat_mut(*player)
                    .map(|s| std::mem::take(&mut s.pending))
                    .unwrap_or_default();
                for ship in fleet {
                    place(state, *player, ship, log);
                }
            }
        }
        DeployMode::Alternate => {
            for player in &playing {
                let Some(seat) = state.seat(*player) else {
                    continue;
                };
                if !seat.ready || seat.pending.is_empty() {
                    continue;
                }
                let name = seat.player.name.clone();
                let deploys = input
                    .orders
                    .get(player)
                    .map(|o| o.deploys.clone())
                    .unwrap_or_default();
                let chosen = deploys.iter().find_map(|deploy| {
                    let index = seat
                        .pending
                        .iter()
                        .position(|p| p.design.name.eq_ignore_ascii_case(&deploy.ship))?;
                    let mut ship = seat.pending.get(index)?.clone();
                    ship.at = deploy.at;
                    ship.facing = deploy.facing;
                    let hull = Hull::check(&ship.design).ok()?;
                    placement_problem(
                        state,
                        *player,
                        &ship.design.name,
                        &placed_shapes(&ship, &hull, *player),
                    )
                    .is_empty()
                    .then_some((index, ship))
                });
                match chosen {
                    Some((index, ship)) => {
                        if let Some(seat) = state.seat_mut(*player) {
                            seat.pending.remove(index);
                        }
                        place(state, *player, ship, log);
                    }
                    None => log.notes.push(format!(
                        "{name}: no valid DEPLOY order for a ship still to place."
                    )),
                }
            }
            let all_placed = playing.iter().all(|p| {
                state
                    .seat(*p)
                    .is_some_and(|s| s.ready && s.pending.is_empty())
            });
            if !all_placed {
                return;
            }
        }
    }
    state.phase = Phase::Battle;
    log.notes
        .push("Every fleet is on the table: the battle begins next turn.".to_string());
}

fn place(state: &mut State, player: PlayerId, setup: ShipSetup, log: &mut TurnLog) {
    let Ok(hull) = Hull::check(&setup.design) else {
        return;
    };
    let wanted = setup
        .name
        .clone()
        .unwrap_or_else(|| setup.design.name.clone());
    // Two hidden fleets may use one name (neither could be told of the other's); the ship
    // placed later takes the first free `-2`, `-3`, ... (FOREVER-ADM-20).
    let mut name = wanted.clone();
    let mut suffix = 2u32;
    while state.ship_index(&name).is_some() {
        name = format!("{wanted}-{suffix}");
        suffix += 1;
    }
    if name != wanted {
        log.notes.push(format!(
            "{}'s {wanted} is renamed {name}: another admiral's ship already has that name (FOREVER-ADM-20).",
            state.player_name(player)
        ));
    }
    let mut ship = Ship::new(state.next_id, &name, player, setup.design.clone(), &hull);
    ship.at = setup.at;
    ship.facing = setup.facing;
    state.next_id += 1;
    log.notes.push(format!(
        "{} places {name} ({} points) at {} facing {}.",
        state.player_name(player),
        hull.cost(),
        setup.at.show(),
        setup.facing
    ));
    state.ships.push(ship);
}
