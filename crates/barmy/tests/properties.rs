#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Invariants over random games: determinism, exact points, legal placements, the NMR waiver.

use std::collections::BTreeSet;

use barmy::{Barmy, Damage, Orders, Setup, Square, State};
use engine::{Dice, Engine, GameSecret, Player, PlayerId, TurnInput, TurnSeed, Viewer};
use proptest::prelude::*;

fn players(count: usize) -> Vec<Player> {
    (1..=count as u64)
        .map(|id| Player {
            id: PlayerId(id),
            name: format!("Player {id}"),
        })
        .collect()
}

/// Random orders for every captain: some NMR, some press only, some off the board or at
/// their own ship, drawn from a ChaCha stream so the case is reproducible.
fn random_orders(state: &State, chooser: &mut Dice) -> TurnInput<Orders> {
    let mut input = TurnInput::default();
    let (width, height) = (u32::from(state.setup.width), u32::from(state.setup.height));
    for captain in &state.captains {
        match chooser.d6() {
            1 => continue,
            2 => {
                input.orders.insert(
                    captain.id,
                    Barmy::parse_orders(state, captain.id, "PRESS hello").orders,
                );
            }
            _ => {
                let mut text = Vec::new();
                for _ in 0..2 {
                    let x = chooser.roll(width + 1) - 1;
                    let y = chooser.roll(height + 1);
                    text.push(Square::new(x as u16, (y - 1) as u16).to_string());
                }
                if chooser.d6() == 6 {
                    text[0] = captain.ship[0].to_string();
                }
                input.orders.insert(
                    captain.id,
                    Barmy::parse_orders(state, captain.id, &text.join(", ")).orders,
                );
            }
        }
    }
    input
}

