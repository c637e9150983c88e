//! Benchmark of end-to-end mail ingest: SMTP in (a real client over loopback, lettre) → stored
//! → parsed → orders saved → confirmation queued, against the raw single-row insert rate of the
//! same PostgreSQL, measured in the same run.
//!
//!   ADMIRALTY_TEST_DATABASE_URL=postgres://… cargo run --release -p server --example ingest_bench
//!
//! `bench/ingest.sh` starts a private PostgreSQL and runs this. Settings (environment):
//! BENCH_MESSAGES (default 5000), BENCH_CONNECTIONS (SMTP clients at once, default 16),
//! BENCH_WORKERS (inbox workers, default 8), BENCH_PLAYERS (players of each game, default 40),
//! BENCH_GAMES (default 8, or more so that no player sends more than half the hourly reply
//! limit: 13 for the defaults), BENCH_RAW_INSERT (0 skips the raw INSERT baseline),
//! BENCH_METRICS (1 installs the metrics' recorder, as `gm serve` does when metrics are served;
//! `bench/ingest.sh` with BENCH_METRICS=compare runs both ways and prints the ratio).
//! Each game is a zine of its own whose every subscriber plays one Barmy game (BARMY-02), on a
//! board sized to the players; messages go to the players in turn, so they spread over all of
//! them. One big game, as a zine runs it: `BENCH_GAMES=1 BENCH_PLAYERS=10000` (5,000 messages
//! from 5,000 different players).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "a benchmark program: any failure should stop it loudly"
)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Duration as ChronoDuration;
use lettre::Address;
use lettre::address::Envelope;
use lettre::transport::smtp::client::AsyncSmtpConnection;
use lettre::transport::smtp::extension::ClientId;
use server::smtp::{self, SmtpSettings};
use server::{Clock, SystemClock, inbox};
use store::PgPool;
use store::testing::TestDatabase;
use tokio::net::TcpListener;
use tokio::sync::Notify;

