//! Reading a player's orders as people write them (BARMY-07, BARMY-19): the text's sample
//! `Fred Bloggs G13, K19 One more shot ...`, `FIRE G13 K19`, lower case, odd spacing and
//! punctuation, press after the squares or on a `PRESS` line.
//!
//! `line` reads one line's squares and press; this file holds the orders' types, the help, and
//! the judging of what was read: a third shot, a square off the board or on the player's own
//! ship, a missed turn.

use engine::order_text::{Line, OrderText};
use engine::{LineIssue, ParsedOrders, PlayerId};
use serde::{Deserialize, Serialize};

use crate::board::{Grid, Square};
use crate::{Captain, Fate, SHOTS_PER_TURN, Setup, State};

mod line;

pub(crate) use line::strip_phrase;

use line::{Item, LineKind, classify};

/// One player's orders for a turn. Orders that fire no shot are a missed turn (BARMY-17), press
/// or not, unless the game's switch lets press alone answer (`Setup::press_only_is_nmr`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orders {
    pub shots: Vec<Shot>,
    /// Whether the order text carried press. `None` for orders stored before this was
    /// recorded: those answered their turn whatever they held, as they did when they were
    /// resolved, so that `gm verify` replays those turns unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub press: Option<bool>,
}

impl Orders {
    /// Do these orders answer the turn, or is it a missed turn (BARMY-17, BARMY-GM-13)?
    pub fn answer_the_turn(&self, setup: &Setup) -> bool {
        match self.press {
            None => true,
            Some(press) => !self.shots.is_empty() || (press && !setup.press_only_is_nmr),
        }
    }
}

/// A shot as ordered: what the player wrote and where that is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shot {
    /// As written, upper-cased (catalogue section 5: Co-ord "as written").
    pub written: String,
    pub target: Target,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "square")]
pub enum Target {
    Square(Square),
    /// Beyond the board: rejected when checked, a miss if still there at the deadline
    /// (BARMY-GM-01).
    OffBoard,
}
pub(crate) fn help(setup: &Setup) -> String {
    format!(
        "Name two squares to fire at, letter (column) then number (row), {}: \
         `G13, K19` or `FIRE G13 K19`. Anything after the last square is press, as in \
         `Fred Bloggs G13, K19 One more shot and his rust bucket goes down!`; a square on an \
         order line is always a shot, so to mention a square in press write the press on a \
         line starting PRESS. Two shots a turn; a shot at your own ship is a miss; orders that \
         fire no shot are a missed turn{}.",
        setup.grid().describe(),
        if setup.press_only_is_nmr {
            ", press or not"
        } else {
            " unless they carry press"
        }
    )
}

/// Where a press may go, for the messages of refused lines.
const PRESS_HOW: &str =
    "press on a line starting PRESS, as in `PRESS: See you at the bottom, John!`";
/// One player's orders as they are read, with what they are read against.
struct Judge<'s> {
    state: &'s State,
    player: PlayerId,
    grid: Grid,
    captain: Option<&'s Captain>,
    /// Why this player may fire no shot now, if so.
    cannot_fire: Option<String>,
    parsed: ParsedOrders<Orders>,
    /// The line of each shot in `parsed.orders.shots`.
    shot_lines: Vec<usize>,
    /// Errors of the line being read whose example waits for all of the line's squares.
    pending: Vec<usize>,
}

fn issue(line: usize, text: &str, problem: String, expected: String) -> LineIssue {
    LineIssue {
        line,
        text: text.to_owned(),
        problem,
        expected,
        if_it_stands: None,
    }
}

