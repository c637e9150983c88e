//! What is not orders: closings, sign-offs, names, chat and mail commands written among a
//! player's orders, recognised the same way for every engine, so that they are set aside
//! (and said to be) rather than refused as bad orders or, worse, taken for a set of orders.
//!
//! Only a line the engine refused is ever set aside: a line an engine reads as an order is an
//! order, whatever it looks like. Of the refused lines, one is set aside when it is
//!
//! - a **closing**: `Cheers,`, `Regards, Agnes`, `Thanks!`, `Best wishes`, `Yours, Dmitri`;
//! - a **greeting**: `Hi all`, `Dear GM, here are my orders.`, `Hello Cora`;
//! - **after a closing**: whatever follows a closing (the name under it);
//! - a **name**: one or two capitalised words (`Dmitri`, `Agnes Fell`; not `HOLD`, in
//!   capitals) after the last line read as an order, as a name under a message stands;
//! - **chat**: a sentence with no digit in it, of three words or more ending in `.`, `!` or
//!   `?`, or starting with a word that begins chat (`Sorry all, work has swallowed me.`,
//!   `Agreed, Cora. Deal.`);
//! - a **mail command** (`JOIN spring salvo`, `TELL Cora: deal`, `RESIGN`): commands are
//!   read by mail, never by an engine, and one written where orders go is not an order.
//!
//! [`set_aside`] is what each engine's `parse_orders` calls last; [`crate::ParsedOrders::chat`]
//! then holds the lines set aside, with why.

use std::collections::BTreeSet;

use crate::order_text::{Line, OrderText};
use crate::{LineIssue, ParsedOrders};

/// Words that close a message, alone or before a name (compared without case or the
/// punctuation after them).
const CLOSINGS: &[&str] = &[
    "cheers",
    "cheers all",
    "regards",
    "kind regards",
    "best regards",
    "warm regards",
    "best",
    "best wishes",
    "all the best",
    "thanks",
    "thanks all",
    "thanks again",
    "thank you",
    "many thanks",
    "thx",
    "ta",
    "yours",
    "yours truly",
    "yours sincerely",
    "yours faithfully",
    "sincerely",
    "love",
    "bye",
    "see you",
    "see you all",
    "good luck",
    "good hunting",
    "fair winds",
    "take care",
    "later",
    "br",
    "greetings",
    "ciao",
    "mvh",
    "med vänlig hälsning",
    "vänliga hälsningar",
    "viele grüße",
    "liebe grüße",
    "grüße",
    "gruß",
    "lg",
    "mfg",
    "cordialement",
    "amitiés",
    "bien à vous",
    "saludos",
    "un saludo",
    "groeten",
    "pozdrawiam",
];

/// Words that open a greeting.
const GREETINGS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "dear",
    "greetings",
    "morning",
    "evening",
    "hallo",
    "bonjour",
    "salut",
    "hej",
    "hola",
    "ciao",
    "moin",
    "servus",
];

/// Words that start chat rather than an order.
const CHAT_STARTS: &[&str] = &[
    "sorry",
    "thanks",
    "thank",
    "agreed",
    "agree",
    "deal",
    "ok",
    "okay",
    "yes",
    "lol",
    "haha",
    "apologies",
    "hope",
    "i'm",
    "oops",
    "great",
    "nice",
    "congrats",
    "congratulations",
];

/// The commands of mail (`mail::commands`), which an engine never reads.
const COMMANDS: &[&str] = &[
    "join",
    "signon",
    "game",
    "tell",
    "status",
    "resign",
    "standby",
    "accept",
    "decline",
    "unsubscribe",
    "help",
    "password",
    "letter",
    "receive",
    "absent",
    "present",
    "list",
];

/// Why a line was set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aside {
    Closing,
    Greeting,
    Name,
    Chat,
    Command,
}

impl Aside {
    /// How the confirmation and the web page say it.
    pub fn words(self) -> &'static str {
        match self {
            Aside::Closing => "a closing, not an order",
            Aside::Greeting => "a greeting, not an order",
            Aside::Name => "a name under the message, not an order",
            Aside::Chat => "chat, not an order",
            Aside::Command => {
                "a mail command, not an order for this game: send commands by mail, each on its own line"
            }
        }
    }
}

/// The words of a line, lower case, without the punctuation around them.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `Cheers,`, `Regards, Agnes`, `Best wishes!`: a closing, maybe with a name of up to three
/// words after it.
fn is_closing(text: &str) -> bool {
    let words = words(text);
    (1..=3.min(words.len())).any(|n| {
        let head = words.get(..n).unwrap_or(&[]).join(" ");
        let rest = words.len() - n;
        CLOSINGS.contains(&head.as_str()) && rest <= 3 && no_digits(text)
    })
}

