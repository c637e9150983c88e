//! Each engine's order parser, through `games::AnyState` as the service calls it, on real
//! game states: a new game from the engine's `docs/adjudicate` example, the example turn's
//! state, and the state after that turn resolved.
//!
//! Input: byte 0 picks the engine, byte 1 the state, byte 2 the player; the rest is the order
//! text (invalid UTF-8 replaced, as a mail body would be).
//!
//! Properties besides "no panic":
//! - parsing is deterministic;
//! - every error and warning names a line of the text (1-based) and quotes it as written;
//! - every correction works: an example a refusal offers, written in the refused line's
//!   place, is accepted there (`engine::corrections`);
//! - the parsed orders survive their JSON form (the service stores them as JSON) and resolve:
//!   orders the parser accepted never make the turn fail with a bad state;
//! - the resolution is deterministic: the same state, orders and seeds give the same turn.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use engine::{PlayerId, TurnDice, TurnInput};
use games::adjudicate::{self, NewGameRequest, ResolveRequest};
use games::{AnyState, EngineKind, GameError, PressItem};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

struct Game {
    engine: EngineKind,
    state: AnyState,
    players: Vec<PlayerId>,
    secret: engine::GameSecret,
}

fn example(name: &str) -> &'static str {
    match name {
        "barmy-new-game" => include_str!("../../docs/adjudicate/barmy-new-game.json"),
        "barmy-turn" => include_str!("../../docs/adjudicate/barmy-turn.json"),
        "salvo-new-game" => include_str!("../../docs/adjudicate/salvo-new-game.json"),
        "salvo-turn" => include_str!("../../docs/adjudicate/salvo-turn.json"),
        "ironclad-new-game" => include_str!("../../docs/adjudicate/ironclad-new-game.json"),
        "ironclad-turn" => include_str!("../../docs/adjudicate/ironclad-turn.json"),
        "skyfleet-new-game" => include_str!("../../docs/adjudicate/skyfleet-new-game.json"),
        "skyfleet-turn" => include_str!("../../docs/adjudicate/skyfleet-turn.json"),
        "forever-new-game" => include_str!("../../docs/adjudicate/forever-new-game.json"),
        "forever-turn" => include_str!("../../docs/adjudicate/forever-turn.json"),
        other => panic!("no example {other}"),
    }
}

/// Three states per engine, in `EngineKind::ALL` order.
fn games() -> &'static Vec<Game> {
    static GAMES: OnceLock<Vec<Game>> = OnceLock::new();
    GAMES.get_or_init(|| {
        let mut games = Vec::new();
        for engine in EngineKind::ALL {
            let new: NewGameRequest =
                serde_json::from_str(example(&format!("{engine}-new-game"))).unwrap();
            let secret = adjudicate::parse_secret(&new.secret).unwrap();
            let started = adjudicate::new_game(new).unwrap();
            let turn_text = example(&format!("{engine}-turn"));
            let turn: Value = serde_json::from_str(turn_text).unwrap();
            let turn_secret = adjudicate::parse_secret(turn["secret"].as_str().unwrap()).unwrap();
            let resolved =
                adjudicate::resolve(serde_json::from_str::<ResolveRequest>(turn_text).unwrap())
                    .unwrap();
            for (state, secret) in [
                (started.state, secret.clone()),
                (engine.parse_state(&turn["state"]).unwrap(), turn_secret.clone()),
                (resolved.state, turn_secret),
            ] {
                let players = state.roster().into_iter().map(|p| p.id).collect();
                games.push(Game {
                    engine,
                    state,
                    players,
                    secret,
                });
            }
        }
        games
    })
}

fuzz_target!(|data: &[u8]| {
    let [engine, state, player, text @ ..] = data else {
        return;
    };
    let games = games();
    let index = usize::from(*engine % 5) * 3 + usize::from(*state % 3);
    let game = &games[index];
    let player = game.players[usize::from(*player) % game.players.len()];
    let text = String::from_utf8_lossy(text);
    let engine = game.engine;

    let parsed = game.state.parse_orders(player, &text);
    let again = game.state.parse_orders(player, &text);
    assert_eq!(parsed, again, "{engine}: parsing is not deterministic");

    let lines: Vec<&str> = text.split('\n').collect();
    for issue in parsed.errors.iter().chain(&parsed.warnings) {
        assert!(
            issue.line >= 1 && issue.line <= lines.len(),
            "{engine}: an issue names line {} of a text of {} lines",
            issue.line,
            lines.len()
        );
        let written = lines[issue.line - 1].trim();
        assert!(
            written.contains(issue.text.trim()),
            "{engine}: issue on line {} quotes {:?}, but the line is {written:?}",
            issue.line,
            issue.text
        );
    }

    // Every correction works: each example a refusal offers is accepted in its line's place.
    let broken = game.state.broken_corrections(player, &text);
    assert!(
        broken.is_empty(),
        "{engine}: a refusal's example is refused in its turn: {broken:#?}"
    );

    // The orders as the service stores them (JSON), resolved as the deadline would.
    let stored: Value =
        serde_json::from_str(&serde_json::to_string(&parsed.orders).unwrap()).unwrap();
    let stored = engine.parse_stored_orders(&stored).unwrap();
    assert_eq!(stored, parsed.orders, "{engine}: the orders do not survive their JSON form");
    let input = TurnInput {
        orders: BTreeMap::from([(player, stored)]),
        joining: Vec::new(),
        leaving: Vec::new(),
        excused: Vec::new(),
        renames: Vec::new(),
    };
    let press: Vec<PressItem> = parsed
        .press
        .iter()
        .map(|text| PressItem {
            player,
            text: text.clone(),
        })
        .collect();
    let turn = game.state.turn();
    let resolve = || {
        let mut dice =
            TurnDice::from_seeds(&game.secret.turn_seed(turn), &game.secret.sealed_seed(turn));
        game.state.resolve(input.clone(), &press, &mut dice)
    };
    match resolve() {
        Ok(resolved) => {
            let second = resolve().unwrap();
            assert_eq!(
                (resolved.report, resolved.state.to_json().unwrap()),
                (second.report, second.state.to_json().unwrap()),
                "{engine}: resolution is not deterministic"
            );
        }
        Err(GameError::Turn(engine::TurnError::GameOver)) => {}
        Err(error) => panic!("{engine}: accepted orders fail to resolve: {error}"),
    }
});
