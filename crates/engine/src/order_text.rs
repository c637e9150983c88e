//! The lines of an order text as players write them in an email, read the same way for every
//! engine: which lines are orders, which are press, and where the orders end. Each engine then
//! reads only its own orders, one [`OrderLine`] at a time.
//!
//! What the reader does, line by line (lines as [`str::lines`] splits them, numbered from 1):
//!
//! 1. **A signature ends the orders.** A line that is `--` once trimmed, or starts with `-- `
//!    (the email signature separator, or a sign-off such as `-- Alice`), and everything after
//!    it, is not read.
//! 2. **A blank line** (empty or only whitespace) is [`Line::Blank`]: it ends a press, and
//!    whatever an engine reads over several lines (a `forever` ship design).
//! 3. **List markers are dropped**: a run of `-`, `*` or `•` (a space after it or not), then a
//!    number of one to three digits followed by `.` or `)` and a space: `- `, `*`, `1. `,
//!    `2) `, `- 3. `. A number not followed by `.`/`)` and a space (`12 inches`, `1.5`) stays.
//!    No engine's orders start with one of those characters, so a bullet is never an order.
//! 4. **Quoted and comment lines are skipped**, as if they were not there (they end nothing):
//!    what is left starts with `>` (quoted from an earlier mail), `#` or `//` (a comment). A line
//!    that was only a list marker is skipped too.
//! 5. **Press**: a line whose first word is `PRESS`, `MESSAGE` or `NEWS` (any case; the word
//!    ends at a character that is not a letter or digit: `PRESS: text`, `press - text`, `News,
//!    text`, but not `pressure`) is [`Line::Press`]. Its text is what follows the keyword and
//!    any `:`, `-`, `–`, `—`, `,` or `;`, on one line ([`crate::report::one_line`]).
//! 6. **Every other line is an order** ([`Line::Order`]), with its list marker dropped. Greetings
//!    and sign-offs ("Dear GM", "Thanks") are not guessed at: they are orders the engine refuses
//!    with an example, so the player sees that the line was not read.
//!
//! **Press continuation.** A press (a PRESS line, or press an engine found after an order on
//! the same line, see [`OrderText::start_press`]) continues onto each following line that the
//! engine does not read as an order ([`OrderText::continue_press`]), until a blank line, a
//! signature or a line the engine does read as an order. Quoted and comment lines in between
//! are skipped and do not end it. `salvo`, `ironclad`, `skyfleet` and `forever` read every
//! line as an order (their orders have no free text), so in them a PRESS is one line; `barmy`
//! reads only lines with squares (BARMY-19), so press wrapped by a mail program continues there.
//! A PRESS line with nothing after the keyword opens a press for the lines below it.
//!
//! The reader never panics and never indexes: it only slices at boundaries it has found.

use std::iter::Enumerate;
use std::str::Lines;

use crate::report::one_line;

/// The words that start a press line.
pub const PRESS_WORDS: [&str; 3] = ["press", "message", "news"];

/// Characters that make a list's bullet.
const BULLETS: [char; 3] = ['-', '*', '•'];

/// Characters between the PRESS keyword (or an order) and the press itself.
const PRESS_SEPARATORS: [char; 6] = [':', '-', '–', '—', ',', ';'];

/// One line of an order text worth an engine's attention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line to read as orders.
    Order(OrderLine<'a>),
    /// A PRESS line: a message for the report.
    Press(PressLine<'a>),
    /// An empty line.
    Blank {
        /// 1-based number of the line in the text.
        number: usize,
    },
}

impl<'a> Line<'a> {
    /// 1-based number of the line in the text.
    pub fn number(&self) -> usize {
        match self {
            Line::Order(order) => order.number,
            Line::Press(press) => press.number,
            Line::Blank { number } => *number,
        }
    }

    /// The order on this line, if it is one.
    pub fn order(&self) -> Option<OrderLine<'a>> {
        match self {
            Line::Order(order) => Some(*order),
            Line::Press(_) | Line::Blank { .. } => None,
        }
    }
}

