//! The SMTP conversation's bytes: bounded line reads, what mailin must not see of a command
//! (ESMTP parameters, the null reverse path), the SIZE extension, and the handler mailin calls.

use std::io;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use mailin::{Action, Handler, Response, response};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt};

use crate::letters::REPLY_LOCAL_PART;

pub(super) enum LineRead {
    /// A whole line, through its `\n`.
    Line,
    /// `limit` bytes without a `\n`: the start of a longer line.
    Partial,
    Eof,
}

/// Reads one line (through its `\n`) into `line`, or its first `limit` bytes: never buffers
/// more than `limit` bytes, whatever the client sends.
pub(super) async fn read_bounded_line(
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
        let room = limit.saturating_sub(line.len());
        let window = available
            .get(..room.min(available.len()))
            .unwrap_or_default();
        let (taken, done) = match window.iter().position(|&b| b == b'\n') {
            Some(end) => (end + 1, true),
            None => (window.len(), false),
        };
        line.extend_from_slice(window.get(..taken).unwrap_or_default());
        read.consume(taken);
        if done {
            return Ok(LineRead::Line);
        }
        if line.len() >= limit {
            return Ok(LineRead::Partial);
        }
    }
}

pub(super) enum Normalised {
    /// The line to give mailin, and the real reverse path when it is a MAIL command.
    Command(Vec<u8>, Option<String>),
    /// Answer this without involving mailin.
    Refuse(String),
}

/// mailin's parser takes neither ESMTP parameters (`SIZE=`, `BODY=`… which clients send as soon
/// as EHLO offers SIZE) nor the null reverse path `<>` of bounces, and wants CRLF. So MAIL and
/// RCPT lose their parameters here (SIZE is checked against the limit first), `<>` is handed on
/// as a placeholder, and the real reverse path is kept for the Return-Path header.
pub(super) fn normalise_command(line: &[u8], max_bytes: usize) -> Normalised {
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

/// What a command line is, as far as the session's own rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verb {
    Ehlo,
    Mail,
    StartTls,
    /// A command that makes no progress: NOOP, RSET, VRFY, EXPN, HELP, ETRN, or one SMTP
    /// does not know (counted against `SmtpLimits::junk_commands`).
    Junk,
    /// Any other: HELO, RCPT, DATA, QUIT, AUTH, BDAT.
    Other,
}

impl Verb {
    pub(super) fn of(line: &[u8]) -> Verb {
        let word = line
            .split(|&b| b == b' ' || b == b'\r' || b == b'\n' || b == b'\t')
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        match word.as_slice() {
            b"EHLO" => Verb::Ehlo,
            b"MAIL" => Verb::Mail,
            b"STARTTLS" => Verb::StartTls,
            b"HELO" | b"RCPT" | b"DATA" | b"QUIT" | b"AUTH" | b"BDAT" => Verb::Other,
            _ => Verb::Junk,
        }
    }
}

