#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Invariants over random battles: Hull never above its maximum, every to-hit number within
//! 2+..6+, each named CMD action at most once per ship per turn and CMD never overspent, and
//! the same state, orders and seed give byte-identical state and report.

use engine::{Engine, GameSecret, Player, PlayerId, TurnDice, TurnInput};
use proptest::prelude::*;
use serde_json::json;
use skyfleet::fire::{assess, to_hit};
use skyfleet::orders::{
    Activation, Aim, CmdAction, CmdOrder, FireOrder, Orders, PivotSpec, Skip, Step, Target,
};
use skyfleet::state::Morale;
use skyfleet::{Length, Setup, Skyfleet, State, Turn, UnitId};

/// Two fleets close enough to fight at once: every class, wings, torpedo launchers, and the
/// modules that react.
fn skirmish() -> State {
    let setup: Setup = serde_json::from_value(json!({
        "budget": 5000, "deployment_depth": 72,
        "terrain": {
            "islands": [{"name": "Crag", "shape": {"circle": {"centre": [36, 24], "radius": 3}}}],
            "clouds": [{"name": "Murk", "shape": {"polygon": [[30, 4], [42, 4], [42, 12], [30, 12]]}}],
            "storms": [{"name": "Squall", "shape": {"circle": {"centre": [36, 40], "radius": 4}}}]
        },
        "sides": [
            {"name": "Red", "fleet": [
                {"name": "Leviathan", "class": "capital", "at": [24, 24], "heading": 90, "elevation": 5,
                 "weapons": {"fwd": "Torpedo Launcher", "port1": "Dreadnought Battery", "stbd1": "Dreadnought Battery",
                             "aft": "Siege Missile Rack", "port2": "Mega-Flak Array"},
                 "utilities": ["Armored Bridge", "Reinforced Bulkheads", "Signal Array"]},
                {"name": "Resolute", "class": "command", "at": [26, 34], "heading": 90, "elevation": 6,
                 "weapons": {"fwd": "Torpedo Launcher", "aft": "Flak Cannon"},
                 "utilities": ["Hangar", "Hangar", "DC Center", "Acoustic Decoys"],
                 "wings": [{"name": "Hawk", "weapons": ["MG", "Bombs", "Rockets"]},
                           {"name": "Kite", "weapons": ["MG", "MG", "Rockets"]}]},
                {"name": "Valiant", "class": "gunship", "at": [28, 14], "heading": 90, "elevation": 4,
                 "weapons": {"fwd": "Heavy Missile", "port": "Naval Battery", "stbd": "Naval Battery"},
                 "utilities": ["Sonar", "Chaff Launcher"]},
                {"name": "Swift", "class": "escort", "at": [30, 44], "heading": 90, "elevation": 8,
                 "weapons": {"turret": "Cannon"}, "utilities": ["Compressed Gas"]}
            ]},
            {"name": "Blue", "fleet": [
                {"name": "Dominion", "class": "command", "at": [46, 34], "heading": 270, "elevation": 6,
                 "weapons": {"fwd": "Heavy Lance", "aft": "Flak Cannon"},
                 "utilities": ["Hangar", "Signal Array", "Dive Brakes", "Chaff Launcher"],
                 "wings": [{"name": "Falcon", "weapons": ["MG", "Bombs", "Rockets"]}]},
                {"name": "Tempest", "class": "gunship", "at": [44, 14], "heading": 270, "elevation": 4,
                 "weapons": {"fwd": "Torpedo Launcher", "port": "Naval Battery", "stbd": "Naval Battery"},
                 "utilities": ["Acoustic Decoys", "DC Center"]},
                {"name": "Titan", "class": "capital", "at": [48, 24], "heading": 270, "elevation": 5,
                 "weapons": {"fwd": "Siege Lance", "port1": "Mega-Flak Array", "stbd1": "Dreadnought Battery",
                             "aft": "Dreadnought Battery"},
                 "utilities": ["Reinforced Bulkheads", "Armored Bridge", "Sonar"]},
                {"name": "Arrow", "class": "escort", "at": [42, 44], "heading": 270, "elevation": 8,
                 "weapons": {"turret": "Lance"}, "utilities": ["Dive Brakes"]}
            ]}
        ]
    }))
    .unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    let mut state = Skyfleet::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap();
    for (index, side) in state.sides.iter_mut().enumerate() {
        let ships: Vec<UnitId> = [[0u16, 1, 4, 5], [6, 8, 9, 10]][index]
            .iter()
            .map(|i| UnitId(*i))
            .collect();
        side.standing.brace = ships.iter().copied().collect();
        side.standing.chaff = ships.iter().copied().collect();
        side.standing.countermeasures = ships.iter().map(|s| (*s, Default::default())).collect();
    }
    state
}

