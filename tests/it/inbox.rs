//! Orders by email through `gm ingest` and the inbound pipeline: stored first, authenticated by
//! the personal reply token, acted on once, confirmed.

use std::io::Write;
use std::process::{Command, Stdio};

use chrono::Duration;
use games::EngineKind;
use server::inbox;
use server::turns::{self, GameSpec, Schedule};
use store::games::GameId;
use store::subscribers::{self, NewSubscriber};
use store::testing::TestDatabase;
use store::zines;
use store::{DisplayName, EmailAddress, PgPool, ZineSlug};

use crate::helpers::{Counter, trafalgar};

pub(crate) const DOMAIN: &str = "zine.example.org";

pub(crate) async fn game(pool: &PgPool) -> GameId {
    barmy_game(
        pool,
        ("mailed", "Mailed"),
        "Mailed Barmy",
        &[
            ("fred@example.org", "Fred Bloggs"),
            ("john@example.org", "John Smith"),
        ],
        3,
    )
    .await
}

/// A zine (slug, title) whose `subscribers` (address, name) all play Barmy game `name`, its
/// ships placed by entropy seed `seed`.
pub(crate) async fn barmy_game(
    pool: &PgPool,
    (slug, title): (&str, &str),
    name: &str,
    subscribers: &[(&str, &str)],
    seed: u8,
) -> GameId {
    let zine = zines::insert(pool, &ZineSlug::parse(slug).unwrap(), title, trafalgar())
        .await
        .unwrap();
    for (address, display) in subscribers {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).unwrap(),
            // As stored: the hostile tests' names with markup stand for names stored before
            // markup was refused at entry (issue 27), which must keep working.
            display_name: DisplayName::stored(display).unwrap(),
        };
        subscribers::insert(pool, &new, trafalgar()).await.unwrap();
    }
    let spec = GameSpec {
        zine: zine.id,
        name,
        setup: &EngineKind::Barmy.default_setup(),
        first_deadline: Some(trafalgar() + Duration::days(2)),
        schedule: Schedule::EveryDays(7),
    };
    turns::create_game(pool, trafalgar(), &spec, &mut Counter(seed))
        .await
        .unwrap()
}

