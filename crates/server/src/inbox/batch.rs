//! A batch of stored messages claimed and processed in one transaction: their senders locked
//! together, what they share looked up once, and what they put off (press, replies) written
//! together.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use mail::Reading;
use store::PgPool;
use store::games::GameId;
use store::inbox::{self, Claimed};
use store::orders::NewPress;
use store::outbox::{AutoSubmitted, Headers};
use store::players::TokenHolder;
use store::status::Budget;
use store::subscribers::SendersLock;

use super::message::{Outcome, process};
use super::{Settings, budget, copies};
use crate::letters::{self, Letter, REPLY_LOCAL_PART};
use crate::outbox::post::Posting;
use crate::turns::{LifecycleError, OpenTurns, StateCache};

/// Messages one worker claims and processes in one transaction.
const BATCH: i64 = 32;

/// Processes every stored message not processed yet; returns how many. Open turns' states come
/// from `states`, read once per process.
pub async fn process_pending(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    settings: impl Into<super::Settings>,
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
        let done = batch
            .process_all(&mut tx, &claimed, &readings, careful, now, settings)
            .await?;
        let Some(outcomes) = done else {
            // Without savepoints (two statements a message saved), a failure leaves the batch
            // half done: undo all of it and run it again with them.
            tx.rollback().await?;
            careful = true;
            continue;
        };
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
pub(super) struct Batch {
    pub(super) senders: SendersLock,
    /// The player rows of each reply token of the batch, read once the senders were locked;
    /// emptied when a message changes player rows (a resignation), after which each message
    /// reads its own.
    pub(super) holders_by_token: HashMap<String, Vec<TokenHolder>>,
    pub(super) open_turns: OpenTurns,
    /// PRESS commands' press, saved together with the replies.
    pub(super) press: Vec<NewPress>,
    pub(super) replies: Vec<PendingReply>,
    /// The message being processed: what it queues is keyed by it (two messages may share a
    /// Message-ID).
    pub(super) current: Option<inbox::InboundId>,
    /// The messages acted on so far in this batch, for [`copies::earlier_copy`].
    pub(super) acted: Vec<copies::Acted>,
}

/// A reply waiting to be queued, with what its audit entry needs if a limit stops it.
pub(super) struct PendingReply {
    /// A confirmation, or a refusal (whose budget is tighter).
    pub(super) budget: Budget,
    pub(super) inbound_id: String,
    pub(super) game: Option<GameId>,
    pub(super) posting: Posting,
}

/// An answer to a message, for [`Batch::queue_reply`].
pub(super) struct Reply<'a> {
    /// `Budget::Reply` for a confirmation, `Budget::Refusal` for the answer to mail that
    /// proved no sender.
    pub(super) budget: Budget,
    pub(super) to: &'a str,
    /// The player whose personal address goes in Reply-To.
    pub(super) holder: Option<&'a TokenHolder>,
    pub(super) letter: Letter,
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

    /// Processes the claimed messages in order, each one's effects committing with its outcome;
    /// `careful`, each in a savepoint of its own. Returns `None` when, without savepoints, a
    /// message failed or what they put off could not be written: the batch must be undone.
    async fn process_all(
        &mut self,
        tx: &mut sqlx::PgConnection,
        claimed: &[Claimed],
        readings: &[Result<Reading, mail::MailError>],
        careful: bool,
        now: DateTime<Utc>,
        settings: &Settings,
    ) -> Result<Option<Vec<inbox::Outcome>>, LifecycleError> {
        let mut outcomes = Vec::with_capacity(claimed.len());
        for (message, reading) in claimed.iter().zip(readings) {
            let reading = reading.as_ref();
            self.current = Some(message.id);
            let outcome = if careful {
                self.process_in_savepoint(tx, message, reading, now, settings)
                    .await?
            } else {
                process(tx, self, message, reading, now, settings).await
            };
            outcomes.push(match outcome {
                Ok(outcome) => self.record(message, outcome),
                Err(_) if !careful => return Ok(None),
                Err(error) => inbox::Outcome::failed(message.id, error.to_string()),
            });
        }
        // Without savepoints, what the batch's messages put off is written together, here.
        if !careful && self.write_put_off(tx, now, settings).await.is_err() {
            return Ok(None);
        }
        Ok(Some(outcomes))
    }

    /// Processes one message in a savepoint, what it put off written inside it: a failure
    /// rolls back to it, and is returned to be recorded on the stored message.
    async fn process_in_savepoint(
        &mut self,
        tx: &mut sqlx::PgConnection,
        message: &Claimed,
        reading: Result<&Reading, &mail::MailError>,
        now: DateTime<Utc>,
        settings: &Settings,
    ) -> Result<Result<Outcome, LifecycleError>, LifecycleError> {
        let mut effects = sqlx::Acquire::begin(&mut *tx).await?;
        let mut outcome = process(&mut effects, self, message, reading, now, settings).await;
        if outcome.is_ok()
            && let Err(error) = self.write_put_off(&mut effects, now, settings).await
        {
            outcome = Err(error);
        }
        if outcome.is_ok() {
            effects.commit().await?;
        } else {
            effects.rollback().await?;
            // Locks taken inside the savepoint went with it, and so did what the message put
            // off.
            self.open_turns.forget();
            self.press.clear();
            self.replies.clear();
        }
        Ok(outcome)
    }

    /// What is recorded on a stored message processed without error.
    fn record(&mut self, message: &Claimed, outcome: Outcome) -> inbox::Outcome {
        match outcome {
            Outcome::Dropped(reason) => inbox::Outcome::dropped(message.id, reason),
            Outcome::Answered => inbox::Outcome::processed(message.id),
            Outcome::Acted { subscriber, text } => {
                self.acted.push(copies::Acted {
                    id: message.id,
                    subscriber,
                    text,
                    received_at: message.received_at,
                });
                inbox::Outcome::acted(message.id, subscriber, &text)
            }
        }
    }

    /// Puts the answer to a message with the batch's replies (see [`Batch::write_put_off`]):
    /// queued once however often the message is processed, and within its recipient's hourly
    /// budgets.
    pub(super) fn queue_reply(&mut self, reading: &Reading, reply: Reply<'_>, domain: &str) {
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
