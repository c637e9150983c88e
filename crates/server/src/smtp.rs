//! The built-in SMTP listener: one of the three doors for inbound mail (with `gm ingest` and the
//! webhook). `mailin` runs the SMTP conversation; this module is its tokio shell: bounded line
//! reads with timeouts, the size limit (announced in EHLO, enforced while receiving), and
//! storing each message before the client is told it was accepted. A message is acknowledged
//! with 250 only once it is in `inbound_messages`; processing happens after, in the inbox
//! workers, so a slow turn never holds an SMTP client.
//!
//! Messages are stored by group commit: sessions hand their message to one writer task, which
//! stores every message waiting at that moment with one statement and one commit, then tells
//! each session whether its message is stored. Under load, one commit serves many sessions;
//! alone, a message is written at once.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use mailin::{Action, Handler, Response, SessionBuilder, response};
use store::PgPool;
use store::inbox::NewInbound;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, mpsc, oneshot};

use crate::clock::Clock;
use crate::inbox;
use crate::letters::REPLY_LOCAL_PART;

/// A client that says nothing for this long is disconnected (RFC 5321 suggests 5 minutes).
const IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest command line accepted; RFC 5321 allows 512 octets, clients sometimes send more.
const MAX_COMMAND_LINE: usize = 4096;
/// Longest line inside a message. Longer lines break RFC 5322, but some clients send them;
/// they still count towards the size limit.
const MAX_DATA_LINE: usize = 1 << 20;
/// A group stops growing at this many messages or this many bytes (it always takes one).
const GROUP_MAX_MESSAGES: usize = 256;
const GROUP_MAX_BYTES: usize = 8 << 20;

/// What the listener needs to know.
#[derive(Debug, Clone)]
pub struct SmtpSettings {
    /// Only `orders` and `orders+TOKEN` at this domain are accepted as recipients.
    pub domain: String,
    /// Largest message accepted, in bytes (announced as the SIZE extension).
    pub max_bytes: usize,
}

/// Accepts connections until the task is dropped. Every stored message wakes `stored`, which
/// the inbox workers wait on.
pub async fn run(
    listener: TcpListener,
    pool: PgPool,
    clock: Arc<dyn Clock>,
    settings: SmtpSettings,
    stored: Arc<Notify>,
) {
    let settings = Arc::new(settings);
    // Sessions wait on the writer anyway: a short queue is enough.
    let (to_store, waiting) = mpsc::channel(GROUP_MAX_MESSAGES);
    tokio::spawn(write_groups(pool, waiting));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(%error, "SMTP accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let connection = Connection {
            to_store: to_store.clone(),
            clock: clock.clone(),
            settings: settings.clone(),
            stored: stored.clone(),
        };
        tokio::spawn(async move {
            if let Err(error) = connection.serve(stream, peer).await {
                tracing::debug!(%error, %peer, "SMTP connection ended");
            }
        });
    }
}

struct Connection {
    to_store: mpsc::Sender<ToStore>,
    clock: Arc<dyn Clock>,
    settings: Arc<SmtpSettings>,
    stored: Arc<Notify>,
}

