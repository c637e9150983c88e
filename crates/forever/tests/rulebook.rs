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

/// Alice's Ram far away; Bob's Hulk at (60, 40), its S2 spanning x 58..59, y 39.5..40.5.
fn hulk_game(extra: Value) -> State {
    game(
        &[(RAM, "Ram", 10.0, 10.0, 0)],
        &[(HULK, "Hulk", 60.0, 40.0, 0)],
        extra,
    )
}

#[test]
fn forever_jet_3_a_body_that_rams_something_goes_on_drifting() {
    use forever::design::Points;
    use forever::geometry::{Point, Polygon};
    use forever::state::{Body, BodySection};
    let mut state = hulk_game(json!({}));
    // A 1" square 1" short of the Hulk's S2, drifting straight at it (mass 6).
    state.bodies.push(Body {
        id: 90,
        owner: common::BOB,
        ship: "Wreck".into(),
        sections: vec![BodySection {
            name: "S9".into(),
            part: 1,
            hp: 1,
            base_hp: 1,
            mass16: 96,
            shape: Polygon::rect(5600, 3950, 5700, 4050),
            value: Points::ZERO,
            destroyed: false,
        }],
        heading: Point::new(100, 0),
        credit: None,
        towed_by: None,
        gone: false,
    });
    // 3d6 = 3: 3 × 10 ÷ 6 = 5", cut to 1" by the Hulk.
    let (after, report) = play(&state, &[], &[1, 1, 1]);
    assert_eq!(
        after.bodies[0].sections[0].shape.centre(),
        Point::new(5750, 4000)
    );
    assert!(report.to_text().contains("rammed"), "{}", report.to_text());
    // A round later it is touching the Hulk: it glances off and goes on, not "drifted 0"".
    let (later, report) = play(&after, &[], &[1, 1, 1]);
    let centre = later.bodies[0].sections[0].shape.centre();
    assert_ne!(centre, Point::new(5750, 4000), "{}", report.to_text());
    assert_eq!(
        common::result(&report, "Bob: Wreck/J90"),
        "drifted 5\" (3d6 3 × 10 ÷ mass 6), glancing off Hulk.S2"
    );
    assert_eq!(later.bodies[0].heading, Point::new(100, 0));
}

#[test]
fn forever_ter_2_a_meteor_that_survives_a_ram_is_not_pinned() {
    use forever::geometry::Point;
    use forever::state::{Meteor, MeteorGroup};
    let mut state = hulk_game(json!({"meteors": true}));
    state.meteor_groups.push(MeteorGroup {
        id: 91,
        heading: Point::new(100, 0),
        meteors: vec![Meteor {
            id: 92,
            at: Point::new(5700, 4000),
            hp: 3,
        }],
    });
    // The meteor check shows a hit (D6 1: no new shower); the group moves 3d6 = 3", rams the
    // Hulk after 1/2" and survives.
    let (after, report) = play(&state, &[], &[1, 1, 1, 1]);
    assert!(report.to_text().contains("rammed"), "{}", report.to_text());
    let pinned = after.meteor_groups[0].meteors[0].at;
    assert!(after.meteor_groups[0].meteors[0].hp > 0);
    let (later, report) = play(&after, &[], &[1, 1, 1, 1]);
    assert_ne!(
        later.meteor_groups[0].meteors[0].at,
        pinned,
        "{}",
        report.to_text()
    );
    assert!(
        report.to_text().contains("glanced off Hulk"),
        "{}",
        report.to_text()
    );
}
