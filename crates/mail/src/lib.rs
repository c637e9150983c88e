//! Admiralty's mail, pure: raw RFC 5322 bytes to a parsed message, a loop verdict, the lines the
//! player wrote and the commands in them; and outbound messages built as bytes. No IO, no
//! clock (times are parameters), no randomness (reply tokens and Message-IDs come from the
//! caller), no tokio: the server's SMTP listener, `gm ingest`, the raw-MIME webhook and the
//! outbox worker wrap it.
//!
//! # Inbound: one call
//! ```
//! let raw = b"From: Fred <fred@example.com>\r\n\
//! To: Admiralty <orders+k7qw2xzp4m9rtb3n@example.org>\r\n\
//! Return-Path: <fred@example.com>\r\n\
//! Message-ID: <1@example.com>\r\n\
//! Subject: Re: Turn 3\r\n\
//! \r\n\
//! FIRE B7\r\n\
//! PRESS Steady, lads.\r\n\
//! \r\n\
//! On Mon, 3 Mar 2025, Admiralty <orders+k7qw2xzp4m9rtb3n@example.org> wrote:\r\n\
//! > Turn 3: your orders?\r\n";
//! let reading = mail::read(raw, "orders")?;
//! assert!(reading.delivery.may_reply());
//! assert_eq!(reading.token.as_ref().map(|t| t.as_str()), Some("k7qw2xzp4m9rtb3n"));
//! let orders = reading.commands.order_text(None);
//! assert_eq!(orders.text, "FIRE B7");
//! assert_eq!(orders.original_line(1), Some(1));
//! # Ok::<(), mail::MailError>(())
//! ```
//!
//! [`read`] is [`inbound::parse`] → [`loops::classify`] → [`InboundMail::reply_token`] →
//! [`quotes::strip`] → [`commands::parse`]. Each step is public: a server that wants the
//! engine to end a PRESS at a valid order runs the steps itself and calls
//! [`commands::parse_with`] once the token has told it the game.
//!
//! # The modules
//! - [`address`]: [`address::MailboxKey`], one mailbox however its address is spelled (letter
//!   case, quotes, `+tags`): what the server's limits on mail count by.
//! - [`inbound`]: [`inbound::parse`]`(&[u8]) -> Result<`[`InboundMail`]`, `[`MailError`]`>`:
//!   Message-ID, From (address and name), To, Cc, Delivered-To, Reply-To, Subject, Date,
//!   In-Reply-To, References, Return-Path, every raw header, the body text (text/plain
//!   preferred; format=flowed joined; HTML-only mail turned into text; any charset), the
//!   attachments (not read, listed), and what was cut or repaired.
//! - [`loops`]: [`loops::classify`]`(&InboundMail) -> `[`Delivery`]: `Personal`, or
//!   `Automated(`[`loops::Automation`]`)` with the reason for the audit log.
//! - [`token`]: [`token::parse_token`] (charset and length), [`token::reply_token`] (find
//!   `orders+TOKEN@...` among addresses), [`token::reply_address`]. Making tokens is the
//!   server's job (randomness): 26 characters of lower-case base32 is a good choice.
//! - [`quotes`]: [`quotes::strip`]`(body) -> `[`Stripped`]: the lines the person
//!   wrote, each with its ORIGINAL line number, and what was removed, by kind and lines.
//! - [`commands`]: [`commands::parse`]`(&[Line]) -> `[`Commands`]: commands with line numbers
//!   and the GAME they fall under, order lines for the engine, problems (a bad command line,
//!   with what would be accepted), and [`HELP`], the text HELP mails back.
//! - [`bounce`]: [`bounce::read`]`(&[u8]) -> Option<`[`bounce::Report`]`>`: RFC 3464 DSNs,
//!   qmail, Exim, Postfix and Exchange plain-text bounces, RFC 5965 ARF complaints.
//! - [`verp`]: signed return paths `bounces+TAG@DOMAIN` ([`verp::TagKey`]).
//! - [`outbound`]: [`outbound::build`]`(&`[`Outgoing`]`) -> Result<Vec<u8>, _>`: RFC 5322
//!   bytes through lettre's builder, deterministic, injection-proof.
//!
//! # What the server does with a [`Reading`]
//! 1. Store the raw bytes first, keyed by [`InboundMail::message_id`] (or, when it is `None`, a
//!    digest of the raw bytes), so a message delivered twice has one effect. The SMTP listener
//!    should prepend `Return-Path: <MAIL FROM>` (as an MDA does, RFC 5321 section 4.4) and may
//!    put the envelope's RCPT TO addresses first in the token search
//!    ([`token::reply_token`] takes any addresses).
//! 2. If [`Reading::delivery`] is [`Delivery::Automated`]: record the reason
//!    ([`loops::Automation`] displays as a line for the audit log) and send nothing;
//!    [`Reading::commands`] is empty then, so nothing is acted on.
//! 3. Authenticate: [`Reading::token`] (the plus-address token, matched against the server's
//!    tokens), else [`commands::Commands::password`] (compare with
//!    [`commands::Password::expose_secret`]; everything else shows it redacted). The From
//!    address alone never authorises anything.
//! 4. Act on [`Reading::commands`] in line order; give each game's order lines to the engine
//!    as [`commands::Commands::order_text`] and map the engine's line numbers back with
//!    [`commands::OrderText::original_line`]; quote lines in the confirmation from
//!    [`Reading::text`] (PASSWORD lines there are already redacted), mention
//!    [`InboundMail::attachments`] as ignored, a [`quotes::RemovalKind::Forwarded`] removal
//!    ("the forwarded message was not read"), and [`InboundMail::truncated`].
//! 5. Queue the confirmation built by [`outbound::build`] with a Message-ID
//!    ([`outbound::message_id`]) and Date fixed at queue time, `Auto-Submitted: auto-replied`,
//!    Reply-To the player's reply address ([`token::reply_address`]), In-Reply-To the inbound
//!    Message-ID and References the inbound References.
//!
//! # Outbound
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! use mail::outbound::{AutoSubmitted, Outgoing, build, message_id};
//! use mail::{Mailbox, parse_token, reply_address};
//!
//! let token = parse_token("k7qw2xzp4m9rtb3nfh5cgd6yae")?;
//! let mail = Outgoing {
//!     from: Mailbox { address: "orders@example.org".into(), name: Some("Admiralty".into()) },
//!     to: Mailbox { address: "fred@example.com".into(), name: Some("Fred Bloggs".into()) },
//!     reply_to: Some(Mailbox {
//!         address: reply_address("orders", &token, "example.org"),
//!         name: Some("Admiralty".into()),
//!     }),
//!     subject: "Re: spring-salvo: turn 3 report".into(),
//!     text: "Your orders for turn 4, as understood:\n  line 1: FIRE B7 -> a shot at B7\n".into(),
//!     html: None,
//!     message_id: message_id("confirm-42", "example.org")?,
//!     date: UNIX_EPOCH + Duration::from_secs(1_741_000_000), // from the server's Clock
//!     in_reply_to: Some("CAKx9vR@mail.example.com".into()),
//!     references: vec!["turn-3.spring-salvo.fred@example.org".into()],
//!     auto_submitted: AutoSubmitted::AutoReplied,
//!     list: None,
//! };
//! let bytes = build(&mail)?;
//! assert_eq!(bytes, build(&mail)?); // a retry sends the very same message
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! The outbox stores each message's parts as a row, and its worker builds the message from
//! them at send time, with the same Message-ID for every attempt. Every message carries `X-Loop: admiralty`
//! ([`loops::LOOP_MARK`]), `Auto-Submitted` and `X-Auto-Response-Suppress: All`, so our own
//! mail coming back through a robot is recognised and well-behaved robots do not answer.
//!
//! # Limits
//! Input is untrusted: nothing panics on any bytes (property-tested); parsing reads at most
//! [`inbound::MAX_MESSAGE_BYTES`] and keeps [`inbound::MAX_BODY_BYTES`] of text, and says so
//! in [`InboundMail::truncated`]. HTML is turned into text in one linear pass; a multipart
//! whose declared boundary never occurs is read with the boundary its parts use
//! ([`InboundMail::repaired`]).
//!
//! # Dependencies
//! mail-parser 0.11 (1.x needs a newer Rust than ours) and lettre with only its `builder`
//! feature: `cargo tree -p mail` shows no tokio, no sqlx, no network.

