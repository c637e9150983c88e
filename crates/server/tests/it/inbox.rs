//! Orders by email through `gm ingest` and the inbound pipeline: stored first, authenticated by
//! the personal reply token, acted on once, confirmed.

use std::io::Write;
use std::process::{Command, Stdio};

use chrono::Duration;
use games::EngineKind;
use serde_json::json;
use server::inbox;
use server::turns::{self, GameSpec, Schedule};
use store::games::GameId;
use store::subscribers::{self, NewSubscriber};
use store::testing::TestDatabase;
use store::zines;
use store::{DisplayName, EmailAddress, PgPool, ZineSlug};

use crate::helpers::{Counter, trafalgar};

const DOMAIN: &str = "zine.example.org";

async fn game(pool: &PgPool) -> GameId {
    let zine = zines::insert(
        pool,
        &ZineSlug::parse("mailed").unwrap(),
        "Mailed",
        trafalgar(),
    )
    .await
    .unwrap();
    for (address, name) in [
        ("fred@example.org", "Fred Bloggs"),
        ("john@example.org", "John Smith"),
    ] {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).unwrap(),
            display_name: DisplayName::parse(name).unwrap(),
        };
        subscribers::insert(pool, &new, trafalgar()).await.unwrap();
    }
    let spec = GameSpec {
        zine: zine.id,
        name: "Mailed Barmy",
        engine: EngineKind::Barmy,
        setup: &json!({}),
        first_deadline: Some(trafalgar() + Duration::days(2)),
        schedule: Schedule::EveryDays(7),
    };
    turns::create_game(pool, trafalgar(), &spec, &mut Counter(3))
        .await
        .unwrap()
}

async fn token(pool: &PgPool, game: GameId, engine_id: i64) -> String {
    sqlx::query_scalar(
        "SELECT reply_token FROM players WHERE game_id = $1 AND engine_player_id = $2",
    )
    .bind(game)
    .bind(engine_id)
    .fetch_one(pool)
    .await
    .unwrap()
}

fn message(id: &str, to: &str, extra_headers: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Fred Bloggs <fred@example.org>\r\nTo: Admiralty <{to}>\r\nReturn-Path: <fred@example.org>\r\n\
         Message-ID: <{id}@example.org>\r\nSubject: Re: Mailed Barmy, turn 1\r\n{extra_headers}\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
    .into_bytes()
}

