//! Reading a player's orders as people write them (BARMY-07, BARMY-19): the text's sample
//! `Fred Bloggs G13, K19 One more shot ...`, `FIRE G13 K19`, lower case, odd spacing and
//! punctuation, press after the squares or on a `PRESS` line.

use engine::order_text::OrderText;
use engine::{LineIssue, ParsedOrders, PlayerId};
use serde::{Deserialize, Serialize};

use crate::board::{Grid, Square};
use crate::{Fate, SHOTS_PER_TURN, State};

/// One player's orders for a turn. No shots at all (press only) is still an answer, not an
/// NMR (BARMY-GM-08).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orders {
    pub shots: Vec<Shot>,
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

/// Words that may introduce the squares: `FIRE G13 K19`, `Shots: G13, K19`.
const FIRE_WORDS: [&str; 5] = ["fire", "fires", "shoot", "shots", "shot"];

pub(crate) fn help(grid: &Grid) -> String {
    format!(
        "Name two squares to fire at, letter (column) then number (row), {}: \
         `G13, K19` or `FIRE G13 K19`. Anything after the squares is press, as in \
         `Fred Bloggs G13, K19 One more shot and his rust bucket goes down!`. \
         A line starting PRESS is press. Two shots a turn; a shot at your own ship is a miss.",
        grid.describe()
    )
}

fn expected(grid: &Grid) -> String {
    format!("two squares such as `G13, K19` ({})", grid.describe())
}

/// What one order line turned out to be.
enum LineKind<'a> {
    Shots {
        squares: Vec<&'a str>,
        press: &'a str,
    },
    Position,
    Other,
}

pub(crate) fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let grid = state.setup.grid();
    let captain = state.captain(player);
    let own_name = captain.map(|c| c.name.as_str()).unwrap_or("");
    let mut parsed = ParsedOrders {
        orders: Orders::default(),
        understood: Vec::new(),
        press: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let issue = |line: usize, text: &str, problem: String, expected: String| LineIssue {
        line,
        text: text.to_owned(),
        problem,
        expected,
    };
    let cannot_fire = match captain.map(|c| c.fate) {
        None => Some("you have no ship in this game".to_owned()),
        Some(Fate::Sunk(turn)) => Some(format!(
            "your battleship was sunk in turn {turn}, so you can no longer fire (BARMY-11); press is still published"
        )),
        Some(Fate::Left(_)) => Some("you have left this game".to_owned()),
        Some(Fate::Afloat) => None,
    };
    // Press continues onto the following lines without squares until a blank line, as email
    // wraps it (the reader's continuation, see `engine::order_text`).
    let mut reader = OrderText::new(text);
    while let Some(line) = reader.next() {
        let Some(order) = line.order() else {
            continue; // blank lines and PRESS lines: the reader keeps the press
        };
        let (number, raw) = (order.number, order.raw);
        match classify(order.text, own_name) {
            LineKind::Shots { squares, press } => {
                if let Some(reason) = &cannot_fire {
                    parsed
                        .errors
                        .push(issue(number, raw, reason.clone(), "press only".into()));
                } else {
                    for written in squares {
                        let written = written.to_uppercase();
                        if parsed.orders.shots.len() >= SHOTS_PER_TURN {
                            parsed.errors.push(issue(
                                number,
                                raw,
                                format!("{written} would be a third shot; each player fires two shots a turn (BARMY-07)"),
                                expected(&grid),
                            ));
                            continue;
                        }
                        let shot = read_square(&grid, &written);
                        match shot.target {
                            Target::OffBoard => parsed.errors.push(issue(
                                number,
                                raw,
                                format!(
                                    "{written} is off the board; if not corrected it counts as a miss (BARMY-GM-01)"
                                ),
                                expected(&grid),
                            )),
                            Target::Square(square) => {
                                if parsed.orders.shots.iter().any(|s| s.target == shot.target) {
                                    parsed.warnings.push(issue(
                                        number,
                                        raw,
                                        format!("{written} twice: the second shot at it is always a miss (BARMY-GM-08)"),
                                        expected(&grid),
                                    ));
                                } else if captain.is_some_and(|c| c.ship.contains(&square)) {
                                    parsed.warnings.push(issue(
                                        number,
                                        raw,
                                        format!("{written} is on your own ship: it counts as a miss (BARMY-13)"),
                                        expected(&grid),
                                    ));
                                }
                                parsed.understood.push(format!("fire at {written}"));
                            }
                        }
                        parsed.orders.shots.push(shot);
                    }
                }
                reader.start_press(press);
            }
            LineKind::Position => {
                parsed.warnings.push(issue(
                    number,
                    raw,
                    "WHERE asks for your ship's position: it is answered privately and is not an order (BARMY-GM-13)"
                        .into(),
                    "POSITION on a line of its own in an email".into(),
                ));
            }
            // A line without squares continues an open press, or is refused.
            LineKind::Other => {
                if !reader.continue_press(&order) {
                    parsed.errors.push(issue(
                        number,
                        raw,
                        "this line has no squares to fire at".into(),
                        format!("{}, or a line starting PRESS", expected(&grid)),
                    ));
                }
            }
        }
    }
    parsed.press = reader.into_press();
    for press in &parsed.press {
        parsed.understood.push(format!("press: \"{press}\""));
    }
    parsed
}

