#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Invariants over random input: prices are never negative and never fall when more is bought;
//! no design text makes the checker panic; no section ever has more HP than its maximum; the
//! same state, orders and seed give byte-identical state and report.

mod common;

use common::{ALICE, BOB, CRUISER, start};
use engine::{Engine, GameSecret, TurnInput};
use forever::design::{Design, Hull, ModuleSpec, WeaponKind, WeaponSpec};
use forever::{Forever, State};
use proptest::prelude::*;

const KINDS: [WeaponKind; 6] = [
    WeaponKind::Gun,
    WeaponKind::Laser,
    WeaponKind::Missile,
    WeaponKind::Rail,
    WeaponKind::Torpedo,
    WeaponKind::TorpedoMissile,
];

fn modules(a: u32, b: u32, c: u32, flag: bool) -> Vec<ModuleSpec> {
    vec![
        ModuleSpec::TowHitch,
        ModuleSpec::Thruster { thrust_steps: a },
        ModuleSpec::Deflector {
            fast_recharge: flag,
            double: !flag,
        },
        ModuleSpec::DefensiveGunner { extra_shots: a },
        ModuleSpec::Emp {
            range_steps: a,
            accuracy_steps: b,
            fast_recharge: flag,
        },
        ModuleSpec::FluxProjector {
            extra_energy: a,
            extra_dice: b,
        },
        ModuleSpec::DemeterControl { extra_control: a },
        ModuleSpec::DemeterLauncher {
            speed_steps: a.min(8),
            extra_hp: b,
            extra_rounds: c,
        },
        ModuleSpec::TargetingComputer,
        ModuleSpec::NanoMatrix {
            extra_range: a,
            extra_energy: b,
            extra_dice: c,
        },
    ]
}

/// A small battle with healers, for the HP invariant.
fn skirmish() -> State {
    let medic = |name: &str| {
        vec![
            format!("SHIP {name}"),
            "CORE".to_string(),
            "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT NANO(range 6)".to_string(),
            "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT THRUSTER(thrust 20)".to_string(),
        ]
    };
    let cruiser = |name: &str| -> Vec<String> {
        CRUISER
            .iter()
            .map(|l| {
                if l.starts_with("SHIP ") {
                    format!("SHIP {name}")
                } else {
                    (*l).to_string()
                }
            })
            .collect()
    };
    start(serde_json::json!({
        "points_limit": 2000,
        "fleets": [
            {"ships": [{"design": cruiser("A0"), "at": [28, 24]}, {"design": medic("AM"), "at": [22, 24]}]},
            {"ships": [{"design": cruiser("B0"), "at": [40, 24], "facing": 180}, {"design": medic("BM"), "at": [46, 24], "facing": 180}]}
        ]
    }))
}

const ALICE_ORDERS: &[&str] = &[
    "FIRE A0.F3/1 AT B0.core",
    "FIRE A0.F3/2 AT B0.F1 SWEEP L 0.5",
    "FIRE A0.T1 AT B0.T1",
    "FIRE A0.T2 AT B0.B1",
    "FIRE A0.B1 AT B0.F2",
    "NANO AM.S1 HEAL A0.R1 9",
    "NANO AM.S1 HEAL A0.core 3",
    "MOVE1 A0 BY 1, 0 TURN 5",
    "MOVE2 AM BY 2, 1",
    "DEFLECT A0.F2 PROTECT ANY",
];

const BOB_ORDERS: &[&str] = &[
    "FIRE B0.F3/1 AT A0.core",
    "FIRE B0.F3/2 AT A0.F2 SWEEP R 1",
    "FIRE B0.T1 AT A0.F3",
    "FIRE B0.T2 AT A0.T1",
    "FIRE B0.B1 AT A0.B2",
    "NANO BM.S1 HEAL B0.F1 9",
    "NANO BM.S1 HEAL A0.T2 2",
    "MOVE1 B0 BY -1, 0",
    "MOVE2 BM BY -1, -1",
    "DEFLECT B0.F2 PROTECT F1, F3",
];

fn input(state: &State, alice: &[usize], bob: &[usize]) -> TurnInput<forever::Orders> {
    let mut input = TurnInput::default();
    for (player, pool, picks) in [(ALICE, ALICE_ORDERS, alice), (BOB, BOB_ORDERS, bob)] {
        let text: Vec<&str> = picks.iter().map(|i| pool[*i % pool.len()]).collect();
        let parsed = Forever::parse_orders(state, player, &text.join("\n"));
        input.orders.insert(player, parsed.orders);
    }
    input
}