/// A line to read as orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderLine<'a> {
    /// 1-based number of the line in the text.
    pub number: usize,
    /// The line as written, without its line ending: what a [`crate::LineIssue`] quotes.
    pub raw: &'a str,
    /// The order: trimmed, list marker dropped. Never empty.
    pub text: &'a str,
}

/// A PRESS line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PressLine<'a> {
    /// 1-based number of the line in the text.
    pub number: usize,
    /// The line as written, without its line ending.
    pub raw: &'a str,
    /// The press written on this line, on one line; empty for a bare `PRESS`. The whole press,
    /// with the lines that continue it, is in [`OrderText::into_press`].
    pub text: String,
}

/// Where the press being written stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// No press is open.
    No,
    /// A press was opened with no text yet: the next continuation starts a piece.
    Empty,
    /// The last piece collected is open.
    Writing,
}

/// The reader: an iterator over the [`Line`]s of one order text, collecting the press.
#[derive(Debug, Clone)]
pub struct OrderText<'a> {
    lines: Enumerate<Lines<'a>>,
    /// The line the signature started on, once met.
    signature: Option<usize>,
    press: Vec<String>,
    open: Open,
    /// The last order line yielded while a press was open: the engine may give it to the
    /// press with [`OrderText::continue_press`] before asking for the next line.
    claimable: Option<(usize, Open)>,
}

impl<'a> OrderText<'a> {
    /// A reader of `text`, at its first line.
    pub fn new(text: &'a str) -> Self {
        Self {
            lines: text.lines().enumerate(),
            signature: None,
            press: Vec::new(),
            open: Open::No,
            claimable: None,
        }
    }

    /// The line a signature started on, once the reader has met one: nothing from it on is read.
    pub fn signature(&self) -> Option<usize> {
        self.signature
    }

    /// The press collected so far, one entry per press, continuation lines joined with a space.
    pub fn press(&self) -> &[String] {
        &self.press
    }

    /// The press collected, one entry per press (empty presses are dropped).
    pub fn into_press(self) -> Vec<String> {
        self.press
    }

    /// Gives `line`, the order line just read, to the open press: for a line the engine does
    /// not read as an order. The line is added as written (trimmed, list marker kept). Returns
    /// false, and does nothing, when no press is open or `line` is not the line just read.
    pub fn continue_press(&mut self, line: &OrderLine<'_>) -> bool {
        let Some((number, open)) = self.claimable else {
            return false;
        };
        if number != line.number {
            return false;
        }
        self.claimable = None;
        let text = one_line(line.raw);
        match (open, self.press.last_mut()) {
            (Open::Writing, Some(last)) => {
                if !text.is_empty() {
                    last.push(' ');
                    last.push_str(&text);
                }
            }
            _ => {
                if text.is_empty() {
                    self.open = Open::Empty;
                    return true;
                }
                self.press.push(text);
            }
        }
        self.open = Open::Writing;
        true
    }

    /// Starts a press written after an order on the line just read (Barmy's `G13, K19 One more
    /// shot!`, BARMY-19); it may continue onto the following lines. Leading separators (`:`,
    /// `-`, `,` …) are dropped; nothing is started when no text is left.
    pub fn start_press(&mut self, text: &str) {
        self.claimable = None;
        self.open = Open::No;
        let text = one_line(text.trim_start_matches(is_press_separator));
        if !text.is_empty() {
            self.press.push(text);
            self.open = Open::Writing;
        }
    }

    fn close_press(&mut self) {
        self.open = Open::No;
        self.claimable = None;
    }
}

impl<'a> Iterator for OrderText<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        // An order line not given to the press ends it.
        self.claimable = None;
        if self.signature.is_some() {
            return None;
        }
        loop {
            let (index, raw) = self.lines.next()?;
            let number = index + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() {
                self.close_press();
                return Some(Line::Blank { number });
            }
            if is_signature(trimmed) {
                self.close_press();
                self.signature = Some(number);
                return None;
            }
            let text = strip_list_marker(trimmed);
            if text.is_empty() || is_skipped(text) {
                continue;
            }
            if let Some(press) = press_text(text) {
                self.close_press();
                if press.is_empty() {
                    self.open = Open::Empty;
                } else {
                    self.press.push(press.clone());
                    self.open = Open::Writing;
                }
                return Some(Line::Press(PressLine {
                    number,
                    raw,
                    text: press,
                }));
            }
            if self.open != Open::No {
                self.claimable = Some((number, self.open));
                self.open = Open::No;
            }
            return Some(Line::Order(OrderLine { number, raw, text }));
        }
    }
}

