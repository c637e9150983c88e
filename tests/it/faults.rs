//! Faults under a real `gm serve` child process fed by a real SMTP client (lettre) over
//! loopback: PostgreSQL stopped and started again while the service runs, and the service
//! SIGKILLed while mail streams in (at a fault point inside the inbound pipeline, and at a
//! random moment). Afterwards every message that got a 250 is stored once and processed once
//! (its orders saved once, its confirmation queued once), and a message re-sent by a client
//! that never saw its 250 still has one effect.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command as StdCommand;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, Utc};
use games::EngineKind;
use lettre::address::Envelope;
use lettre::{Address, AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use server::turns::{self, GameSpec, Schedule};
use store::PgPool;
use store::testing::TestDatabase;

use crate::helpers::Counter;
use crate::kill::{Serving, scalar, until};
use crate::outbox::free_port;
use crate::turns::zine_with;

const DOMAIN: &str = "faults.example.org";
/// The children's clock; the game's deadline is two days later, so every order counts.
const NOW: &str = "2025-06-06T18:00:00Z";
/// Players in the game: each address gets at most 20 replies an hour, so the messages are
/// spread over enough senders that every one of them is confirmed.
const PLAYERS: usize = 40;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(NOW)
        .unwrap()
        .with_timezone(&Utc)
}

