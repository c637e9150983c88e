//! The HTTP door against a client that never finishes: unfinished headers and idle kept-alive
//! connections are closed at the header timeout, a slow body at the body timeout; one client's
//! thousands of connections (under a small open-file limit) keep neither `/healthz` nor the SMTP
//! greeting from answering; the webhook answers a wrong token before reading the body.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::{Doors, read_until, read_until_closed, smtp_reply};

#[tokio::test]
async fn an_unfinished_header_or_an_idle_connection_is_closed_at_the_header_timeout() {
    let doors = Doors::start(&[("ADMIRALTY_HTTP_HEADER_TIMEOUT_SECONDS", "1")]).await;
    // Headers that never end.
    let mut unfinished = doors.http_connect().await;
    unfinished
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: doors\r\nX-Slow: ")
        .await
        .unwrap();
    let started = Instant::now();
    let said = read_until_closed(&mut unfinished, Duration::from_secs(5)).await;
    assert!(
        said.is_some(),
        "an unfinished header was still open after 5 s"
    );
    let closed_after = started.elapsed();
    assert!(
        closed_after < Duration::from_secs(3),
        "closed after {closed_after:?}"
    );
    // A header sent a byte at a time, each well within the timeout, is still cut at it.
    let mut dribbling = doors.http_connect().await;
    let started = Instant::now();
    let mut closed = false;
    for byte in b"GET /healthz HTTP/1.1\r\nHost: doors\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    {
        if dribbling.write_all(&[*byte]).await.is_err() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if !closed {
        closed = read_until_closed(&mut dribbling, Duration::from_secs(1))
            .await
            .is_some();
    }
    assert!(closed, "a dribbled header kept the connection open");
    assert!(started.elapsed() < Duration::from_secs(5));
    // A kept-alive connection that sends nothing more.
    let mut idle = doors.http_connect().await;
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: doors\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until(&mut idle, "\r\n\r\n", Duration::from_secs(5))
        .await
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let started = Instant::now();
    assert!(
        read_until_closed(&mut idle, Duration::from_secs(5))
            .await
            .is_some(),
        "an idle kept-alive connection was still open after 5 s"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    doors.stop().await;
}

#[tokio::test]
async fn a_slow_body_is_cut_at_the_body_timeout() {
    let doors = Doors::start(&[
        ("ADMIRALTY_HTTP_BODY_TIMEOUT_SECONDS", "2"),
        ("ADMIRALTY_HTTP_HEADER_TIMEOUT_SECONDS", "30"),
    ])
    .await;
    let mut slow = doors.http_connect().await;
    slow.write_all(
        b"POST /gm/login HTTP/1.1\r\nHost: doors\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n",
    )
    .await
    .unwrap();
    let started = Instant::now();
    // Ten bytes every 200 ms: never silent for long, far too slow to finish.
    let mut answered = String::new();
    while started.elapsed() < Duration::from_secs(8) {
        if slow.write_all(b"name=aaaa&").await.is_err() {
            break;
        }
        if let Some(said) = read_until(&mut slow, "HTTP/1.1", Duration::from_millis(200)).await {
            answered = said;
            break;
        }
    }
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(4),
        "a slow body held the connection for {elapsed:?} ({answered:?})"
    );
    if !answered.is_empty() {
        assert!(answered.starts_with("HTTP/1.1 4"), "{answered}");
    }
    doors.stop().await;
}

