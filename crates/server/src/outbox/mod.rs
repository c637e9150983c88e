//! The outbound mail worker: delivers queued messages through an SMTP relay with lettre, with
//! retries and exponential back-off. Each message's Message-ID was fixed when it was queued, so
//! a retry is the same message. With no relay configured, mail stays in the outbox for the GM
//! to read (the development default).
//!
//! The connections are our own, not lettre's pool: lettre never sets TCP_NODELAY, and it writes
//! a message's closing `.` as a separate small segment, which Nagle's algorithm then holds back
//! until the relay's delayed ACK (~40 ms per message). Ours set TCP_NODELAY and otherwise do
//! what lettre's transport does (STARTTLS, implicit TLS, AUTH), through lettre's connection.

pub mod post;
mod relay;
#[cfg(test)]
mod tests;
mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use lettre::Address;
use lettre::transport::smtp::client::AsyncSmtpConnection;
use mail::outbound::EncodedText;
use store::PgPool;
use store::outbox::{self, Leased, SharedBodyId};

use relay::SEND_TIMEOUT;
pub use relay::{Relay, RelayError};
use wire::{message_bytes, transact};

/// How long a worker holds messages it is sending before others may retry them.
const LEASE: Duration = Duration::minutes(5);
/// Messages taken per round.
const BATCH: i64 = 500;
/// Messages sent at once, each sender over its own SMTP connection.
const CONCURRENT_SENDS: usize = 16;
/// After this many temporary failures a message is given up as failed.
const MAX_ATTEMPTS: i32 = 10;

/// What one round of delivery did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Messages delivered, one per recipient.
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
    /// SMTP transactions attempted: a report goes to up to [`MAX_RECIPIENTS`] subscribers in one.
    pub transactions: usize,
}

/// Recipients of one report per SMTP transaction, the number RFC 5321 (4.5.3.1.8) obliges
/// every server to accept. A relay that takes fewer answers 452 to the rest, which are retried.
const MAX_RECIPIENTS: usize = 100;

/// Sends every queued message that is due, once each. Each round leases a batch (committed at
/// once, so no transaction is open while sending), sends it with up to [`CONCURRENT_SENDS`]
/// senders, each keeping one connection for transaction after transaction, then records the
/// outcomes: the sent ones in one statement. The copies of a report go out as one message to
/// many recipients (see [`Transaction`]); everything else one message to one recipient.
pub async fn deliver_due(
    pool: &PgPool,
    relay: &Relay,
    now: DateTime<Utc>,
) -> Result<Delivered, store::StoreError> {
    relay.server.close_stale().await;
    let mut done = Delivered::default();
    let mut bodies: HashMap<SharedBodyId, Arc<Shared>> = HashMap::new();
    loop {
        let batch = outbox::lease_due(pool, now, now + LEASE, BATCH).await?;
        if batch.is_empty() {
            return Ok(done);
        }
        let batch = skip_suspended(pool, batch, &mut done).await?;
        if batch.is_empty() {
            continue;
        }
        read_shared_bodies(pool, &batch, &mut bodies).await?;
        let transactions = Transaction::group(batch, &bodies);
        done.transactions += transactions.len();
        let (mut sending, mut received) = start_senders(relay, transactions);
        let mut sent = Vec::new();
        while let Some((messages, results)) = received.recv().await {
            for (message, outcome) in messages.iter().zip(results) {
                match outcome {
                    Ok(()) => sent.push(message.id),
                    Err(failure) => record_failure(pool, message, failure, now, &mut done).await?,
                }
            }
        }
        while sending.join_next().await.is_some() {}
        outbox::mark_sent_many(pool, &sent, now).await?;
        crate::measures::outbox_delivered(sent.len());
        done.sent += sent.len();
    }
}

/// Messages to an address whose delivery is suspended after bounces (crate::bounces) are
/// not sent: each is marked failed with the reason, without a notice (the GM was told once,
/// when the address was suspended). The rest are returned.
async fn skip_suspended(
    pool: &PgPool,
    batch: Vec<Leased>,
    done: &mut Delivered,
) -> Result<Vec<Leased>, store::StoreError> {
    let addresses: Vec<String> = batch.iter().map(|m| m.to_address.clone()).collect();
    let suspended = store::bounces::suspended_among(pool, &addresses).await?;
    if suspended.is_empty() {
        return Ok(batch);
    }
    let (skipped, kept): (Vec<Leased>, Vec<Leased>) = batch
        .into_iter()
        .partition(|m| suspended.contains(&m.to_address.to_lowercase()));
    for message in &skipped {
        outbox::mark_failed(pool, message.id, crate::bounces::SUSPENDED_ERROR).await?;
    }
    done.failed += skipped.len();
    Ok(kept)
}

