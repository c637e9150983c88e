#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    dead_code,
    reason = "test helpers: a failure should stop the test loudly; not every test uses every helper"
)]
//! Helpers shared by the integration tests: two players, a game from a setup, a turn from
//! order texts and scripted dice.

use engine::{Engine, Player, PlayerId, Report, TurnDice, TurnInput};
use forever::state::Ship;
use forever::{Forever, Setup, State};
use serde_json::Value;

pub const ALICE: PlayerId = PlayerId(1);
pub const BOB: PlayerId = PlayerId(2);

pub fn players() -> Vec<Player> {
    vec![
        Player {
            id: ALICE,
            name: "Alice".into(),
        },
        Player {
            id: BOB,
            name: "Bob".into(),
        },
    ]
}

/// A game from setup JSON; the roll-off gives Alice 6 and Bob 1, so Alice goes first.
pub fn start(setup: Value) -> State {
    let setup: Setup = serde_json::from_value(setup).unwrap();
    Forever::new_game(&setup, &players(), &mut TurnDice::scripted([6, 1], [])).unwrap()
}

/// A game where Alice and Bob each have the ships given as (design lines, x, y, facing).
pub fn battle(alice: &[(&[&str], f64, f64, i64)], bob: &[(&[&str], f64, f64, i64)]) -> State {
    let fleet = |ships: &[(&[&str], f64, f64, i64)]| {
        let ships: Vec<Value> = ships
            .iter()
            .map(|(design, x, y, facing)| serde_json::json!({"design": design, "at": [x, y], "facing": facing}))
            .collect();
        serde_json::json!({ "ships": ships })
    };
    start(serde_json::json!({ "fleets": [fleet(alice), fleet(bob)] }))
}

/// Plays one turn: each player's order text (which must parse cleanly) and the open dice,
/// every one of which must be used.
pub fn play(state: &State, orders: &[(PlayerId, &str)], dice: &[u32]) -> (State, Report) {
    let mut input = TurnInput::default();
    for (player, text) in orders {
        let parsed = Forever::parse_orders(state, *player, text);
        assert!(parsed.errors.is_empty(), "{text}: {:#?}", parsed.errors);
        input.orders.insert(*player, parsed.orders);
    }
    let mut turn_dice = rulecases::dice::scripted(dice, &[]);
    let resolution = Forever::resolve(state, &input, &mut turn_dice).unwrap();
    // Bearings are not in the roll log, so the shared sentinel check counts the draws.
    if let Err(e) = rulecases::dice::all_used(&mut turn_dice) {
        panic!("{e}\n{}", resolution.report.to_text());
    }
    (resolution.state, resolution.report)
}

pub fn ship<'a>(state: &'a State, name: &str) -> &'a Ship {
    state
        .ships
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no ship {name}"))
}

/// HP of a ship's part by name.
pub fn hp(state: &State, ship_name: &str, part: &str) -> i64 {
    let ship = ship(state, ship_name);
    let hull = forever::design::Hull::check(&ship.design).unwrap();
    ship.parts[hull.part_index(part).unwrap()].hp
}

/// The Result column of a ship's row.
pub fn result(report: &Report, row: &str) -> String {
    report
        .rows
        .iter()
        .find(|r| r.name == row)
        .unwrap_or_else(|| panic!("no row {row}:\n{}", report.to_text()))
        .result
        .clone()
}

/// A design's lines with the ship renamed, leaked for `'static` use in a test.
pub fn renamed(lines: &[&str], name: &str) -> Vec<&'static str> {
    lines
        .iter()
        .map(|line| {
            let line = if line.starts_with("SHIP ") {
                format!("SHIP {name}")
            } else {
                (*line).to_string()
            };
            &*Box::leak(line.into_boxed_str())
        })
        .collect()
}

/// A ten-part cruiser: guns and a laser in the bow, missile, rail gun, thruster, gunner,
/// deflector. Every weapon has a clear line forward.
pub const CRUISER: &[&str] = &[
    "SHIP Cruiser",
    "CORE",
    "SECTION F1 PARENT CORE SIZE 1x1 AT (1.5, 0)",
    "SECTION F2 PARENT F1 SIZE 1x1 AT (2.5, 0) MOUNT DEFLECTOR",
    "SECTION F3 PARENT F2 SIZE 1x1 AT (3.5, 0) MOUNT GUN(range 24) MOUNT LASER(range 24)",
    "SECTION R1 PARENT CORE SIZE 1x1 AT (-1.5, 0)",
    "SECTION R2 PARENT R1 SIZE 1x1 AT (-2.5, 0) MOUNT THRUSTER(thrust 40)",
    "SECTION T1 PARENT CORE SIZE 2x1 AT (0, 1) MOUNT GUN(range 24)",
    "SECTION T2 PARENT T1 SIZE 2x1 AT (0, 2) MOUNT MISSILE(range 24, damage 2)",
    "SECTION B1 PARENT CORE SIZE 2x1 AT (0, -1) MOUNT RAIL(range 24, damage 2)",
    "SECTION B2 PARENT B1 SIZE 2x1 AT (0, -2) MOUNT GUNNER",
];

/// Two fleets of `count` cruisers facing each other across 20" (Alice's named A0.., Bob's B0..).
pub fn armada(count: usize) -> State {
    let fleet = |prefix: &str, x: f64, facing: i64| {
        let ships: Vec<Value> = (0..count)
            .map(|k| {
                let lines: Vec<String> = CRUISER
                    .iter()
                    .map(|l| if l.starts_with("SHIP ") { format!("SHIP {prefix}{k}") } else { (*l).to_string() })
                    .collect();
                serde_json::json!({"design": lines, "at": [x, 3.5 + 5.5 * k as f64], "facing": facing})
            })
            .collect();
        serde_json::json!({ "ships": ships })
    };
    start(serde_json::json!({
        "points_limit": 2000,
        "fleets": [fleet("A", 26.0, 0), fleet("B", 46.0, 180)],
    }))
}

/// Every ship fires everything at the ship opposite and moves a little; deflectors stand ready.
pub fn broadsides(state: &State, count: usize) -> Vec<(PlayerId, String)> {
    let mut out = Vec::new();
    for (player, own, enemy, step) in [(ALICE, "A", "B", "1, 0"), (BOB, "B", "A", "-1, 0")] {
        let mut text = String::new();
        for k in 0..count {
            let (me, them) = (format!("{own}{k}"), format!("{enemy}{k}"));
            if state.ships.iter().any(|s| s.name == me && !s.destroyed) {
                text.push_str(&format!(
                    "MOVE1 {me} BY {step}\nFIRE {me}.F3/1 AT {them}.core\nFIRE {me}.F3/2 AT {them}.F3 SWEEP L\nFIRE {me}.T1 AT {them}.T1\nFIRE {me}.T2 AT {them}.B1\nFIRE {me}.B1 AT {them}.core\nDEFLECT {me}.F2 PROTECT ANY\n"
                ));
            }
        }
        out.push((player, text));
    }
    out
}
