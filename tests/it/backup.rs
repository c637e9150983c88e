//! `gm backup` and `gm restore` as child processes, on a season in the middle of things: a turn
//! resolved and mailed, the next open with orders, mail sent and mail still queued. After a
//! backup, the database dropped and the backup restored into a new one, every game verifies,
//! the open turn resolves at its deadline with the orders it had, and each message reaches the
//! relay exactly once over the whole story.

use std::collections::BTreeMap;
use std::process::Command;

use chrono::{DateTime, Duration, Utc};
use games::EngineKind;
use server::outbox::{self, Relay};
use server::turns::{self, GameSpec, Schedule};
use store::outbox::{Headers, NewOutbound, enqueue};
use store::status::Source;
use store::testing::TestDatabase;

use crate::helpers::Counter;
use crate::kill::{Serving, scalar, until};
use crate::outbox::{SmtpSink, free_port};
use crate::turns::{player, zine_with};

const DOMAIN: &str = "zine.example.org";

/// Turn 2's deadline: the `Serving` children's clock shows a minute after it.
fn second_deadline() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-06-06T18:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn gm(url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gm"));
    command
        .env("DATABASE_URL", url)
        .env("ADMIRALTY_LOG", "warn")
        .env_remove("ADMIRALTY_PG_BIN_DIR");
    command
}

/// A directory of the test's own, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("admiralty-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(command: &mut Command) -> (bool, String) {
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// Turn 1 resolved and its mail sent; turn 2 open with two players' orders (one with press);
/// three more messages queued and not yet sent.
async fn season(pool: &store::PgPool, sink: &SmtpSink) -> store::games::GameId {
    let zine = zine_with(
        pool,
        "restored",
        &["Fred Bloggs", "John Smith", "Annette Curtain", "Mary Rose"],
    )
    .await;
    let setup = EngineKind::Barmy.default_setup();
    let first = second_deadline() - Duration::days(7);
    let spec = GameSpec {
        zine,
        name: "Phoenix",
        setup: &setup,
        first_deadline: Some(first),
        schedule: Schedule::EveryDays(7),
    };
    let at = first - Duration::days(2);
    let game = turns::create_game(pool, at, &spec, &mut Counter(11))
        .await
        .unwrap();
    let fred = player(pool, game, 1).await;
    let john = player(pool, game, 2).await;
    turns::submit_orders(pool, at, game, fred, "A1, B2", Source::Email)
        .await
        .unwrap();
    let done = turns::resolve_due(pool, first, DOMAIN).await.unwrap();
    assert_eq!(done.len(), 1);
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port()),
        "Admiralty <orders@zine.example.org>",
    )
    .unwrap();
    let sent = outbox::deliver_due(pool, &relay, first).await.unwrap();
    assert!(sent.sent >= 8, "turn 1's reports and positions: {sent:?}");

    let during = first + Duration::days(1);
    turns::submit_orders(
        pool,
        during,
        game,
        fred,
        "C3, D4 Steady as she goes",
        Source::Web,
    )
    .await
    .unwrap();
    turns::submit_orders(pool, during, game, john, "E5, F6", Source::Email)
        .await
        .unwrap();
    for i in 0..3 {
        let new = NewOutbound {
            message_id: &format!("<queued.{i}@{DOMAIN}>"),
            idempotency_key: &format!("queued:{i}"),
            to_address: &format!("reader{i}@example.org"),
            subject: "Queued before the backup",
            body_text: "Sent once, after the restore.\n",
            body_html: None,
            headers: &Headers::default(),
        };
        assert!(enqueue(pool, &new, during).await.unwrap());
    }
    game
}

