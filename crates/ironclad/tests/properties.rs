#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Invariants over random battles, random (often impossible) orders and random dice:
//! FP never below 0 nor rising (IRON-DMG-01, IRON-DMG-03); a ship past her Critical Point never
//! initiates a ram (IRON-DMG-02, IRON-GM-10); rams come from an adjacent area (IRON-RAM-10);
//! no two ships share an area (IRON-MOV-04); the same state, orders and seed give the same
//! bytes.

use std::collections::BTreeMap;

use engine::{Engine, Player, PlayerId, TurnDice, TurnInput, TurnSeed};
use ironclad::movement::Change;
use ironclad::state::Fate;
use ironclad::{
    Ironclad, Manoeuvre, Orders, Setup, ShipId, ShipOrders, State, TorpedoOrder, TurnSide,
};
use proptest::collection::vec;
use proptest::prelude::*;

const MOVES: [Manoeuvre; 7] = [
    Manoeuvre::Hold,
    Manoeuvre::Ahead,
    Manoeuvre::AheadTwice,
    Manoeuvre::AheadThenPort,
    Manoeuvre::AheadThenStarboard,
    Manoeuvre::PivotPort,
    Manoeuvre::PivotStarboard,
];

#[derive(Debug, Clone)]
struct ShipPlan {
    main: Option<u16>,
    port: Option<u16>,
    starboard: Option<u16>,
    torpedo: Option<u16>,
    movement: usize,
    withdraw: Option<bool>,
}

fn plan(ships: u16) -> impl Strategy<Value = ShipPlan> {
    (
        proptest::option::of(1..=ships),
        proptest::option::of(1..=ships),
        proptest::option::of(1..=ships),
        proptest::option::of(1..=ships),
        0..MOVES.len(),
        proptest::option::of(any::<bool>()),
    )
        .prop_map(
            |(main, port, starboard, torpedo, movement, withdraw)| ShipPlan {
                main,
                port,
                starboard,
                torpedo,
                movement,
                withdraw,
            },
        )
}

#[derive(Debug, Clone)]
struct Battle {
    state: State,
    /// Per turn: each ship's plan, and which players sent nothing.
    turns: Vec<(Vec<ShipPlan>, [bool; 2], [u8; 32])>,
}

fn battle() -> impl Strategy<Value = Battle> {
    (1usize..=6, 1usize..=6, any::<bool>()).prop_flat_map(|(blue, red, pivots)| {
        let count = blue + red;
        let ships = u16::try_from(count).unwrap();
        (
            proptest::sample::subsequence((0..64u8).collect::<Vec<_>>(), count),
            vec(0usize..8, count),
            vec(1u8..=12, count),
            vec(any::<(bool, bool, bool, bool)>(), count),
            vec(
                (vec(plan(ships), count), any::<[bool; 2]>(), any::<[u8; 32]>()),
                1..=4,
            ),
        )
            .prop_map(move |(squares, headings, fps, flags, turns)| {
                let headings_text = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
                let entry = |index: usize| {
                    let square = squares[index];
                    serde_json::json!({
                        "name": format!("Vessel {index}"),
                        "at": format!("{}{}", char::from(b'A' + square % 8), square / 8 + 1),
                        "heading": headings_text[headings[index]],
                        "ram": index.is_multiple_of(3),
                    })
                };
                let setup: Setup = serde_json::from_value(serde_json::json!({
                    "board": {"columns": 8, "rows": 8},
                    "allow_pivot_when_slowed": pivots,
                    "sides": [
                        {"name": "Blue", "home_edge": "north", "ships": (0..blue).map(entry).collect::<Vec<_>>()},
                        {"name": "Red", "home_edge": "south", "ships": (blue..count).map(entry).collect::<Vec<_>>()},
                    ]
                }))
                .unwrap();
                let players = [1, 2].map(|id| Player {
                    id: PlayerId(id),
                    name: format!("P{id}"),
                });
                let mut state = setup.start(&players).unwrap();
                for (ship, (fp, (engines, flooded, burning, bridge))) in
                    state.ships.iter_mut().zip(fps.iter().zip(&flags))
                {
                    ship.fp = *fp;
                    ship.broken_off = *fp <= 6;
                    ship.engines_damaged = *engines;
                    ship.flooded = *flooded;
                    if *burning {
                        ship.fire = Some(ironclad::state::Burning {
                            since_turn: 0,
                            started_by: None,
                        });
                    }
                    if *bridge {
                        ship.bridge_hit_turn = Some(0);
                    }
                }
                Battle { state, turns }
            })
    })
}

