//! Issue 7's target: one turn of a 4-player game with every extra in play resolves in under
//! 50 µs. Two turns between them use all five extras (and a recapture, a salvo and a
//! backfire); each is measured with scripted dice and with the real ChaCha20 dice.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use engine::{Engine, GameSecret, Player, PlayerId, TurnDice, TurnInput};
use salvo::{FleetOrder, Orders, Salvo, Setup, ShipKind, ShotRule, State};

const FLEETS: [&str; 4] = [
    "PLACE Carrier A1 H\nPLACE Battleship C1 H\nPLACE Cruiser E1 H\nPLACE Submarine G1 H\nPLACE Destroyer I1 H",
    "PLACE Carrier J1 H\nPLACE Battleship A7 V\nPLACE Cruiser D4 V\nPLACE Submarine F5 H\nPLACE Destroyer H9 V",
    "PLACE Carrier B2 V\nPLACE Battleship J7 H\nPLACE Cruiser C5 H\nPLACE Submarine E8 V\nPLACE Destroyer G3 H",
    "PLACE Carrier E6 H\nPLACE Battleship A2 H\nPLACE Cruiser H1 V\nPLACE Submarine A9 V\nPLACE Destroyer J3 H",
];

fn game() -> State {
    let players: Vec<Player> = ["Ann", "Bob", "Cy", "Dee"]
        .iter()
        .enumerate()
        .map(|(i, name)| Player {
            id: PlayerId(i as u64 + 1),
            name: (*name).to_string(),
        })
        .collect();
    let setup = Setup {
        shots: ShotRule::Salvo,
        ..Setup::default()
    };
    let mut dice = GameSecret::from_bytes([9; 32]).turn_dice(0);
    let mut state = Salvo::new_game(&setup, &players, &mut dice).unwrap();
    for (player, text) in players.iter().zip(FLEETS) {
        let parsed = Salvo::parse_orders(&state, player.id, text);
        let Some(FleetOrder::Placed(plan)) = parsed.orders.fleet else {
            panic!("bad fleet {text}: {:?}", parsed.errors);
        };
        state.set_fleet(player.id, &plan);
    }
    state.set_turn(5);
    // Bob's Destroyer is held by Cy, so Bob may recapture it.
    state.capture_ship(PlayerId(2), ShipKind::Destroyer, PlayerId(3));
    state
}

fn orders(state: &State, texts: [&str; 4]) -> TurnInput<Orders> {
    let mut input = TurnInput::default();
    for (index, text) in texts.iter().enumerate() {
        let id = PlayerId(index as u64 + 1);
        let parsed = Salvo::parse_orders(state, id, text);
        assert!(parsed.errors.is_empty(), "{text}: {:?}", parsed.errors);
        input.orders.insert(id, parsed.orders);
    }
    input
}

fn turns(c: &mut Criterion) {
    let state = game();
    // Nuke in Condition Bravo, SCUBA capture, torpedo with its bonus, experimental criticality.
    let first = orders(
        &state,
        [
            "NUKE D4 AT Bob",
            "SCUBA AT Cy",
            "TORPEDO F10 AT Dee",
            "EXPERIMENTAL E5 E6 AT Ann",
        ],
    );
    let first_dice = [20, 15, 20, 6, 6, 3];
    // Bomber flight, SCUBA recapture, a full salvo, an experimental backfire.
    let second = orders(
        &state,
        [
            "BOMBER G6 AT Dee",
            "SCUBA RECAPTURE",
            "FIRE A1 B1 C1 D1 E1 AT Ann",
            "EXPERIMENTAL B2 B3 B4 AT Cy",
        ],
    );
    let second_dice = [12, 14, 1];
    let secret = GameSecret::from_bytes([4; 32]);

    let mut group = c.benchmark_group("salvo turn, 4 players, every extra");
    group.bench_function("nuke+scuba+torpedo+experimental (scripted dice)", |b| {
        b.iter_batched(
            || TurnDice::scripted(first_dice, []),
            |mut dice| black_box(Salvo::resolve(&state, &first, &mut dice).unwrap()),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("bomber+recapture+salvo+backfire (scripted dice)", |b| {
        b.iter_batched(
            || TurnDice::scripted(second_dice, []),
            |mut dice| black_box(Salvo::resolve(&state, &second, &mut dice).unwrap()),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("nuke+scuba+torpedo+experimental (ChaCha20 dice)", |b| {
        b.iter_batched(
            || secret.turn_dice(5),
            |mut dice| black_box(Salvo::resolve(&state, &first, &mut dice).unwrap()),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, turns);
criterion_main!(benches);
