//! Orders by email: every inbound message is stored raw first, then processed in its own
//! transaction — authenticated by the personal reply token ([`identify`]), read with the `mail`
//! crate, acted on ([`act`], [`commands`]), and answered with a confirmation queued in the
//! outbox. A message delivered twice is stored once and acted on once; a message whose
//! processing fails keeps its error and can be run again (`gm inbox retry`).

mod act;
pub mod authenticate;
mod batch;
mod budget;
mod commands;
mod copies;
mod identify;
mod message;
mod seat_offers;
mod worker;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use store::PgPool;
use store::inbox::{self, Stored};

use crate::config::{BaseUrl, Limits};
use crate::letters::REPLY_LOCAL_PART;
use crate::limits::Unanswerable;
use crate::turns::{LifecycleError, StateCache};
use batch::{Batch, PendingReply};
use message::audit;

pub use copies::body_sha256;
pub use worker::{process_pending, worker};

/// The Message-ID a message is stored under: its own, or a digest of its bytes when it has none,
/// so that the same bytes delivered twice are still stored once.
pub fn storage_key(raw: &[u8]) -> String {
    match mail::inbound::message_id(raw) {
        Some(id) if !id.trim().is_empty() => id,
        _ => format!(
            "<sha256.{}@admiralty.invalid>",
            hex::encode(Sha256::digest(raw))
        ),
    }
}

/// What happened to one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ingested {
    Stored(inbox::InboundId),
    Duplicate(inbox::InboundId),
}

/// What processing inbound mail needs besides the database: Admiralty's addresses, and the
/// limits on what a sender can make it send or print. A domain alone stands for the default
/// limits (tests and tools); `gm` gives the configured ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Domain of Admiralty's addresses (`orders+TOKEN@domain`).
    pub domain: String,
    /// The site's public URL, for links in the mail a message causes.
    pub base_url: BaseUrl,
    /// `ADMIRALTY_MAIL_FROM`, when set: never answered, like Admiralty's own addresses.
    pub mail_from: Option<String>,
    pub limits: Limits,
    /// SPF, DKIM and DMARC are checked before processing when set (`ADMIRALTY_MAIL_AUTH`).
    pub mail_auth: Option<authenticate::MailAuthenticator>,
}

impl Settings {
    /// The addresses never answered.
    fn unanswerable(&self) -> Unanswerable {
        Unanswerable::new(REPLY_LOCAL_PART, &self.domain, self.mail_from.as_deref())
    }
}

impl From<&str> for Settings {
    fn from(domain: &str) -> Self {
        Settings {
            domain: domain.to_owned(),
            base_url: BaseUrl::local(),
            mail_from: None,
            limits: Limits::DEFAULT,
            mail_auth: None,
        }
    }
}

impl From<String> for Settings {
    fn from(domain: String) -> Self {
        Settings::from(domain.as_str())
    }
}

impl From<&Settings> for Settings {
    fn from(settings: &Settings) -> Self {
        settings.clone()
    }
}

/// Stores one raw message (the first thing done with any message), then processes the queue.
pub async fn ingest(
    pool: &PgPool,
    raw: &[u8],
    via: &str,
    now: DateTime<Utc>,
    settings: impl Into<Settings>,
) -> Result<Ingested, LifecycleError> {
    ingest_with_envelope(pool, raw, &[], via, now, settings).await
}

/// Stores one raw message as the doors do (once however often it is delivered), without
/// processing it.
pub async fn store(
    pool: &PgPool,
    raw: &[u8],
    envelope_recipients: &[String],
    via: &str,
    now: DateTime<Utc>,
) -> Result<Stored, store::StoreError> {
    let key = storage_key(raw);
    let body = body_sha256(raw);
    let message = inbox::NewInbound {
        message_id: &key,
        body_sha256: &body,
        raw,
        envelope_recipients,
        received_at: now,
        over_tls: None,
    };
    inbox::store_raw(pool, &message, via).await
}

/// [`ingest`], with the envelope recipients the door was given (a reply token found only
/// there authenticates the message too).
pub async fn ingest_with_envelope(
    pool: &PgPool,
    raw: &[u8],
    envelope_recipients: &[String],
    via: &str,
    now: DateTime<Utc>,
    settings: impl Into<Settings>,
) -> Result<Ingested, LifecycleError> {
    let stored = store(pool, raw, envelope_recipients, via, now).await?;
    process_pending(pool, &StateCache::default(), now, settings).await?;
    Ok(match stored {
        Stored::New(id) => Ingested::Stored(id),
        Stored::Duplicate(id) => Ingested::Duplicate(id),
    })
}

/// Replies (confirmations and refusals) one mailbox may get in an hour by default
/// (`ADMIRALTY_REPLIES_PER_HOUR`); more are not sent, so a misbehaving robot or a forged sender
/// cannot make Admiralty flood a mailbox. What the messages do is still done, and each
/// suppressed reply is audited. Refusals, domains and TELLs have budgets of their own
/// ([`Limits`]).
pub const REPLIES_PER_HOUR: i64 = Limits::DEFAULT.replies_per_hour as i64;
