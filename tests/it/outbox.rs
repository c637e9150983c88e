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
use server::outbox::{self, Relay};
use store::PgPool;
use store::outbox::{NewOutbound, enqueue, enqueue_many, insert_shared_body};
use store::testing::TestDatabase;

use crate::helpers::trafalgar;

/// aiosmtpd writing every message it accepts into a maildir; killed on drop.
pub(crate) struct SmtpSink {
    child: Child,
    pub(crate) port: u16,
    maildir: PathBuf,
    module_dir: Option<PathBuf>,
}

/// aiosmtpd's Mailbox handler with answers per recipient (see [`SmtpSink::start_refusing`]).
const REFUSING_HANDLER: &str = r#"
from aiosmtpd.handlers import Mailbox

class RefusingMailbox(Mailbox):
    busy_once = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("refused"):
            return "550 5.1.1 no such mailbox"
        if address.startswith("busy") and address not in self.busy_once:
            self.busy_once.add(address)
            return "450 4.2.1 mailbox busy, try later"
        envelope.rcpt_tos.append(address)
        return "250 OK"
"#;

impl SmtpSink {
    pub(crate) fn start(port: u16) -> SmtpSink {
        SmtpSink::start_with(port, &[])
    }

    /// With more of aiosmtpd's options, e.g. its TLS certificate.
    pub(crate) fn start_with(port: u16, options: &[&OsStr]) -> SmtpSink {
        SmtpSink::launch(port, "aiosmtpd.handlers.Mailbox", options, None)
    }