pub(crate) async fn token(pool: &PgPool, game: GameId, engine_id: i64) -> String {
    sqlx::query_scalar(
        "SELECT reply_token FROM players WHERE game_id = $1 AND engine_player_id = $2",
    )
    .bind(game)
    .bind(engine_id)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// The personal reply address of the game's player `engine_id`.
pub(crate) async fn reply_address_of(pool: &PgPool, game: GameId, engine_id: i64) -> String {
    server::letters::reply_address(&token(pool, game, engine_id).await, DOMAIN)
}

pub(crate) fn message(id: &str, to: &str, extra_headers: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Fred Bloggs <fred@example.org>\r\nTo: Admiralty <{to}>\r\nReturn-Path: <fred@example.org>\r\n\
         Message-ID: <{id}@example.org>\r\nSubject: Re: Mailed Barmy, turn 1\r\n{extra_headers}\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
    .into_bytes()
}

pub(crate) async fn outbound(pool: &PgPool) -> Vec<(String, String, serde_json::Value)> {
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
    let to = reply_address_of(pool, game, 1).await;
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
    // The greeting is the player's text, set aside by the order reader (issue 27: the same
    // at both doors), and the blank line under it is kept.
    assert!(raw_text.starts_with("Hi GM,\n\nG13, K19"), "{raw_text}");
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
    assert!(
        body.contains("Chat on line 1: \"Hi GM,\"\n    taken as a greeting, not an order"),
        "{body}"
    );
    assert!(body.contains("T12 would be a third shot"), "{body}");
    // Issue 28: the example works in the line's place: line 3 already fired both shots.
    assert!(
        body.contains(
            "Would be accepted: nothing more: your two shots this turn are on earlier lines"
        ),
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
    let to = reply_address_of(pool, game, 1).await;
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
    let to = reply_address_of(pool, game, 2).await;
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
    let to = reply_address_of(pool, game, 1).await;
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

pub(crate) async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

/// A message from `from` (no reply token) to Admiralty's plain address.
fn plain_message(id: &str, from: &str, body: &str) -> Vec<u8> {
    let address = from
        .rsplit_once('<')
        .map_or(from, |(_, rest)| rest.trim_end_matches('>'));
    format!(
        "From: {from}\r\nTo: orders@{DOMAIN}\r\nReturn-Path: <{address}>\r\nMessage-ID: <{id}@example.org>\r\n\
         Subject: orders\r\nContent-Type: text/plain\r\n\r\n{body}"
    )
    .into_bytes()
}

#[tokio::test]
async fn a_password_set_by_reply_lets_the_subscribed_address_send_orders() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    // Without a password set, a PASSWORD line proves nothing.
    let early = plain_message(
        "pw-0",
        "fred@example.org",
        "PASSWORD hunter2-hunter2\r\nG13, K19\r\n",
    );
    inbox::ingest(pool, &early, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 0);

    // Set by a reply to the personal address; the secret is never echoed or stored in clear.
    let set = message("pw-1", &to, "", "PASSWORD hunter2-hunter2\r\n");
    inbox::ingest(pool, &set, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let hash: String = sqlx::query_scalar(
        "SELECT password_hash FROM subscribers WHERE email = 'fred@example.org'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    let mails = outbound(pool).await;
    assert!(
        mails
            .iter()
            .any(|(_, body, _)| body.contains("your password is set")),
        "{mails:?}"
    );
    assert!(
        mails.iter().all(|(_, body, _)| !body.contains("hunter2")),
        "{mails:?}"
    );

    // From the subscribed address, with the right password: accepted, for the only game.
    let good = plain_message(
        "pw-2",
        "Fred <FRED@example.org>",
        "PASSWORD hunter2-hunter2\r\nG13, K19\r\n",
    );
    inbox::ingest(pool, &good, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 1);

    // A wrong password, or the right one from another address, changes nothing.
    for (id, from, password) in [
        ("pw-3", "fred@example.org", "hunter3-hunter3"),
        ("pw-4", "mallory@example.net", "hunter2-hunter2"),
    ] {
        let bad = plain_message(id, from, &format!("PASSWORD {password}\r\nA1, A2\r\n"));
        inbox::ingest(pool, &bad, "smtp", trafalgar(), DOMAIN)
            .await
            .unwrap();
    }
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 1);
    let mails = outbound(pool).await;
    let refusal = &mails.last().unwrap();
    assert_eq!(refusal.0, "mallory@example.net");
    assert!(
        refusal.1.contains("password does not match"),
        "{}",
        refusal.1
    );
    db.drop_database().await;
}

#[tokio::test]
async fn tell_relays_a_private_message_without_showing_addresses() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let john_token = token(pool, game, 2).await;
    let raw = message(
        "tell-1",
        &to,
        "",
        "TELL John Smith: meet me off the Dogger Bank?\r\nTELL Nobody: hello\r\n",
    );
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let mails = outbound(pool).await;
    let relayed: Vec<_> = mails
        .iter()
        .filter(|(to, _, _)| to == "john@example.org")
        .collect();
    assert_eq!(relayed.len(), 1, "{mails:?}");
    let (_, body, headers) = relayed[0];
    assert!(body.contains("meet me off the Dogger Bank?"), "{body}");
    assert!(body.contains("from Fred Bloggs"), "{body}");
    assert!(
        !body.contains("fred@example.org"),
        "the sender's address leaked: {body}"
    );
    // A relay address of its own (issue 27): a reply goes back to Fred, never into John's
    // orders.
    let relay = headers["Reply-To"].as_str().unwrap();
    assert!(
        relay.starts_with("orders+") && relay.ends_with(DOMAIN),
        "{relay}"
    );
    assert_ne!(relay, format!("orders+{john_token}@{DOMAIN}"));
    let confirmation = &mails
        .iter()
        .find(|(to, _, _)| to == "fred@example.org")
        .unwrap()
        .1;
    assert!(
        confirmation.contains("relayed to John Smith"),
        "{confirmation}"
    );
    assert!(
        confirmation.contains("no active player \"Nobody\""),
        "{confirmation}"
    );
    // Processing the same message again relays nothing more.
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert_eq!(outbound(pool).await.len(), mails.len());
    db.drop_database().await;
}

/// A name stored before markup was refused at entry (issue 27): TELL reaches it by its first
/// word, as it reads, and as written; the relay names it as text.
#[tokio::test]
async fn tell_reaches_a_player_whose_stored_name_has_markup() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    for rename in [
        "UPDATE subscribers SET display_name = '<i>John</i> Smith' WHERE display_name = 'John Smith'",
        "UPDATE players SET display_name = '<i>John</i> Smith' WHERE display_name = 'John Smith'",
    ] {
        sqlx::query(rename).execute(pool).await.unwrap();
    }
    let to = reply_address_of(pool, game, 1).await;
    let raw = message(
        "tell-markup",
        &to,
        "",
        "TELL John: first word\r\nTELL John Smith: as it reads\r\nTELL <i>John</i> Smith: as written\r\n",
    );
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let mails = outbound(pool).await;
    let relayed: Vec<&str> = mails
        .iter()
        .filter(|(to, _, _)| to == "john@example.org")
        .map(|(_, body, _)| body.as_str())
        .collect();
    assert_eq!(relayed.len(), 3, "{mails:?}");
    for (body, text) in relayed
        .iter()
        .zip(["first word", "as it reads", "as written"])
    {
        assert!(body.contains(text), "{body}");
    }
    let confirmation = &mails
        .iter()
        .find(|(to, _, _)| to == "fred@example.org")
        .unwrap()
        .1;
    assert_eq!(
        confirmation.matches("relayed to <i>John</i> Smith").count(),
        3,
        "{confirmation}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn resign_and_unsubscribe_by_mail_take_effect_and_are_audited() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    inbox::ingest(
        pool,
        &message("resign-1", &fred, "", "RESIGN\r\n"),
        "smtp",
        trafalgar(),
        DOMAIN,
    )
    .await
    .unwrap();
    let status: String =
        sqlx::query_scalar("SELECT status FROM players WHERE engine_player_id = 1")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(status, "resigned");
    // A resigned player's orders are refused, with the reason.
    inbox::ingest(
        pool,
        &message("resign-2", &fred, "", "G13, K19\r\n"),
        "smtp",
        trafalgar(),
        DOMAIN,
    )
    .await
    .unwrap();
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 0);
    let last = outbound(pool).await.pop().unwrap();
    assert!(last.1.contains("no longer playing"), "{}", last.1);

    let john = reply_address_of(pool, game, 2).await;
    let raw = String::from_utf8(message("unsub-1", &john, "", "UNSUBSCRIBE\r\n"))
        .unwrap()
        .replace("fred@example.org", "john@example.org");
    inbox::ingest(pool, raw.as_bytes(), "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let (subscriber, player): (String, String) = sqlx::query_as(
        "SELECT s.status, p.status FROM subscribers s JOIN players p ON p.subscriber_id = s.id \
         WHERE s.email = 'john@example.org'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        (subscriber.as_str(), player.as_str()),
        ("unsubscribed", "resigned")
    );
    let actions: Vec<String> = sqlx::query_scalar("SELECT action FROM audit_log ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    assert!(actions.contains(&"player.resign".to_owned()), "{actions:?}");
    assert!(
        actions.contains(&"subscriber.unsubscribe".to_owned()),
        "{actions:?}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn replies_to_one_address_are_rate_limited_and_the_rest_audited() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    let total = inbox::REPLIES_PER_HOUR + 5;
    for n in 0..total {
        let raw = message(&format!("flood-{n}"), &fred, "", "STATUS\r\n");
        inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
            .await
            .unwrap();
    }
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE to_address = 'fred@example.org'"
        )
        .await,
        inbox::REPLIES_PER_HOUR
    );
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'inbound.reply_suppressed' \
             AND details->>'limit' = 'ADMIRALTY_REPLIES_PER_HOUR'"
        )
        .await,
        5
    );
    // Every message is still stored and processed.
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM inbound_messages WHERE status = 'processed'"
        )
        .await,
        total
    );
    db.drop_database().await;
}

