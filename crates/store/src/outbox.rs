//! The outbound mail queue. A message is queued once per idempotency key, with its Message-ID
//! fixed at queue time so that a retried send is the same message.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;

#[derive(Debug, Clone)]
pub struct NewOutbound<'a> {
    pub message_id: &'a str,
    /// Names the logical mail, e.g. `report:<turn>:<subscriber>`.
    pub idempotency_key: &'a str,
    pub to_address: &'a str,
    pub subject: &'a str,
    pub body_text: &'a str,
    pub body_html: Option<&'a str>,
    pub headers: &'a serde_json::Value,
}

/// Queues a message unless one with the same idempotency key is queued already. Returns
/// whether this call queued it.
pub async fn enqueue<'e>(
    db: impl PgExecutor<'e>,
    new: &NewOutbound<'_>,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let result = sqlx::query(
        "INSERT INTO outbound_messages (message_id, idempotency_key, to_address, subject, body_text, body_html, headers, \
         next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
         ON CONFLICT (idempotency_key) DO NOTHING",
    )
    .bind(new.message_id)
    .bind(new.idempotency_key)
    .bind(new.to_address)
    .bind(new.subject)
    .bind(new.body_text)
    .bind(new.body_html)
    .bind(new.headers)
    .bind(now)
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// How many messages whose idempotency key starts with `kind` went to `address` (any letter
/// case) since `since`: the reply rate limit counts with it.
pub async fn count_sent_to_since<'e>(
    db: impl PgExecutor<'e>,
    kind: &str,
    address: &str,
    since: DateTime<Utc>,
) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT count(*) FROM outbound_messages \
         WHERE lower(to_address) = lower($1) AND created_at >= $2 AND starts_with(idempotency_key, $3)",
    )
    .bind(address)
    .bind(since)
    .bind(kind)
    .fetch_one(db)
    .await?)
}

/// What [`enqueue_many_within_limit`] did with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    Queued,
    /// A message with the same idempotency key was queued before.
    AlreadyQueued,
    /// Not queued: this many messages of the kind went to the address since the given time.
    OverLimit(i64),
}

