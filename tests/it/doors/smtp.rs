//! The SMTP listener against clients that never finish: a message of exactly the announced
//! SIZE is accepted and one byte more refused; a session ends at its lifetime however often it
//! says NOOP, and at the idle timeout when silent; unfinished messages are held within the
//! memory budget (452 beyond it); one client's hundreds of silent sessions (under a small
//! open-file limit) do not keep out another.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::{DOMAIN, Doors, message_of_size, read_until_closed, smtp_reply, smtp_say};

/// Greeting, EHLO, MAIL, RCPT and DATA; returns the EHLO reply.
async fn open_transaction(stream: &mut TcpStream, mail_parameters: &str) -> String {
    let greeting = smtp_reply(stream).await;
    assert!(greeting.starts_with("220"), "{greeting}");
    let ehlo = smtp_say(stream, "EHLO client.example").await;
    assert!(ehlo.starts_with("250"), "{ehlo}");
    let mail = smtp_say(
        stream,
        &format!("MAIL FROM:<fred@example.org>{mail_parameters}"),
    )
    .await;
    assert!(mail.starts_with("250"), "{mail}");
    let rcpt = smtp_say(stream, &format!("RCPT TO:<orders@{DOMAIN}>")).await;
    assert!(rcpt.starts_with("250"), "{rcpt}");
    let data = smtp_say(stream, "DATA").await;
    assert!(data.starts_with("354"), "{data}");
    ehlo
}

/// Sends `message` (dot-stuffed) and the end of data; returns the reply.
async fn send_data(stream: &mut TcpStream, message: &[u8]) -> String {
    let mut stuffed = Vec::with_capacity(message.len() + 16);
    let mut at_line_start = true;
    for &byte in message {
        if at_line_start && byte == b'.' {
            stuffed.push(b'.');
        }
        stuffed.push(byte);
        at_line_start = byte == b'\n';
    }
    stuffed.extend_from_slice(b".\r\n");
    stream.write_all(&stuffed).await.unwrap();
    smtp_reply(stream).await
}

#[tokio::test]
async fn a_message_of_exactly_the_announced_size_is_accepted_and_one_byte_more_refused() {
    let doors = Doors::start(&[("ADMIRALTY_MAIL_MAX_BYTES", "2000")]).await;
    let mut client = doors.smtp_connect().await;
    let ehlo = open_transaction(&mut client, " SIZE=2000").await;
    assert!(ehlo.contains("SIZE 2000"), "{ehlo}");
    let mut exact = message_of_size(2000, "exact");
    // A line that starts with a dot counts once, as the client wrote it, not as stuffed.
    let body = exact.len() - 12;
    exact[body..body + 5].copy_from_slice(b"\r\n.x.");
    assert_eq!(exact.len(), 2000);
    let said = send_data(&mut client, &exact).await;
    assert!(said.starts_with("250"), "exactly SIZE bytes: {said}");
    // One byte more: refused when announced...
    let said = smtp_say(&mut client, "MAIL FROM:<fred@example.org> SIZE=2001").await;
    assert!(said.starts_with("552"), "{said}");
    // ...and when sent without being announced; the session goes on.
    let said = smtp_say(&mut client, "MAIL FROM:<fred@example.org>").await;
    assert!(said.starts_with("250"), "{said}");
    let said = smtp_say(&mut client, &format!("RCPT TO:<orders@{DOMAIN}>")).await;
    assert!(said.starts_with("250"), "{said}");
    let said = smtp_say(&mut client, "DATA").await;
    assert!(said.starts_with("354"), "{said}");
    let said = send_data(&mut client, &message_of_size(2001, "over")).await;
    assert!(said.starts_with("552"), "one byte over: {said}");
    let said = smtp_say(&mut client, "NOOP").await;
    assert!(
        said.starts_with("250"),
        "the session goes on after a refusal: {said}"
    );
    let said = smtp_say(&mut client, "QUIT").await;
    assert!(said.starts_with("221"), "{said}");
    let stored: Vec<String> = sqlx::query_scalar("SELECT message_id FROM inbound_messages")
        .fetch_all(&doors.db.pool)
        .await
        .unwrap();
    assert_eq!(stored, ["exact@example.org"]);
    doors.stop().await;
}