fn orders_for(state: &State, plans: &[ShipPlan], nmr: [bool; 2]) -> TurnInput<Orders> {
    let mut input = TurnInput::default();
    for (index, player) in [PlayerId(1), PlayerId(2)].into_iter().enumerate() {
        if nmr[index] {
            continue;
        }
        let mut orders = Orders::default();
        for (ship, plan) in state.ships.iter().zip(plans) {
            if ship.player != player {
                continue;
            }
            let ids = |target: Option<u16>| target.map(ShipId).into_iter().collect::<Vec<_>>();
            orders.ships.insert(
                ship.id,
                ShipOrders {
                    main: ids(plan.main),
                    port: ids(plan.port),
                    starboard: ids(plan.starboard),
                    torpedo: plan.torpedo.map(|t| TorpedoOrder {
                        targets: vec![ShipId(t)],
                        tube: None,
                    }),
                    movement: Some(MOVES[plan.movement]),
                    withdraw: plan.withdraw.map(|port| {
                        if port {
                            TurnSide::Port
                        } else {
                            TurnSide::Starboard
                        }
                    }),
                },
            );
        }
        // Move in reverse ID order, to exercise the ORDER list.
        orders.move_order = orders.ships.keys().rev().copied().collect();
        input.orders.insert(player, orders);
    }
    input
}

