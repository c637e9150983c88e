//! Orders by email: every inbound message is stored raw first, then processed in its own
//! transaction — authenticated by the personal reply token ([`identify`]), read with the `mail`
//! crate, acted on ([`act`], [`commands`]), and answered with a confirmation queued in the
//! outbox. A message delivered twice is stored once and acted on once; a message whose
//! processing fails keeps its error and can be run again (`gm inbox retry`).

mod act;
mod budget;
mod commands;
mod copies;
mod identify;
mod seat_offers;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use mail::{Delivery, Reading};
use sha2::{Digest, Sha256};
use store::PgPool;
use store::audit::AuditAction;
use store::games::GameId;
use store::inbox::{self, Claimed, Stored};
use store::orders::NewPress;
use store::outbox::{AutoSubmitted, Headers};
use store::players::TokenHolder;
use store::status::Budget;
use store::subscribers::SendersLock;
use tokio::sync::Notify;

use crate::clock::Clock;
use crate::config::{BaseUrl, Limits};
use crate::letters::{self, Letter, REPLY_LOCAL_PART};
use crate::limits::Unanswerable;
use crate::outbox::post::Posting;
use crate::turns::{LifecycleError, OpenTurns, StateCache};

pub use copies::body_sha256;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Domain of Admiralty's addresses (`orders+TOKEN@domain`).
    pub domain: String,
    /// The site's public URL, for links in the mail a message causes.
    pub base_url: BaseUrl,
    /// `ADMIRALTY_MAIL_FROM`, when set: never answered, like Admiralty's own addresses.
    pub mail_from: Option<String>,
    pub limits: Limits,
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

/// A worker of `gm serve`: processes the inbound queue whenever a door stores a message (or
/// every `poll` in case a wake-up was missed, e.g. a message stored by `gm ingest`). Several
/// run at once: each message is claimed by one of them. They share the process's `states`.
pub async fn worker(
    pool: PgPool,
    states: StateCache,
    clock: Arc<dyn Clock>,
    settings: impl Into<Settings>,
    stored: Arc<Notify>,
    poll: Duration,
) {
    let settings = settings.into();
    loop {
        match process_pending(&pool, &states, clock.now(), &settings).await {
            Ok(0) => {}
            Ok(count) => tracing::debug!(count, "inbound messages processed"),
            Err(error) => tracing::error!(%error, "processing inbound mail failed; will retry"),
        }
        // A wake-up that came while processing is kept by Notify, so nothing waits a full poll.
        let _ = tokio::time::timeout(poll, stored.notified()).await;
    }
}

/// Messages one worker claims and processes in one transaction.
const BATCH: i64 = 32;

