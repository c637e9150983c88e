//! Reading one order line's squares (BARMY-19, BARMY-ADM-05): the player's own name and a lead
//! word may come first; squares written with a space, a hyphen or number first are forgiven;
//! what follows the last square is press. Columns beyond Z (`AB`, BARMY-GM-14) are read in
//! every form a single letter is (BARMY-ADM-07).

use crate::board::{Grid, Square};

/// Words that may introduce the squares and say they are shots: `FIRE G13 K19`, `Shots: G13,
/// K19`. A line led by one of them is orders even where a press is open.
const ORDER_WORDS: [&str; 16] = [
    "fire",
    "fires",
    "firing",
    "shoot",
    "shoots",
    "shooting",
    "shots",
    "shot",
    "target",
    "targets",
    "targeting",
    "orders",
    "order",
    "squares",
    "aim",
    "aiming",
];

/// Other words a sentence may put before its squares (`I'm firing at J10`, `My shots: …`,
/// `This turn I will hit G13`) (BARMY-ADM-07). A line led only by these (and the filler
/// words below) where a press is open continues the press instead: `at J10 next turn, Bob`.
const LEAD_WORDS: &[&str] = &[
    "at",
    "my",
    "i'm",
    "i’m",
    "im",
    "i'll",
    "i’ll",
    "i",
    "am",
    "will",
    "we're",
    "we’re",
    "we'll",
    "we’ll",
    "we",
    "are",
    "now",
    "this",
    "turn",
    "time",
    "going",
    "to",
    "hit",
    "hitting",
    "try",
    "trying",
    "on",
    "for",
    "attack",
    "attacking",
    "let's",
    "let’s",
    "our",
];

/// Words that may stand between two squares without being worth a warning: `L10, then M10`.
const FILLER_WORDS: &[&str] = &[
    "and", "then", "also", "plus", "next", "or", "at", "fire", "shoot", "shot", "shots", "second",
    "first", "finally",
];

/// One item of a line's shots.
pub(super) enum Item<'a> {
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
pub(super) enum LineKind<'a> {
    /// A line starting with a square: every square on it is a shot, and the press is what
    /// follows the last one (BARMY-ADM-05).
    Shots {
        /// Led by words such as `at` or `I'm` but no order word (`FIRE`) nor the player's own
        /// name: where a press is open, such a line continues it (BARMY-ADM-07).
        prose_lead: bool,
        items: Vec<Item<'a>>,
        /// Squares in the press, after the line's two shots: published as written.
        mentioned: Vec<&'a str>,
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
    /// One to three digits then one or two letters: `10J`, read as `J10` (`27AB` as `AB27`
    /// where the board has that column).
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
    let letters_after = bytes.get(digits..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_alphabetic()).count()
    });
    if (1..=3).contains(&digits)
        && (1..=2).contains(&letters_after)
        && digits + letters_after == bytes.len()
    {
        return Shape::Reversed;
    }
    if word.chars().any(|c| c.is_ascii_digit()) {
        Shape::Garbled
    } else {
        Shape::Word
    }
}

