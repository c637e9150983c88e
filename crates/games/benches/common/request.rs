//! The request the adjudicate benchmark resolves: turn 1 of a Barmy game of N players, every
//! player sending two shots and a line of press. Shared by benches/adjudicate.rs and
//! examples/adjudicate_once.rs.

use std::time::Instant;

use serde_json::{Value, json};

/// The side of a square board with room for every ship (four squares each) about half full,
/// never smaller than the text's 19 (the sizing examples/fanout_bench.rs uses for a zine).
fn board_side(players: u64) -> u64 {
    ((players * 8) as f64).sqrt().ceil().max(19.0) as u64
}

/// A square of the board, `n` spreading over all of it: columns A.. then AA.. as Barmy writes them.
fn square(n: u64, side: u64) -> String {
    let x = n % side;
    let y = n / side % side;
    let column = |x: u64| char::from(b'A' + (x % 26) as u8);
    let letters = if x < 26 {
        column(x).to_string()
    } else {
        format!("{}{}", column((x - 26) / 26), column(x - 26))
    };
    format!("{letters}{}", y + 1)
}

/// The resolve request of turn 1 of a new game of `players`, as `gm adjudicate` reads it: the
/// state from `gm adjudicate new-game`, and every player's orders as they would mail them.
pub fn request(players: u64) -> String {
    let side = board_side(players);
    let roster: Vec<Value> = (1..=players)
        .map(|id| json!({ "id": id, "name": format!("Player {id}") }))
        .collect();
    let secret = "5eed".repeat(16);
    let new_game = json!({
        "engine": "barmy",
        "setup": { "width": side, "height": side },
        "players": roster,
        "secret": secret,
    });
    let started = Instant::now();
    let game: Value =
        serde_json::from_str(&games::adjudicate::new_game_json(&new_game.to_string()).unwrap())
            .unwrap();
    eprintln!(
        "{players} players: {side}x{side} board, new game made in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let orders: serde_json::Map<String, Value> = (1..=players)
        .map(|id| {
            let text = format!(
                "{}, {}\nPRESS Player {id} salutes the fleet and promises nothing.\n",
                square(id * 7, side),
                square(id * 13 + side / 2, side)
            );
            (id.to_string(), Value::String(text))
        })
        .collect();
    json!({
        "engine": "barmy",
        "state": game["state"],
        "orders": orders,
        "secret": secret,
    })
    .to_string()
}
