//! The doors under abuse (issue 17): what one unauthenticated client on the open internet can
//! do to the HTTP server, the SMTP listener and the webhook, and what hostile input in forms,
//! links and mail envelopes does. Resource tests run the real `gm serve` as a child process with
//! small, fast bounds set through the same settings an operator uses, and talk to it over
//! loopback with raw sockets (a client that misbehaves on purpose).

mod chat;
mod http;
mod mail;
mod shutdown;
mod smtp;
mod tells;
mod web;

use std::time::{Duration, Instant};

use store::testing::TestDatabase;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::kill::Serving;
use crate::outbox::free_port;

pub(crate) const DOMAIN: &str = "doors.example.org";

/// A running `gm serve` with its ports and database.
pub(crate) struct Doors {
    pub serving: Serving,
    pub http: u16,
    pub smtp: u16,
    pub db: TestDatabase,
}

impl Doors {
    /// `gm serve` on free ports with these settings (on top of the test defaults).
    pub(crate) async fn start(env: &[(&str, &str)]) -> Doors {
        let db = TestDatabase::migrated().await;
        Doors::start_on(db, env).await
    }

    pub(crate) async fn start_on(db: TestDatabase, env: &[(&str, &str)]) -> Doors {
        let (http, smtp) = (free_port(), free_port());
        let mut all: Vec<(&str, String)> = vec![
            ("ADMIRALTY_BIND", format!("127.0.0.1:{http}")),
            ("ADMIRALTY_SMTP_LISTEN", format!("127.0.0.1:{smtp}")),
            ("ADMIRALTY_MAIL_DOMAIN", DOMAIN.to_owned()),
            ("ADMIRALTY_LOG", "info,sqlx=warn,server=debug".to_owned()),
        ];
        all.extend(env.iter().map(|(name, value)| (*name, (*value).to_owned())));
        let mut serving = Serving::start_with(&db.url, None, None, &all);
        serving.wait_for("serving").await;
        Doors {
            serving,
            http,
            smtp,
            db,
        }
    }

    pub(crate) fn pid(&self) -> u32 {
        self.serving.child.id().unwrap()
    }

    /// The process's resident memory, in MiB.
    pub(crate) fn rss_mib(&self) -> u64 {
        rss_mib(self.pid())
    }

    /// Lowers the process's open-file limit (soft and hard), as a small machine would have it.
    pub(crate) fn limit_open_files(&self, limit: u32) {
        let status = std::process::Command::new("prlimit")
            .args([
                "--pid",
                &self.pid().to_string(),
                &format!("--nofile={limit}:{limit}"),
            ])
            .status()
            .unwrap();
        assert!(status.success(), "prlimit failed");
    }

    pub(crate) async fn http_connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.http)).await.unwrap()
    }

    pub(crate) async fn smtp_connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.smtp)).await.unwrap()
    }

    pub(crate) async fn stop(self) {
        self.serving.kill().await;
        self.db.drop_database().await;
    }
}

pub(crate) fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .unwrap()
        .to_owned();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024
}

/// What the peer sent until it closed the connection, or `None` if it was still open after
/// `within`.
pub(crate) async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let deadline = Instant::now() + within;
    let mut got = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(Ok(n)) => got.extend_from_slice(&buffer[..n]),
        }
    }
}

/// Reads until `needle` arrives (then returns all read so far), or `None` after `within`.
pub(crate) async fn read_until(
    stream: &mut TcpStream,
    needle: &str,
    within: Duration,
) -> Option<String> {
    let deadline = Instant::now() + within;
    let mut got = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if String::from_utf8_lossy(&got).contains(needle) {
            return Some(String::from_utf8_lossy(&got).into_owned());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Err(_) | Ok(Ok(0)) | Ok(Err(_)) => return None,
            Ok(Ok(n)) => got.extend_from_slice(&buffer[..n]),
        }
    }
}

/// One SMTP command and its reply line(s), as a client without any library sends it.
pub(crate) async fn smtp_say(stream: &mut TcpStream, command: &str) -> String {
    stream
        .write_all(format!("{command}\r\n").as_bytes())
        .await
        .unwrap();
    smtp_reply(stream).await
}

/// The next complete SMTP reply (multi-line replies whole), or what came before the
/// connection closed.
pub(crate) async fn smtp_reply(stream: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut byte)).await {
            Ok(Ok(1)) => got.push(byte[0]),
            _ => return String::from_utf8_lossy(&got).into_owned(),
        }
        if got.ends_with(b"\r\n") {
            let text = String::from_utf8_lossy(&got).into_owned();
            let last = text
                .trim_end()
                .lines()
                .last()
                .unwrap_or_default()
                .to_owned();
            if last.len() < 4 || last.as_bytes()[3] == b' ' {
                return text;
            }
        }
    }
}

/// A message of exactly `size` bytes (CRLF lines, none starting with a dot), ending in CRLF.
pub(crate) fn message_of_size(size: usize, message_id: &str) -> Vec<u8> {
    let mut message = format!(
        "From: <fred@example.org>\r\nTo: <orders@{DOMAIN}>\r\nMessage-ID: <{message_id}@example.org>\r\nSubject: size\r\n\r\n"
    )
    .into_bytes();
    let body = size
        .checked_sub(message.len() + 2)
        .expect("room for the headers")
        + 2;
    let full_lines = (body - 2) / 80;
    for _ in 0..full_lines {
        message.extend(std::iter::repeat_n(b'x', 78));
        message.extend_from_slice(b"\r\n");
    }
    message.extend(std::iter::repeat_n(b'x', body - 80 * full_lines - 2));
    message.extend_from_slice(b"\r\n");
    assert_eq!(message.len(), size);
    message
}