mod html;

pub mod address;
pub mod bounce;
pub mod commands;
pub mod inbound;
pub mod loops;
pub mod outbound;
pub mod quotes;
pub mod token;
pub mod verp;

use std::borrow::Cow;

use serde::Serialize;

pub use commands::{Command, Commands, HELP};
pub use inbound::{InboundMail, MailError, Mailbox, parse, sender_and_subject};
pub use loops::{Delivery, classify};
pub use outbound::{Outgoing, build};
pub use quotes::{Line, Stripped, strip};
pub use token::{ReplyToken, parse_token, reply_address, reply_token};

/// One inbound message read every way the server needs.
#[derive(Debug, Clone, Serialize)]
pub struct Reading {
    /// The message; PASSWORD lines of its body are redacted, as everywhere else.
    pub mail: InboundMail,
    /// Whether a reply may be sent, and why not.
    pub delivery: Delivery,
    /// The token of the first recipient `<reply_local_part>+TOKEN@...`.
    pub token: Option<ReplyToken>,
    /// The lines the sender wrote in this message, PASSWORD lines redacted.
    pub text: Stripped,
    /// The commands and order lines; empty when [`Reading::delivery`] is
    /// [`Delivery::Automated`], whose text is never acted on.
    pub commands: Commands,
}

/// Reads raw bytes into a [`Reading`]; `reply_local_part` is the local part of the personal
/// reply addresses (`orders` for `orders+TOKEN@example.org`).
pub fn read(raw: &[u8], reply_local_part: &str) -> Result<Reading, MailError> {
    let mail = inbound::parse(raw)?;
    let delivery = loops::classify(&mail);
    let token = mail.reply_token(reply_local_part);
    let mut text = quotes::strip(&mail.body);
    // A robot's text is never acted on: a vacation reply or a bounce may quote a turn report.
    let commands = if delivery.may_reply() {
        let commands = commands::parse(&text.lines);
        if commands == Commands::default() && text.lines.iter().all(|l| l.text.trim().is_empty()) {
            subject_command(&mail).unwrap_or(commands)
        } else {
            commands
        }
    } else {
        Commands::default()
    };
    for line in &mut text.lines {
        if let Cow::Owned(redacted) = commands::redact(&line.text) {
            line.text = redacted;
        }
    }
    let mut mail = mail;
    if mail
        .body
        .lines()
        .any(|l| matches!(commands::redact(l), Cow::Owned(_)))
    {
        let lines: Vec<Cow<'_, str>> = mail.body.split('\n').map(commands::redact).collect();
        mail.body = lines.join("\n");
    }
    Ok(Reading {
        mail,
        delivery,
        token,
        text,
        commands,
    })
}

