#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Hidden information while fleets are built by mail (FOREVER-GM-44): nothing another player
//! or the public reads — the report, the views, the map, an order confirmation — may depend on
//! a fleet that has not been revealed: not its ships' names, not how many there are, not their
//! designs.

mod common;

use common::{ALICE, BOB, start};
use engine::{Engine, ParsedOrders, Report, TurnDice, TurnInput, Viewer};
use forever::{Forever, Orders, State};

const ONE_SHIP: &str = "SHIP Hammer\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN\nDEPLOY Hammer AT 10, 24";

const THREE_SHIPS: &str = "SHIP Maul\nCORE HP+2\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT RAIL\nDEPLOY Maul AT 10, 10\n\
SHIP Pick\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)\nDEPLOY Pick AT 10, 20\n\
SHIP Adze\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN\nDEPLOY Adze AT 10, 30";

/// Bob's fleet uses the name of one of Alice's hidden ships.
const BOB_FLEET: &str = "SHIP Hammer\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN\nDEPLOY Hammer AT 60, 24 FACING 180";

fn accepted(alice: &str) -> (State, Report) {
    let state = start(serde_json::json!({}));
    let parsed = Forever::parse_orders(&state, ALICE, alice);
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    let mut input = TurnInput::<Orders>::default();
    input.orders.insert(ALICE, parsed.orders);
    let next = Forever::resolve(&state, &input, &mut TurnDice::scripted([], [])).unwrap();
    assert!(next.state.seat(ALICE).unwrap().ready);
    (next.state, next.report)
}

fn confirmation(parsed: &ParsedOrders<Orders>) -> String {
    format!(
        "{:?}\n{:?}\n{:?}",
        parsed.understood, parsed.errors, parsed.warnings
    )
}

#[test]
fn forever_gm_44_a_hidden_fleet_leaks_no_name_and_no_count() {
    let (one, one_report) = accepted(ONE_SHIP);
    let (three, three_report) = accepted(THREE_SHIPS);
    // The public report of the turn Alice's fleet was accepted is the same whatever it holds.
    assert_eq!(one_report.to_text(), three_report.to_text());
    let text = one_report.to_text();
    for leak in ["Hammer", "1 ship", "fleet of"] {
        assert!(!text.contains(leak), "the report leaks {leak:?}:\n{text}");
    }
    // So are Bob's view, the public view and both maps.
    for viewer in [Viewer::Player(BOB), Viewer::Public] {
        assert_eq!(
            Forever::view(&one, viewer),
            Forever::view(&three, viewer),
            "{viewer:?}"
        );
        assert_eq!(forever::map(&one, viewer), forever::map(&three, viewer));
    }
    // Bob naming a ship Hammer is told nothing of Alice's Hammer: his confirmation is the same
    // whether her hidden fleet has a Hammer or not, and the fleet is accepted.
    let bob_one = Forever::parse_orders(&one, BOB, BOB_FLEET);
    let bob_three = Forever::parse_orders(&three, BOB, BOB_FLEET);
    assert_eq!(confirmation(&bob_one), confirmation(&bob_three));
    assert!(bob_one.errors.is_empty(), "{:#?}", bob_one.errors);
    assert!(!confirmation(&bob_one).contains("taken"));

    // Both fleets in: they are placed, and Bob's Hammer, placed second, is renamed in public.
    let mut input = TurnInput::<Orders>::default();
    input.orders.insert(BOB, bob_one.orders);
    let placed = Forever::resolve(&one, &input, &mut TurnDice::scripted([], [])).unwrap();
    let names: Vec<(u64, &str)> = placed
        .state
        .ships
        .iter()
        .map(|s| (s.owner.0, s.name.as_str()))
        .collect();
    assert_eq!(names, [(1, "Hammer"), (2, "Hammer-2")]);
    assert!(
        placed
            .report
            .notes
            .iter()
            .any(|n| n.contains("Bob's Hammer is renamed Hammer-2")),
        "{}",
        placed.report.to_text()
    );
}

#[test]
fn forever_gm_44_a_name_on_the_table_is_refused() {
    // Alternate deployment: Alice's first ship is placed, and so public; Bob may not take its
    // name.
    let state = start(serde_json::json!({"deploy_mode": "alternate"}));
    let parsed = Forever::parse_orders(&state, ALICE, ONE_SHIP);
    let mut input = TurnInput::<Orders>::default();
    input.orders.insert(ALICE, parsed.orders);
    let next = Forever::resolve(&state, &input, &mut TurnDice::scripted([], [])).unwrap();
    assert_eq!(next.state.ships.len(), 1);
    let bob = Forever::parse_orders(&next.state, BOB, BOB_FLEET);
    assert!(
        bob.errors.iter().any(|e| e
            .problem
            .contains("the name Hammer is taken by a ship on the table")),
        "{:#?}",
        bob.errors
    );
}
