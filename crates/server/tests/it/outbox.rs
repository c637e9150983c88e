//! The outbound worker against a real SMTP server on loopback (Python's aiosmtpd, installed by
//! ./scripts/test): every queued message is delivered once, a relay that is down is retried with
//! back-off, and the same Message-ID goes out on the retry.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration as StdDuration, Instant};

use chrono::Duration;
use serde_json::json;
use server::outbox::{self, Relay};
use store::PgPool;
use store::outbox::{NewOutbound, enqueue};
use store::testing::TestDatabase;

use crate::helpers::trafalgar;

/// aiosmtpd writing every message it accepts into a maildir; killed on drop.
pub(crate) struct SmtpSink {
    child: Child,
    pub(crate) port: u16,
    maildir: PathBuf,
}

impl SmtpSink {
    pub(crate) fn start(port: u16) -> SmtpSink {
        let maildir =
            std::env::temp_dir().join(format!("admiralty-sink-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&maildir);
        let child = Command::new("python3")
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(&maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 with aiosmtpd is needed: run ./scripts/test, which installs it");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < StdDuration::from_secs(20),
                "aiosmtpd did not start: is it installed? (./scripts/test installs it with pip)"
            );
            std::thread::sleep(StdDuration::from_millis(50));
        }
        SmtpSink {
            child,
            port,
            maildir,
        }
    }

    /// Every message received, as raw text.
    pub(crate) fn received(&self) -> Vec<String> {
        let dir = self.maildir.join("new");
        let mut messages: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
                    .collect()
            })
            .unwrap_or_default();
        messages.sort();
        messages
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.maildir);
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn queue(pool: &PgPool, n: usize) {
    for i in 0..n {
        let new = NewOutbound {
            message_id: &format!("<report.{i}@zine.example.org>"),
            idempotency_key: &format!("report:{i}"),
            to_address: &format!("reader{i}@example.org"),
            subject: &format!("Gazette: turn {i} report"),
            body_text: "Name | Co-ord | Result | Score | Own Status\n",
            body_html: None,
            headers: &json!({ "Reply-To": format!("orders+token{i}aaaaaaaaaaaaaaaa@zine.example.org") }),
        };
        assert!(enqueue(pool, &new, trafalgar()).await.unwrap());
    }
}

fn header<'a>(message: &'a str, name: &str) -> Option<&'a str> {
    message
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name}: ")))
}

#[tokio::test]
async fn queued_mail_reaches_a_real_smtp_server_once() {
    let db = TestDatabase::migrated().await;
    let sink = SmtpSink::start(free_port());
    queue(&db.pool, 3).await;
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port),
        "Admiralty <orders@zine.example.org>",
    )
    .unwrap();
    let done = outbox::deliver_due(&db.pool, &relay, trafalgar())
        .await
        .unwrap();
    assert_eq!((done.sent, done.retrying, done.failed), (3, 0, 0));
    // Nothing is sent twice.
    let again = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::hours(1))
        .await
        .unwrap();
    assert_eq!(again.sent, 0);

    let received = sink.received();
    assert_eq!(received.len(), 3);
    let first = received
        .iter()
        .find(|m| m.contains("reader0@example.org"))
        .unwrap();
    assert_eq!(
        header(first, "Message-ID"),
        Some("<report.0@zine.example.org>")
    );
    assert_eq!(header(first, "Subject"), Some("Gazette: turn 0 report"));
    assert!(header(first, "Reply-To").unwrap().contains("orders+token0"));
    assert_eq!(header(first, "Auto-Submitted"), Some("auto-generated"));
    assert!(first.contains("Name | Co-ord | Result | Score | Own Status"));
    let sent: i64 =
        sqlx::query_scalar("SELECT count(*) FROM outbound_messages WHERE status = 'sent'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(sent, 3);
    drop(sink);
    db.drop_database().await;
}

#[tokio::test]
async fn a_relay_that_is_down_is_retried_with_back_off_then_delivered_once() {
    let db = TestDatabase::migrated().await;
    let port = free_port();
    queue(&db.pool, 2).await;
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{port}"),
        "orders@zine.example.org",
    )
    .unwrap();
    // Down: each message waits a minute, then two more.
    let down = outbox::deliver_due(&db.pool, &relay, trafalgar())
        .await
        .unwrap();
    assert_eq!((down.sent, down.retrying), (0, 2));
    let (attempts, error): (i32, Option<String>) =
        sqlx::query_as("SELECT attempts, last_error FROM outbound_messages ORDER BY id LIMIT 1")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(attempts, 1);
    assert!(error.is_some());
    let early = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::seconds(30))
        .await
        .unwrap();
    assert_eq!(
        early,
        outbox::Delivered::default(),
        "retried before its back-off"
    );
    let down_again = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(down_again.retrying, 2);
    assert_eq!(outbox::backoff(1), Duration::minutes(2));
    assert_eq!(outbox::backoff(30), Duration::hours(6));

    // Back up: delivered, once each, with the Message-ID fixed at queue time.
    let sink = SmtpSink::start(port);
    let up = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::minutes(3))
        .await
        .unwrap();
    assert_eq!(up.sent, 2);
    let later = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::hours(2))
        .await
        .unwrap();
    assert_eq!(later.sent, 0);
    let received = sink.received();
    assert_eq!(received.len(), 2);
    assert!(
        received
            .iter()
            .any(|m| header(m, "Message-ID") == Some("<report.1@zine.example.org>"))
    );
    let _ = Path::new(&sink.maildir);
    drop(sink);
    db.drop_database().await;
}
