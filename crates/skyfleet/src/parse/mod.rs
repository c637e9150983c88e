//! Reading orders as people write them in an email: one order per line (or several on a line
//! separated by `;`), case, spacing and most punctuation forgiven, every rejected line
//! explained with a correct example. Never panics: no indexing, every lookup checked.
//!
//! One file per order family: `activation` (ACTIVATE, a unit's block and the checks that
//! need the whole block), `movement` (MOVE), `fire` (FIRE and the weapons it names),
//! `command` (CMD), `target_lock` (CMD TARGETLOCK), `damage_control` (DC),
//! `deploy` (DEPLOY), `torpedo` (a torpedo's program) and `standing` (INITIATIVE and
//! standing reactions); `names` finds the units an order names, and `whole_block` makes the
//! checks that need a unit's whole block.

use std::collections::{BTreeMap, BTreeSet};

use engine::order_text::{Line, OrderLine, OrderText, PressLine};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::orders::{Activation, Orders};
use crate::state::{ActionName, State, Unit, UnitId};

mod activation;
mod command;
mod damage_control;
mod deploy;
mod fire;
mod movement;
mod names;
mod standing;
mod target_lock;
mod torpedo;
mod whole_block;

/// The move check lives beside movement; the parser calls it for each block's move.
pub use crate::movement::check_move;

/// Splits a line into lower-case words: brackets, commas, colons, quotes and equals signs are
/// spaces; `/` stands alone.
fn tokens(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            ',' | '(' | ')' | '{' | '}' | '[' | ']' | ':' | '=' | '"' | '\'' | '!' | '?' | '`'
            | '\u{201c}' | '\u{201d}' | '\u{2019}' => spaced.push(' '),
            '/' => spaced.push_str(" / "),
            // `FIRE ALL @ Tempest`: the at sign is AT.
            '@' => spaced.push_str(" at "),
            '\u{2212}' | '\u{2013}' => spaced.push('-'),
            c if c.is_control() => spaced.push(' '),
            c => spaced.extend(c.to_lowercase()),
        }
    }
    spaced.split_whitespace().map(str::to_string).collect()
}

/// An order line without a sign-off written after it (`FIRE ALL AT Tempest -- Ann`): the
/// signature separator ends the orders on a line of its own (SKY-ADM-20), and a name after
/// one at the end of an order is a signature too, never part of the order.
fn without_sign_off(text: &str) -> &str {
    match text.find(" -- ").or_else(|| text.find("\t-- ")) {
        Some(at) => text.get(..at).unwrap_or(text),
        None => text.strip_suffix(" --").unwrap_or(text),
    }
}

/// Words that say a unit shoots.
const FIRE_WORDS: &[&str] = &[
    "fire",
    "fires",
    "firing",
    "shoot",
    "shoots",
    "shooting",
    "attack",
    "attacking",
    "engage",
];

/// Words that say a unit does something: with a unit's name on a line, an order.
const ORDER_WORDS: &[&str] = &[
    "fire",
    "fires",
    "firing",
    "shoot",
    "shoots",
    "shooting",
    "attack",
    "attacking",
    "engage",
    "move",
    "moves",
    "moving",
    "turn",
    "turns",
    "turning",
    "launch",
    "launches",
    "rally",
    "brace",
    "hold",
    "holds",
    "deploy",
    "climb",
    "dive",
    "lock",
    "activate",
    "ram",
];

/// Puts back among the refusals the lines `engine::chat` set aside that carry an order: a
/// unit of this battle named with a verb of doing ("I'm firing at Tempest this time, Bob!").
/// Such a line is an order the reader could not read, and is answered with a fix, never passed
/// over as chat (issue 28).
pub fn keep_orders_from_chat(
    state: &State,
    player: PlayerId,
    refused: &[LineIssue],
    parsed: &mut ParsedOrders<Orders>,
) {
    let Some(side) = state.side_of(player) else {
        return;
    };
    let names: Vec<String> = state
        .units
        .iter()
        .filter(|u| u.known_to(side))
        .map(|u| crate::tables::squash(&u.name))
        .collect();
    let carries_order = |text: &str| {
        let words = tokens(text);
        let verb = words.iter().any(|w| ORDER_WORDS.contains(&w.as_str()));
        let named = (0..words.len()).any(|at| {
            (at + 1..=words.len().min(at + 6)).any(|end| {
                words
                    .get(at..end)
                    .is_some_and(|run| names.contains(&crate::tables::squash(&run.concat())))
            })
        });
        verb && named
    };
    let back: Vec<usize> = parsed
        .chat
        .iter()
        .filter(|c| carries_order(&c.text))
        .map(|c| c.line)
        .collect();
    if back.is_empty() {
        return;
    }
    parsed.chat.retain(|c| !back.contains(&c.line));
    parsed
        .errors
        .extend(refused.iter().filter(|e| back.contains(&e.line)).cloned());
    parsed.errors.sort_by_key(|e| e.line);
}

