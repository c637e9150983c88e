#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! One judge (issue 28, item 1) on the phrasings corpus: every set of `phrasings.json` is
//! resolved as the deadline would, and every shot its confirmation promised must be fired
//! (`rules/unkept.rs`, which the case table also runs on every set of every case).

#[path = "rules/unkept.rs"]
mod unkept;

use barmy::{Barmy, Setup, Square, State};
use engine::{Engine, GameSecret, Player, PlayerId, TurnInput};
use serde_json::Value;

use unkept::unkept;

fn ship(text: &str) -> [Square; 4] {
    text.split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect::<Vec<_>>()
        .try_into()
        .unwrap()
}

#[test]
fn every_confirmed_shot_and_press_of_the_phrasings_is_carried_out() {
    // The phrasings corpus's state: a 30-column board (BARMY-GM-14, BARMY-ADM-07).
    let corpus: Value = serde_json::from_str(include_str!("phrasings.json")).unwrap();
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
    let ships = (1..)
        .zip(captains)
        .map(|(id, (name, squares))| {
            (
                Player {
                    id: PlayerId(id),
                    name: name.into(),
                },
                ship(squares),
            )
        })
        .collect();
    let state = State::with_ships(setup, ships).unwrap();
    let mut failures = Vec::new();
    for phrasing in corpus["phrasings"].as_array().unwrap() {
        let text = phrasing["text"].as_str().unwrap();
        let parsed = Barmy::parse_orders(&state, PlayerId(1), text);
        let mut input: TurnInput<barmy::Orders> = TurnInput::default();
        input.orders.insert(PlayerId(1), parsed.orders.clone());
        let mut dice = GameSecret::from_bytes([3; 32]).turn_dice(1);
        let resolution = Barmy::resolve(&state, &input, &mut dice).unwrap();
        for failure in unkept("Fred Bloggs", &parsed, &resolution.report, false) {
            failures.push(format!("{text:?}: {failure}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
