//! Reading a player's orders as people write them (BARMY-07, BARMY-19): the text's sample
//! `Fred Bloggs G13, K19 One more shot ...`, `FIRE G13 K19`, lower case, odd spacing and
//! punctuation, press after the squares or on a `PRESS` line.

use engine::order_text::OrderText;
use engine::{LineIssue, ParsedOrders, PlayerId};
use serde::{Deserialize, Serialize};

use crate::board::{Grid, Square};
use crate::{Fate, SHOTS_PER_TURN, Setup, State};

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

/// Words that may introduce the squares: `FIRE G13 K19`, `Shots: G13, K19`, `My shots: ...`
/// (and the filler words below: `then K19` on a line of its own).
const LEAD_WORDS: [&str; 13] = [
    "fire", "fires", "firing", "shoot", "shots", "shot", "at", "target", "targets", "orders",
    "order", "my", "squares",
];

/// Words that may stand between two squares without being worth a warning: `L10, then M10`.
const FILLER_WORDS: [&str; 14] = [
    "and", "then", "also", "plus", "next", "or", "at", "fire", "shoot", "shot", "shots", "second",
    "first", "finally",
];

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

fn expected(grid: &Grid) -> String {
    format!("two squares such as `G13, K19` ({})", grid.describe())
}

/// Where a press may go, for the messages of refused lines.
const PRESS_HOW: &str =
    "press on a line starting PRESS, as in `PRESS: See you at the bottom, John!`";

/// One item of a line's shots.
enum Item<'a> {
    /// A square (or something shaped like one, to be told it is off the board).
    Square {
        written: String,
        /// `10J` read as `J10`: as the player wrote it.
        reversed_from: Option<&'a str>,
        /// Found after other words, where press could have been meant.
        after_words: bool,
    },
    /// Digits and letters that are no square: `10AB`, `J10X`.
    Garbled(&'a str),
}

/// What one order line turned out to be.
enum LineKind<'a> {
    /// A line starting with a square: every square on it is a shot, and the press is what
    /// follows the last one (BARMY-ADM-05).
    Shots {
        items: Vec<Item<'a>>,
        /// Words between squares that are neither squares nor filler: not read.
        skipped: Vec<&'a str>,
        press: &'a str,
    },
    Position,
    /// Words first, and squares after them: not fired, not press, an error naming them.
    Words {
        squares: Vec<&'a str>,
    },
    /// No square at all.
    Other,
}