fn is_greeting(text: &str) -> bool {
    let words = words(text);
    let good_time = words.first().is_some_and(|w| w == "good")
        && words
            .get(1)
            .is_some_and(|w| ["morning", "afternoon", "evening", "day"].contains(&w.as_str()));
    no_digits(text)
        && (good_time
            || words
                .first()
                .is_some_and(|w| GREETINGS.contains(&w.as_str())))
}

fn no_digits(text: &str) -> bool {
    !text.chars().any(|c| c.is_ascii_digit())
}

/// One or two capitalised words, and nothing else but punctuation after them.
fn is_name(text: &str) -> bool {
    let raw: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', '.', '!']))
        .filter(|w| !w.is_empty())
        .collect();
    (1..=2).contains(&raw.len())
        && raw.iter().all(|w| {
            // Capitalised, not in capitals: `HOLD` is an order word, `Dmitri` a name.
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().any(char::is_lowercase)
                && w.chars()
                    .all(|c| c.is_alphabetic() || c == '-' || c == '\'' || c == '.')
        })
}

fn is_chat(text: &str) -> bool {
    let words = words(text);
    if words.is_empty() || !no_digits(text) {
        return false;
    }
    let sentence = text.trim_end().ends_with(['.', '!', '?', '…', ')']);
    let starts_chat = words
        .first()
        .is_some_and(|w| CHAT_STARTS.contains(&w.as_str()));
    (sentence && words.len() >= 3) || (starts_chat && words.len() >= 2)
}

fn is_command(text: &str) -> bool {
    let words = words(text);
    let first = words.first().map(String::as_str).unwrap_or("");
    let sign_on = first == "sign" && words.get(1).is_some_and(|w| w == "on");
    (sign_on || COMMANDS.contains(&first)) && no_digits(text)
}

