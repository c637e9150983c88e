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
//! [`quotes::strip`] → [`commands::parse`]; each step is public for callers that need one.
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
//!    tokens), else [`commands::Commands::password`]. The From address alone never
//!    authorises anything.
//! 4. Act on [`Reading::commands`] in line order; give each game's order lines to the engine
//!    as [`commands::Commands::order_text`] and map the engine's line numbers back with
//!    [`commands::OrderText::original_line`]; quote lines in the confirmation from
//!    [`Reading::text`] (PASSWORD lines there are already redacted), mention
//!    [`InboundMail::attachments`] as ignored, a [`quotes::RemovalKind::Forwarded`] removal
//!    ("the forwarded message was not read"), and [`InboundMail::truncated`].
//! 5. Queue the confirmation built by [`outbound::build`] with a Message-ID and Date fixed at
//!    queue time, `Auto-Submitted: auto-replied`, Reply-To the player's reply address
//!    ([`token::reply_address`]), In-Reply-To the inbound Message-ID.
//!
//! # Outbound
//! [`outbound::build`] returns the bytes to store in the outbox; the worker sends them as they
//! are (lettre's `SmtpTransport::send_raw` with an `Envelope`). Every message carries
//! `X-Loop: admiralty` ([`loops::LOOP_MARK`]) and `Auto-Submitted`, so our own mail coming
//! back through a robot is recognised.
//!
//! # Limits
//! Input is untrusted: nothing panics on any bytes; parsing reads at most
//! [`inbound::MAX_MESSAGE_BYTES`] and keeps [`inbound::MAX_BODY_BYTES`] of text, and says so in
//! [`InboundMail::truncated`]. HTML is turned into text in one linear pass.

mod html;

pub mod commands;
pub mod inbound;
pub mod loops;
pub mod outbound;
pub mod quotes;
pub mod token;

use serde::Serialize;

pub use commands::{Command, Commands, HELP};
pub use inbound::{InboundMail, MailError, Mailbox, parse};
pub use loops::{Delivery, classify};
pub use outbound::{Outgoing, build};
pub use quotes::{Line, Stripped, strip};
pub use token::{ReplyToken, parse_token, reply_address, reply_token};

/// One inbound message read every way the server needs.
#[derive(Debug, Clone, Serialize)]
pub struct Reading {
    pub mail: InboundMail,
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
    let sender_name = mail.from.as_ref().and_then(|f| f.name.as_deref());
    let mut text = quotes::strip(&mail.body, sender_name);
    // A robot's text is never acted on: a vacation reply or a bounce may quote a turn report.
    let commands = if delivery.may_reply() {
        commands::parse(&text.lines)
    } else {
        Commands::default()
    };
    for line in &mut text.lines {
        if let std::borrow::Cow::Owned(redacted) = commands::redact(&line.text) {
            line.text = redacted;
        }
    }
    Ok(Reading {
        mail,
        delivery,
        token,
        text,
        commands,
    })
}
