#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "benchmark set-up: a failure should stop it loudly"
)]
//! One full turn of two fleets of ten units each, wings flying and torpedoes running (issue 9's
//! target: under 1 ms): storms, initiative, countermeasures and the Torpedo Step, then twenty
//! activations that move, spend CMD and fire every weapon, with damage, criticals, morale and
//! damage control, and the report.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{Engine, GameSecret, Player, PlayerId, TurnDice, TurnInput};
use serde_json::json;
use skyfleet::{Orders, Setup, Skyfleet, State};

fn fleet(side: &str, x: i64, heading: i64) -> serde_json::Value {
    let name = |n: &str| format!("{side} {n}");
    let at = |y: i64| json!([x, y]);
    json!([
        {"name": name("Capital"), "class": "capital", "at": at(24), "heading": heading, "elevation": 5,
         "weapons": {"fwd": "Siege Lance", "port1": "Dreadnought Battery", "port2": "Mega-Flak Array",
                     "stbd1": "Dreadnought Battery", "stbd2": "Mega-Flak Array", "aft": "Siege Missile Rack"},
         "utilities": ["Armored Bridge", "Reinforced Bulkheads", "Signal Array"]},
        {"name": name("Carrier A"), "class": "command", "at": at(14), "heading": heading, "elevation": 4,
         "weapons": {"fwd": "Heavy Missile", "aft": "Flak Cannon"},
         "utilities": ["Hangar", "DC Center", "Acoustic Decoys", "Chaff Launcher"],
         "wings": [{"name": name("Wing A"), "weapons": ["MG", "Bombs", "Rockets"]}]},
        {"name": name("Carrier B"), "class": "command", "at": at(34), "heading": heading, "elevation": 4,
         "weapons": {"fwd": "Heavy Lance", "aft": "Flak Cannon"},
         "utilities": ["Hangar", "DC Center", "Signal Array", "Chaff Launcher"],
         "wings": [{"name": name("Wing B"), "weapons": ["MG", "MG", "Rockets"]}]},
        {"name": name("Gunship A"), "class": "gunship", "at": at(6), "heading": heading, "elevation": 5,
         "weapons": {"fwd": "Torpedo Launcher", "port": "Naval Battery", "stbd": "Naval Battery"},
         "utilities": ["Sonar", "Chaff Launcher"]},
        {"name": name("Gunship B"), "class": "gunship", "at": at(42), "heading": heading, "elevation": 5,
         "weapons": {"fwd": "Heavy Lance", "port": "Naval Battery", "stbd": "Naval Battery"},
         "utilities": ["Sonar"]},
        {"name": name("Escort A"), "class": "escort", "at": at(19), "heading": heading, "elevation": 6,
         "weapons": {"turret": "Flak"}, "utilities": ["Dive Brakes"]},
        {"name": name("Escort B"), "class": "escort", "at": at(29), "heading": heading, "elevation": 6,
         "weapons": {"turret": "Cannon"}, "utilities": ["Compressed Gas"]}
    ])
}

fn orders_text(side: &str) -> String {
    let mut text = String::new();
    for unit in [
        "Capital",
        "Carrier A",
        "Carrier B",
        "Gunship A",
        "Gunship B",
        "Escort A",
        "Escort B",
        "Wing A",
        "Wing B",
    ] {
        text.push_str(&format!("ACTIVATE {side} {unit}\n"));
        match unit {
            "Capital" => {
                text.push_str("CMD TARGETLOCK fwd\nMOVE F 4 P +22.5 F 1\nFIRE ALL AT NEAREST\n")
            }
            "Carrier A" | "Carrier B" => {
                text.push_str("CMD FULLAHEAD\nMOVE F 5 P -45 F 4\nFIRE ALL AT NEAREST\n")
            }
            "Gunship A" | "Gunship B" => text.push_str("MOVE F 3 P +45 F 4\nFIRE ALL AT NEAREST\n"),
            "Escort A" | "Escort B" => text.push_str("MOVE F 2 P -90 F 8\nFIRE ALL AT NEAREST\n"),
            _ => text.push_str("MOVE F 8 P +90 F 7\nFIRE ALL AT NEAREST\n"),
        }
    }
    for unit in [
        "Capital",
        "Carrier A",
        "Carrier B",
        "Gunship A",
        "Gunship B",
    ] {
        text.push_str(&format!("STANDING BRACE {side} {unit}\n"));
    }
    for unit in ["Carrier A", "Carrier B", "Gunship A"] {
        text.push_str(&format!("STANDING CHAFF {side} {unit}\n"));
    }
    text.push_str(&format!("STANDING COUNTERMEASURES {side} Carrier A\n"));
    text
}

