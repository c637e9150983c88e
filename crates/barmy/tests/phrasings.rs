#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! How players write Barmy orders (issue 28, item 5): `phrasings.json`, each text read as it
//! must be, or refused with examples that work written in its place (`engine::corrections`).

use barmy::{Barmy, Setup, Square, State, Target};
use engine::{Engine, Player, PlayerId};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    #[allow(dead_code, reason = "documentation in the data file")]
    about: String,
    phrasings: Vec<Phrasing>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Phrasing {
    text: String,
    /// The squares fired at (on or off the board), as the report writes them.
    shots: Vec<String>,
    /// The press, exactly, when given.
    press: Option<Vec<String>>,
    /// A substring of the one error the text must get; none: no error at all.
    refused: Option<String>,
    /// A substring some warning must have.
    warned: Option<String>,
    rules: Vec<String>,
}

fn state() -> State {
    let ship = |text: &str| -> [Square; 4] {
        text.split_whitespace()
            .map(|s| s.parse().unwrap())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap()
    };
    let setup = Setup {
        width: 30,
        height: 30,
        ..Setup::default()
    };
    let captains = [
        ("Fred Bloggs", "B3 C4 D5 E6"),
        ("John Smith", "E13 F13 G13 H13"),
        ("Annette Curtis", "AA20 AB20 AC20 AD20"),
        ("Bob", "Q1 Q2 Q3 Q4"),
    ];
    let ships = captains
        .iter()
        .zip(1..)
        .map(|((name, squares), id)| {
            (
                Player {
                    id: PlayerId(id),
                    name: (*name).into(),
                },
                ship(squares),
            )
        })
        .collect();
    State::with_ships(setup, ships).unwrap()
}

#[test]
fn players_phrasings_are_read_right_or_refused_with_a_fix_that_works() {
    let corpus: Corpus = serde_json::from_str(include_str!("phrasings.json")).unwrap();
    assert!(
        corpus.phrasings.len() >= 30,
        "issue 28 asks for at least 30"
    );
    let state = state();
    let mut failures = Vec::new();
    for phrasing in &corpus.phrasings {
        assert!(
            phrasing.rules.iter().all(|r| r.starts_with("BARMY-")),
            "{:?} cites its rules",
            phrasing.text
        );
        let text = &phrasing.text;
        let parsed = Barmy::parse_orders(&state, PlayerId(1), text);
        let shots: Vec<String> = parsed
            .orders
            .shots
            .iter()
            .map(|s| s.written.clone())
            .collect();
        let fired: Vec<String> = parsed
            .orders
            .shots
            .iter()
            .filter(|s| matches!(s.target, Target::Square(_)))
            .map(|s| s.written.clone())
            .collect();
        let wanted_on_board: Vec<String> = phrasing
            .shots
            .iter()
            .filter(|s| {
                s.parse::<Square>()
                    .is_ok_and(|sq| state.setup.grid().contains(sq))
            })
            .cloned()
            .collect();
        if shots != phrasing.shots || fired != wanted_on_board {
            failures.push(format!(
                "{text:?}: shots {shots:?}, wanted {:?}",
                phrasing.shots
            ));
        }
        if let Some(press) = &phrasing.press
            && &parsed.press != press
        {
            failures.push(format!(
                "{text:?}: press {:?}, wanted {press:?}",
                parsed.press
            ));
        }
        match &phrasing.refused {
            None if !parsed.errors.is_empty() => {
                failures.push(format!("{text:?}: refused {:?}", parsed.errors));
            }
            None => {}
            Some(why) => {
                if !parsed
                    .errors
                    .iter()
                    .any(|e| e.problem.contains(why.as_str()))
                {
                    failures.push(format!(
                        "{text:?}: wanted refused {why:?}, got {:?}",
                        parsed.errors
                    ));
                }
                for error in &parsed.errors {
                    if engine::corrections::examples(error).is_empty() {
                        failures.push(format!(
                            "{text:?}: the refusal {:?} offers no example",
                            error.problem
                        ));
                    }
                }
            }
        }
        if let Some(why) = &phrasing.warned
            && !parsed
                .warnings
                .iter()
                .any(|w| w.problem.contains(why.as_str()))
        {
            failures.push(format!(
                "{text:?}: wanted a warning {why:?}, got {:?}",
                parsed.warnings
            ));
        }
        for broken in engine::corrections::failures::<Barmy>(&state, PlayerId(1), text) {
            failures.push(format!(
                "{text:?}: the example `{}` is refused in its turn: {:?}",
                broken.example, broken.still
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
