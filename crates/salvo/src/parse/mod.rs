//! Orders as people write them in an email: one order per line, any case, stray words and
//! punctuation tolerated, and every refused line explained with an example that works.
//!
//! One file per order family: `place` (PLACE), `fire` (FIRE) and `attack` (PASS and the
//! special weapons); `tokens` splits a line into squares and words, `vocabulary` knows the
//! words, and `args` reads what a line says after its command word.

use engine::order_text::{Line, OrderText};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::board::{Square, SquareError};
use crate::fleet::{FleetPlan, Placement, PlacementError};
use crate::legality::{OrderError, check_player};
use crate::orders::{Attack, FleetOrder, Orders, Shot};
use crate::setup::ShotRule;
use crate::state::State;

mod args;
mod attack;
mod fire;
mod place;
mod tokens;
mod vocabulary;

use tokens::{Tok, tokenize};
use vocabulary::{Command, find_command};

/// Longest line read, in characters; the rest of a longer line is ignored (a guard against
/// pasted garbage, not a limit anyone writing orders meets).
const LONGEST_LINE: usize = 500;

pub(crate) fn parse_orders(state: &State, me: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let mut draft = Draft::new(state, me);
    let mut reader = OrderText::new(text);
    for line in reader.by_ref() {
        match line {
            Line::Order(order) => {
                let written = clip(order.raw);
                draft.read_line(order.number, written.trim(), &clip(order.text));
            }
            Line::Press(press) => {
                if !press.text.is_empty() {
                    draft.understood.push(format!("press: \"{}\"", press.text));
                }
            }
            Line::Blank { .. } => {}
        }
    }
    draft.press = reader.into_press();
    draft.finish()
}

/// The first [`LONGEST_LINE`] characters of a line.
fn clip(line: &str) -> String {
    line.chars().take(LONGEST_LINE).collect()
}

/// The orders being built from a text, line by line.
struct Draft<'a> {
    state: &'a State,
    me: PlayerId,
    names: Vec<(PlayerId, Vec<String>)>,
    placements: Vec<(usize, Placement)>,
    /// The first placement line as written: a fleet that cannot be placed is reported on it.
    first_placement_text: String,
    random_line: Option<usize>,
    attack: Option<(usize, Attack)>,
    shots: Vec<Shot>,
    first_shot_line: Option<usize>,
    /// The line being read, as written, for warnings.
    line_text: String,
    /// The command a line turned out to be ("fire a torpedo" is a torpedo), for its example.
    upgraded: Option<Command>,
    /// A correction made for the line being read, better than the command's example.
    suggestion: Option<String>,
    /// The line that chose the turn's attack (or its first shots), as written.
    first_attack_text: String,
    understood: Vec<String>,
    press: Vec<String>,
    errors: Vec<LineIssue>,
    warnings: Vec<LineIssue>,
}

