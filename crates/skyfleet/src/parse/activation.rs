//! ACTIVATE and a unit's block of orders: opening it, sending each order in it to its
//! family, and the checks that need the whole block once every line is read.

use engine::LineIssue;

use crate::orders::{Activation, CmdAction, Skip};
use crate::state::{Morale, Place, Unit, UnitId};
use crate::tables::Class;

use super::movement::{move_example, step_word};
use super::{Block, Parser, check_move, is, ordinal};

impl Parser<'_> {
    pub(super) fn activate(&mut self, line: usize, raw: &str, rest: &[String]) {
        match self.take_unit(rest) {
            Some((id, used)) => {
                let more = rest.get(used..).unwrap_or(&[]);
                self.open_block(line, raw, id, more);
            }
            None => self.error(
                line,
                raw,
                "which unit? name one of your ships or wings",
                format!("ACTIVATE {}", self.example_ship),
            ),
        }
    }

    /// Starts (or returns to) a unit's activation and reads any orders after its name.
    pub(super) fn open_block(&mut self, line: usize, raw: &str, id: UnitId, rest: &[String]) {
        let Some(unit) = self.unit(id).cloned() else {
            return;
        };
        if self.block_refused(line, raw, &unit, rest) {
            return;
        }
        let index = self.activation_index(line, raw, &unit);
        self.current = Some(index);
        let rest: Vec<String> = rest
            .iter()
            .filter(|w| !matches!(w.as_str(), "activates" | "activate" | "-"))
            .cloned()
            .collect();
        if !rest.is_empty() {
            if block_keyword(rest.first().map(String::as_str).unwrap_or("")) {
                self.block_order(line, raw, index, &rest);
            } else {
                self.error(
                    line,
                    raw,
                    format!("\"{}\" is not an order for {}", rest.join(" "), unit.name),
                    format!("{}: MOVE F 3; FIRE ALL AT NEAREST", unit.name),
                );
            }
        }
    }

    /// Has the unit no block of its own: the enemy's, a torpedo (whose words are its
    /// program), or out of play? Says so, and true.
    fn block_refused(&mut self, line: usize, raw: &str, unit: &Unit, rest: &[String]) -> bool {
        if unit.side != self.side {
            self.current = None;
            self.error(
                line,
                raw,
                format!("{} is not one of yours", unit.name),
                format!("ACTIVATE {}", self.example_ship),
            );
            return true;
        }
        if unit.class == Class::Torpedo {
            self.torpedo(
                line,
                raw,
                &[vec!["torpedo".to_string()], rest.to_vec()].concat(),
            );
            return true;
        }
        if !unit.in_play() {
            self.current = None;
            let why = match unit.place {
                Place::Aboard => {
                    "is still aboard its carrier: launch it with CMD LAUNCHWING first (it flies from the next turn)"
                }
                _ => "is no longer in play",
            };
            self.error(
                line,
                raw,
                format!("{} {why}", unit.name),
                format!("ACTIVATE {}", self.example_ship),
            );
            return true;
        }
        false
    }

    /// The unit's place in the activation list, added at the end the first time it is named.
    fn activation_index(&mut self, line: usize, raw: &str, unit: &Unit) -> usize {
        if let Some(index) = self
            .orders
            .activations
            .iter()
            .position(|a| a.unit == unit.id)
        {
            return index;
        }
        self.orders.activations.push(Activation::hold(unit.id));
        self.blocks.push(Block {
            line,
            text: raw.to_string(),
            move_line: None,
            move_understood: None,
        });
        self.understood.push(format!(
            "{} activates {} in your list",
            unit.label(),
            ordinal(self.orders.activations.len())
        ));
        if unit.status.panic_turn == Some(self.state.turn) {
            self.warn(
                line,
                raw,
                format!(
                    "{} is Panicked and may not activate this turn (SKY-CRIT-7)",
                    unit.name
                ),
                "orders for another unit",
            );
        }
        self.orders.activations.len() - 1
    }

    /// One order inside a unit's block, sent to its family.
    pub(super) fn block_order(&mut self, line: usize, raw: &str, index: usize, words: &[String]) {
        let Some(unit) = self
            .orders
            .activations
            .get(index)
            .and_then(|a| self.unit(a.unit))
            .cloned()
        else {
            return;
        };
        let Some((head, rest)) = words.split_first() else {
            return;
        };
        match head.as_str() {
            "move" | "moves" | "mv" | "movement" | "fly" | "steer" => {
                self.movement(line, raw, index, &unit, rest)
            }
            "hold" | "stay" | "halt" if is(rest.first(), &["fire"]) => {
                self.set(index, |a| a.hold_fire = true);
                self.understood.push(format!(
                    "{}: weapons without FIRE orders stay silent",
                    unit.name
                ));
            }
            "hold" | "stay" | "halt" => {
                self.set(index, |a| a.steps.clear());
                self.understood
                    .push(format!("{} holds position", unit.name));
            }
            "fire" | "shoot" | "fires" | "attack" | "engage" => {
                self.fire(line, raw, index, &unit, rest)
            }
            "dc" | "damage" | "repair" | "repairs" if !is(rest.first(), &["skip"]) => {
                self.dc(line, raw, index, &unit, rest)
            }
            "cmd" | "command" => self.command(line, raw, index, &unit, rest),
            _ if step_word(head) => self.movement(line, raw, index, &unit, words),
            _ => self.command(line, raw, index, &unit, words),
        }
    }

    /// The unit as its activation will find it, as far as is known when orders are written:
    /// where this mail deploys it (turn 1), then one level lower if it stalls (SKY-GM-01,
    /// SKY-KW-STALL, SKY-GM-31), as the turn does before anyone moves.
    fn at_activation(&self, id: UnitId) -> Option<Unit> {
        let mut unit = self.before.unit(id)?.clone();
        if let Some(deploy) = self.orders.deploy.iter().find(|d| d.unit == id) {
            unit.at = deploy.at;
            unit.heading = deploy.heading.unwrap_or(unit.heading);
            unit.elevation = deploy.elevation.unwrap_or(unit.elevation);
        }
        if let Some(elevation) = unit.stalls_to() {
            unit.elevation = elevation;
        }
        Some(unit)
    }

    /// Checks that need a whole block: the move against the budget with Full Ahead, the
    /// pivot rules, and Target Lock against Ultralights (SKY-GM-11, SKY-EX-08, SKY-UL-01).
    pub(super) fn finish(&mut self) {
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
        self.check_block_move(index, &activation, &unit, line, &text);
        self.strike_ultralight_locks(index, &activation, &unit, block_line, &block_text);
    }

    /// The block's move: given up for Emergency Repairs, refused by the move check, or
    /// overruled by a Broken unit's flight.
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
        if skips_move && !activation.steps.is_empty() {
            self.warn(
                line,
                text,
                format!(
                    "{} gives up its move for Emergency Repairs: the move is ignored",
                    unit.name
                ),
                "CMD EMERGENCY SKIP SHOOT",
            );
        }
        if let Err(problem) = check_move(
            self.state,
            unit,
            &activation.steps,
            full_ahead,
            activation.dive_brakes,
        ) {
            self.errors.push(LineIssue {
                line,
                text: text.to_string(),
                problem,
                expected: move_example(unit),
                if_it_stands: Some(format!("{} does not move this turn", unit.name)),
            });
            self.set(index, |a| a.steps.clear());
            let understood = self
                .blocks
                .get_mut(index)
                .and_then(|b| b.move_understood.take());
            if let Some(at) = understood.and_then(|u| self.understood.iter().position(|x| *x == u))
            {
                self.understood.remove(at);
            }
        }
        if unit.status.morale == Morale::Broken && !activation.steps.is_empty() {
            self.warn(
                line,
                text,
                format!(
                    "{} is Broken: it will flee to the nearest edge instead (SKY-MOR-06)",
                    unit.name
                ),
                "DC PRIORITY BROKEN",
            );
        }
    }

    /// The activation order as understood: the units listed, then those not listed, which
    /// hold and fire at the nearest targets.
    fn activation_order(&mut self) {
        let listed: Vec<String> = self
            .orders
            .activations
            .iter()
            .map(|a| self.name(a.unit))
            .collect();
        let turn = self.state.turn;
        let holding: Vec<String> = self
            .state
            .units
            .iter()
            .filter(|u| {
                u.side == self.side
                    && u.in_play()
                    && u.activates()
                    && u.launched_turn.is_none_or(|t| t < turn)
                    && !self.orders.activations.iter().any(|a| a.unit == u.id)
            })
            .map(|u| u.name.clone())
            .collect();
        if !listed.is_empty() || !holding.is_empty() {
            let mut text = String::from("activation order: ");
            text.push_str(&listed.join(", "));
            if !holding.is_empty() {
                if !listed.is_empty() {
                    text.push_str(", then ");
                }
                text.push_str(&format!(
                    "{} (not listed: they hold and fire at the nearest targets)",
                    holding.join(", ")
                ));
            }
            self.understood.push(text);
        }
    }
}

/// Words that start an order inside a unit's block.
pub(super) fn block_keyword(word: &str) -> bool {
    matches!(
        word,
        "move"
            | "moves"
            | "mv"
            | "movement"
            | "fly"
            | "steer"
            | "hold"
            | "stay"
            | "halt"
            | "fire"
            | "shoot"
            | "fires"
            | "attack"
            | "engage"
            | "dc"
            | "damage"
            | "cmd"
            | "command"
            | "brace"
            | "rally"
            | "full"
            | "fullahead"
            | "hardaround"
            | "hard"
            | "targetlock"
            | "target"
            | "lock"
            | "emergency"
            | "launch"
            | "launchtorpedo"
            | "launchwing"
            | "compressedgas"
            | "compressed"
            | "gas"
            | "repairs"
            | "repair"
    ) || step_word(word)
}