#[tokio::test]
async fn one_client_holding_hundreds_of_connections_keeps_out_neither_healthz_nor_smtp() {
    let doors = Doors::start(&[
        ("ADMIRALTY_HTTP_HEADER_TIMEOUT_SECONDS", "60"),
        ("ADMIRALTY_HTTP_MAX_CONNECTIONS", "64"),
        ("ADMIRALTY_HTTP_MAX_CONNECTIONS_PER_PEER", "32"),
        ("ADMIRALTY_SMTP_MAX_SESSIONS", "16"),
        ("ADMIRALTY_SMTP_MAX_SESSIONS_PER_PEER", "8"),
        ("ADMIRALTY_DB_MAX_CONNECTIONS", "4"),
    ])
    .await;
    // A small machine: 256 descriptors in all.
    doors.limit_open_files(256);
    let mut held = Vec::new();
    for _ in 0..600 {
        let Ok(Ok(mut stream)) = tokio::time::timeout(
            Duration::from_secs(2),
            TcpStream::connect(("127.0.0.1", doors.http)),
        )
        .await
        else {
            break;
        };
        let _ = stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: doors\r\nX-Slow: ")
            .await;
        held.push(stream);
    }
    // More than the process has descriptors for, however many were made before connecting
    // stalled (an unbounded server stops accepting).
    assert!(
        held.len() > 256,
        "only {} connections were made",
        held.len()
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .unwrap();
    for attempt in 0..3 {
        let health = http
            .get(format!("http://127.0.0.1:{}/healthz", doors.http))
            .send()
            .await;
        let status = health.as_ref().map(reqwest::Response::status);
        assert!(
            matches!(status, Ok(s) if s.is_success()),
            "attempt {attempt}: /healthz did not answer: {health:?}"
        );
    }
    let mut smtp = tokio::time::timeout(Duration::from_secs(3), doors.smtp_connect())
        .await
        .expect("the SMTP listener accepts");
    let greeting = tokio::time::timeout(Duration::from_secs(3), smtp_reply(&mut smtp))
        .await
        .unwrap_or_default();
    assert!(greeting.starts_with("220"), "SMTP greeting: {greeting:?}");
    // The held connections beyond the caps were closed, not kept.
    let mut open = 0;
    for stream in &mut held {
        if read_until_closed(stream, Duration::from_millis(5))
            .await
            .is_none()
        {
            open += 1;
        }
    }
    assert!(
        open <= 32,
        "{open} of the flood's connections are still open"
    );
    doors.stop().await;
}

const SECRET: &str = "a-long-shared-secret-0123";

#[tokio::test]
async fn the_webhook_refuses_a_wrong_token_before_it_reads_the_body() {
    let doors = Doors::start(&[("ADMIRALTY_WEBHOOK_SECRET", SECRET)]).await;
    for authorization in [
        None,
        Some("Bearer wrong"),
        Some("Bearer a-long-shared-secret-012"),
        Some("Bearer a-long-shared-secret-01234"),
        Some("Bearer a-long-shared-secret-0124"),
        Some("Basic YTpi"),
    ] {
        let mut client = doors.http_connect().await;
        let mut head =
            "POST /inbound/mail HTTP/1.1\r\nHost: doors\r\nContent-Length: 10485760\r\n".to_owned();
        if let Some(value) = authorization {
            head.push_str(&format!("Authorization: {value}\r\n"));
        }
        head.push_str("\r\n");
        client.write_all(head.as_bytes()).await.unwrap();
        client.write_all(&[b'x'; 1024]).await.unwrap();
        let answer = read_until(&mut client, "\r\n\r\n", Duration::from_secs(3)).await;
        let answer = answer
            .unwrap_or_else(|| panic!("{authorization:?}: no answer before the body was sent"));
        assert!(
            answer.starts_with("HTTP/1.1 401"),
            "{authorization:?}: {answer}"
        );
    }
    // Fifty unauthenticated 10 MiB bodies cost the process (almost) nothing.
    let before = doors.rss_mib();
    let mut senders = Vec::new();
    for _ in 0..50 {
        let port = doors.http;
        senders.push(tokio::spawn(async move {
            let mut client = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            let head = "POST /inbound/mail HTTP/1.1\r\nHost: doors\r\nAuthorization: Bearer nope\r\nContent-Length: 10485760\r\n\r\n";
            if client.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = vec![b'x'; 64 * 1024];
            for _ in 0..160 {
                if client.write_all(&chunk).await.is_err() {
                    return;
                }
            }
            let _ = read_until_closed(&mut client, Duration::from_secs(5)).await;
        }));
    }
    let mut peak = before;
    while senders.iter().any(|s| !s.is_finished()) {
        peak = peak.max(doors.rss_mib());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    peak = peak.max(doors.rss_mib());
    assert!(
        peak < before + 100,
        "fifty unauthenticated bodies took the process from {before} to {peak} MiB"
    );
    doors.stop().await;
}
