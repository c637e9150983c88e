//! Reading orders as people write them in an email. One order per line (or several on a line
//! separated by `;`), case and punctuation forgiven, every rejected line explained with a
//! correct example. Never panics: no indexing, every lookup checked.
//!
//! One file per order family: `fire` (MAIN, PORT, STBD and TORP: the torpedo is a fire group
//! here) and `movement` (MOVE, WITHDRAW and ORDER); `names` finds the ships a line names and
//! `words` knows the order words and splits a line into them.

use std::collections::BTreeMap;

use engine::order_text::{Line, OrderText};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::fire::Group;
use crate::orders::{Orders, ShipOrders};
use crate::state::{Ship, ShipId, State};

mod examples;
mod fire;
mod movement;
mod names;
mod words;

pub use words::{is_reserved_word, normalise};

use words::step_word;
use words::{
    MAIN_WORDS, MOVE_WORDS, ORDER_WORDS, PORT_WORDS, SECONDARY_WORDS, STARBOARD_WORDS,
    TORPEDO_WORDS, Token, WITHDRAW_WORDS, group_word, is_word, skip_fillers, skip_secondary,
    starts_with_order_word, tokens,
};

/// A problem with one line, before the line number is known.
struct Issue {
    problem: String,
    expected: String,
}

fn issue(problem: impl Into<String>, expected: impl Into<String>) -> Issue {
    Issue {
        problem: problem.into(),
        expected: expected.into(),
    }
}

/// The slots one ship's orders fill: each may be written once a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Fire(Group),
    Move,
    Withdraw,
}

struct Parser<'a> {
    state: &'a State,
    player: PlayerId,
    out: ParsedOrders<Orders>,
    current: Option<ShipId>,
    filled: BTreeMap<(ShipId, Slot), usize>,
    /// The ship the segment being read gives orders to, once known.
    line_ship: Option<ShipId>,
    /// Refused lines per ship: line number and problem, for the confirmation.
    refused: BTreeMap<ShipId, Vec<(usize, String)>>,
    example_own: String,
    example_enemy: String,
    /// This parser only tries an example: its refusals need no examples of their own.
    trial: bool,
    /// Moves into an area one of the player's own ships holds now: line, text, the mover, the
    /// ship in the way and the area, warned at the end, once the ORDER line is known.
    line_ahead: Vec<(usize, String, ShipId, ShipId, crate::grid::Area)>,
    /// How many more examples this mail may try (shared with the trials): a mail of
    /// thousands of bad lines gets words, not a parse per candidate per line.
    trials_left: std::rc::Rc<std::cell::Cell<usize>>,
}

/// Parses one player's order text (see [`crate::help::order_help`] for the syntax).
pub fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let own_side = state.commander(player).map(|c| c.side);
    let example_own = state
        .ships
        .iter()
        .find(|s| s.player == player && s.afloat())
        .map(|s| s.name.clone())
        .unwrap_or_else(|| "Agamemnon".into());
    let example_enemy = state
        .ships
        .iter()
        .find(|s| Some(s.side) != own_side && s.afloat())
        .map(|s| s.name.clone())
        .unwrap_or_else(|| "Dandolo".into());
    let mut parser = Parser {
        state,
        player,
        out: ParsedOrders {
            orders: Orders::default(),
            understood: Vec::new(),
            press: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            chat: Vec::new(),
            orders_read: 0,
        },
        current: None,
        filled: BTreeMap::new(),
        line_ship: None,
        refused: BTreeMap::new(),
        example_own,
        example_enemy,
        trial: false,
        line_ahead: Vec::new(),
        trials_left: std::rc::Rc::new(std::cell::Cell::new(examples::TRIALS_PER_MAIL)),
    };
    let mut reader = OrderText::new(text);
    for line in reader.by_ref() {
        match line {
            Line::Order(order) => parser.line(order.number, order.raw, order.text),
            Line::Press(press) => {
                parser.refused(press.number, press.raw);
            }
            Line::Blank { .. } => {}
        }
    }
    if parser.may_write() {
        parser.out.press = reader.into_press();
    }
    parser.finish();
    parser.out
}