#[tokio::test]
async fn orders_count_in_the_order_they_arrived_not_the_order_processed() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let later = message("arrive-2", &to, "", "T12, S13\r\n");
    let earlier = message("arrive-1", &to, "", "G13, K19\r\n");
    inbox::ingest(
        pool,
        &later,
        "smtp",
        trafalgar() + Duration::minutes(5),
        DOMAIN,
    )
    .await
    .unwrap();
    inbox::ingest(pool, &earlier, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let current: String =
        sqlx::query_scalar("SELECT raw_text FROM orders WHERE superseded_at IS NULL")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(current, "T12, S13");
    let last = outbound(pool).await.pop().unwrap();
    assert!(
        last.1
            .contains("arrived after this one was already accepted"),
        "{}",
        last.1
    );
    db.drop_database().await;
}

#[tokio::test]
async fn game_lines_direct_orders_and_unknown_games_are_explained() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let raw = message(
        "sections-1",
        &to,
        "",
        "GAME Mailed Barmy\r\nG13, K19\r\nGAME Spring Salvo\r\nFIRE A1\r\nSTATUS\r\n",
    );
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 1);
    let reply = outbound(pool).await.pop().unwrap().1;
    assert!(reply.contains("Your orders for Mailed Barmy"), "{reply}");
    assert!(
        reply.contains("you play in no game called \"Spring Salvo\""),
        "{reply}"
    );
    db.drop_database().await;
}

