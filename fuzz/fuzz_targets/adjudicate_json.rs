//! `gm adjudicate`'s JSON (`games::adjudicate`): the input of `gm adjudicate new-game` and of
//! `gm adjudicate` (resolve one turn), as a GM or a verifier would write it.
//!
//! Properties besides "no panic":
//! - the answer is deterministic: the same input gives the same bytes out;
//! - a turn resolved with the game's secret is resolved again, byte for byte, from the two
//!   seeds the answer reveals (what `gm verify` and any reader rely on);
//! - a new game's answer is a state whose next turn resolves (with no orders: every player
//!   NMR) or says the game is over, and the commitments match the seeds that turn uses.
#![no_main]

use games::GameError;
use games::adjudicate::{self, AdjudicateError};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    new_game(input);
    resolve(input);
});

fn new_game(input: &str) {
    let first = adjudicate::new_game_json(input);
    let second = adjudicate::new_game_json(input);
    let answer = match (first, second) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "new-game is not deterministic");
            a
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                a.to_string(),
                b.to_string(),
                "new-game is not deterministic"
            );
            return;
        }
        _ => panic!("new-game succeeds only sometimes"),
    };
    let answer: Value = serde_json::from_str(&answer).unwrap();
    let request: Value = serde_json::from_str(input).unwrap();
    let next = json!({
        "engine": answer["engine"],
        "state": answer["state"],
        "secret": request["secret"],
    });
    match adjudicate::resolve_json(&next.to_string()) {
        Ok(turn) => {
            let turn: Value = serde_json::from_str(&turn).unwrap();
            let seed = turn["seed"].as_str().unwrap();
            let sealed = turn["sealed_seed"].as_str().unwrap();
            assert_eq!(
                turn["turn"], answer["next_turn"],
                "the next turn is not the one committed to"
            );
            assert_eq!(
                commitment(seed),
                answer["commitment"],
                "the seed breaks its commitment"
            );
            assert_eq!(
                commitment(sealed),
                answer["sealed_commitment"],
                "the sealed seed breaks its commitment"
            );
        }
        Err(AdjudicateError::Game(GameError::Turn(engine::TurnError::GameOver))) => {}
        Err(error) => panic!("a new game's first turn does not resolve: {error}"),
    }
}

fn commitment(seed_hex: &str) -> Value {
    let seed: engine::TurnSeed = serde_json::from_value(json!(seed_hex)).unwrap();
    Value::from(seed.commitment())
}

fn resolve(input: &str) {
    let first = adjudicate::resolve_json(input);
    let second = adjudicate::resolve_json(input);
    let answer = match (first, second) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "resolve is not deterministic");
            a
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "resolve is not deterministic");
            return;
        }
        _ => panic!("resolve succeeds only sometimes"),
    };
    let answer: Value = serde_json::from_str(&answer).unwrap();
    let mut request: Value = serde_json::from_str(input).unwrap();
    let Some(fields) = request.as_object_mut() else {
        panic!("a request that resolved is not an object");
    };
    if fields.remove("secret").is_none() {
        return; // resolved from revealed seeds already
    }
    fields.insert("seed".into(), answer["seed"].clone());
    fields.insert("sealed_seed".into(), answer["sealed_seed"].clone());
    let replayed = adjudicate::resolve_json(&request.to_string())
        .unwrap_or_else(|error| panic!("the revealed seeds do not replay the turn: {error}"));
    let replayed: Value = serde_json::from_str(&replayed).unwrap();
    assert_eq!(replayed, answer, "the revealed seeds give another turn");
}
