//! Every ID of the catalogue (rules `BARMY-nn`, rulings `BARMY-GM-nn`, examples `BARMY-EX-nn`),
//! as the project lists them in `docs/rules/ids/barmy.txt`, is cited by a test or written down
//! in `docs/rules/barmy.md` as not applicable or overruled; the list equals the catalogue when
//! the catalogue is beside the checkout; and every engine ruling (`BARMY-ADM-nn`) is tested.

use rulecases::Rules;
use rulecases::coverage;

const RULES: Rules = Rules {
    engine: "barmy",
    prefix: "BARMY",
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
