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

/// Words orders are made of, the standard battle's names among them.
const WORDS: &[&str] = &[
    "Valiant",
    "Resolute",
    "Swift",
    "Hawk",
    "Tempest",
    "Arrow",
    "Dominion",
    "ACTIVATE",
    "MOVE",
    "F",
    "3",
    "P",
    "+45",
    "-90",
    "F 8",
    "CLIMB 1",
    "DIVE 2",
    "TOWARD",
    "FIRE",
    "ALL",
    "AT",
    "fwd",
    "port",
    "turret",
    "NEAREST",
    "/",
    "and",
    "HOLD",
    "HOLD FIRE",
    "CMD",
    "FULLAHEAD",
    "HARDAROUND",
    "TARGETLOCK",
    "RALLY",
    "BRACE",
    "EMERGENCY SKIP MOVE",
    "EMERGENCY SKIP SHOOT",
    "LAUNCHWING",
    "LAUNCHTORPEDO",
    "COMPRESSEDGAS",
    "FROM",
    "DC PRIORITY",
    "BROKEN",
    "REPAIR",
    "STANDING",
    "TORPEDO #1",
    "DEPLOY",
    "6,24",
    "turn right 45",
    "@",
    "-- Ann",
    ":",
    ";",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Every correction works (issue 28 item 2), on orders made of the words players use,
    /// for ships in any of the states that forbid actions (SKY-ADM-22).
    #[test]
    fn every_refusals_example_is_accepted_in_its_place(
        lines in proptest::collection::vec(
            proptest::collection::vec(proptest::sample::select(WORDS), 1..7),
            1..6,
        ),
        rudder in proptest::bool::ANY,
        drifting in proptest::bool::ANY,
        morale in proptest::sample::select(vec!["steady", "shaken", "broken"]),
        down in proptest::bool::ANY,
        speed_loss in 0u8..6,
    ) {
        let before: BTreeMap<String, Value> = BTreeMap::from([
            ("Valiant".to_string(), serde_json::json!({"status": {
                "rudder_loss": rudder, "drifting": drifting, "morale": morale}})),
            ("Resolute".to_string(), serde_json::json!({"status": {
                "weapons_down": down, "utilities_down": down}})),
            ("Swift".to_string(), serde_json::json!({"status": {"speed_loss": speed_loss}})),
        ]);
        let state = battle(&before);
        let text: Vec<String> = lines.iter().map(|words| words.join(" ")).collect();
        let text = text.join("\n");
        let broken = engine::corrections::failures::<Skyfleet>(&state, PlayerId(1), &text);
        proptest::prop_assert!(broken.is_empty(), "{text:?}: {broken:#?}");
    }
}
