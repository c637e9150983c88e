#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! How players write (issue 28 item 5): the curated corpus `tests/phrasings.json`, each way
//! of writing skyfleet's commonest orders read right, or refused with a fix that works.

use std::collections::BTreeMap;

use engine::{Engine, Player, PlayerId};
use serde::Deserialize;
use serde_json::Value;
use skyfleet::{Skyfleet, State};

mod support;

#[derive(Deserialize)]
struct Corpus {
    #[allow(dead_code, reason = "the file's own description")]
    about: String,
    phrasings: Vec<Phrasing>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Phrasing {
    text: String,
    #[serde(default)]
    reads: Vec<String>,
    refused: Option<String>,
    #[serde(default)]
    before: BTreeMap<String, Value>,
    /// Why it is here: the rule or the issue's sample.
    #[allow(dead_code, reason = "documentation in the data")]
    why: Option<String>,
}

fn battle(before: &BTreeMap<String, Value>) -> State {
    let start: support::Start =
        serde_json::from_value(serde_json::json!({"setup": {}, "before": before})).unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: ["Alice", "Bob"][id as usize - 1].into(),
    });
    support::start(&start, &players).unwrap()
}

#[test]
fn thirty_ways_and_more_of_writing_the_commonest_orders() {
    let corpus: Corpus =
        serde_json::from_str(include_str!("phrasings.json")).expect("phrasings.json");
    assert!(
        corpus.phrasings.len() >= 30,
        "{} phrasings",
        corpus.phrasings.len()
    );
    let mut failures = Vec::new();
    for phrasing in &corpus.phrasings {
        let state = battle(&phrasing.before);
        let text = phrasing.text.as_str();
        let parsed = Skyfleet::parse_orders(&state, PlayerId(1), text);
        let mut wrong = Vec::new();
        if !parsed.chat.is_empty() {
            wrong.push(format!("set aside as not orders: {:#?}", parsed.chat));
        }
        match &phrasing.refused {
            None => {
                if !parsed.errors.is_empty() {
                    wrong.push(format!("refused: {:#?}", parsed.errors));
                }
                for want in &phrasing.reads {
                    if !parsed.understood.iter().any(|u| u.contains(want.as_str())) {
                        wrong.push(format!(
                            "not read as {want:?}; understood {:#?}",
                            parsed.understood
                        ));
                    }
                }
            }
            Some(problem) => match parsed
                .errors
                .iter()
                .find(|e| e.problem.contains(problem.as_str()))
            {
                None => wrong.push(format!(
                    "not refused with {problem:?}: {:#?}",
                    parsed.errors
                )),
                Some(issue) => {
                    if engine::corrections::examples(issue).is_empty()
                        && !issue.expected.contains("no ")
                    {
                        wrong.push(format!("refused without an example: {issue:#?}"));
                    }
                }
            },
        }
        let broken = engine::corrections::failures::<Skyfleet>(&state, PlayerId(1), text);
        if !broken.is_empty() {
            wrong.push(format!("a correction is refused in its turn: {broken:#?}"));
        }
        if !wrong.is_empty() {
            failures.push(format!("{text:?}:\n{}", wrong.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