fn game(seed: [u8; 32], count: usize, width: u16, height: u16) -> State {
    let secret = GameSecret::from_bytes(seed);
    let setup = Setup {
        width,
        height,
        ..Setup::default()
    };
    Barmy::new_game(&setup, &players(count), &mut secret.turn_dice(0)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn same_state_orders_and_seed_give_the_same_bytes(seed in any::<[u8; 32]>(), count in 2usize..12, turns in 1usize..10) {
        let secret = GameSecret::from_bytes(seed);
        let mut state = game(seed, count, 12, 12);
        let mut chooser = Dice::from_seed(&TurnSeed::from_bytes(seed));
        for _ in 0..turns {
            if state.finished { break; }
            let input = random_orders(&state, &mut chooser);
            let turn = Barmy::turn(&state);
            let first = Barmy::resolve(&state, &input, &mut secret.turn_dice(turn)).unwrap();
            let second = Barmy::resolve(&state, &input, &mut secret.turn_dice(turn)).unwrap();
            prop_assert_eq!(serde_json::to_vec(&first.state).unwrap(), serde_json::to_vec(&second.state).unwrap());
            prop_assert_eq!(first.report.to_text(), second.report.to_text());
            prop_assert_eq!(first.report.to_html(), second.report.to_html());
            // The state survives a trip through JSON, as the service stores it.
            let stored: State = serde_json::from_slice(&serde_json::to_vec(&first.state).unwrap()).unwrap();
            prop_assert_eq!(&stored, &first.state);
            state = first.state;
        }
    }

    #[test]
    fn points_awarded_equal_enemy_squares_newly_hit_by_shots(seed in any::<[u8; 32]>(), count in 2usize..11, turns in 1usize..12) {
        // BARMY-08, BARMY-09: each scoring square hands out exactly one point in shares.
        let secret = GameSecret::from_bytes(seed);
        let mut state = game(seed, count, 10, 10);
        let mut chooser = Dice::from_seed(&TurnSeed::from_bytes(seed));
        for _ in 0..turns {
            if state.finished { break; }
            let turn = Barmy::turn(&state);
            let input = random_orders(&state, &mut chooser);
            let next = Barmy::resolve(&state, &input, &mut secret.turn_dice(turn)).unwrap().state;
            let mut expected: barmy::Points = state.captains.iter().map(|c| &c.score).sum();
            let after: barmy::Points = next.captains.iter().map(|c| &c.score).sum();
            let newly_hit = next.captains.iter().flat_map(|c| c.damage).filter(|d| *d == Some(Damage::Shot(turn))).count();
            expected += barmy::Points::whole(newly_hit as i64);
            prop_assert_eq!(after, expected);
            state = next;
        }
    }

    #[test]
    fn an_nmr_penalty_never_lands_on_a_player_hit_that_turn(seed in any::<[u8; 32]>(), count in 2usize..9, turns in 2usize..12) {
        // BARMY-18, BARMY-GM-06.
        let secret = GameSecret::from_bytes(seed);
        let mut state = game(seed, count, 9, 9);
        let mut chooser = Dice::from_seed(&TurnSeed::from_bytes(seed));
        for _ in 0..turns {
            if state.finished { break; }
            let turn = Barmy::turn(&state);
            let input = random_orders(&state, &mut chooser);
            let next = Barmy::resolve(&state, &input, &mut secret.turn_dice(turn)).unwrap().state;
            for captain in &next.captains {
                let shot = captain.damage.contains(&Some(Damage::Shot(turn)));
                let penalised = captain.damage.iter().filter(|d| **d == Some(Damage::Penalty(turn))).count();
                prop_assert!(!(shot && penalised > 0), "{} was hit and penalised in turn {}", captain.name, turn);
                prop_assert!(penalised <= 1);
                if penalised == 1 {
                    // BARMY-17: no orders, or orders that fire no shot (press alone).
                    prop_assert!(input.orders.get(&captain.id).is_none_or(|o| o.shots.is_empty()));
                    prop_assert!(turn > captain.first_turn);
                }
            }
            state = next;
        }
    }

    #[test]
    fn placements_stay_on_the_board_and_never_overlap(seed in any::<[u8; 32]>(), count in 1usize..40, width in 6u16..30, height in 6u16..30) {
        // BARMY-04, BARMY-05, BARMY-06, BARMY-GM-04.
        let secret = GameSecret::from_bytes(seed);
        let setup = Setup { width, height, ..Setup::default() };
        match Barmy::new_game(&setup, &players(count), &mut secret.turn_dice(0)) {
            Ok(state) => {
                let grid = setup.grid();
                let mut taken = BTreeSet::new();
                for captain in &state.captains {
                    prop_assert!(grid.is_ship(&captain.ship));
                    for square in captain.ship {
                        prop_assert!(grid.contains(square));
                        prop_assert!(taken.insert(square), "{} is shared", square);
                    }
                }
                prop_assert_eq!(state.captains.len(), count);
            }
            Err(error) => prop_assert!(error.to_string().contains("enlarge the board")),
        }
    }

    #[test]
    fn the_public_never_sees_an_unhit_square_of_a_ship_afloat(seed in any::<[u8; 32]>(), count in 2usize..10, turns in 1usize..8) {
        let secret = GameSecret::from_bytes(seed);
        let mut state = game(seed, count, 10, 10);
        let mut chooser = Dice::from_seed(&TurnSeed::from_bytes(seed));
        for _ in 0..turns {
            if state.finished { break; }
            let turn = Barmy::turn(&state);
            let input = random_orders(&state, &mut chooser);
            state = Barmy::resolve(&state, &input, &mut secret.turn_dice(turn)).unwrap().state;
            let Some(engine::Board::Grid(picture)) = Barmy::view(&state, Viewer::Public).board else { panic!() };
            for captain in state.captains.iter().filter(|c| c.is_afloat()) {
                for (square, damage) in captain.ship.iter().zip(captain.damage) {
                    let shown = picture.marks.iter().find(|m| m.x == square.x && m.y == square.y).map(|m| m.mark);
                    match damage {
                        Some(Damage::Shot(_)) => prop_assert_eq!(shown, Some(engine::Mark::Hit)),
                        // A penalty square, or an unhit one, shows only what a shot there showed.
                        _ => prop_assert!(shown.is_none() || shown == Some(engine::Mark::Miss)),
                    }
                }
            }
        }
    }
}
