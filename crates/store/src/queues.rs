//! The mail queues' sizes and ages, read at once for the metrics (`gm serve`'s `/metrics`).

use chrono::{DateTime, Utc};

use crate::StoreError;
use crate::status::{InboundStatus, OutboundStatus};

/// How much mail waits, in and out, and since when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueDepths {
    /// Inbound messages stored and not processed yet.
    pub inbound_waiting: i64,
    pub inbound_oldest: Option<DateTime<Utc>>,
    /// Outbound messages queued (due now or waiting for a retry).
    pub outbound_queued: i64,
    pub outbound_oldest: Option<DateTime<Utc>>,
    /// Outbound messages given up on.
    pub outbound_failed: i64,
}

/// One statement, so the figures are of one moment; each count uses the claim indexes.
pub async fn depths(pool: &crate::PgPool) -> Result<QueueDepths, StoreError> {
    let row = sqlx::query!(
        r#"SELECT
             (SELECT count(*) FROM inbound_messages WHERE status = $1) AS "inbound_waiting!",
             (SELECT min(received_at) FROM inbound_messages WHERE status = $1) AS inbound_oldest,
             (SELECT count(*) FROM outbound_messages WHERE status = $2) AS "outbound_queued!",
             (SELECT min(created_at) FROM outbound_messages WHERE status = $2) AS outbound_oldest,
             (SELECT count(*) FROM outbound_messages WHERE status = $3) AS "outbound_failed!""#,
        InboundStatus::New as InboundStatus,
        OutboundStatus::Queued as OutboundStatus,
        OutboundStatus::Failed as OutboundStatus,
    )
    .fetch_one(pool)
    .await?;
    Ok(QueueDepths {
        inbound_waiting: row.inbound_waiting,
        inbound_oldest: row.inbound_oldest,
        outbound_queued: row.outbound_queued,
        outbound_oldest: row.outbound_oldest,
        outbound_failed: row.outbound_failed,
    })
}