/// Queues `messages` in order, each as [`enqueue`] would, unless `limit` or more messages whose
/// idempotency key starts with `kind` went to its address (any letter case) since `since`,
/// those this call queues for the same address before it included. Returns what was done with
/// each message, in order. Two statements whatever the number of messages: one reads the
/// counts and the keys already queued, the other inserts. The caller holds the lock of the
/// recipients it acts for, so no one else queues to them in between.
pub async fn enqueue_many_within_limit(
    db: &mut sqlx::PgConnection,
    messages: &[NewOutbound<'_>],
    kind: &str,
    limit: i64,
    since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Vec<Limited>, StoreError> {
    if messages.is_empty() {
        return Ok(Vec::new());
    }
    let addresses: Vec<&str> = messages.iter().map(|m| m.to_address).collect();
    let keys: Vec<&str> = messages.iter().map(|m| m.idempotency_key).collect();
    // Rows with an address: that address, PostgreSQL's lower case of it (the same as the
    // index's, which may differ from Rust's outside ASCII) and its count; rows without: a key
    // queued already. The kind is a FILTER, not a WHERE condition, so that the planner walks
    // the recipient's few rows rather than every key of the kind (a prefix range of the keys'
    // index, which it may otherwise AND in).
    let rows: Vec<(Option<String>, String, i64)> = sqlx::query_as(
        "SELECT a.address, lower(a.address), \
                (SELECT count(*) FILTER (WHERE starts_with(o.idempotency_key, $3)) \
                 FROM outbound_messages o \
                 WHERE lower(o.to_address) = lower(a.address) AND o.created_at >= $2) \
         FROM unnest($1::text[]) AS a(address) \
         UNION ALL SELECT NULL, idempotency_key, 0 FROM outbound_messages WHERE idempotency_key = ANY($4)",
    )
    .bind(&addresses)
    .bind(since)
    .bind(kind)
    .bind(&keys)
    .fetch_all(&mut *db)
    .await?;
    let mut lowered = std::collections::HashMap::new();
    let mut recent = std::collections::HashMap::new();
    let mut queued_keys = std::collections::HashSet::new();
    for (address, key_or_lowered, count) in rows {
        match address {
            Some(address) => {
                recent.insert(key_or_lowered.clone(), count);
                lowered.insert(address, key_or_lowered);
            }
            None => {
                queued_keys.insert(key_or_lowered);
            }
        }
    }
    let mut outcomes = Vec::with_capacity(messages.len());
    let mut to_queue = Vec::new();
    for message in messages {
        let address = lowered
            .get(message.to_address)
            .cloned()
            .unwrap_or_else(|| message.to_address.to_owned());
        let count = recent.entry(address).or_insert(0);
        let outcome = if queued_keys.contains(message.idempotency_key) {
            if *count >= limit {
                Limited::OverLimit(*count)
            } else {
                Limited::AlreadyQueued
            }
        } else if *count >= limit {
            Limited::OverLimit(*count)
        } else {
            *count += 1;
            queued_keys.insert(message.idempotency_key.to_owned());
            to_queue.push(message.clone());
            Limited::Queued
        };
        outcomes.push(outcome);
    }
    enqueue_many(db, &to_queue, None, now).await?;
    Ok(outcomes)
}

/// Stores a body that many messages share (see [`enqueue_many`]); returns its id.
pub async fn insert_shared_body<'e>(
    db: impl PgExecutor<'e>,
    body_text: &str,
    body_html: Option<&str>,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar(
        "INSERT INTO outbound_bodies (body_text, body_html, created_at) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(body_text)
    .bind(body_html)
    .bind(now)
    .fetch_one(db)
    .await?)
}

/// Queues many messages with few statements (a turn's fan-out), each unless a message with
/// the same idempotency key is queued already. With `shared_body`, each is sent as that body
/// followed by its own `body_text`. Returns how many this call queued.
pub async fn enqueue_many(
    db: &mut sqlx::PgConnection,
    messages: &[NewOutbound<'_>],
    shared_body: Option<i64>,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    let mut queued = 0;
    for chunk in messages.chunks(5000) {
        fn column<'a>(
            chunk: &'a [NewOutbound<'_>],
            field: impl Fn(&'a NewOutbound<'_>) -> &'a str,
        ) -> Vec<&'a str> {
            chunk.iter().map(field).collect()
        }
        let html: Vec<Option<&str>> = chunk.iter().map(|m| m.body_html).collect();
        let headers: Vec<String> = chunk.iter().map(|m| m.headers.to_string()).collect();
        queued += sqlx::query(
            "INSERT INTO outbound_messages (message_id, idempotency_key, to_address, subject, body_text, \
             body_html, headers, shared_body_id, next_attempt_at, created_at) \
             SELECT m, k, t, s, b, h, hd::jsonb, $8, $9, $9 \
             FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) \
               AS x(m, k, t, s, b, h, hd) \
             ON CONFLICT (idempotency_key) DO NOTHING",
        )
        .bind(column(chunk, |m| m.message_id))
        .bind(column(chunk, |m| m.idempotency_key))
        .bind(column(chunk, |m| m.to_address))
        .bind(column(chunk, |m| m.subject))
        .bind(column(chunk, |m| m.body_text))
        .bind(html)
        .bind(headers)
        .bind(shared_body)
        .bind(now)
        .execute(&mut *db)
        .await?
        .rows_affected();
    }
    Ok(queued)
}

/// A body shared by many messages.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SharedBody {
    pub id: i64,
    pub body_text: String,
    pub body_html: Option<String>,
}

pub async fn shared_bodies<'e>(
    db: impl PgExecutor<'e>,
    ids: &[i64],
) -> Result<Vec<SharedBody>, StoreError> {
    Ok(
        sqlx::query_as("SELECT id, body_text, body_html FROM outbound_bodies WHERE id = ANY($1)")
            .bind(ids)
            .fetch_all(db)
            .await?,
    )
}

