//! One judge (issue 28, item 1) on the phrasings corpus: every set of `phrasings.json` is
//! resolved as the deadline would, and what its confirmation promised must be done
//! (`rules/unkept.rs`, which the case table also runs on every set of every case).

#[path = "../rules/unkept.rs"]
mod unkept;

use engine::{Engine, GameSecret};
use salvo::{Salvo, Setup};
use serde_json::Value;

use crate::common::*;
use unkept::unkept;

#[test]
fn every_confirmed_attack_of_the_phrasings_is_carried_out() {
    let corpus: Value = serde_json::from_str(include_str!("../phrasings.json")).unwrap();
    let games = [
        new_game(&Setup::default(), 2, 5),
        new_game(&Setup::default(), 3, 5),
    ];
    let mut failures = Vec::new();
    for phrasing in corpus["phrasings"].as_array().unwrap() {
        let text = phrasing["text"].as_str().unwrap();
        let state = &games[usize::from(phrasing["players"].as_u64() == Some(3))];
        let parsed = Salvo::parse_orders(state, ANN, text);
        let mut dice = GameSecret::from_bytes([3; 32]).turn_dice(1);
        let resolution =
            Salvo::resolve(state, &input(vec![(ANN, parsed.orders.clone())]), &mut dice).unwrap();
        for failure in unkept("Ann", &parsed, &resolution.report, &[]) {
            failures.push(format!("{text:?}: {failure}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