/// Words that only make an order read naturally.
const FILLER: &[&str] = &[
    "the", "please", "then", "and", "to", "with", "its", "her", "his",
];

/// One block of orders for a unit, with where it was written (for late checks).
struct Block {
    line: usize,
    text: String,
    move_line: Option<(usize, String)>,
    /// The move as understood, taken back if the block's move check refuses it: a line is
    /// never both understood and refused.
    move_understood: Option<String>,
    /// Each CMD action read: its line, the line as written, the order and what was
    /// understood, so a check of the whole block can take it back.
    cmds: Vec<CmdRead>,
    /// Each FIRE order read: its line, the line as written and what was understood.
    fires: Vec<(usize, String, String)>,
    /// The lines the block was opened (or returned to) on.
    opened: Vec<usize>,
    /// Refusals made inside the block (indices into the errors): an example of a FIRE, a
    /// MOVE or a Target Lock is settled once the whole block is read.
    refusals: Vec<usize>,
}

/// A CMD action as read, for the checks that need the whole block.
#[derive(Clone)]
struct CmdRead {
    line: usize,
    raw: String,
    order: crate::orders::CmdOrder,
    understood: String,
    /// The action as the player may write it again without FROM: `CMD RALLY Valiant`.
    bare: String,
}

struct Parser<'s> {
    /// The battle as the turn's activations will find it: after Stall (SKY-KW-STALL), which
    /// the turn applies before anyone moves or fires. Moves and previews are checked on this.
    state: &'s State,
    /// The battle as it stands, before Stall: deployment (turn 1) comes first.
    before: &'s State,
    side: u8,
    orders: Orders,
    blocks: Vec<Block>,
    current: Option<usize>,
    understood: Vec<String>,
    press: Vec<String>,
    errors: Vec<LineIssue>,
    warnings: Vec<LineIssue>,
    /// Named actions ordered per beneficiary (SKY-CMD-02).
    named: BTreeSet<(UnitId, ActionName)>,
    /// CMD planned per default payer.
    planned: BTreeMap<UnitId, u32>,
    /// "As things stand" fire warnings per activation, kept only if the unit does not move.
    fire_warnings: Vec<(usize, LineIssue)>,
    example_ship: String,
    /// The line the current block was opened on, and its unit's name: an example for that
    /// line must open the block again.
    opened: Option<(usize, String)>,
    /// Refusals of a sentence with a FIRE in it, whose example's ship is settled at the end.
    sentences: Vec<usize>,
}

/// Parses one player's order text.
pub fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let Some(side) = state.side_of(player) else {
        return not_in_battle(text, "you command no fleet in this battle");
    };
    // A side whose player has left holds for the rest of the battle (SKY-ADM-07): orders
    // would be confirmed and never played.
    if state.side(side).is_some_and(|s| s.left) {
        return not_in_battle(
            text,
            "you have left this battle: your fleet holds for the rest of it (SKY-ADM-07)",
        );
    }
    let projected = state.after_stall();
    let mut parser = Parser {
        state: &projected,
        before: state,
        side,
        orders: Orders::default(),
        blocks: Vec::new(),
        current: None,
        understood: Vec::new(),
        press: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        named: BTreeSet::new(),
        planned: BTreeMap::new(),
        fire_warnings: Vec::new(),
        example_ship: example_name(state, side, true),
        opened: None,
        sentences: Vec::new(),
    };
    let mut reader = OrderText::new(text);
    for line in reader.by_ref() {
        let Line::Order(order) = line else {
            continue; // press is collected by the reader
        };
        for piece in without_sign_off(order.text).split(';') {
            let words = tokens(piece);
            if words.is_empty() {
                continue;
            }
            parser.order(order.number, order.raw, &words);
        }
    }
    parser.press = reader.into_press();
    parser.finish();
    ParsedOrders {
        orders: parser.orders,
        understood: parser.understood,
        press: parser.press,
        errors: parser.errors,
        warnings: parser.warnings,
        chat: Vec::new(),
        orders_read: 0,
    }
}

