//! The doors mail comes in by, with real peers over loopback: a real SMTP client (Python's
//! smtplib) talks to the built-in listener, the inbox workers act on the message, and the
//! confirmation goes out through the outbound worker to a real SMTP server (aiosmtpd). And the
//! webhook door, over real HTTP.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use server::config::BaseUrl;
use server::outbox::{self, Relay};
use server::smtp::{self, SmtpSettings};
use server::{AppState, Clock, ManualClock, Webhook, inbox};
use store::PgPool;
use store::testing::TestDatabase;
use tokio::net::TcpListener;
use tokio::sync::Notify;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, game, message, reply_address_of};
use crate::outbox::{SmtpSink, free_port};

/// The listener and two inbox workers, as `gm serve` runs them; returns the SMTP address.
async fn start_mail_doors(pool: &PgPool, clock: Arc<ManualClock>, max_bytes: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let stored = Arc::new(Notify::new());
    let clock: Arc<dyn Clock> = clock;
    tokio::spawn(smtp::run(
        listener,
        pool.clone(),
        clock.clone(),
        SmtpSettings::new(DOMAIN, max_bytes),
        stored.clone(),
    ));
    for _ in 0..2 {
        tokio::spawn(inbox::worker(
            pool.clone(),
            server::turns::StateCache::default(),
            clock.clone(),
            DOMAIN.to_owned(),
            stored.clone(),
            StdDuration::from_secs(30),
        ));
    }
    address
}

/// Sends `raw` with Python's smtplib; returns what it printed: `sent`, or the SMTP error.
async fn smtplib_send(address: &str, from: &str, to: &str, raw: &[u8]) -> String {
    let (address, from, to, raw) = (
        address.to_owned(),
        from.to_owned(),
        to.to_owned(),
        raw.to_vec(),
    );
    // The client blocks; the listener must keep running on the test's runtime meanwhile.
    tokio::task::spawn_blocking(move || smtplib_send_blocking(&address, &from, &to, &raw))
        .await
        .unwrap()
}

fn smtplib_send_blocking(address: &str, from: &str, to: &str, raw: &[u8]) -> String {
    let (host, port) = address.rsplit_once(':').unwrap();
    let script = r#"
import smtplib, sys
host, port, sender, rcpt = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
raw = sys.stdin.buffer.read()
try:
    with smtplib.SMTP(host, port, timeout=30) as client:
        client.ehlo("client.example")
        print("size:", client.esmtp_features.get("size", "none"))
        client.sendmail(sender, [rcpt], raw)
    print("sent")
except smtplib.SMTPException as error:
    print("refused:", error)
"#;
    let mut child = Command::new("python3")
        .args(["-c", script, host, port, from, to])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 is needed for the SMTP client");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(raw).unwrap();
    let output = child.wait_with_output().unwrap();
    String::from_utf8(output.stdout).unwrap()
}

