//! The outbound mail worker: delivers queued messages through an SMTP relay with lettre, with
//! retries and exponential back-off. Each message's Message-ID was fixed when it was queued, so
//! a retry is the same message. With no relay configured, mail stays in the outbox for the GM
//! to read (the development default).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use chrono::{DateTime, Duration, Utc};
use lettre::address::Envelope;
use lettre::transport::smtp::PoolConfig;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use mail::Mailbox;
use mail::outbound::{AutoSubmitted, EncodedText, Outgoing};
use serde_json::Value;
use store::PgPool;
use store::outbox::{self, Leased};

/// How long a worker holds messages it is sending before others may retry them.
const LEASE: Duration = Duration::minutes(5);
/// Messages taken per round.
const BATCH: i64 = 500;
/// Messages sent at once, each over its own pooled SMTP connection.
const CONCURRENT_SENDS: usize = 16;
/// After this many temporary failures a message is given up as failed.
const MAX_ATTEMPTS: i32 = 10;

#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error(
        "ADMIRALTY_SMTP_URL is not a valid SMTP URL (smtp://host:port, smtps://…, ?tls=required): {0}"
    )]
    Url(lettre::transport::smtp::Error),
    #[error("the sender address {0:?} is not valid")]
    From(String),
}

/// Where mail goes: an SMTP relay, and the address it comes from.
#[derive(Clone)]
pub struct Relay {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl Relay {
    /// `url` as lettre reads it: `smtp://[user:pass@]host[:port][?tls=required|opportunistic]`
    /// or `smtps://…` for TLS from the start. `from` is `Name <address>` or a bare address.
    pub fn new(url: &str, from: &str) -> Result<Relay, RelayError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(RelayError::Url)?
            .pool_config(PoolConfig::new().max_size(u32::try_from(CONCURRENT_SENDS).unwrap_or(16)))
            .build();
        let from = parse_mailbox(from).ok_or_else(|| RelayError::From(from.to_owned()))?;
        Ok(Relay { transport, from })
    }
}

fn parse_mailbox(text: &str) -> Option<Mailbox> {
    let text = text.trim();
    match (text.rfind('<'), text.rfind('>')) {
        (Some(open), Some(close)) if open < close => Some(Mailbox {
            address: text.get(open + 1..close)?.trim().to_owned(),
            name: Some(text.get(..open)?.trim().trim_matches('"').to_owned())
                .filter(|n| !n.is_empty()),
        }),
        _ if text.contains('@') => Some(Mailbox {
            address: text.to_owned(),
            name: None,
        }),
        _ => None,
    }
}

/// What one round of delivery did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivered {
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
}

/// Sends every queued message that is due, once each. Each round leases a batch (committed at
/// once, so no transaction is open while sending), sends it over up to [`CONCURRENT_SENDS`]
/// pooled connections, then records the outcomes: the sent ones in one statement.
pub async fn deliver_due(
    pool: &PgPool,
    relay: &Relay,
    now: DateTime<Utc>,
) -> Result<Delivered, store::StoreError> {
    let mut done = Delivered::default();
    let mut bodies: HashMap<i64, Arc<Shared>> = HashMap::new();
    let permits = Arc::new(tokio::sync::Semaphore::new(CONCURRENT_SENDS));
    loop {
        let batch = outbox::lease_due(pool, now, now + LEASE, BATCH).await?;
        if batch.is_empty() {
            return Ok(done);
        }
        let mut missing: Vec<i64> = batch
            .iter()
            .filter_map(|m| m.shared_body_id)
            .filter(|id| !bodies.contains_key(id))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            for body in outbox::shared_bodies(pool, &missing).await? {
                // Encoded once here, not once per recipient.
                let encoded = EncodedText::new(body.body_text.clone());
                bodies.insert(body.id, Arc::new(Shared { body, encoded }));
            }
        }
        let mut sending = tokio::task::JoinSet::new();
        for message in batch {
            let shared = message
                .shared_body_id
                .and_then(|id| bodies.get(&id).cloned());
            let relay = relay.clone();
            let permits = permits.clone();
            sending.spawn(async move {
                let _permit = permits.acquire_owned().await;
                let outcome = send(&relay, &message, shared.as_deref()).await;
                (message, outcome)
            });
        }
        let mut sent = Vec::new();
        while let Some(joined) = sending.join_next().await {
            let Ok((message, outcome)) = joined else {
                // A send task that panicked: its message stays leased and is retried later.
                continue;
            };
            match outcome {
                Ok(()) => sent.push(message.id),
                Err(Failure::Permanent(error)) => {
                    outbox::mark_failed(pool, message.id, &error).await?;
                    done.failed += 1;
                }
                Err(Failure::Temporary(error)) if message.attempts + 1 >= MAX_ATTEMPTS => {
                    outbox::mark_failed(
                        pool,
                        message.id,
                        &format!("gave up after {MAX_ATTEMPTS} attempts: {error}"),
                    )
                    .await?;
                    done.failed += 1;
                }
                Err(Failure::Temporary(error)) => {
                    outbox::mark_retry(pool, message.id, &error, now + backoff(message.attempts))
                        .await?;
                    done.retrying += 1;
                }
            }
        }
        outbox::mark_sent_many(pool, &sent, now).await?;
        done.sent += sent.len();
    }
}