fn read_square(grid: &Grid, written: &str) -> Shot {
    let compact: String = written
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    let target = match compact.parse::<Square>() {
        Ok(square) if grid.contains(square) => Target::Square(square),
        _ => Target::OffBoard,
    };
    Shot {
        written: compact,
        target,
    }
}

fn classify<'a>(line: &'a str, own_name: &str) -> LineKind<'a> {
    let mut rest = line;
    if strip_word(rest, "where").is_some_and(|after| trim_separators(after).is_empty()) {
        return LineKind::Position;
    }
    // The sample order line starts with the player's own name (BARMY-19).
    if let Some(after) = strip_phrase(rest, own_name) {
        rest = trim_separators(after);
    }
    for word in FIRE_WORDS {
        if let Some(after) = strip_word(rest, word) {
            rest = trim_separators(after);
            break;
        }
    }
    let mut squares = Vec::new();
    loop {
        let is_joiner = |c: char| c.is_whitespace() || matches!(c, ',' | ';' | '/' | '&' | '+');
        let mut trimmed = rest.trim_start_matches(is_joiner);
        if !squares.is_empty()
            && let Some(after) = strip_word(trimmed, "and")
        {
            trimmed = after.trim_start_matches(is_joiner);
        }
        match square_token(trimmed) {
            Some((token, after)) => {
                squares.push(token);
                rest = after;
            }
            None => break,
        }
    }
    if squares.is_empty() {
        return LineKind::Other;
    }
    LineKind::Shots {
        squares,
        press: press_text(rest),
    }
}

/// A square-like token at the start: one or two letters, an optional space or hyphen, one to
/// three digits, then a boundary. Two letters (`AA1`) or a row beyond the board still count as
/// squares here, so that they are reported as off the board rather than taken for press.
fn square_token(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let letters = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    if !(1..=2).contains(&letters) {
        return None;
    }
    let mut at = letters;
    let spaced = matches!(bytes.get(at), Some(b' ' | b'-')) && letters == 1;
    if spaced {
        at += 1;
    }
    let digits = bytes
        .get(at..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if !(1..=3).contains(&digits) {
        return None;
    }
    at += digits;
    let boundary_ok = match bytes.get(at) {
        None => true,
        Some(b) if spaced => b.is_ascii_whitespace() || *b == b',',
        Some(b) => {
            b.is_ascii_whitespace()
                || matches!(
                    b,
                    b',' | b';' | b'.' | b'!' | b'?' | b'/' | b'&' | b':' | b')'
                )
        }
    };
    // Every byte up to `at` is ASCII, so `at` is a char boundary.
    boundary_ok
        .then(|| (text.get(..at), text.get(at..)))
        .and_then(|(a, b)| Some((a?, b?)))
}

/// `word` at the start of `text`, case-insensitive, followed by a non-letter; what follows.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    let rest = text.get(word.len()..)?;
    (head.eq_ignore_ascii_case(word) && !rest.starts_with(|c: char| c.is_alphanumeric()))
        .then_some(rest)
}

/// A multi-word phrase at the start of `text`, case-insensitive, spaces collapsed.
fn strip_phrase<'a>(text: &'a str, phrase: &str) -> Option<&'a str> {
    let mut rest = text;
    let mut any = false;
    for word in phrase.split_whitespace() {
        let trimmed = rest.trim_start();
        let head = trimmed.get(..word.len())?;
        if !head.to_lowercase().eq(&word.to_lowercase()) {
            return None;
        }
        rest = trimmed.get(word.len()..)?;
        any = true;
    }
    (any && !rest.starts_with(|c: char| c.is_alphanumeric())).then_some(rest)
}

/// Press as written, without the separator that joined it to the squares.
fn press_text(text: &str) -> &str {
    let press = text
        .trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, ':' | '-' | '–' | '—' | ',' | ';')
        })
        .trim_end();
    // A full stop after the squares is punctuation, not press.
    if press.chars().any(char::is_alphanumeric) {
        press
    } else {
        ""
    }
}

fn trim_separators(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '-' | '–' | '—' | ',' | ';'))
}