/// The orders of a player with no fleet in this battle: every line refused.
fn not_in_battle(text: &str, problem: &str) -> ParsedOrders<Orders> {
    let errors = OrderText::new(text)
        .filter_map(|line| match line {
            Line::Order(OrderLine { number, raw, .. })
            | Line::Press(PressLine { number, raw, .. }) => Some((number, raw)),
            Line::Blank { .. } => None,
        })
        .map(|(line, raw)| LineIssue {
            line,
            text: raw.to_string(),
            problem: problem.into(),
            expected: "orders from one of the battle's two players".into(),
            if_it_stands: None,
        })
        .collect();
    ParsedOrders {
        orders: Orders::default(),
        understood: Vec::new(),
        press: Vec::new(),
        errors,
        warnings: Vec::new(),
        chat: Vec::new(),
        orders_read: 0,
    }
}

/// A ship to name in the examples: the writer's own (`mine`), or the enemy's, in play if one
/// is.
fn example_name(state: &State, side: u8, mine: bool) -> String {
    state
        .units
        .iter()
        .filter(|u| (u.side == side) == mine && u.is_ship())
        .find(|u| u.in_play())
        .or_else(|| {
            state
                .units
                .iter()
                .find(|u| (u.side == side) == mine && u.is_ship())
        })
        .map(|u| u.name.clone())
        .unwrap_or_else(|| if mine { "your ship" } else { "NEAREST" }.into())
}

fn number(word: &str) -> Option<u32> {
    word.trim_start_matches('+').parse().ok()
}

fn is(word: Option<&String>, options: &[&str]) -> bool {
    word.is_some_and(|w| options.contains(&w.as_str()))
}