/// A second Barmy game in the same zine (so Fred and John play both), whose stored state is
/// corrupted: every order for it fails inside the engine.
async fn a_game_with_a_corrupt_state(pool: &PgPool, zine_of: GameId) -> GameId {
    let zine: i64 = sqlx::query_scalar("SELECT zine_id FROM games WHERE id = $1")
        .bind(zine_of)
        .fetch_one(pool)
        .await
        .unwrap();
    let spec = GameSpec {
        zine: crate::helpers::id::<store::zines::ZineId>(zine),
        name: "Broken Barmy",
        setup: &EngineKind::Barmy.default_setup(),
        first_deadline: Some(trafalgar() + Duration::days(2)),
        schedule: Schedule::EveryDays(7),
    };
    let broken = turns::create_game(pool, trafalgar(), &spec, &mut Counter(5))
        .await
        .unwrap();
    sqlx::query(
        "UPDATE turns SET state_before = '{\"not\": \"a barmy state\"}' WHERE game_id = $1",
    )
    .bind(broken)
    .execute(pool)
    .await
    .unwrap();
    broken
}

#[tokio::test]
async fn a_message_that_fails_is_undone_alone_and_the_rest_of_its_batch_is_processed() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    a_game_with_a_corrupt_state(pool, game).await;
    let fred = reply_address_of(pool, game, 1).await;
    let john = reply_address_of(pool, game, 2).await;
    // Fred's second message orders in both games: the first game's orders are taken before the
    // second game's fail, so they must be undone with the rest of that message.
    let messages = [
        message("batch-1", &fred, "", "G13, K19\r\n"),
        message(
            "batch-2",
            &fred,
            "",
            "GAME Mailed Barmy\r\nA1, A2\r\nGAME Broken Barmy\r\nB3, C4\r\n",
        ),
        message("batch-3", &john, "", "T12, S13\r\nPRESS John was here.\r\n"),
    ];
    for (minute, raw) in messages.iter().enumerate() {
        let at = trafalgar() + Duration::minutes(minute as i64);
        inbox::store(pool, raw, &[], "smtp", at).await.unwrap();
    }
    let processed = inbox::process_pending(
        pool,
        &server::turns::StateCache::default(),
        trafalgar() + Duration::minutes(5),
        DOMAIN,
    )
    .await
    .unwrap();
    assert_eq!(processed, 3);
    let statuses: Vec<(String, String, Option<String>)> = sqlx::query_as(
        "SELECT message_id, status, error FROM inbound_messages ORDER BY received_at",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(statuses[0].1, "processed", "{statuses:?}");
    assert_eq!(statuses[1].1, "failed", "{statuses:?}");
    assert!(statuses[1].2.as_deref().is_some_and(|e| !e.is_empty()));
    assert_eq!(statuses[2].1, "processed", "{statuses:?}");
    let current: Vec<String> = sqlx::query_scalar(
        "SELECT raw_text FROM orders WHERE superseded_at IS NULL ORDER BY player_id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(
        current,
        ["G13, K19", "T12, S13"],
        "the failed message left orders"
    );
    let press: Vec<String> = sqlx::query_scalar("SELECT text FROM press")
        .fetch_all(pool)
        .await
        .unwrap();
    assert_eq!(press, ["John was here."]);
    let answered: Vec<String> = outbound(pool).await.into_iter().map(|m| m.0).collect();
    assert_eq!(answered, ["fred@example.org", "john@example.org"]);
    db.drop_database().await;
}