/// A shared body, with its text encoded for the wire once.
struct Shared {
    body: outbox::SharedBody,
    encoded: EncodedText,
}

/// 1 minute after the first failure, then doubling, at most 6 hours.
pub fn backoff(attempts_before: i32) -> Duration {
    let exponent = u32::try_from(attempts_before.clamp(0, 16)).unwrap_or(16);
    Duration::minutes(2i64.saturating_pow(exponent)).min(Duration::hours(6))
}

enum Failure {
    Temporary(String),
    Permanent(String),
}

async fn send(relay: &Relay, message: &Leased, shared: Option<&Shared>) -> Result<(), Failure> {
    if message.shared_body_id.is_some() && shared.is_none() {
        return Err(Failure::Permanent("its shared body is missing".into()));
    }
    // The shared text alone, plain text only: send it as it was encoded once.
    let encoded = shared
        .filter(|s| {
            message.body_text.is_empty()
                && message.body_html.is_none()
                && s.body.body_html.is_none()
        })
        .map(|s| &s.encoded);
    let header = |name: &str| {
        message
            .headers
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let outgoing = Outgoing {
        from: relay.from.clone(),
        to: Mailbox {
            address: message.to_address.clone(),
            name: None,
        },
        reply_to: header("Reply-To").and_then(|address| parse_mailbox(&address)),
        subject: message.subject.clone(),
        text: match (encoded, shared) {
            (Some(_), _) => String::new(),
            (None, Some(shared)) => format!("{}{}", shared.body.body_text, message.body_text),
            (None, None) => message.body_text.clone(),
        },
        html: message
            .body_html
            .clone()
            .or_else(|| shared.and_then(|s| s.body.body_html.clone())),
        message_id: message.message_id.clone(),
        date: SystemTime::from(message.created_at),
        in_reply_to: header("In-Reply-To").filter(|id| !id.is_empty()),
        references: Vec::new(),
        auto_submitted: match header("Auto-Submitted").as_deref() {
            Some("auto-replied") => AutoSubmitted::AutoReplied,
            _ => AutoSubmitted::AutoGenerated,
        },
    };
    let bytes = match encoded {
        Some(encoded) => mail::outbound::build_with_text(&outgoing, encoded),
        None => mail::outbound::build(&outgoing),
    }
    .map_err(|e| Failure::Permanent(e.to_string()))?;
    let envelope = Envelope::new(
        Some(
            relay
                .from
                .address
                .parse()
                .map_err(|e| Failure::Permanent(format!("sender: {e}")))?,
        ),
        vec![
            message
                .to_address
                .parse()
                .map_err(|e| Failure::Permanent(format!("recipient: {e}")))?,
        ],
    )
    .map_err(|e| Failure::Permanent(e.to_string()))?;
    relay
        .transport
        .send_raw(&envelope, &bytes)
        .await
        .map(|_| ())
        .map_err(|error| {
            if error.is_permanent() {
                Failure::Permanent(error.to_string())
            } else {
                Failure::Temporary(error.to_string())
            }
        })
}
