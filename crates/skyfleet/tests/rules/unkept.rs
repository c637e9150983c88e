//! One judge (issue 28, SKY-ADM-22): what the order check confirms, the turn does. Run on
//! every accepted set of every case ([`rulecases::CaseTable::unkept`]): each action confirmed
//! ("understood") must be carried out or reported as stopped by something that happened in the
//! turn: the unit gone or Panicked, a status it took this turn (a critical, morale), or movement
//! (a ship out of reach once someone moved).

use skyfleet::orders::{CmdAction, Orders, Skip};
use skyfleet::state::Morale;
use skyfleet::{State, UnitId};

/// What a confirmed order of one unit left undone, without a cause in the turn.
pub(crate) fn unexplained(
    before: &State,
    after: &State,
    orders: &Orders,
    report: &engine::Report,
) -> Vec<String> {
    let mut found = Vec::new();
    let moved_any = |side: u8| {
        before.units.iter().any(|b| {
            b.side == side
                && after
                    .unit(b.id)
                    .is_some_and(|a| a.at != b.at || a.place != b.place)
        })
    };
    for activation in &orders.activations {
        let (Some(was), Some(now)) = (before.unit(activation.unit), after.unit(activation.unit))
        else {
            continue;
        };
        let row = report
            .rows
            .iter()
            .find(|r| {
                r.name
                    .ends_with(&format!(": {} ({})", was.name, was.class.display()))
            })
            .map(|r| r.result.clone())
            .unwrap_or_default();
        // Gone before (or during) its activation, or Panicked: the turn's doing.
        if !now.in_play() || row.contains("Panic: may not activate") {
            continue;
        }
        // Something the turn did to this unit: damage, a critical, morale, a status.
        let struck = now.status != was.status || now.hull != was.hull;
        for order in &activation.actions {
            let name = order.action.action_name().name();
            // Paid for is not enough: what it buys must happen.
            let paid = |text: &str| row.contains(text);
            let done = match &order.action {
                CmdAction::Rally(target) => {
                    // A Rally for a steady ship is confirmed as conditional: made only if it
                    // is Shaken by then.
                    if before
                        .unit(*target)
                        .is_some_and(|t| t.status.morale != Morale::Shaken)
                    {
                        continue;
                    }
                    paid(&format!("Rally {} (", name_of(before, *target)))
                }
                CmdAction::TargetLock(slots) => {
                    let weapon = slots
                        .first()
                        .and_then(|slot| was.weapons.iter().find(|w| &w.slot == slot))
                        .map(|w| w.kind.name())
                        .unwrap_or("?");
                    let locked = format!("Target Lock on {} (", slots.join(", "));
                    paid(&locked)
                        && row
                            .split(&locked)
                            .nth(1)
                            .is_some_and(|after| after.contains(weapon))
                }
                CmdAction::FullAhead => {
                    paid("Full Ahead (") && (row.contains("moved") || row.contains("fled"))
                }
                CmdAction::HardAround(_) => {
                    paid("Hard Around (") && row.contains("moved") && !row.contains("Hard Around: ")
                }
                CmdAction::EmergencyRepairs(Skip::Move) => {
                    paid("Emergency Repairs (")
                        && !was.status.drifting
                        && was.status.morale != Morale::Broken
                        && was.speed(false) > skyfleet::Length::ZERO
                }
                CmdAction::EmergencyRepairs(Skip::Shoot) => {
                    paid("Emergency Repairs (")
                        && was
                            .weapons
                            .iter()
                            .any(|w| !w.kind.stats().torpedo && was.weapon_works(w))
                }
                _ => paid(&format!("{name} (")),
            };
            if done {
                continue;
            }
            let refusal = row
                .split("; ")
                .find(|part| part.starts_with(&format!("{name}:")))
                .unwrap_or("not reported at all")
                .to_string();
            let positional = refusal.contains("12\"") || refusal.contains("CMD left");
            let explained = (positional && moved_any(was.side)) || (!positional && struck);
            if !explained {
                found.push(format!(
                    "{}: {name} was confirmed, and the turn: {refusal}\n  row: {row}",
                    was.name
                ));
            }
        }
        for order in &activation.fire {
            for slot in &order.weapons {
                let Some(weapon) = was.weapons.iter().find(|w| &w.slot == slot) else {
                    continue;
                };
                let named = weapon.kind.name();
                if !row.contains(named) && !struck {
                    found.push(format!(
                        "{}: FIRE {slot} was confirmed, and the turn says nothing of the {named}\n  row: {row}",
                        was.name
                    ));
                }
            }
        }
        if !activation.steps.is_empty()
            && !row.contains("moved")
            && !row.contains("fled")
            && !struck
        {
            found.push(format!(
                "{}: its move was confirmed, and the turn did not move it\n  row: {row}",
                was.name
            ));
        }
    }
    found
}

fn name_of(state: &State, id: UnitId) -> String {
    state.unit(id).map(|u| u.name.clone()).unwrap_or_default()
}
