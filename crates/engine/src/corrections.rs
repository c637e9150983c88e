//! Every correction works. A refusal's examples are the code spans (in backticks) of its
//! [`LineIssue::expected`]: each is a whole order line the player could write instead, using
//! the player's own units and the state's real limits. [`failures`] checks that promise for
//! one reading: each example, written in place of the refused line, is read there without an
//! error. The case table (`rulecases`) runs it on every set of orders of every case file, and
//! the `engine_orders` fuzz target on whatever it is fed.
//!
//! A fragment (a square, a word) is written without backticks, so that everything shown as
//! code is something that can be sent as it is.

use crate::{Engine, LineIssue, PlayerId};

/// The examples a refusal offers: the code spans of its `expected`.
pub fn examples(issue: &LineIssue) -> Vec<&str> {
    issue
        .expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::trim)
        .filter(|span| !span.is_empty())
        .collect()
}

/// A player's words quoted in a message ("keep line 4 (TORPEDO `A1 east) or …") must not open
/// or close an example: the backticks they hold are written as `'` there, so that every code
/// span of a message is one the engine wrote. Called once on a finished reading (by
/// [`crate::chat::set_aside`], which every engine's reading ends with).
pub fn quote_safely<O>(text: &str, parsed: &mut crate::ParsedOrders<O>) {
    let quoted: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| line.contains('`'))
        .collect();
    if quoted.is_empty() {
        return;
    }
    for issue in parsed.errors.iter_mut().chain(parsed.warnings.iter_mut()) {
        for written in &quoted {
            let safe = written.replace('`', "'");
            for said in [&mut issue.problem, &mut issue.expected] {
                if said.contains(written) {
                    *said = said.replace(written, &safe);
                }
            }
        }
    }
}

/// An example that does not work: written in place of the refused line, it is refused too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenCorrection {
    /// The refused line and why.
    pub refused: LineIssue,
    /// The example it offered.
    pub example: String,
    /// What the example got, written in its place.
    pub still: Vec<LineIssue>,
}

/// The examples of `text`'s refusals that are refused in their turn (none, when every
/// correction works).
pub fn failures<E: Engine>(
    state: &E::State,
    player: PlayerId,
    text: &str,
) -> Vec<BrokenCorrection> {
    let parsed = E::parse_orders(state, player, text);
    let lines: Vec<&str> = text.lines().collect();
    let mut broken = Vec::new();
    for refused in &parsed.errors {
        for example in examples(refused) {
            let mut corrected: Vec<&str> = lines.clone();
            let Some(line) = refused
                .line
                .checked_sub(1)
                .and_then(|index| corrected.get_mut(index))
            else {
                continue;
            };
            *line = example;
            let again = E::parse_orders(state, player, &corrected.join("\n"));
            let still: Vec<LineIssue> = again
                .errors
                .into_iter()
                .filter(|e| e.line == refused.line)
                .collect();
            if !still.is_empty() {
                broken.push(BrokenCorrection {
                    refused: refused.clone(),
                    example: example.to_owned(),
                    still,
                });
            }
        }
    }
    broken
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing, reason = "test code")]

    use super::*;

    fn issue(expected: &str) -> LineIssue {
        LineIssue {
            line: 1,
            text: String::new(),
            problem: String::new(),
            expected: expected.to_owned(),
            if_it_stands: None,
        }
    }

    #[test]
    fn a_players_backtick_quoted_in_a_message_opens_no_example() {
        let mut parsed = crate::ParsedOrders {
            orders: (),
            understood: Vec::new(),
            press: Vec::new(),
            errors: vec![issue(
                "keep line 4 (fire i1) or this line (TORPEDO `A1 east), and leave the other out",
            )],
            warnings: Vec::new(),
            chat: Vec::new(),
            orders_read: 0,
        };
        quote_safely("fire i1\nTORPEDO `A1 east", &mut parsed);
        assert!(
            examples(&parsed.errors[0]).is_empty(),
            "{:?}",
            parsed.errors
        );
    }

    #[test]
    fn examples_are_the_code_spans() {
        assert_eq!(
            examples(&issue(
                "a move, e.g. `MOVE F 2` or `HOLD`; not `` nor a lone `"
            )),
            vec!["MOVE F 2", "HOLD"]
        );
        assert!(examples(&issue("a square such as B7")).is_empty());
    }
}