impl Connection {
    async fn serve(self, stream: TcpStream, peer: SocketAddr) -> io::Result<()> {
        let (read, mut write) = stream.into_split();
        let mut read = BufReader::new(read);
        let builder = SessionBuilder::new(self.settings.domain.clone());
        let collector = Collector::new(&self.settings.domain, self.settings.max_bytes);
        let envelope = collector.envelope.clone();
        let mut session = builder.build(peer.ip(), collector);
        write_response(&mut write, &session.greeting()).await?;
        let mut in_data = false;
        let mut line = Vec::new();
        loop {
            let limit = if in_data {
                MAX_DATA_LINE
            } else {
                MAX_COMMAND_LINE
            };
            let read_line =
                tokio::time::timeout(IDLE_TIMEOUT, read_bounded_line(&mut read, &mut line, limit));
            match read_line.await {
                Err(_) => {
                    write
                        .write_all(b"421 4.4.2 idle too long, closing\r\n")
                        .await?;
                    return Ok(());
                }
                Ok(Err(error)) => return Err(error),
                Ok(Ok(LineRead::Eof)) => return Ok(()),
                Ok(Ok(LineRead::TooLong)) => {
                    write.write_all(b"500 5.5.6 line too long\r\n").await?;
                    return Ok(());
                }
                Ok(Ok(LineRead::Line)) => {}
            }
            let command = if in_data {
                normalise_data_line(&line)
            } else {
                match normalise_command(&line, self.settings.max_bytes) {
                    Normalised::Command(command, reverse_path) => {
                        if let Some(path) = reverse_path {
                            lock(&envelope).reverse_path = path;
                        }
                        command
                    }
                    Normalised::Refuse(reply) => {
                        write.write_all(reply.as_bytes()).await?;
                        continue;
                    }
                }
            };
            let is_ehlo = !in_data && starts_with_ignore_case(&command, b"EHLO");
            let reply = session.process(&command);
            if reply.code == 354 {
                in_data = true;
            }
            let finished = lock(&envelope).finished.take();
            let Some(message) = finished else {
                if is_ehlo && reply.code == 250 {
                    let text = announce_size(&reply.buffer()?, self.settings.max_bytes);
                    write.write_all(&text).await?;
                } else {
                    write_response(&mut write, &reply).await?;
                }
                if reply.action == Action::Close {
                    return Ok(());
                }
                continue;
            };
            in_data = false;
            match message {
                Finished::TooBig => {
                    // mailin stays in its data state after refusing a message: end the session.
                    let text = format!(
                        "552 5.3.4 the message is larger than {} bytes; nothing was stored\r\n",
                        self.settings.max_bytes
                    );
                    write.write_all(text.as_bytes()).await?;
                    return Ok(());
                }
                Finished::Message(raw) => {
                    let (told, stored) = oneshot::channel();
                    let message = ToStore {
                        key: inbox::storage_key(&raw),
                        raw,
                        received_at: self.clock.now(),
                        told,
                    };
                    // A writer gone (the listener shutting down) stored nothing.
                    let is_stored =
                        self.to_store.send(message).await.is_ok() && stored.await.unwrap_or(false);
                    if !is_stored {
                        write
                            .write_all(
                                b"451 4.3.0 the message could not be stored; please try again later\r\n",
                            )
                            .await?;
                        return Ok(());
                    }
                    self.stored.notify_one();
                    crate::fault::point("smtp_stored_before_reply").await;
                    write_response(&mut write, &reply).await?;
                }
            }
        }
    }
}

/// A message handed to the writer, and where to tell its session whether it is stored.
struct ToStore {
    key: String,
    raw: Vec<u8>,
    received_at: DateTime<Utc>,
    told: oneshot::Sender<bool>,
}

/// The group-commit writer: takes every message waiting, stores them together, tells each
/// session, and starts again; ends when every session and the listener are gone.
async fn write_groups(pool: PgPool, mut waiting: mpsc::Receiver<ToStore>) {
    while let Some(first) = waiting.recv().await {
        let mut bytes = first.raw.len();
        let mut group = vec![first];
        while group.len() < GROUP_MAX_MESSAGES && bytes < GROUP_MAX_BYTES {
            let Ok(next) = waiting.try_recv() else { break };
            bytes += next.raw.len();
            group.push(next);
        }
        let stored = store_group(&pool, &group).await;
        for (message, stored) in group.into_iter().zip(stored) {
            // A session that went away meanwhile needs no answer.
            let _ = message.told.send(stored);
        }
    }
}

/// Stores a group in one statement; returns, for each message, whether it is stored.
async fn store_group(pool: &PgPool, group: &[ToStore]) -> Vec<bool> {
    let new: Vec<NewInbound<'_>> = group
        .iter()
        .map(|message| NewInbound {
            message_id: &message.key,
            raw: &message.raw,
            received_at: message.received_at,
        })
        .collect();
    let error = match store::inbox::store_many(pool, &new, "smtp").await {
        Ok(()) => return vec![true; group.len()],
        Err(error) => error,
    };
    // PostgreSQL refused the statement, so perhaps only one message of the group is at fault
    // (say, a Message-ID it cannot hold): store each alone, so that only that one is refused.
    // Any other failure (no connection) would fail each alone as well: all are refused.
    let refused_by_the_database = matches!(
        &error,
        store::StoreError::Database(sqlx::Error::Database(_))
    );
    if !refused_by_the_database || group.len() == 1 {
        tracing::error!(%error, messages = group.len(), "cannot store inbound messages");
        return vec![false; group.len()];
    }
    tracing::warn!(%error, messages = group.len(), "a group of inbound messages was refused: storing each alone");
    let mut stored = Vec::with_capacity(group.len());
    for message in &new {
        let result = store::inbox::store_many(pool, std::slice::from_ref(message), "smtp").await;
        if let Err(error) = &result {
            tracing::error!(%error, message_id = message.message_id, "cannot store an inbound message");
        }
        stored.push(result.is_ok());
    }
    stored
}

/// mailin owns the handler, so what the connection loop must see goes through this.
#[derive(Default)]
struct Envelope {
    reverse_path: String,
    finished: Option<Finished>,
}