pub(crate) fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let setup = &state.setup;
    let grid = setup.grid();
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
        if_it_stands: None,
    };
    let cannot_fire = match captain.map(|c| c.fate) {
        None => Some("you have no ship in this game".to_owned()),
        Some(Fate::Sunk(turn)) => Some(format!(
            "your battleship was sunk in turn {turn}, so you can no longer fire (BARMY-11); press is still published"
        )),
        Some(Fate::Left(_)) => Some("you have left this game".to_owned()),
        Some(Fate::Afloat) => None,
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
                engine::order_text::Line::Order(order) => Some((order.number, order.raw)),
                engine::order_text::Line::Press(press) => Some((press.number, press.raw)),
                engine::order_text::Line::Blank { .. } => None,
            };
        }
        let Some(order) = line.order() else {
            continue; // blank lines and PRESS lines: the reader keeps the press
        };
        let (number, raw) = (order.number, order.raw);
        match classify(order.text, own_name) {
            LineKind::Shots {
                items,
                skipped,
                press,
            } => {
                if let Some(reason) = &cannot_fire {
                    parsed
                        .errors
                        .push(issue(number, raw, reason.clone(), "press only".into()));
                    reader.start_press(press);
                    continue;
                }
                for item in items {
                    let (written, reversed_from, after_words) = match item {
                        Item::Garbled(token) => {
                            parsed.errors.push(issue(
                                number,
                                raw,
                                format!(
                                    "{token} is not a square: a square is a column letter then a row number (BARMY-03)"
                                ),
                                expected(&grid),
                            ));
                            continue;
                        }
                        Item::Square {
                            written,
                            reversed_from,
                            after_words,
                        } => (written, reversed_from, after_words),
                    };
                    if parsed.orders.shots.len() >= SHOTS_PER_TURN {
                        let also = if after_words {
                            " Every square on an order line is a shot (BARMY-ADM-05); to mention a square in press, write the press on a line starting PRESS."
                        } else {
                            ""
                        };
                        parsed.errors.push(issue(
                            number,
                            raw,
                            format!(
                                "{written} would be a third shot, and is not fired: each player fires two shots a turn (BARMY-07).{also}"
                            ),
                            expected(&grid),
                        ));
                        continue;
                    }
                    let shot = read_square(&grid, &written);
                    if let Some(reversed) = reversed_from {
                        parsed.warnings.push(issue(
                            number,
                            raw,
                            format!(
                                "{reversed} was read as {}: a square is written column letter first, then row number (BARMY-03)",
                                shot.written
                            ),
                            format!("{} instead of {reversed}", shot.written),
                        ));
                    }
                    match shot.target {
                        Target::OffBoard => parsed.errors.push(LineIssue {
                            if_it_stands: Some("if not corrected it counts as a miss".to_owned()),
                            ..issue(
                                number,
                                raw,
                                format!("{} is off the board (BARMY-GM-01)", shot.written),
                                expected(&grid),
                            )
                        }),
                        Target::Square(square) => {
                            if parsed.orders.shots.iter().any(|s| s.target == shot.target) {
                                parsed.warnings.push(issue(
                                    number,
                                    raw,
                                    format!("{} twice: the second shot at it is always a miss (BARMY-GM-08)", shot.written),
                                    expected(&grid),
                                ));
                            } else if captain.is_some_and(|c| c.ship.contains(&square)) {
                                parsed.warnings.push(issue(
                                    number,
                                    raw,
                                    format!(
                                        "{} is on your own ship: it counts as a miss (BARMY-13)",
                                        shot.written
                                    ),
                                    expected(&grid),
                                ));
                            }
                            parsed.understood.push(format!("fire at {}", shot.written));
                        }
                    }
                    parsed.orders.shots.push(shot);
                    shot_line = Some((number, raw));
                }
                if !skipped.is_empty() {
                    parsed.warnings.push(issue(
                        number,
                        raw,
                        format!(
                            "\"{}\" between your squares was not read, and is not press: press goes after the last square of a line (BARMY-19, BARMY-ADM-05)",
                            skipped.join(" … ")
                        ),
                        format!("{}, then press; or {PRESS_HOW}", expected(&grid)),
                    ));
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
            LineKind::Words { squares } => {
                // Never press: a square on an order line is a shot or an error (BARMY-ADM-05).
                let squares = squares
                    .iter()
                    .map(|s| s.to_uppercase())
                    .collect::<Vec<_>>()
                    .join(", ");
                let start = match state.name_at_start(order.text, player) {
                    Some(other) => format!(
                        "this line starts with {}, another player's name",
                        other.name
                    ),
                    None => "this line starts with words, not a square".to_owned(),
                };
                parsed.errors.push(issue(
                    number,
                    raw,
                    format!(
                        "{start}, so {squares} on it {} not fired and not printed as press (BARMY-ADM-05)",
                        if squares.contains(',') { "were" } else { "was" }
                    ),
                    format!(
                        "the squares first, such as `{squares}` then any press; or {PRESS_HOW}"
                    ),
                ));
            }
            // A line without squares continues an open press, or is refused.
            LineKind::Other => {
                if !reader.continue_press(&order) {
                    let (problem, how) = match state.name_at_start(order.text, player) {
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
                    parsed.errors.push(issue(
                        number,
                        raw,
                        problem,
                        format!("{}, or {how}", expected(&grid)),
                    ));
                }
            }
        }
    }
    parsed.press = reader.into_press();
    for press in &parsed.press {
        parsed.understood.push(format!("press: \"{press}\""));
    }
    parsed.orders.press = Some(!parsed.press.is_empty());
    if let (None, Some(captain)) = (&cannot_fire, captain) {
        let (number, raw) = shot_line.or(first_line).unwrap_or((1, ""));
        match parsed.orders.shots.len() {
            0 if !parsed.orders.answer_the_turn(setup) => {
                let first = captain.first_turn >= state.turn;
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
                    expected(&grid),
                ));
            }
            1 if setup.one_shot_allowed => parsed.warnings.push(issue(
                number,
                raw,
                "only one square: your second shot is not fired this turn (each player fires two, BARMY-07)".into(),
                expected(&grid),
            )),
            1 => parsed.errors.push(issue(
                number,
                raw,
                "only one square: in this game each order names two squares (BARMY-07); add a second"
                    .into(),
                expected(&grid),
            )),
            _ => {}
        }
    }
    parsed
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

