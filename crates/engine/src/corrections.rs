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