/// A queued message, leased to one worker for a while.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Leased {
    pub id: i64,
    pub message_id: String,
    pub to_address: String,
    pub subject: String,
    pub body_text: String,
    pub body_html: Option<String>,
    pub headers: serde_json::Value,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    /// Sent before `body_text`, when set.
    pub shared_body_id: Option<i64>,
}

/// Takes up to `limit` queued messages that are due, and hides them from other workers until
/// `lease_until`. The lease is committed at once, so no transaction is held open while mail is
/// sent; a worker that dies mid-send leaves its messages to be retried when the lease ends (with
/// the same Message-ID).
pub async fn lease_due<'e>(
    db: impl PgExecutor<'e>,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Leased>, StoreError> {
    Ok(sqlx::query_as(
        "UPDATE outbound_messages SET next_attempt_at = $2 WHERE id IN ( \
           SELECT id FROM outbound_messages WHERE status = 'queued' AND next_attempt_at <= $1 \
           ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) \
         RETURNING id, message_id, to_address, subject, body_text, body_html, headers, attempts, created_at, \
         shared_body_id",
    )
    .bind(now)
    .bind(lease_until)
    .bind(limit)
    .fetch_all(db)
    .await?)
}

pub async fn mark_sent<'e>(
    db: impl PgExecutor<'e>,
    id: i64,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE outbound_messages SET status = 'sent', sent_at = $2, attempts = attempts + 1, last_error = NULL \
         WHERE id = $1",
    )
    .bind(id)
    .bind(now)
    .execute(db)
    .await?;
    Ok(())
}

/// [`mark_sent`] for many messages in one statement.
pub async fn mark_sent_many<'e>(
    db: impl PgExecutor<'e>,
    ids: &[i64],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE outbound_messages SET status = 'sent', sent_at = $2, attempts = attempts + 1, last_error = NULL \
         WHERE id = ANY($1)",
    )
    .bind(ids)
    .bind(now)
    .execute(db)
    .await?;
    Ok(())
}

/// A temporary failure: try again at `next_attempt_at`.
pub async fn mark_retry<'e>(
    db: impl PgExecutor<'e>,
    id: i64,
    error: &str,
    next_attempt_at: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE outbound_messages SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3 WHERE id = $1",
    )
    .bind(id)
    .bind(error)
    .bind(next_attempt_at)
    .execute(db)
    .await?;
    Ok(())
}

/// A permanent failure, kept for the GM to see.
pub async fn mark_failed<'e>(
    db: impl PgExecutor<'e>,
    id: i64,
    error: &str,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE outbound_messages SET status = 'failed', attempts = attempts + 1, last_error = $2 WHERE id = $1")
        .bind(id)
        .bind(error)
        .execute(db)
        .await?;
    Ok(())
}

/// An outbound message as the GM's console lists it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OutboundSummary {
    pub id: i64,
    pub message_id: String,
    pub to_address: String,
    pub subject: String,
    pub body_text: String,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

/// Messages with `status` (`queued`, `sent` or `failed`), newest first.
pub async fn list_by_status<'e>(
    db: impl PgExecutor<'e>,
    status: &str,
    limit: i64,
) -> Result<Vec<OutboundSummary>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, message_id, to_address, subject, body_text, status, attempts, next_attempt_at, last_error, \
         created_at, sent_at FROM outbound_messages WHERE status = $1 ORDER BY id DESC LIMIT $2",
    )
    .bind(status)
    .bind(limit.max(0))
    .fetch_all(db)
    .await?)
}

/// Queues a failed or sent message again, due at once, with the same Message-ID (a resend is
/// the same mail). Returns whether there was such a message.
pub async fn requeue<'e>(
    db: impl PgExecutor<'e>,
    id: i64,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    Ok(sqlx::query(
        "UPDATE outbound_messages SET status = 'queued', sent_at = NULL, attempts = 0, next_attempt_at = $2 \
         WHERE id = $1 AND status IN ('failed', 'sent')",
    )
    .bind(id)
    .bind(now)
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}
