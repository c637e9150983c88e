#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Every ID in the catalogue (rules `SKY-…`, rulings `SKY-GM-nn`, examples `SKY-EX-nn`), as
//! the project lists them in `docs/rules/ids/skyfleet.txt`, is cited by a test here, or written
//! down in `docs/rules/skyfleet.md` as overruled or not applicable; the list equals the
//! catalogue when the catalogue is beside the checkout; every GM ruling is answered in the docs;
//! and every engine ruling (`SKY-ADM-nn`) in the docs is cited by a test and every one the code
//! cites is written down.

use std::path::Path;

use rulecases::Rules;
use rulecases::coverage::{self, cites};

const RULES: Rules = Rules {
    engine: "skyfleet",
    prefix: "SKY",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
};

#[test]
fn every_listed_id_is_cited_by_a_test_or_a_written_ruling() {
    coverage::assert_every_listed_id_is_cited(&RULES);
}

#[test]
fn the_id_list_matches_the_catalogue() {
    coverage::assert_list_matches_catalogue(&RULES);
}

#[test]
fn every_gm_ruling_is_answered_in_the_docs() {
    let docs = RULES.docs();
    let listed = coverage::listed_ids(&RULES).unwrap();
    let rulings: Vec<&String> = listed
        .iter()
        .filter(|id| id.starts_with("SKY-GM-"))
        .collect();
    assert_eq!(rulings.len(), 32, "the catalogue's 32 GM rulings");
    for id in rulings {
        let answered = docs.lines().any(|line| {
            cites(line, id) && {
                let lower = line.to_lowercase();
                lower.contains("followed")
                    || lower.contains("overruled")
                    || lower.contains("adapted")
            }
        });
        assert!(
            answered,
            "{id}: say followed, adapted or overruled in the docs"
        );
    }
}

#[test]
fn every_engine_ruling_is_documented_and_tested() {
    coverage::assert_every_engine_ruling_is_cited(&RULES);
}

#[test]
fn the_setup_example_in_the_docs_starts_a_battle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../../docs/rules/skyfleet.md")).unwrap();
    let start = docs.find("```json\n").unwrap() + "```json\n".len();
    let end = start + docs[start..].find("```").unwrap();
    let setup: skyfleet::Setup = serde_json::from_str(&docs[start..end]).unwrap();
    let players = [1, 2].map(|id| engine::Player {
        id: engine::PlayerId(id),
        name: format!("P{id}"),
    });
    let state = setup.start(&players).unwrap();
    assert!(state.units.len() >= 4);
}