/// Waits until every stored inbound message is processed (the workers run on their own).
async fn until_processed(pool: &PgPool, expected: i64) {
    let started = Instant::now();
    loop {
        let done: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM inbound_messages WHERE status IN ('processed', 'dropped', 'failed')",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if done >= expected {
            return;
        }
        assert!(
            started.elapsed() < StdDuration::from_secs(30),
            "only {done} of {expected} messages processed"
        );
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn orders_sent_by_a_real_smtp_client_are_confirmed_through_a_real_smtp_server() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let clock = Arc::new(ManualClock::new(trafalgar()));
    let address = start_mail_doors(pool, clock.clone(), 1_000_000).await;
    let to = reply_address_of(pool, game, 1).await;
    let raw = message(
        "smtp-1",
        &to,
        "",
        "G13, K19\r\nPRESS Steady, lads.\r\n\r\n-- \r\nFred\r\n",
    );

    let said = smtplib_send(&address, "fred@example.org", &to, &raw).await;
    assert!(
        said.contains("size: 1000000"),
        "EHLO must announce SIZE: {said}"
    );
    assert!(said.ends_with("sent\n"), "{said}");
    until_processed(pool, 1).await;

    let (via, status, stored): (String, String, Vec<u8>) =
        sqlx::query_as("SELECT received_via, status, raw FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!((via.as_str(), status.as_str()), ("smtp", "processed"));
    // Stored as received, with the envelope sender the listener added in front.
    assert!(stored.starts_with(b"Return-Path: <fred@example.org>\r\n"));
    assert!(stored.ends_with(b"Fred\r\n"));
    let orders: String =
        sqlx::query_scalar("SELECT raw_text FROM orders WHERE superseded_at IS NULL")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(orders, "G13, K19");

    // The confirmation goes out through the outbound worker to a real SMTP server.
    let sink = SmtpSink::start(free_port());
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port()),
        &format!("Admiralty <orders@{DOMAIN}>"),
    )
    .unwrap();
    let delivered = outbox::deliver_due(pool, &relay, clock.now())
        .await
        .unwrap();
    assert_eq!(delivered.sent, 1);
    let received = sink.received();
    assert_eq!(received.len(), 1);
    let confirmation = &received[0];
    assert!(
        confirmation.contains("To: fred@example.org"),
        "{confirmation}"
    );
    assert!(confirmation.contains("fire at G13"), "{confirmation}");
    // Quoted-printable may fold the line: "Steady," is enough to find the press.
    assert!(confirmation.contains("Steady,"), "{confirmation}");
    assert!(
        confirmation.contains(&format!("Reply-To: {to}")),
        "{confirmation}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn the_listener_refuses_big_messages_and_strangers_and_stores_nothing() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let clock = Arc::new(ManualClock::new(trafalgar()));
    let address = start_mail_doors(pool, clock, 2_000).await;
    let to = reply_address_of(pool, game, 1).await;

    let big = message("big-1", &to, "", &"G13, K19\r\n".repeat(500));
    let said = smtplib_send(&address, "fred@example.org", &to, &big).await;
    assert!(said.contains("refused") && said.contains("552"), "{said}");

    let said = smtplib_send(
        &address,
        "fred@example.org",
        "someone@elsewhere.example",
        &message("relay-1", "someone@elsewhere.example", "", "hello\r\n"),
    )
    .await;
    assert!(said.contains("refused") && said.contains("550"), "{said}");

    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM inbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(stored, 0);

    // The same connection rules still let a good message through afterwards.
    let said = smtplib_send(
        &address,
        "fred@example.org",
        &to,
        &message("small-1", &to, "", "G13, K19\r\n"),
    )
    .await;
    assert!(said.ends_with("sent\n"), "{said}");
    until_processed(pool, 1).await;
    db.drop_database().await;
}

/// Reads one (possibly multi-line) SMTP reply and checks its code.
async fn expect_reply(
    code: &str,
    read: &mut (impl tokio::io::AsyncBufRead + Unpin),
    transcript: &mut String,
) {
    use tokio::io::AsyncBufReadExt;
    loop {
        let mut line = String::new();
        read.read_line(&mut line).await.unwrap();
        transcript.push_str(&line);
        assert!(line.starts_with(code), "expected {code}: {transcript}");
        if line.as_bytes().get(3) == Some(&b' ') {
            return;
        }
    }
}

