//! Every ID of the catalogue (`SALVO-...`: rules, GM rulings, worked examples), as the project
//! lists them in `docs/rules/ids/salvo.txt`, is cited by a test here or in the case table, or
//! written down in docs/rules/salvo.md as not applicable or not tested, with why; the list
//! equals the catalogue when the catalogue is beside the checkout; and every engine ruling
//! (`SALVO-ADM-nn`) is tested.

use rulecases::Rules;
use rulecases::coverage;

const RULES: Rules = Rules {
    engine: "salvo",
    prefix: "SALVO",
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
fn every_engine_ruling_is_cited_by_a_test() {
    coverage::assert_every_engine_ruling_is_cited(&RULES);
}