/// Turn 1 launches the wings and a torpedo from each side; the benchmark resolves turn 2:
/// ten units a side (seven ships, two wings, a torpedo).
fn battle() -> (State, TurnInput<Orders>) {
    let setup: Setup = serde_json::from_value(json!({
        "budget": 5000, "deployment_depth": 72,
        "terrain": {
            "islands": [{"name": "Anvil", "shape": {"circle": {"centre": [36, 24], "radius": 3}}}],
            "clouds": [{"name": "Veil", "shape": {"polygon": [[30, 38], [42, 38], [42, 46], [30, 46]]}}],
            "storms": [{"name": "Squall", "shape": {"circle": {"centre": [36, 4], "radius": 3}}}]
        },
        "sides": [
            {"name": "Red", "fleet": fleet("Red", 22, 90)},
            {"name": "Blue", "fleet": fleet("Blue", 50, 270)}
        ]
    }))
    .unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    let mut state = Skyfleet::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap();
    let mut first = TurnInput::default();
    for (id, side) in [(1, "Red"), (2, "Blue")] {
        let text = format!(
            "{side} Carrier A: CMD LAUNCHWING; HOLD FIRE\n{side} Carrier B: CMD LAUNCHWING; HOLD FIRE\n{side} Gunship A: CMD LAUNCHTORPEDO; HOLD FIRE\n{side} Capital: HOLD FIRE\n{side} Gunship B: HOLD FIRE\n{side} Escort A: HOLD FIRE\n{side} Escort B: HOLD FIRE"
        );
        let parsed = Skyfleet::parse_orders(&state, PlayerId(id), &text);
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        first.orders.insert(PlayerId(id), parsed.orders);
    }
    let secret = GameSecret::from_bytes([42; 32]);
    state = Skyfleet::resolve(&state, &first, &mut secret.turn_dice(1))
        .unwrap()
        .state;
    let per_side = |side: u8| {
        state
            .units
            .iter()
            .filter(|u| u.side == side && u.in_play())
            .count()
    };
    assert_eq!((per_side(0), per_side(1)), (10, 10));
    let mut input = TurnInput::default();
    for (id, side) in [(1, "Red"), (2, "Blue")] {
        let parsed = Skyfleet::parse_orders(&state, PlayerId(id), &orders_text(side));
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        input.orders.insert(PlayerId(id), parsed.orders);
    }
    (state, input)
}

fn turn(c: &mut Criterion) {
    let (state, input) = battle();
    let secret = GameSecret::from_bytes([7; 32]);
    let report = Skyfleet::resolve(&state, &input, &mut secret.turn_dice(2))
        .unwrap()
        .report;
    assert!(report.rows.len() >= 20, "{}", report.to_text());
    if std::env::var_os("SKYFLEET_SHOW").is_some() {
        println!("{}", report.to_text_width(200));
    }
    c.bench_function(
        "skyfleet turn: 2 fleets of 10 units, wings and torpedoes",
        |b| {
            b.iter(|| {
                let mut dice = secret.turn_dice(2);
                black_box(
                    Skyfleet::resolve(black_box(&state), black_box(&input), &mut dice).unwrap(),
                )
            })
        },
    );
}

criterion_group!(benches, turn);
criterion_main!(benches);
