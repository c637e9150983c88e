//! Benchmark (prints figures; not a test): the zine's issue against per-game reports. Five
//! Barmy games in a zine of 10,000 subscribers (every subscriber plays each, BARMY-02) resolve
//! their turn; every subscriber first gets each game's report (5 circulars of 10,000 copies),
//! delivered to a local SMTP sink and timed; then the same five reports as one issue: gathered,
//! rendered (text and HTML), published and queued to the 10,000 (measured), and delivered
//! (measured). Position mails are put off: `fanout_bench` measures those. Run it with
//! `bench/issue.sh`.
//!
//! Environment: as `fanout_bench` (`ADMIRALTY_TEST_DATABASE_URL`, `ADMIRALTY_BENCH_SMTP`,
//! `ADMIRALTY_BENCH_SUBSCRIBERS`, default 10000), and `ADMIRALTY_BENCH_ISSUE_GAMES` (default 5).
//! Prints `RESULT key=value` lines for `bench/run`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "a benchmark")]

mod common;

use std::time::Instant;

use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use schedule::Schedule;
use server::{issues, outbox, turns};
use store::PgPool;
use store::testing::TestDatabase;

fn env_number(name: &str, default: u64) -> anyhow::Result<u64> {
    match std::env::var(name) {
        Ok(text) => text.parse().with_context(|| format!("{name}={text:?}")),
        Err(_) => Ok(default),
    }
}

fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-02T18:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// Puts off every queued mail but those whose idempotency key starts with `kind:`.
async fn only(pool: &PgPool, kind: &str) -> anyhow::Result<()> {
    sqlx::query(
        "UPDATE outbound_messages SET next_attempt_at = CASE WHEN idempotency_key LIKE $1 \
         THEN $2 ELSE $2 + interval '10 years' END WHERE status = 'queued'",
    )
    .bind(format!("{kind}:%"))
    .bind(start())
    .execute(pool)
    .await?;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let subscribers = env_number("ADMIRALTY_BENCH_SUBSCRIBERS", 10_000)?;
    let games = env_number("ADMIRALTY_BENCH_ISSUE_GAMES", 5)?;
    let sink = std::env::var("ADMIRALTY_BENCH_SMTP")
        .context("ADMIRALTY_BENCH_SMTP (host:port of the SMTP sink) is not set")?;
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let created = start() - Duration::days(7);
    let deadline = start();
    let domain = "bench.example.org";

    // Not measured: the zine publishing issues by hand, every subscriber having chosen
    // per-game reports for now, the games, their turn resolved.
    let zine_id = common::zine_with_subscribers(pool, "bench", subscribers, created).await?;
    let zine = store::zines::find(pool, zine_id).await?.context("zine")?;
    issues::set_rhythm(pool, created, &zine, Some(Schedule::Manual), "bench").await?;
    sqlx::query("UPDATE subscribers SET mail_choice = 'reports' WHERE zine_id = $1")
        .bind(zine_id)
        .execute(pool)
        .await?;
    let side = common::barmy_board_side(subscribers);
    let clock = Instant::now();
    for n in 1..=games {
        common::barmy_game(pool, zine_id, &format!("Game {n}"), side, created, deadline).await?;
    }
    let resolved = turns::resolve_due(pool, deadline, domain).await?;
    println!(
        "setup: {subscribers} subscribers, {games} games of {side}x{side}, {} turns resolved ({:.1} s)",
        resolved.len(),
        clock.elapsed().as_secs_f64()
    );
    let relay = outbox::Relay::new(
        &format!("smtp://{sink}"),
        "Admiralty <orders@bench.example.org>",
    )?;

    // Per-game reports: every report to every subscriber.
    only(pool, "report").await?;
    let clock = Instant::now();
    let reports = outbox::deliver_due(pool, &relay, deadline).await?;
    let reports_seconds = clock.elapsed().as_secs_f64();
    println!(
        "per-game reports: {} copies of {games} reports in {} SMTP transactions, delivered in {reports_seconds:.2} s = {:.0} messages/s",
        reports.sent,
        reports.transactions,
        reports.sent as f64 / reports_seconds
    );

    // The issue: the same five reports, one mail per subscriber.
    sqlx::query("UPDATE subscribers SET mail_choice = NULL WHERE zine_id = $1")
        .bind(zine_id)
        .execute(pool)
        .await?;
    let clock = Instant::now();
    let published = issues::publish_now(
        pool,
        deadline,
        &zine,
        Some(domain),
        "https://bench.example.org",
        "bench",
    )
    .await?;
    let queue_seconds = clock.elapsed().as_secs_f64();
    let (text_bytes, html_bytes): (i64, i64) = sqlx::query_as(
        "SELECT octet_length(text)::bigint, octet_length(html)::bigint FROM zine_issues WHERE number = 1",
    )
    .fetch_one(pool)
    .await?;
    println!(
        "issue: gathered, rendered, published and {} mails queued in {queue_seconds:.2} s (text {text_bytes} bytes, HTML {html_bytes} bytes)",
        published.mails_queued
    );
    only(pool, "issue").await?;
    let clock = Instant::now();
    let issue = outbox::deliver_due(pool, &relay, deadline).await?;
    let issue_seconds = clock.elapsed().as_secs_f64();
    println!(
        "issue: {} copies in {} SMTP transactions ({} retrying, {} failed), delivered in {issue_seconds:.2} s = {:.0} messages/s",
        issue.sent,
        issue.transactions,
        issue.retrying,
        issue.failed,
        issue.sent as f64 / issue_seconds
    );
    println!("RESULT issue_games={games}");
    println!("RESULT issue_subscribers={subscribers}");
    println!("RESULT issue_queue_seconds={queue_seconds:.3}");
    println!("RESULT issue_mails={}", published.mails_queued);
    println!("RESULT issue_text_bytes={text_bytes}");
    println!("RESULT issue_delivery_seconds={issue_seconds:.3}");
    println!("RESULT issue_transactions={}", issue.transactions);
    println!("RESULT per_game_report_copies={}", reports.sent);
    println!("RESULT per_game_delivery_seconds={reports_seconds:.3}");
    println!("RESULT per_game_transactions={}", reports.transactions);
    db.drop_database().await;
    Ok(())
}