/// A bare-bones SMTP conversation, to check what smtplib hides: the bounce's null sender is
/// accepted and stored (then dropped as a bounce, unanswered), and bare-LF clients work.
#[tokio::test]
async fn a_bounce_with_a_null_sender_is_stored_and_dropped_unanswered() {
    use tokio::io::{AsyncWriteExt, BufReader};
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    game(pool).await;
    let clock = Arc::new(ManualClock::new(trafalgar()));
    let address = start_mail_doors(pool, clock, 100_000).await;
    let stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut transcript = String::new();
    expect_reply("220", &mut read, &mut transcript).await;
    for (send, code) in [
        ("EHLO mx.example.net\n", "250"),
        ("MAIL FROM:<>\n", "250"),
        (&*format!("RCPT TO:<orders@{DOMAIN}>\n"), "250"),
        ("DATA\n", "354"),
        (
            "From: Mail Delivery System <MAILER-DAEMON@mx.example.net>\nSubject: Undelivered Mail\nMessage-ID: <bounce-1@mx.example.net>\n\nYour message could not be delivered.\n.\n",
            "250",
        ),
        ("QUIT\n", "221"),
    ] {
        write.write_all(send.as_bytes()).await.unwrap();
        expect_reply(code, &mut read, &mut transcript).await;
    }
    until_processed(pool, 1).await;
    let (status, error, raw): (String, Option<String>, Vec<u8>) =
        sqlx::query_as("SELECT status, error, raw FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(status, "dropped");
    assert!(error.unwrap().contains("null return path"));
    assert!(raw.starts_with(b"Return-Path: <>\r\n"));
    let replies: i64 = sqlx::query_scalar("SELECT count(*) FROM outbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(replies, 0, "a bounce is never answered");
    db.drop_database().await;
}

#[tokio::test]
async fn the_webhook_takes_raw_mime_with_the_shared_secret_only() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let clock = Arc::new(ManualClock::new(trafalgar()));
    let stored = Arc::new(Notify::new());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = AppState::new(pool.clone(), clock.clone(), BaseUrl::parse(&base).unwrap())
        .with_webhook(Webhook {
            secret: "a-long-shared-secret-0123".to_owned(),
            max_bytes: 5_000,
            stored: stored.clone(),
        });
    tokio::spawn(server::serve(listener, state, std::future::pending()));
    tokio::spawn(inbox::worker(
        pool.clone(),
        server::turns::StateCache::default(),
        clock.clone(),
        DOMAIN.to_owned(),
        stored,
        StdDuration::from_secs(30),
    ));
    let http = reqwest::Client::new();
    let url = format!("{base}/inbound/mail");
    let to = reply_address_of(pool, game, 1).await;
    let raw = message("hook-1", &to, "", "G13, K19\r\n");

    for secret in [None, Some("wrong"), Some("a-long-shared-secret-012")] {
        let mut request = http.post(&url).body(raw.clone());
        if let Some(secret) = secret {
            request = request.bearer_auth(secret);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "secret {secret:?}");
    }
    let too_big = http
        .post(&url)
        .bearer_auth("a-long-shared-secret-0123")
        .body(vec![b'x'; 6_000])
        .send()
        .await
        .unwrap();
    assert_eq!(too_big.status(), 413);
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM inbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(stored, 0, "refused requests store nothing");

    for duplicate in [false, true] {
        let response = http
            .post(&url)
            .bearer_auth("a-long-shared-secret-0123")
            .body(raw.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 202);
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["duplicate"], duplicate);
    }
    until_processed(pool, 1).await;
    let (via, orders): (String, i64) =
        sqlx::query_as("SELECT received_via, (SELECT count(*) FROM orders) FROM inbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!((via.as_str(), orders), ("webhook", 1));
    db.drop_database().await;
}

#[tokio::test]
async fn without_a_secret_the_webhook_does_not_exist() {
    let app = crate::helpers::TestApp::spawn().await;
    let response = app
        .http
        .post(app.url("/inbound/mail"))
        .body("From: a@b.example\r\n\r\nhi\r\n")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    app.stop().await;
}

#[tokio::test]
async fn the_gm_sees_failed_mail_and_can_resend_it() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let headers = store::outbox::Headers::default();
    let new = store::outbox::NewOutbound {
        message_id: "<failing-1@zine.example.org>",
        idempotency_key: "test:failing-1",
        to_address: "nobody@example.net",
        subject: "Turn 3 report",
        body_text: "…",
        body_html: None,
        headers: &headers,
    };
    store::outbox::enqueue(pool, &new, trafalgar())
        .await
        .unwrap();
    let id: store::outbox::OutboundId = sqlx::query_scalar("SELECT id FROM outbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    store::outbox::mark_failed(pool, id, "550 5.1.1 no such user")
        .await
        .unwrap();
    let gm = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_gm"))
            .args(args)
            .env("DATABASE_URL", &db.url)
            .env_remove("ADMIRALTY_LOG")
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8(output.stdout).unwrap() + &String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (ok, listed) = gm(&["outbox", "list", "--status", "failed"]);
    assert!(ok, "{listed}");
    assert!(
        listed.contains("nobody@example.net") && listed.contains("550 5.1.1 no such user"),
        "{listed}"
    );
    let (ok, said) = gm(&["outbox", "resend", &id.to_string()]);
    assert!(ok, "{said}");
    let status: String = sqlx::query_scalar("SELECT status FROM outbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(status, "queued");
    // A message still queued cannot be queued twice.
    let (ok, said) = gm(&["outbox", "resend", &id.to_string()]);
    assert!(!ok && said.contains("still queued"), "{said}");
    db.drop_database().await;
}

/// An SMTP session that has sent its message's end of data and not yet read the answer.
struct AwaitingAnswer {
    read: tokio::io::BufReader<tokio::net::tcp::OwnedReadHalf>,
    transcript: String,
    _write: tokio::net::tcp::OwnedWriteHalf,
}

/// Opens a session and sends one message with Message-ID `<id@example.org>`, up to its end of
/// data, without waiting for the answer.
async fn send_without_answer(address: &str, to: &str, id: &str) -> AwaitingAnswer {
    use tokio::io::{AsyncWriteExt, BufReader};
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut transcript = String::new();
    expect_reply("220", &mut read, &mut transcript).await;
    for (send, code) in [
        ("EHLO mx.example.net\r\n", "250"),
        ("MAIL FROM:<fred@example.org>\r\n", "250"),
        (&*format!("RCPT TO:<{to}>\r\n"), "250"),
        ("DATA\r\n", "354"),
    ] {
        write.write_all(send.as_bytes()).await.unwrap();
        expect_reply(code, &mut read, &mut transcript).await;
    }
    write
        .write_all(&message(id, to, "", "G13, K19\r\n"))
        .await
        .unwrap();
    write.write_all(b".\r\n").await.unwrap();
    AwaitingAnswer {
        read,
        transcript,
        _write: write,
    }
}

/// The answer to the end of data: its first line.
async fn answer(mut session: AwaitingAnswer) -> String {
    use tokio::io::AsyncBufReadExt;
    let mut line = String::new();
    session.read.read_line(&mut line).await.unwrap();
    assert!(!line.is_empty(), "no answer: {}", session.transcript);
    line
}

/// Holds every insert into `inbound_messages` back until the returned transaction ends, and
/// sends one message that the listener's writer then waits on: the messages sent meanwhile
/// queue up and are written as one group once the transaction ends.
async fn hold_the_writer(
    pool: &PgPool,
    address: &str,
    to: &str,
    first: &str,
) -> (sqlx::Transaction<'static, sqlx::Postgres>, AwaitingAnswer) {
    let mut blocker = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE inbound_messages IN EXCLUSIVE MODE")
        .execute(&mut *blocker)
        .await
        .unwrap();
    let session = send_without_answer(address, to, first).await;
    let started = Instant::now();
    loop {
        let writer_waits: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'inbound_messages'::regclass)",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if writer_waits {
            return (blocker, session);
        }
        assert!(
            started.elapsed() < StdDuration::from_secs(30),
            "the writer never wrote"
        );
        tokio::time::sleep(StdDuration::from_millis(10)).await;
    }
}