const DOMAIN: &str = "bench.example.org";

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() {
    let messages = setting("BENCH_MESSAGES", 5000);
    let connections = setting("BENCH_CONNECTIONS", 16);
    let workers = setting("BENCH_WORKERS", 8);
    let players = setting("BENCH_PLAYERS", 40);
    // Enough players that none reaches the hourly reply limit (each must get every confirmation).
    let replies_per_hour = inbox::REPLIES_PER_HOUR as usize;
    let game_count = setting(
        "BENCH_GAMES",
        8.max(messages.div_ceil(players * (replies_per_hour / 2))),
    );
    assert!(
        messages.div_ceil(game_count * players) <= replies_per_hour / 2,
        "{messages} messages over {game_count} games x {players} players would bring a player \
         near the hourly reply limit ({replies_per_hour}), and confirmations would go missing: \
         add games or players"
    );
    let raw_baseline = setting("BENCH_RAW_INSERT", 1) != 0;
    let recorder = (setting("BENCH_METRICS", 0) != 0).then(|| server::measures::install().unwrap());

    let db = TestDatabase::migrated().await;
    // More connections than the test pool's few: SMTP clients, workers and the baseline share it.
    let pool = store::connect(&db.url, u32::try_from(connections + workers + 4).unwrap())
        .await
        .unwrap();
    let tokens = set_up(&pool, game_count, players).await;

    let raw_rates = if raw_baseline {
        Some((
            raw_insert_rate(&pool, messages, connections).await,
            raw_insert_rate(&pool, messages.min(2000), 1).await,
        ))
    } else {
        None
    };

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let stored = Arc::new(Notify::new());
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    tokio::spawn(smtp::run(
        listener,
        pool.clone(),
        clock.clone(),
        SmtpSettings::new(DOMAIN, 1 << 20),
        stored.clone(),
    ));
    let states = server::turns::StateCache::default();
    // Every reader is at example.org: the default budget of answers to one domain is no
    // bound on a benchmark whose every message must be confirmed.
    let mut settings = inbox::Settings::from(DOMAIN);
    settings.limits.replies_per_domain_per_hour = u32::MAX;
    for _ in 0..workers {
        tokio::spawn(inbox::worker(
            pool.clone(),
            states.clone(),
            clock.clone(),
            settings.clone(),
            stored.clone(),
            Duration::from_secs(1),
        ));
    }

    let started = Instant::now();
    let cpu_before = cpu_seconds(&pool).await;
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut clients = Vec::new();
    for _ in 0..connections {
        let tokens = tokens.clone();
        let next = next.clone();
        clients.push(tokio::spawn(async move {
            let mut connection = smtp_client(address).await;
            loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n >= messages {
                    return;
                }
                let (token, from) = &tokens[n % tokens.len()];
                let to = format!("orders+{token}@{DOMAIN}");
                let raw = format!(
                    "From: <{from}>\r\nTo: <{to}>\r\nMessage-ID: <bench-{n}@example.net>\r\n\
                     Subject: Re: turn 1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
                     G13, K19\r\nPRESS Bench press {n}\r\n\r\n-- \r\nsent by the benchmark\r\n"
                );
                let envelope = Envelope::new(
                    Some(from.parse::<Address>().unwrap()),
                    vec![to.parse::<Address>().unwrap()],
                )
                .unwrap();
                connection.send(&envelope, raw.as_bytes()).await.unwrap();
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    let accepted = started.elapsed();
    // Every message was stored before its 250, so the work is done when none is left `new`.
    // Asked through the claim index: counting every processed row each poll cost PostgreSQL
    // about 0.1 ms of CPU a message, charged to the service.
    loop {
        let waiting: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM inbound_messages WHERE status = 'new')",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        if !waiting {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let processed = started.elapsed();
    let cpu_after = cpu_seconds(&pool).await;
    let cpu_per_message_ms = (cpu_after.total() - cpu_before.total()) * 1000.0 / messages as f64;
    let cpu_postgres_ms = (cpu_after.postgres - cpu_before.postgres) * 1000.0 / messages as f64;

    let (failed, orders, confirmations): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM inbound_messages WHERE status <> 'processed'), \
                (SELECT count(*) FROM orders), \
                (SELECT count(*) FROM outbound_messages WHERE starts_with(idempotency_key, 'reply:'))",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(failed, 0, "every message must be processed");
    assert_eq!(orders, messages as i64, "every message's orders saved");
    assert_eq!(confirmations, messages as i64, "every message confirmed");

    let ingest_rate = messages as f64 / processed.as_secs_f64();
    println!(
        "ingest benchmark: {messages} messages, {connections} SMTP connections, {workers} inbox workers, {game_count} games x {players} players"
    );
    println!("| measurement | messages/s |");
    println!("|---|---|");
    println!(
        "| SMTP accepted and stored (250 sent) | {:.0} |",
        messages as f64 / accepted.as_secs_f64()
    );
    println!(
        "| end to end: stored, parsed, orders saved, confirmation queued | {ingest_rate:.0} |"
    );
    if let Some((raw_rate, _)) = raw_rates {
        println!("| raw single-row INSERT, {connections} connections | {raw_rate:.0} |");
    }
    println!(
        "CPU per message, this program (clients, listener, workers) and PostgreSQL: {cpu_per_message_ms:.2} ms \
         (so at most {:.0} messages/s on this machine's {} cores, whatever else runs)",
        std::thread::available_parallelism().map_or(1, |n| n.get()) as f64 * 1000.0
            / cpu_per_message_ms,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    println!(
        "  of which PostgreSQL: {cpu_postgres_ms:.2} ms, this program: {:.2} ms",
        cpu_per_message_ms - cpu_postgres_ms
    );
    if let Some((raw_rate, raw_single)) = raw_rates {
        println!("| raw single-row INSERT, 1 connection | {raw_single:.0} |");
        println!(
            "ratio end-to-end / raw insert ({connections} connections): {:.2}",
            ingest_rate / raw_rate
        );
    }
    // Machine-readable, for bench/run.
    println!("RESULT ingest_messages={messages}");
    println!("RESULT ingest_connections={connections}");
    println!("RESULT ingest_games={game_count}");
    println!("RESULT ingest_players={players}");
    println!(
        "RESULT ingest_accepted_per_s={:.0}",
        messages as f64 / accepted.as_secs_f64()
    );
    println!("RESULT ingest_per_s={ingest_rate:.0}");
    println!("RESULT ingest_cpu_ms_per_message={cpu_per_message_ms:.2}");
    println!("RESULT ingest_cpu_ms_per_message_postgres={cpu_postgres_ms:.2}");
    if let Some((raw_rate, raw_single)) = raw_rates {
        println!("RESULT raw_insert_per_s={raw_rate:.0}");
        println!("RESULT raw_insert_1conn_per_s={raw_single:.0}");
    }
    println!("RESULT ingest_metrics={}", u8::from(recorder.is_some()));
    if let Some(handle) = recorder {
        // The recorder did count: every message, as orders.
        let text = handle.render();
        let counted = text
            .lines()
            .find_map(|l| l.strip_prefix("admiralty_inbound_messages_total{outcome=\"orders\"} "))
            .and_then(|n| n.parse::<usize>().ok());
        assert_eq!(counted, Some(messages), "the metrics counted every message");
        println!("RESULT ingest_metrics_counted={messages}");
    }
    pool.close().await;
    db.drop_database().await;
}

/// CPU seconds used so far, split between this program and PostgreSQL.
struct CpuSeconds {
    this_program: f64,
    postgres: f64,
}

impl CpuSeconds {
    fn total(&self) -> f64 {
        self.this_program + self.postgres
    }
}

/// CPU time (user + system) used so far by this process and by every PostgreSQL process the
/// server lists (backends and background workers), from /proc: the benchmark's cost per
/// message, which unlike its rate does not depend on what else the machine is running.
async fn cpu_seconds(pool: &PgPool) -> CpuSeconds {
    let pids: Vec<i32> = sqlx::query_scalar("SELECT pid FROM pg_stat_activity")
        .fetch_all(pool)
        .await
        .unwrap();
    let ticks = |pid: &str| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Fields after the command name (which may hold spaces): utime and stime are the 12th
        // and 13th of them.
        let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        field(11) + field(12)
    };
    let postgres: u64 = pids.iter().map(|pid| ticks(&pid.to_string())).sum();
    // Linux reports these in USER_HZ, 100 per second on every platform Rust supports.
    CpuSeconds {
        this_program: ticks("self") as f64 / 100.0,
        postgres: postgres as f64 / 100.0,
    }
}

/// One client connection to the listener, as a mail server's client would hold it: Nagle's
/// algorithm off, as MTAs have it, so a message's last small write is not held back waiting
/// for the listener's delayed acknowledgement (which would measure the kernel, not Admiralty).
async fn smtp_client(address: std::net::SocketAddr) -> AsyncSmtpConnection {
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.set_nodelay(true).unwrap();
    AsyncSmtpConnection::connect_with_transport(
        Box::new(stream),
        &ClientId::Domain("bench.example.net".into()),
    )
    .await
    .unwrap()
}

/// `games` zines, each with `players` subscribers and one Barmy game of all of them (set up in
/// a few statements each: see examples/common); returns every (token, address), game by game.
async fn set_up(pool: &PgPool, games: usize, players: usize) -> Vec<(String, String)> {
    let now = SystemClock.now();
    let side = common::barmy_board_side(players as u64);
    let (mut subscribing, mut creating) = (Duration::ZERO, Duration::ZERO);
    for g in 0..games {
        let started = Instant::now();
        let zine = common::zine_with_subscribers(pool, &format!("bench-{g}"), players as u64, now)
            .await
            .unwrap();
        subscribing += started.elapsed();
        let started = Instant::now();
        common::barmy_game(
            pool,
            zine,
            &format!("Bench game {g}"),
            side,
            now,
            now + ChronoDuration::days(2),
        )
        .await
        .unwrap();
        creating += started.elapsed();
    }
    println!(
        "setup: {games} zines of {players} subscribers in {:.1} s; a game of each \
         ({side}x{side} board, turns::create_game) in {:.1} s",
        subscribing.as_secs_f64(),
        creating.as_secs_f64()
    );
    sqlx::query_as(
        "SELECT p.reply_token, s.email FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         ORDER BY p.id",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

/// Single-row INSERTs (each its own transaction) of a message-sized row from `connections`
/// connections at once: the database's own rate, the ceiling for anything storing messages.
async fn raw_insert_rate(pool: &PgPool, rows: usize, connections: usize) -> f64 {
    sqlx::query("CREATE TABLE IF NOT EXISTS bench_raw_insert (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, message_id text UNIQUE NOT NULL, raw bytea NOT NULL)")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("TRUNCATE bench_raw_insert")
        .execute(pool)
        .await
        .unwrap();
    let body = vec![b'x'; 300];
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let pool = pool.clone();
        let body = body.clone();
        let next = next.clone();
        tasks.push(tokio::spawn(async move {
            loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n >= rows {
                    return;
                }
                sqlx::query("INSERT INTO bench_raw_insert (message_id, raw) VALUES ($1, $2)")
                    .bind(format!("<raw-{n}@example.net>"))
                    .bind(&body)
                    .execute(&pool)
                    .await
                    .unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    rows as f64 / started.elapsed().as_secs_f64()
}