async fn outbound(pool: &PgPool) -> Vec<(String, String, serde_json::Value)> {
    sqlx::query_as("SELECT to_address, body_text, headers FROM outbound_messages ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_reply_with_orders_is_stored_acted_on_once_and_confirmed() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = format!("orders+{}@{DOMAIN}", token(pool, game, 1).await);
    let raw = message(
        "reply-1",
        &to,
        "",
        "Hi GM,\r\n\r\nG13, K19 One more shot!\r\nT12, S13\r\nPRESS Steady, lads.\r\n\r\n\
         On Mon, 21 Oct 1805, Admiralty <orders@zine.example.org> wrote:\r\n> Turn 1: your orders?\r\n> A1, A2\r\n",
    );
    let first = inbox::ingest(pool, &raw, "pipe", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert!(matches!(first, inbox::Ingested::Stored(_)));
    // Delivered twice: stored once, acted on once.
    let second = inbox::ingest(pool, &raw, "pipe", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert!(matches!(second, inbox::Ingested::Duplicate(_)));

    let (raw_text,): (String,) =
        sqlx::query_as("SELECT raw_text FROM orders WHERE superseded_at IS NULL")
            .fetch_one(pool)
            .await
            .unwrap();
    assert!(raw_text.starts_with("G13, K19"), "{raw_text}");
    assert!(
        !raw_text.contains("A1, A2"),
        "quoted history was taken for orders: {raw_text}"
    );
    let press: Vec<String> = sqlx::query_scalar("SELECT text FROM press ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    assert_eq!(press, ["One more shot!", "Steady, lads."]);
    let stored: (String, String) =
        sqlx::query_as("SELECT status, received_via FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(stored, ("processed".to_owned(), "pipe".to_owned()));

    let mails = outbound(pool).await;
    assert_eq!(mails.len(), 1, "{mails:?}");
    let (to_address, body, headers) = &mails[0];
    assert_eq!(to_address, "fred@example.org");
    assert!(body.contains("fire at G13"), "{body}");
    // The error names the line as the player wrote it (line 4 of the message, after the
    // greeting and a blank line).
    assert!(body.contains("Error on line 4: \"T12, S13\""), "{body}");
    assert!(body.contains("T12 would be a third shot"), "{body}");
    assert!(
        body.contains("Would be accepted: two squares such as `G13, K19`"),
        "{body}"
    );
    assert!(body.contains("deadline"), "{body}");
    assert!(
        body.contains("If nothing more arrives before the deadline"),
        "{body}"
    );
    assert_eq!(headers["Auto-Submitted"], "auto-replied");
    assert_eq!(headers["Reply-To"], to.as_str());
    db.drop_database().await;
}

#[tokio::test]
async fn a_from_header_alone_authorises_nothing() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    game(pool).await;
    let raw = message("forged-1", &format!("orders@{DOMAIN}"), "", "G13, K19\r\n");
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let orders: i64 = sqlx::query_scalar("SELECT count(*) FROM orders")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(orders, 0);
    let mails = outbound(pool).await;
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].1.contains("could not tell which game and player"),
        "{}",
        mails[0].1
    );
    assert!(mails[0].1.contains("personal reply address"));
    // A made-up token is no better.
    let raw = message(
        "forged-2",
        &format!("orders+aaaaaaaaaaaaaaaaaaaaaaaa@{DOMAIN}"),
        "",
        "G13, K19\r\n",
    );
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let orders: i64 = sqlx::query_scalar("SELECT count(*) FROM orders")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(orders, 0);
    db.drop_database().await;
}

#[tokio::test]
async fn auto_replies_are_stored_and_dropped_without_an_answer() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = format!("orders+{}@{DOMAIN}", token(pool, game, 1).await);
    let raw = message(
        "vacation-1",
        &to,
        "Auto-Submitted: auto-replied\r\n",
        "I am away until Monday.\r\n",
    );
    inbox::ingest(pool, &raw, "webhook", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let (status, error): (String, Option<String>) =
        sqlx::query_as("SELECT status, error FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(status, "dropped");
    assert!(error.is_some());
    assert!(outbound(pool).await.is_empty());
    let audit: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'inbound.drop'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(audit, 1);
    db.drop_database().await;
}

#[tokio::test]
async fn orders_after_the_deadline_are_refused_with_a_reason() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = format!("orders+{}@{DOMAIN}", token(pool, game, 2).await);
    let raw = message("late-1", &to, "", "A1, A2\r\n");
    inbox::ingest(pool, &raw, "pipe", trafalgar() + Duration::days(3), DOMAIN)
        .await
        .unwrap();
    let orders: i64 = sqlx::query_scalar("SELECT count(*) FROM orders")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(orders, 0);
    let mails = outbound(pool).await;
    assert!(
        mails[0].1.contains("NOT accepted: the deadline"),
        "{}",
        mails[0].1
    );
    db.drop_database().await;
}

#[tokio::test]
async fn gm_ingest_reads_a_message_from_stdin() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = format!("orders+{}@{DOMAIN}", token(pool, game, 1).await);
    // The deadline is two days after Trafalgar, long past by the system clock: the message is
    // stored and answered, and the orders refused as late.
    let raw = message("piped-1", &to, "", "HELP\r\n");
    let ingest = || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gm"))
            .args(["ingest", "--mail-domain", DOMAIN])
            .env("DATABASE_URL", &db.url)
            .env_remove("ADMIRALTY_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&raw).unwrap();
        child.wait_with_output().unwrap()
    };
    let output = ingest();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("stored as inbound message"));
    let output = ingest();
    assert!(String::from_utf8_lossy(&output.stdout).contains("this delivery has no effect"));
    let mails = outbound(pool).await;
    assert_eq!(mails.len(), 1);
    assert!(mails[0].1.contains("HELP"), "{}", mails[0].1);
    db.drop_database().await;
}
