#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "benchmark set-up: a failure should stop it loudly"
)]
//! One full round of two fleets of eight ten-part cruisers (issue 10's target: under 2 ms):
//! every ship moves, fires its five weapons (gun, laser with sweep, gun, missile, rail gun) at
//! the ship opposite, with defensive gunners and standing deflectors in play; the report is
//! built too.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{Engine, GameSecret, TurnInput};
use forever::Forever;

fn round(c: &mut Criterion) {
    let state = common::armada(8);
    let mut input = TurnInput::default();
    for (player, text) in common::broadsides(&state, 8) {
        let parsed = Forever::parse_orders(&state, player, &text);
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        input.orders.insert(player, parsed.orders);
    }
    let secret = GameSecret::from_bytes([42; 32]);
    // Sanity: the round does what it says.
    let resolution = Forever::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
    assert!(resolution.report.to_text().contains("hit at"));
    c.bench_function("round of 2 fleets x 8 ships x 10 sections", |b| {
        b.iter(|| {
            let mut dice = secret.turn_dice(1);
            black_box(Forever::resolve(black_box(&state), black_box(&input), &mut dice).unwrap())
        });
    });
    c.bench_function("parse one fleet's orders", |b| {
        let text = &common::broadsides(&state, 8)[0].1;
        b.iter(|| {
            black_box(Forever::parse_orders(
                &state,
                common::ALICE,
                black_box(text),
            ))
        });
    });
}

criterion_group!(benches, round);
criterion_main!(benches);
