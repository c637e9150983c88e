//! Invariants over random games: no square is counted hit twice, no extra is used beyond its
//! limit, and the same state, orders and seed always give the same bytes.

use std::collections::BTreeMap;

use engine::{Engine, GameSecret, PlayerId, TurnError};
use proptest::prelude::*;
use salvo::{DiceMode, Salvo, Setup, ShotRule, Special, Square, State};

use crate::common::*;

fn setups() -> impl Strategy<Value = Setup> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(three_d6, salvo, bonus, autoshot)| Setup {
            dice_mode: if three_d6 {
                DiceMode::ThreeD6
            } else {
                DiceMode::D20
            },
            shots: if salvo {
                ShotRule::Salvo
            } else {
                ShotRule::One
            },
            torpedo_bonus: bonus,
            nmr_autoshot: autoshot,
            ..Setup::default()
        },
    )
}

/// Every hit record in a state: (owner, square) -> (turn, credited attackers).
fn records(state: &State) -> BTreeMap<(PlayerId, Square), (u32, Vec<PlayerId>)> {
    let mut all = BTreeMap::new();
    for admiral in state.admirals() {
        for ship in admiral.fleet().ships() {
            for (square, record) in ship.damage() {
                assert!(ship.occupies(*square), "a hit off its ship");
                all.insert((admiral.id(), *square), (record.turn, record.by.clone()));
            }
        }
    }
    all
}

/// Which extra a report row's Co-ord shows as carried out (not voided).
fn special_used(coord: &str, result: &str) -> Option<Special> {
    if result.starts_with("order void") {
        return None;
    }
    let first = coord.split_whitespace().next()?;
    match first {
        "NUKE" => Some(Special::Nuke),
        "SCUBA" => Some(Special::Scuba),
        "TORP" => Some(Special::Torpedo),
        "EXP" => Some(Special::Experimental),
        "BOMB" => Some(Special::Bomber),
        _ => None,
    }
}

/// Plays `turns` random turns, checking every invariant after each; true if the game ended.
fn play(
    setup: Setup,
    count: usize,
    seed: u8,
    order_seed: u64,
    turns: usize,
    sensible: bool,
) -> Result<bool, TestCaseError> {
    let mut state = new_game(&setup, count, seed);
    let secret = GameSecret::from_bytes([seed.wrapping_add(1); 32]);
    let mut mix = Mix(order_seed);
    let limits = setup.starting_uses();
    let mut used: BTreeMap<(PlayerId, Special), u8> = BTreeMap::new();
    for _ in 0..turns {
        let input = if sensible {
            mix.sensible_input(&state)
        } else {
            mix.turn_input(&state)
        };
        let turn = Salvo::turn(&state);
        let before = records(&state);
        let first = Salvo::resolve(&state, &input, &mut secret.turn_dice(turn));
        let second = Salvo::resolve(&state, &input, &mut secret.turn_dice(turn));
        let (first, second) = match (first, second) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(TurnError::GameOver), Err(TurnError::GameOver)) => {
                prop_assert!(state.end().is_some());
                return Ok(true);
            }
            (a, b) => return Err(TestCaseError::fail(format!("{a:?} / {b:?}"))),
        };
        // Same state + orders + seed: byte-identical state and report.
        prop_assert_eq!(
            serde_json::to_string(&first.state).unwrap(),
            serde_json::to_string(&second.state).unwrap()
        );
        prop_assert_eq!(
            serde_json::to_string(&first.report).unwrap(),
            serde_json::to_string(&second.report).unwrap()
        );
        let next = first.state;
        // The stored JSON reads back as the same state (fleets re-validated).
        let json = serde_json::to_string(&next).unwrap();
        prop_assert_eq!(&serde_json::from_str::<State>(&json).unwrap(), &next);

        // No square counted hit twice: a record, once made, never changes; new records are
        // this turn's; credit lists never repeat an attacker.
        let after = records(&next);
        for (key, record) in &before {
            prop_assert_eq!(after.get(key), Some(record), "record changed for {:?}", key);
        }
        for (key, (made, by)) in &after {
            if !before.contains_key(key) {
                prop_assert_eq!(*made, turn);
            }
            let mut unique = by.clone();
            unique.dedup();
            prop_assert_eq!(unique.len(), by.len());
            prop_assert!(!by.contains(&key.0), "own squares credited to their owner");
        }
        // Each report row names a square as a new hit at most once.
        for row in &first.report.rows {
            let mut named: Vec<&str> = Vec::new();
            for part in row.result.split("; ") {
                let part = part.rsplit(": ").next().unwrap_or(part);
                if let Some(list) = part.strip_prefix("hit ")
                    && !list.contains("already")
                {
                    named.extend(list.split(", "));
                }
            }
            let count = named.len();
            named.sort();
            named.dedup();
            prop_assert_eq!(named.len(), count, "a square named twice: {}", row.result);
        }

        // Uses never exceed their limits, and every use carried out is counted.
        for row in &first.report.rows {
            let Some(special) = special_used(&row.coord, &row.result) else {
                continue;
            };
            let name = row.name.split(" → ").next().unwrap_or(&row.name);
            let Some(admiral) = next.admirals().iter().find(|a| a.name() == name) else {
                continue;
            };
            *used.entry((admiral.id(), special)).or_default() += 1;
        }
        for admiral in next.admirals() {
            for special in Special::ALL {
                let spent = used.get(&(admiral.id(), special)).copied().unwrap_or(0);
                prop_assert!(spent <= limits.of(special), "{special} used {spent} times");
                prop_assert_eq!(admiral.uses_left().of(special), limits.of(special) - spent);
            }
            let ships = admiral.fleet().ships();
            prop_assert_eq!(ships.len(), 5);
            for ship in ships {
                prop_assert_eq!(ship.is_sunk(), ship.all_hit());
            }
        }
        state = next;
    }
    Ok(state.end().is_some())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(
        setup in setups(),
        count in 2usize..=4,
        seed in any::<u8>(),
        order_seed in any::<u64>(),
        turns in 1usize..=14,
        sensible in any::<bool>(),
    ) {
        play(setup, count, seed, order_seed, turns, sensible)?;
    }
}

/// Long games to the end: they finish, and once finished no turn resolves.
#[test]
fn long_random_games_end_and_stay_ended() {
    let setup = Setup {
        shots: ShotRule::Salvo,
        ..Setup::default()
    };
    for seed in 0..12u8 {
        let ended = play(
            setup.clone(),
            2 + usize::from(seed % 3),
            seed,
            u64::from(seed) * 7919,
            150,
            true,
        )
        .unwrap();
        assert!(ended, "game {seed} did not end in 150 turns");
    }
}
