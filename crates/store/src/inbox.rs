//! Inbound mail: every message is stored, raw, before anything else is done with it, keyed by
//! its Message-ID so a message delivered twice is stored once.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::status::InboundStatus;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, sqlx::Type,
)]
#[sqlx(transparent)]
pub struct InboundId(pub i64);

/// What storing a message did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New(InboundId),
    /// A message with this Message-ID was stored before: this delivery has no effect.
    Duplicate(InboundId),
}

pub async fn store_raw<'e>(
    db: impl PgExecutor<'e> + Copy,
    message_id: &str,
    raw: &[u8],
    via: &str,
    now: DateTime<Utc>,
) -> Result<Stored, StoreError> {
    let inserted: Option<i64> = sqlx::query_scalar(
        "INSERT INTO inbound_messages (message_id, raw, received_via, received_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (message_id) DO NOTHING RETURNING id",
    )
    .bind(message_id)
    .bind(raw)
    .bind(via)
    .bind(now)
    .fetch_optional(db)
    .await?;
    if let Some(id) = inserted {
        return Ok(Stored::New(InboundId(id)));
    }
    let id: i64 = sqlx::query_scalar("SELECT id FROM inbound_messages WHERE message_id = $1")
        .bind(message_id)
        .fetch_one(db)
        .await?;
    Ok(Stored::Duplicate(InboundId(id)))
}

/// A message to store with [`store_many`].
#[derive(Debug, Clone, Copy)]
pub struct NewInbound<'a> {
    /// The key a message delivered twice is stored once under (its Message-ID).
    pub message_id: &'a str,
    pub raw: &'a [u8],
    pub received_at: DateTime<Utc>,
}

/// Stores many messages in one statement (so one commit), each unless a message with its
/// Message-ID is stored already, this call's included: [`store_raw`] for a group of messages
/// that arrived together. Either every message is stored, or none.
pub async fn store_many<'e>(
    db: impl PgExecutor<'e>,
    messages: &[NewInbound<'_>],
    via: &str,
) -> Result<(), StoreError> {
    let ids: Vec<&str> = messages.iter().map(|m| m.message_id).collect();
    let raws: Vec<&[u8]> = messages.iter().map(|m| m.raw).collect();
    let times: Vec<DateTime<Utc>> = messages.iter().map(|m| m.received_at).collect();
    sqlx::query(
        "INSERT INTO inbound_messages (message_id, raw, received_via, received_at) \
         SELECT m.message_id, m.raw, $3, m.received_at \
         FROM unnest($1::text[], $2::bytea[], $4::timestamptz[]) WITH ORDINALITY AS m(message_id, raw, received_at, n) \
         ORDER BY m.n ON CONFLICT (message_id) DO NOTHING",
    )
    .bind(ids)
    .bind(raws)
    .bind(via)
    .bind(times)
    .execute(db)
    .await?;
    Ok(())
}

/// A stored message waiting to be processed, locked for this transaction.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Claimed {
    pub id: InboundId,
    pub raw: Vec<u8>,
    pub attempts: i32,
    /// When the message arrived: orders count as of then, not as of processing.
    pub received_at: DateTime<Utc>,
}

/// This transaction records what was done with messages that were stored durably before
/// anyone was told so: if a crash loses it, they are still `new` and are processed again with
/// the same effects. So it need not wait for its own disk flush, which is what bounds how many
/// messages a second a worker gets through.
pub async fn commit_without_flush(tx: &mut sqlx::PgConnection) -> Result<(), StoreError> {
    sqlx::query("SET LOCAL synchronous_commit = off")
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Claims up to `limit` stored messages waiting to be processed, oldest first, locked for this
/// transaction (other workers skip them).
pub async fn claim_batch(
    tx: &mut sqlx::PgConnection,
    limit: i64,
) -> Result<Vec<Claimed>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, raw, attempts, received_at FROM inbound_messages WHERE status = 'new' \
         ORDER BY received_at, id LIMIT $1 FOR UPDATE SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(&mut *tx)
    .await?)
}

