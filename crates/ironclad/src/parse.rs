//! Reading orders as people write them in an email. One order per line (or several on a line
//! separated by `;`), case and punctuation forgiven, every rejected line explained with a
//! correct example. Never panics: no indexing, every lookup checked.

use std::collections::BTreeMap;

use engine::order_text::{Line, OrderText};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::fire::{self, Group, Solution};
use crate::grid::{Area, TurnSide};
use crate::orders::{Manoeuvre, Orders, ShipOrders, TorpedoOrder};
use crate::state::{Fate, MoveOrder, OverLimitMoves, Ship, ShipId, State, TubeMount};

/// A name as orders match it: lower-case words of letters and digits, single-spaced.
pub fn normalise(text: &str) -> String {
    words_of(text).join(" ")
}

fn words_of(text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(word) => Some(word),
            _ => None,
        })
        .collect()
}

const MAIN_WORDS: &[&str] = &[
    "main", "mains", "m", "primary", "guns", "gun", "turrets", "turret",
];
const PORT_WORDS: &[&str] = &["port", "p", "larboard"];
const STARBOARD_WORDS: &[&str] = &["starboard", "stbd", "stb", "sb", "s"];
const TORPEDO_WORDS: &[&str] = &["torpedo", "torpedoes", "torp", "torps", "t", "fish"];
const MOVE_WORDS: &[&str] = &[
    "move",
    "moves",
    "mv",
    "steer",
    "course",
    "helm",
    "manoeuvre",
    "maneuver",
    "manoeuver",
    "sail",
];
const WITHDRAW_WORDS: &[&str] = &["withdraw", "retire", "escape", "breakoff"];
const SECONDARY_WORDS: &[&str] = &["secondary", "secondaries", "sec", "secs", "battery"];
const ORDER_WORDS: &[&str] = &["order", "sequence"];
/// The words that start a press line ([`engine::order_text::PRESS_WORDS`]): no ship may be
/// called so.
const PRESS_WORDS: &[&str] = &engine::order_text::PRESS_WORDS;
/// Words that may come before an order word or a target and mean nothing more.
const FILLER_WORDS: &[&str] = &[
    "fire", "fires", "firing", "open", "shoot", "engage", "at", "on", "target", "targets", "to",
    "the", "with", "armament", "hms", "sms", "uss", "ss", "ship", "her", "his", "its", "please",
];
const HOLD_FIRE_WORDS: &[&str] = &["none", "nothing", "hold", "cease", "no", "nil", "nobody"];
const ALTERNATIVE_WORDS: &[&str] = &["or", "else", "otherwise", "then", "failing"];

/// Is this (normalised) name an order word, which a ship may not be called?
pub fn is_reserved_word(name: &str) -> bool {
    [
        MAIN_WORDS,
        PORT_WORDS,
        STARBOARD_WORDS,
        TORPEDO_WORDS,
        MOVE_WORDS,
        WITHDRAW_WORDS,
        SECONDARY_WORDS,
        ORDER_WORDS,
        PRESS_WORDS,
        FILLER_WORDS,
        HOLD_FIRE_WORDS,
        ALTERNATIVE_WORDS,
    ]
    .iter()
    .any(|list| list.contains(&name))
        || step_word(name).is_some()
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    /// `/`: between a target and its fallback.
    Slash,
    /// `,`: between steps of a path or names in a list.
    Comma,
    /// `&` or `+`: joins targets, which one weapon may not have.
    Join,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
            continue;
        }
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(&mut word)));
        }
        match c {
            '/' => out.push(Token::Slash),
            ',' => out.push(Token::Comma),
            '&' | '+' => out.push(Token::Join),
            _ => {}
        }
    }
    if !word.is_empty() {
        out.push(Token::Word(word));
    }
    out
}

fn is_word(token: Option<&Token>, list: &[&str]) -> bool {
    matches!(token, Some(Token::Word(word)) if list.contains(&word.as_str()))
}

fn skip_fillers(tokens: &[Token]) -> &[Token] {
    let mut rest = tokens;
    while let [first, tail @ ..] = rest {
        if is_word(Some(first), FILLER_WORDS) {
            rest = tail;
        } else {
            break;
        }
    }
    rest
}