impl Parser<'_> {
    /// May this player write anything, orders or press, now?
    fn may_write(&self) -> bool {
        !self.state.finished && self.state.commander(self.player).is_some()
    }

    /// Refuses the line if this player may write nothing now; says whether it did.
    fn refused(&mut self, line: usize, raw: &str) -> bool {
        if self.state.finished {
            self.error(
                line,
                raw,
                issue("the battle is over; no more orders are taken", ""),
            );
            return true;
        }
        if self.state.commander(self.player).is_none() {
            self.error(
                line,
                raw,
                issue("you are not commanding in this battle", ""),
            );
            return true;
        }
        false
    }

    fn line(&mut self, line: usize, raw: &str, text: &str) {
        self.line_ship = None;
        if self.refused(line, raw) {
            return;
        }
        for segment in text.split(';') {
            if segment.trim().is_empty() {
                continue;
            }
            if let Err(problem) = self.segment(line, raw, segment) {
                self.error(line, raw, problem);
            }
        }
    }

    fn error(&mut self, line: usize, raw: &str, issue: Issue) {
        if let Some(ship) = self.line_ship {
            self.refused
                .entry(ship)
                .or_default()
                .push((line, issue.problem.clone()));
        }
        let expected = if self.trial {
            String::new()
        } else {
            self.working_examples(line, &issue.expected)
        };
        self.out.errors.push(LineIssue {
            line,
            text: raw.trim_end().to_owned(),
            problem: issue.problem,
            expected,
            if_it_stands: None,
        });
    }

    fn warn(&mut self, line: usize, raw: &str, problem: String, expected: String) {
        let expected = if self.trial {
            String::new()
        } else {
            self.working_examples(line, &expected)
        };
        self.out.warnings.push(LineIssue {
            line,
            text: raw.trim_end().to_owned(),
            problem,
            expected,
            if_it_stands: None,
        });
    }

    fn segment(&mut self, line: usize, raw: &str, text: &str) -> Result<(), Issue> {
        self.line_ship = None;
        // A remark in brackets ("MAIN Leonidas (she's the big one)") is the player's aside,
        // not part of the order.
        let all = tokens(&without_asides(text));
        // A ship's name first, matched as written and then without leading filler words: a
        // ship may be called "The Order" or "Her Majesty" (IRON-GUN-05..07).
        let found = self.ship_at_start(&all)?;
        if found.is_none() && is_word(skip_fillers(&all).first(), ORDER_WORDS) {
            let names = skip_fillers(&all).get(1..).unwrap_or(&[]);
            return self.move_order(names);
        }
        let mut rest: &[Token] = &all;
        if let Some((ship, after)) = found {
            self.current = Some(ship);
            rest = after;
        }
        rest = skip_fillers(rest);
        if rest.is_empty() {
            return match self.current {
                // A line naming only a ship: the lines below are for her.
                Some(_) => Ok(()),
                None => Err(self.no_ship_issue()),
            };
        }
        let Some(ship_id) = self.current else {
            return Err(self.no_ship_issue());
        };
        let ship = self
            .state
            .ship(ship_id)
            .ok_or_else(|| issue("that ship is not in this battle", ""))?
            .clone();
        self.line_ship = Some(ship_id);
        self.clause(line, raw, &ship, rest)
    }

    /// One order for `ship`. A fire order followed by `, <order word> …` carries a further
    /// order for the same ship ("MAIN Leonidas, STBD Leonidas"); a move keeps its commas, which
    /// separate the steps of its path.
    fn clause(
        &mut self,
        line: usize,
        raw: &str,
        ship: &Ship,
        tokens: &[Token],
    ) -> Result<(), Issue> {
        let (keyword, args) = self.keyword(tokens)?;
        match keyword {
            Keyword::Fire(group) => {
                let next_order = args.iter().enumerate().find_map(|(index, token)| {
                    let tail = args.get(index + 1..).unwrap_or(&[]);
                    (matches!(token, Token::Comma) && starts_with_order_word(skip_fillers(tail)))
                        .then_some(index)
                });
                match next_order {
                    Some(index) => {
                        let head = args.get(..index).unwrap_or(&[]);
                        let tail = skip_fillers(args.get(index + 1..).unwrap_or(&[]));
                        let first = self.fire(line, raw, ship, group, head);
                        if let Err(problem) = self.clause(line, raw, ship, tail) {
                            self.error(line, raw, problem);
                        }
                        first
                    }
                    None => self.fire(line, raw, ship, group, args),
                }
            }
            Keyword::Move => self.movement(line, raw, ship, args),
            Keyword::Withdraw => self.withdraw(line, ship, args),
        }
    }

    fn keyword<'t>(&self, tokens: &'t [Token]) -> Result<(Keyword, &'t [Token]), Issue> {
        let first = tokens.first();
        let rest = tokens.get(1..).unwrap_or(&[]);
        let after_secondary = || skip_secondary(rest);
        if is_word(first, SECONDARY_WORDS) {
            // "secondary port X" or "secondary X" (which side?).
            let next = rest.first();
            if is_word(next, PORT_WORDS) {
                return Ok((Keyword::Fire(Group::Port), rest.get(1..).unwrap_or(&[])));
            }
            if is_word(next, STARBOARD_WORDS) {
                return Ok((
                    Keyword::Fire(Group::Starboard),
                    rest.get(1..).unwrap_or(&[]),
                ));
            }
            return Err(issue(
                "say which secondary battery: PORT or STBD (each fires at one target, IRON-GUN-06, IRON-GUN-07)",
                format!("{} PORT {}", self.example_own, self.example_enemy),
            ));
        }
        if is_word(first, MAIN_WORDS) {
            // "main guns", "main turrets": the second word says the same again.
            let mut rest = rest;
            while is_word(rest.first(), MAIN_WORDS) {
                rest = rest.get(1..).unwrap_or(&[]);
            }
            return Ok((Keyword::Fire(Group::Main), rest));
        }
        if is_word(first, PORT_WORDS) {
            return Ok((Keyword::Fire(Group::Port), after_secondary()));
        }
        if is_word(first, STARBOARD_WORDS) {
            return Ok((Keyword::Fire(Group::Starboard), after_secondary()));
        }
        if is_word(first, TORPEDO_WORDS) {
            return Ok((Keyword::Fire(Group::Torpedo), rest));
        }
        if is_word(first, MOVE_WORDS) {
            return Ok((Keyword::Move, rest));
        }
        if is_word(first, WITHDRAW_WORDS) {
            return Ok((Keyword::Withdraw, rest));
        }
        if let (Some(Token::Word(a)), Some(Token::Word(b))) = (first, rest.first())
            && a == "break"
            && b == "off"
        {
            return Ok((Keyword::Withdraw, rest.get(1..).unwrap_or(&[])));
        }
        // A bare path ("FF", "F, T45R", "hold") is a move.
        if matches!(first, Some(Token::Word(word)) if step_word(word).is_some() || word == "turn") {
            return Ok((Keyword::Move, tokens));
        }
        let word = match first {
            Some(Token::Word(word)) => word.clone(),
            _ => String::new(),
        };
        // "Zeus MAIN Leonidas": an order word further on means the first word was meant as a
        // ship's name.
        let order_later = rest.iter().any(|t| {
            [
                MAIN_WORDS,
                PORT_WORDS,
                STARBOARD_WORDS,
                TORPEDO_WORDS,
                MOVE_WORDS,
                WITHDRAW_WORDS,
            ]
            .iter()
            .any(|list| is_word(Some(t), list))
        });
        if order_later {
            let mut problem = self.no_ship_issue();
            problem.problem = format!("{word:?} is not one of your ships; {}", problem.problem);
            return Err(problem);
        }
        Err(issue(
            format!(
                "did not understand {word:?}: an order is MAIN, PORT, STBD, TORP, MOVE or WITHDRAW"
            ),
            format!("{} MOVE F, T45R", self.example_own),
        ))
    }

    fn fill(&mut self, ship: &Ship, slot: Slot, line: usize) -> Result<(), Issue> {
        if let Some(earlier) = self.filled.get(&(ship.id, slot)) {
            let problem = match slot {
                Slot::Fire(Group::Torpedo) => format!(
                    "{} already fires a torpedo on line {earlier}: one torpedo a turn (IRON-TORP-03)",
                    ship.name
                ),
                Slot::Fire(group) => format!(
                    "{}'s {} already has a target on line {earlier}: one target per armament a turn (IRON-GUN-05, IRON-GUN-06, IRON-GUN-07); for a fallback write A / B",
                    ship.name,
                    group.name()
                ),
                Slot::Move => format!("{} already has a move on line {earlier}", ship.name),
                Slot::Withdraw => format!(
                    "{} already has a withdrawal preference on line {earlier}",
                    ship.name
                ),
            };
            let keep = format!("keep only one of line {earlier} and this line");
            let expected = match slot {
                Slot::Fire(Group::Torpedo) => {
                    format!("{keep}: {} TORP {}", ship.name, self.example_enemy)
                }
                Slot::Fire(group) => format!(
                    "{keep}; for a fallback target put both on one line: {} {} {} / {}",
                    ship.name,
                    group_word(group),
                    self.example_enemy,
                    self.second_enemy()
                ),
                Slot::Move => format!(
                    "{keep}; the whole move goes on one line: {} MOVE F, T45R",
                    ship.name
                ),
                Slot::Withdraw => format!(
                    "{keep}: {} WITHDRAW LEFT or {} WITHDRAW RIGHT",
                    ship.name, ship.name
                ),
            };
            return Err(issue(problem, expected));
        }
        self.filled.insert((ship.id, slot), line);
        Ok(())
    }

    fn orders_for(&mut self, ship: ShipId) -> &mut ShipOrders {
        self.out.orders.ships.entry(ship).or_default()
    }

    fn finish(&mut self) {
        if self.state.finished || self.state.commander(self.player).is_none() {
            return;
        }
        self.line_ahead_warnings();
        for ship in self
            .state
            .ships
            .iter()
            .filter(|s| s.player == self.player && s.afloat())
        {
            let refused = self.refused.get(&ship.id).map(|lines| {
                lines
                    .iter()
                    .map(|(line, problem)| format!("line {line}: {problem}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            });
            if !self.out.orders.ships.contains_key(&ship.id) {
                let why = match (&refused, ship.broken_off) {
                    (None, true) => "no orders: breaking off: the engine steers her home (IRON-GM-10); she holds fire".to_string(),
                    (None, false) => "no orders: holds fire and position (IRON-GM-18)".to_string(),
                    (Some(lines), true) => format!(
                        "her orders were refused ({lines}): she is breaking off, so the engine steers her home (IRON-GM-10) and she holds fire"
                    ),
                    (Some(lines), false) => format!(
                        "her orders were refused ({lines}): she holds fire and position (IRON-GM-18)"
                    ),
                };
                self.out.understood.push(format!("{}: {why}", ship.name));
            }
        }
        self.out.orders.refused = self.refused.keys().copied().collect();
    }
}

/// The text without what is in round or square brackets (an unclosed bracket runs to the end).
fn without_asides(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.saturating_sub(1);
                out.push(' ');
            }
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[derive(Debug, Clone, Copy)]
enum Keyword {
    Fire(Group),
    Move,
    Withdraw,
}

#[cfg(test)]
mod tests {
    use super::movement::parse_path;
    use super::*;
    use crate::orders::Manoeuvre;

    #[test]
    fn tokens_split_words_and_keep_separators() {
        assert_eq!(
            tokens("Agamemnon: MAIN -> Dandolo/Erzherzog, F&x"),
            vec![
                Token::Word("agamemnon".into()),
                Token::Word("main".into()),
                Token::Word("dandolo".into()),
                Token::Slash,
                Token::Word("erzherzog".into()),
                Token::Comma,
                Token::Word("f".into()),
                Token::Join,
                Token::Word("x".into()),
            ]
        );
        assert_eq!(normalise("  Queen's   OWN "), "queen s own");
    }

    #[test]
    fn paths_read_every_common_spelling() {
        let path = |text: &str| parse_path(&tokens(text));
        assert_eq!(path("F, T45R"), Ok(Manoeuvre::AheadThenStarboard));
        assert_eq!(path("f t45l"), Ok(Manoeuvre::AheadThenPort));
        assert_eq!(path("FR"), Ok(Manoeuvre::AheadThenStarboard));
        assert_eq!(
            path("forward then turn 45 degrees right"),
            Ok(Manoeuvre::AheadThenStarboard)
        );
        assert_eq!(path("FF"), Ok(Manoeuvre::AheadTwice));
        assert_eq!(path("F,F"), Ok(Manoeuvre::AheadTwice));
        assert_eq!(path("2 forward"), Ok(Manoeuvre::AheadTwice));
        assert_eq!(path("forward 2"), Ok(Manoeuvre::AheadTwice));
        assert_eq!(path("F"), Ok(Manoeuvre::Ahead));
        assert_eq!(path("hold"), Ok(Manoeuvre::Hold));
        assert_eq!(path("T45L"), Ok(Manoeuvre::PivotPort));
        assert!(path("T45R, F").unwrap_err().contains("IRON-MOV-03"));
        assert!(path("F, F, T45R").unwrap_err().contains("IRON-MOV-01"));
        assert!(path("FFF").unwrap_err().contains("at most 2"));
        assert!(path("T90R").unwrap_err().contains("45°"));
        assert!(path("F, turn").unwrap_err().contains("which way"));
        assert!(path("zigzag").unwrap_err().contains("zigzag"));
        assert!(path("").is_err());
        assert!(path("hold F").is_err());
    }

    #[test]
    fn bullets_are_dropped() {
        use engine::order_text::strip_list_marker as strip_bullet;
        assert_eq!(strip_bullet("- Agamemnon MAIN X"), "Agamemnon MAIN X");
        assert_eq!(strip_bullet("2) Agamemnon"), "Agamemnon");
        assert_eq!(strip_bullet("12 Agamemnon"), "12 Agamemnon");
    }
}