fn lock(envelope: &Mutex<Envelope>) -> std::sync::MutexGuard<'_, Envelope> {
    // Nothing can panic while the lock is held; a poisoned lock still holds good data.
    envelope
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn write_response(
    write: &mut (impl AsyncWriteExt + Unpin),
    reply: &Response,
) -> io::Result<()> {
    if reply.action != Action::NoReply {
        write.write_all(&reply.buffer()?).await?;
    }
    Ok(())
}

enum LineRead {
    Line,
    Eof,
    TooLong,
}

/// Reads one line (through its `\n`) into `line`, refusing to buffer more than `limit` bytes.
async fn read_bounded_line(
    read: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<LineRead> {
    line.clear();
    loop {
        let available = read.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let (taken, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(available.get(..taken).unwrap_or_default());
        read.consume(taken);
        if line.len() > limit {
            return Ok(LineRead::TooLong);
        }
        if done {
            return Ok(LineRead::Line);
        }
    }
}

/// Lines of the message keep their bytes; only a bare-LF end of data becomes `.\r\n`, the one
/// form mailin recognises.
fn normalise_data_line(line: &[u8]) -> Vec<u8> {
    if line == b".\n" {
        b".\r\n".to_vec()
    } else {
        line.to_vec()
    }
}

enum Normalised {
    /// The line to give mailin, and the real reverse path when it is a MAIL command.
    Command(Vec<u8>, Option<String>),
    /// Answer this without involving mailin.
    Refuse(String),
}

/// mailin's parser takes neither ESMTP parameters (`SIZE=`, `BODY=`… which clients send as soon
/// as EHLO offers SIZE) nor the null reverse path `<>` of bounces, and wants CRLF. So MAIL and
/// RCPT lose their parameters here (SIZE is checked against the limit first), `<>` is handed on
/// as a placeholder, and the real reverse path is kept for the Return-Path header.
fn normalise_command(line: &[u8], max_bytes: usize) -> Normalised {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\r', '\n']);
    let upper = text.to_ascii_uppercase();
    let is_mail = upper.starts_with("MAIL FROM:");
    if !is_mail && !upper.starts_with("RCPT TO:") {
        return Normalised::Command(format!("{text}\r\n").into_bytes(), None);
    }
    let prefix_len = if is_mail { 10 } else { 8 };
    let rest = text.get(prefix_len..).unwrap_or_default().trim_start();
    let (path, parameters) = match rest.find('>') {
        Some(end) if rest.starts_with('<') => (
            rest.get(1..end).unwrap_or_default(),
            rest.get(end + 1..).unwrap_or_default(),
        ),
        _ => match rest.split_once(' ') {
            Some((path, parameters)) => (path, parameters),
            None => (rest, ""),
        },
    };
    for parameter in parameters.split_whitespace() {
        if let Some(size) = parameter
            .to_ascii_uppercase()
            .strip_prefix("SIZE=")
            .and_then(|n| n.parse::<u64>().ok())
            && size > u64::try_from(max_bytes).unwrap_or(u64::MAX)
        {
            return Normalised::Refuse(format!(
                "552 5.3.4 the message is larger than {max_bytes} bytes\r\n"
            ));
        }
    }
    let (verb, placeholder) = if is_mail {
        ("MAIL FROM:", "MAILER-DAEMON")
    } else {
        ("RCPT TO:", "")
    };
    let shown = if path.is_empty() { placeholder } else { path };
    let command = format!("{verb}<{shown}>\r\n").into_bytes();
    Normalised::Command(command, is_mail.then(|| path.to_owned()))
}

fn starts_with_ignore_case(line: &[u8], prefix: &[u8]) -> bool {
    line.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// Adds `SIZE <max>` to mailin's EHLO reply (it lists only its own extensions).
fn announce_size(ehlo_reply: &[u8], max_bytes: usize) -> Vec<u8> {
    let text = String::from_utf8_lossy(ehlo_reply);
    let mut lines: Vec<String> = text
        .split("\r\n")
        .filter(|l| !l.is_empty())
        .map(|l| l.get(4..).unwrap_or_default().to_owned())
        .collect();
    lines.push(format!("SIZE {max_bytes}"));
    let last = lines.len() - 1;
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("250{}{l}\r\n", if i == last { ' ' } else { '-' }))
        .collect::<String>()
        .into_bytes()
}

enum Finished {
    Message(Vec<u8>),
    TooBig,
}

/// Collects one message at a time for the connection.
struct Collector {
    domain: String,
    max_bytes: usize,
    envelope: Arc<Mutex<Envelope>>,
    buffer: Vec<u8>,
    too_big: bool,
}

impl Collector {
    fn new(domain: &str, max_bytes: usize) -> Self {
        Collector {
            domain: domain.to_ascii_lowercase(),
            max_bytes,
            envelope: Arc::default(),
            buffer: Vec::new(),
            too_big: false,
        }
    }
}

impl Handler for Collector {
    fn helo(&mut self, _ip: IpAddr, _domain: &str) -> Response {
        response::OK
    }

    fn rcpt(&mut self, to: &str) -> Response {
        let accepted = to.rsplit_once('@').is_some_and(|(local, domain)| {
            domain.eq_ignore_ascii_case(&self.domain)
                && (local.eq_ignore_ascii_case(REPLY_LOCAL_PART)
                    || local.get(..REPLY_LOCAL_PART.len() + 1).is_some_and(|head| {
                        head.eq_ignore_ascii_case(&format!("{REPLY_LOCAL_PART}+"))
                    }))
        });
        if accepted {
            response::OK
        } else {
            Response::custom(
                550,
                format!(
                    "5.1.1 no such mailbox here: write to {REPLY_LOCAL_PART}@{}",
                    self.domain
                ),
            )
        }
    }

    fn data_start(
        &mut self,
        _domain: &str,
        _from: &str,
        _is8bit: bool,
        _to: &[String],
    ) -> Response {
        // The envelope sender goes first, as a delivering MTA would write it: the mail crate
        // reads an empty Return-Path as a bounce, which is never answered.
        let reverse_path = lock(&self.envelope).reverse_path.clone();
        self.buffer = format!("Return-Path: <{reverse_path}>\r\n").into_bytes();
        self.too_big = false;
        response::OK
    }

    fn data(&mut self, line: &[u8]) -> io::Result<()> {
        if self.buffer.len() + line.len() > self.max_bytes {
            self.too_big = true;
            self.buffer = Vec::new();
        }
        if !self.too_big {
            self.buffer.extend_from_slice(line);
        }
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        lock(&self.envelope).finished = Some(if self.too_big {
            Finished::TooBig
        } else {
            Finished::Message(std::mem::take(&mut self.buffer))
        });
        Response::custom(
            250,
            "2.0.0 stored; a confirmation will follow by mail".to_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail_parameters_are_dropped_and_the_size_checked() {
        let Normalised::Command(line, path) =
            normalise_command(b"MAIL FROM:<a@b.example> SIZE=100 BODY=8BITMIME\r\n", 1000)
        else {
            panic!("refused");
        };
        assert_eq!(line, b"MAIL FROM:<a@b.example>\r\n");
        assert_eq!(path.as_deref(), Some("a@b.example"));
        assert!(matches!(
            normalise_command(b"mail from:<a@b.example> size=5000\n", 1000),
            Normalised::Refuse(reply) if reply.starts_with("552")
        ));
    }

    #[test]
    fn the_null_reverse_path_is_kept_for_return_path() {
        let Normalised::Command(line, path) = normalise_command(b"MAIL FROM:<>\r\n", 1000) else {
            panic!("refused");
        };
        assert_eq!(line, b"MAIL FROM:<MAILER-DAEMON>\r\n");
        assert_eq!(path.as_deref(), Some(""));
    }

    #[test]
    fn ehlo_announces_the_size_limit() {
        let reply = b"250-example ESMTP\r\n250 8BITMIME\r\n";
        assert_eq!(
            String::from_utf8(announce_size(reply, 1234)).unwrap(),
            "250-example ESMTP\r\n250-8BITMIME\r\n250 SIZE 1234\r\n"
        );
    }

    #[test]
    fn only_admiralty_addresses_are_recipients() {
        let mut collector = Collector::new("Zine.Example", 10);
        assert_eq!(collector.rcpt("orders@zine.example").code, 250);
        assert_eq!(collector.rcpt("ORDERS+abc@zine.example").code, 250);
        assert_eq!(collector.rcpt("orders@elsewhere.example").code, 550);
        assert_eq!(collector.rcpt("postmaster@zine.example").code, 550);
        assert_eq!(collector.rcpt("ordersx@zine.example").code, 550);
    }

    #[test]
    fn a_message_over_the_limit_is_refused_not_truncated() {
        let mut collector = Collector::new("zine.example", 40);
        collector.data_start("", "", false, &[]);
        collector.data(b"Subject: hi\r\n").unwrap();
        collector.data(&[b'x'; 64]).unwrap();
        collector.data_end();
        assert!(matches!(
            lock(&collector.envelope).finished,
            Some(Finished::TooBig)
        ));
    }
}