/// A random activation for a unit: steps, CMD actions (repeats included, to test the limit),
/// and fire at the nearest.
fn activation_strategy(unit: UnitId, friends: Vec<UnitId>) -> impl Strategy<Value = Activation> {
    let step = prop_oneof![
        (0i64..1600).prop_map(|h| Step::Forward(Length(h))),
        (-8i32..=8).prop_map(|k| Step::Pivot(Turn(k * 45))),
        (0u8..4).prop_map(Step::Climb),
        (0u8..4).prop_map(Step::Dive),
        (0u16..12).prop_map(|id| Step::Toward(Aim::Unit(UnitId(id)))),
    ];
    let friends_for_rally = friends.clone();
    let action = prop_oneof![
        Just(CmdAction::FullAhead),
        Just(CmdAction::Brace),
        Just(CmdAction::CompressedGas),
        Just(CmdAction::LaunchTorpedo),
        Just(CmdAction::LaunchWing(None)),
        Just(CmdAction::EmergencyRepairs(Skip::Move)),
        Just(CmdAction::EmergencyRepairs(Skip::Shoot)),
        (-2i32..=2).prop_map(|k| CmdAction::HardAround(PivotSpec::By(Turn(k * 45)))),
        Just(CmdAction::TargetLock(vec![
            "fwd".into(),
            "stbd1".into(),
            "port".into()
        ])),
        prop::sample::select(friends_for_rally).prop_map(CmdAction::Rally),
    ];
    let payer = prop::option::of(prop::sample::select(friends));
    (
        prop::collection::vec(step, 0..5),
        prop::collection::vec((action, payer), 0..6),
        any::<bool>(),
    )
        .prop_map(move |(steps, actions, hold_fire)| Activation {
            unit,
            steps,
            dive_brakes: false,
            actions: actions
                .into_iter()
                .map(|(action, payer)| CmdOrder { action, payer })
                .collect(),
            fire: vec![FireOrder {
                weapons: vec!["fwd".into(), "turret".into(), "w1".into()],
                targets: vec![Target::Unit(UnitId(9)), Target::Nearest],
            }],
            hold_fire,
            dc_priority: None,
        })
}

fn orders_strategy() -> impl Strategy<Value = [Option<Orders>; 2]> {
    let red: Vec<UnitId> = [0u16, 1, 2, 3, 4, 5].map(UnitId).to_vec();
    let blue: Vec<UnitId> = [6u16, 7, 8, 9, 10].map(UnitId).to_vec();
    let side = |units: Vec<UnitId>| {
        let ships = units.clone();
        let activations: Vec<_> = units
            .into_iter()
            .map(|u| activation_strategy(u, ships.clone()))
            .collect();
        prop::option::weighted(
            0.85,
            activations.prop_map(|activations| Orders {
                activations,
                ..Orders::default()
            }),
        )
    };
    (side(red), side(blue)).prop_map(|(a, b)| [a, b])
}

fn play(state: &State, orders: &[Option<Orders>; 2], seed: u8, turn: u32) -> (State, String) {
    let mut input = TurnInput::default();
    for (index, side) in orders.iter().enumerate() {
        if let Some(side) = side {
            input
                .orders
                .insert(PlayerId(index as u64 + 1), side.clone());
        }
    }
    let secret = GameSecret::from_bytes([seed; 32]);
    let resolution = Skyfleet::resolve(state, &input, &mut secret.turn_dice(turn)).unwrap();
    let report = serde_json::to_string(&resolution.report).unwrap();
    (resolution.state, report)
}