#[tokio::test]
async fn a_players_mail_waits_while_another_worker_acts_for_that_player() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred_row: store::players::PlayerRowId =
        sqlx::query_scalar("SELECT id FROM players WHERE game_id = $1 AND engine_player_id = 1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    // Another worker (or a web form) is acting for Fred.
    let mut other = pool.begin().await.unwrap();
    store::subscribers::lock_player(&mut other, fred_row)
        .await
        .unwrap();
    let raw = message(
        "locked-1",
        &reply_address_of(pool, game, 1).await,
        "",
        "G13, K19\r\n",
    );
    inbox::store(pool, &raw, &[], "smtp", trafalgar())
        .await
        .unwrap();
    let worker = tokio::spawn({
        let pool = pool.clone();
        async move {
            inbox::process_pending(
                &pool,
                &server::turns::StateCache::default(),
                trafalgar(),
                DOMAIN,
            )
            .await
        }
    });
    // The worker must be waiting for Fred's lock, not acting.
    let mut waiting: i64 = 0;
    for _ in 0..3000 {
        waiting = sqlx::query_scalar(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if waiting > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(waiting, 1, "the worker did not wait for the player's lock");
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM inbound_messages WHERE status = 'new'"
        )
        .await,
        1
    );
    other.rollback().await.unwrap();
    assert_eq!(worker.await.unwrap().unwrap(), 1);
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 1);
    db.drop_database().await;
}

/// Stores each message a minute after the one before, from `start`, without processing them,
/// so that one call of `process_pending` takes them all as one batch.
async fn store_in_order(pool: &PgPool, messages: &[Vec<u8>], start: chrono::DateTime<chrono::Utc>) {
    for (minute, raw) in messages.iter().enumerate() {
        let at = start + Duration::minutes(minute as i64);
        inbox::store(pool, raw, &[], "smtp", at).await.unwrap();
    }
}

