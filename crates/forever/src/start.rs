//! The start of a game: the settings checked, the roll-off for seats (FOREVER-PLAY-1), and any
//! fleets the GM gave placed (FOREVER-GEN-2, FOREVER-GM-39).

use std::collections::{BTreeMap, BTreeSet};

use engine::{Player, PlayerId, SetupError, SetupProblem, TurnDice};

use crate::design::{Hull, Points};
use crate::geometry::Point;
use crate::setup::Setup;
use crate::state::{Phase, Seat, Ship, State};

/// Starts a game: checks the settings, rolls off (FOREVER-PLAY-1), and places any fleets
/// the GM gave.
pub fn start(setup: &Setup, players: &[Player], dice: &mut TurnDice) -> Result<State, SetupError> {
    if players.len() < 2 {
        return Err(SetupError::Players(
            "Battleships Forever needs at least two players".into(),
        ));
    }
    let ids: BTreeSet<PlayerId> = players.iter().map(|p| p.id).collect();
    if ids.len() != players.len() {
        return Err(SetupError::Players("two players share an id".into()));
    }
    for (side, setting, length) in [
        ("wide", "table.0", setup.width()),
        ("deep", "table.1", setup.height()),
    ] {
        if !(1200..=100_000).contains(&length) {
            return Err(SetupError::setting(
                setting,
                format!("the table must be 12\" to 1000\" {side}"),
            ));
        }
    }
    if setup.meteor_hit_faces > 6 {
        return Err(SetupError::setting(
            "meteor_hit_faces",
            "meteor_hit_faces counts faces of a D6: 0 to 6",
        ));
    }
    for rock in &setup.rocks {
        if rock.corners.len() < 3 || !convex(&rock.corners) {
            return Err(SetupError::setting(
                "rocks",
                format!(
                    "rock {} must be a convex polygon of at least three corners (FOREVER-GM-39)",
                    rock.name
                ),
            ));
        }
    }
    if !setup.fleets.is_empty() && setup.fleets.len() != players.len() {
        return Err(SetupError::setting(
            "fleets",
            format!(
                "fleets are given for {} players but {} are playing",
                setup.fleets.len(),
                players.len()
            ),
        ));
    }
    let (seating, roll_off) = roll_off(players, dice);
    // The state keeps the settings without the fleets: they become its ships.
    let mut kept = setup.clone();
    kept.fleets = Vec::new();
    let mut state = State {
        setup: kept,
        turn: 1,
        round: 0,
        phase: Phase::Building,
        seats: players
            .iter()
            .map(|player| Seat::new(player.clone()))
            .collect(),
        seating,
        roll_off,
        next_seat: 0,
        ships: Vec::new(),
        bodies: Vec::new(),
        demeters: Vec::new(),
        meteor_groups: Vec::new(),
        flux_lines: Vec::new(),
        next_id: 1,
        finish: None,
    };
    if !setup.fleets.is_empty() {
        let mut problems = Vec::new();
        let mut names: BTreeSet<String> = BTreeSet::new();
        for (player, fleet) in players.iter().zip(&setup.fleets) {
            let mut total = Points::ZERO;
            for ship in &fleet.ships {
                let name = ship
                    .name
                    .clone()
                    .unwrap_or_else(|| ship.design.name.clone());
                if !names.insert(name.to_ascii_uppercase()) {
                    problems.push(format!("two ships are named {name}"));
                }
                match Hull::check(&ship.design) {
                    Ok(hull) => {
                        total += hull.cost();
                        let mut new_ship =
                            Ship::new(state.next_id, &name, player.id, ship.design.clone(), &hull);
                        new_ship.at = ship.at;
                        new_ship.facing = ship.facing;
                        state.next_id += 1;
                        state.ships.push(new_ship);
                    }
                    Err(issues) => {
                        for issue in issues {
                            problems.push(format!("{name}: {issue}"));
                        }
                    }
                }
            }
            if total > Points::whole(i64::from(setup.points_limit)) {
                problems.push(format!(
                    "{}'s fleet costs {total}, over the {} points agreed (FOREVER-GEN-2)",
                    player.name, setup.points_limit
                ));
            }
        }
        problems.extend(state.placement_problems());
        if !problems.is_empty() {
            return Err(SetupError::Settings(
                problems
                    .into_iter()
                    .map(|problem| SetupProblem::of("fleets", problem))
                    .collect(),
            ));
        }
        state.phase = Phase::Battle;
    }
    Ok(state)
}

fn convex(corners: &[Point]) -> bool {
    let n = corners.len();
    let mut sign = 0i128;
    for i in 0..n {
        let (Some(a), Some(b), Some(c)) = (
            corners.get(i),
            corners.get((i + 1) % n),
            corners.get((i + 2) % n),
        ) else {
            return false;
        };
        let turn = (*b - *a).cross(*c - *b);
        if turn != 0 {
            if sign != 0 && turn.signum() != sign {
                return false;
            }
            sign = turn.signum();
        }
    }
    sign != 0
}

/// One D6 per player in roster order, all rerolled while the highest is tied
/// (FOREVER-PLAY-1). Seats: highest first, ties below the top in roster order.
fn roll_off(players: &[Player], dice: &mut TurnDice) -> (Vec<PlayerId>, Vec<(PlayerId, Vec<u32>)>) {
    let mut log: BTreeMap<PlayerId, Vec<u32>> = BTreeMap::new();
    let mut rolls: Vec<(PlayerId, u32)>;
    let mut attempts = 0;
    loop {
        rolls = players.iter().map(|p| (p.id, dice.open.d6())).collect();
        for (player, value) in &rolls {
            log.entry(*player).or_default().push(*value);
        }
        let best = rolls.iter().map(|(_, v)| *v).max().unwrap_or(0);
        attempts += 1;
        if rolls.iter().filter(|(_, v)| *v == best).count() == 1 || attempts >= 20 {
            break;
        }
    }
    let order: BTreeMap<PlayerId, usize> =
        players.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
    rolls.sort_by(|a, b| b.1.cmp(&a.1).then(order.get(&a.0).cmp(&order.get(&b.0))));
    let seating = rolls.iter().map(|(p, _)| *p).collect();
    let log = players
        .iter()
        .map(|p| (p.id, log.get(&p.id).cloned().unwrap_or_default()))
        .collect();
    (seating, log)
}
