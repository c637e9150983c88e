//! What counts as the same message (docs/mail.md, "The same message").
//!
//! - **The same delivery**: the same Message-ID and the same body ([`body_sha256`]: what follows
//!   the header block, with line ends as LF and trailing blank lines dropped, so that the
//!   trace headers an MTA adds and the line ends a door uses do not matter). Stored once, so a
//!   message delivered twice has one effect. A different message that reuses a Message-ID is
//!   not the same: it is stored and answered like any other.
//! - **A re-sent copy**: a message from the same subscriber with the same text (the lines they
//!   wrote, quotes and signature left out: [`text_sha256`]) as one already acted on, while no
//!   turn of their games has opened since. If it carries anything that would be done twice,
//!   it is carried out again without it: its orders stand again (so re-sending an earlier set
//!   puts it back), but its press (PRESS lines, press written with orders) and its TELLs are
//!   not sent twice, and the confirmation says so.

use chrono::{DateTime, Utc};
use mail::Reading;
use mail::commands::Command;
use sha2::{Digest, Sha256};
use store::inbox::InboundId;
use store::subscribers::SubscriberId;

use super::Batch;
use crate::turns::LifecycleError;

/// The SHA-256 of a raw message's body, as [`store::inbox::NewInbound::body_sha256`] wants it.
pub fn body_sha256(raw: &[u8]) -> [u8; 32] {
    let body = header_end(raw).map_or(raw, |end| raw.get(end..).unwrap_or_default());
    let mut normalised = Vec::with_capacity(body.len());
    let mut bytes = body.iter().peekable();
    while let Some(&byte) = bytes.next() {
        if byte == b'\r' && bytes.peek() == Some(&&b'\n') {
            continue;
        }
        normalised.push(byte);
    }
    while normalised.last().is_some_and(u8::is_ascii_whitespace) {
        normalised.pop();
    }
    Sha256::digest(&normalised).into()
}

/// Where the body starts: after the first empty line (CRLF CRLF or LF LF).
fn header_end(raw: &[u8]) -> Option<usize> {
    let crlf = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| at + 4);
    let lf = raw.windows(2).position(|w| w == b"\n\n").map(|at| at + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The SHA-256 of what the sender wrote: the kept lines, each without trailing blanks, without
/// blank lines at either end.
pub(super) fn text_sha256(reading: &Reading) -> [u8; 32] {
    let lines: Vec<&str> = reading
        .text
        .lines
        .iter()
        .map(|line| line.text.trim_end())
        .collect();
    let start = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(start, |e| e + 1);
    Sha256::digest(lines.get(start..end).unwrap_or_default().join("\n")).into()
}

/// Whether acting on the message twice would do something twice: orders (which may carry
/// press), PRESS or TELL.
pub(super) fn would_repeat(reading: &Reading) -> bool {
    !reading.commands.orders.is_empty()
        || reading.commands.commands.iter().any(|c| {
            matches!(
                c.command,
                Command::Press { .. } | Command::PressWithdraw | Command::Tell { .. }
            )
        })
}

/// A message acted on in the current batch (not yet recorded in the store).
pub(super) struct Acted {
    pub id: InboundId,
    pub subscriber: SubscriberId,
    pub text: [u8; 32],
    pub received_at: DateTime<Utc>,
}

/// The earlier message this one is a re-sent copy of, if any: its id and arrival.
pub(super) async fn earlier_copy(
    tx: &mut sqlx::PgConnection,
    batch: &Batch,
    this: InboundId,
    subscriber: SubscriberId,
    text: &[u8; 32],
    received_at: DateTime<Utc>,
) -> Result<Option<(InboundId, DateTime<Utc>)>, LifecycleError> {
    // One of this batch's (its turns are the batch's: none opened in between).
    if let Some(acted) = batch
        .acted
        .iter()
        .rev()
        .find(|a| a.subscriber == subscriber && &a.text == text && a.received_at <= received_at)
    {
        return Ok(Some((acted.id, acted.received_at)));
    }
    Ok(store::inbox::earlier_copy(&mut *tx, subscriber, text, received_at, this).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_digest_ignores_headers_line_ends_and_trailing_blank_lines() {
        let smtp = b"Return-Path: <a@b.example>\r\nReceived: by mx\r\nMessage-ID: <1@b>\r\n\r\nG13\r\nPRESS hi\r\n";
        let pipe = b"Message-ID: <1@b>\nDelivered-To: orders@x\n\nG13\nPRESS hi\n\n";
        assert_eq!(body_sha256(smtp), body_sha256(pipe));
        let other = b"Message-ID: <1@b>\r\n\r\nG14\r\nPRESS hi\r\n";
        assert_ne!(body_sha256(smtp), body_sha256(other));
        // No header block: the whole is the body.
        assert_eq!(body_sha256(b"hello\r\n"), body_sha256(b"hello"));
    }

    #[test]
    fn the_text_digest_is_what_the_sender_wrote() {
        let read = |raw: &[u8]| mail::read(raw, "orders").unwrap();
        let first = read(b"From: f@x.example\r\nMessage-ID: <1@x>\r\n\r\nG13\r\nPRESS Steady.\r\n\r\n-- \r\nFred\r\n");
        let again = read(b"From: f@x.example\r\nMessage-ID: <2@x>\r\nSubject: again\r\n\r\n\r\nG13  \r\nPRESS Steady.\r\n");
        let other = read(b"From: f@x.example\r\nMessage-ID: <3@x>\r\n\r\nG14\r\nPRESS Steady.\r\n");
        assert_eq!(text_sha256(&first), text_sha256(&again));
        assert_ne!(text_sha256(&first), text_sha256(&other));
        assert!(would_repeat(&first));
        let status = read(b"From: f@x.example\r\nMessage-ID: <4@x>\r\n\r\nSTATUS\r\n");
        assert!(!would_repeat(&status));
    }
}