#[tokio::test]
async fn replies_queued_together_count_against_the_limit_in_the_order_of_their_messages() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    // Three replies went out earlier in the hour.
    for n in 0..3 {
        let raw = message(&format!("early-{n}"), &fred, "", "STATUS\r\n");
        inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
            .await
            .unwrap();
    }
    // Then one batch: only the first 17 are answered.
    let batch: Vec<Vec<u8>> = (0..20)
        .map(|n| message(&format!("late-{n:02}"), &fred, "", "STATUS\r\n"))
        .collect();
    let later = trafalgar() + Duration::minutes(10);
    store_in_order(pool, &batch, later).await;
    let processed = inbox::process_pending(
        pool,
        &server::turns::StateCache::default(),
        later + Duration::minutes(30),
        DOMAIN,
    )
    .await
    .unwrap();
    assert_eq!(processed, 20);
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE lower(to_address) = 'fred@example.org'"
        )
        .await,
        inbox::REPLIES_PER_HOUR
    );
    let suppressed: Vec<(String, i64)> = sqlx::query_as(
        "SELECT details->>'message_id', (details->>'sent_last_hour')::bigint FROM audit_log \
         WHERE action = 'inbound.reply_suppressed' ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(
        suppressed,
        [
            ("late-17@example.org".to_owned(), inbox::REPLIES_PER_HOUR),
            ("late-18@example.org".to_owned(), inbox::REPLIES_PER_HOUR),
            ("late-19@example.org".to_owned(), inbox::REPLIES_PER_HOUR),
        ],
        "the last messages of the batch lose their replies"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_resignation_counts_for_the_orders_after_it_in_the_same_batch() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    let messages = [
        message("resign-first", &fred, "", "RESIGN\r\n"),
        message(
            "orders-after",
            &fred,
            "",
            "G13, K19\r\nPRESS Still here.\r\n",
        ),
    ];
    store_in_order(pool, &messages, trafalgar()).await;
    let processed = inbox::process_pending(
        pool,
        &server::turns::StateCache::default(),
        trafalgar() + Duration::minutes(5),
        DOMAIN,
    )
    .await
    .unwrap();
    assert_eq!(processed, 2);
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 0);
    assert_eq!(count(pool, "SELECT count(*) FROM press").await, 0);
    let replies: Vec<String> = outbound(pool).await.into_iter().map(|m| m.1).collect();
    assert!(
        replies
            .get(1)
            .is_some_and(|body| body.contains("NOT accepted") && body.contains("resigned")),
        "{replies:?}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn an_open_turns_state_is_read_once_per_process_not_once_per_message() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let states = turns::StateCache::default();
    let store_message = |id: &'static str, to: String, body: &'static str| async move {
        let raw = message(id, &to, "", body);
        inbox::store(pool, &raw, &[], "pipe", trafalgar())
            .await
            .unwrap();
    };
    store_message(
        "cached-1",
        reply_address_of(pool, game, 1).await,
        "G13, K19\r\n",
    )
    .await;
    inbox::process_pending(pool, &states, trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert_eq!(states.len(), 1, "the open turn's state is kept, parsed");
    // Were the state read again for the next message, this would fail it: the stored copy is
    // no longer a Barmy state. The kept one still checks the orders.
    sqlx::query(
        "UPDATE turns SET state_before = '{}'::jsonb WHERE game_id = $1 AND status = 'open'",
    )
    .bind(game)
    .execute(pool)
    .await
    .unwrap();
    store_message(
        "cached-2",
        reply_address_of(pool, game, 2).await,
        "A1, B2\r\n",
    )
    .await;
    inbox::process_pending(pool, &states, trafalgar(), DOMAIN)
        .await
        .unwrap();
    let outcomes: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT status, error FROM inbound_messages ORDER BY id")
            .fetch_all(pool)
            .await
            .unwrap();
    assert_eq!(
        outcomes,
        [
            ("processed".to_owned(), None),
            ("processed".to_owned(), None)
        ]
    );
    let orders: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM orders WHERE game_id = $1 AND superseded_at IS NULL",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(orders, 2);
    // A cache of its own (another process) reads the stored copy, and says it is broken.
    store_message(
        "cached-3",
        reply_address_of(pool, game, 2).await,
        "C3, D4\r\n",
    )
    .await;
    inbox::process_pending(pool, &turns::StateCache::default(), trafalgar(), DOMAIN)
        .await
        .unwrap();
    let last: (String, Option<String>) =
        sqlx::query_as("SELECT status, error FROM inbound_messages ORDER BY id DESC LIMIT 1")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(last.0, "failed", "{last:?}");
    db.drop_database().await;
}

/// Issue 28 (BARMY-GM-14, BARMY-ADM-07): on a board wider than 26 columns, mailed squares with
/// two-letter columns are orders in every form (`ab 27 c5`, `27AC`), never words or press: the
/// shots are confirmed, and the press is what follows them.
#[tokio::test]
async fn wide_board_squares_by_mail_are_orders_not_press() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zines::insert(pool, &ZineSlug::parse("wide").unwrap(), "Wide", trafalgar())
        .await
        .unwrap();
    for (address, display) in [
        ("fred@example.org", "Fred Bloggs"),
        ("john@example.org", "John Smith"),
    ] {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).unwrap(),
            display_name: DisplayName::parse(display).unwrap(),
        };
        subscribers::insert(pool, &new, trafalgar()).await.unwrap();
    }
    let setup = EngineKind::Barmy
        .parse_setup(&serde_json::json!({ "width": 30, "height": 30 }))
        .unwrap();
    let spec = GameSpec {
        zine: zine.id,
        name: "Wide Barmy",
        setup: &setup,
        first_deadline: Some(trafalgar() + Duration::days(2)),
        schedule: Schedule::EveryDays(7),
    };
    let game = turns::create_game(pool, trafalgar(), &spec, &mut Counter(3))
        .await
        .unwrap();
    let to = reply_address_of(pool, game, 1).await;
    let raw = message("wide-1", &to, "", "ab 27 c5 Here we come, John.\r\n");
    inbox::ingest(pool, &raw, "pipe", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let press: Vec<String> = sqlx::query_scalar("SELECT text FROM press ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    assert_eq!(press, ["Here we come, John."], "the squares are not press");
    let mails = outbound(pool).await;
    let body = &mails.first().expect("a confirmation").1;
    assert!(
        body.contains("fire at AB27") && body.contains("fire at C5"),
        "{body}"
    );
    db.drop_database().await;
}