pub(crate) fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let captain = state.captain(player);
    let own_name = captain.map(|c| c.name.as_str()).unwrap_or("");
    let cannot_fire = match captain.map(|c| c.fate) {
        None => Some("you have no ship in this game".to_owned()),
        Some(Fate::Sunk(turn)) => Some(format!(
            "your battleship was sunk in turn {turn}, so you can no longer fire (BARMY-11); press is still published"
        )),
        Some(Fate::Left(_)) => Some("you have left this game".to_owned()),
        Some(Fate::Afloat) => None,
    };
    let mut judge = Judge {
        state,
        player,
        grid: state.setup.grid(),
        captain,
        cannot_fire,
        parsed: ParsedOrders {
            orders: Orders::default(),
            understood: Vec::new(),
            press: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            chat: Vec::new(),
            orders_read: 0,
        },
        shot_lines: Vec::new(),
        pending: Vec::new(),
    };
    // The first line read and the line of the last shot: where warnings about the whole set go.
    let mut first_line: Option<(usize, &str)> = None;
    let mut shot_line: Option<(usize, &str)> = None;
    // Press continues onto the following lines without squares until a blank line, as email
    // wraps it (the reader's continuation, see `engine::order_text`).
    let mut reader = OrderText::new(text);
    while let Some(line) = reader.next() {
        if first_line.is_none() {
            first_line = match &line {
                Line::Order(order) => Some((order.number, order.raw)),
                Line::Press(press) => Some((press.number, press.raw)),
                Line::Blank { .. } => None,
            };
        }
        let Some(order) = line.order() else {
            continue; // blank lines and PRESS lines: the reader keeps the press
        };
        let (number, raw) = (order.number, order.raw);
        match classify(order.text, own_name, &judge.grid) {
            // `at J10 next turn, Bob` under a press: the press goes on (BARMY-ADM-07).
            // Every square of it is press: those it would have fired and those after them.
            LineKind::Shots {
                prose_lead: true,
                ref items,
                ref mentioned,
                ..
            } if reader.continue_press(&order) => {
                let squares: Vec<String> = items
                    .iter()
                    .filter_map(|item| match item {
                        Item::Square { written, .. } => Some(written.clone()),
                        Item::Garbled(_) => None,
                    })
                    .chain(mentioned.iter().map(|s| (*s).to_owned()))
                    .collect();
                judge.squares_in_press(number, raw, &squares);
            }
            LineKind::Shots {
                items,
                mentioned,
                skipped,
                press,
                ..
            } => {
                if judge.shots(number, raw, items, &skipped) {
                    shot_line = Some((number, raw));
                }
                judge.settle(number);
                let mentioned: Vec<String> = mentioned.iter().map(|s| (*s).to_owned()).collect();
                judge.squares_in_press(number, raw, &mentioned);
                reader.start_press(press);
            }
            LineKind::Position => judge.position(number, raw),
            // Words, then squares: press going on, or an error naming the squares.
            LineKind::Words { squares } => {
                if reader.continue_press(&order) {
                    let squares: Vec<String> = squares.iter().map(|s| (*s).to_owned()).collect();
                    judge.squares_in_press(number, raw, &squares);
                } else {
                    judge.words_first(number, raw, order.text, &squares);
                }
            }
            // A line without squares continues an open press, or is refused.
            LineKind::Other => {
                if !reader.continue_press(&order) {
                    judge.no_squares(number, raw, order.text);
                }
            }
        }
    }
    judge.parsed.press = reader.into_press();
    for press in &judge.parsed.press {
        judge.parsed.understood.push(format!("press: \"{press}\""));
    }
    judge.parsed.orders.press = Some(!judge.parsed.press.is_empty());
    judge.count_shots(shot_line.or(first_line).unwrap_or((1, "")));
    judge.parsed
}