/// A message with nothing in its body whose Subject is `unsubscribe`: what a mail program sends
/// for a `List-Unsubscribe` mailto (`?subject=unsubscribe`, RFC 2369), read as UNSUBSCRIBE
/// (line 0: it is no line of the body).
fn subject_command(mail: &InboundMail) -> Option<Commands> {
    let subject = mail.subject.as_deref()?.trim();
    subject.eq_ignore_ascii_case("unsubscribe").then(|| {
        commands::parse(&[Line {
            number: 0,
            text: "UNSUBSCRIBE".to_owned(),
        }])
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_empty_message_with_the_subject_unsubscribe_unsubscribes() {
        let raw = b"From: f@example.com\r\nTo: orders+abcdefghijklmnop2345@example.org\r\nSubject: unsubscribe\r\n\r\n";
        let reading = super::read(raw, "orders").unwrap();
        assert_eq!(
            reading
                .commands
                .commands
                .iter()
                .map(|c| c.command.clone())
                .collect::<Vec<_>>(),
            vec![super::Command::Unsubscribe]
        );
        // A body wins: its lines are what the sender wrote.
        let raw = b"From: f@example.com\r\nTo: orders@example.org\r\nSubject: unsubscribe\r\n\r\nSTATUS\r\n";
        let reading = super::read(raw, "orders").unwrap();
        assert!(!format!("{:?}", reading.commands).contains("Unsubscribe"));
    }

    #[test]
    fn a_password_is_nowhere_in_a_reading() {
        let raw = b"From: f@example.com\r\nTo: orders@example.org\r\n\r\nGAME g\r\npassword = hunter2\r\nFIRE B7\r\n";
        let reading = super::read(raw, "orders").unwrap();
        assert_eq!(
            reading.commands.password().map(|p| p.expose_secret()),
            Some("hunter2")
        );
        let json = serde_json::to_string(&reading).unwrap();
        let debug = format!("{reading:?}");
        assert!(!json.contains("hunter2"), "{json}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(reading.mail.body.contains("PASSWORD [redacted]"));
    }
}