impl<'a> Draft<'a> {
    fn new(state: &'a State, me: PlayerId) -> Self {
        let names = state
            .admirals()
            .iter()
            .map(|a| (a.id(), name_words(a.name())))
            .filter(|(_, words)| !words.is_empty())
            .collect();
        Self {
            state,
            me,
            names,
            placements: Vec::new(),
            first_placement_text: String::new(),
            random_line: None,
            attack: None,
            shots: Vec::new(),
            first_shot_line: None,
            upgraded: None,
            suggestion: None,
            first_attack_text: String::new(),
            line_text: String::new(),
            understood: Vec::new(),
            press: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    fn several_opponents(&self) -> bool {
        self.state.opponents_of(self.me).len() > 1
    }

    /// ` AT Bob` when a target must be named, for examples.
    fn at_hint(&self) -> String {
        if self.several_opponents() {
            let name = self
                .state
                .opponents_of(self.me)
                .first()
                .map(|a| a.name().to_string())
                .unwrap_or_default();
            format!(" AT {name}")
        } else {
            String::new()
        }
    }

    fn example(&self, command: Option<Command>) -> String {
        let at = self.at_hint();
        match command {
            Some(Command::Place) => {
                "PLACE Carrier A1 H (the top or left end, then H or V), or PLACE RANDOM".into()
            }
            Some(Command::Fire) => match self.state.setup().shots {
                ShotRule::One => format!("FIRE B7{at}"),
                ShotRule::Salvo => format!("FIRE B7 C3 E5{at} (one square per ship afloat)"),
            },
            Some(Command::Nuke) => format!("NUKE D4{at}"),
            Some(Command::Scuba) => format!("SCUBA{at}"),
            Some(Command::Recapture) => "SCUBA RECAPTURE Destroyer".into(),
            Some(Command::Torpedo) => {
                format!("TORPEDO F10{at} (from a corner add N, S, E or W: TORPEDO A1 S{at})")
            }
            Some(Command::Experimental) => format!(
                "EXPERIMENTAL B2 B3 B4{at} (each square touching an earlier one; SACRIFICE Cruiser optional)"
            ),
            Some(Command::Bomber) => format!("BOMBER G6{at}"),
            Some(Command::Pass) => "PASS".into(),
            None => format!(
                "one order a line, such as FIRE B7{at}, NUKE D4{at}, SCUBA{at}, TORPEDO F10{at}, EXPERIMENTAL B2 B3 B4{at}, BOMBER G6{at}, PLACE Carrier A1 H, PASS or PRESS <text>"
            ),
        }
    }

    fn refuse(&mut self, line: usize, text: &str, command: Option<Command>, error: &OrderError) {
        let expected = match error {
            OrderError::GameOver => "no orders: the game has ended".to_string(),
            OrderError::NotPlaying | OrderError::OutOfGame => {
                "no orders (PRESS lines are still welcome)".to_string()
            }
            OrderError::NoUses { .. }
            | OrderError::Disabled(_)
            | OrderError::NeedsSubmarine { .. }
            | OrderError::NeedsCarrier { .. } => self.example(Some(Command::Fire)),
            // The line itself, each square written letter first, unless that repeats a square
            // the line already has (`FIRE J10 10J`): then an example, never a refused line.
            OrderError::Square(SquareError::NumberFirst { on_board: true, .. })
                if !repeats_a_square(&letters_first(text)) =>
            {
                letters_first(text)
            }
            // Never the refused line itself: say which of the two lines to keep.
            OrderError::SecondAttack {
                line: earlier,
                what,
            } => {
                if what.trim().eq_ignore_ascii_case(text.trim()) {
                    format!("leave this line out: line {earlier} already orders the same attack")
                } else {
                    format!(
                        "one attack a turn: keep line {earlier} ({what}) or this line ({}), and leave the other out",
                        text.trim()
                    )
                }
            }
            _ => self
                .suggestion
                .take()
                .unwrap_or_else(|| self.example(command)),
        };
        self.suggestion = None;
        self.errors.push(LineIssue {
            line,
            text: text.to_string(),
            problem: error.to_string(),
            expected,
            if_it_stands: None,
        });
    }

    /// Reads one order: `text` without its list marker, `written` as the player wrote it.
    fn read_line(&mut self, line: usize, written: &str, text: &str) {
        self.line_text = written.to_string();
        let tokens = tokenize(text);
        let (command, args_from) = match find_command(&tokens) {
            Ok(found) => found,
            Err(error) => {
                self.refuse(line, written, None, &error);
                return;
            }
        };
        if let Err(error) = check_player(self.state, self.me) {
            self.refuse(line, written, Some(command), &error);
            return;
        }
        let outcome = if command == Command::Place {
            self.read_place(line, &tokens, args_from)
        } else {
            self.read_attack(line, command, &tokens, args_from)
        };
        let shown = self.upgraded.take().unwrap_or(command);
        if let Err(error) = outcome {
            self.refuse(line, written, Some(shown), &error);
        }
    }

    fn finish(mut self) -> ParsedOrders<Orders> {
        let mut orders = Orders::default();
        if let Some((_, attack)) = self.attack.take() {
            orders.attack = attack;
        } else if !self.shots.is_empty() {
            orders.attack = Attack::Fire {
                shots: std::mem::take(&mut self.shots),
            };
        } else if check_player(self.state, self.me).is_ok() {
            self.understood
                .push("no attack ordered: you will pass this turn".into());
        }
        if self.random_line.is_some() {
            orders.fleet = Some(FleetOrder::Random);
        } else if let Some((first_line, _)) = self.placements.first().copied() {
            let plan: Vec<Placement> = self.placements.iter().map(|(_, p)| *p).collect();
            match FleetPlan::try_from(plan) {
                Ok(plan) => orders.fleet = Some(FleetOrder::Placed(plan)),
                Err(error) => {
                    let text = match &error {
                        PlacementError::Incomplete { .. } => format!(
                            "{error}; until all five ships are placed legally, the server places your whole fleet at random (SALVO-GM-18)"
                        ),
                        _ => error.to_string(),
                    };
                    self.errors.push(LineIssue {
                        line: first_line,
                        text: std::mem::take(&mut self.first_placement_text),
                        problem: text,
                        expected: "five PLACE lines, one per ship: Carrier 5, Battleship 4, Cruiser 3, Submarine 3, Destroyer 2, e.g. PLACE Carrier A1 H".into(),
                        if_it_stands: None,
                    });
                }
            }
        } else if self.state.admiral(self.me).is_some_and(|a| a.may_place())
            && check_player(self.state, self.me).is_ok()
        {
            self.understood.push(
                "fleet: stays where the server placed it at random (see your view); send PLACE lines to place it yourself".into(),
            );
        }
        ParsedOrders {
            orders,
            understood: self.understood,
            press: self.press,
            errors: self.errors,
            warnings: self.warnings,
            chat: Vec::new(),
            orders_read: 0,
        }
    }
}

/// `line` with every square written number first (`10J`, `10 j`) turned round (`J10`), where
/// the turned square is on the board.
fn letters_first(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let starts_word = i == 0 || chars.get(i - 1).is_none_or(|p| !p.is_alphanumeric());
        if c.is_ascii_digit() && starts_word {
            let digits_end = (i..)
                .find(|&k| chars.get(k).is_none_or(|d| !d.is_ascii_digit()))
                .unwrap_or(i);
            let mut k = digits_end;
            while chars.get(k).is_some_and(|d| *d == ' ' || *d == '-') {
                k += 1;
            }
            let letter = chars.get(k).copied().filter(char::is_ascii_alphabetic);
            let ends_word = chars.get(k + 1).is_none_or(|n| !n.is_alphanumeric());
            let digits: String = chars.get(i..digits_end).unwrap_or(&[]).iter().collect();
            if let Some(letter) = letter
                && ends_word
                && digits.len() <= 3
            {
                let fixed = format!("{}{digits}", letter.to_ascii_uppercase());
                if Square::parse(&fixed).is_ok() {
                    out.push_str(&fixed);
                    i = k + 1;
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Whether some square is written twice on `line`.
fn repeats_a_square(line: &str) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    line.split(|c: char| !c.is_alphanumeric())
        .filter_map(|word| Square::parse(word).ok())
        .any(|square| !seen.insert(square))
}

/// A player's name as the words the tokenizer would make of it.
fn name_words(name: &str) -> Vec<String> {
    tokenize(name)
        .into_iter()
        .map(|t| match t {
            Tok::Word(w) => w,
            Tok::Square(s) => s.to_string().to_lowercase(),
            Tok::BadSquare(_) | Tok::Dash => String::new(),
        })
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        tokenize(line)
            .into_iter()
            .map(|t| match t {
                Tok::Square(s) => s.to_string(),
                Tok::BadSquare(e) => format!("!{e}"),
                Tok::Dash => "-".into(),
                Tok::Word(w) => w,
            })
            .collect()
    }

    #[test]
    fn tokens_tolerate_case_spaces_and_punctuation() {
        assert_eq!(words("Fire at b7."), vec!["fire", "at", "B7"]);
        assert_eq!(words("fire: d 4, c-3"), vec!["fire", "D4", "C3"]);
        assert_eq!(words("EXP B2-B4"), vec!["exp", "B2", "-", "B4"]);
        assert_eq!(words("EXP B2 - B4"), vec!["exp", "B2", "-", "B4"]);
        assert_eq!(words("nuke D4 -> Bob"), vec!["nuke", "D4", "at", "bob"]);
        assert_eq!(words("nuke D4 → Bob"), vec!["nuke", "D4", "at", "bob"]);
        assert_eq!(words("torpedo  K3")[1].chars().next(), Some('!'));
    }
}
