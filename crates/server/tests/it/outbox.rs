//! The outbound worker against a real SMTP server on loopback (Python's aiosmtpd, installed by
//! ./scripts/test): every queued message is delivered once, a relay that is down is retried with
//! back-off, and the same Message-ID goes out on the retry.

use std::ffi::OsStr;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
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
        SmtpSink::start_with(port, &[])
    }

    /// With more of aiosmtpd's options, e.g. its TLS certificate.
    pub(crate) fn start_with(port: u16, options: &[&OsStr]) -> SmtpSink {
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
            .args(options)
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

    pub(crate) fn port(&self) -> u16 {
        self.port
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
    queue_range(pool, 0..n).await;
}

async fn queue_range(pool: &PgPool, numbers: std::ops::Range<usize>) {
    for i in numbers {
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

/// A TCP relay in front of the sink that counts the connections made through it.
async fn counting_proxy(target: u16) -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                if let Ok(mut server) = tokio::net::TcpStream::connect(("127.0.0.1", target)).await
                {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
    (port, count)
}

#[tokio::test]
async fn messages_go_out_over_a_few_connections_kept_open_and_reopened_when_the_relay_restarts() {
    let db = TestDatabase::migrated().await;
    let sink_port = free_port();
    let sink = SmtpSink::start(sink_port);
    let (port, connections) = counting_proxy(sink_port).await;
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{port}"),
        "orders@zine.example.org",
    )
    .unwrap();
    queue_range(&db.pool, 0..40).await;
    let first = outbox::deliver_due(&db.pool, &relay, trafalgar())
        .await
        .unwrap();
    assert_eq!((first.sent, first.retrying, first.failed), (40, 0, 0));
    let opened = connections.load(Ordering::SeqCst);
    assert!(
        (1..=16).contains(&opened),
        "40 messages over {opened} connections: one per sender at most"
    );

    // The next round reuses the connections left open (checked with RSET first).
    queue_range(&db.pool, 40..80).await;
    let second = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::seconds(5))
        .await
        .unwrap();
    assert_eq!(second.sent, 40);
    assert_eq!(
        connections.load(Ordering::SeqCst),
        opened,
        "no new connection"
    );
    assert_eq!(sink.received().len(), 80);

    // The relay restarts: the idle connections are dead. The worker notices before sending
    // (RSET fails), connects again, and no message is put off for a retry.
    drop(sink);
    let sink = SmtpSink::start(sink_port);
    queue_range(&db.pool, 80..90).await;
    let third = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::seconds(10))
        .await
        .unwrap();
    assert_eq!((third.sent, third.retrying, third.failed), (10, 0, 0));
    assert!(connections.load(Ordering::SeqCst) > opened);
    assert_eq!(sink.received().len(), 10);
    drop(sink);
    db.drop_database().await;
}

/// A self-signed certificate for 127.0.0.1 (openssl), which no relay client should trust.
fn self_signed_certificate(dir: &Path) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let status = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=127.0.0.1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("openssl is needed to make a test certificate");
    assert!(status.success());
    (cert, key)
}

/// The last error recorded on the (only) queued message.
async fn last_error(pool: &PgPool) -> String {
    sqlx::query_scalar("SELECT last_error FROM outbound_messages ORDER BY id LIMIT 1")
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn smtps_and_required_starttls_speak_tls_and_never_fall_back_to_clear_text() {
    let db = TestDatabase::migrated().await;
    let dir = std::env::temp_dir().join(format!("admiralty-tls-{}", free_port()));
    let (cert, key) = self_signed_certificate(&dir);
    queue(&db.pool, 1).await;

    // Implicit TLS: the handshake happens, and the untrusted certificate stops it.
    let smtps = SmtpSink::start_with(
        free_port(),
        &[
            "--smtpscert".as_ref(),
            cert.as_os_str(),
            "--smtpskey".as_ref(),
            key.as_os_str(),
        ],
    );
    let relay = Relay::new(
        &format!("smtps://127.0.0.1:{}", smtps.port),
        "orders@zine.example.org",
    )
    .unwrap();
    let done = outbox::deliver_due(&db.pool, &relay, trafalgar())
        .await
        .unwrap();
    assert_eq!((done.sent, done.retrying), (0, 1));
    let error = last_error(&db.pool).await;
    assert!(error.to_lowercase().contains("certificate"), "{error}");
    assert!(smtps.received().is_empty());

    // STARTTLS required, offered by the server: upgraded, and stopped at the certificate.
    let starttls = SmtpSink::start_with(
        free_port(),
        &[
            "--tlscert".as_ref(),
            cert.as_os_str(),
            "--tlskey".as_ref(),
            key.as_os_str(),
        ],
    );
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}?tls=required", starttls.port),
        "orders@zine.example.org",
    )
    .unwrap();
    let done = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!((done.sent, done.retrying), (0, 1));
    let error = last_error(&db.pool).await;
    assert!(error.to_lowercase().contains("certificate"), "{error}");

    // STARTTLS required, not offered: nothing is sent in clear.
    let plain = SmtpSink::start(free_port());
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}?tls=required", plain.port),
        "orders@zine.example.org",
    )
    .unwrap();
    let done = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::minutes(3))
        .await
        .unwrap();
    assert_eq!((done.sent, done.retrying), (0, 1));
    assert!(last_error(&db.pool).await.contains("STARTTLS"));
    assert!(plain.received().is_empty());

    // Opportunistic STARTTLS to the same server: it goes out in clear, as asked.
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}?tls=opportunistic", plain.port),
        "orders@zine.example.org",
    )
    .unwrap();
    let done = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::minutes(7))
        .await
        .unwrap();
    assert_eq!(done.sent, 1);
    assert_eq!(plain.received().len(), 1);
    drop((smtps, starttls, plain));
    let _ = std::fs::remove_dir_all(&dir);
    db.drop_database().await;
}
