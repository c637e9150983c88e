//! Orders as people write them in an email: one order per line, any case, stray words and
//! punctuation tolerated, and every refused line explained with an example that works.
//!
//! One file per order family: `place` (PLACE), `fire` (FIRE) and `attack` (PASS and the
//! special weapons); `tokens` splits a line into squares and words, `vocabulary` knows the
//! words, and `args` reads what a line says after its command word.

use engine::order_text::{Line, OrderText, without_signature};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::board::{Square, SquareError};
use crate::fleet::{FleetPlan, Placement, PlacementError};
use crate::legality::{OrderError, check_player, check_shots};
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
    read(state, me, text, false)
}

/// Reads `text`; `checking` when the reading only tests an example (whose own refusals then
/// need no examples checked in turn).
fn read(state: &State, me: PlayerId, text: &str, checking: bool) -> ParsedOrders<Orders> {
    let mut draft = Draft::new(state, me);
    draft.checking = checking;
    let mut reader = OrderText::new(text);
    for line in reader.by_ref() {
        match line {
            Line::Order(order) => {
                let written = clip(order.raw);
                // `FIRE J10 -- Ann`: the sign-off is no part of the order (SALVO-ADM-16).
                let text = clip(order.text);
                draft.read_line(order.number, written.trim(), without_signature(&text));
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
    /// Reading only to test an example: its refusals' examples are not tested in turn.
    checking: bool,
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
            checking: false,
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

    /// What to write instead, with examples (in backticks) that work in the refused line's
    /// place: each is read without an error against this state (uses left, the extras the
    /// game allows, the player's own ships and opponents), and none is an attack where an
    /// earlier line already holds the turn's one attack (issue 28; SALVO-ADM-16).
    fn example(&self, command: Option<Command>) -> String {
        let at = self.at_hint();
        let special = |line: String| self.attack_works(&line).then(|| format!("`{line}`"));
        let fire = || self.fire_example();
        let general = || {
            let mut orders: Vec<String> = Vec::new();
            orders.extend(fire());
            for line in [
                format!("NUKE D4{at}"),
                format!("SCUBA{at}"),
                format!("TORPEDO F10{at}"),
                format!("EXPERIMENTAL B2 B3 B4{at}"),
                format!("BOMBER G6{at}"),
                "PASS".to_string(),
            ] {
                orders.extend(special(line));
            }
            if orders.is_empty() {
                return "no more attacks: line ".to_string()
                    + &self.attack_line().map_or("1".into(), |l| l.to_string())
                    + " already holds this turn's attack; leave this line out, or write PRESS <text>";
            }
            format!(
                "one order a line, such as {}; PLACE Carrier A1 H to place a ship; or PRESS <text>",
                orders.join(", ")
            )
        };
        let shown = match command {
            Some(Command::Place) => Some(
                "PLACE Carrier A1 H (the top or left end, then H or V), or PLACE RANDOM".into(),
            ),
            Some(Command::Fire) => fire().map(|line| match self.state.setup().shots {
                ShotRule::One => line,
                ShotRule::Salvo => format!("{line} (one square per ship afloat)"),
            }),
            Some(Command::Nuke) => special(format!("NUKE D4{at}")),
            Some(Command::Scuba) => special(format!("SCUBA{at}")),
            Some(Command::Recapture) => self
                .state
                .admiral(self.me)
                .map(|a| a.captured_ships())
                .unwrap_or_default()
                .into_iter()
                .find_map(|kind| special(format!("SCUBA RECAPTURE {kind}"))),
            Some(Command::Torpedo) => {
                special(format!("TORPEDO F10{at}")).map(|line| {
                    match special(format!("TORPEDO A1 S{at}")) {
                        Some(corner) => {
                            format!("{line} (from a corner add N, S, E or W: {corner})")
                        }
                        None => line,
                    }
                })
            }
            Some(Command::Experimental) => {
                special(format!("EXPERIMENTAL B2 B3 B4{at}")).map(|line| {
                    format!(
                        "{line} (each square touching an earlier one; SACRIFICE Cruiser optional)"
                    )
                })
            }
            Some(Command::Bomber) => special(format!("BOMBER G6{at}")),
            Some(Command::Pass) => special("PASS".into()),
            None => None,
        };
        shown.unwrap_or_else(general)
    }

    /// The line of the turn's attack so far, if any.
    fn attack_line(&self) -> Option<usize> {
        self.attack
            .as_ref()
            .map(|(line, _)| *line)
            .or(self.first_shot_line)
    }

    /// Whether `line`, an attack other than FIRE, would be read here: no attack on an earlier
    /// line, and read alone against this state without an error.
    fn attack_works(&self, line: &str) -> bool {
        self.attack_line().is_none() && self.reads_alone(line)
    }

    /// Whether `line` would be read in the refused line's place: alone without an error, and
    /// with the lines before it: its shots within the turn's room and never a square they
    /// already fire at, or its attack the turn's first.
    fn works_here(&self, line: &str) -> bool {
        if self.checking {
            return true;
        }
        let alone = read(self.state, self.me, line, true);
        if !alone.errors.is_empty() {
            return false;
        }
        match &alone.orders.attack {
            Attack::Fire { shots } => {
                self.attack.is_none()
                    && check_shots(self.state, self.me, &self.shots, shots).is_ok()
            }
            // A PLACE line orders no attack.
            Attack::Pass if alone.orders.fleet.is_some() => true,
            _ => self.attack_line().is_none(),
        }
    }

    /// Whether `line` alone is read against this state without an error.
    fn reads_alone(&self, line: &str) -> bool {
        self.checking || read(self.state, self.me, line, true).errors.is_empty()
    }

    /// A FIRE line for the shots this turn still has room for, at squares the player has not
    /// called on that opponent (`FIRE B7`, `FIRE B7 C3 E5 AT Bob`), if FIRE can be written here.
    fn fire_example(&self) -> Option<String> {
        if self.attack.is_some() {
            return None;
        }
        let room = self
            .state
            .shots_allowed(self.me)
            .saturating_sub(self.shots.len());
        if room == 0 {
            return None;
        }
        let target = self
            .shots
            .first()
            .map(|s| s.at)
            .or_else(|| self.state.opponents_of(self.me).first().map(|a| a.id()))?;
        let called = self
            .state
            .admiral(self.me)
            .and_then(|a| a.calls_on(target))
            .cloned()
            .unwrap_or_default();
        let preferred = ["B7", "C3", "E5"]
            .into_iter()
            .filter_map(|s| Square::parse(s).ok());
        let mut squares: Vec<Square> = Vec::new();
        for square in preferred.chain(Square::all()) {
            if squares.len() >= room {
                break;
            }
            let fired = self
                .shots
                .iter()
                .any(|s| s.at == target && s.square == square);
            if !called.contains(&square) && !fired && !squares.contains(&square) {
                squares.push(square);
            }
        }
        let at = if self.several_opponents() {
            format!(" AT {}", self.state.name_of(target))
        } else {
            String::new()
        };
        let names: Vec<String> = squares.iter().map(Square::to_string).collect();
        let line = format!("FIRE {}{at}", names.join(" "));
        self.reads_alone(&line).then(|| format!("`{line}`"))
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
                if !repeats_a_square(&letters_first(text))
                    && self.works_here(&letters_first(text)) =>
            {
                format!("`{}`", letters_first(text))
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
