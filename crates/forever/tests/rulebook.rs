#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The rulebook: the GM's switches of the setup, each tested both ways and listed in words by
//! `Forever::rulings`, and the faults of the second audit that the switches sit beside.

mod common;

use common::{ALICE, play, ship};
use engine::Engine;
use forever::{Forever, Setup, State};
use serde_json::{Value, json};

const RAM: &[&str] = &[
    "SHIP Ram",
    "CORE",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) HP+6",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT THRUSTER(thrust 40)",
];

const HULK: &[&str] = &[
    "SHIP Hulk",
    "CORE HP+3",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) HP+4",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) HP+4",
];

/// A game from fleets given as (design, name, x, y, facing) and extra setup fields, past the
/// opening turn.
fn game(
    alice: &[(&[&str], &str, f64, f64, i64)],
    bob: &[(&[&str], &str, f64, f64, i64)],
    extra: Value,
) -> State {
    let fleet = |ships: &[(&[&str], &str, f64, f64, i64)]| {
        let ships: Vec<Value> = ships
            .iter()
            .map(|(design, name, x, y, facing)| {
                json!({"design": design, "name": name, "at": [x, y], "facing": facing})
            })
            .collect();
        json!({ "ships": ships })
    };
    let mut setup = json!({ "fleets": [fleet(alice), fleet(bob)] });
    if let (Some(setup), Some(extra)) = (setup.as_object_mut(), extra.as_object()) {
        setup.extend(extra.clone());
    }
    let mut state = common::start(setup);
    state.round = 1;
    state
}

fn ruling(setup: &Setup, rule: &str) -> String {
    Forever::rulings(setup)
        .into_iter()
        .find(|r| r.rule == rule)
        .unwrap_or_else(|| panic!("no ruling {rule}"))
        .text
}

/// A column: the follower (placed first, so the lower id) 1" behind its leader.
fn column(extra: Value) -> State {
    game(
        &[
            (RAM, "Follower", 10.0, 24.0, 0),
            (RAM, "Leader", 15.0, 24.0, 0),
        ],
        &[(HULK, "Hulk", 60.0, 40.0, 0)],
        extra,
    )
}

const ADVANCE: &str = "MOVE1 Leader BY 5, 0\nMOVE1 Follower BY 5, 0";

#[test]
fn forever_move1_1_a_column_moves_in_the_order_written() {
    let state = column(json!({}));
    let (after, report) = play(&state, &[(ALICE, ADVANCE)], &[]);
    assert_eq!(ship(&after, "Leader").at.x, 2000);
    assert_eq!(ship(&after, "Follower").at.x, 1500, "{}", report.to_text());
    assert!(!report.to_text().contains("rammed"), "{}", report.to_text());
    assert!(
        ruling(&Setup::default(), "FOREVER-MOVE1-1")
            .contains("in the order their movement lines are written")
    );
}

#[test]
fn forever_move1_1_switched_ships_move_by_id() {
    let state = column(json!({"move_order": "by_id"}));
    let (after, report) = play(&state, &[(ALICE, ADVANCE)], &[]);
    // The follower moves first and runs into its leader after 1".
    assert_eq!(ship(&after, "Follower").at.x, 1100);
    assert!(report.to_text().contains("rammed"), "{}", report.to_text());
    assert!(ruling(&state.setup, "FOREVER-MOVE1-1").contains("by ship id"));
}