/// Processes every stored message not processed yet; returns how many. Open turns' states come
/// from `states`, read once per process.
pub async fn process_pending(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    settings: impl Into<Settings>,
) -> Result<usize, LifecycleError> {
    let settings = &settings.into();
    let mut count = 0;
    // Whether each message of the next batch gets its own savepoint (after a failure).
    let mut careful = false;
    loop {
        let mut tx = pool.begin().await?;
        let claimed = inbox::claim_batch(&mut tx, BATCH).await?;
        if claimed.is_empty() {
            return Ok(count);
        }
        // Each message was stored with a durable commit before anyone was told so; this
        // transaction only records what was done with them (see the store's note).
        inbox::commit_without_flush(&mut tx).await?;
        let readings: Vec<_> = claimed.iter().map(read).collect();
        let senders = lock_senders(&mut tx, &readings).await?;
        let mut batch = Batch::look_up(&mut tx, states, senders, &readings).await?;
        let mut outcomes = Vec::with_capacity(claimed.len());
        for (message, reading) in claimed.iter().zip(&readings) {
            let reading = reading.as_ref();
            batch.current = Some(message.id);
            // A message's effects and its outcome commit together, so a crash never leaves a
            // message acted on but still queued.
            let outcome = if careful {
                // Each message in a savepoint, what it put off written inside it: a failure
                // rolls back to it and records the error on the stored message instead.
                let mut effects = sqlx::Acquire::begin(&mut *tx).await?;
                let mut outcome =
                    process(&mut effects, &mut batch, message, reading, now, settings).await;
                if outcome.is_ok()
                    && let Err(error) = batch.write_put_off(&mut effects, now, settings).await
                {
                    outcome = Err(error);
                }
                if outcome.is_ok() {
                    effects.commit().await?;
                } else {
                    effects.rollback().await?;
                    // Locks taken inside the savepoint went with it, and so did what the
                    // message put off.
                    batch.open_turns.forget();
                    batch.press.clear();
                    batch.replies.clear();
                }
                outcome
            } else {
                process(&mut tx, &mut batch, message, reading, now, settings).await
            };
            outcomes.push(match outcome {
                Ok(Outcome::Dropped(reason)) => inbox::Outcome::dropped(message.id, reason),
                Ok(Outcome::Answered) => inbox::Outcome::processed(message.id),
                Ok(Outcome::Acted { subscriber, text }) => {
                    batch.acted.push(copies::Acted {
                        id: message.id,
                        subscriber,
                        text,
                        received_at: message.received_at,
                    });
                    inbox::Outcome::acted(message.id, subscriber, &text)
                }
                Err(_) if !careful => break,
                Err(error) => inbox::Outcome::failed(message.id, error.to_string()),
            });
        }
        // Without savepoints, what the batch's messages put off is written together, here.
        let queued = if outcomes.len() == claimed.len() && !careful {
            batch.write_put_off(&mut tx, now, settings).await
        } else {
            Ok(())
        };
        if outcomes.len() < claimed.len() || queued.is_err() {
            // Without savepoints (two statements a message saved), a failure leaves the batch
            // half done: undo all of it and run it again with them.
            tx.rollback().await?;
            careful = true;
            continue;
        }
        careful = false;
        count += claimed.len();
        inbox::finish_many(&mut *tx, &outcomes, now).await?;
        crate::fault::point("inbox_before_commit").await;
        tx.commit().await?;
    }
}

/// Reads a stored message; a reply token in the envelope counts when the headers carry none
/// (a Bcc, or a forwarding rule, delivers to `orders+TOKEN@` with `To:` someone else).
fn read(claimed: &Claimed) -> Result<Reading, mail::MailError> {
    let mut reading = mail::read(&claimed.raw, REPLY_LOCAL_PART)?;
    if reading.token.is_none() {
        reading.token = mail::reply_token(
            claimed.envelope_recipients.iter().map(String::as_str),
            REPLY_LOCAL_PART,
        );
    }
    Ok(reading)
}

/// What the messages of one batch share within its transaction: the locks of their senders,
/// what was looked up for all of them at once, and the replies waiting to be queued together.
struct Batch {
    senders: SendersLock,
    /// The player rows of each reply token of the batch, read once the senders were locked;
    /// emptied when a message changes player rows (a resignation), after which each message
    /// reads its own.
    holders_by_token: HashMap<String, Vec<TokenHolder>>,
    open_turns: OpenTurns,
    /// PRESS commands' press, saved together with the replies.
    press: Vec<NewPress>,
    replies: Vec<PendingReply>,
    /// The message being processed: what it queues is keyed by it (two messages may share a
    /// Message-ID).
    current: Option<inbox::InboundId>,
    /// The messages acted on so far in this batch, for [`copies::earlier_copy`].
    acted: Vec<copies::Acted>,
}

/// A reply waiting to be queued, with what its audit entry needs if a limit stops it.
struct PendingReply {
    /// A confirmation, or a refusal (whose budget is tighter).
    budget: Budget,
    inbound_id: String,
    game: Option<GameId>,
    posting: Posting,
}

/// An answer to a message, for [`Batch::queue_reply`].
struct Reply<'a> {
    /// `Budget::Reply` for a confirmation, `Budget::Refusal` for the answer to mail that
    /// proved no sender.
    budget: Budget,
    to: &'a str,
    /// The player whose personal address goes in Reply-To.
    holder: Option<&'a TokenHolder>,
    letter: Letter,
}