/// Is this trimmed line a signature separator: `--`, or `-- ` and a name?
pub fn is_signature(trimmed: &str) -> bool {
    trimmed
        .strip_prefix("--")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// Is this line (trimmed, list marker dropped) quoted from an earlier mail or a comment?
fn is_skipped(text: &str) -> bool {
    text.starts_with('>') || text.starts_with('#') || text.starts_with("//")
}

fn is_press_separator(c: char) -> bool {
    c.is_whitespace() || PRESS_SEPARATORS.contains(&c)
}

/// The line without its list marker: `- `, `* `, `• `, `1. `, `2) `, `- 3. ` (see the module
/// documentation). A trimmed line gives a trimmed result.
pub fn strip_list_marker(line: &str) -> &str {
    let line = line.trim_start_matches(BULLETS).trim_start();
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        // Digits are ASCII: `digits` is a char boundary.
        let rest = line.get(digits..).unwrap_or("");
        if let Some(after) = rest.strip_prefix(['.', ')'])
            && (after.is_empty() || after.starts_with(char::is_whitespace))
        {
            return after.trim_start();
        }
    }
    line
}

/// The press on a line that starts with `PRESS`, `MESSAGE` or `NEWS` (see the module
/// documentation), on one line; `None` for any other line. `line` has no list marker.
pub fn press_text(line: &str) -> Option<String> {
    let word_end = line
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(line.len());
    let word = line.get(..word_end)?;
    if !PRESS_WORDS.iter().any(|k| word.eq_ignore_ascii_case(k)) {
        return None;
    }
    let rest = line.get(word_end..)?;
    if rest.starts_with(char::is_alphanumeric) {
        return None; // "press2", "pressé": a longer word
    }
    Some(one_line(rest.trim_start_matches(is_press_separator)))
}