impl Judge<'_> {
    /// A line of shots: each square fired while the turn's two last, and the words between
    /// squares, which are not read. Whether any shot was fired.
    fn shots(&mut self, number: usize, raw: &str, items: Vec<Item<'_>>, skipped: &[&str]) -> bool {
        if let Some(reason) = &self.cannot_fire {
            let error = issue(number, raw, reason.clone(), "press only".into());
            self.parsed.errors.push(error);
            return false;
        }
        let mut fired = false;
        for item in items {
            fired |= self.item(number, raw, item);
        }
        if !skipped.is_empty() {
            self.parsed.warnings.push(issue(
                number,
                raw,
                format!(
                    "\"{}\" between your squares was not read, and is not press: press goes after the last square of a line (BARMY-19, BARMY-ADM-05)",
                    skipped.join(" … ")
                ),
                format!("{}, then press; or {PRESS_HOW}", self.example(number, &[])),
            ));
        }
        fired
    }

    /// One square of a line of shots: fired unless it is mangled or a third shot.
    fn item(&mut self, number: usize, raw: &str, item: Item<'_>) -> bool {
        let (written, reversed_from, after_words) = match item {
            Item::Garbled(token) => {
                self.pend(issue(
                    number,
                    raw,
                    format!(
                        "{token} is not a square: a square is a column letter then a row number (BARMY-03)"
                    ),
                    String::new(),
                ));
                return false;
            }
            Item::Square {
                written,
                reversed_from,
                after_words,
            } => (written, reversed_from, after_words),
        };
        if self.parsed.orders.shots.len() >= SHOTS_PER_TURN {
            let also = if after_words {
                " Every square on an order line is a shot (BARMY-ADM-05); to mention a square in press, write the press on a line starting PRESS."
            } else {
                ""
            };
            self.pend(issue(
                number,
                raw,
                format!(
                    "{written} would be a third shot, and is not fired: each player fires two shots a turn (BARMY-07).{also}"
                ),
                String::new(),
            ));
            return false;
        }
        let shot = read_square(&self.grid, &written);
        if let Some(reversed) = reversed_from {
            self.parsed.warnings.push(issue(
                number,
                raw,
                format!(
                    "{reversed} was read as {}: a square is written column letter first, then row number (BARMY-03)",
                    shot.written
                ),
                format!("{} instead of {reversed}", shot.written),
            ));
        }
        self.aim(number, raw, &shot);
        self.parsed.orders.shots.push(shot);
        self.shot_lines.push(number);
        true
    }

    /// Where a shot lands: off the board, a square fired at twice, the player's own ship.
    fn aim(&mut self, number: usize, raw: &str, shot: &Shot) {
        match shot.target {
            Target::OffBoard => self.pend(LineIssue {
                if_it_stands: Some("if not corrected it counts as a miss".to_owned()),
                ..issue(
                    number,
                    raw,
                    format!("{} is off the board (BARMY-GM-01)", shot.written),
                    String::new(),
                )
            }),
            Target::Square(square) => {
                if self
                    .parsed
                    .orders
                    .shots
                    .iter()
                    .any(|s| s.target == shot.target)
                {
                    let example = self.example(number, &[]);
                    self.parsed.warnings.push(issue(
                        number,
                        raw,
                        format!(
                            "{} twice: the second shot at it is always a miss (BARMY-GM-08)",
                            shot.written
                        ),
                        example,
                    ));
                } else if self.captain.is_some_and(|c| c.ship.contains(&square)) {
                    let example = self.example(number, &[]);
                    self.parsed.warnings.push(issue(
                        number,
                        raw,
                        format!(
                            "{} is on your own ship: it counts as a miss (BARMY-13)",
                            shot.written
                        ),
                        example,
                    ));
                }
                self.parsed
                    .understood
                    .push(format!("fire at {}", shot.written));
            }
        }
    }

    /// An error whose example waits for the rest of its line's squares ([`Judge::settle`]).
    fn pend(&mut self, error: LineIssue) {
        self.pending.push(self.parsed.errors.len());
        self.parsed.errors.push(error);
    }

    /// The squares on the board that line `number` fires at.
    fn squares_of_line(&self, number: usize) -> Vec<Square> {
        self.parsed
            .orders
            .shots
            .iter()
            .zip(&self.shot_lines)
            .filter(|(_, line)| **line == number)
            .filter_map(|(shot, _)| match shot.target {
                Target::Square(square) => Some(square),
                Target::OffBoard => None,
            })
            .collect()
    }

    /// The examples of the line's waiting errors, from the line's own squares on the board.
    fn settle(&mut self, number: usize) {
        let own = self.squares_of_line(number);
        let example = self.example(number, &own);
        for index in std::mem::take(&mut self.pending) {
            if let Some(error) = self.parsed.errors.get_mut(index) {
                error.expected.clone_from(&example);
            }
        }
    }

    /// What would be accepted in place of line `number`, with an example that works there
    /// (issue 28): squares on this board, as many as the shots the earlier lines leave, the
    /// player's own (`own`) first, then squares neither on their ship nor fired at already:
    /// always as many as the turn has room for, so that it is a whole order in any game.
    fn example(&self, number: usize, own: &[Square]) -> String {
        let before: Vec<Square> = self
            .parsed
            .orders
            .shots
            .iter()
            .zip(&self.shot_lines)
            .filter(|(_, line)| **line < number)
            .filter_map(|(shot, _)| match shot.target {
                Target::Square(square) => Some(square),
                Target::OffBoard => None,
            })
            .collect();
        let spent = self
            .shot_lines
            .iter()
            .filter(|line| **line < number)
            .count();
        let room = SHOTS_PER_TURN.saturating_sub(spent);
        if room == 0 {
            return format!(
                "nothing more: your two shots this turn are on earlier lines (BARMY-07); leave this line out, or {PRESS_HOW}"
            );
        }
        let mut squares: Vec<Square> = Vec::new();
        for square in own {
            if self.grid.contains(*square) && !squares.contains(square) && squares.len() < room {
                squares.push(*square);
            }
        }
        let wanted = room;
        let ship = self.captain.map(|c| &c.ship[..]).unwrap_or(&[]);
        let grid = self.grid;
        let preferred = [Square::new(6, 12), Square::new(10, 18)];
        let every = (0..grid.height).flat_map(|y| (0..grid.width).map(move |x| Square::new(x, y)));
        for square in preferred.into_iter().chain(every) {
            if squares.len() >= wanted {
                break;
            }
            if grid.contains(square)
                && !squares.contains(&square)
                && !before.contains(&square)
                && !ship.contains(&square)
            {
                squares.push(square);
            }
        }
        let list = squares
            .iter()
            .map(Square::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let what = match (room, squares.len()) {
            (1, _) => "one more square (your other shot is on an earlier line)",
            (_, 1) => "a square",
            _ => "two squares",
        };
        format!("{what} such as `{list}` ({})", grid.describe())
    }

    /// Squares in press are published as written, never fired: said, in case one was meant
    /// as a shot (BARMY-ADM-07).
    fn squares_in_press(&mut self, number: usize, raw: &str, squares: &[String]) {
        if squares.is_empty() || self.cannot_fire.is_some() {
            return;
        }
        let list = squares
            .iter()
            .map(|s| s.to_uppercase())
            .collect::<Vec<_>>()
            .join(", ");
        let example = self.example(number, &[]);
        self.parsed.warnings.push(issue(
            number,
            raw,
            format!(
                "{list} in your press {} not fired: press after a line's two shots, or on the lines that continue it, is published as written (BARMY-ADM-07)",
                if squares.len() > 1 { "are" } else { "is" }
            ),
            format!("to fire at a square, name it among the line's first two: {example}"),
        ));
    }

    fn position(&mut self, number: usize, raw: &str) {
        self.parsed.warnings.push(issue(
            number,
            raw,
            "WHERE asks for your ship's position: it is answered privately and is not an order (BARMY-GM-13)"
                .into(),
            "POSITION on a line of its own in an email".into(),
        ));
    }

    /// Words first, squares after: never press, since a square on an order line is a shot or
    /// an error (BARMY-ADM-05).
    fn words_first(&mut self, number: usize, raw: &str, text: &str, squares: &[&str]) {
        let own: Vec<Square> = squares.iter().filter_map(|s| s.parse().ok()).collect();
        let example = self.example(number, &own);
        let squares = squares
            .iter()
            .map(|s| s.to_uppercase())
            .collect::<Vec<_>>()
            .join(", ");
        let start = match self.state.name_at_start(text, self.player) {
            Some(other) => format!(
                "this line starts with {}, another player's name",
                other.name
            ),
            None => "this line starts with words, not a square".to_owned(),
        };
        self.parsed.errors.push(issue(
            number,
            raw,
            format!(
                "{start}, so {squares} on it {} not fired and not printed as press (BARMY-ADM-05)",
                if squares.contains(',') { "were" } else { "was" }
            ),
            format!("the squares first, then any press: {example}; or {PRESS_HOW}"),
        ));
    }

    /// A line with no squares that continues no press.
    fn no_squares(&mut self, number: usize, raw: &str, text: &str) {
        let (problem, how) = match self.state.name_at_start(text, self.player) {
            Some(other) => (
                format!(
                    "this line starts with {name}, another player's name, and has no squares to fire at: it was not read. \
                 If it is press, start it with PRESS; a private message to {name} goes on a line `TELL {name}: <message>`",
                    name = other.name
                ),
                PRESS_HOW,
            ),
            None => (
                "this line has no squares to fire at".into(),
                "a line starting PRESS",
            ),
        };
        self.parsed.errors.push(issue(
            number,
            raw,
            problem,
            format!("{}, or {how}", self.example(number, &[])),
        ));
    }

    /// The shots of the whole text, said on the line of the last shot (or the first line): none
    /// is a missed turn (BARMY-17), one is short (BARMY-07).
    fn count_shots(&mut self, (number, raw): (usize, &str)) {
        let (None, Some(captain)) = (&self.cannot_fire, self.captain) else {
            return;
        };
        let setup = &self.state.setup;
        let own = self.squares_of_line(number);
        let example = self.example(number, &own);
        let parsed = &mut self.parsed;
        match parsed.orders.shots.len() {
            0 if !parsed.orders.answer_the_turn(setup) => {
                let first = captain.first_turn >= self.state.turn;
                parsed.warnings.push(issue(
                    number,
                    raw,
                    format!(
                        "these orders fire no shot, so this turn counts as a missed turn (NMR, BARMY-17){}{}",
                        if setup.press_only_is_nmr && !parsed.press.is_empty() {
                            ": press alone does not answer a turn"
                        } else {
                            ""
                        },
                        if first {
                            ". There is no penalty in your first turn; from your second, a missed turn costs a hit on your own ship unless someone hits it"
                        } else {
                            ": it costs a hit on your own ship unless someone hits it this turn"
                        }
                    ),
                    example,
                ));
            }
            1 if setup.one_shot_allowed => parsed.warnings.push(issue(
                number,
                raw,
                "only one square: your second shot is not fired this turn (each player fires two, BARMY-07)".into(),
                example.clone(),
            )),
            1 => parsed.errors.push(issue(
                number,
                raw,
                "only one square: in this game each order names two squares (BARMY-07); add a second"
                    .into(),
                example,
            )),
            _ => {}
        }
    }
}

fn read_square(grid: &Grid, written: &str) -> Shot {
    let compact: String = written
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_uppercase();
    let target = match compact.parse::<Square>() {
        Ok(square) if grid.contains(square) => Target::Square(square),
        _ => Target::OffBoard,
    };
    Shot {
        written: compact,
        target,
    }
}