fn assert_hp_within_maximum(state: &State) {
    let hulls = state.hulls().unwrap();
    for (ship, hull) in state.ships.iter().zip(&hulls) {
        for (part, spec) in ship.parts.iter().zip(&hull.parts) {
            assert!(
                part.hp <= spec.max_hp,
                "{}.{} has {} of {}",
                ship.name,
                spec.name,
                part.hp,
                spec.max_hp
            );
        }
    }
    for body in &state.bodies {
        for section in &body.sections {
            assert!(section.hp <= section.base_hp + 20, "{}", body.label());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn weapon_costs_are_never_negative_and_never_fall(kind in 0..6usize, range in 0..20u32, damage in 0..20u32, accuracy in 0..20u32, sweep in 0..8u32, hp in 0..8u32, which in 0..5usize) {
        let spec = WeaponSpec { kind: KINDS[kind], range_steps: range, damage_steps: damage, accuracy_steps: accuracy, sweep_steps: sweep, hp_steps: hp };
        prop_assert!(spec.cost().quarters() > 0);
        let mut more = spec;
        match which {
            0 => more.range_steps += 1,
            1 => more.damage_steps += 1,
            2 => more.accuracy_steps += 1,
            3 => more.sweep_steps += 1,
            _ => more.hp_steps += 1,
        }
        prop_assert!(more.cost() >= spec.cost());
    }

    #[test]
    fn module_costs_are_never_negative_and_never_fall(a in 0..20u32, b in 0..20u32, c in 0..20u32, flag: bool) {
        for (spec, more) in modules(a, b, c, flag).into_iter().zip(modules(a + 1, b + 1, c + 1, flag)) {
            prop_assert!(spec.cost().quarters() > 0);
            prop_assert!(more.cost() >= spec.cost());
        }
    }

    #[test]
    fn no_design_text_makes_the_checker_panic(sections in proptest::collection::vec((0..6usize, 1..9i64, 1..9i64, -24..24i64, -24..24i64, 0..4u32, 0..12usize, any::<bool>()), 0..8)) {
        let items = ["", " MOUNT GUN", " MOUNT LASER(sweep 3)", " MOUNT THRUSTER(thrust 30)", " MOUNT DEFLECTOR", " MOUNT GUNNER",
                     " MOUNT EMP", " MOUNT FLUX", " MOUNT NANO", " MOUNT TOW", " MOUNT GUN MOUNT GUN", " MOUNT RAIL(damage 9)"];
        let mut text = String::from("SHIP Random\nCORE HP+1\n");
        for (index, (parent, w, h, x, y, hp, item, swivel)) in sections.iter().enumerate() {
            let parent = if *parent == 0 || *parent > index { "CORE".to_string() } else { format!("S{parent}") };
            text.push_str(&format!(
                "SECTION S{} PARENT {parent} SIZE {}x{} AT ({}, {}) HP+{hp}{}{}\n",
                index + 1,
                *w as f64 / 4.0,
                *h as f64 / 4.0,
                *x as f64 / 8.0,
                *y as f64 / 8.0,
                if *swivel { " SWIVEL" } else { "" },
                items[*item]
            ));
        }
        let design = Design::parse(&text).unwrap();
        let (hull, _) = Hull::build(&design);
        if let Some(hull) = hull {
            prop_assert!(hull.cost().quarters() > 0);
            prop_assert!(hull.speed() <= 2000);
            prop_assert!(hull.parts[0].max_hp <= 10);
            prop_assert!(hull.parts.iter().all(|p| p.max_hp >= 1 && p.mass16 > 0));
        }
    }

    #[test]
    fn hp_never_exceeds_maximum_and_a_seed_replays_to_the_same_bytes(
        seed in any::<[u8; 32]>(),
        picks in proptest::collection::vec((proptest::collection::vec(0..10usize, 0..8), proptest::collection::vec(0..10usize, 0..8)), 1..4),
    ) {
        let secret = GameSecret::from_bytes(seed);
        let mut state = skirmish();
        for (turn, (alice, bob)) in picks.iter().enumerate() {
            if state.finish.is_some() {
                break;
            }
            let orders = input(&state, alice, bob);
            let first = Forever::resolve(&state, &orders, &mut secret.turn_dice(turn as u32 + 1)).unwrap();
            let again = Forever::resolve(&state, &orders, &mut secret.turn_dice(turn as u32 + 1)).unwrap();
            prop_assert_eq!(serde_json::to_string(&first.state).unwrap(), serde_json::to_string(&again.state).unwrap());
            prop_assert_eq!(serde_json::to_string(&first.report).unwrap(), serde_json::to_string(&again.report).unwrap());
            assert_hp_within_maximum(&first.state);
            // The state survives a round trip through its JSON.
            let json = serde_json::to_string(&first.state).unwrap();
            let back: State = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
            state = first.state;
        }
    }
}

#[test]
fn the_skirmish_orders_all_parse_and_do_damage() {
    let state = skirmish();
    for (player, pool) in [(ALICE, ALICE_ORDERS), (BOB, BOB_ORDERS)] {
        let parsed = Forever::parse_orders(&state, player, &pool.join("\n"));
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    }
    let all: Vec<usize> = (0..10).collect();
    let orders = input(&state, &all, &all);
    let resolution = Forever::resolve(
        &state,
        &orders,
        &mut GameSecret::from_bytes([3; 32]).turn_dice(1),
    )
    .unwrap();
    let text = resolution.report.to_text();
    assert!(text.contains("−"), "no damage at all:\n{text}");
    assert!(text.contains("healed"), "no healing:\n{text}");
    assert_hp_within_maximum(&resolution.state);
}
