#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Every ID in the catalogue (rules `IRON-…`, rulings `IRON-GM-nn`, examples `IRON-EX-nn`), as
//! the project lists them in `docs/rules/ids/ironclad.txt`, is cited by a test here, or written
//! down in `docs/rules/ironclad.md` as overruled or not applicable; the list equals the
//! catalogue when the catalogue is beside the checkout; and every engine ruling (`IRON-ADM-nn`)
//! in the docs is cited by a test.

use std::path::Path;

use rulecases::Rules;
use rulecases::coverage;

const RULES: Rules = Rules {
    engine: "ironclad",
    prefix: "IRON",
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
fn every_engine_ruling_is_documented_and_tested() {
    coverage::assert_every_engine_ruling_is_cited(&RULES);
}

#[test]
fn the_setup_example_in_the_docs_starts_a_battle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../../docs/rules/ironclad.md")).unwrap();
    let start = docs.find("```json\n").unwrap() + "```json\n".len();
    let end = start + docs[start..].find("```").unwrap();
    let setup: ironclad::Setup = serde_json::from_str(&docs[start..end]).unwrap();
    let players = [1, 2].map(|id| engine::Player {
        id: engine::PlayerId(id),
        name: format!("P{id}"),
    });
    let state = setup.start(&players).unwrap();
    assert_eq!(state.ships.len(), 3);
    assert!(state.ships[2].ram);
}