/// The target numbers a report shows: `4d@3+`.
fn target_numbers(report: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for (index, _) in report.match_indices("d@") {
        let digits: String = report[index + 2..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        out.push(digits.parse().unwrap());
    }
    out
}

const NAMED: [&str; 9] = [
    "Emergency Repairs (",
    "Brace (",
    "Target Lock on",
    "Full Ahead (",
    "Hard Around (",
    "Launch Torpedo (",
    "Launch Wing (",
    "Compressed Gas (",
    "Chaff (",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn battles_keep_their_invariants(
        turns in prop::collection::vec(orders_strategy(), 1..4),
        seed in any::<u8>(),
    ) {
        let mut state = skirmish();
        for (number, orders) in turns.iter().enumerate() {
            if state.finished {
                break;
            }
            let turn = number as u32 + 1;
            let (next, report) = play(&state, orders, seed, turn);
            // Same state, orders and seed: the same bytes.
            let (again, report_again) = play(&state, orders, seed, turn);
            prop_assert_eq!(serde_json::to_string(&next).unwrap(), serde_json::to_string(&again).unwrap());
            prop_assert_eq!(&report, &report_again);
            for unit in &next.units {
                // SKY-DCR-02: repairs never pass starting Hull; storms and fire never add.
                prop_assert!(unit.hull <= unit.max_hull, "{} at {}/{}", unit.name, unit.hull, unit.max_hull);
                // SKY-CMD-01, SKY-FLOOR-02: CMD never overspent (a Bridge Hit or a failed
                // Signal Array later in the turn may lower the maximum after spending).
                let most = unit.stats().cmd + u8::from(unit.modules.iter().any(|m| m.kind == skyfleet::ModuleKind::SignalArray));
                prop_assert!(unit.this_turn.cmd_spent <= most, "{} spent {}", unit.name, unit.this_turn.cmd_spent);
                prop_assert!(unit.elevation >= 1 && unit.elevation <= next.rules.max_elevation);
                if unit.in_play() {
                    prop_assert!(next.rules.board.holds(unit.at, unit.radius) || unit.class == skyfleet::Class::Torpedo || unit.status.morale == Morale::Broken);
                }
            }
            // SKY-HIT-01: every target number within 2+..6+.
            for number in target_numbers(&report) {
                prop_assert!((2..=6).contains(&number), "{number}+ in {report}");
            }
            // SKY-CMD-02: each named action at most once per ship per turn.
            let parsed: engine::Report = serde_json::from_str(&report).unwrap();
            for row in &parsed.rows {
                for name in NAMED {
                    // Refusals (not paid, not made) name the action too.
                    let count: usize = row
                        .result
                        .split("; ")
                        .filter(|part| !part.contains("refused"))
                        .map(|part| part.matches(name).count())
                        .sum();
                    prop_assert!(count <= 1, "{} has {name} {count} times: {}", row.name, row.result);
                }
            }
            state = next;
        }
    }

    #[test]
    fn to_hit_is_always_2_to_6(skill in 0u8..10, quality in -20i32..20) {
        let target = to_hit(skill, quality);
        prop_assert!((2..=6).contains(&target));
    }

    #[test]
    fn every_assessed_shot_needs_2_to_6(
        ax in 5i64..67, ay in 5i64..43, bx in 5i64..67, by in 5i64..43,
        ae in 1u8..13, be in 1u8..13, heading in 0i64..16, shaken in any::<bool>(),
        locked in any::<bool>(), flown in any::<bool>(),
    ) {
        let mut state = skirmish();
        let (a, b) = (UnitId(4), UnitId(8));
        state.units[a.index()].at = skyfleet::Point::inches(ax, ay);
        state.units[a.index()].elevation = ae;
        state.units[a.index()].heading = skyfleet::Angle::from_half_degrees(heading * 45);
        if shaken {
            state.units[a.index()].status.morale = Morale::Shaken;
        }
        state.units[b.index()].at = skyfleet::Point::inches(bx, by);
        state.units[b.index()].elevation = be;
        let attacker = state.units[a.index()].clone();
        let target = state.units[b.index()].clone();
        for weapon in &attacker.weapons {
            if let Ok(shot) = assess(&state, &attacker, weapon, &target, locked, flown) {
                prop_assert!((2..=6).contains(&shot.skill));
            }
        }
    }
}
