//! One judge (issue 28 item 1), run on every set of every case ([`rulecases::CaseTable::unkept`]):
//! each action the confirmation promised
//! ("understood") must be carried out or reported as stopped by something that happened in
//! the turn: a line for the weapon or module in its ship's Result (fired, held and why), the
//! ship lost in the turn, or disabled by this turn's fire. A ship disabled before the turn
//! is no excuse: her orders should have been refused when written.

use engine::{Player, Report};
use forever::State;
use forever::orders::{Action, Orders};

/// What the turn did not do of what `orders` confirmed for `player`.
pub(crate) fn not_done(
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