/// A square written with a space or hyphen inside, `G 13`, `G-13` or `AB 27` (a column of the
/// board), at the start of `text`: the square as written and what follows. Only where a square
/// is expected (first on the line or after another square), as `a 10 foot pole` in press is no
/// square.
fn spaced_square<'a>(text: &'a str, grid: &Grid) -> Option<(&'a str, &'a str)> {
    let bytes = text.as_bytes();
    let letters = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    if !(1..=2).contains(&letters) || !matches!(bytes.get(letters), Some(b' ' | b'-')) {
        return None;
    }
    if letters == 2 && !on_board_column(text.get(..2)?, grid) {
        return None;
    }
    let digits = bytes
        .get(letters + 1..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if !(1..=3).contains(&digits) {
        return None;
    }
    let end = letters + 1 + digits;
    match bytes.get(end) {
        None => {}
        Some(b) if b.is_ascii_whitespace() || *b == b',' => {}
        _ => return None,
    }
    // Every byte up to `end` is ASCII, so `end` is a char boundary.
    Some((text.get(..end)?, text.get(end..)?))
}

/// Whether two letters name a column of this board: only then is `AB 27` or `27AB` a square,
/// so that `in 2 turns` or `10am` on a narrower board stay words.
fn on_board_column(letters: &str, grid: &Grid) -> bool {
    format!("{letters}1")
        .parse::<Square>()
        .is_ok_and(|square| grid.contains(square))
}

/// A square written number first with a space or hyphen, `10 J`, `10-J` or `27 AB` (a column
/// of the board), at the start of `text`: as written, and what follows.
fn spaced_reversed<'a>(text: &'a str, grid: &Grid) -> Option<(&'a str, &'a str)> {
    let bytes = text.as_bytes();
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if !(1..=3).contains(&digits) || !matches!(bytes.get(digits), Some(b' ' | b'-')) {
        return None;
    }
    let letters = bytes
        .get(digits + 1..)?
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    if !(1..=2).contains(&letters) {
        return None;
    }
    let column = text.get(digits + 1..digits + 1 + letters)?;
    if letters == 2 && !on_board_column(column, grid) {
        return None;
    }
    let end = digits + 1 + letters;
    // `10 J`, `10 J, K10`, `10 j,`: but not `2 a day`, where it is a word.
    match bytes.get(end) {
        None | Some(b',') => {}
        Some(b) if b.is_ascii_whitespace() && column.chars().all(|c| c.is_ascii_uppercase()) => {}
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
pub(super) fn classify<'a>(line: &'a str, own_name: &str, grid: &Grid) -> LineKind<'a> {
    if strip_word(line, "where").is_some_and(|after| trim_separators(after).is_empty()) {
        return LineKind::Position;
    }
    let (rest, lead) = lead_in(line, own_name);
    // The run of squares at the start: squares, joined by separators and filler words.
    let mut items: Vec<Item<'a>> = Vec::new();
    let mut end = rest; // what follows the last square read
    let mut at = rest;
    loop {
        let trimmed = at.trim_start_matches(is_separator);
        if trimmed.is_empty() {
            break;
        }
        match run_item(trimmed, items.len(), grid) {
            Some((Some(item), after)) => {
                items.push(item);
                (at, end) = (after, after);
            }
            Some((None, after)) => at = after,
            None => break,
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
    // After the run, a further square is a shot too, and the words before it are not press;
    // but once the line has its two shots, words then a square are press going on (`G13, K19
    // I'll be at AB5 next`), never cut short by the square (BARMY-ADM-07).
    let mut skipped: Vec<&'a str> = Vec::new();
    let mut press = end;
    let read = items
        .iter()
        .filter(|item| matches!(item, Item::Square { .. }))
        .count();
    for ((square, before, after), squares) in squares_in(end).zip(read..) {
        let words = before.trim_matches(is_separator);
        if !words.is_empty() && !is_filler(words) {
            if squares >= crate::SHOTS_PER_TURN {
                break;
            }
            skipped.push(words);
        }
        items.push(Item::Square {
            written: square.to_owned(),
            reversed_from: None,
            after_words: true,
        });
        press = after;
    }
    let press = press_text(press);
    LineKind::Shots {
        prose_lead: lead == Lead::Prose,
        items,
        mentioned: squares_in(press).map(|(square, _, _)| square).collect(),
        skipped,
        press,
    }
}

/// What came before a line's squares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lead {
    Nothing,
    /// Only words such as `at`, `I'm`, `then`.
    Prose,
    /// The player's own name or an order word (`FIRE`, `shots`).
    Orders,
}

/// The line after what may come before its squares: the sample order line starts with the
/// player's own name (BARMY-19), then lead and filler words (`FIRE`, `My shots:`, `I'm firing
/// at`); and what those were. A word of one or two letters before a number is a column
/// (`I 10`, `AT 5`), never a lead word.
fn lead_in<'a>(line: &'a str, own_name: &str) -> (&'a str, Lead) {
    let mut rest = line;
    let mut lead = Lead::Nothing;
    if let Some(after) = strip_phrase(rest, own_name) {
        rest = trim_separators(after);
        lead = Lead::Orders;
    }
    loop {
        let found = ORDER_WORDS
            .iter()
            .map(|w| (w, true))
            .chain(
                LEAD_WORDS
                    .iter()
                    .chain(FILLER_WORDS.iter())
                    .map(|w| (w, false)),
            )
            .find_map(|(w, order)| {
                let after = trim_separators(strip_word(rest, w)?);
                let column =
                    w.chars().count() <= 2 && after.starts_with(|c: char| c.is_ascii_digit());
                (!column).then_some((after, order))
            });
        let Some((after, order)) = found else {
            break;
        };
        rest = after;
        lead = match (lead, order) {
            (Lead::Orders, _) | (_, true) => Lead::Orders,
            _ => Lead::Prose,
        };
    }
    (rest, lead)
}

