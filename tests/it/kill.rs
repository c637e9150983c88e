//! The real `gm serve`, as child processes: SIGKILLed at each step of a resolution and
//! restarted, and two of them on one database with many turns due at once. Each turn is
//! resolved, published and mailed exactly once.
//!
//! The children run with the test-only hooks `ADMIRALTY_NOW` (a fixed clock) and
//! `ADMIRALTY_FAULT_POINT` (stop at a named step and print a marker, so the test can kill the
//! process there).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration as StdDuration, Instant};
use store::status::Source;

use chrono::{DateTime, Utc};
use games::EngineKind;
use server::turns::{self, GameSpec, Schedule};
use store::games::GameId;
use store::subscribers::{self, NewSubscriber};
use store::testing::TestDatabase;
use store::{DisplayName, EmailAddress, PgPool};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use crate::helpers::Counter;
use crate::outbox::{SmtpSink, free_port};
use crate::turns::{player, zine_with};

const DOMAIN: &str = "zine.example.org";
const DEADLINE: &str = "2025-06-06T18:00:00Z";
/// What the children's clock shows: a minute after the deadline.
const NOW: &str = "2025-06-06T18:01:00Z";

/// A running `gm serve`, its stdout and stderr lines collected.
pub(crate) struct Serving {
    pub(crate) child: Child,
    lines: mpsc::UnboundedReceiver<String>,
    seen: Vec<String>,
}

impl Serving {
    fn start(url: &str, fault_point: Option<&str>, smtp_port: Option<u16>) -> Serving {
        Serving::start_with(url, fault_point, smtp_port, &[])
    }