impl Batch {
    /// Reads, for every message written to a reply address, the token's player rows, and
    /// share-locks the open turns of the games those addresses are for.
    async fn look_up(
        tx: &mut sqlx::PgConnection,
        states: &StateCache,
        senders: SendersLock,
        readings: &[Result<Reading, mail::MailError>],
    ) -> Result<Batch, LifecycleError> {
        let tokens: Vec<String> = readings
            .iter()
            .filter_map(|reading| reading.as_ref().ok()?.token.as_ref())
            .map(|token| token.as_str().to_owned())
            .collect();
        let mut holders_by_token = HashMap::new();
        let mut games = Vec::new();
        for (token, holders) in store::players::player_rows_of_tokens(&mut *tx, &tokens).await? {
            games.extend(
                holders
                    .iter()
                    .filter(|holder| holder.reply_token == token)
                    .map(|holder| holder.game_id),
            );
            holders_by_token.insert(token, holders);
        }
        let mut open_turns = OpenTurns::new(states.clone());
        open_turns.fetch(&mut *tx, &games).await?;
        Ok(Batch {
            senders,
            holders_by_token,
            open_turns,
            press: Vec::new(),
            replies: Vec::new(),
            current: None,
            acted: Vec::new(),
        })
    }

    /// Puts the answer to a message with the batch's replies (see [`Batch::write_put_off`]):
    /// queued once however often the message is processed, and within its recipient's hourly
    /// budgets.
    fn queue_reply(&mut self, reading: &Reading, reply: Reply<'_>, domain: &str) {
        let inbound_id = reading.mail.message_id.clone().unwrap_or_default();
        let headers = Headers {
            reply_to: reply
                .holder
                .map(|holder| letters::reply_address(&holder.reply_token, domain)),
            in_reply_to: Some(inbound_id.clone()),
            auto_submitted: Some(AutoSubmitted::AutoReplied),
        };
        let posting = Posting::once(
            "reply",
            &format!("{}|{}", self.message_key(reading), reply.to),
            domain,
            reply.to,
            reply.letter,
        )
        .with_headers(headers);
        self.replies.push(PendingReply {
            budget: reply.budget,
            inbound_id,
            game: reply.holder.map(|h| h.game_id),
            posting,
        });
    }

    /// What names the message being processed in the keys of what it queues: its Message-ID
    /// and its row.
    pub(super) fn message_key(&self, reading: &Reading) -> String {
        let message_id = reading.mail.message_id.as_deref().unwrap_or_default();
        match self.current {
            Some(id) => format!("{message_id}#{}", id),
            None => message_id.to_owned(),
        }
    }

    /// Writes what the messages put off: saves their press, and queues their replies within
    /// their recipients' budgets, auditing each reply that a limit stops.
    async fn write_put_off(
        &mut self,
        tx: &mut sqlx::PgConnection,
        now: DateTime<Utc>,
        settings: &Settings,
    ) -> Result<(), LifecycleError> {
        let mut press = std::mem::take(&mut self.press);
        press.retain(|p| self.open_turns.press_stands(p));
        store::orders::save_press_many(&mut *tx, &press).await?;
        let replies = std::mem::take(&mut self.replies);
        budget::queue_replies(tx, &replies, settings, now).await
    }
}

/// Locks every subscriber the batch's messages may act for (by reply token or From address),
/// all at once and in order: another worker's batch with a message from the same player waits
/// for this one, so a player's messages are still acted on one after the other, while
/// different players' messages go in parallel.
async fn lock_senders(
    tx: &mut sqlx::PgConnection,
    readings: &[Result<Reading, mail::MailError>],
) -> Result<SendersLock, LifecycleError> {
    let readable = readings.iter().filter_map(|reading| reading.as_ref().ok());
    let tokens: Vec<String> = readable
        .clone()
        .filter_map(|reading| reading.token.as_ref().map(|t| t.as_str().to_owned()))
        .collect();
    let emails: Vec<String> = readable
        .filter_map(|reading| reading.mail.from.as_ref())
        .map(|from| from.address.to_lowercase())
        .collect();
    Ok(store::subscribers::lock_senders(tx, &tokens, &emails).await?)
}