/// `tokens` as written, then with one, two, … leading filler words dropped. A ship's name may
/// itself begin with a filler word ("The Ram", "Her Majesty", "HMS Ajax" written "HMS HMS
/// Ajax"), so every name is matched as written first (IRON-GUN-05..07).
fn filler_readings(tokens: &[Token]) -> Vec<&[Token]> {
    let mut readings = vec![tokens];
    let mut rest = tokens;
    while let [first, tail @ ..] = rest {
        if !is_word(Some(first), FILLER_WORDS) {
            break;
        }
        rest = tail;
        readings.push(rest);
    }
    readings
}

fn joined_words(tokens: &[Token]) -> String {
    tokens
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

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
        },
        current: None,
        filled: BTreeMap::new(),
        line_ship: None,
        refused: BTreeMap::new(),
        example_own,
        example_enemy,
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
        self.out.errors.push(LineIssue {
            line,
            text: raw.trim_end().to_owned(),
            problem: issue.problem,
            expected: issue.expected,
            if_it_stands: None,
        });
    }

    fn warn(&mut self, line: usize, raw: &str, problem: String, expected: String) {
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
        let all = tokens(text);
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

    fn no_ship_issue(&self) -> Issue {
        let mine: Vec<&str> = self
            .state
            .ships
            .iter()
            .filter(|s| s.player == self.player && s.afloat())
            .map(|s| s.name.as_str())
            .collect();
        issue(
            format!(
                "start the line with the ship it is for; yours are: {}",
                if mine.is_empty() {
                    "none left".to_string()
                } else {
                    mine.join(", ")
                }
            ),
            format!("{} MAIN {}", self.example_own, self.example_enemy),
        )
    }

    /// The longest ship name at the start of `tokens`, read as written and then without one, two,
    /// … leading filler words: one of the player's own afloat ships, or an error if the only
    /// name found is someone else's ship or one that is gone. The player's own ship wins over
    /// another reading's enemy ("The Ram" when she commands "Ram" and the enemy "The Ram").
    fn ship_at_start<'t>(
        &self,
        tokens: &'t [Token],
    ) -> Result<Option<(ShipId, &'t [Token])>, Issue> {
        let mut refusal = None;
        for reading in filler_readings(tokens) {
            let Some((ship, rest)) = longest_name(self.state.ships.iter(), reading) else {
                continue;
            };
            let problem = if ship.player != self.player {
                issue(
                    format!("{} is not your ship", ship.name),
                    format!("{} MAIN {}", self.example_own, self.example_enemy),
                )
            } else {
                match ship.fate {
                    Fate::Afloat => return Ok(Some((ship.id, rest))),
                    Fate::Sunk { .. } => issue(format!("{} has sunk", ship.name), ""),
                    Fate::Escaped { .. } => issue(format!("{} has left the battle", ship.name), ""),
                }
            };
            refusal.get_or_insert(problem);
        }
        match refusal {
            Some(problem) => Err(problem),
            None => Ok(None),
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

    fn fire(
        &mut self,
        line: usize,
        raw: &str,
        ship: &Ship,
        group: Group,
        args: &[Token],
    ) -> Result<(), Issue> {
        // The target is read as written (it may be "The Ram"); fillers go only if it is not a name.
        let mut args = args;
        let mut tube = None;
        if group == Group::Torpedo {
            let (found, rest) = take_tube(args);
            tube = found;
            args = rest;
        }
        let example = match group {
            Group::Main => format!("{} MAIN {}", ship.name, self.example_enemy),
            Group::Port => format!("{} PORT {}", ship.name, self.example_enemy),
            Group::Starboard => format!("{} STBD {}", ship.name, self.example_enemy),
            Group::Torpedo => format!("{} TORP {}", ship.name, self.example_enemy),
        };
        let stripped = skip_fillers(args);
        if stripped.is_empty() && self.named_ship(args).is_none() {
            return Err(issue(
                format!("name the {}'s target (or NONE to hold fire)", group.name()),
                example,
            ));
        }
        if is_word(stripped.first(), HOLD_FIRE_WORDS)
            && stripped.len() == 1
            && self.named_ship(args).is_none()
        {
            self.fill(ship, Slot::Fire(group), line)?;
            let orders = self.orders_for(ship.id);
            match group {
                Group::Main => orders.main.clear(),
                Group::Port => orders.port.clear(),
                Group::Starboard => orders.starboard.clear(),
                Group::Torpedo => orders.torpedo = None,
            }
            self.out
                .understood
                .push(format!("{}: {} holds fire", ship.name, group.name()));
            return Ok(());
        }
        // `A / B`: B is the fallback. Within each part a whole ship's name is taken first, so a
        // name with "and" or "or" in it ("Pride and Joy") is not split.
        let mut alternatives: Vec<&[Token]> = Vec::new();
        for part in args.split(|t| matches!(t, Token::Slash)) {
            if self.named_ship(part).is_some() {
                alternatives.push(part);
                continue;
            }
            if part.iter().any(|t| {
                matches!(t, Token::Comma | Token::Join) || matches!(t, Token::Word(w) if w == "and")
            }) {
                let what = if group == Group::Torpedo {
                    "one torpedo a turn (IRON-TORP-03)"
                } else {
                    "one target per armament a turn (IRON-GUN-05, IRON-GUN-06, IRON-GUN-07)"
                };
                return Err(issue(
                    format!(
                        "{what}; to name a fallback if the first cannot be engaged, separate them with /"
                    ),
                    format!("{example} / {}", self.second_enemy()),
                ));
            }
            alternatives.extend(part.split(|t| is_word(Some(t), ALTERNATIVE_WORDS)));
        }
        let mut targets = Vec::new();
        let mut descriptions = Vec::new();
        for alternative in alternatives {
            if skip_fillers(alternative).is_empty() && self.named_ship(alternative).is_none() {
                continue;
            }
            let target = self.target(alternative, &example)?;
            let solution =
                fire::solve(self.state, ship, target, group, tube).map_err(|problem| {
                    issue(
                        format!(
                            "{}'s {} cannot fire at {}: {problem}",
                            ship.name,
                            group.name(),
                            target.name
                        ),
                        self.suggestion(ship, group)
                            .unwrap_or_else(|| format!("{} {} NONE", ship.name, group_word(group))),
                    )
                })?;
            descriptions.push(describe(target, &solution));
            targets.push(target.id);
        }
        if targets.is_empty() {
            return Err(issue(
                format!("name the {}'s target", group.name()),
                example,
            ));
        }
        self.fill(ship, Slot::Fire(group), line)?;
        let orders = self.orders_for(ship.id);
        match group {
            Group::Main => orders.main = targets,
            Group::Port => orders.port = targets,
            Group::Starboard => orders.starboard = targets,
            Group::Torpedo => orders.torpedo = Some(TorpedoOrder { targets, tube }),
        }
        let fires = if group == Group::Torpedo {
            format!(
                "fires a torpedo{} ({} left after it)",
                tube.map(|t| format!(" from the {} tube", t.name()))
                    .unwrap_or_default(),
                ship.torpedoes_left.saturating_sub(1)
            )
        } else {
            format!("{} fires", group.name())
        };
        self.out.understood.push(format!(
            "{}: {fires} at {}",
            ship.name,
            descriptions.join(", else ")
        ));
        if ship.broken_off {
            self.warn(
                line,
                raw,
                format!("{} has broken off: she may still fire at ships she passes (IRON-DMG-02, IRON-GM-10)", ship.name),
                String::new(),
            );
        }
        Ok(())
    }

    fn second_enemy(&self) -> String {
        let own_side = self.state.commander(self.player).map(|c| c.side);
        self.state
            .ships
            .iter()
            .filter(|s| Some(s.side) != own_side && s.afloat())
            .nth(1)
            .map(|s| s.name.clone())
            .unwrap_or_else(|| "Erzherzog".into())
    }

    /// A target this weapon could engage now, as a correct example.
    fn suggestion(&self, ship: &Ship, group: Group) -> Option<String> {
        self.state
            .ships
            .iter()
            .find(|target| fire::solve(self.state, ship, target, group, None).is_ok())
            .map(|target| format!("{} {} {}", ship.name, group_word(group), target.name))
    }

    /// The ship whose whole name `tokens` are, read as written and then without one, two, …
    /// leading filler words (IRON-GUN-05..07: "The Ram" is a name, "the Leonidas" is Leonidas).
    fn named_ship(&self, tokens: &[Token]) -> Option<&Ship> {
        filler_readings(tokens).into_iter().find_map(|reading| {
            let joined = joined_words(reading);
            self.state
                .ships
                .iter()
                .find(|s| !joined.is_empty() && normalise(&s.name) == joined)
        })
    }

    /// A target: a whole name, an area, or a unique start of a name, each read as written before
    /// leading filler words are dropped.
    fn target(&self, tokens: &[Token], example: &str) -> Result<&Ship, Issue> {
        if let Some(ship) = self.named_ship(tokens) {
            return Ok(ship);
        }
        let readings = filler_readings(tokens);
        for reading in &readings {
            let words: Vec<&str> = reading
                .iter()
                .filter_map(|t| match t {
                    Token::Word(w) => Some(w.as_str()),
                    _ => None,
                })
                .collect();
            if let Ok(area) = Area::parse(&words.concat()) {
                return self.state.ship_at(area).ok_or_else(|| {
                    issue(format!("there is no ship at {area}"), example.to_owned())
                });
            }
        }
        for reading in &readings {
            let joined = joined_words(reading);
            if joined.is_empty() {
                continue;
            }
            let matching: Vec<&Ship> = self
                .state
                .ships
                .iter()
                .filter(|s| normalise(&s.name).starts_with(&joined))
                .collect();
            match matching.as_slice() {
                [only] => return Ok(only),
                [] => {}
                several => {
                    return Err(issue(
                        format!(
                            "{joined:?} could be {}",
                            several
                                .iter()
                                .map(|s| s.name.as_str())
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                        example.to_owned(),
                    ));
                }
            }
        }
        let joined = joined_words(skip_fillers(tokens));
        Err(issue(
            format!("there is no ship called {joined:?}"),
            example.to_owned(),
        ))
    }

    fn movement(
        &mut self,
        line: usize,
        raw: &str,
        ship: &Ship,
        args: &[Token],
    ) -> Result<(), Issue> {
        let example = format!("{} MOVE F, T45R", ship.name);
        let manoeuvre = parse_path(args).map_err(|problem| issue(problem, example.clone()))?;
        let turn = self.state.turn;
        let rules = &self.state.rules;
        if manoeuvre.is_pivot() && !(rules.allow_pivot_when_slowed && ship.slowed()) {
            let why = if rules.allow_pivot_when_slowed {
                "only a ship slowed to 1 area a turn may pivot in place"
            } else {
                "a 45° turn comes only after moving one area forward (IRON-MOV-03)"
            };
            return Err(issue(why, example));
        }
        if ship.broken_off {
            self.fill(ship, Slot::Move, line)?;
            self.orders_for(ship.id).movement = Some(manoeuvre);
            self.out.understood.push(format!(
                "{}: move {manoeuvre} noted, but she has broken off and the engine steers her home",
                ship.name
            ));
            self.warn(
                line,
                raw,
                format!(
                    "{} is at or below her Critical Point: she sails for home and this move is not used (IRON-DMG-02, IRON-GM-10)",
                    ship.name
                ),
                format!("{} WITHDRAW LEFT (which way to turn, if both are as short)", ship.name),
            );
            return Ok(());
        }
        let mut over_limit = None;
        if ship.slowed() && manoeuvre.cost() > 1 {
            let why = if ship.engines_damaged {
                "her engines are damaged (IRON-GUN-13)"
            } else {
                "she is flooded below (IRON-TORP-06)"
            };
            over_limit = Some((
                format!("{} can move only 1 area a turn: {why}", ship.name),
                format!("{} MOVE F", ship.name),
            ));
        } else if let Some(until) = ship.holds_course_until(turn)
            && manoeuvre.turn().is_some()
        {
            over_limit = Some((
                format!(
                    "{} must hold her course until turn {until} (bridge or rudder hit, IRON-GUN-11, IRON-TORP-05)",
                    ship.name
                ),
                format!("{} MOVE F, F", ship.name),
            ));
        }
        if let Some((why, instead)) = over_limit {
            if rules.over_limit_moves == OverLimitMoves::Refused {
                return Err(issue(why, instead));
            }
            // The GM's switch on IRON-GM-07: cut down now as at resolution, and say so.
            let (carried, _) =
                crate::movement::limited(ship, manoeuvre, turn, rules.allow_pivot_when_slowed);
            self.fill(ship, Slot::Move, line)?;
            self.orders_for(ship.id).movement = Some(manoeuvre);
            let (path, warning) = preview(self.state, ship, carried);
            self.out.understood.push(format!(
                "{}: moves {carried}{path} (cut down from {manoeuvre}: {why})",
                ship.name
            ));
            self.warn(
                line,
                raw,
                format!("{why}; she will move {carried} instead of {manoeuvre} (IRON-GM-07)"),
                instead,
            );
            if let Some(warning) = warning {
                self.warn(line, raw, warning, String::new());
            }
            return Ok(());
        }
        self.fill(ship, Slot::Move, line)?;
        self.orders_for(ship.id).movement = Some(manoeuvre);
        let (path, warning) = preview(self.state, ship, manoeuvre);
        self.out
            .understood
            .push(format!("{}: moves {manoeuvre}{path}", ship.name));
        if let Some(warning) = warning {
            self.warn(line, raw, warning, String::new());
        }
        Ok(())
    }

    fn withdraw(&mut self, line: usize, ship: &Ship, args: &[Token]) -> Result<(), Issue> {
        let side = match skip_fillers(args).first() {
            Some(Token::Word(w)) if ["left", "port", "l", "larboard"].contains(&w.as_str()) => {
                TurnSide::Port
            }
            Some(Token::Word(w)) if ["right", "starboard", "stbd", "r"].contains(&w.as_str()) => {
                TurnSide::Starboard
            }
            _ => {
                return Err(issue(
                    "say which way she turns for home when both ways are as short: LEFT or RIGHT",
                    format!("{} WITHDRAW LEFT", ship.name),
                ));
            }
        };
        self.fill(ship, Slot::Withdraw, line)?;
        self.orders_for(ship.id).withdraw = Some(side);
        self.out.understood.push(format!(
            "{}: if she must break off and both ways home are as short, she turns to {} (IRON-GM-10)",
            ship.name,
            if side == TurnSide::Port { "port" } else { "starboard" }
        ));
        Ok(())
    }

    fn move_order(&mut self, tokens: &[Token]) -> Result<(), Issue> {
        if self.state.rules.move_order == MoveOrder::ShipId {
            return Err(issue(
                "in this game each side's ships move by ship number, so ORDER has no effect (the GM's switch on IRON-GM-08)",
                "leave the ORDER line out",
            ));
        }
        let example = format!("ORDER {}", self.own_names().join(", "));
        // Names are matched as written ("The Ram", "Pride and Joy"); a connecting or filler word
        // that starts no name is passed over (IRON-GM-08, IRON-GUN-05..07).
        let words: Vec<Token> = tokens
            .iter()
            .filter(|t| matches!(t, Token::Word(_)))
            .cloned()
            .collect();
        let mut rest = words.as_slice();
        let mut sequence = Vec::new();
        while let [first, tail @ ..] = rest {
            let droppable = is_word(Some(first), &["then", "and", "first", "last", "next"])
                || is_word(Some(first), FILLER_WORDS);
            let as_written = longest_name(self.state.ships.iter(), rest);
            // The player's own ship wins over someone else's read as written ("the Ram" when she
            // commands "Ram" and the enemy "The Ram").
            let found = match as_written {
                Some((ship, _)) if ship.player != self.player && droppable => {
                    longest_name(self.state.ships.iter(), tail)
                        .filter(|(own, _)| own.player == self.player)
                        .or(as_written)
                }
                _ => as_written,
            };
            let Some((ship, after)) = found else {
                if droppable {
                    rest = tail;
                    continue;
                }
                let word = match first {
                    Token::Word(w) => w.clone(),
                    _ => String::new(),
                };
                return Err(issue(format!("{word:?} is not one of your ships"), example));
            };
            if ship.player != self.player {
                return Err(issue(format!("{} is not your ship", ship.name), example));
            }
            if !sequence.contains(&ship.id) {
                sequence.push(ship.id);
            }
            rest = after;
        }
        if sequence.is_empty() {
            return Err(issue(
                "list your ships in the order they should move",
                example,
            ));
        }
        let names: Vec<String> = sequence
            .iter()
            .filter_map(|id| self.state.ship(*id))
            .map(|s| s.name.clone())
            .collect();
        self.out.orders.move_order = sequence;
        self.out.understood.push(format!(
            "your ships move in this order: {} (IRON-GM-08)",
            names.join(", ")
        ));
        Ok(())
    }

    fn own_names(&self) -> Vec<String> {
        self.state
            .ships
            .iter()
            .filter(|s| s.player == self.player && s.afloat())
            .map(|s| s.name.clone())
            .collect()
    }

    fn finish(&mut self) {
        if self.state.finished || self.state.commander(self.player).is_none() {
            return;
        }
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

#[derive(Debug, Clone, Copy)]
enum Keyword {
    Fire(Group),
    Move,
    Withdraw,
}

fn starts_with_order_word(tokens: &[Token]) -> bool {
    [
        MAIN_WORDS,
        PORT_WORDS,
        STARBOARD_WORDS,
        TORPEDO_WORDS,
        MOVE_WORDS,
        WITHDRAW_WORDS,
        SECONDARY_WORDS,
    ]
    .iter()
    .any(|list| is_word(tokens.first(), list))
}

fn group_word(group: Group) -> &'static str {
    match group {
        Group::Main => "MAIN",
        Group::Port => "PORT",
        Group::Starboard => "STBD",
        Group::Torpedo => "TORP",
    }
}

fn skip_secondary(tokens: &[Token]) -> &[Token] {
    match tokens.split_first() {
        Some((first, rest)) if is_word(Some(first), SECONDARY_WORDS) => rest,
        _ => tokens,
    }
}

/// The longest ship name that starts `tokens`, and what follows it.
fn longest_name<'s, 't>(
    ships: impl Iterator<Item = &'s Ship>,
    tokens: &'t [Token],
) -> Option<(&'s Ship, &'t [Token])> {
    let mut best: Option<(&Ship, usize)> = None;
    for ship in ships {
        let name = words_of(&ship.name);
        if name.is_empty() || name.len() > tokens.len() {
            continue;
        }
        let matches = name
            .iter()
            .zip(tokens)
            .all(|(word, token)| matches!(token, Token::Word(t) if t == word));
        if matches && best.is_none_or(|(_, length)| name.len() > length) {
            best = Some((ship, name.len()));
        }
    }
    best.map(|(ship, length)| (ship, tokens.get(length..).unwrap_or(&[])))
}

/// Finds `tube bow`, `bow tube` or `from the stern tube` among a torpedo order's words.
fn take_tube(tokens: &[Token]) -> (Option<TubeMount>, &[Token]) {
    let mount = |token: Option<&Token>| match token {
        Some(Token::Word(w)) => match w.as_str() {
            "bow" | "fore" | "bows" => Some(TubeMount::Bow),
            "stern" | "aft" => Some(TubeMount::Stern),
            "port" | "portbeam" => Some(TubeMount::BeamPort),
            "starboard" | "stbd" | "starboardbeam" => Some(TubeMount::BeamStbd),
            _ => None,
        },
        _ => None,
    };
    // Written before the target: `[from] [the] <mount> [beam] tube <target>`.
    let start = match tokens.first() {
        Some(Token::Word(w)) if w == "from" => tokens.get(1..).unwrap_or(&[]),
        _ => tokens,
    };
    let start = skip_fillers(start);
    if let Some(found) = mount(start.first()) {
        let mut rest = start.get(1..).unwrap_or(&[]);
        if is_word(rest.first(), &["beam"]) {
            rest = rest.get(1..).unwrap_or(&[]);
        }
        if is_word(rest.first(), &["tube"]) {
            return (Some(found), rest.get(1..).unwrap_or(&[]));
        }
    }
    // Written after: `<target> [from] [the] [tube] <mount> [beam] [tube]`, or `tube <mount>` first.
    let position = tokens
        .iter()
        .position(|t| is_word(Some(t), &["tube", "from"]));
    if let Some(index) = position {
        let mut after = tokens.get(index + 1..).unwrap_or(&[]);
        after = skip_fillers(after);
        if is_word(after.first(), &["tube"]) {
            after = after.get(1..).unwrap_or(&[]);
        }
        if let Some(found) = mount(after.first()) {
            let head = tokens.get(..index).unwrap_or(&[]);
            let mut tail = after.get(1..).unwrap_or(&[]);
            while is_word(tail.first(), &["beam", "tube"]) {
                tail = tail.get(1..).unwrap_or(&[]);
            }
            if head.is_empty() {
                return (Some(found), tail);
            }
            if tail.is_empty() {
                return (Some(found), head);
            }
        }
    }
    (None, tokens)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Forward,
    Turn(TurnSide),
    Hold,
}

/// The steps a word stands for: `f`, `ff`, `fr`, `t45r`, `right`, `hold`...
fn step_word(word: &str) -> Option<Vec<Step>> {
    let steps = match word {
        "hold" | "stop" | "stay" | "halt" | "stationary" | "still" | "0" => vec![Step::Hold],
        "forward" | "fwd" | "ahead" | "straight" | "fd" => vec![Step::Forward],
        "right" | "starboard" | "stbd" | "r" | "tr" | "t45r" | "r45" | "45r" => {
            vec![Step::Turn(TurnSide::Starboard)]
        }
        "left" | "port" | "larboard" | "l" | "tl" | "t45l" | "l45" | "45l" => {
            vec![Step::Turn(TurnSide::Port)]
        }
        _ if !word.is_empty()
            && word.chars().all(|c| matches!(c, 'f' | 'l' | 'r'))
            && word.starts_with('f') =>
        {
            word.chars()
                .map(|c| match c {
                    'l' => Step::Turn(TurnSide::Port),
                    'r' => Step::Turn(TurnSide::Starboard),
                    _ => Step::Forward,
                })
                .collect()
        }
        _ => return None,
    };
    Some(steps)
}

/// Reads a move path: `F, T45R`, `FF`, `forward then turn right`, `F 2`, `hold`.
fn parse_path(tokens: &[Token]) -> Result<Manoeuvre, String> {
    let mut steps: Vec<Step> = Vec::new();
    let mut pending_count: Option<usize> = None;
    let mut turning = false;
    for token in tokens {
        let Token::Word(word) = token else {
            continue; // Commas and slashes only separate steps.
        };
        let word = word.as_str();
        if [
            "then", "and", "area", "areas", "square", "squares", "grid", "by", "a", "deg",
            "degree", "degrees", "to", "45", "f45", "go",
        ]
        .contains(&word)
        {
            continue;
        }
        if word == "turn" || word == "t" {
            turning = true;
            continue;
        }
        if let Some(count) = count_word(word) {
            // `2 F` or `F 2`: the number of forward areas.
            if steps.last() == Some(&Step::Forward) {
                let already = steps
                    .iter()
                    .rev()
                    .take_while(|s| **s == Step::Forward)
                    .count();
                for _ in already..count {
                    steps.push(Step::Forward);
                }
            } else {
                pending_count = Some(count);
            }
            continue;
        }
        if word.starts_with('t') && word.chars().any(|c| c.is_ascii_digit()) && !word.contains("45")
        {
            return Err(format!(
                "{word:?}: a turn is 45°, written T45L or T45R (IRON-MOV-03)"
            ));
        }
        let Some(mut found) = step_word(word) else {
            return Err(format!(
                "did not understand {word:?} in the move; write a path such as F, T45R (F = one area forward, T45L / T45R = turn 45°)"
            ));
        };
        if turning && !matches!(found.as_slice(), [Step::Turn(_)]) {
            return Err("say which way to turn: T45L or T45R".into());
        }
        turning = false;
        if let (Some(count), [Step::Forward]) = (pending_count.take(), found.as_slice()) {
            found = vec![Step::Forward; count];
        }
        steps.extend(found);
    }
    if turning {
        return Err("say which way to turn: T45L or T45R".into());
    }
    if let Some(count) = pending_count {
        steps.extend(std::iter::repeat_n(Step::Forward, count));
    }
    match steps.as_slice() {
        [] => Err("give the move as a path such as F, T45R, or HOLD".into()),
        [Step::Hold] => Ok(Manoeuvre::Hold),
        [Step::Forward] => Ok(Manoeuvre::Ahead),
        [Step::Forward, Step::Forward] => Ok(Manoeuvre::AheadTwice),
        [Step::Forward, Step::Turn(side)] => Ok(Manoeuvre::ahead_then(*side)),
        [Step::Turn(side)] => Ok(Manoeuvre::pivot(*side)),
        _ if steps.contains(&Step::Hold) => Err("HOLD cannot be combined with other steps".into()),
        [Step::Turn(_), ..] => Err("a 45° turn comes only after moving one area forward (IRON-MOV-03)".into()),
        _ => Err(
            "a ship moves at most 2 areas a turn and a 45° turn uses one of them (IRON-MOV-01, IRON-MOV-03)".into(),
        ),
    }
}

fn count_word(word: &str) -> Option<usize> {
    match word {
        "1" | "one" | "once" => Some(1),
        "2" | "two" | "twice" => Some(2),
        "3" | "three" => Some(3),
        _ => None,
    }
}

/// What a move would do from the current position: the end area, and a warning for an edge,
/// terrain or a ship in the way (IRON-GM-15, IRON-MOV-05).
fn preview(state: &State, ship: &Ship, manoeuvre: Manoeuvre) -> (String, Option<String>) {
    let board = state.rules.board;
    let mut area = ship.area;
    for _ in 0..manoeuvre.forward_steps() {
        let next = match board.step(area, ship.heading) {
            Ok(next) => next,
            Err(edge) => {
                return (
                    format!(" (stops at {area}, the {} edge)", edge.name()),
                    Some(format!(
                        "{} would leave the board by the {} edge: she will stop at {area} and not turn (IRON-GM-15)",
                        ship.name,
                        edge.name()
                    )),
                );
            }
        };
        if state.rules.terrain.contains(&next) {
            return (
                format!(" (stops at {area}, short of terrain)"),
                Some(format!(
                    "terrain at {next}: {} will stop at {area}",
                    ship.name
                )),
            );
        }
        if let Some(other) = state.ship_at(next).filter(|o| o.id != ship.id) {
            return (
                format!(" (rams {} at {next} if she is still there)", other.name),
                Some(format!(
                    "{} is at {next} now: if she is still there when {} moves, {} rams her (IRON-MOV-05, IRON-RAM-01)",
                    other.name, ship.name, ship.name
                )),
            );
        }
        area = next;
    }
    let heading = match manoeuvre.turn() {
        Some(side) => ship.heading.turned(side),
        None => ship.heading,
    };
    (format!(" (to {area} heading {heading})"), None)
}

fn describe(target: &Ship, solution: &Solution) -> String {
    let arc = match solution.arc {
        crate::grid::Arc::Forward => "ahead",
        crate::grid::Arc::Aft => "astern",
        crate::grid::Arc::Port => "port beam",
        crate::grid::Arc::Starboard => "starboard beam",
    };
    let dice = if solution.dice == 1 { "die" } else { "dice" };
    format!(
        "{} ({}, range {}, {arc}, {} {dice})",
        target.name, target.area, solution.range, solution.dice
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
