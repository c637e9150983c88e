//! One verdict on a set of orders, in the same words by mail and on the web (issue 27): which
//! lines were read as orders, refused, warned or set aside as chat, and what stands.
//!
//! The policy, the same at both doors (docs/mail.md, docs/web-players.md): the lines read as
//! orders replace the set on file; each refused line is reported with what its absence means;
//! a set with no line read as an order (only chat, sign-offs, press or refused lines)
//! replaces nothing and does not answer the turn.

use engine::{LineIssue, ParsedOrders};

/// What the verdict says of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// Refused: left out of the orders.
    Error,
    /// Accepted, but it may not do what the player hoped.
    Warning,
    /// Set aside as not an order (a closing, a name, chat, a mail command).
    Chat,
}

impl std::fmt::Display for EntryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EntryKind::Error => "Error",
            EntryKind::Warning => "Warning",
            EntryKind::Chat => "Chat",
        })
    }
}

/// One line the verdict speaks of, besides the orders understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: EntryKind,
    /// The engine's 1-based line number in the order text.
    pub line: usize,
    pub text: String,
    /// What is wrong, and what it makes of the line when the set stands.
    pub problem: String,
    /// What would be accepted (none for chat).
    pub expected: Option<String>,
}

/// How a set of orders was judged.
#[derive(Debug, Clone)]
pub struct Verdict<'a, O> {
    parsed: &'a ParsedOrders<O>,
    stored: bool,
}

impl<'a, O> Verdict<'a, O> {
    pub fn new(parsed: &'a ParsedOrders<O>, stored: bool) -> Self {
        Self { parsed, stored }
    }

    /// The first sentence: whether the set stands.
    pub fn headline(&self, game: &str) -> String {
        if self.stored {
            format!("Your orders for {game}, as understood:")
        } else {
            format!(
                "No line of your message was read as an order for {game}, so nothing was \
                 stored: your orders on file, if any, still stand, and this message does not \
                 count as orders for the turn."
            )
        }
    }

    /// Errors, then warnings, then the lines set aside as chat, each in line order.
    pub fn entries(&self) -> Vec<Entry> {
        let refused = |issue: &LineIssue| Entry {
            kind: EntryKind::Error,
            line: issue.line,
            text: issue.text.clone(),
            problem: issue.problem_if_it_stands(),
            expected: Some(issue.expected.clone()),
        };
        let warned = |issue: &LineIssue| Entry {
            kind: EntryKind::Warning,
            ..refused(issue)
        };
        let chat = |issue: &LineIssue| Entry {
            kind: EntryKind::Chat,
            line: issue.line,
            text: issue.text.clone(),
            problem: format!("taken as {}", issue.problem),
            expected: None,
        };
        self.parsed
            .errors
            .iter()
            .map(refused)
            .chain(self.parsed.warnings.iter().map(warned))
            .chain(self.parsed.chat.iter().map(chat))
            .collect()
    }

    /// The last paragraph: what happens next.
    pub fn closing(&self) -> &'static str {
        if self.stored {
            "If nothing more arrives before the deadline, these orders stand (a refused line \
             is left out of them). To change them, send a complete new set: the last set \
             received counts."
        } else {
            "To send orders, write one order a line, as the game's order help shows."
        }
    }
}