/// A run of letters and digits at the start of `text` and what follows it.
fn word(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(text.len());
    (text.get(..end).unwrap_or(""), text.get(end..).unwrap_or(""))
}

/// What a word is, as far as squares go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One or two letters then one to three digits: `G13`, `AB7`.
    Square,
    /// One to three digits then one letter: `10J`, read as `J10`.
    Reversed,
    /// Digits mixed with letters some other way, or digits alone: `10AB`, `J10X`, `13`.
    Garbled,
    Word,
}

fn shape(word: &str) -> Shape {
    let bytes = word.as_bytes();
    let letters = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let digits_after = bytes.get(letters..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_digit()).count()
    });
    if (1..=2).contains(&letters)
        && (1..=3).contains(&digits_after)
        && letters + digits_after == bytes.len()
    {
        return Shape::Square;
    }
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if (1..=3).contains(&digits)
        && bytes.len() == digits + 1
        && bytes.last().is_some_and(u8::is_ascii_alphabetic)
    {
        return Shape::Reversed;
    }
    if word.chars().any(|c| c.is_ascii_digit()) {
        Shape::Garbled
    } else {
        Shape::Word
    }
}

/// A square written with a space or hyphen inside, `G 13` or `G-13`, at the start of `text`:
/// the square as written and what follows. Only where a square is expected (first on the line
/// or after another square), as `a 10 foot pole` in press is no square.
fn spaced_square(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() || !matches!(bytes.get(1), Some(b' ' | b'-')) {
        return None;
    }
    let digits = bytes
        .get(2..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if !(1..=3).contains(&digits) {
        return None;
    }
    let end = 2 + digits;
    match bytes.get(end) {
        None => {}
        Some(b) if b.is_ascii_whitespace() || *b == b',' => {}
        _ => return None,
    }
    // Every byte up to `end` is ASCII, so `end` is a char boundary.
    Some((text.get(..end)?, text.get(end..)?))
}

/// A square written number first with a space or hyphen, `10 J` or `10-J`, at the start of
/// `text`: as written, and what follows.
fn spaced_reversed(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if !(1..=3).contains(&digits) || !matches!(bytes.get(digits), Some(b' ' | b'-')) {
        return None;
    }
    let letter = *bytes.get(digits + 1)?;
    if !letter.is_ascii_alphabetic() {
        return None;
    }
    let end = digits + 2;
    // `10 J`, `10 J, K10`, `10 j,`: but not `2 a day`, where it is a word.
    match bytes.get(end) {
        None | Some(b',') => {}
        Some(b) if b.is_ascii_whitespace() && letter.is_ascii_uppercase() => {}
        _ => return None,
    }
    // Every byte up to `end` is ASCII, so `end` is a char boundary.
    Some((text.get(..end)?, text.get(end..)?))
}

fn is_separator(c: char) -> bool {
    !c.is_alphanumeric()
}

/// Reads one order line (BARMY-19, BARMY-ADM-05): the player's own name and a word such as
/// FIRE may come first; a line that then starts with a square is a line of shots, where every
/// square is a shot wherever it stands and the press is what follows the last square.
fn classify<'a>(line: &'a str, own_name: &str) -> LineKind<'a> {
    let mut rest = line;
    if strip_word(rest, "where").is_some_and(|after| trim_separators(after).is_empty()) {
        return LineKind::Position;
    }
    // The sample order line starts with the player's own name (BARMY-19).
    if let Some(after) = strip_phrase(rest, own_name) {
        rest = trim_separators(after);
    }
    while let Some(after) = LEAD_WORDS
        .iter()
        .chain(FILLER_WORDS.iter())
        .find_map(|w| strip_word(rest, w))
    {
        rest = trim_separators(after);
    }
    // The run of squares at the start: squares, joined by separators and filler words.
    let mut items: Vec<Item<'a>> = Vec::new();
    let mut skipped: Vec<&'a str> = Vec::new();
    let mut end = rest; // what follows the last square read
    let mut at = rest;
    loop {
        let trimmed = at.trim_start_matches(is_separator);
        if trimmed.is_empty() {
            break;
        }
        if items.len() < 2
            && let Some((written, after)) = spaced_reversed(trimmed)
        {
            let digits = written.trim_end_matches(|c: char| !c.is_ascii_digit());
            let letter = written.get(written.len().saturating_sub(1)..).unwrap_or("");
            items.push(Item::Square {
                written: format!("{letter}{digits}"),
                reversed_from: Some(written),
                after_words: false,
            });
            (at, end) = (after, after);
            continue;
        }
        if let Some((written, after)) = spaced_square(trimmed) {
            items.push(Item::Square {
                written: written.to_owned(),
                reversed_from: None,
                after_words: false,
            });
            (at, end) = (after, after);
            continue;
        }
        let (token, after) = word(trimmed);
        match shape(token) {
            Shape::Square => {
                items.push(Item::Square {
                    written: token.to_owned(),
                    reversed_from: None,
                    after_words: false,
                });
                (at, end) = (after, after);
            }
            // Number first, as the first or second square of the line: a third is press (`G13,
            // K19 10k men cheer`), where such words are common.
            Shape::Reversed if items.len() < 2 => {
                let (digits, letter) = token.split_at(token.len() - 1);
                items.push(Item::Square {
                    written: format!("{letter}{digits}"),
                    reversed_from: Some(token),
                    after_words: false,
                });
                (at, end) = (after, after);
            }
            // A mangled square first on the line is named, and the squares after it still fire.
            Shape::Garbled if items.is_empty() => {
                items.push(Item::Garbled(token));
                (at, end) = (after, after);
            }
            Shape::Word
                if !items.is_empty()
                    && FILLER_WORDS.iter().any(|f| token.eq_ignore_ascii_case(f)) =>
            {
                at = after;
            }
            _ => break,
        }
    }
    let squares_read = items.iter().any(|item| matches!(item, Item::Square { .. }));
    if !squares_read {
        let squares: Vec<&'a str> = squares_in(rest).map(|(square, _, _)| square).collect();
        if squares.is_empty() {
            // `2 turns to go` is no order, whatever its first word: it may continue a press.
            return LineKind::Other;
        }
        if items.is_empty() {
            // Words first: the squares further on are named in an error, never taken for press.
            return LineKind::Words { squares };
        }
        // A mangled square first (`10 AB, K10`): named in an error; the squares after it fire.
    }
    // After the run, every further square is a shot too; the words before it are not press.
    let mut press = end;
    for (square, before, after) in squares_in(end) {
        let words = before.trim_matches(is_separator);
        if !words.is_empty() && !is_filler(words) {
            skipped.push(words);
        }
        items.push(Item::Square {
            written: square.to_owned(),
            reversed_from: None,
            after_words: true,
        });
        press = after;
    }
    LineKind::Shots {
        items,
        skipped,
        press: press_text(press),
    }
}

