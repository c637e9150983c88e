//! Benchmark (prints figures; not a test): one turn of a Barmy game in a zine of 10,000
//! subscribers resolves, publishes and queues all its mail (the report to every subscriber,
//! each player's position) in one transaction; then the outbound worker delivers the queue to
//! a local SMTP sink. Run it with `bench/fanout.sh`, which provides both.
//!
//! Environment:
//! - `ADMIRALTY_TEST_DATABASE_URL`: a role that may CREATE DATABASE (a fresh database is made
//!   and dropped);
//! - `ADMIRALTY_BENCH_SMTP`: the sink, `host:port`;
//! - `ADMIRALTY_BENCH_SUBSCRIBERS` (default 10000), `ADMIRALTY_BENCH_ORDERING_PERCENT` (share of
//!   players who sent orders, default 50);
//! - `ADMIRALTY_BENCH_DELIVER_MESSAGES` (default: all): deliver only an evenly spread sample of
//!   this many of the queued mails (the rest are put off), to bound the run's time.
//!
//! Besides the text, it prints `RESULT key=value` lines for `bench/run`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "a benchmark")]

mod common;
#[path = "common/orders.rs"]
mod orders;

use std::time::Instant;

use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use server::turns;
use sqlx::PgPool;
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

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let subscribers = env_number("ADMIRALTY_BENCH_SUBSCRIBERS", 10_000)?;
    let ordering = env_number("ADMIRALTY_BENCH_ORDERING_PERCENT", 50)?.min(100);
    let deliver_sample = env_number("ADMIRALTY_BENCH_DELIVER_MESSAGES", 0)?;
    let sink = std::env::var("ADMIRALTY_BENCH_SMTP")
        .context("ADMIRALTY_BENCH_SMTP (host:port of the SMTP sink) is not set")?;
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let created = start() - Duration::days(7);
    let deadline = start();

    // The zine, its subscribers and the game of all of them (not measured).
    let zine = common::zine_with_subscribers(pool, "bench", subscribers, created).await?;
    let side = common::barmy_board_side(subscribers);
    let clock = Instant::now();
    let game = common::barmy_game(pool, zine, "Fan-out", side, created, deadline).await?;
    println!(
        "setup: {subscribers} subscribers, {side}x{side} board, game created in {:.2} s",
        clock.elapsed().as_secs_f64()
    );

    let clock = Instant::now();
    let ordered =
        orders::submit_orders(pool, game, subscribers * ordering / 100, side, 0, created).await?;
    println!(
        "setup: {ordered} players sent orders ({:.2} s)",
        clock.elapsed().as_secs_f64()
    );

    // Measured: resolution, publication and queueing, one transaction.
    let clock = Instant::now();
    let done = turns::resolve_due(pool, deadline, "bench.example.org").await?;
    let resolve_seconds = clock.elapsed().as_secs_f64();
    let mails = done.first().map_or(0, |t| t.mails_queued);
    let report_bytes: i64 =
        sqlx::query_scalar("SELECT octet_length(text)::bigint FROM published_reports")
            .fetch_one(pool)
            .await?;
    println!(
        "resolve + publish + queue: {resolve_seconds:.2} s for turn 1 ({mails} mails queued; report {report_bytes} bytes)"
    );

    let queued = u64::try_from(mails)?;
    if deliver_sample > 0 && deliver_sample < queued {
        // An even spread of the queue (reports and positions in their proportions); the rest
        // is put off a year, out of this run's reach.
        let stride = queued.div_ceil(deliver_sample);
        sqlx::query(
            "UPDATE outbound_messages SET next_attempt_at = next_attempt_at + interval '1 year' \
             WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n \
             FROM outbound_messages) AS numbered WHERE n % $1 <> 0)",
        )
        .bind(i64::try_from(stride)?)
        .execute(pool)
        .await?;
    }

    // Measured: delivery of the (sampled) queue to the sink.
    let relay = server::outbox::Relay::new(
        &format!("smtp://{sink}"),
        "Admiralty <orders@bench.example.org>",
    )?;
    let (personal, personal_seconds, reports, reports_seconds) =
        deliver_in_two_parts(pool, &relay, deadline).await?;
    let deliver_seconds = personal_seconds + reports_seconds;
    let delivered = server::outbox::Delivered {
        sent: personal.sent + reports.sent,
        retrying: personal.retrying + reports.retrying,
        failed: personal.failed + reports.failed,
        transactions: personal.transactions + reports.transactions,
    };
    for (what, part, seconds) in [
        ("personal mails (positions)", personal, personal_seconds),
        ("report copies", reports, reports_seconds),
    ] {
        println!(
            "deliver {what}: {} sent, {} retrying, {} failed in {} SMTP transactions, {seconds:.2} s = {:.0} messages/s",
            part.sent,
            part.retrying,
            part.failed,
            part.transactions,
            part.sent as f64 / seconds
        );
    }
    let sent_bytes: i64 = sqlx::query_scalar(
        "SELECT COALESCE(sum(octet_length(m.body_text) + COALESCE(octet_length(b.body_text), 0)), 0)::bigint \
         FROM outbound_messages m LEFT JOIN outbound_bodies b ON b.id = m.shared_body_id WHERE m.status = 'sent'",
    )
    .fetch_one(pool)
    .await?;
    println!(
        "deliver: {} sent, {} retrying, {} failed in {} SMTP transactions, {deliver_seconds:.2} s = {:.0} messages/s ({:.1} MB of bodies delivered, {:.1} MB/s)",
        delivered.sent,
        delivered.retrying,
        delivered.failed,
        delivered.transactions,
        delivered.sent as f64 / deliver_seconds,
        sent_bytes as f64 / 1e6,
        sent_bytes as f64 / 1e6 / deliver_seconds
    );
    println!("RESULT fanout_subscribers={subscribers}");
    println!("RESULT fanout_mails={mails}");
    println!("RESULT fanout_seconds={resolve_seconds:.3}");
    println!("RESULT fanout_report_bytes={report_bytes}");
    println!("RESULT delivery_messages={}", delivered.sent);
    println!("RESULT delivery_transactions={}", delivered.transactions);
    println!(
        "RESULT delivery_personal_per_s={:.0}",
        personal.sent as f64 / personal_seconds
    );
    println!(
        "RESULT delivery_per_s={:.0}",
        delivered.sent as f64 / deliver_seconds
    );
    println!(
        "RESULT delivery_mb_per_s={:.1}",
        sent_bytes as f64 / 1e6 / deliver_seconds
    );
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    println!(
        "targets: resolve+publish+queue < 5 s: {}; delivery >= 500 messages/s: {}",
        verdict(resolve_seconds < 5.0),
        verdict(delivered.sent as f64 / deliver_seconds >= 500.0)
    );
    for algorithm in [
        server::dkim::Algorithm::Rsa,
        server::dkim::Algorithm::Ed25519,
    ] {
        signed_run(
            pool,
            &sink,
            deadline,
            algorithm,
            reports.sent as f64 / reports_seconds,
            personal.sent as f64 / personal_seconds,
        )
        .await?;
    }
    db.drop_database().await;
    Ok(())
}

