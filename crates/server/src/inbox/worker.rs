//! The inbox workers: claim a batch of stored messages, process each in turn (each one's
//! effects committing with its outcome), and record what came of them.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use mail::Reading;
use store::PgPool;
use store::inbox::{self, Claimed};
use tokio::sync::Notify;

use super::batch::{Batch, lock_senders};
use super::message::{Outcome, process};
use super::{Settings, copies};
use crate::clock::Clock;
use crate::letters::REPLY_LOCAL_PART;
use crate::measures::{self, InboundOutcome};
use crate::turns::{LifecycleError, StateCache};

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
        // Before the transaction: DNS may take its time box, and holds no lock meanwhile.
        if let Some(authenticator) = &settings.mail_auth {
            super::authenticate::check_pending(pool, authenticator, now).await?;
        }
        let mut tx = pool.begin().await?;
        let claimed = inbox::claim_batch(&mut tx, BATCH, settings.mail_auth.is_some()).await?;
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
        let Some((outcomes, measured)) = done else {
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
        measures::inbound_processed(&measured);
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

/// A batch's recorded outcomes, and each message's outcome and time for the metrics.
type Measured = (
    Vec<inbox::Outcome>,
    Vec<(InboundOutcome, std::time::Duration)>,
);

/// The metrics' name for what came of a message.
fn outcome_label(outcome: &Outcome, reading: Result<&Reading, &mail::MailError>) -> InboundOutcome {
    match outcome {
        Outcome::Dropped(_) => InboundOutcome::Dropped,
        Outcome::Answered => InboundOutcome::Refused,
        Outcome::Acted { .. } if reading.is_ok_and(|r| !r.commands.orders.is_empty()) => {
            InboundOutcome::Orders
        }
        Outcome::Acted { .. } => InboundOutcome::Command,
    }
}

/// What a worker does with a claimed batch's messages within the batch's transaction.
impl Batch {
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
    ) -> Result<Option<Measured>, LifecycleError> {
        let mut outcomes = Vec::with_capacity(claimed.len());
        let mut measured = Vec::with_capacity(claimed.len());
        for (message, reading) in claimed.iter().zip(readings) {
            let reading = reading.as_ref();
            self.current = Some(message.id);
            let started = std::time::Instant::now();
            let outcome = if careful {
                self.process_in_savepoint(tx, message, reading, now, settings)
                    .await?
            } else {
                process(tx, self, message, reading, now, settings).await
            };
            let label = match &outcome {
                Ok(outcome) => outcome_label(outcome, reading),
                Err(_) => InboundOutcome::Failed,
            };
            outcomes.push(match outcome {
                Ok(outcome) => self.record(message, outcome),
                Err(_) if !careful => return Ok(None),
                Err(error) => inbox::Outcome::failed(message.id, error.to_string()),
            });
            measured.push((label, started.elapsed()));
        }
        // Without savepoints, what the batch's messages put off is written together, here.
        if !careful && self.write_put_off(tx, now, settings).await.is_err() {
            return Ok(None);
        }
        Ok(Some((outcomes, measured)))
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
}
