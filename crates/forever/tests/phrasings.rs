#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! How players write (issue 28 item 5): a curated corpus of the ways people write Forever's
//! commonest orders and designs (`tests/phrasings/orders.json`), each read as the orders it
//! means, or refused (once, for the line's own problem) with examples that are accepted in the
//! refused line's place. No entry is set aside as chat: each has an order in it.

mod common;

use common::{ALICE, start};
use engine::Engine;
use forever::{Forever, State};
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    battle: serde_json::Value,
    cases: Vec<Case>,
    building: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    text: String,
    same_as: Option<String>,
    refused: Option<String>,
    warned: Option<String>,
    /// The refusal offers no line to write in its place (none could be accepted there).
    #[serde(default)]
    no_example: bool,
    rules: Vec<String>,
    #[allow(dead_code, reason = "documentation in the data file")]
    note: Option<String>,
}

/// What is wrong with one case's reading, if anything.
fn check(state: &State, case: &Case) -> Vec<String> {
    let mut wrong = Vec::new();
    if !case.rules.iter().all(|r| r.starts_with("FOREVER-")) {
        wrong.push(format!("rules {:?}", case.rules));
    }
    let parsed = Forever::parse_orders(state, ALICE, &case.text);
    if !parsed.chat.is_empty() {
        wrong.push(format!("set aside as chat: {:?}", parsed.chat));
    }
    if let Some(same_as) = &case.same_as {
        let meant = Forever::parse_orders(state, ALICE, same_as);
        assert!(meant.errors.is_empty(), "{same_as}: {:#?}", meant.errors);
        if !parsed.errors.is_empty() {
            wrong.push(format!("refused: {:#?}", parsed.errors));
        } else if parsed.orders != meant.orders {
            wrong.push(format!(
                "read as {:?}, not as {same_as:?} ({:?})",
                parsed.understood, meant.understood
            ));
        }
    }
    if let Some(refused) = &case.refused {
        match parsed.errors.as_slice() {
            [error] if !error.problem.contains(refused.as_str()) => {
                wrong.push(format!("not refused with {refused:?}: {error:#?}"));
            }
            [error] if !case.no_example && engine::corrections::examples(error).is_empty() => {
                wrong.push(format!("refused without an example: {error:#?}"));
            }
            [_] => {}
            other => wrong.push(format!("one refusal wanted: {other:#?}")),
        }
        let broken = engine::corrections::failures::<Forever>(state, ALICE, &case.text);
        if !broken.is_empty() {
            wrong.push(format!("a correction that does not work: {broken:#?}"));
        }
    }
    if let Some(warned) = &case.warned
        && !parsed
            .warnings
            .iter()
            .any(|w| w.problem.contains(warned.as_str()))
    {
        wrong.push(format!("no warning has {warned:?}: {:#?}", parsed.warnings));
    }
    wrong
}

#[test]
fn players_phrasings_are_read_right_or_refused_with_a_fix_that_works() {
    let corpus: Corpus = serde_json::from_str(include_str!("phrasings/orders.json")).unwrap();
    assert!(corpus.cases.len() >= 30, "{} phrasings", corpus.cases.len());
    let battle = start(corpus.battle.clone());
    let building = start(serde_json::json!({}));
    let mut failures = Vec::new();
    for (state, case) in corpus
        .cases
        .iter()
        .map(|c| (&battle, c))
        .chain(corpus.building.iter().map(|c| (&building, c)))
    {
        let mut wrong = check(state, case);
        // While building no ship is on the table: an example names the player's own design
        // or none, never the templates' Lancer (FOREVER-ADM-23).
        if std::ptr::eq(state, &building) {
            let parsed = Forever::parse_orders(state, ALICE, &case.text);
            if let Some(named) = parsed.errors.iter().find(|e| e.expected.contains("Lancer")) {
                wrong.push(format!(
                    "an example names a ship not in the game: {named:#?}"
                ));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!("{:?}:\n  {}", case.text, wrong.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "FOREVER-ADM-23 (examples that work, how players write):\n{}",
        failures.join("\n")
    );
}
