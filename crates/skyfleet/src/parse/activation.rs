//! ACTIVATE and a unit's block of orders: opening it, sending each order in it to its
//! family, and the activation order as understood.

use crate::orders::Activation;
use crate::state::{Place, Unit, UnitId};
use crate::tables::Class;

use super::movement::step_word;
use super::{Block, Parser, is, ordinal};

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
                format!(
                    "one of your ships or wings in play: `ACTIVATE {}`",
                    self.example_ship
                ),
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
        self.opened = Some((line, unit.name.clone()));
        if let Some(block) = self.blocks.get_mut(index) {
            block.opened.push(line);
        }
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
                    {
                        let order = self.plain_order(&unit);
                        self.example(line, &order)
                    },
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
                format!(
                    "one of your ships or wings in play: `ACTIVATE {}`",
                    self.example_ship
                ),
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
                format!(
                    "one of your ships or wings in play: `ACTIVATE {}`",
                    self.example_ship
                ),
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
            cmds: Vec::new(),
            fires: Vec::new(),
            opened: Vec::new(),
            refusals: Vec::new(),
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
                self.forget_move(index);
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
    pub(super) fn at_activation(&self, id: UnitId) -> Option<Unit> {
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

    /// The activation order as understood: the units listed, then those not listed, which
    /// hold and fire at the nearest targets.
    pub(super) fn activation_order(&mut self) {
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