/// How processing one message ended, for [`finish_many`].
#[derive(Debug, Clone)]
pub struct Outcome {
    id: InboundId,
    status: InboundStatus,
    error: Option<String>,
}

impl Outcome {
    /// Acted on and answered.
    pub fn processed(id: InboundId) -> Outcome {
        Outcome {
            id,
            status: InboundStatus::Processed,
            error: None,
        }
    }

    /// Not acted on (a loop, bulk mail, unreadable), with the reason.
    pub fn dropped(id: InboundId, reason: String) -> Outcome {
        Outcome {
            id,
            status: InboundStatus::Dropped,
            error: Some(reason),
        }
    }

    /// Processing failed, with the error.
    pub fn failed(id: InboundId, error: String) -> Outcome {
        Outcome {
            id,
            status: InboundStatus::Failed,
            error: Some(error),
        }
    }
}

/// Records how processing ended for a batch of messages, in one statement: `processed`,
/// `dropped` (a loop or bulk mail, with the reason), or `failed` (with the error; `gm inbox
/// retry` runs it again).
pub async fn finish_many<'e>(
    db: impl PgExecutor<'e>,
    outcomes: &[Outcome],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let ids: Vec<i64> = outcomes.iter().map(|o| o.id.0).collect();
    let statuses: Vec<&str> = outcomes.iter().map(|o| o.status.as_str()).collect();
    let errors: Vec<Option<&str>> = outcomes.iter().map(|o| o.error.as_deref()).collect();
    sqlx::query(
        "UPDATE inbound_messages m SET status = o.status, error = o.error, \
                attempts = m.attempts + 1, processed_at = $4 \
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS o(id, status, error) WHERE m.id = o.id",
    )
    .bind(ids)
    .bind(statuses)
    .bind(errors)
    .bind(now)
    .execute(db)
    .await?;
    Ok(())
}

/// Puts every failed message back in the queue; returns how many.
pub async fn retry_failed<'e>(db: impl PgExecutor<'e>) -> Result<u64, StoreError> {
    Ok(sqlx::query(
        "UPDATE inbound_messages SET status = 'new', processed_at = NULL WHERE status = 'failed'",
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// A stored inbound message as the GM's console lists it (without the raw bytes).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct InboundSummary {
    pub id: InboundId,
    pub message_id: String,
    pub received_via: String,
    pub received_at: DateTime<Utc>,
    pub status: InboundStatus,
    pub error: Option<String>,
    pub attempts: i32,
    /// The first 500 bytes, lossily decoded, to recognise the message by.
    pub excerpt: String,
}

/// Messages with `status`, newest first.
pub async fn list_by_status<'e>(
    db: impl PgExecutor<'e>,
    status: InboundStatus,
    limit: i64,
) -> Result<Vec<InboundSummary>, StoreError> {
    #[derive(sqlx::FromRow)]
    struct Row {
        id: InboundId,
        message_id: String,
        received_via: String,
        received_at: DateTime<Utc>,
        status: InboundStatus,
        error: Option<String>,
        attempts: i32,
        head: Vec<u8>,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, message_id, received_via, received_at, status, error, attempts, \
         substring(raw FROM 1 FOR 500) AS head FROM inbound_messages WHERE status = $1 ORDER BY id DESC LIMIT $2",
    )
    .bind(status)
    .bind(limit.max(0))
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| InboundSummary {
            id: row.id,
            message_id: row.message_id,
            received_via: row.received_via,
            received_at: row.received_at,
            status: row.status,
            error: row.error,
            attempts: row.attempts,
            excerpt: String::from_utf8_lossy(&row.head).into_owned(),
        })
        .collect())
}

/// Puts one failed message back in the queue. Returns whether it was failed.
pub async fn retry_one<'e>(db: impl PgExecutor<'e>, id: InboundId) -> Result<bool, StoreError> {
    Ok(sqlx::query(
        "UPDATE inbound_messages SET status = 'new', processed_at = NULL WHERE id = $1 AND status = 'failed'",
    )
    .bind(id)
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}
