#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! One judge (issue 28 item 1): every set of orders of the case table (`tests/cases/*.json`)
//! and of the phrasings corpus is resolved, and each action the confirmation promised
//! ("understood") must be carried out or reported as stopped by something that happened in
//! the turn: a line for the weapon or module in its ship's Result (fired, held and why), the
//! ship lost in the turn, or disabled by this turn's fire. A ship disabled before the turn
//! is no excuse: her orders should have been refused when written.

#[allow(
    dead_code,
    reason = "the case table's own binary; only its table is used here"
)]
#[path = "rules.rs"]
mod rules;

use engine::{Engine, Player, PlayerId, Report, TurnInput};
use forever::orders::{Action, Orders};
use forever::{Forever, State};
use rulecases::CaseTable;
use rulecases::case::Case;

/// What the turn did not do of what `orders` confirmed for `player`.
fn not_done(
    before: &State,
    after: &State,
    report: &Report,
    player: &Player,
    orders: &Orders,
    warnings: &[engine::LineIssue],
) -> Vec<String> {
    let mut missing = Vec::new();
    let result = |ship: &str| {
        report
            .rows
            .iter()
            .find(|r| r.name == format!("{}: {ship}", player.name))
            .map_or(String::new(), |r| r.result.clone())
    };
    let lost = |ship: &str| {
        after
            .ships
            .iter()
            .find(|s| s.name == ship)
            .is_none_or(|s| s.destroyed)
    };
    let disabled_before = |ship: &str| {
        before
            .ships
            .iter()
            .position(|s| s.name == ship)
            .is_some_and(|i| before.disabled_for_next_turn(i))
    };
    for action in &orders.actions {
        let (ship, labels): (&str, Vec<String>) = match action {
            Action::Fire { ship, weapon, .. } => (ship, vec![format!("{weapon}:")]),
            Action::Battery { ship, .. } => (ship, vec!["battery:".into()]),
            Action::Emp { ship, module, .. }
            | Action::Heal { ship, module, .. }
            | Action::Launch { ship, module, .. }
            | Action::Flux { ship, module, .. } => {
                (ship, vec![format!("{module}:"), format!("{module} ")])
            }
            Action::Computer {
                ship,
                module,
                weapon,
                ..
            } => (ship, vec![format!("{module}:"), format!("{weapon}:")]),
        };
        let written = result(ship);
        if disabled_before(ship) {
            missing.push(format!(
                "{action:?} was confirmed for a ship disabled before the turn"
            ));
        } else if !(labels.iter().any(|l| written.contains(l.as_str()))
            || lost(ship)
            || written.contains("disabled"))
        {
            missing.push(format!(
                "{action:?} is neither done nor said stopped: {written:?}"
            ));
        }
    }
    let opening = warnings
        .iter()
        .any(|w| w.problem.contains("movement 1 is skipped this turn"));
    for (ship, moves) in &orders.moves {
        let written = result(ship);
        for (phase, given) in [(1, moves.first.is_some()), (2, moves.second.is_some())] {
            let skipped = phase == 1 && opening;
            // Done ("move 1: …", a swivel, a tow), or stopped by where things are when it
            // moves ("would overlap …", "in tow: cannot move itself").
            let said = [
                format!("move {phase}"),
                "swivelled".into(),
                "in tow".into(),
                "would overlap".into(),
            ]
            .iter()
            .any(|w| written.contains(w.as_str()));
            if given && !skipped && !lost(ship) && !said {
                missing.push(format!(
                    "{ship}'s movement {phase} is neither done nor said stopped: {written:?}"
                ));
            }
        }
    }
    missing
}

/// Plays every turn of one case, checking each turn's confirmed actions; the failures.
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
            let parsed = Forever::parse_orders(&state, player.id, text);
            input.orders.insert(player.id, parsed.orders.clone());
            sets.push((player.clone(), parsed));
        }
        input.leaving = players
            .iter()
            .filter(|p| turn.leaving.contains(&p.name))
            .map(|p| p.id)
            .collect();
        let mut dice = rulecases::dice::scripted(&turn.dice, &turn.sealed);
        let Ok(resolution) = Forever::resolve(&state, &input, &mut dice) else {
            return failures;
        };
        for (player, parsed) in &sets {
            for missing in not_done(
                &state,
                &resolution.state,
                &resolution.report,
                player,
                &parsed.orders,
                &parsed.warnings,
            ) {
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
fn every_confirmed_action_is_carried_out_or_reported_stopped() {
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
    assert!(sets > 50, "only {sets} sets of orders");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