fn dice(seed: &[u8; 32]) -> TurnDice {
    let seed = TurnSeed::from_bytes(*seed);
    TurnDice::from_seeds(&seed, &seed)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn flotation_never_rises_nor_falls_below_zero(battle in battle()) {
        let mut state = battle.state;
        for (plans, nmr, seed) in &battle.turns {
            if state.finished {
                break;
            }
            let before = state.clone();
            let input = orders_for(&state, plans, *nmr);
            let (next, _) = ironclad::resolve_turn(&state, &input, &mut dice(seed)).unwrap();
            for (old, new) in before.ships.iter().zip(&next.ships) {
                prop_assert!(new.fp <= old.fp, "{} rose from {} to {}", new.name, old.fp, new.fp);
                prop_assert!(new.fp <= 12);
                match new.fate {
                    Fate::Sunk { .. } => prop_assert_eq!(new.fp, 0),
                    _ => prop_assert!(new.fp > 0, "{} afloat at 0 FP", new.name),
                }
                // Damage is never removed (IRON-DMG-01): criticals stay.
                prop_assert!(new.engines_damaged || !old.engines_damaged);
                prop_assert!(new.flooded || !old.flooded);
                prop_assert!(new.broken_off || !old.broken_off);
                prop_assert!(new.torpedoes_left <= old.torpedoes_left);
                for (t_old, t_new) in old.turrets.iter().zip(&new.turrets) {
                    prop_assert!(t_new.destroyed || !t_old.destroyed);
                }
                if old.afloat() && new.afloat() && new.fp <= 6 {
                    prop_assert!(new.broken_off, "{} at {} FP still fighting", new.name, new.fp);
                }
                if !old.afloat() {
                    prop_assert_eq!(old.fate, new.fate);
                }
            }
            for (old, new) in before.commanders.iter().zip(&next.commanders) {
                prop_assert!(new.score >= old.score);
            }
            state = next;
        }
    }

    #[test]
    fn a_ship_past_her_critical_point_never_initiates(battle in battle()) {
        let mut state = battle.state;
        for (plans, nmr, seed) in &battle.turns {
            if state.finished {
                break;
            }
            let input = orders_for(&state, plans, *nmr);
            let (next, log) = ironclad::resolve_turn(&state, &input, &mut dice(seed)).unwrap();
            for record in &log.moves {
                let broken_off = matches!(record.change, Some(Change::BrokenOff { .. }));
                if let Some(ram) = &record.ram {
                    prop_assert!(!ram.rammer_was_broken_off);
                    prop_assert!(!broken_off, "a broken-off ship rammed");
                    // IRON-RAM-10: from an orthogonally or diagonally adjacent area.
                    prop_assert_eq!(ram.from.range_to(ram.at), 1);
                    prop_assert_eq!(record.end, ram.from);
                }
                if !broken_off {
                    prop_assert!(
                        state.ship(record.ship).is_some_and(|s| !s.broken_off)
                            || log.broke_off.contains(&record.ship)
                            || next.ship(record.ship).is_some_and(|s| s.broken_off),
                    );
                }
            }
            // Ships broken off at the start of the turn always moved under the forced rule.
            for ship in state.ships.iter().filter(|s| s.afloat() && s.broken_off) {
                if let Some(record) = log.moves.iter().find(|m| m.ship == ship.id) {
                    let forced = matches!(record.change, Some(Change::BrokenOff { .. }));
                    prop_assert!(forced);
                }
            }
            // IRON-MOV-04: no two afloat ships share an area.
            let mut areas: Vec<_> = next.ships.iter().filter(|s| s.afloat()).map(|s| s.area).collect();
            let count = areas.len();
            areas.sort();
            areas.dedup();
            prop_assert_eq!(areas.len(), count);
            prop_assert!(next.check().is_ok());
            state = next;
        }
    }

    #[test]
    fn same_state_orders_and_seed_give_the_same_bytes(battle in battle()) {
        let state = battle.state;
        let (plans, nmr, seed) = &battle.turns[0];
        let input = orders_for(&state, plans, *nmr);
        let first = Ironclad::resolve(&state, &input, &mut dice(seed)).unwrap();
        let second = Ironclad::resolve(&state, &input, &mut dice(seed)).unwrap();
        prop_assert_eq!(
            serde_json::to_vec(&first.state).unwrap(),
            serde_json::to_vec(&second.state).unwrap()
        );
        prop_assert_eq!(
            serde_json::to_vec(&first.report).unwrap(),
            serde_json::to_vec(&second.report).unwrap()
        );
        prop_assert_eq!(first.report.to_text(), second.report.to_text());
        // And the state survives a JSON round trip unchanged, as the service stores it.
        let stored: State = serde_json::from_slice(&serde_json::to_vec(&first.state).unwrap()).unwrap();
        prop_assert_eq!(stored, first.state);
    }

    #[test]
    fn every_move_carried_out_is_legal(battle in battle()) {
        let state = battle.state;
        let (plans, nmr, seed) = &battle.turns[0];
        let input = orders_for(&state, plans, *nmr);
        let (next, log) = ironclad::resolve_turn(&state, &input, &mut dice(seed)).unwrap();
        let by_id: BTreeMap<ShipId, _> = state.ships.iter().map(|s| (s.id, s)).collect();
        for record in &log.moves {
            let ship = by_id[&record.ship];
            // IRON-MOV-01, IRON-GM-14: 2 areas at most, 1 when slowed.
            prop_assert!(record.carried.cost() <= ship.max_areas());
            prop_assert!(record.from.range_to(record.end) <= u32::from(record.carried.forward_steps()));
            // IRON-GM-07: no turn while holding course.
            if ship.holds_course_until(state.turn).is_some() {
                prop_assert!(record.carried.turn().is_none());
            }
            // A pivot only under the GM's switch, by a ship slowed when she moved (IRON-ADM-06):
            // slowed when the turn began, or slowed by this turn's damage before she moved. The
            // latter happens to a broken-off ship's forced pivot toward home, and to a pivot
            // ordered for a ship the orders' generator did not slow (the parser takes a PIVOT
            // only from a ship slowed already, but the engine checks when she moves). Slowing
            // lasts, so such a ship is still slowed after the turn, if afloat.
            if record.carried.is_pivot() {
                prop_assert!(state.rules.allow_pivot_when_slowed);
                let slowed_after = next.ship(record.ship).is_some_and(|s| s.slowed());
                prop_assert!(ship.slowed() || slowed_after);
            }
        }
    }
}
