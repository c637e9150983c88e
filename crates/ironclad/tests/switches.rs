#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The GM's switches (the rulebook): each listed in words with its rule ID whatever its value,
//! setups and states stored before the switches read as the defaults, and what the case table
//! cannot reach (orders stored before a switch took effect).

use engine::{Engine, Player, PlayerId, TurnDice, TurnInput};
use ironclad::{Ironclad, MoveOrder, Orders, OverLimitMoves, Setup, ShipId, ShipOrders};

fn text(setup: &Setup, rule: &str, needle: &str) -> bool {
    Ironclad::rulings(setup)
        .iter()
        .any(|r| r.rule == rule && r.text.contains(needle))
}

#[test]
fn every_switch_is_listed_in_words_either_way() {
    // IRON-GM-08, IRON-GM-07, IRON-DMG-02, IRON-GM-10
    let default = Setup::default();
    assert_eq!(default.move_order, MoveOrder::OrderLines);
    assert_eq!(default.over_limit_moves, OverLimitMoves::Refused);
    assert!(default.broken_off_ships_fire);
    assert_eq!(Ironclad::rulings(&default).len(), 4);
    assert!(text(
        &default,
        "IRON-GM-08",
        "ORDER lines give, then by ship number"
    ));
    assert!(text(&default, "IRON-GM-07", "is refused"));
    assert!(text(&default, "IRON-DMG-02", "may still fire"));
    assert!(text(&default, "IRON-GM-07", "cannot turn"));

    let switched: Setup = serde_json::from_str(
        r#"{"move_order": "leaving_first", "over_limit_moves": "cut_down",
            "broken_off_ships_fire": false, "allow_pivot_when_slowed": true}"#,
    )
    .unwrap();
    assert!(text(
        &switched,
        "IRON-GM-08",
        "leaving an area moves before"
    ));
    assert!(text(&switched, "IRON-GM-07", "cut down to F"));
    assert!(text(&switched, "IRON-DMG-02", "does not fire"));
    assert!(text(&switched, "IRON-GM-07", "pivot"));
    let by_id: Setup = serde_json::from_str(r#"{"move_order": "ship_id"}"#).unwrap();
    assert!(text(&by_id, "IRON-GM-08", "ORDER lines are not used"));
}

#[test]
fn states_stored_before_the_switches_read_as_the_defaults_and_stay_the_same() {
    // IRON-GM-08, IRON-GM-07, IRON-DMG-02: a default is not written into the state, so a
    // stored game's state is byte for byte what it was.
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    let state =
        Ironclad::new_game(&Setup::default(), &players, &mut TurnDice::scripted([], [])).unwrap();
    let json = serde_json::to_string(&state).unwrap();
    for field in ["move_order", "over_limit_moves", "broken_off_ships_fire"] {
        assert!(!json.contains(field), "{field} written: {json}");
    }
    let again: ironclad::State = serde_json::from_str(&json).unwrap();
    assert_eq!(again, state);
    assert!(again.rules.broken_off_ships_fire);
}

#[test]
fn a_stored_fire_order_from_a_broken_off_ship_holds_fire_under_the_switch() {
    // IRON-DMG-02, IRON-GM-10: orders checked again at resolution hold her fire, with the reason.
    let setup: Setup = serde_json::from_str(
        r#"{"broken_off_ships_fire": false, "sides": [
            {"name": "Blue", "home_edge": "north", "ships": [{"name": "Artemis", "at": "E5", "heading": "N"}]},
            {"name": "Red", "home_edge": "south", "ships": [{"name": "Leonidas", "at": "G5", "heading": "N"}]}]}"#,
    )
    .unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    let mut state = Ironclad::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap();
    let artemis = state.ship_mut(ShipId(1)).unwrap();
    artemis.fp = 6;
    artemis.broken_off = true;
    let orders = Orders {
        ships: [(
            ShipId(1),
            ShipOrders {
                main: vec![ShipId(2)],
                ..ShipOrders::default()
            },
        )]
        .into(),
        ..Orders::default()
    };
    let input = TurnInput {
        orders: [(PlayerId(1), orders)].into(),
        ..TurnInput::default()
    };
    let report = Ironclad::resolve(&state, &input, &mut TurnDice::scripted([6, 1], []))
        .unwrap()
        .report;
    let row = &report.rows[0];
    assert!(
        row.result
            .contains("M held fire: she has broken off, and in this game a ship that has broken off does not fire"),
        "{}",
        report.to_text()
    );
}