/// Only filler words, as in `then`, `and then`.
fn is_filler(words: &str) -> bool {
    words
        .split(is_separator)
        .filter(|w| !w.is_empty())
        .all(|w| FILLER_WORDS.iter().any(|f| w.eq_ignore_ascii_case(f)))
}

/// Each square-shaped word of `text` (`G13`, `AB7`, not `10J` nor `G 13`), with the text since
/// the previous one and the text after it.
fn squares_in(text: &str) -> impl Iterator<Item = (&str, &str, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest;
        loop {
            let trimmed = rest.trim_start_matches(is_separator);
            if trimmed.is_empty() {
                rest = trimmed;
                return None;
            }
            let (token, after) = word(trimmed);
            rest = after;
            if shape(token) == Shape::Square {
                let before = start.get(..start.len() - trimmed.len()).unwrap_or("");
                return Some((token, before, after));
            }
        }
    })
}

/// `word` at the start of `text`, case-insensitive, followed by a non-letter; what follows.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    let rest = text.get(word.len()..)?;
    (head.eq_ignore_ascii_case(word) && !rest.starts_with(|c: char| c.is_alphanumeric()))
        .then_some(rest)
}

/// A multi-word phrase at the start of `text`, case-insensitive, spaces collapsed.
pub(crate) fn strip_phrase<'a>(text: &'a str, phrase: &str) -> Option<&'a str> {
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