#[tokio::test]
async fn a_session_ends_at_its_lifetime_however_busy_and_at_the_idle_timeout_when_silent() {
    let doors = Doors::start(&[
        ("ADMIRALTY_SMTP_SESSION_SECONDS", "2"),
        ("ADMIRALTY_SMTP_IDLE_SECONDS", "1"),
    ])
    .await;
    let mut busy = doors.smtp_connect().await;
    assert!(smtp_reply(&mut busy).await.starts_with("220"));
    let started = Instant::now();
    let mut last = String::new();
    while started.elapsed() < Duration::from_secs(8) {
        last = smtp_say(&mut busy, "NOOP").await;
        if !last.starts_with("250") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(
        last.starts_with("421"),
        "a NOOP every 250 ms kept the session: {last:?}"
    );
    let lasted = started.elapsed();
    assert!(
        lasted < Duration::from_secs(4),
        "the session lasted {lasted:?}"
    );
    assert!(
        read_until_closed(&mut busy, Duration::from_secs(2))
            .await
            .is_some()
    );

    let mut silent = doors.smtp_connect().await;
    assert!(smtp_reply(&mut silent).await.starts_with("220"));
    let started = Instant::now();
    let said = read_until_closed(&mut silent, Duration::from_secs(5)).await;
    let said = said.expect("a silent session was still open after 5 s");
    assert!(said.starts_with("421"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(3));
    doors.stop().await;
}

#[tokio::test]
async fn unfinished_messages_are_held_within_the_memory_budget() {
    let doors = Doors::start(&[
        ("ADMIRALTY_MAIL_MAX_BYTES", "10485760"),
        ("ADMIRALTY_SMTP_MAX_BUFFERED_BYTES", "8388608"),
        ("ADMIRALTY_DB_MAX_CONNECTIONS", "4"),
    ])
    .await;
    let chunk: Arc<Vec<u8>> = Arc::new(
        std::iter::repeat_n(
            b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"
                .as_slice(),
            64 * 1024 / 74,
        )
        .flatten()
        .copied()
        .collect(),
    );
    let before = doors.rss_mib();
    let mut sessions = Vec::new();
    for n in 0..30 {
        let mut client = doors.smtp_connect().await;
        let chunk = chunk.clone();
        sessions.push(tokio::spawn(async move {
            open_transaction(&mut client, "").await;
            let head = format!(
                "From: <fred@example.org>\r\nTo: <orders@{DOMAIN}>\r\nMessage-ID: <big-{n}@example.org>\r\n\r\n"
            );
            client.write_all(head.as_bytes()).await.unwrap();
            // 4 MiB each, the message left unfinished.
            for _ in 0..64 {
                if client.write_all(&chunk).await.is_err() {
                    break;
                }
            }
            client
        }));
    }
    let mut clients = Vec::new();
    for session in sessions {
        clients.push(session.await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let held = doors.rss_mib();
    assert!(
        held < before + 64,
        "30 unfinished 4 MiB messages took the process from {before} to {held} MiB"
    );
    let mut replies = Vec::new();
    for client in &mut clients {
        client.write_all(b".\r\n").await.unwrap();
        replies.push(smtp_reply(client).await);
    }
    for reply in &replies {
        assert!(
            reply.starts_with("250") || reply.starts_with("452"),
            "{reply}"
        );
    }
    assert!(
        replies.iter().any(|r| r.starts_with("452")),
        "nothing was refused beyond the budget: {replies:?}"
    );
    // What was held is given back: a message fits again.
    drop(clients);
    let mut client = doors.smtp_connect().await;
    open_transaction(&mut client, "").await;
    let said = send_data(&mut client, &message_of_size(3000, "after")).await;
    assert!(said.starts_with("250"), "{said}");
    doors.stop().await;
}

#[tokio::test]
async fn one_client_holding_hundreds_of_silent_sessions_does_not_keep_out_another() {
    let doors = Doors::start(&[
        ("ADMIRALTY_SMTP_MAX_SESSIONS", "20"),
        ("ADMIRALTY_SMTP_MAX_SESSIONS_PER_PEER", "10"),
        ("ADMIRALTY_SMTP_SHED_IDLE_SECONDS", "1"),
        ("ADMIRALTY_SMTP_ADMISSION_WAIT_SECONDS", "2"),
        ("ADMIRALTY_HTTP_MAX_CONNECTIONS_PER_PEER", "16"),
        ("ADMIRALTY_DB_MAX_CONNECTIONS", "4"),
    ])
    .await;
    doors.limit_open_files(256);
    let mut held = Vec::new();
    for _ in 0..500 {
        let Ok(Ok(stream)) = tokio::time::timeout(
            Duration::from_secs(2),
            TcpStream::connect(("127.0.0.1", doors.smtp)),
        )
        .await
        else {
            break;
        };
        held.push(stream);
    }
    assert!(
        held.len() > 256,
        "only {} connections were made",
        held.len()
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Another client (from the same address, even) is greeted and delivers a message.
    let mut client = tokio::time::timeout(Duration::from_secs(3), doors.smtp_connect())
        .await
        .expect("the listener accepts");
    let greeting = tokio::time::timeout(Duration::from_secs(5), smtp_reply(&mut client))
        .await
        .unwrap_or_default();
    assert!(greeting.starts_with("220"), "greeting: {greeting:?}");
    let said = smtp_say(&mut client, "EHLO client.example").await;
    assert!(said.starts_with("250"), "{said}");
    let said = smtp_say(&mut client, "QUIT").await;
    assert!(said.starts_with("221"), "{said}");
    // The flood's sessions beyond the caps were refused with 421 and closed.
    let mut open = 0;
    let mut refused = 0;
    for stream in &mut held {
        match read_until_closed(stream, Duration::from_millis(5)).await {
            None => open += 1,
            Some(said) if said.contains("421") => refused += 1,
            Some(_) => {}
        }
    }
    assert!(open <= 20, "{open} of the flood's sessions are still open");
    assert!(refused > 200, "only {refused} were refused with 421");
    let health = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/healthz", doors.http))
        .timeout(Duration::from_secs(3))
        .send()
        .await
        .unwrap();
    assert!(health.status().is_success());
    doors.stop().await;
}