/// Reads the shared bodies the batch's messages use that are not read yet, each encoded once
/// here, not once per recipient.
async fn read_shared_bodies(
    pool: &PgPool,
    batch: &[Leased],
    bodies: &mut HashMap<SharedBodyId, Arc<Shared>>,
) -> Result<(), store::StoreError> {
    let mut missing: Vec<SharedBodyId> = batch
        .iter()
        .filter_map(|m| m.shared_body_id)
        .filter(|id| !bodies.contains_key(id))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    if missing.is_empty() {
        return Ok(());
    }
    for body in outbox::shared_bodies(pool, &missing).await? {
        let encoded = EncodedText::new(body.body_text.clone());
        let encoded_html = body.body_html.clone().map(EncodedText::new);
        bodies.insert(
            body.id,
            Arc::new(Shared {
                body,
                encoded,
                encoded_html,
            }),
        );
    }
    Ok(())
}

/// The outcomes of one SMTP transaction: its messages, each with how its sending went.
type Outcomes = (Vec<Leased>, Vec<Result<(), Failure>>);

/// Starts up to [`CONCURRENT_SENDS`] senders taking the transactions in turn, each keeping
/// one connection from transaction to transaction. Each outcome is reported as soon as it is
/// known, so a sender that panicked loses only the transaction it was sending (its messages
/// stay leased and are retried later).
fn start_senders(
    relay: &Relay,
    transactions: Vec<Transaction>,
) -> (
    tokio::task::JoinSet<()>,
    tokio::sync::mpsc::UnboundedReceiver<Outcomes>,
) {
    let senders = transactions.len().min(CONCURRENT_SENDS);
    let queue = Arc::new(Mutex::new(transactions.into_iter()));
    let (outcomes, received) = tokio::sync::mpsc::unbounded_channel();
    let mut sending = tokio::task::JoinSet::new();
    for _ in 0..senders {
        let (relay, queue, outcomes) = (relay.clone(), queue.clone(), outcomes.clone());
        sending.spawn(async move {
            let mut connection = None;
            while let Some(transaction) = queue.lock().ok().and_then(|mut q| q.next()) {
                let results = send(&relay, &mut connection, &transaction).await;
                if outcomes.send((transaction.messages, results)).is_err() {
                    break;
                }
            }
            if let Some(connection) = connection {
                relay.server.put_back(connection);
            }
        });
    }
    (sending, received)
}