    /// As `start`, with more (or overriding) environment variables.
    pub(crate) fn start_with(
        url: &str,
        fault_point: Option<&str>,
        smtp_port: Option<u16>,
        env: &[(&str, String)],
    ) -> Serving {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gm"));
        command
            .arg("serve")
            .env("DATABASE_URL", url)
            .env("ADMIRALTY_BIND", "127.0.0.1:0")
            .env("ADMIRALTY_SMTP_LISTEN", "127.0.0.1:0")
            .env("ADMIRALTY_NOW", NOW)
            .env("ADMIRALTY_DEADLINE_POLL_SECONDS", "1")
            .env("ADMIRALTY_MAIL_DOMAIN", DOMAIN)
            .env("ADMIRALTY_DB_MAX_CONNECTIONS", "8")
            .env("ADMIRALTY_LOG", "info,sqlx=warn")
            .env("ADMIRALTY_LOG_FORMAT", "text")
            .env_remove("ADMIRALTY_SMTP_URL")
            .env_remove("ADMIRALTY_FAULT_POINT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(point) = fault_point {
            command.env("ADMIRALTY_FAULT_POINT", point);
        }
        if let Some(port) = smtp_port {
            command.env("ADMIRALTY_SMTP_URL", format!("smtp://127.0.0.1:{port}"));
        }
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let (send, lines) = mpsc::unbounded_channel();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        for reader in [
            Box::new(stdout) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
            Box::new(stderr),
        ] {
            let send = send.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::new(reader).lines();
                while let Ok(Some(line)) = reader.next_line().await {
                    let _ = send.send(line);
                }
            });
        }
        Serving {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits (at most a minute) for a line containing `text`.
    pub(crate) async fn wait_for(&mut self, text: &str) {
        if self.seen.iter().any(|l| l.contains(text)) {
            return;
        }
        let deadline = tokio::time::Instant::now() + StdDuration::from_secs(60);
        loop {
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(line)) => {
                    let found = line.contains(text);
                    self.seen.push(line);
                    if found {
                        return;
                    }
                }
                _ => panic!(
                    "gm serve never printed {text:?}; it printed:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// SIGKILL: no clean-up of any kind.
    pub(crate) async fn kill(mut self) -> Vec<String> {
        self.child.kill().await.unwrap();
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
        self.seen
    }
}

pub(crate) async fn scalar(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

/// Polls the database (at most a minute) until `sql` returns `want`.
pub(crate) async fn until(pool: &PgPool, sql: &'static str, want: i64) {
    let started = Instant::now();
    loop {
        if scalar(pool, sql).await == want {
            return;
        }
        assert!(
            started.elapsed() < StdDuration::from_secs(60),
            "{sql} never reached {want} (now {})",
            scalar(pool, sql).await
        );
        tokio::time::sleep(StdDuration::from_millis(100)).await;
    }
}

fn deadline() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(DEADLINE)
        .unwrap()
        .with_timezone(&Utc)
}

/// The same game in every database: five subscribers, three of whom have ordered (one with
/// press), and a sixth who subscribed during the turn and joins at its resolution.
async fn prepare(pool: &PgPool) -> GameId {
    let zine = zine_with(
        pool,
        "killed",
        &[
            "Fred Bloggs",
            "John Smith",
            "Annette Curtain",
            "Mary Rose",
            "Horatio Hornblower",
        ],
    )
    .await;
    let setup = EngineKind::Barmy.default_setup();
    let spec = GameSpec {
        zine,
        name: "Survivor",
        setup: &setup,
        first_deadline: Some(deadline()),
        schedule: Schedule::EveryDays(7),
    };
    let at = deadline() - chrono::Duration::days(3);
    let game = turns::create_game(pool, at, &spec, &mut Counter(7))
        .await
        .unwrap();
    for (id, text) in [
        (1, "A1, B2 Steady as she goes"),
        (2, "C3, D4"),
        (4, "E5, F6"),
    ] {
        let who = player(pool, game, id).await;
        turns::submit_orders(pool, at, game, who, text, Source::Email)
            .await
            .unwrap();
    }
    subscribers::insert(
        pool,
        &NewSubscriber {
            zine_id: zine,
            email: EmailAddress::parse("late.joiner@example.org").unwrap(),
            display_name: DisplayName::parse("Late Joiner").unwrap(),
        },
        at,
    )
    .await
    .unwrap();
    game
}

const TURN_ONE_PUBLISHED: &str =
    "SELECT count(*) FROM turns t JOIN published_reports r ON r.turn_id = t.id WHERE t.number = 1";

async fn turn_one_report(pool: &PgPool) -> String {
    sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id WHERE t.number = 1",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Kills `gm serve` at one step of the resolution, checks what the kill left, restarts it
/// (with a relay this time) and checks the turn was done once and mailed once.
async fn kill_at(point: &'static str, reference: &str) {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    prepare(pool).await;
    let orders_before = scalar(pool, "SELECT count(*) FROM orders").await;

    let mut serving = Serving::start(&db.url, Some(point), None);
    serving
        .wait_for(&format!("fault point reached: {point}"))
        .await;
    serving.kill().await;

    let committed = point == "after_commit";
    assert_eq!(
        scalar(pool, TURN_ONE_PUBLISHED).await,
        i64::from(committed),
        "{point}: the turn is either untouched or fully done"
    );
    let expected_mail = if committed { 12 } else { 0 };
    assert_eq!(
        scalar(pool, "SELECT count(*) FROM outbound_messages").await,
        expected_mail,
        "{point}"
    );
    assert_eq!(
        scalar(pool, "SELECT count(*) FROM players").await,
        if committed { 6 } else { 5 },
        "{point}: an enrolment rolled back with its turn"
    );
    assert_eq!(
        scalar(pool, "SELECT count(*) FROM orders").await,
        orders_before
    );

    let sink = SmtpSink::start(free_port());
    let serving = Serving::start(&db.url, None, Some(sink.port));
    until(pool, TURN_ONE_PUBLISHED, 1).await;
    until(
        pool,
        "SELECT count(*) FROM outbound_messages WHERE status = 'sent'",
        12,
    )
    .await;
    serving.kill().await;

    assert_eq!(turn_one_report(pool).await, reference, "{point}");
    assert_eq!(
        scalar(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'turn.resolve'"
        )
        .await,
        1,
        "{point}"
    );
    assert_eq!(
        scalar(pool, "SELECT count(*) FROM turns WHERE number = 2").await,
        1
    );
    assert_eq!(
        scalar(
            pool,
            "SELECT count(*) FROM orders WHERE superseded_at IS NULL"
        )
        .await,
        3,
        "{point}: no order lost"
    );
    // Every subscriber got the report once, every player their position once.
    let mut reports: BTreeMap<String, usize> = BTreeMap::new();
    let mut positions: BTreeMap<String, usize> = BTreeMap::new();
    // Tallied by envelope recipient: a report's copies are one message to many subscribers.
    for (to, message) in sink.deliveries() {
        let id = message
            .lines()
            .find_map(|l| l.strip_prefix("Message-ID: "))
            .unwrap();
        if id.starts_with("<report.") {
            // The report's shared body, encoded once, is in every copy.
            assert!(message.contains("Steady as she goes"), "{point}: {message}");
        }
        let tally = if id.starts_with("<report.") {
            &mut reports
        } else {
            &mut positions
        };
        *tally.entry(to).or_default() += 1;
    }
    assert_eq!(reports.len(), 6, "{point}: {reports:?}");
    assert!(reports.values().all(|n| *n == 1), "{point}: {reports:?}");
    assert_eq!(positions.len(), 6, "{point}: {positions:?}");
    assert!(
        positions.values().all(|n| *n == 1),
        "{point}: {positions:?}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_resolution_killed_at_any_step_is_done_exactly_once_after_a_restart() {
    // The undisturbed run, in a database of its own.
    let db = TestDatabase::migrated().await;
    prepare(&db.pool).await;
    let serving = Serving::start(&db.url, None, None);
    until(&db.pool, TURN_ONE_PUBLISHED, 1).await;
    serving.kill().await;
    let reference = turn_one_report(&db.pool).await;
    assert!(
        reference.contains("Late Joiner joins the game"),
        "{reference}"
    );
    db.drop_database().await;

    let points = [
        "after_claim",
        "after_resolve",
        "after_publish",
        "after_mail_queued",
        "after_commit",
    ];
    let runs: Vec<_> = points
        .into_iter()
        .map(|point| {
            let reference = reference.clone();
            tokio::spawn(async move { kill_at(point, &reference).await })
        })
        .collect();
    for run in runs {
        run.await.unwrap();
    }
}

#[tokio::test]
async fn two_serving_processes_resolve_each_of_many_due_turns_exactly_once() {
    const GAMES: i64 = 40;
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "shared", &["A One", "B Two", "C Three", "D Four"]).await;
    let setup = EngineKind::Barmy.default_setup();
    for index in 0..GAMES {
        let name = format!("Game {index}");
        let spec = GameSpec {
            zine,
            name: &name,
            setup: &setup,
            first_deadline: Some(deadline()),
            schedule: Schedule::EveryDays(7),
        };
        turns::create_game(
            pool,
            deadline() - chrono::Duration::days(1),
            &spec,
            &mut turns::OsEntropy,
        )
        .await
        .unwrap();
    }
    let mut first = Serving::start(&db.url, None, None);
    let mut second = Serving::start(&db.url, None, None);
    first.wait_for("serving").await;
    second.wait_for("serving").await;
    until(
        pool,
        "SELECT count(*) FROM turns t JOIN published_reports r ON r.turn_id = t.id",
        GAMES,
    )
    .await;
    // Let each process finish its round and log it.
    until(
        pool,
        "SELECT count(*) FROM turns WHERE number = 2 AND status = 'open'",
        GAMES,
    )
    .await;
    let first_log = first.kill().await;
    let second_log = second.kill().await;

    assert_eq!(
        scalar(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'turn.resolve'"
        )
        .await,
        GAMES
    );
    assert_eq!(
        scalar(pool, "SELECT count(*) FROM published_reports").await,
        GAMES
    );
    // Four reports and four positions per game, each queued once.
    assert_eq!(
        scalar(pool, "SELECT count(*) FROM outbound_messages").await,
        GAMES * 8
    );
    assert_eq!(
        scalar(
            pool,
            "SELECT count(DISTINCT idempotency_key) FROM outbound_messages"
        )
        .await,
        GAMES * 8
    );
    let resolved_by = |log: &[String]| log.iter().filter(|l| l.contains("turn resolved")).count();
    let (a, b) = (resolved_by(&first_log), resolved_by(&second_log));
    println!("resolved by the first process: {a}, by the second: {b}");
    assert!(a + b <= usize::try_from(GAMES).unwrap(), "{a} + {b}");
    db.drop_database().await;
}