impl Parser<'_> {
    fn error(
        &mut self,
        line: usize,
        text: &str,
        problem: impl Into<String>,
        expected: impl Into<String>,
    ) {
        let at = self.errors.len();
        if let Some(block) = self.current.and_then(|index| self.blocks.get_mut(index)) {
            block.refusals.push(at);
        }
        self.errors.push(LineIssue {
            line,
            text: text.to_string(),
            problem: problem.into(),
            expected: expected.into(),
            if_it_stands: None,
        });
    }

    fn warn(
        &mut self,
        line: usize,
        text: &str,
        problem: impl Into<String>,
        expected: impl Into<String>,
    ) {
        self.warnings.push(LineIssue {
            line,
            text: text.to_string(),
            problem: problem.into(),
            expected: expected.into(),
            if_it_stands: None,
        });
    }

    /// An order offered in place of the refused `line`, as a code span (issue 28: every
    /// correction works): a whole line, so on the line that opened a unit's block it opens it
    /// again with the unit's name.
    fn example(&self, line: usize, order: &str) -> String {
        match &self.opened {
            Some((opened, name)) if *opened == line => format!("`{name}: {order}`"),
            _ => format!("`{order}`"),
        }
    }

    fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.state.unit(id)
    }

    fn name(&self, id: UnitId) -> String {
        self.unit(id).map(|u| u.name.clone()).unwrap_or_default()
    }

    fn own(&self, id: UnitId) -> bool {
        self.unit(id).is_some_and(|u| u.side == self.side)
    }

    fn set(&mut self, index: usize, change: impl FnOnce(&mut Activation)) {
        if let Some(activation) = self.orders.activations.get_mut(index) {
            change(activation);
        }
    }

    /// One order: a line, or a piece of one between `;`.
    fn order(&mut self, line: usize, raw: &str, words: &[String]) {
        let Some((head, rest)) = words.split_first() else {
            return;
        };
        match head.as_str() {
            "initiative" | "init" => self.initiative(line, raw, rest),
            "deploy" | "deployment" | "place" => self.deploy(line, raw, rest),
            "activate" | "activation" | "act" | "unit" => self.activate(line, raw, rest),
            "standing" | "stand" | "reaction" | "reactions" => self.standing(line, raw, rest),
            "torpedo" | "torp" | "torpedoes" if !self.block_word(rest) => {
                self.torpedo(line, raw, words)
            }
            "order" | "orders" => {}
            // A unit's exact name wins over an order word ("Ahead: hold fire").
            _ if self.exact_unit(words).is_some() => {
                if let Some((id, used)) = self.exact_unit(words) {
                    let rest = words.get(used..).unwrap_or(&[]);
                    self.open_block(line, raw, id, rest);
                }
            }
            _ if activation::block_keyword(head) => match self.current {
                Some(index) => self.block_order(line, raw, index, words),
                None => self.error(
                    line,
                    raw,
                    "which unit is this for? Start its orders with ACTIVATE and its name",
                    format!(
                        "the unit's name first, as in `{}: HOLD FIRE`",
                        self.example_ship
                    ),
                ),
            },
            _ => match self.take_unit(words) {
                Some((id, used)) => {
                    let rest = words.get(used..).unwrap_or(&[]);
                    self.open_block(line, raw, id, rest);
                }
                None => {
                    // Inside a unit's block, an order for that unit; else a unit to start.
                    let current = self
                        .current
                        .and_then(|index| self.orders.activations.get(index))
                        .and_then(|a| self.unit(a.unit))
                        .cloned();
                    let expected = match current {
                        Some(unit) => format!(
                            "an order for {}: MOVE, FIRE, CMD, HOLD or DC, as in {}",
                            unit.name,
                            self.example(line, &self.plain_order(&unit))
                        ),
                        None => match self.named_enemy(words) {
                            // "I'm firing at Tempest": which unit, and the order.
                            Some(enemy)
                                if words.iter().any(|w| FIRE_WORDS.contains(&w.as_str())) =>
                            {
                                match self.firing_ship() {
                                    Some(ship) => format!(
                                        "the unit that fires first, then FIRE and the target, as in `{ship}: FIRE ALL AT {enemy}`"
                                    ),
                                    None => {
                                        "the unit that fires first, then FIRE and the target".into()
                                    }
                                }
                            }
                            _ => format!(
                                "a unit's name and its orders, as in `{}: HOLD FIRE`",
                                self.example_ship
                            ),
                        },
                    };
                    if expected.contains(": FIRE ALL AT ") {
                        self.sentences.push(self.errors.len());
                    }
                    self.error(
                        line,
                        raw,
                        format!("\"{head}\" is not an order or one of the battle's units"),
                        expected,
                    );
                }
            },
        }
    }

    /// One of this player's ships in play with a weapon that can fire and that does not give
    /// up shooting in these orders, for an example.
    pub(super) fn firing_ship(&self) -> Option<String> {
        self.state
            .units
            .iter()
            .find(|u| {
                u.side == self.side
                    && u.is_ship()
                    && u.in_play()
                    && u.weapons
                        .iter()
                        .any(|w| !w.kind.stats().torpedo && u.weapon_works(w))
                    && !self.orders.activations.iter().any(|a| {
                        a.unit == u.id
                            && a.actions.iter().any(|c| {
                                c.action
                                    == crate::orders::CmdAction::EmergencyRepairs(
                                        crate::orders::Skip::Shoot,
                                    )
                            })
                    })
            })
            .map(|u| u.name.clone())
    }

    /// The first enemy unit named anywhere in `words`, exactly.
    fn named_enemy(&self, words: &[String]) -> Option<String> {
        (0..words.len()).find_map(|at| {
            let (id, _) = self.exact_unit(words.get(at..)?)?;
            let unit = self.unit(id)?;
            (unit.side != self.side && unit.in_play()).then(|| unit.name.clone())
        })
    }

    /// An order any unit of this player's may be given as it stands, for an example: its
    /// guns at the nearest target when one can fire, else HOLD FIRE.
    fn plain_order(&self, unit: &Unit) -> String {
        let fires = unit
            .weapons
            .iter()
            .any(|w| !w.kind.stats().torpedo && unit.weapon_works(w));
        if fires {
            "FIRE ALL AT NEAREST".into()
        } else {
            "HOLD FIRE".into()
        }
    }

    /// `TORPEDO #2 ...` is a torpedo's program; `torpedo` inside a block would be a launch.
    fn block_word(&self, rest: &[String]) -> bool {
        rest.first().is_some_and(|w| w == "launch")
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::movement::split_glued;
    use super::*;

    #[test]
    fn glued_steps_split() {
        assert_eq!(split_glued("f3"), ("f".into(), Some("3".into())));
        assert_eq!(split_glued("p+45"), ("p".into(), Some("+45".into())));
        assert_eq!(split_glued("forward"), ("forward".into(), None));
        assert_eq!(split_glued("+45"), ("+45".into(), None));
    }

    #[test]
    fn list_markers_and_press() {
        use engine::order_text::{press_text, strip_list_marker};

        assert_eq!(strip_list_marker("1. ACTIVATE x"), "ACTIVATE x");
        assert_eq!(strip_list_marker("- fire"), "fire");
        assert_eq!(strip_list_marker("12 inches"), "12 inches");
        assert_eq!(press_text("PRESS: Hello"), Some("Hello".into()));
        assert_eq!(press_text("pressure"), None);
        assert_eq!(ordinal(2), "2nd");
        assert_eq!(ordinal(11), "11th");
    }
}
