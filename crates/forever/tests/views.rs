#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Views never leak hidden facts: standing deflector orders, and fleets accepted but not yet on
//! the table, are seen only by their owner and the GM; the battlefield map is built from public
//! information.

mod common;

use common::{ALICE, BOB, armada, start};
use engine::{Engine, TurnDice, TurnInput, Viewer};
use forever::view::ShapeKind;
use forever::{Forever, map};

fn text(view: &engine::View) -> String {
    view.lines.join("\n")
}

#[test]
fn a_fleet_being_planned_is_seen_only_by_its_owner_and_the_gm() {
    let state = start(serde_json::json!({}));
    let alice = Forever::parse_orders(
        &state,
        ALICE,
        "SHIP Secret\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN\nDEPLOY Secret AT 5, 5",
    );
    assert!(alice.errors.is_empty(), "{:#?}", alice.errors);
    let mut input = TurnInput::default();
    input.orders.insert(ALICE, alice.orders);
    let resolution = Forever::resolve(&state, &input, &mut TurnDice::scripted([], [])).unwrap();
    let state = resolution.state;
    let report = resolution.report.to_text();
    assert!(
        !report.contains("Secret"),
        "the public report names the ship:\n{report}"
    );
    for viewer in [Viewer::Public, Viewer::Player(BOB)] {
        let view = text(&Forever::view(&state, viewer));
        assert!(
            !view.contains("Secret"),
            "{viewer:?} sees the plan:\n{view}"
        );
        let picture = map(&state, viewer);
        assert!(
            picture.shapes.iter().all(|s| s.kind != ShapeKind::Planned),
            "{viewer:?}"
        );
        assert!(!serde_json::to_string(&picture).unwrap().contains("Secret"));
        // The web's picture comes from the same map (FOREVER-GM-20/44).
        let board = Forever::view(&state, viewer).board.unwrap();
        assert!(!serde_json::to_string(&board).unwrap().contains("Secret"));
        let engine::Board::Map(board) = board else {
            panic!("a map");
        };
        assert!(board.shapes.iter().all(|s| s.note != "planned"));
    }
    for viewer in [Viewer::Player(ALICE), Viewer::Gm] {
        assert!(text(&Forever::view(&state, viewer)).contains("planned: Secret at (5, 5)"));
        assert!(
            map(&state, viewer)
                .shapes
                .iter()
                .any(|s| s.kind == ShapeKind::Planned && s.label == "Secret.S1")
        );
        let Some(engine::Board::Map(board)) = Forever::view(&state, viewer).board else {
            panic!("a map");
        };
        assert!(
            board
                .shapes
                .iter()
                .any(|s| s.label == "Secret.S1" && s.note == "planned")
        );
    }
    // Both see the deployment strips.
    let strips = map(&state, Viewer::Public)
        .shapes
        .iter()
        .filter(|s| s.kind == ShapeKind::DeploymentArea)
        .count();
    assert_eq!(strips, 2);
}

#[test]
fn standing_orders_are_hidden_from_the_enemy_and_the_public() {
    let state = armada(1);
    let parsed = Forever::parse_orders(&state, ALICE, "DEFLECT A0.F2 PROTECT F1, F3");
    let mut input = TurnInput::default();
    input.orders.insert(ALICE, parsed.orders);
    let resolution = Forever::resolve(&state, &input, &mut TurnDice::scripted([], [])).unwrap();
    let state = resolution.state;
    assert!(!resolution.report.to_text().contains("F1, F3"));
    for viewer in [Viewer::Public, Viewer::Player(BOB)] {
        let view = text(&Forever::view(&state, viewer));
        assert!(!view.contains("standing order"), "{viewer:?}:\n{view}");
        let json = serde_json::to_string(&map(&state, viewer)).unwrap();
        assert!(
            !json.contains("standing") && !json.contains("protect"),
            "{json}"
        );
    }
    for viewer in [Viewer::Player(ALICE), Viewer::Gm] {
        assert!(
            text(&Forever::view(&state, viewer))
                .contains("standing order: deflector A0.F2 protects F1, F3")
        );
    }
}

#[test]
fn the_map_shows_every_part_in_inches() {
    let state = armada(2);
    let picture = map(&state, Viewer::Public);
    assert_eq!(
        (picture.width.hundredths(), picture.height.hundredths()),
        (7200, 4800)
    );
    let cores = picture
        .shapes
        .iter()
        .filter(|s| s.kind == ShapeKind::Core)
        .count();
    let sections = picture
        .shapes
        .iter()
        .filter(|s| s.kind == ShapeKind::Section)
        .count();
    assert_eq!((cores, sections), (4, 36));
    let a0 = picture
        .shapes
        .iter()
        .find(|s| s.label == "A0.core")
        .unwrap();
    let json = serde_json::to_value(a0).unwrap();
    assert_eq!(
        json["points"],
        serde_json::json!([[25, 3], [27, 3], [27, 4], [25, 4]])
    );
    assert_eq!(json["owner"], "Alice");
    assert_eq!(
        (json["hp"].as_i64(), json["max_hp"].as_i64()),
        (Some(10), Some(10))
    );
    // Bob's ships face 180°: B0's F1 lies to the left of its core.
    let f1 = picture.shapes.iter().find(|s| s.label == "B0.F1").unwrap();
    assert_eq!(
        serde_json::to_value(f1).unwrap()["points"][0],
        serde_json::json!([45, 4])
    );
}