    fn launch(
        port: u16,
        handler: &str,
        options: &[&OsStr],
        python_path: Option<&Path>,
    ) -> SmtpSink {
        let maildir =
            std::env::temp_dir().join(format!("admiralty-sink-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&maildir);
        let mut command = Command::new("python3");
        if let Some(path) = python_path {
            command.env("PYTHONPATH", path);
        }
        let child = command
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                handler,
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
            module_dir: None,
        }
    }

    /// A sink that answers RCPT for `refused…@` with 550, and for `busy…@` with 450 the first
    /// time each such address is given (then takes it).
    pub(crate) fn start_refusing(port: u16) -> SmtpSink {
        let module_dir =
            std::env::temp_dir().join(format!("admiralty-refusing-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&module_dir).unwrap();
        std::fs::write(module_dir.join("refusing_sink.py"), REFUSING_HANDLER).unwrap();
        let mut sink = SmtpSink::launch(
            port,
            "refusing_sink.RefusingMailbox",
            &[],
            Some(&module_dir),
        );
        sink.module_dir = Some(module_dir);
        sink
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Every message received, once per envelope recipient (aiosmtpd's `X-RcptTo`): the
    /// recipient and the message.
    pub(crate) fn deliveries(&self) -> Vec<(String, String)> {
        let mut deliveries = Vec::new();
        for message in self.received() {
            let mut recipients = String::new();
            let mut in_header = false;
            for line in message.lines() {
                if line.is_empty() {
                    break;
                }
                if let Some(value) = line.strip_prefix("X-RcptTo:") {
                    recipients.push_str(value);
                    in_header = true;
                } else if in_header && line.starts_with([' ', '\t']) {
                    recipients.push_str(line);
                } else {
                    in_header = false;
                }
            }
            for recipient in recipients
                .split(',')
                .map(str::trim)
                .filter(|r| !r.is_empty())
            {
                deliveries.push((recipient.to_owned(), message.clone()));
            }
        }
        deliveries.sort();
        deliveries
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
        if let Some(dir) = &self.module_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
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
            headers: &store::outbox::Headers::reply_to(format!(
                "orders+token{i}aaaaaaaaaaaaaaaa@zine.example.org"
            )),
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

/// Queues a turn's report as `turns` does: one shared body, a copy per subscriber, all with
/// the report's one Message-ID and nothing personal.
async fn queue_report(pool: &PgPool, turn: u32, recipients: &[String]) {
    let mut tx = pool.begin().await.unwrap();
    let body = insert_shared_body(
        &mut *tx,
        "Name | Co-ord | Result | Score | Own Status\nNelson | C3 | Hit | 3 | OK\n",
        None,
        trafalgar(),
    )
    .await
    .unwrap();
    let message_id = format!("<report.{turn}@zine.example.org>");
    let subject = format!("Gazette: turn {turn} report");
    let nothing_personal = store::outbox::Headers::default();
    let keys: Vec<String> = recipients
        .iter()
        .map(|to| format!("report:{turn}:{to}"))
        .collect();
    let copies: Vec<NewOutbound> = recipients
        .iter()
        .zip(&keys)
        .map(|(to, key)| NewOutbound {
            message_id: &message_id,
            idempotency_key: key,
            to_address: to,
            subject: &subject,
            body_text: "",
            body_html: None,
            headers: &nothing_personal,
        })
        .collect();
    enqueue_many(&mut tx, &copies, Some(body), trafalgar())
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// The message without the envelope that the sink wrote into it.
fn without_envelope(message: &str) -> String {
    let mut kept = Vec::new();
    let mut in_envelope = false;
    for line in message.lines() {
        if line.starts_with("X-RcptTo:") || line.starts_with("X-MailFrom:") {
            in_envelope = true;
            continue;
        }
        if in_envelope && line.starts_with([' ', '\t']) {
            continue;
        }
        in_envelope = false;
        kept.push(line);
    }
    kept.join("\n")
}

#[tokio::test]
async fn a_report_goes_to_a_hundred_subscribers_a_transaction_once_each_and_none_sees_another() {
    let db = TestDatabase::migrated().await;
    let sink = SmtpSink::start(free_port());
    let readers: Vec<String> = (0..250).map(|i| format!("reader{i}@example.org")).collect();
    queue_report(&db.pool, 7, &readers).await;
    // Personal mail (a Reply-To of its own) still goes one message per recipient.
    queue_range(&db.pool, 1000..1003).await;
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port),
        "Gazette <orders@zine.example.org>",
    )
    .unwrap();
    let done = outbox::deliver_due(&db.pool, &relay, trafalgar())
        .await
        .unwrap();
    assert_eq!((done.sent, done.retrying, done.failed), (253, 0, 0));
    assert_eq!(
        done.transactions,
        3 + 3,
        "100 + 100 + 50 copies, and 3 personal"
    );
    assert_eq!(sink.received().len(), 6);

    let deliveries = sink.deliveries();
    assert_eq!(deliveries.len(), 253);
    let reports: Vec<&(String, String)> = deliveries
        .iter()
        .filter(|(_, m)| header(m, "Message-ID") == Some("<report.7@zine.example.org>"))
        .collect();
    let mut got: Vec<&str> = reports.iter().map(|(to, _)| to.as_str()).collect();
    got.sort_unstable();
    let mut expected: Vec<&str> = readers.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(got, expected, "every subscriber once");
    for (_, message) in &reports {
        assert_eq!(
            header(message, "To"),
            Some("Gazette <orders@zine.example.org>")
        );
        assert_eq!(header(message, "Subject"), Some("Gazette: turn 7 report"));
        assert!(message.contains("Nelson | C3 | Hit | 3 | OK"));
        let seen = without_envelope(message);
        assert!(!seen.contains("reader"), "a subscriber's address in {seen}");
    }
    // The personal ones are addressed to their reader, with their own reply address.
    let personal = deliveries
        .iter()
        .find(|(to, _)| to == "reader1001@example.org")
        .unwrap();
    assert_eq!(header(&personal.1, "To"), Some("reader1001@example.org"));
    assert!(
        header(&personal.1, "Reply-To")
            .unwrap()
            .contains("orders+token1001")
    );
    drop(sink);
    db.drop_database().await;
}

#[tokio::test]
async fn a_refused_subscriber_fails_alone_and_a_busy_one_gets_the_same_message_later() {
    let db = TestDatabase::migrated().await;
    let sink = SmtpSink::start_refusing(free_port());
    let mut readers: Vec<String> = (0..5).map(|i| format!("reader{i}@example.org")).collect();
    readers.push("refused@example.org".into());
    readers.push("busy@example.org".into());
    queue_report(&db.pool, 8, &readers).await;
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port),
        "orders@zine.example.org",
    )
    .unwrap();
    let first = outbox::deliver_due(&db.pool, &relay, trafalgar())
        .await
        .unwrap();
    assert_eq!(
        (first.sent, first.retrying, first.failed, first.transactions),
        (5, 1, 1, 1)
    );
    let outcome = |to: &'static str| {
        let pool = db.pool.clone();
        async move {
            sqlx::query_as::<_, (String, i32, Option<String>)>(
                "SELECT status, attempts, last_error FROM outbound_messages WHERE to_address = $1",
            )
            .bind(to)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    let (status, _, error) = outcome("refused@example.org").await;
    assert_eq!(status, "failed");
    assert!(error.unwrap().contains("no such mailbox"));
    // The GM's digest will tell of it (issue 27 item 8); the busy one is no failure.
    let failed = crate::digest::notices_of(&db.pool, "mail_failed").await;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].starts_with("Mail to refused@example.org could not be delivered"));
    let (status, attempts, error) = outcome("busy@example.org").await;
    assert_eq!((status.as_str(), attempts), ("queued", 1));
    assert!(error.unwrap().contains("busy"));
    assert_eq!(outcome("reader3@example.org").await.0, "sent");

    // After its back-off the busy subscriber gets the report: the same message.
    let second = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!((second.sent, second.retrying, second.failed), (1, 0, 0));
    let deliveries = sink.deliveries();
    let recipients: Vec<&str> = deliveries.iter().map(|(to, _)| to.as_str()).collect();
    assert_eq!(
        recipients,
        [
            "busy@example.org",
            "reader0@example.org",
            "reader1@example.org",
            "reader2@example.org",
            "reader3@example.org",
            "reader4@example.org"
        ]
    );
    let busy = &deliveries.first().unwrap().1;
    let other = &deliveries.get(1).unwrap().1;
    for name in ["Message-ID", "To", "Subject", "Date"] {
        assert_eq!(header(busy, name), header(other, name), "{name}");
    }

    // A transaction whose every recipient is refused sends nothing, and the connection is
    // still good for the next.
    queue_report(&db.pool, 9, &["refused2@example.org".to_owned()]).await;
    queue_range(&db.pool, 0..1).await;
    let third = outbox::deliver_due(&db.pool, &relay, trafalgar() + Duration::minutes(2))
        .await
        .unwrap();
    assert_eq!((third.sent, third.retrying, third.failed), (1, 0, 1));
    assert_eq!(sink.received().len(), 3);
    drop(sink);
    db.drop_database().await;
}
