//! CMD TARGETLOCK: one weapon, named by its slot (SKY-CMD-05), and never against an
//! Ultralight (SKY-UL-01), which is only known once the block's FIRE orders are read.

use crate::orders::{Activation, CmdAction, Target};
use crate::state::{ActionName, Unit, UnitId};

use super::Parser;

impl Parser<'_> {
    /// CMD TARGETLOCK's weapon (SKY-CMD-05): the action, or `None` once the line is refused.
    pub(super) fn target_lock(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        args: &[String],
    ) -> Option<(CmdAction, ActionName, UnitId)> {
        // SKY-CMD-05: Target Lock is for one weapon, named by its slot.
        let one = |slot: &str| {
            format!(
                "one weapon that fires: {}",
                self.example(line, &format!("CMD TARGETLOCK {slot}"))
            )
        };
        // The example's weapon is settled once the block is read (`settle_examples`).
        let first_slot = unit
            .weapons
            .iter()
            .find(|w| !w.kind.stats().torpedo && unit.weapon_works(w))
            .map(|w| w.slot.clone())
            .unwrap_or_else(|| "fwd".into());
        let named = args.iter().any(|w| {
            !matches!(
                w.as_str(),
                "all" | "everything" | "with" | "the" | "weapons" | "guns" | "on"
            )
        });
        if !named {
            self.error(
                line,
                raw,
                format!(
                    "Target Lock is for one weapon (SKY-CMD-05): say which of {}'s weapons, one per CMD ({})",
                    unit.name,
                    lock_listing(unit)
                ),
                one(&first_slot),
            );
            return None;
        }
        let args: Vec<String> = args
            .iter()
            .filter(|w| w.as_str() != "on")
            .cloned()
            .collect();
        let slots = match self.weapons_of(unit, &args) {
            Ok(slots) => slots,
            Err(problem) => {
                self.error(line, raw, problem, one(&first_slot));
                return None;
            }
        };
        if slots.len() > 1 {
            self.error(
                line,
                raw,
                format!(
                    "Target Lock is for one weapon (SKY-CMD-05), and \"{}\" names {}: {}",
                    args.join(" "),
                    slots.len(),
                    slots.join(", ")
                ),
                one(slots.first().map(String::as_str).unwrap_or("fwd")),
            );
            return None;
        }
        Some((
            CmdAction::TargetLock(slots),
            ActionName::TargetLock,
            unit.id,
        ))
    }

    /// SKY-UL-01: no Target Lock against Ultralights. A refused order is never carried out:
    /// the lock is struck from the orders, so it is neither paid for nor made.
    pub(super) fn strike_ultralight_locks(
        &mut self,
        index: usize,
        activation: &Activation,
        unit: &Unit,
        block_line: usize,
        block_text: &str,
    ) {
        let mut locks: Vec<String> = activation
            .actions
            .iter()
            .filter_map(|a| match &a.action {
                CmdAction::TargetLock(slots) => Some(slots.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        for order in &activation.fire {
            let Some(Target::Unit(first)) = order.targets.first() else {
                continue;
            };
            let Some(locked) = order.weapons.iter().find(|w| locks.contains(w)) else {
                continue;
            };
            if self.unit(*first).is_some_and(Unit::is_ultralight) {
                let refused = locked.clone();
                self.error(
                    block_line,
                    block_text,
                    format!(
                        "{} is an Ultralight: it cannot be Target Locked (SKY-UL-01, SKY-CMD-05), so the Target Lock on {refused} is not made and costs nothing",
                        self.name(*first)
                    ),
                    format!("CMD TARGETLOCK on a weapon fired at a ship, or FIRE {refused} AT {} without it", self.name(*first)),
                );
                self.strike_lock(index, unit, &refused);
                locks.retain(|l| *l != refused);
            }
        }
    }

    /// Takes the Target Lock on `refused` out of the block, with its CMD point and its line in
    /// what was understood.
    fn strike_lock(&mut self, index: usize, unit: &Unit, refused: &str) {
        let mut payer = None;
        self.set(index, |a| {
            a.actions.retain(|c| {
                let lock = matches!(&c.action, CmdAction::TargetLock(slots) if slots.iter().any(|s| s == refused));
                if lock {
                    payer = Some(c.payer);
                }
                !lock
            });
        });
        if let Some(payer) = payer
            && let Some(planned) = self.planned.get_mut(&payer.unwrap_or(unit.id))
        {
            *planned = planned.saturating_sub(1);
        }
        self.named.remove(&(unit.id, ActionName::TargetLock));
        self.understood
            .retain(|u| !u.starts_with(&format!("{}: Target Lock", unit.name)));
    }
}

/// The weapons a Target Lock may be on, with their slots: all but the Torpedo Launcher.
fn lock_listing(unit: &Unit) -> String {
    unit.weapons
        .iter()
        .filter(|w| !w.kind.stats().torpedo)
        .map(|w| format!("{} ({})", w.slot, w.kind.name()))
        .collect::<Vec<_>>()
        .join(", ")
}
