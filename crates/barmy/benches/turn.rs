#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! One turn of a full 19x19 board (as many players as fit), a 50-turn game replayed, and
//! starting a zine's one big game (BARMY-02) of 1,000 and 10,000 players.
//! Targets (issue 3): a turn under 100 µs median; the 50-turn replay under 10 ms. Starting
//! 10,000 players well under a second (placement listed every free spot per ship: 296 s).

use barmy::{Barmy, Orders, Setup, Square, State};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use engine::{Dice, Engine, GameSecret, Player, PlayerId, TurnInput, TurnSeed};
use std::hint::black_box;

/// As many players as the random placement fits on the text's 19x19 board.
fn full_board(secret: &GameSecret) -> State {
    let mut count = 200;
    loop {
        let players: Vec<Player> = (1..=count)
            .map(|id| Player {
                id: PlayerId(id),
                name: format!("Player {id}"),
            })
            .collect();
        if let Ok(state) = Barmy::new_game(&Setup::default(), &players, &mut secret.turn_dice(0)) {
            return state;
        }
        count -= 1;
    }
}

fn orders(state: &State, chooser: &mut Dice) -> TurnInput<Orders> {
    let mut input = TurnInput::default();
    for captain in &state.captains {
        let squares: Vec<String> = (0..2)
            .map(|_| {
                Square::new(chooser.roll(19) as u16 - 1, chooser.roll(19) as u16 - 1).to_string()
            })
            .collect();
        input.orders.insert(
            captain.id,
            Barmy::parse_orders(state, captain.id, &squares.join(", ")).orders,
        );
    }
    input
}

fn bench(c: &mut Criterion) {
    let secret = GameSecret::from_bytes([42; 32]);
    let state = full_board(&secret);
    eprintln!("full 19x19 board: {} players", state.captains.len());
    let mut chooser = Dice::from_seed(&TurnSeed::from_bytes([1; 32]));
    let input = orders(&state, &mut chooser);
    c.bench_function("barmy: one turn, full 19x19 board", |b| {
        b.iter(|| {
            Barmy::resolve(
                black_box(&state),
                black_box(&input),
                &mut secret.turn_dice(1),
            )
            .unwrap()
        })
    });

    // A 50-turn game: 30 players, orders fixed in advance, replayed from the start.
    let players: Vec<Player> = (1..=30)
        .map(|id| Player {
            id: PlayerId(id),
            name: format!("Player {id}"),
        })
        .collect();
    let setup = Setup {
        width: 19,
        height: 19,
        final_turn: Some(50),
        ..Setup::default()
    };
    let start = Barmy::new_game(&setup, &players, &mut secret.turn_dice(0)).unwrap();
    let mut turns = Vec::new();
    let mut state = start.clone();
    while !state.finished {
        let input = orders(&state, &mut chooser);
        let turn = Barmy::turn(&state);
        state = Barmy::resolve(&state, &input, &mut secret.turn_dice(turn))
            .unwrap()
            .state;
        turns.push(input);
    }
    eprintln!("replayed game: {} turns", turns.len());
    c.bench_function("barmy: replay a 50-turn game", |b| {
        b.iter(|| {
            let mut state = start.clone();
            for input in &turns {
                let turn = Barmy::turn(&state);
                state = Barmy::resolve(&state, input, &mut secret.turn_dice(turn))
                    .unwrap()
                    .state;
            }
            state
        })
    });
}

/// A zine's every subscriber on one board of about 40 squares each (200x200 for 1,000,
/// 632x632 for 10,000), every ship placed by the sealed dice (BARMY-GM-04).
fn new_game(c: &mut Criterion) {
    let secret = GameSecret::from_bytes([42; 32]);
    let mut group = c.benchmark_group("barmy: new_game");
    group.sample_size(20);
    group.measurement_time(std::time::Duration::from_secs(10));
    for (count, side) in [(1_000u64, 200u16), (10_000, 632)] {
        let players: Vec<Player> = (1..=count)
            .map(|id| Player {
                id: PlayerId(id),
                name: format!("Player {id}"),
            })
            .collect();
        let setup = Setup {
            width: side,
            height: side,
            ..Setup::default()
        };
        group.bench_with_input(
            BenchmarkId::new(format!("{side}x{side} board"), count),
            &players,
            |b, players| {
                b.iter(|| {
                    Barmy::new_game(
                        black_box(&setup),
                        black_box(players),
                        &mut secret.turn_dice(0),
                    )
                    .unwrap()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench, new_game);
criterion_main!(benches);
