#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "benchmark set-up: a failure should stop it loudly"
)]
//! One full turn of two sides of eight ships each (issue 8's target: under 200 µs): every
//! ship fires main, secondary and torpedo where it can, then moves; the report is built too.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{Engine, Player, PlayerId, TurnDice, TurnInput, TurnSeed};
use ironclad::fire::{self, Group};
use ironclad::{Ironclad, Manoeuvre, Orders, Setup, ShipOrders, State, TorpedoOrder};

fn battle() -> State {
    let columns = "ABCDEFGHIJKLMNOP";
    let blue: Vec<_> = (0..8)
        .map(|i| {
            serde_json::json!({
                "name": format!("Blue {i}"),
                "at": format!("{}4", &columns[2 * i..2 * i + 1]),
                "heading": "E",
            })
        })
        .collect();
    let red: Vec<_> = (0..8)
        .map(|i| {
            serde_json::json!({
                "name": format!("Red {i}"),
                "at": format!("{}7", &columns[2 * i + 1..2 * i + 2]),
                "heading": "W",
            })
        })
        .collect();
    let setup: Setup = serde_json::from_value(serde_json::json!({
        "sides": [
            {"name": "Blue", "home_edge": "north", "ships": blue},
            {"name": "Red", "home_edge": "south", "ships": red},
        ]
    }))
    .unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    Ironclad::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap()
}

/// Every ship engages the first enemy each weapon can reach, then moves.
fn orders(state: &State) -> TurnInput<Orders> {
    let mut input = TurnInput::default();
    for player in [PlayerId(1), PlayerId(2)] {
        let mut orders = Orders::default();
        for (index, ship) in state
            .ships
            .iter()
            .filter(|s| s.player == player)
            .enumerate()
        {
            let first = |group: Group| {
                state
                    .ships
                    .iter()
                    .filter(|t| fire::solve(state, ship, t, group, None).is_ok())
                    .map(|t| t.id)
                    .take(2)
                    .collect::<Vec<_>>()
            };
            let torpedo = first(Group::Torpedo);
            orders.ships.insert(
                ship.id,
                ShipOrders {
                    main: first(Group::Main),
                    port: first(Group::Port),
                    starboard: first(Group::Starboard),
                    torpedo: (!torpedo.is_empty()).then_some(TorpedoOrder {
                        targets: torpedo,
                        tube: None,
                    }),
                    movement: Some(if index % 2 == 0 {
                        Manoeuvre::AheadTwice
                    } else {
                        Manoeuvre::AheadThenStarboard
                    }),
                    withdraw: None,
                },
            );
        }
        input.orders.insert(player, orders);
    }
    input
}

fn bench(c: &mut Criterion) {
    let state = battle();
    let input = orders(&state);
    let engaged: usize = input
        .orders
        .values()
        .flat_map(|o| o.ships.values())
        .map(|s| usize::from(!s.main.is_empty()) + usize::from(!s.starboard.is_empty()))
        .sum();
    assert!(
        engaged >= 16,
        "the benchmark battle should be a real fight: {engaged}"
    );
    let seed = TurnSeed::from_bytes([9; 32]);
    c.bench_function("turn: 2 sides x 8 ships", |b| {
        b.iter(|| {
            let mut dice = TurnDice::from_seeds(&seed, &seed);
            black_box(Ironclad::resolve(black_box(&state), black_box(&input), &mut dice).unwrap())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