/// Adds `SIZE <max>` to mailin's EHLO reply (it lists only its own extensions).
pub(super) fn announce_size(ehlo_reply: &[u8], max_bytes: usize) -> Vec<u8> {
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

pub(super) async fn write_response(
    write: &mut (impl AsyncWriteExt + Unpin),
    reply: &Response,
) -> io::Result<()> {
    if reply.action != Action::NoReply {
        write.write_all(&reply.buffer()?).await?;
    }
    Ok(())
}

/// What the connection loop must see of the transaction, which mailin's handler holds.
pub(super) struct Envelope {
    /// The reverse path as the client wrote it (`<>` for a bounce: empty).
    pub reverse_path: String,
    /// The recipients mailin accepted for the message being received.
    pub recipients: Vec<String>,
    /// The name the client gave in HELO or EHLO.
    pub helo: String,
    pub peer: IpAddr,
    pub over_tls: bool,
}

impl Default for Envelope {
    fn default() -> Self {
        Envelope {
            reverse_path: String::new(),
            recipients: Vec::new(),
            helo: String::new(),
            peer: IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
            over_tls: false,
        }
    }
}

pub(super) fn lock(envelope: &Mutex<Envelope>) -> std::sync::MutexGuard<'_, Envelope> {
    // Nothing can panic while the lock is held; a poisoned lock still holds good data.
    envelope
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// mailin's handler: accepts only Admiralty's addresses as recipients and notes the envelope.
/// The message itself never passes through it: the session reads DATA with its own bounds.
pub(super) struct Collector {
    domain: String,
    pub envelope: Arc<Mutex<Envelope>>,
}

impl Collector {
    pub fn new(domain: &str) -> Self {
        Collector {
            domain: domain.to_ascii_lowercase(),
            envelope: Arc::default(),
        }
    }
}

impl Handler for Collector {
    fn helo(&mut self, _ip: IpAddr, domain: &str) -> Response {
        lock(&self.envelope).helo = domain.to_owned();
        response::OK
    }

    fn rcpt(&mut self, to: &str) -> Response {
        // `orders`, `orders+TOKEN`, and the return paths `bounces+TAG` (DSNs come back to
        // them; the tag is checked when the message is processed, not here).
        let accepted = to.rsplit_once('@').is_some_and(|(local, domain)| {
            let plus = |base: &str| {
                local.get(..base.len() + 1).is_some_and(|head| {
                    head.eq_ignore_ascii_case(&format!("{base}+")) && local.len() > base.len() + 1
                })
            };
            domain.eq_ignore_ascii_case(&self.domain)
                && (local.eq_ignore_ascii_case(REPLY_LOCAL_PART)
                    || plus(REPLY_LOCAL_PART)
                    || plus(mail::verp::BOUNCE_LOCAL_PART))
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

    fn data_start(&mut self, _domain: &str, _from: &str, _is8bit: bool, to: &[String]) -> Response {
        lock(&self.envelope).recipients = to.to_vec();
        response::OK
    }

    fn data(&mut self, _line: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn data_end(&mut self) -> Response {
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
        // Exactly the limit is announced size, so it is allowed.
        assert!(matches!(
            normalise_command(b"MAIL FROM:<a@b.example> SIZE=1000\r\n", 1000),
            Normalised::Command(..)
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
        let mut collector = Collector::new("Zine.Example");
        assert_eq!(collector.rcpt("orders@zine.example").code, 250);
        assert_eq!(collector.rcpt("ORDERS+abc@zine.example").code, 250);
        assert_eq!(collector.rcpt("orders@elsewhere.example").code, 550);
        assert_eq!(collector.rcpt("postmaster@zine.example").code, 550);
        assert_eq!(collector.rcpt("ordersx@zine.example").code, 550);
        assert_eq!(collector.rcpt("bounces+12-ab@zine.example").code, 250);
        assert_eq!(collector.rcpt("bounces@zine.example").code, 550);
        assert_eq!(collector.rcpt("bounces+@zine.example").code, 550);
    }

    #[tokio::test]
    async fn a_line_is_read_whole_or_in_pieces_of_at_most_the_limit() {
        let mut input: &[u8] = b"short\r\n0123456789abcdef\r\n";
        let mut line = Vec::new();
        assert!(matches!(
            read_bounded_line(&mut input, &mut line, 8).await.unwrap(),
            LineRead::Line
        ));
        assert_eq!(line, b"short\r\n");
        assert!(matches!(
            read_bounded_line(&mut input, &mut line, 8).await.unwrap(),
            LineRead::Partial
        ));
        assert_eq!(line, b"01234567");
        assert!(matches!(
            read_bounded_line(&mut input, &mut line, 8).await.unwrap(),
            LineRead::Partial
        ));
        assert!(matches!(
            read_bounded_line(&mut input, &mut line, 8).await.unwrap(),
            LineRead::Line
        ));
        assert_eq!(line, b"\r\n");
        assert!(matches!(
            read_bounded_line(&mut input, &mut line, 8).await.unwrap(),
            LineRead::Eof
        ));
    }
}