#[tokio::test]
async fn a_season_backed_up_dropped_and_restored_verifies_resolves_and_mails_each_message_once() {
    let db = TestDatabase::migrated().await;
    let sink = SmtpSink::start(free_port());
    let game = season(&db.pool, &sink).await;
    let sent_before = scalar(
        &db.pool,
        "SELECT count(*) FROM outbound_messages WHERE status = 'sent'",
    )
    .await;
    assert_eq!(
        sink.deliveries().len(),
        usize::try_from(sent_before).unwrap()
    );
    let turn_one: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id WHERE t.number = 1",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();

    let dir = Scratch::new("backup");
    let file = dir.path().join("season.dump");
    let (ok, said) = run(gm(&db.url).arg("backup").arg(&file));
    assert!(ok, "{said}");
    assert!(
        said.contains("wrote") && said.contains("schema version"),
        "{said}"
    );
    // The password of the URL never reaches the file's name or the output.
    let password = url::Url::parse(&db.url)
        .unwrap()
        .password()
        .map(str::to_owned);
    if let Some(password) = password {
        assert!(!said.contains(&password), "{said}");
    }
    db.drop_database().await;

    let fresh = TestDatabase::empty().await;
    let (ok, said) = run(gm(&fresh.url).arg("restore").arg(&file));
    assert!(ok, "{said}");
    assert!(said.contains("ready for gm serve"), "{said}");
    // A second restore finds the database no longer empty and says so.
    let (ok, said) = run(gm(&fresh.url).arg("restore").arg(&file));
    assert!(!ok);
    assert!(said.contains("the database is not empty"), "{said}");
    let pool = &fresh.pool;

    let checks = turns::verify_game(pool, game).await.unwrap();
    assert_eq!(checks.len(), 1);
    assert!(checks.iter().all(|c| c.matches));

    let serving = Serving::start_with(&fresh.url, None, Some(sink.port()), &[]);
    until(
        pool,
        "SELECT count(*) FROM turns t JOIN published_reports r ON r.turn_id = t.id WHERE t.number = 2",
        1,
    )
    .await;
    until(
        pool,
        "SELECT count(*) FROM outbound_messages WHERE status <> 'sent'",
        0,
    )
    .await;
    serving.kill().await;

    let turn_two: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id WHERE t.number = 2",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(turn_two.contains("C3, D4"), "{turn_two}");
    assert!(turn_two.contains("E5, F6"), "{turn_two}");
    assert!(turn_two.contains("Steady as she goes"), "{turn_two}");
    let checks = turns::verify_game(pool, game).await.unwrap();
    assert_eq!(checks.len(), 2);
    assert!(checks.iter().all(|c| c.matches), "{checks:?}");
    let restored_one: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id WHERE t.number = 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(restored_one, turn_one);

    // Every outbound row went to the relay once: the sent ones before the backup only, the
    // queued ones and turn 2's after the restore only.
    let mut tally: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (to, message) in sink.deliveries() {
        let id = message
            .lines()
            .find_map(|l| l.strip_prefix("Message-ID: "))
            .unwrap()
            .to_owned();
        *tally.entry((id, to.to_lowercase())).or_default() += 1;
    }
    let twice: Vec<_> = tally.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "sent twice: {twice:?}");
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT message_id, lower(to_address) FROM outbound_messages")
            .fetch_all(pool)
            .await
            .unwrap();
    let missing: Vec<_> = rows.iter().filter(|r| !tally.contains_key(*r)).collect();
    assert!(missing.is_empty(), "never sent: {missing:?}");
    assert_eq!(tally.len(), rows.len());
    for i in 0..3 {
        let key = (
            format!("<queued.{i}@{DOMAIN}>"),
            format!("reader{i}@example.org"),
        );
        assert_eq!(tally.get(&key), Some(&1));
    }
    assert!(rows.len() > usize::try_from(sent_before).unwrap() + 3);
    fresh.drop_database().await;
}

#[tokio::test]
async fn a_pg_dump_older_than_the_server_is_refused_in_words() {
    let db = TestDatabase::migrated().await;
    let dir = Scratch::new("old-pg-dump");
    let old = dir.path().join("pg_dump");
    std::fs::write(&old, "#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n").unwrap();
    let mut permissions = std::fs::metadata(&old).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&old, permissions).unwrap();
    let file = dir.path().join("never.dump");
    let (ok, said) = run(gm(&db.url)
        .env("ADMIRALTY_PG_BIN_DIR", dir.path())
        .arg("backup")
        .arg(&file));
    assert!(!ok);
    assert!(
        said.contains("the newest pg_dump found is version 9")
            && said.contains("older than the database server"),
        "{said}"
    );
    assert!(!file.exists());
    db.drop_database().await;
}
