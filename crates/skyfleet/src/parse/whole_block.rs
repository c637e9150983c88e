//! The checks that need a unit's whole block, once every line is read: the move with the Full
//! Ahead really bought, FIRE beside SKIP SHOOT, Target Locks on weapons that do not fire or
//! at wings, CMD's 12" reach, and the FIRE previews with every lock known (SKY-ADM-22).

use engine::LineIssue;

use crate::command;
use crate::geometry::Length;
use crate::orders::{Activation, CmdAction, CmdOrder, Skip};
use crate::state::{ActionName, Morale, Unit, UnitId};

use super::movement::move_example;
use super::{CmdRead, Parser, check_move};

impl Parser<'_> {
    /// Checks that need a whole block: the move against the budget with Full Ahead, the
    /// pivot rules, and Target Lock against Ultralights (SKY-GM-11, SKY-EX-08, SKY-UL-01).
    pub(super) fn finish(&mut self) {
        self.settle_sentences();
        self.keep_fire_warnings();
        for index in 0..self.orders.activations.len() {
            self.finish_block(index);
        }
        self.activation_order();
    }

    /// Where the unit moves before it fires, today's arcs and ranges say little: the "as
    /// things stand" fire warnings are kept only for units that stay put.
    fn keep_fire_warnings(&mut self) {
        for (index, issue) in std::mem::take(&mut self.fire_warnings) {
            let moves = self.orders.activations.get(index).is_some_and(|a| {
                !a.steps.is_empty() || self.orders.deploy.iter().any(|d| d.unit == a.unit)
            });
            if !moves {
                self.warnings.push(issue);
            }
        }
    }

    /// The whole-block checks of one activation.
    fn finish_block(&mut self, index: usize) {
        let Some(activation) = self.orders.activations.get(index).cloned() else {
            return;
        };
        let Some(unit) = self.at_activation(activation.unit) else {
            return;
        };
        let (block_line, block_text) = self
            .blocks
            .get(index)
            .map(|b| (b.line, b.text.clone()))
            .unwrap_or((1, String::new()));
        let (line, text) = self
            .blocks
            .get(index)
            .and_then(|b| b.move_line.clone())
            .unwrap_or((block_line, block_text.clone()));
        // Actions that cannot happen are struck first, so the move is checked with the Full
        // Ahead that will really be bought.
        self.check_reach(index, &unit);
        self.check_gas(index, &unit);
        self.strike_idle_locks(index, &activation, &unit);
        self.strike_ultralight_locks(index, &activation, &unit, block_line, &block_text);
        let Some(activation) = self.orders.activations.get(index).cloned() else {
            return;
        };
        self.check_block_move(index, &activation, &unit, line, &text);
        self.check_block_fire(index, &activation, &unit);
        self.restate_fire(index, &unit);
        self.settle_examples(index, &unit);
    }

    /// The FIRE orders in words again, now that every Target Lock of the block is known (one
    /// written after its FIRE, or on the same line): the figures are the turn's (SKY-CMD-05).
    fn restate_fire(&mut self, index: usize, unit: &Unit) {
        let locks = self.locks(index);
        let orders = self
            .orders
            .activations
            .get(index)
            .map(|a| a.fire.clone())
            .unwrap_or_default();
        let reads = self
            .blocks
            .get(index)
            .map(|b| b.fires.clone())
            .unwrap_or_default();
        for (order, (_, _, said)) in orders.iter().zip(reads) {
            let now = self.fire_text(unit, order, &locks);
            if now != said
                && let Some(at) = self.understood.iter().position(|u| *u == said)
                && let Some(slot) = self.understood.get_mut(at)
            {
                *slot = now;
            }
        }
    }

    /// The block's move: given up for Emergency Repairs, overruled by a Broken unit's flight,
    /// or refused by the move check. A refused move is taken back from what was understood.
    fn check_block_move(
        &mut self,
        index: usize,
        activation: &Activation,
        unit: &Unit,
        line: usize,
        text: &str,
    ) {
        let full_ahead = activation
            .actions
            .iter()
            .any(|a| a.action == CmdAction::FullAhead);
        let skips_move = activation
            .actions
            .iter()
            .any(|a| a.action == CmdAction::EmergencyRepairs(Skip::Move));
        let refusal = if activation.steps.is_empty() {
            None
        } else if skips_move {
            Some((
                format!(
                    "{} gives up its move for Emergency Repairs (SKY-CMD-03), so it does not move",
                    unit.name
                ),
                "no MOVE with SKIP MOVE; to move, give up shooting instead (CMD EMERGENCY SKIP SHOOT)",
                "HOLD".to_string(),
            ))
        } else if unit.status.morale == Morale::Broken {
            Some((
                format!(
                    "{} is Broken: it flees at full speed toward the nearest edge whatever is written (SKY-MOR-06)",
                    unit.name
                ),
                "no move for a Broken ship; damage control's two successes clear Broken (SKY-DCR-03)",
                "DC PRIORITY BROKEN".to_string(),
            ))
        } else {
            check_move(
                self.state,
                unit,
                &activation.steps,
                full_ahead,
                activation.dive_brakes,
            )
            .err()
            .map(|problem| {
                (
                    problem,
                    "a move within the rules as the ship stands",
                    move_example(unit, full_ahead),
                )
            })
        };
        if let Some((problem, hint, order)) = refusal {
            let expected = format!("{hint}: {}", self.block_example(index, line, &order));
            self.errors.push(LineIssue {
                line,
                text: text.to_string(),
                problem,
                expected,
                if_it_stands: Some(format!("{} does not move this turn", unit.name)),
            });
            self.set(index, |a| a.steps.clear());
            self.forget_move(index);
        }
    }

    /// An example for a line of block `index`: prefixed by the unit's name when the block was
    /// opened on that line.
    pub(super) fn block_example(&self, index: usize, line: usize, order: &str) -> String {
        match self.blocks.get(index) {
            Some(block) if block.opened.contains(&line) => {
                format!("`{}: {order}`", self.block_name(index))
            }
            _ => format!("`{order}`"),
        }
    }

    fn block_name(&self, index: usize) -> String {
        self.orders
            .activations
            .get(index)
            .map(|a| self.name(a.unit))
            .unwrap_or_default()
    }

    /// FIRE orders of a ship that gives up shooting for Emergency Repairs are refused: they
    /// would not be carried out (SKY-CMD-03).
    fn check_block_fire(&mut self, index: usize, activation: &Activation, unit: &Unit) {
        let skips = activation
            .actions
            .iter()
            .any(|a| a.action == CmdAction::EmergencyRepairs(Skip::Shoot));
        if !skips || activation.fire.is_empty() {
            return;
        }
        let fires = self
            .blocks
            .get_mut(index)
            .map(|b| std::mem::take(&mut b.fires))
            .unwrap_or_default();
        for (line, raw, understood) in fires {
            // A refused FIRE needs no forecast of its shot.
            self.warnings
                .retain(|w| w.line != line || !w.problem.starts_with("as things stand"));
            let expected = format!(
                "no FIRE with Emergency Repairs' SKIP SHOOT; to fire, give up the move instead (CMD EMERGENCY SKIP MOVE): {}",
                self.block_example(index, line, "HOLD FIRE")
            );
            self.errors.push(LineIssue {
                line,
                text: raw,
                problem: format!(
                    "{} gives up shooting this activation for Emergency Repairs (SKY-CMD-03), so it does not fire",
                    unit.name
                ),
                expected,
                if_it_stands: None,
            });
            if let Some(at) = self.understood.iter().position(|u| *u == understood) {
                self.understood.remove(at);
            }
        }
        self.set(index, |a| a.fire.clear());
    }

    /// A Target Lock on a weapon that will not fire (HOLD FIRE and no FIRE order for it, or
    /// shooting given up) is an action that cannot happen: refused, so it is not paid for
    /// (SKY-CMD-05, SKY-ADM-10, SKY-ADM-22).
    fn strike_idle_locks(&mut self, index: usize, activation: &Activation, unit: &Unit) {
        let idle: Vec<CmdRead> = self
            .blocks
            .get(index)
            .map(|b| b.cmds.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|read| {
                matches!(&read.order.action, CmdAction::TargetLock(slots)
                    if slots.first().is_some_and(|slot| !command::fires(activation, slot)))
            })
            .collect();
        for CmdRead {
            line,
            raw,
            order,
            understood,
            ..
        } in idle
        {
            let CmdAction::TargetLock(slots) = &order.action else {
                continue;
            };
            let slot = slots.first().cloned().unwrap_or_default();
            let example = if activation
                .actions
                .iter()
                .any(|a| a.action == CmdAction::EmergencyRepairs(Skip::Shoot))
            {
                None
            } else {
                Some(self.block_example(index, line, &format!("FIRE {slot} AT NEAREST")))
            };
            let expected = match example {
                Some(example) => {
                    format!("a FIRE order for the {slot} in place of the lock: {example}")
                }
                None => format!("no Target Lock while {} gives up shooting", unit.name),
            };
            self.errors.push(LineIssue {
                line,
                text: raw,
                problem: format!(
                    "the {slot} does not fire this activation (HOLD FIRE with no FIRE order for it, or SKIP SHOOT), so a Target Lock on it would buy nothing (SKY-CMD-05)"
                ),
                expected,
                if_it_stands: Some("the lock is not made and costs nothing".into()),
            });
            self.strike_cmd(index, unit, &order, &understood, line);
        }
    }

    /// CMD reaches 12" (SKY-CMD-01): a payer named with FROM, and a Rally's ship, must be
    /// within 12" of the ship it acts for when that ship activates. Refused when neither
    /// moves before then in this list, so the distance now is the distance then.
    fn check_reach(&mut self, index: usize, unit: &Unit) {
        let cmds = self
            .blocks
            .get(index)
            .map(|b| b.cmds.clone())
            .unwrap_or_default();
        for CmdRead {
            line,
            raw,
            order,
            understood,
            bare,
        } in cmds
        {
            let (other, role) = match (&order.action, order.payer) {
                (CmdAction::Rally(target), _) if *target != unit.id => (*target, "rallied"),
                (_, Some(payer)) if payer != unit.id => (payer, "paying"),
                _ => continue,
            };
            if self.moves_before(other, index) {
                continue;
            }
            let Some(far) = self.at_activation(other) else {
                continue;
            };
            if crate::fire::bases_within(unit, &far, command::COMMAND_REACH) {
                continue;
            }
            let gap = Length(
                (crate::geometry::distance(unit.at, far.at).hundredths()
                    - unit.radius.hundredths()
                    - far.radius.hundredths())
                .max(0),
            );
            let expected = match (&order.action, role) {
                (CmdAction::Rally(_), _) => {
                    "a Rally for a ship within 12\" (nearest base edges)".to_string()
                }
                _ => {
                    format!(
                        "a payer within 12\", or no FROM (the nearest with CMD left pays): {}",
                        self.block_example(index, line, &bare)
                    )
                }
            };
            self.errors.push(LineIssue {
                line,
                text: raw.clone(),
                problem: format!(
                    "{} is {}\" from {}, and CMD reaches 12\" (SKY-CMD-01): the {role} ship must be within 12\" when {} activates",
                    far.name,
                    gap.display(),
                    unit.name,
                    unit.name
                ),
                expected,
                if_it_stands: Some("the action is not made and costs nothing".into()),
            });
            self.strike_cmd(index, unit, &order, &understood, line);
        }
    }

    /// Compressed Gas where the ship will be when it activates (its own move comes after):
    /// at the ceiling or under an island it is refused, as the turn would (SKY-MOD-7).
    fn check_gas(&mut self, index: usize, unit: &Unit) {
        let cmds = self
            .blocks
            .get(index)
            .map(|b| b.cmds.clone())
            .unwrap_or_default();
        for CmdRead {
            line,
            raw,
            order,
            understood,
            ..
        } in cmds
        {
            if order.action != CmdAction::CompressedGas {
                continue;
            }
            let Err(problem) = command::gas_rise(self.state, unit) else {
                continue;
            };
            self.errors.push(LineIssue {
                line,
                text: raw,
                problem,
                expected: format!("no Compressed Gas for {} this turn", unit.name),
                if_it_stands: Some("the action is not made and costs nothing".into()),
            });
            self.strike_cmd(index, unit, &order, &understood, line);
        }
    }

    /// The examples of the block's refusals that depend on the whole block, made to fit it:
    /// a Target Lock names a weapon that fires; a FIRE is HOLD FIRE when the ship gives up
    /// shooting; a MOVE is HOLD when it gives up its move or is Broken (every correction
    /// works, issue 28).
    fn settle_examples(&mut self, index: usize, unit: &Unit) {
        let Some(activation) = self.orders.activations.get(index).cloned() else {
            return;
        };
        let refusals = self
            .blocks
            .get(index)
            .map(|b| b.refusals.clone())
            .unwrap_or_default();
        let skips = |skip: Skip| {
            activation
                .actions
                .iter()
                .any(|a| a.action == CmdAction::EmergencyRepairs(skip))
        };
        let lock_slot = unit
            .weapons
            .iter()
            .find(|w| {
                !w.kind.stats().torpedo
                    && unit.weapon_works(w)
                    && command::fires(&activation, &w.slot)
            })
            .map(|w| w.slot.clone());
        let no_move = skips(Skip::Move) || unit.status.morale == Morale::Broken;
        for at in refusals {
            let Some(issue) = self.errors.get(at).cloned() else {
                continue;
            };
            let examples = engine::corrections::examples(&issue);
            let order = |example: &str| {
                example
                    .split_once(": ")
                    .filter(|(name, _)| *name == unit.name)
                    .map_or(example, |(_, order)| order)
                    .to_uppercase()
            };
            // A lock example whose weapon fires stands as written.
            let lock_fires = examples.iter().any(|e| {
                order(e)
                    .strip_prefix("CMD TARGETLOCK ")
                    .is_some_and(|slot| {
                        unit.weapons.iter().any(|w| {
                            w.slot.eq_ignore_ascii_case(slot)
                                && unit.weapon_works(w)
                                && command::fires(&activation, &w.slot)
                        })
                    })
            });
            let expected = if lock_fires {
                None
            } else if examples
                .iter()
                .any(|e| order(e).starts_with("CMD TARGETLOCK"))
            {
                Some(match &lock_slot {
                    Some(slot) => format!(
                        "one weapon that fires: {}",
                        self.block_example(index, issue.line, &format!("CMD TARGETLOCK {slot}"))
                    ),
                    None => format!(
                        "no Target Lock: none of {}'s weapons fires this activation",
                        unit.name
                    ),
                })
            } else if skips(Skip::Shoot) && examples.iter().any(|e| order(e).starts_with("FIRE ")) {
                Some(format!(
                    "no FIRE while {} gives up shooting: {}",
                    unit.name,
                    self.block_example(index, issue.line, "HOLD FIRE")
                ))
            } else if no_move && examples.iter().any(|e| order(e).starts_with("MOVE ")) {
                Some(format!(
                    "no MOVE: {} does not move as written this turn: {}",
                    unit.name,
                    self.block_example(index, issue.line, "HOLD")
                ))
            } else {
                None
            };
            if let (Some(expected), Some(issue)) = (expected, self.errors.get_mut(at)) {
                issue.expected = expected;
            }
        }
    }

    /// A sentence's example names a ship that fires in these orders as read in full.
    fn settle_sentences(&mut self) {
        let ship = self.firing_ship();
        for at in std::mem::take(&mut self.sentences) {
            let Some(issue) = self.errors.get(at).cloned() else {
                continue;
            };
            let Some(example) = engine::corrections::examples(&issue)
                .first()
                .map(|e| e.to_string())
            else {
                continue;
            };
            let Some((_, order)) = example.split_once(": ") else {
                continue;
            };
            // Written there, the example would open a block that orders on later lines with
            // no unit of their own fall into (a SKIP SHOOT among them): no example then.
            let orphans = self
                .errors
                .iter()
                .any(|e| e.line > issue.line && e.problem.starts_with("which unit is this for?"));
            let expected = match &ship {
                Some(ship) if !orphans => issue
                    .expected
                    .replace(&example, &format!("{ship}: {order}")),
                _ => "the unit that fires first, then FIRE and the target".into(),
            };
            if let Some(issue) = self.errors.get_mut(at) {
                issue.expected = expected;
            }
        }
    }

    /// Whether `id` moves in this list before activation `index`: listed earlier with a
    /// move, or Broken (it flees). Where this mail deploys it is known (`at_activation`).
    fn moves_before(&self, id: UnitId, index: usize) -> bool {
        self.orders.activations.iter().take(index).any(|a| {
            a.unit == id
                && (!a.steps.is_empty()
                    || self
                        .unit(id)
                        .is_some_and(|u| u.status.morale == Morale::Broken))
        })
    }

    /// Takes a CMD action back out of block `index`: its order, its CMD point, its once a
    /// turn and what was understood.
    pub(super) fn strike_cmd(
        &mut self,
        index: usize,
        unit: &Unit,
        order: &CmdOrder,
        understood: &str,
        line: usize,
    ) {
        // A struck action needs no one's CMD: the warning that a friend would pay goes too.
        self.warnings
            .retain(|w| !(w.line == line && w.problem.contains("this point will come from")));
        let mut removed = false;
        self.set(index, |a| {
            if let Some(at) = a.actions.iter().position(|c| c == order) {
                a.actions.remove(at);
                removed = true;
            }
        });
        if !removed {
            return;
        }
        if let Some(block) = self.blocks.get_mut(index) {
            block.cmds.retain(|read| read.order != *order);
        }
        let payer = order.payer.unwrap_or(unit.id);
        if let Some(planned) = self.planned.get_mut(&payer) {
            *planned = planned.saturating_sub(1);
        }
        let (beneficiary, name) = match &order.action {
            CmdAction::Rally(target) => (*target, ActionName::Rally),
            CmdAction::TargetLock(_) => (unit.id, ActionName::TargetLock),
            other => (unit.id, other.action_name()),
        };
        self.named.remove(&(beneficiary, name));
        if let Some(at) = self.understood.iter().position(|u| u == understood) {
            self.understood.remove(at);
        }
    }
}