/// Marks a message failed for good and, in the same transaction, records it for the GM's
/// digest (unless it is a digest itself).
async fn given_up(
    pool: &PgPool,
    message: &Leased,
    error: &str,
    now: DateTime<Utc>,
) -> Result<(), store::StoreError> {
    let mut tx = pool.begin().await?;
    outbox::mark_failed(&mut *tx, message.id, error).await?;
    if !crate::letters::digest::is_digest(&message.message_id) {
        let summary = format!(
            "Mail to {} could not be delivered: \"{}\" ({error}).",
            message.to_address, message.subject
        );
        let notice = store::notices::NewNotice {
            kind: store::status::NoticeKind::MailFailed,
            game: None,
            summary: &summary,
            link: "/gm/outbox?status=failed",
        };
        store::notices::record(&mut *tx, &notice, now).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Records a message that was not sent: failed for good, or to be tried again later (until
/// [`MAX_ATTEMPTS`]).
async fn record_failure(
    pool: &PgPool,
    message: &Leased,
    failure: Failure,
    now: DateTime<Utc>,
    done: &mut Delivered,
) -> Result<(), store::StoreError> {
    use crate::measures::{DeliveryFailure, outbox_failed};
    match failure {
        Failure::Permanent(error) => {
            given_up(pool, message, &error, now).await?;
            outbox_failed(DeliveryFailure::Permanent);
            done.failed += 1;
        }
        Failure::Temporary(error) if message.attempts + 1 >= MAX_ATTEMPTS => {
            let error = format!("gave up after {MAX_ATTEMPTS} attempts: {error}");
            given_up(pool, message, &error, now).await?;
            outbox_failed(DeliveryFailure::Exhausted);
            done.failed += 1;
        }
        Failure::Temporary(error) => {
            let retry_at = now + backoff(message.attempts);
            outbox::mark_retry(pool, message.id, &error, retry_at).await?;
            outbox_failed(DeliveryFailure::Temporary);
            done.retrying += 1;
        }
    }
    Ok(())
}

/// A shared body, with its text (and HTML, if any: a zine's issue) encoded for the wire once.
struct Shared {
    body: outbox::SharedBody,
    encoded: EncodedText,
    encoded_html: Option<EncodedText>,
}

/// One message and the queued rows it delivers, in one SMTP transaction.
///
/// A row with a shared body and nothing of its own (no text, no HTML, no headers: a turn's
/// report to a subscriber) is a copy of a circular, like a mailing list's post: every copy is
/// the same message (the same Message-ID, `To:` Admiralty's own sending address, the subscribers in the
/// envelope only, so none sees another's address), and up to [`MAX_RECIPIENTS`] copies go out
/// in one transaction, as list servers send. A 870 KB report to 10,000 subscribers is then
/// 100 transfers, not 10,000. Any other row is a message of its own to its one recipient.
struct Transaction {
    messages: Vec<Leased>,
    shared: Option<Arc<Shared>>,
}

impl Transaction {
    fn group(batch: Vec<Leased>, bodies: &HashMap<SharedBodyId, Arc<Shared>>) -> Vec<Transaction> {
        let mut transactions: Vec<Transaction> = Vec::new();
        // The open transaction of each circular: (body, Message-ID, subject) -> index.
        let mut open: HashMap<(SharedBodyId, String, String), usize> = HashMap::new();
        for message in batch {
            let shared = message
                .shared_body_id
                .and_then(|id| bodies.get(&id).cloned());
            let key = match (is_circular_copy(&message), message.shared_body_id) {
                (true, Some(body)) => {
                    Some((body, message.message_id.clone(), message.subject.clone()))
                }
                _ => None,
            };
            let joined = key
                .as_ref()
                .and_then(|key| open.get(key))
                .and_then(|&index| transactions.get_mut(index))
                .filter(|t| t.messages.len() < MAX_RECIPIENTS);
            match joined {
                Some(transaction) => transaction.messages.push(message),
                None => {
                    if let Some(key) = key {
                        open.insert(key, transactions.len());
                    }
                    transactions.push(Transaction {
                        messages: vec![message],
                        shared,
                    });
                }
            }
        }
        transactions
    }
}

/// See [`Transaction`].
fn is_circular_copy(message: &Leased) -> bool {
    message.shared_body_id.is_some()
        && message.body_text.is_empty()
        && message.body_html.is_none()
        && message.headers.is_empty()
}

/// 1 minute after the first failure, then doubling, at most 6 hours.
pub fn backoff(attempts_before: i32) -> Duration {
    let exponent = u32::try_from(attempts_before.clamp(0, 16)).unwrap_or(16);
    Duration::minutes(2i64.saturating_pow(exponent)).min(Duration::hours(6))
}

#[derive(Debug, Clone)]
enum Failure {
    Temporary(String),
    Permanent(String),
}

/// A relay's error, permanent (5xx) or not.
fn classify(error: lettre::transport::smtp::Error) -> Failure {
    if error.is_permanent() {
        Failure::Permanent(error.to_string())
    } else {
        Failure::Temporary(error.to_string())
    }
}

/// Sends one transaction over `connection`, opening one first when there is none; the outcome
/// for each of its messages, in order. A connection that failed is dropped (after QUIT), so
/// the next transaction opens a new one.
async fn send(
    relay: &Relay,
    connection: &mut Option<AsyncSmtpConnection>,
    transaction: &Transaction,
) -> Vec<Result<(), Failure>> {
    let all = |failure: Failure| vec![Err(failure); transaction.messages.len()];
    let Some(first) = transaction.messages.first() else {
        return Vec::new();
    };
    let bytes = match message_bytes(relay, first, transaction.shared.as_deref()) {
        Ok(bytes) => bytes,
        Err(failure) => return all(failure),
    };
    // A recipient the relay could never take fails alone.
    let recipients: Vec<Result<Address, Failure>> = transaction
        .messages
        .iter()
        .map(|m| {
            m.to_address
                .parse()
                .map_err(|e| Failure::Permanent(format!("recipient: {e}")))
        })
        .collect();
    let valid: Vec<Address> = recipients.iter().flatten().cloned().collect();
    if valid.is_empty() {
        return recipients.into_iter().map(|r| r.map(drop)).collect();
    }
    let mut open = match connection.take() {
        Some(open) if !open.has_broken() => open,
        _ => match relay.server.connection().await {
            Ok(open) => open,
            Err(failure) => return all(failure),
        },
    };
    let outcomes = match tokio::time::timeout(
        SEND_TIMEOUT,
        // One return path per transaction: a circular's copies share it, and the DSN's
        // recipient says which of them failed.
        transact(&mut open, &relay.envelope_sender(first.id), &valid, &bytes),
    )
    .await
    {
        Ok(outcomes) => outcomes,
        Err(_) => {
            return all(Failure::Temporary(format!(
                "the relay took over {} s to take the message",
                SEND_TIMEOUT.as_secs()
            )));
        }
    };
    if !open.has_broken() {
        *connection = Some(open);
    }
    let mut outcomes = outcomes.into_iter();
    recipients
        .into_iter()
        .map(|recipient| match recipient {
            Ok(_) => outcomes
                .next()
                .unwrap_or_else(|| Err(Failure::Temporary("the relay gave no answer".into()))),
            Err(failure) => Err(failure),
        })
        .collect()
}