/// A Barmy game of `PLAYERS` subscribers; returns each player's (reply address, address).
async fn prepare(pool: &PgPool) -> Vec<(String, String)> {
    let names: Vec<String> = (1..=PLAYERS).map(|i| format!("Player {i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let zine = zine_with(pool, "faults", &names).await;
    let spec = GameSpec {
        zine,
        name: "Faults",
        setup: &EngineKind::Barmy.default_setup(),
        first_deadline: Some(now() + Duration::days(2)),
        schedule: Schedule::EveryDays(7),
    };
    turns::create_game(pool, now() - Duration::days(1), &spec, &mut Counter(11))
        .await
        .unwrap();
    let players: Vec<(String, String)> = sqlx::query_as(
        "SELECT p.reply_token, s.email FROM players p JOIN subscribers s ON s.id = p.subscriber_id ORDER BY p.id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(players.len(), PLAYERS);
    players
        .into_iter()
        .map(|(token, email)| (server::letters::reply_address(&token, DOMAIN), email))
        .collect()
}

/// Message `n` of a stream: orders and a press line from one of the players, its own
/// Message-ID.
struct Mail {
    n: usize,
    to: String,
    from: String,
    raw: Vec<u8>,
}

fn mail(players: &[(String, String)], n: usize) -> Mail {
    let (to, from) = players[n % players.len()].clone();
    let raw = format!(
        "From: <{from}>\r\nTo: <{to}>\r\nMessage-ID: <fault-{n}@example.net>\r\n\
         Subject: Re: Faults, turn 1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         G13, K19\r\nPRESS Fault press {n}\r\n"
    )
    .into_bytes();
    Mail { n, to, from, raw }
}

/// What the client was told about each message.
#[derive(Debug, Default)]
struct Told {
    /// Answered 250.
    accepted: BTreeSet<usize>,
    /// Refused with a 4xx: the server asks the client to try again later.
    deferred: BTreeSet<usize>,
    /// Anything else: connection refused or cut, timeouts, 5xx.
    failed: BTreeSet<usize>,
}

/// Sends `mails` over `connections` SMTP connections at once (a real client: lettre over
/// loopback) and records what each got; `acknowledged` counts the 250s as they come.
async fn send(
    smtp_port: u16,
    mails: Vec<Mail>,
    connections: usize,
    acknowledged: Arc<AtomicUsize>,
) -> Told {
    let transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous("127.0.0.1")
        .port(smtp_port)
        .timeout(Some(StdDuration::from_secs(20)))
        .pool_config(lettre::transport::smtp::PoolConfig::new().max_size(connections as u32))
        .build();
    let queue = Arc::new(std::sync::Mutex::new(mails));
    let mut clients = Vec::new();
    for _ in 0..connections {
        let transport = transport.clone();
        let queue = queue.clone();
        let acknowledged = acknowledged.clone();
        clients.push(tokio::spawn(async move {
            let mut told = Told::default();
            loop {
                let Some(mail) = queue.lock().unwrap().pop() else {
                    return told;
                };
                let envelope = Envelope::new(
                    Some(mail.from.parse::<Address>().unwrap()),
                    vec![mail.to.parse::<Address>().unwrap()],
                )
                .unwrap();
                match transport.send_raw(&envelope, &mail.raw).await {
                    Ok(_) => {
                        told.accepted.insert(mail.n);
                        acknowledged.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(error) if error.is_transient() => {
                        told.deferred.insert(mail.n);
                    }
                    Err(_) => {
                        told.failed.insert(mail.n);
                    }
                }
            }
        }));
    }
    let mut told = Told::default();
    for client in clients {
        let part = client.await.unwrap();
        told.accepted.extend(part.accepted);
        told.deferred.extend(part.deferred);
        told.failed.extend(part.failed);
    }
    told
}

/// The numbers of the stream's messages stored in the database.
async fn stored(pool: &PgPool) -> Vec<usize> {
    let ids: Vec<String> = sqlx::query_scalar("SELECT message_id FROM inbound_messages")
        .fetch_all(pool)
        .await
        .unwrap();
    ids.iter()
        .map(|id| {
            let number = id
                .split_once("fault-")
                .map(|(_, rest)| rest.split_once('@').map_or(rest, |(n, _)| n));
            number
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("an unexpected message {id}"))
        })
        .collect()
}

/// Every message of `0..count` stored once, processed once, its orders saved once and its
/// confirmation queued once.
async fn assert_each_has_one_effect(pool: &PgPool, count: usize, context: &str) {
    let count = i64::try_from(count).unwrap();
    // At least `count` done (more would be a double, reported below), within a minute.
    let started = Instant::now();
    while scalar(
        pool,
        "SELECT count(*) FROM inbound_messages WHERE status <> 'new'",
    )
    .await
        < count
    {
        assert!(
            started.elapsed() < StdDuration::from_secs(60),
            "{context}: messages still unprocessed after a minute"
        );
        tokio::time::sleep(StdDuration::from_millis(50)).await;
    }
    let mut numbers = stored(pool).await;
    numbers.sort_unstable();
    let expected: Vec<usize> = (0..usize::try_from(count).unwrap()).collect();
    assert_eq!(numbers, expected, "{context}: each message stored once");
    assert_eq!(
        scalar(
            pool,
            "SELECT count(*) FROM inbound_messages WHERE status = 'processed'"
        )
        .await,
        count,
        "{context}: every message processed"
    );
    assert_eq!(
        scalar(pool, "SELECT count(*) FROM orders").await,
        count,
        "{context}: each message's orders saved once"
    );
    assert_eq!(
        scalar(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE starts_with(idempotency_key, 'reply:')"
        )
        .await,
        count,
        "{context}: each message confirmed once"
    );
    assert_eq!(
        scalar(
            pool,
            "SELECT count(DISTINCT message_id) FROM outbound_messages WHERE starts_with(idempotency_key, 'reply:')"
        )
        .await,
        count,
        "{context}: each confirmation has its own Message-ID"
    );
    // Each confirmation names the message it answers: one per message, none doubled.
    assert_eq!(
        scalar(
            pool,
            "SELECT count(DISTINCT headers->>'In-Reply-To') FROM outbound_messages WHERE starts_with(idempotency_key, 'reply:')"
        )
        .await,
        count,
        "{context}: one confirmation per message"
    );
}

fn serve(url: &str, fault_point: Option<&str>, http_port: u16, smtp_port: u16) -> Serving {
    Serving::start_with(
        url,
        fault_point,
        None,
        &[
            ("ADMIRALTY_NOW", NOW.to_owned()),
            ("ADMIRALTY_MAIL_DOMAIN", DOMAIN.to_owned()),
            ("ADMIRALTY_BIND", format!("127.0.0.1:{http_port}")),
            ("ADMIRALTY_SMTP_LISTEN", format!("127.0.0.1:{smtp_port}")),
            ("ADMIRALTY_DB_MAX_CONNECTIONS", "8".to_owned()),
        ],
    )
}

/// How the service is killed while a stream of mail comes in.
#[derive(Debug, Clone, Copy)]
enum Kill {
    /// Once the process printed that it reached this fault point, and this many messages were
    /// acknowledged.
    AtFaultPoint(&'static str, usize),
    /// Once this many messages were acknowledged.
    AfterAcknowledged(usize),
}

/// Streams `total` messages into a `gm serve`, SIGKILLs it as `kill` says, checks that
/// everything acknowledged is stored, restarts it, re-sends what was not acknowledged (and a
/// few that were: a client that never saw its 250), and checks each message had one effect.
async fn kill_during_ingest(kill: Kill, total: usize) {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let players = prepare(pool).await;
    let (http_port, smtp_port) = (free_port(), free_port());
    let fault_point = match kill {
        Kill::AtFaultPoint(point, _) => Some(point),
        Kill::AfterAcknowledged(_) => None,
    };
    let mut serving = serve(&db.url, fault_point, http_port, smtp_port);
    serving.wait_for("SMTP listener for inbound mail").await;

    let acknowledged = Arc::new(AtomicUsize::new(0));
    let stream = tokio::spawn(send(
        smtp_port,
        (0..total).rev().map(|n| mail(&players, n)).collect(),
        4,
        acknowledged.clone(),
    ));
    let count = match kill {
        Kill::AtFaultPoint(point, count) => {
            serving
                .wait_for(&format!("fault point reached: {point}"))
                .await;
            count
        }
        Kill::AfterAcknowledged(count) => count,
    };
    let started = Instant::now();
    while acknowledged.load(Ordering::SeqCst) < count {
        assert!(
            started.elapsed() < StdDuration::from_secs(60),
            "only {} acknowledged",
            acknowledged.load(Ordering::SeqCst)
        );
        tokio::time::sleep(StdDuration::from_millis(1)).await;
    }
    serving.kill().await;
    let told = stream.await.unwrap();
    let context = format!("{kill:?}");
    println!(
        "{context}: {} acknowledged, {} deferred, {} failed before the restart",
        told.accepted.len(),
        told.deferred.len(),
        told.failed.len()
    );
    assert!(
        !told.deferred.is_empty() || !told.failed.is_empty(),
        "{context}: the kill came after the whole stream"
    );

    // Nothing acknowledged is lost: it is stored, whatever the kill interrupted.
    let before_restart: BTreeSet<usize> = stored(pool).await.into_iter().collect();
    let lost: Vec<_> = told.accepted.difference(&before_restart).collect();
    assert!(
        lost.is_empty(),
        "{context}: acknowledged but lost: {lost:?}"
    );
    let stored_unacknowledged = before_restart.difference(&told.accepted).count();
    let unprocessed = scalar(
        pool,
        "SELECT count(*) FROM inbound_messages WHERE status = 'new'",
    )
    .await;
    println!("{context}: {unprocessed} stored but not processed when killed");
    if let Kill::AtFaultPoint("smtp_stored_before_reply", _) = kill {
        assert!(
            stored_unacknowledged > 0,
            "{context}: the kill was meant to come between storing and the 250"
        );
    }

    let serving = serve(&db.url, None, http_port, smtp_port);
    let mut again: Vec<usize> = told.deferred.iter().chain(&told.failed).copied().collect();
    // Also a few that were acknowledged: a client may send again whatever it is unsure of.
    again.extend(told.accepted.iter().take(3));
    let resent = again.len();
    let mut wait_for_listener = serving;
    wait_for_listener
        .wait_for("SMTP listener for inbound mail")
        .await;
    let retold = send(
        smtp_port,
        again.into_iter().map(|n| mail(&players, n)).collect(),
        4,
        Arc::new(AtomicUsize::new(0)),
    )
    .await;
    assert_eq!(
        retold.accepted.len(),
        resent,
        "{context}: after the restart every message is accepted: {retold:?}"
    );
    println!(
        "{context}: {stored_unacknowledged} stored but not acknowledged when killed; {resent} sent again"
    );
    assert_each_has_one_effect(pool, total, &context).await;
    wait_for_listener.kill().await;
    db.drop_database().await;
}

#[tokio::test]
async fn killed_between_storing_a_message_and_its_250_a_resent_message_has_one_effect() {
    kill_during_ingest(Kill::AtFaultPoint("smtp_stored_before_reply", 0), 60).await;
}

#[tokio::test]
async fn killed_while_an_inbox_worker_commits_no_message_is_lost_or_doubled() {
    // The workers stop at their first message; the listener goes on storing, so the kill
    // finds messages mid-commit and others stored but not yet processed.
    kill_during_ingest(Kill::AtFaultPoint("inbox_before_commit", 20), 60).await;
}

#[tokio::test]
async fn killed_at_a_random_moment_of_a_mail_stream_no_message_is_lost_or_doubled() {
    const TOTAL: usize = 200;
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes).unwrap();
    // Somewhere in the middle fifth to four fifths of the stream.
    let at = TOTAL / 5 + usize::try_from(u32::from_le_bytes(bytes)).unwrap() % (TOTAL * 3 / 5);
    println!("killing after {at} of {TOTAL} messages were acknowledged");
    kill_during_ingest(Kill::AfterAcknowledged(at), TOTAL).await;
}

/// A PostgreSQL cluster of the test's own (scripts/lib/postgres.sh does the work), so that
/// stopping it disturbs no other test.
struct PrivateCluster {
    name: String,
    port: u16,
}

fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

impl PrivateCluster {
    /// Runs `script` after sourcing the library and locating this cluster; returns stdout.
    fn bash(&self, script: &str) -> String {
        let root = repository_root();
        let output = StdCommand::new("bash")
            .arg("-c")
            .arg(format!(
                "set -euo pipefail\nsource \"$ROOT/scripts/lib/postgres.sh\"\n\
                 pg_ensure_installed\npg_choose_data_dir \"$ROOT\" \"$NAME\"\n{script}"
            ))
            .env("ROOT", &root)
            .env("NAME", &self.name)
            .env("PORT", self.port.to_string())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "cluster script failed:\n{script}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// Creates and starts a cluster with a database `admiralty`; returns its URL.
    fn create() -> (PrivateCluster, String) {
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix).unwrap();
        let cluster = PrivateCluster {
            name: format!("pg-faults-{}", hex::encode(suffix)),
            port: free_port(),
        };
        let url = cluster.bash(
            "pg_init fast\npg_start \"$PORT\" -c max_connections=50\n\
             pg_create_database admiralty\npg_url admiralty",
        );
        (cluster, url)
    }

    /// Starts it again, on the same port (so the service's URL still names it).
    fn start(&self) {
        let url = self.bash("pg_init fast\npg_start \"$PORT\"\npg_url admiralty");
        assert!(
            url.contains(&format!(":{}/", self.port)),
            "restarted on another port: {url}"
        );
    }

    /// `pg_ctl stop -m fast`: clients are disconnected, the server shuts down cleanly.
    fn stop(&self) {
        self.bash(
            "pg_as_owner \"$PG_BINDIR/pg_ctl\" --pgdata=\"$PG_DATA\" --mode=fast --wait --silent stop",
        );
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        self.bash(
            "if [[ -n \"$(pg_running_pid)\" ]]; then pg_as_owner \"$PG_BINDIR/pg_ctl\" \
             --pgdata=\"$PG_DATA\" --mode=immediate --wait --silent stop; fi\n\
             rm -rf \"$PG_DATA\" \"$PG_DATA.password\" \"$PG_DATA.log\"",
        );
    }
}

async fn health(client: &reqwest::Client, http_port: u16) -> Option<reqwest::StatusCode> {
    client
        .get(format!("http://127.0.0.1:{http_port}/healthz"))
        .timeout(StdDuration::from_secs(10))
        .send()
        .await
        .ok()
        .map(|r| r.status())
}

#[tokio::test]
async fn postgres_restarting_under_the_service_loses_no_accepted_message() {
    let (cluster, url) = PrivateCluster::create();
    let pool = store::connect(&url, 4).await.unwrap();
    store::migrate(&pool).await.unwrap();
    let players = prepare(&pool).await;
    let (http_port, smtp_port) = (free_port(), free_port());
    let mut serving = serve(&url, None, http_port, smtp_port);
    serving.wait_for("SMTP listener for inbound mail").await;
    let client = reqwest::Client::new();
    assert_eq!(
        health(&client, http_port).await,
        Some(reqwest::StatusCode::OK)
    );
    let acknowledged = Arc::new(AtomicUsize::new(0));

    // Before: accepted and processed.
    let before = send(
        smtp_port,
        (0..20).map(|n| mail(&players, n)).collect(),
        4,
        acknowledged.clone(),
    )
    .await;
    assert_eq!(before.accepted.len(), 20, "{before:?}");
    until(
        &pool,
        "SELECT count(*) FROM inbound_messages WHERE status = 'processed'",
        20,
    )
    .await;

    // While PostgreSQL is down: unhealthy, and mail is refused for later, never taken and lost.
    cluster.stop();
    assert_eq!(
        health(&client, http_port).await,
        Some(reqwest::StatusCode::SERVICE_UNAVAILABLE)
    );
    let during = send(
        smtp_port,
        (20..24).map(|n| mail(&players, n)).collect(),
        4,
        acknowledged.clone(),
    )
    .await;
    assert!(
        during.accepted.is_empty() && during.failed.is_empty(),
        "with the database down every message must get a 4xx: {during:?}"
    );
    assert_eq!(during.deferred.len(), 4);
    assert!(
        serving.child.try_wait().unwrap().is_none(),
        "gm serve exited while the database was down"
    );

    // After: the same process recovers by itself.
    cluster.start();
    let started = Instant::now();
    while health(&client, http_port).await != Some(reqwest::StatusCode::OK) {
        assert!(
            started.elapsed() < StdDuration::from_secs(60),
            "/healthz never recovered"
        );
        tokio::time::sleep(StdDuration::from_millis(200)).await;
    }
    assert!(serving.child.try_wait().unwrap().is_none());
    // The deferred messages come again, as a client does after a 4xx, and new ones with them.
    let after = send(
        smtp_port,
        (20..40).map(|n| mail(&players, n)).collect(),
        4,
        acknowledged.clone(),
    )
    .await;
    assert_eq!(after.accepted.len(), 20, "{after:?}");
    assert_each_has_one_effect(&pool, 40, "after a PostgreSQL restart").await;
    assert!(
        serving.child.try_wait().unwrap().is_none(),
        "the service is the same process throughout"
    );
    serving.kill().await;
    pool.close().await;
    drop(cluster);
}
