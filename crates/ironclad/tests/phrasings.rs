#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! How players write (issue 28 item 5): a curated corpus of the ways people write Ironclad's
//! commonest orders (`tests/phrasings/battle.json`), each read as the order it means, or
//! refused with examples that are accepted in the refused line's place. No entry is set aside
//! as chat: each has an order in it.

use engine::{Engine, Player, PlayerId, TurnDice};
use ironclad::{Ironclad, Setup, State};
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    setup: serde_json::Value,
    cases: Vec<Case>,
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

const ALICE: PlayerId = PlayerId(1);

fn state(setup: &serde_json::Value) -> State {
    let setup: Setup = serde_json::from_value(setup.clone()).unwrap();
    let players = [(1, "Alice"), (2, "Bob")].map(|(id, name)| Player {
        id: PlayerId(id),
        name: name.into(),
    });
    Ironclad::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap()
}

#[test]
fn players_phrasings_are_read_right_or_refused_with_a_fix_that_works() {
    let corpus: Corpus = serde_json::from_str(include_str!("phrasings/battle.json")).unwrap();
    let state = state(&corpus.setup);
    assert!(corpus.cases.len() >= 30, "{} phrasings", corpus.cases.len());
    let mut failures = Vec::new();
    for case in &corpus.cases {
        assert!(
            case.rules.iter().all(|r| r.starts_with("IRON-")),
            "{}: {:?}",
            case.text,
            case.rules
        );
        let parsed = Ironclad::parse_orders(&state, ALICE, &case.text);
        let mut wrong = Vec::new();
        if !parsed.chat.is_empty() {
            wrong.push(format!("set aside as chat: {:?}", parsed.chat));
        }
        if let Some(same_as) = &case.same_as {
            let meant = Ironclad::parse_orders(&state, ALICE, same_as);
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
            match parsed
                .errors
                .iter()
                .find(|e| e.problem.contains(refused.as_str()))
            {
                None => wrong.push(format!(
                    "not refused with {refused:?}: {:#?}",
                    parsed.errors
                )),
                Some(error)
                    if !case.no_example && engine::corrections::examples(error).is_empty() =>
                {
                    wrong.push(format!("refused without an example: {error:#?}"));
                }
                Some(_) => {}
            }
            let broken = engine::corrections::failures::<Ironclad>(&state, ALICE, &case.text);
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
        if !wrong.is_empty() {
            failures.push(format!("{:?}:\n  {}", case.text, wrong.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "IRON-ADM-16 (examples that work, how players write):\n{}",
        failures.join("\n")
    );
}