/// The listener without inbox workers, so that stored messages stay as stored.
async fn start_listener(pool: &PgPool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    tokio::spawn(smtp::run(
        listener,
        pool.clone(),
        Arc::new(ManualClock::new(trafalgar())),
        SmtpSettings::new(DOMAIN, 100_000),
        Arc::new(Notify::new()),
    ));
    address
}

/// The sessions' tasks run on this test's runtime: give them time to hand their messages
/// (already in their sockets) to the writer. Not a deadline: only how soon they are queued.
/// Generous, because the test command runs many tests at once on two cores; the cost of too
/// short a wait would be a false failure (two groups), never a false pass.
async fn let_sessions_queue() {
    tokio::time::sleep(StdDuration::from_secs(2)).await;
}

/// Stored rows by Message-ID: (Message-ID, the id of the transaction that wrote it).
async fn stored_rows(pool: &PgPool) -> Vec<(String, String)> {
    sqlx::query_as("SELECT message_id, xmin::text FROM inbound_messages ORDER BY message_id")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn messages_arriving_together_are_stored_with_one_commit_and_a_duplicate_once() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let address = start_listener(pool).await;

    let (blocker, first) = hold_the_writer(pool, &address, &to, "first").await;
    let mut sessions = Vec::new();
    for id in ["a", "b", "c", "a"] {
        sessions.push(send_without_answer(&address, &to, id).await);
    }
    let_sessions_queue().await;
    blocker.commit().await.unwrap();

    assert!(answer(first).await.starts_with("250 "));
    for session in sessions {
        let said = answer(session).await;
        assert!(said.starts_with("250 "), "{said}");
    }
    let rows = stored_rows(pool).await;
    let ids: Vec<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "a@example.org",
            "b@example.org",
            "c@example.org",
            "first@example.org"
        ],
        "the message sent twice is stored once"
    );
    let group: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|(id, _)| id != "first@example.org")
        .map(|(_, xmin)| xmin.as_str())
        .collect();
    assert_eq!(group.len(), 1, "one transaction stored the group: {rows:?}");
    db.drop_database().await;
}

#[tokio::test]
async fn a_message_the_database_refuses_costs_only_its_own_session_its_answer() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    // A real refusal by PostgreSQL, of one message only.
    sqlx::query(
        "ALTER TABLE inbound_messages ADD CONSTRAINT refuses_poison CHECK (message_id NOT LIKE '%poison%')",
    )
    .execute(pool)
    .await
    .unwrap();
    let address = start_listener(pool).await;

    let (blocker, first) = hold_the_writer(pool, &address, &to, "first").await;
    let mut sessions = Vec::new();
    for id in ["a", "poison", "b", "b"] {
        sessions.push((id, send_without_answer(&address, &to, id).await));
    }
    let_sessions_queue().await;
    blocker.commit().await.unwrap();

    assert!(answer(first).await.starts_with("250 "));
    for (id, session) in sessions {
        let said = answer(session).await;
        if id == "poison" {
            assert!(said.starts_with("451 "), "{id}: {said}");
        } else {
            assert!(said.starts_with("250 "), "{id}: {said}");
        }
    }
    let ids: Vec<String> = stored_rows(pool)
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(
        ids,
        ["a@example.org", "b@example.org", "first@example.org"],
        "every other message is stored, once"
    );
    db.drop_database().await;
}
