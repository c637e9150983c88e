//! Examples that work (issue 28, `engine::corrections`): every order a refusal shows in
//! backticks is a whole line the player could send in the refused line's place, naming their
//! own ship and a target her guns can engage. Each is tried on the parser as it stands (what
//! earlier lines filled included) before it is offered; one that is refused in its turn is
//! replaced by one built from the state, or shown as words.

use super::words::{
    MAIN_WORDS, MOVE_WORDS, ORDER_WORDS, PORT_WORDS, STARBOARD_WORDS, TORPEDO_WORDS,
    WITHDRAW_WORDS, is_word, tokens,
};
use std::collections::BTreeMap;
use std::rc::Rc;

use engine::ParsedOrders;

use super::{Parser, group_word};
use crate::fire::Group;

/// How many candidates are tried at most for one example (each is a parse of one line).
const MOST_TRIES: usize = 48;

/// How many candidates one mail may try in all; then refusals show the form in words.
pub(super) const TRIALS_PER_MAIL: usize = 2000;

impl Parser<'_> {
    /// `expected` with each example checked: a whole order line with no backticks is put in
    /// backticks, and every code span that would be refused on `line` is replaced by one that
    /// is not, or left as words.
    pub(super) fn working_examples(&self, line: usize, expected: &str) -> String {
        let expected = if !expected.contains('`') && self.looks_like_order(expected) {
            format!("`{expected}`")
        } else {
            expected.to_owned()
        };
        let mut out = String::with_capacity(expected.len());
        for (index, part) in expected.split('`').enumerate() {
            if index % 2 == 0 {
                out.push_str(part);
                continue;
            }
            let span = part.trim();
            if span.is_empty() {
                continue;
            }
            if self.works(line, span) {
                out.push('`');
                out.push_str(span);
                out.push('`');
                continue;
            }
            match self
                .candidates(span)
                .into_iter()
                .take(MOST_TRIES)
                .find(|c| self.works(line, c))
            {
                Some(found) => {
                    out.push('`');
                    out.push_str(&found);
                    out.push('`');
                }
                None => out.push_str(span),
            }
        }
        out
    }

    /// Whether a text is one order line: it starts with one of the player's ships or ORDER.
    fn looks_like_order(&self, text: &str) -> bool {
        let first = tokens(text);
        if is_word(first.first(), ORDER_WORDS) {
            return true;
        }
        self.state
            .ships
            .iter()
            .filter(|s| s.player == self.player)
            .any(|s| {
                let name = super::normalise(&s.name);
                let written = super::normalise(text);
                !name.is_empty() && (written == name || written.starts_with(&format!("{name} ")))
            })
    }

    /// Whether `order`, written on `line` in place of the refused one, is read without an
    /// error by the parser as it stands.
    pub(super) fn works(&self, line: usize, order: &str) -> bool {
        let left = self.trials_left.get();
        if left == 0 {
            return false;
        }
        self.trials_left.set(left - 1);
        // What judges an order (the orders so far, the armaments filled, the ship the lines
        // are for), without the diagnostics.
        let mut trial = Parser {
            state: self.state,
            player: self.player,
            out: ParsedOrders {
                orders: self.out.orders.clone(),
                understood: Vec::new(),
                press: Vec::new(),
                errors: Vec::new(),
                warnings: Vec::new(),
                chat: Vec::new(),
                orders_read: 0,
            },
            current: self.current,
            filled: self.filled.clone(),
            line_ship: None,
            refused: BTreeMap::new(),
            example_own: self.example_own.clone(),
            example_enemy: self.example_enemy.clone(),
            trial: true,
            line_ahead: Vec::new(),
            trials_left: Rc::clone(&self.trials_left),
        };
        trial.line(line, order, order);
        trial.out.errors.is_empty()
    }

    /// Orders like `span` built from the state: the same kind of order for the ship it names
    /// (else the player's ships in turn) at each enemy afloat.
    fn candidates(&self, span: &str) -> Vec<String> {
        let words = tokens(span);
        let own: Vec<&crate::state::Ship> = {
            let mut own: Vec<&crate::state::Ship> = self
                .state
                .ships
                .iter()
                .filter(|s| s.player == self.player && s.afloat())
                .collect();
            let written = super::normalise(span);
            own.sort_by_key(|s| !written.starts_with(&super::normalise(&s.name)));
            own
        };
        let own_side = self.state.commander(self.player).map(|c| c.side);
        let enemies: Vec<&str> = self
            .state
            .ships
            .iter()
            .filter(|s| Some(s.side) != own_side && s.afloat())
            .map(|s| s.name.as_str())
            .collect();
        let has = |list: &[&str]| words.iter().any(|w| is_word(Some(w), list));
        let mut out = Vec::new();
        if has(ORDER_WORDS) {
            let names: Vec<&str> = own.iter().map(|s| s.name.as_str()).collect();
            out.push(format!("ORDER {}", names.join(", ")));
            return out;
        }
        let group = if has(TORPEDO_WORDS) {
            Some(Group::Torpedo)
        } else if has(PORT_WORDS) {
            Some(Group::Port)
        } else if has(STARBOARD_WORDS) {
            Some(Group::Starboard)
        } else if has(MAIN_WORDS) {
            Some(Group::Main)
        } else {
            None
        };
        for ship in &own {
            if let Some(group) = group {
                let word = group_word(group);
                if span.contains('/') {
                    for first in &enemies {
                        for second in enemies.iter().filter(|e| *e != first) {
                            out.push(format!("{} {word} {first} / {second}", ship.name));
                        }
                    }
                }
                for enemy in &enemies {
                    out.push(format!("{} {word} {enemy}", ship.name));
                }
                out.push(format!("{} {word} NONE", ship.name));
            } else if has(WITHDRAW_WORDS) {
                out.push(format!("{} WITHDRAW LEFT", ship.name));
            } else if has(MOVE_WORDS) || span.contains(',') {
                out.push(format!("{} MOVE F", ship.name));
                out.push(format!("{} MOVE HOLD", ship.name));
            } else {
                out.push(format!("{} MOVE HOLD", ship.name));
            }
        }
        out
    }
}