/// `text` without a sign-off at its end: `FIRE J10 -- Ann` is `FIRE J10`, and `G13 Good luck!
/// — Fred` is `G13 Good luck!` (issue 28). A sign-off is `--` or `—` after a space (or at the
/// start), then one to three capitalised words and nothing else, as a signature line is
/// (rule 1 above); `-- take that!` is not one.
pub fn without_signature(text: &str) -> &str {
    let Some((at, marker)) = ["--", "—"]
        .iter()
        .filter_map(|m| text.rfind(m).map(|at| (at, *m)))
        .max_by_key(|(at, _)| *at)
    else {
        return text;
    };
    let before = text.get(..at).unwrap_or("");
    let after = text.get(at + marker.len()..).unwrap_or("");
    let words: Vec<&str> = after
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', '.', '!']))
        .collect();
    let name = (1..=3).contains(&words.len())
        && words.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\'' | '’'))
        });
    if name && (before.is_empty() || before.ends_with(char::is_whitespace)) {
        before.trim_end()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::indexing_slicing,
        clippy::panic,
        reason = "test code: a failure should stop the test loudly"
    )]

    use proptest::prelude::*;

    use super::*;

    /// Each line as `number:kind:text`, for compact assertions.
    fn read(text: &str) -> Vec<String> {
        OrderText::new(text)
            .map(|line| match line {
                Line::Order(o) => format!("{}:order:{}", o.number, o.text),
                Line::Press(p) => format!("{}:press:{}", p.number, p.text),
                Line::Blank { number } => format!("{number}:blank"),
            })
            .collect()
    }

    #[test]
    fn orders_keep_their_line_numbers() {
        assert_eq!(
            read("FIRE B7\n\n  NUKE D4  \r\nPASS"),
            [
                "1:order:FIRE B7",
                "2:blank",
                "3:order:NUKE D4",
                "4:order:PASS"
            ]
        );
    }

    #[test]
    fn list_markers_are_dropped() {
        for (line, text) in [
            ("- fire", "fire"),
            ("* fire", "fire"),
            ("• fire", "fire"),
            ("-- fire", "fire"), // the reader takes this line for a signature first
            ("--fire", "fire"),
            ("-move f3", "move f3"),
            ("1. ACTIVATE x", "ACTIVATE x"),
            ("12) move", "move"),
            ("- 3. move", "move"),
            ("123. a", "a"),
            ("1234. a", "1234. a"),
            ("12 inches", "12 inches"),
            ("1.5 inches", "1.5 inches"),
            ("*bold*", "bold*"),
            ("1.", ""),
            ("---", ""),
            ("fire", "fire"),
        ] {
            assert_eq!(strip_list_marker(line), text, "{line:?}");
        }
    }

    #[test]
    fn a_signature_stops_reading() {
        for separator in ["--", "-- ", "  --  ", "-- Alice", "--\tAlice"] {
            let text = format!("FIRE B7\n{separator}\nFIRE C3");
            let mut reader = OrderText::new(&text);
            assert_eq!(
                reader.by_ref().map(|l| l.number()).collect::<Vec<_>>(),
                [1],
                "{separator:?}"
            );
            assert_eq!(reader.signature(), Some(2));
        }
        // Not signatures: a rule of dashes, a dash bullet, a quoted separator.
        assert_eq!(
            read("---\n- fire\n> --\n--x"),
            ["2:order:fire", "4:order:x"]
        );
    }

    #[test]
    fn quoted_and_comment_lines_are_skipped() {
        assert_eq!(
            read("> FIRE A1\n# note\n// note\n- # note\n>> FIRE A2\nFIRE B7 # not a comment"),
            ["6:order:FIRE B7 # not a comment"]
        );
    }

    #[test]
    fn press_keywords_and_separators() {
        for (line, press) in [
            (
                "PRESS You sank my battleship!",
                Some("You sank my battleship!"),
            ),
            ("press: Hello", Some("Hello")),
            ("Press - hello", Some("hello")),
            ("PRESS:: hi", Some("hi")),
            ("press-hi", Some("hi")),
            ("MESSAGE to all: hi", Some("to all: hi")),
            ("News, at ten", Some("at ten")),
            (
                "PRESS   two   spaces\tand a tab",
                Some("two spaces and a tab"),
            ),
            ("PRESS", Some("")),
            ("PRESS:", Some("")),
            ("pressure", None),
            ("press2 x", None),
            ("pressé", None),
            ("newsletter", None),
            ("FIRE B7 press", None),
        ] {
            assert_eq!(press_text(line).as_deref(), press, "{line:?}");
        }
        let mut reader = OrderText::new("1. PRESS: Hi\nFIRE B7\n- news: ho");
        let lines: Vec<_> = reader.by_ref().collect();
        assert!(matches!(&lines[0], Line::Press(p) if p.text == "Hi" && p.raw == "1. PRESS: Hi"));
        assert!(matches!(&lines[1], Line::Order(o) if o.text == "FIRE B7"));
        assert_eq!(reader.into_press(), ["Hi", "ho"]);
    }

    #[test]
    fn a_press_is_one_line_unless_the_engine_continues_it() {
        // The engine reads the line after a PRESS as an order: the press ends.
        let mut reader = OrderText::new("PRESS: Rule, Britannia!\nArtemis WITHDRAW left");
        while reader.next().is_some() {}
        assert_eq!(reader.into_press(), ["Rule, Britannia!"]);
        // The engine gives the lines to the press until a blank line.
        let mut reader =
            OrderText::new("PRESS: Hello zine.\nSee you   all.\n> quoted\n- soon\n\nlater");
        let mut orders = Vec::new();
        while let Some(line) = reader.next() {
            if let Line::Order(order) = line
                && !reader.continue_press(&order)
            {
                orders.push(order.text);
            }
        }
        assert_eq!(orders, ["later"]);
        assert_eq!(reader.into_press(), ["Hello zine. See you all. - soon"]);
    }

    #[test]
    fn a_bare_press_opens_one_for_the_lines_below() {
        let mut reader = OrderText::new("PRESS:\nHello\nall\n\nPRESS\n\nnothing");
        while let Some(line) = reader.next() {
            if let Line::Order(order) = line {
                reader.continue_press(&order);
            }
        }
        assert_eq!(reader.into_press(), ["Hello all"]);
    }

    #[test]
    fn press_after_an_order_may_continue() {
        let mut reader =
            OrderText::new("G13, K19 One more shot and\nhis rust bucket goes down!\nG1\nmore");
        let mut kept = Vec::new();
        while let Some(line) = reader.next() {
            let Line::Order(order) = line else { continue };
            if let Some(press) = order.text.strip_prefix("G13, K19") {
                reader.start_press(press);
            } else if order.text == "G1" {
                reader.start_press("");
            } else if !reader.continue_press(&order) {
                kept.push(order.number);
            }
        }
        assert_eq!(kept, [4]);
        assert_eq!(
            reader.into_press(),
            ["One more shot and his rust bucket goes down!"]
        );
    }

    #[test]
    fn only_the_line_just_read_may_continue_a_press() {
        let mut reader = OrderText::new("PRESS hi\nfirst\nsecond");
        let first = match reader.nth(1) {
            Some(Line::Order(order)) => order,
            other => panic!("{other:?}"),
        };
        let _ = reader.next();
        assert!(!reader.continue_press(&first));
        assert_eq!(reader.press(), ["hi"]);
    }

    fn line_strategy() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just("   ".to_string()),
            Just("--".to_string()),
            Just("-- ".to_string()),
            Just("-- Alice".to_string()),
            Just("---".to_string()),
            Just("> quoted".to_string()),
            Just("# comment".to_string()),
            Just("PRESS hello".to_string()),
            Just("press:".to_string()),
            Just("1. FIRE B7".to_string()),
            Just("- • * 12) x".to_string()),
            "\\PC{0,30}",
            "[-*•0-9.) >#/a-zA-Z:\t]{0,12}",
        ]
    }

    proptest! {
        #[test]
        fn never_panics_and_numbers_refer_to_the_text(
            lines in prop::collection::vec(line_strategy(), 0..12),
            crlf in any::<bool>(),
            claim in prop::collection::vec(any::<bool>(), 12),
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            let originals: Vec<&str> = text.lines().collect();
            let mut reader = OrderText::new(&text);
            let mut last = 0;
            while let Some(line) = reader.next() {
                let number = line.number();
                prop_assert!(number > last, "numbers increase");
                last = number;
                let original = originals.get(number - 1).copied();
                prop_assert!(original.is_some());
                let original = original.unwrap_or_default();
                match line {
                    Line::Order(order) => {
                        prop_assert_eq!(order.raw, original);
                        prop_assert!(!order.text.is_empty());
                        prop_assert!(original.contains(order.text));
                        prop_assert_eq!(order.text, order.text.trim());
                        if claim.get(number % 12).copied().unwrap_or(false) {
                            reader.continue_press(&order);
                        }
                    }
                    Line::Press(press) => prop_assert_eq!(press.raw, original),
                    Line::Blank { .. } => prop_assert!(original.trim().is_empty()),
                }
            }
            // The first signature line ends the reading: nothing at or after it was read.
            let first_signature = originals.iter().position(|l| is_signature(l.trim())).map(|i| i + 1);
            prop_assert_eq!(reader.signature(), first_signature);
            if let Some(signature) = first_signature {
                prop_assert!(last < signature);
            }
            for press in reader.into_press() {
                prop_assert!(!press.is_empty());
                prop_assert_eq!(press.trim(), press.as_str());
                prop_assert!(!press.contains("  "));
                prop_assert!(!press.chars().any(char::is_control));
            }
        }
    }

    #[test]
    fn a_sign_off_at_the_end_of_a_line_is_dropped() {
        assert_eq!(without_signature("FIRE J10 -- Ann"), "FIRE J10");
        assert_eq!(
            without_signature("G13 Good luck! — Fred Bloggs"),
            "G13 Good luck!"
        );
        assert_eq!(without_signature("-- Ann"), "");
        for kept in [
            "G13 -- take that!",
            "B2--B4",
            "FIRE J10 -- 3 more",
            "MOVE F 2 -- Ann fast",
        ] {
            assert_eq!(without_signature(kept), kept);
        }
    }
}
