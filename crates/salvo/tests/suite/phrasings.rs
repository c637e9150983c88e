//! How players write Salvo orders (issue 28, item 5): `tests/phrasings.json`, each text
//! understood as it must be, or refused with examples that work written in its place
//! (`engine::corrections`).

use engine::Engine;
use salvo::{Salvo, Setup};
use serde::Deserialize;

use crate::common::*;

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
    /// Players in the game: Ann, Bob (and Cy).
    #[serde(default = "two")]
    players: usize,
    /// A substring of some line of the orders as understood.
    understood: Option<String>,
    /// A substring of the error the text must get (an empty one: any error); none: no error.
    refused: Option<String>,
    rules: Vec<String>,
}

fn two() -> usize {
    2
}

#[test]
fn players_phrasings_are_read_right_or_refused_with_a_fix_that_works() {
    let corpus: Corpus = serde_json::from_str(include_str!("../phrasings.json")).unwrap();
    assert!(
        corpus.phrasings.len() >= 30,
        "issue 28 asks for at least 30"
    );
    let games = [
        new_game(&Setup::default(), 2, 5),
        new_game(&Setup::default(), 3, 5),
    ];
    let mut failures = Vec::new();
    for phrasing in &corpus.phrasings {
        assert!(
            phrasing.rules.iter().all(|r| r.starts_with("SALVO-")),
            "{:?} cites its rules",
            phrasing.text
        );
        let state = &games[usize::from(phrasing.players == 3)];
        let text = &phrasing.text;
        let parsed = Salvo::parse_orders(state, ANN, text);
        if let Some(want) = &phrasing.understood
            && !parsed.understood.iter().any(|u| u.contains(want.as_str()))
        {
            failures.push(format!(
                "{text:?}: nothing understood as {want:?}: {:?} (errors {:?})",
                parsed.understood, parsed.errors
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
                    if engine::corrections::examples(error).is_empty()
                        && !error.expected.starts_with("leave this line out")
                        && !error.expected.contains("keep line")
                    {
                        failures.push(format!(
                            "{text:?}: the refusal {:?} offers no example: {:?}",
                            error.problem, error.expected
                        ));
                    }
                }
            }
        }
        for broken in engine::corrections::failures::<Salvo>(state, ANN, text) {
            failures.push(format!(
                "{text:?}: the example `{}` is refused in its turn: {:?}",
                broken.example, broken.still
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