/// Delivers what is due in two parts, timed apart: the personal mails (positions: one
/// recipient per transaction), then the report's copies (many recipients per transaction).
async fn deliver_in_two_parts(
    pool: &PgPool,
    relay: &server::outbox::Relay,
    deadline: DateTime<Utc>,
) -> anyhow::Result<(
    server::outbox::Delivered,
    f64,
    server::outbox::Delivered,
    f64,
)> {
    sqlx::query(
        "UPDATE outbound_messages SET next_attempt_at = next_attempt_at + interval '10 years' \
         WHERE shared_body_id IS NOT NULL AND next_attempt_at <= $1",
    )
    .bind(deadline)
    .execute(pool)
    .await?;
    let clock = Instant::now();
    let personal = server::outbox::deliver_due(pool, relay, deadline).await?;
    let personal_seconds = clock.elapsed().as_secs_f64();
    sqlx::query(
        "UPDATE outbound_messages SET next_attempt_at = next_attempt_at - interval '10 years' \
         WHERE shared_body_id IS NOT NULL AND next_attempt_at > $1 + interval '9 years'",
    )
    .bind(deadline)
    .execute(pool)
    .await?;
    let clock = Instant::now();
    let reports = server::outbox::deliver_due(pool, relay, deadline).await?;
    let reports_seconds = clock.elapsed().as_secs_f64();
    Ok((personal, personal_seconds, reports, reports_seconds))
}

/// Delivers the same mail again, each message DKIM-signed with a new key of `algorithm`:
/// the figures beside the unsigned ones (issue 29's target: 2,000 messages/s or more with 100
/// recipients a transaction).
async fn signed_run(
    pool: &PgPool,
    sink: &str,
    deadline: DateTime<Utc>,
    algorithm: server::dkim::Algorithm,
    unsigned_reports_per_s: f64,
    unsigned_personal_per_s: f64,
) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("admiralty-bench-dkim-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(format!("{}.pem", algorithm.tag()));
    let made = server::dkim::generate(algorithm, "bench", "bench.example.org")?;
    std::fs::write(&file, made.pem)?;
    let key = server::dkim::DkimKey::load(&file, "bench", "bench.example.org")?;
    std::fs::remove_dir_all(&dir)?;
    // Everything sent goes back in the queue, as it was before the unsigned run.
    sqlx::query(
        "UPDATE outbound_messages SET status = 'queued', sent_at = NULL, attempts = 0, \
         next_attempt_at = $1 WHERE status = 'sent'",
    )
    .bind(deadline)
    .execute(pool)
    .await?;
    let relay = server::outbox::Relay::new(
        &format!("smtp://{sink}"),
        "Admiralty <orders@bench.example.org>",
    )?
    .with_dkim(Some(std::sync::Arc::new(key)));
    let (personal, personal_seconds, reports, reports_seconds) =
        deliver_in_two_parts(pool, &relay, deadline).await?;
    let reports_per_s = reports.sent as f64 / reports_seconds;
    let personal_per_s = personal.sent as f64 / personal_seconds;
    let tag = algorithm.tag();
    println!(
        "deliver signed ({tag}): report copies {} in {} transactions, {reports_seconds:.2} s = {reports_per_s:.0} messages/s (unsigned {unsigned_reports_per_s:.0}, ratio {:.2}); personal mails {}, {personal_seconds:.2} s = {personal_per_s:.0} messages/s (unsigned {unsigned_personal_per_s:.0}, ratio {:.2})",
        reports.sent,
        reports.transactions,
        reports_per_s / unsigned_reports_per_s,
        personal.sent,
        personal_per_s / unsigned_personal_per_s,
    );
    println!("RESULT delivery_signed_{tag}_reports_per_s={reports_per_s:.0}");
    println!("RESULT delivery_signed_{tag}_personal_per_s={personal_per_s:.0}");
    println!(
        "target: signed ({tag}) delivery >= 2,000 messages/s with 100 recipients a transaction: {}",
        if reports_per_s >= 2000.0 {
            "met"
        } else {
            "NOT met"
        }
    );
    Ok(())
}
