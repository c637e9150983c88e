//! Benchmark (prints figures; not a test): the export of a finished Barmy game's portable record
//! (`gm game ID export`, docs/record.md) — by default 50 turns of 1,000 players, every player
//! sending two shots each turn. Target (issue 30): under 2 s. Then the record is verified
//! (`record::verify`, what `admiralty-verify` runs), timed too, and must hold. Run it with
//! `bench/record.sh`.
//!
//! Environment: `ADMIRALTY_TEST_DATABASE_URL` (a role that may CREATE DATABASE; a fresh database
//! is made and dropped), `ADMIRALTY_BENCH_RECORD_PLAYERS` (default 1000),
//! `ADMIRALTY_BENCH_RECORD_TURNS` (default 50). Prints `RESULT key=value` lines for `bench/run`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "a benchmark")]

mod common;
#[path = "common/orders.rs"]
mod orders;

use std::time::Instant;

use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use server::turns::{self, GmAction};
use store::testing::TestDatabase;

const TARGET_SECONDS: f64 = 2.0;

fn env_number(name: &str, default: u64) -> anyhow::Result<u64> {
    match std::env::var(name) {
        Ok(text) => text.parse().with_context(|| format!("{name}={text:?}")),
        Err(_) => Ok(default),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let players = env_number("ADMIRALTY_BENCH_RECORD_PLAYERS", 1000)?;
    let wanted = env_number("ADMIRALTY_BENCH_RECORD_TURNS", 50)?;
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let created = DateTime::parse_from_rfc3339("2026-01-02T18:00:00Z")?.with_timezone(&Utc);
    let mut deadline = created + Duration::days(7);

    // The game, played turn by turn through the service (not measured).
    let clock = Instant::now();
    let zine = common::zine_with_subscribers(pool, "record", players, created).await?;
    let side = common::barmy_board_side(players);
    let game = common::barmy_game(pool, zine, "Record", side, created, deadline).await?;
    let mut played = 0;
    for round in 0..wanted {
        orders::submit_orders(pool, game, players, side, round, deadline).await?;
        let resolved = turns::resolve_due(pool, deadline, "bench.example.org").await?;
        anyhow::ensure!(resolved.len() == 1, "turn {} did not resolve", round + 1);
        played += 1;
        deadline += Duration::days(7);
        let open: Option<i64> =
            sqlx::query_scalar("SELECT id FROM turns WHERE game_id = $1 AND status = 'open'")
                .bind(game)
                .fetch_optional(pool)
                .await?;
        if open.is_none() {
            break;
        }
    }
    if turns::gm_action(
        pool,
        deadline,
        game,
        GmAction::End,
        "bench",
        "bench.example.org",
    )
    .await
    .is_err()
    {
        println!("setup: the game ended by itself after turn {played}");
    }
    println!(
        "setup: {players} players, {played} turns played and the game ended in {:.1} s",
        clock.elapsed().as_secs_f64()
    );

    // Measured: the export as `gm game ID export` makes it, to JSON text.
    let clock = Instant::now();
    let record = turns::record::export_game(pool, game)
        .await?
        .context("the game is there")?;
    let json = record.to_json()?;
    let export_seconds = clock.elapsed().as_secs_f64();

    let clock = Instant::now();
    let read = record::GameRecord::parse(&json)?;
    let verdict = record::verify(&read);
    let verify_seconds = clock.elapsed().as_secs_f64();
    anyhow::ensure!(verdict.holds(), "{}", record::describe(&verdict));

    println!(
        "export: {played} turns of {players} players, {:.1} MB of JSON in {export_seconds:.3} s (target < {TARGET_SECONDS} s: {})",
        json.len() as f64 / 1e6,
        if export_seconds < TARGET_SECONDS {
            "met"
        } else {
            "NOT met"
        }
    );
    println!("verify: every turn replayed in {verify_seconds:.3} s");
    println!("RESULT record_players={players}");
    println!("RESULT record_turns={played}");
    println!("RESULT record_bytes={}", json.len());
    println!("RESULT record_export_seconds={export_seconds:.3}");
    println!("RESULT record_verify_seconds={verify_seconds:.3}");
    db.drop_database().await;
    Ok(())
}
