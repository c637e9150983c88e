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
        SmtpSettings {
            domain: DOMAIN.to_owned(),
            max_bytes,
        },
        stored.clone(),
    ));
    for _ in 0..2 {
        tokio::spawn(inbox::worker(
            pool.clone(),
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
    let headers = serde_json::json!({});
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
    let id: i64 = sqlx::query_scalar("SELECT id FROM outbound_messages")
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
