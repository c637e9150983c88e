#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! One judge (issue 28 item 1): every set of orders of the case table (`tests/cases/*.json`)
//! is resolved, and each armament and move the confirmation promised ("understood") must be
//! carried out or reported as stopped by something that happened in the turn: a volley in
//! the ship's Co-ord column, or the armament's "held fire" when a magazine blew up at the
//! start of the turn; a move in her Result (cut down, stopped, steered home); or the ship
//! sunk or escaped in the turn, or her player gone.

#[allow(
    dead_code,
    reason = "the case table's own binary; only its table is used here"
)]
#[path = "rules.rs"]
mod rules;

use engine::{Engine, Player, PlayerId, Report, TurnInput};
use ironclad::{Ironclad, Manoeuvre, Orders, State};
use rulecases::CaseTable;
use rulecases::case::Case;

/// What the turn did not do of what `orders` confirmed for `player`.
fn not_done(after: &State, report: &Report, player: &Player, orders: &Orders) -> Vec<String> {
    let mut missing = Vec::new();
    let exploded = report
        .rows
        .iter()
        .any(|r| r.result.contains("fire reaches the magazine"));
    for (id, ship_orders) in &orders.ships {
        let Some(ship) = after.ship(*id) else {
            continue;
        };
        if !ship.afloat() {
            continue; // sunk or gone in the turn: everything after that is stopped by it
        }
        let row = report
            .rows
            .iter()
            .find(|r| r.name == format!("{}: {}", player.name, ship.name));
        let (coord, result) = row.map_or((String::new(), String::new()), |r| {
            (r.coord.clone(), r.result.clone())
        });
        for (letter, ordered) in [
            ('M', !ship_orders.main.is_empty()),
            ('P', !ship_orders.port.is_empty()),
            ('S', !ship_orders.starboard.is_empty()),
            (
                'T',
                ship_orders
                    .torpedo
                    .as_ref()
                    .is_some_and(|t| !t.targets.is_empty()),
            ),
        ] {
            let fired = coord.contains(&format!("{letter}→"));
            // Fire comes before movement, from the positions the orders were checked
            // against: only a magazine blowing up at the start of the turn (IRON-GM-13) can
            // make an armament hold that the check let through.
            let held = result.contains(&format!("{letter} held fire:")) && exploded;
            if ordered && !fired && !held {
                missing.push(format!(
                    "{}'s {letter} fire is neither done nor said held: {coord:?} / {result:?}",
                    ship.name
                ));
            }
        }
        let moves = ship_orders.movement.is_some_and(|m| m != Manoeuvre::Hold);
        let said = ["move ", "breaking off", "rammed", "stopped"]
            .iter()
            .any(|w| result.contains(w));
        if moves && !said {
            missing.push(format!(
                "{}'s move is neither made nor said stopped: {result:?}",
                ship.name
            ));
        }
    }
    missing
}

/// Plays every turn of one case, checking each turn's confirmed orders; the failures.
fn play(case: &Case<rules::Table>) -> Vec<String> {
    if case.turns.iter().any(|t| !t.joining.is_empty()) {
        return Vec::new();
    }
    let players: Vec<Player> = (1..)
        .zip(&case.players)
        .map(|(number, name)| Player {
            id: PlayerId(number),
            name: name.clone(),
        })
        .collect();
    let Ok(mut state) = rules::Table::start(&case.start, &players) else {
        return Vec::new();
    };
    let mut failures = Vec::new();
    for (number, turn) in (1..).zip(&case.turns) {
        let mut input: TurnInput<Orders> = TurnInput::default();
        let mut sets = Vec::new();
        for (name, text) in &turn.orders {
            let Some(player) = players.iter().find(|p| p.name == *name) else {
                continue;
            };
            let parsed = Ironclad::parse_orders(&state, player.id, text);
            input.orders.insert(player.id, parsed.orders.clone());
            sets.push((player.clone(), parsed.orders));
        }
        input.leaving = players
            .iter()
            .filter(|p| turn.leaving.contains(&p.name))
            .map(|p| p.id)
            .collect();
        let mut dice = rulecases::dice::scripted(&turn.dice, &turn.sealed);
        let Ok(resolution) = Ironclad::resolve(&state, &input, &mut dice) else {
            return failures;
        };
        // A player who leaves before the turn resolves gets the NMR treatment (IRON-GM-18):
        // her orders are stopped by that.
        for (player, orders) in sets.iter().filter(|(p, _)| !turn.leaving.contains(&p.name)) {
            for missing in not_done(&resolution.state, &resolution.report, player, orders) {
                failures.push(format!(
                    "{} turn {number}, {}: {missing}",
                    case.name, player.name
                ));
            }
        }
        state = resolution.state;
    }
    failures
}

#[test]
fn every_confirmed_order_is_carried_out_or_reported_stopped() {
    let dir = rules::Table::RULES.cases_dir();
    let mut failures = Vec::new();
    let mut sets = 0;
    for path in rulecases::table::case_files(&dir).unwrap() {
        for value in rulecases::table::read_cases(&path).unwrap() {
            let case = Case::<rules::Table>::from_value(value).unwrap();
            sets += case.turns.iter().map(|t| t.orders.len()).sum::<usize>();
            failures.extend(play(&case));
        }
    }
    assert!(sets > 40, "only {sets} sets of orders");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