/// Sets aside the refused lines of `parsed` (read from `text`) that are not orders: each
/// leaves [`ParsedOrders::errors`] for [`ParsedOrders::chat`], its problem saying why. Lines
/// read as orders are never touched. Call it once, on the finished reading.
pub fn set_aside<O>(text: &str, parsed: &mut ParsedOrders<O>) {
    crate::corrections::quote_safely(text, parsed);
    let refused: BTreeSet<usize> = parsed.errors.iter().map(|e| e.line).collect();
    let order_lines: Vec<(usize, &str)> = OrderText::new(text)
        .filter_map(|line| match line {
            Line::Order(order) => Some((order.number, order.text)),
            Line::Press(_) | Line::Blank { .. } => None,
        })
        .collect();
    let read: Vec<usize> = order_lines
        .iter()
        .map(|(number, _)| *number)
        .filter(|number| !refused.contains(number))
        .collect();
    parsed.orders_read = read.len();
    let last_order = read.iter().copied().max().unwrap_or(0);
    let mut closed = false;
    let mut asides: Vec<(usize, Aside)> = Vec::new();
    for &(number, line) in &order_lines {
        if !refused.contains(&number) {
            continue;
        }
        let aside = if is_closing(line) {
            Some(Aside::Closing)
        } else if closed && number > last_order {
            Some(Aside::Name)
        } else if is_greeting(line) {
            Some(Aside::Greeting)
        } else if is_command(line) {
            Some(Aside::Command)
        } else if number > last_order && is_name(line) {
            Some(Aside::Name)
        } else if is_chat(line) {
            Some(Aside::Chat)
        } else {
            None
        };
        if let Some(aside) = aside {
            closed |= aside == Aside::Closing;
            asides.push((number, aside));
        }
    }
    if asides.is_empty() {
        return;
    }
    let (chat, errors): (Vec<LineIssue>, Vec<LineIssue>) = std::mem::take(&mut parsed.errors)
        .into_iter()
        .partition(|e| asides.iter().any(|(n, _)| *n == e.line));
    parsed.errors = errors;
    // A warning about the whole set sits on its first line (Barmy's "these orders fire no
    // shot"): never on a line set aside, which would quote a greeting back as if it were the
    // set. It moves to the first line that is not (an order or a press line), if there is one.
    let set_aside_lines: BTreeSet<usize> = asides.iter().map(|(n, _)| *n).collect();
    let kept_line = OrderText::new(text).find_map(|line| match line {
        Line::Order(order) if !set_aside_lines.contains(&order.number) => {
            Some((order.number, order.raw))
        }
        Line::Press(press) => Some((press.number, press.raw)),
        Line::Order(_) | Line::Blank { .. } => None,
    });
    if let Some((number, raw)) = kept_line {
        for warning in &mut parsed.warnings {
            if set_aside_lines.contains(&warning.line) {
                warning.line = number;
                raw.clone_into(&mut warning.text);
            }
        }
    }
    // One entry a line, however many problems the engine found on it.
    for (number, aside) in asides {
        if let Some(first) = chat.iter().find(|e| e.line == number) {
            parsed.chat.push(LineIssue {
                line: number,
                text: first.text.clone(),
                problem: aside.words().to_owned(),
                expected: "nothing: it is not read".to_owned(),
                if_it_stands: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]

    use super::*;

    /// A reading that refused every line but those starting `FIRE`.
    fn refuse_all_but_fire(text: &str) -> ParsedOrders<()> {
        let mut parsed = ParsedOrders {
            orders: (),
            understood: Vec::new(),
            press: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            chat: Vec::new(),
            orders_read: 0,
        };
        for line in OrderText::new(text) {
            if let Line::Order(order) = line {
                if order.text.starts_with("FIRE") {
                    parsed.understood.push(order.text.to_owned());
                } else {
                    parsed.errors.push(LineIssue {
                        line: order.number,
                        text: order.raw.to_owned(),
                        problem: "not an order".into(),
                        expected: "FIRE B7".into(),
                        if_it_stands: None,
                    });
                }
            }
        }
        set_aside(text, &mut parsed);
        parsed
    }

    fn kept(parsed: &ParsedOrders<()>) -> Vec<usize> {
        parsed.errors.iter().map(|e| e.line).collect()
    }

    fn aside(parsed: &ParsedOrders<()>) -> Vec<usize> {
        parsed.chat.iter().map(|e| e.line).collect()
    }

    #[test]
    fn closings_and_the_name_under_them() {
        for text in [
            "FIRE B7\nCheers,\nDmitri",
            "FIRE B7\nRegards,\nagnes",
            "FIRE B7\nRegards, Agnes\nAF",
            "FIRE B7\nThanks!\nBest wishes",
            "FIRE B7\nViele Grüße,\nJürgen",
            "FIRE B7\nMed vänlig hälsning\nOlle Svensson",
            "FIRE B7\nCordialement,\nAmélie",
        ] {
            let parsed = refuse_all_but_fire(text);
            assert_eq!(aside(&parsed), [2, 3], "{text:?}");
            assert!(kept(&parsed).is_empty(), "{text:?}");
        }
    }

    #[test]
    fn a_name_alone_after_the_last_order() {
        let parsed = refuse_all_but_fire("FIRE B7\nFIRE C3\n\nDmitri Petrov");
        assert_eq!(aside(&parsed), [4]);
        assert_eq!(parsed.chat[0].problem, Aside::Name.words());
        // Before an order, two capitalised words are a bad order, not a name.
        let parsed = refuse_all_but_fire("Valiant Climb\nFIRE B7");
        assert_eq!(kept(&parsed), [1]);
        // Words in capitals are orders written badly, not a name.
        let parsed = refuse_all_but_fire("FIRE B7\nHOLD");
        assert_eq!(kept(&parsed), [2]);
    }

    #[test]
    fn chat_greetings_and_commands() {
        let parsed = refuse_all_but_fire(
            "Hi all,\nSorry all, work has swallowed me.\nAgreed, Cora. Deal.\nJOIN spring salvo\nFIRE B7",
        );
        assert_eq!(aside(&parsed), [1, 2, 3, 4]);
        let words: Vec<&str> = parsed.chat.iter().map(|c| c.problem.as_str()).collect();
        assert_eq!(
            words,
            [
                Aside::Greeting.words(),
                Aside::Chat.words(),
                Aside::Chat.words(),
                Aside::Command.words()
            ]
        );
    }

    #[test]
    fn greetings_in_the_languages_players_write() {
        for greeting in ["Good morning!", "Hallo zusammen,", "Bonjour à tous", "Hej,"] {
            let parsed = refuse_all_but_fire(&format!("{greeting}\nFIRE B7"));
            assert_eq!(aside(&parsed), [1], "{greeting:?}");
            assert_eq!(parsed.chat[0].problem, Aside::Greeting.words());
        }
    }

    #[test]
    fn bad_orders_stay_errors() {
        for line in [
            "FIER B7",
            "move F 3 P +45",
            "Valiant moves F8 CLIMB 1",
            "Artemis WITHDRAW left",
            "G13 K19",
            "fire at will",
        ] {
            let text = format!("{line}\nFIRE B7");
            let parsed = refuse_all_but_fire(&text);
            assert_eq!(kept(&parsed), [1], "{line:?}");
        }
    }

    #[test]
    fn lines_read_as_orders_are_never_set_aside() {
        let parsed = refuse_all_but_fire("FIRE Cheers\nFIRE B7");
        assert!(parsed.chat.is_empty());
        assert_eq!(parsed.orders_read, 2);
        // Nothing but chat and a sign-off: no order read.
        let parsed = refuse_all_but_fire("Agreed, Cora. Deal.\nCheers,\nDmitri");
        assert_eq!(parsed.orders_read, 0);
        assert!(!parsed.has_orders());
    }
}