/// The next item of the run of squares at the start of a line (`trimmed`, after `read` items):
/// a square or a mangled one to take and what follows it, a filler word to pass over (no
/// item), or `None` where the run ends.
fn run_item<'a>(trimmed: &'a str, read: usize, grid: &Grid) -> Option<(Option<Item<'a>>, &'a str)> {
    if read < 2
        && let Some((written, after)) = spaced_reversed(trimmed, grid)
    {
        let letters =
            written.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ' || c == '-');
        let digits = written.trim_end_matches(|c: char| !c.is_ascii_digit());
        let item = Item::Square {
            written: format!("{letters}{digits}"),
            reversed_from: Some(written),
            after_words: false,
        };
        return Some((Some(item), after));
    }
    if let Some((written, after)) = spaced_square(trimmed, grid) {
        let item = Item::Square {
            written: written.to_owned(),
            reversed_from: None,
            after_words: false,
        };
        return Some((Some(item), after));
    }
    let (token, after) = word(trimmed);
    let digits = token.chars().take_while(char::is_ascii_digit).count();
    let item = match shape(token) {
        Shape::Square => Item::Square {
            written: token.to_owned(),
            reversed_from: None,
            after_words: false,
        },
        // Number first, as the first or second square of the line: a third is press (`G13,
        // K19 10k men cheer`), where such words are common. Two letters only for a column
        // of the board (`27AB` on a wide board; `10am` is no square on a narrow one).
        Shape::Reversed
            if read < 2
                && (token.len() == digits + 1
                    || on_board_column(token.get(digits..).unwrap_or(""), grid)) =>
        {
            let (digits, letters) = token.split_at(digits);
            Item::Square {
                written: format!("{letters}{digits}"),
                reversed_from: Some(token),
                after_words: false,
            }
        }
        // A mangled square first on the line is named, and the squares after it still fire.
        Shape::Garbled | Shape::Reversed if read == 0 => Item::Garbled(token),
        Shape::Word if read > 0 && FILLER_WORDS.iter().any(|f| token.eq_ignore_ascii_case(f)) => {
            return Some((None, after));
        }
        _ => return None,
    };
    Some((Some(item), after))
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
pub(super) fn squares_in(text: &str) -> impl Iterator<Item = (&str, &str, &str)> {
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
    // `I'm` is not `I` followed by `'m`.
    (head.eq_ignore_ascii_case(word)
        && !rest.starts_with(|c: char| c.is_alphanumeric() || c == '\'' || c == '’'))
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
    // `G13, K19 -- Ann`: a sign-off is not press (BARMY-ADM-07).
    let press = engine::order_text::without_signature(text.trim_end())
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
