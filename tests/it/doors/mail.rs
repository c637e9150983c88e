//! What a message is, and who it is from: a reply token only in the envelope (a Bcc, a
//! forwarding rule) authenticates through every door; two deliveries of the same mail have one
//! effect, a different message reusing a Message-ID is not lost, and a re-sent copy does not
//! print its press or relay its TELL twice. A NUL byte in mailed orders or press harms nothing.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use server::inbox;
use store::PgPool;
use store::games::GameId;
use store::testing::TestDatabase;
use tokio::io::AsyncWriteExt;

use super::{Doors, smtp_reply, smtp_say};
use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, game, message, reply_address_of};

const NOW: &str = "1805-10-21T11:45:00Z";

/// The current orders of the game's player `engine_id`, as written.
async fn orders_of(pool: &PgPool, game: GameId, engine_id: i64) -> Option<String> {
    sqlx::query_scalar(
        "SELECT o.raw_text FROM orders o JOIN players p ON p.id = o.player_id \
         WHERE p.game_id = $1 AND p.engine_player_id = $2 AND o.superseded_at IS NULL",
    )
    .bind(game)
    .bind(engine_id)
    .fetch_optional(pool)
    .await
    .unwrap()
}

/// Waits until the player's current orders are `expected`.
async fn until_orders(pool: &PgPool, game: GameId, expected: &str) {
    let started = Instant::now();
    loop {
        let now = orders_of(pool, game, 1).await;
        if now.as_deref() == Some(expected) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "orders {now:?}, not {expected:?}; inbox: {:?}",
            inbox_rows(pool).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn inbox_rows(pool: &PgPool) -> Vec<(String, String, Option<String>)> {
    sqlx::query_as("SELECT received_via, status, error FROM inbound_messages ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

/// A message to someone else, with the reply token nowhere in its headers.
fn bcc_message(id: &str, body: &str) -> Vec<u8> {
    message(
        id,
        "friend@example.net",
        "Cc: another@example.net\r\n",
        body,
    )
}

#[tokio::test]
async fn a_token_only_in_the_envelope_authenticates_through_every_door() {
    let db = TestDatabase::migrated().await;
    let game = game(&db.pool).await;
    let envelope = reply_address_of(&db.pool, game, 1).await;
    let doors = Doors::start_on(
        db,
        &[
            ("ADMIRALTY_MAIL_DOMAIN", DOMAIN),
            ("ADMIRALTY_NOW", NOW),
            ("ADMIRALTY_WEBHOOK_SECRET", "a-long-shared-secret-0123"),
        ],
    )
    .await;
    let pool = doors.db.pool.clone();

    // SMTP: RCPT TO the personal address, To: and Cc: someone else.
    let mut client = doors.smtp_connect().await;
    assert!(smtp_reply(&mut client).await.starts_with("220"));
    for command in [
        "EHLO client.example".to_owned(),
        "MAIL FROM:<fred@example.org>".to_owned(),
        format!("RCPT TO:<{envelope}>"),
    ] {
        let said = smtp_say(&mut client, &command).await;
        assert!(said.starts_with("250"), "{command}: {said}");
    }
    assert!(smtp_say(&mut client, "DATA").await.starts_with("354"));
    client
        .write_all(&bcc_message("bcc-smtp", "G13, K19\r\n"))
        .await
        .unwrap();
    let said = smtp_say(&mut client, ".").await;
    assert!(said.starts_with("250"), "{said}");
    until_orders(&pool, game, "G13, K19").await;

    // gm ingest: --recipient (Postfix's pipe) and ORIGINAL_RECIPIENT (local delivery).
    let ingest = |raw: Vec<u8>, by_argument: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gm"));
        command
            .args(["ingest", "--mail-domain", DOMAIN])
            .env("DATABASE_URL", &doors.db.url)
            .env("ADMIRALTY_NOW", NOW)
            .env_remove("ADMIRALTY_LOG")
            .env_remove("ORIGINAL_RECIPIENT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if by_argument {
            command.args(["--recipient", &envelope]);
        } else {
            command.env("ORIGINAL_RECIPIENT", &envelope);
        }
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(&raw).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    ingest(bcc_message("bcc-pipe-1", "T12, S13\r\n"), true);
    until_orders(&pool, game, "T12, S13").await;
    ingest(bcc_message("bcc-pipe-2", "A1, A2\r\n"), false);
    until_orders(&pool, game, "A1, A2").await;

    // The webhook: the X-Original-To header, or the recipient parameter.
    let http = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{}/inbound/mail", doors.http);
    let response = http
        .post(&url)
        .bearer_auth("a-long-shared-secret-0123")
        .header("X-Original-To", &envelope)
        .body(bcc_message("bcc-hook-1", "B3, C4\r\n"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    until_orders(&pool, game, "B3, C4").await;
    let response = http
        .post(&url)
        .query(&[("recipient", &envelope)])
        .bearer_auth("a-long-shared-secret-0123")
        .body(bcc_message("bcc-hook-2", "D5, E6\r\n"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    until_orders(&pool, game, "D5, E6").await;

    // Without the envelope, the same message proves nothing.
    let raw = bcc_message("bcc-none", "F7, G8\r\n");
    inbox::ingest(&pool, &raw, "pipe", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert_eq!(orders_of(&pool, game, 1).await.as_deref(), Some("D5, E6"));
    doors.stop().await;
}

async fn press_texts(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("SELECT text FROM press ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

async fn last_reply(pool: &PgPool) -> String {
    sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE idempotency_key LIKE 'reply:%' ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

#[tokio::test]
async fn the_same_message_has_one_effect_and_a_reused_message_id_hides_no_other() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let at = |minutes: i64| trafalgar() + chrono::Duration::minutes(minutes);
    let ingest = |raw: Vec<u8>, minutes: i64| async move {
        inbox::ingest(pool, &raw, "smtp", at(minutes), DOMAIN)
            .await
            .unwrap()
    };
    let first = "G13, K19 Steady as she goes\r\nPRESS Steady, lads.\r\n";
    let stored = ingest(message("same-1", &to, "", first), 1).await;
    assert!(matches!(stored, inbox::Ingested::Stored(_)));
    let press = press_texts(pool).await;
    assert_eq!(press.len(), 2, "{press:?}");

    // Delivered again, by the same door or another that adds trace headers and writes LF.
    let again = ingest(message("same-1", &to, "", first), 2).await;
    assert!(matches!(again, inbox::Ingested::Duplicate(_)));
    let relayed = format!(
        "Received: from mx.example.net by mx.zine.example.org\r\n{}",
        String::from_utf8(message("same-1", &to, "", first)).unwrap()
    )
    .replace("\r\n", "\n");
    let again = ingest(relayed.into_bytes(), 3).await;
    assert!(matches!(again, inbox::Ingested::Duplicate(_)));
    assert_eq!(press_texts(pool).await.len(), 2);

    // A different message that reuses the Message-ID is stored, acted on and answered.
    let other = ingest(
        message("same-1", &to, "", "T12, S13\r\nPRESS Another thing.\r\n"),
        4,
    )
    .await;
    assert!(
        matches!(other, inbox::Ingested::Stored(_)),
        "a different message under a stored Message-ID: {other:?}"
    );
    assert_eq!(orders_of(pool, game, 1).await.as_deref(), Some("T12, S13"));
    // Its new orders replaced the first message's, and withdrew the press sent with them.
    assert_eq!(press_texts(pool).await, ["Another thing."]);
    assert!(last_reply(pool).await.contains("Another thing"));
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE idempotency_key LIKE 'reply:%'"
        )
        .await,
        2,
        "each message answered once"
    );

    db.drop_database().await;
}

#[tokio::test]
async fn a_re_sent_copy_does_not_print_its_press_or_relay_its_tell_twice() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let at = |minutes: i64| trafalgar() + chrono::Duration::minutes(minutes);
    let ingest = |raw: Vec<u8>, minutes: i64| async move {
        inbox::ingest(pool, &raw, "smtp", at(minutes), DOMAIN)
            .await
            .unwrap()
    };
    let first = "G13, K19 Steady as she goes\r\nPRESS Steady, lads.\r\n";
    ingest(message("copy-1", &to, "", first), 1).await;
    ingest(
        message("copy-2", &to, "", "T12, S13\r\nPRESS Another thing.\r\n"),
        4,
    )
    .await;
    // The second set withdrew the press sent with the first.
    assert_eq!(press_texts(pool).await, ["Another thing."]);
    // The first message re-sent with a new Message-ID (after another set): its orders stand
    // again, its press (the PRESS line and the press written with the orders) is not printed
    // twice.
    ingest(message("copy-1-resent", &to, "", first), 5).await;
    assert_eq!(
        orders_of(pool, game, 1).await.as_deref(),
        Some("G13, K19 Steady as she goes")
    );
    // Its press is not printed again (and the press of the set it replaced stands).
    let press = press_texts(pool).await;
    assert_eq!(press, ["Another thing."], "press doubled by a re-sent copy");
    let reply = last_reply(pool).await;
    assert!(reply.contains("not sent twice"), "{reply}");
    assert!(reply.contains("fire at G13"), "{reply}");
    // Again, and again: still once.
    ingest(message("copy-1-resent-again", &to, "", first), 6).await;
    assert_eq!(press_texts(pool).await.len(), 1);

    // A TELL re-sent is relayed once.
    let tell = "TELL John Smith: meet me at K19\r\n";
    ingest(message("tell-1", &to, "", tell), 7).await;
    ingest(message("tell-1-resent", &to, "", tell), 8).await;
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE idempotency_key LIKE 'tell:%'"
        )
        .await,
        1
    );
    // A question asked twice is answered twice.
    ingest(message("status-1", &to, "", "STATUS\r\n"), 9).await;
    ingest(message("status-2", &to, "", "STATUS\r\n"), 10).await;
    let replies = count(
        pool,
        "SELECT count(*) FROM outbound_messages WHERE idempotency_key LIKE 'reply:%'",
    )
    .await;
    assert_eq!(replies, 8, "every message is answered");

    // Once the turn is resolved, the same text is a message for the new turn.
    let deadline = trafalgar() + chrono::Duration::days(2);
    let resolved = server::turns::resolve_due(pool, deadline, DOMAIN)
        .await
        .unwrap();
    assert_eq!(resolved.len(), 1);
    let next_turn = deadline + chrono::Duration::minutes(1);
    inbox::ingest(
        pool,
        &message("copy-1-next-turn", &to, "", first),
        "smtp",
        next_turn,
        DOMAIN,
    )
    .await
    .unwrap();
    let press_now: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM press p JOIN turns t ON t.id = p.turn_id WHERE t.number = 2",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(press_now, 2, "the next turn's press");
    db.drop_database().await;
}

#[tokio::test]
async fn a_nul_byte_in_mailed_orders_or_press_harms_nothing() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let raw = message("nul-1", &to, "", "G13,\0 K19\r\nPRESS Steady\0 lads.\r\n");
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let (status, error): (String, Option<String>) =
        sqlx::query_as("SELECT status, error FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(status, "processed", "{error:?}");
    for text in press_texts(pool).await {
        assert!(!text.contains('\0'));
    }
    assert_eq!(
        count(pool, "SELECT count(*) FROM outbound_messages").await,
        1,
        "answered"
    );
    db.drop_database().await;
}
