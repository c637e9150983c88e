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