enum Outcome {
    /// Nothing sent: a loop or bulk mail, or unreadable. The reason is kept.
    Dropped(String),
    /// Answered, nothing acted on (mail that proved no sender).
    Answered,
    /// Acted on for a subscriber, who wrote this text (its SHA-256).
    Acted {
        subscriber: store::subscribers::SubscriberId,
        text: [u8; 32],
    },
}

async fn process(
    tx: &mut sqlx::PgConnection,
    batch: &mut Batch,
    claimed: &Claimed,
    reading: Result<&Reading, &mail::MailError>,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Result<Outcome, LifecycleError> {
    let domain = settings.domain.as_str();
    let reading = match reading {
        Ok(reading) => reading,
        Err(error) => return Ok(Outcome::Dropped(format!("unreadable: {error}"))),
    };
    if let Delivery::Automated(reason) = &reading.delivery {
        audit(
            tx,
            None,
            AuditAction::InboundDrop {
                message_id: reading.mail.message_id.clone(),
                reason: reason.to_string(),
            },
            now,
        )
        .await?;
        return Ok(Outcome::Dropped(reason.to_string()));
    }
    let Some(from) = reading.mail.from.as_ref().map(|m| m.address.clone()) else {
        return Ok(Outcome::Dropped("no From address to answer".into()));
    };
    let sender = match identify::identify(tx, batch, reading, &from, now, domain).await? {
        Ok(sender) => sender,
        Err(why) => {
            // Mail that proves no sender and claims to come from Admiralty itself, or from a
            // mail system, is a forgery or a loop: it is not answered at all.
            if mail::address::MailboxKey::parse(&from)
                .is_none_or(|key| settings.unanswerable().contains(&key))
            {
                let reason = format!("proves no sender, and {from} is never answered");
                audit(
                    tx,
                    None,
                    AuditAction::InboundDrop {
                        message_id: reading.mail.message_id.clone(),
                        reason: reason.clone(),
                    },
                    now,
                )
                .await?;
                return Ok(Outcome::Dropped(reason));
            }
            // A From: header alone authorises nothing: say briefly how to authenticate.
            let reply = Reply {
                budget: Budget::Refusal,
                to: &from,
                holder: None,
                letter: letters::replies::refusal(&why, domain),
            };
            batch.queue_reply(reading, reply, domain);
            return Ok(Outcome::Answered);
        }
    };
    let text = copies::text_sha256(reading);
    let copy_of = if copies::would_repeat(reading) {
        copies::earlier_copy(
            tx,
            batch,
            claimed.id,
            sender.subscriber,
            &text,
            claimed.received_at,
        )
        .await?
    } else {
        None
    };
    if let Some((earlier, _)) = copy_of {
        audit(
            tx,
            sender.default.as_ref().map(|h| h.game_id),
            AuditAction::InboundCopy {
                message_id: reading.mail.message_id.clone(),
                copy_of: earlier,
                subscriber: sender.subscriber,
            },
            now,
        )
        .await?;
    }
    let letter = act::act(
        tx,
        batch,
        reading,
        &sender,
        act::Arrival {
            received: claimed.received_at,
            copy_of: copy_of.map(|(_, at)| at),
        },
        now,
        settings,
    )
    .await?;
    // After UNSUBSCRIBE the personal addresses are dead: the answer carries none.
    let unsubscribed = reading
        .commands
        .any(|command| matches!(command, mail::commands::Command::Unsubscribe));
    let reply = Reply {
        budget: Budget::Reply,
        to: &sender.email,
        holder: (!unsubscribed)
            .then(|| sender.default.as_ref().or(sender.games.first()))
            .flatten(),
        letter,
    };
    batch.queue_reply(reading, reply, domain);
    Ok(Outcome::Acted {
        subscriber: sender.subscriber,
        text,
    })
}

/// Audits what mail did, as the actor `mail`.
async fn audit(
    tx: &mut sqlx::PgConnection,
    game: Option<GameId>,
    action: AuditAction,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "mail",
            game,
            action,
        },
        now,
    )
    .await?;
    Ok(())
}
