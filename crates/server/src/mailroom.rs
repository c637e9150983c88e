//! What the GM does to the mail queues, from the console or the command line: run failed
//! inbound messages again, send an outbound message again. Each action is audited.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::audit::{AuditAction, NewAuditEntry};
use store::inbox::InboundId;
use store::outbox::OutboundId;

use crate::turns::{LifecycleError, StateCache};

/// Which failed inbound messages to run again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    One(InboundId),
    AllFailed,
}

/// What a retry did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retried {
    /// Failed messages put back in the queue (0 when the one named had not failed).
    pub requeued: u64,
    /// Messages processed afterwards (the whole queue, not only those).
    pub processed: usize,
}

/// Puts failed inbound messages back in the queue, audited as done by `actor`, and processes
/// the queue.
pub async fn retry_inbound(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    which: Retry,
    actor: &str,
    mail: impl Into<crate::inbox::Settings>,
) -> Result<Retried, LifecycleError> {
    let mut tx = pool.begin().await?;
    let requeued = match which {
        Retry::One(id) => u64::from(store::inbox::retry_one(&mut *tx, id).await?),
        Retry::AllFailed => store::inbox::retry_failed(&mut *tx).await?,
    };
    if requeued > 0 {
        let action = match which {
            Retry::One(inbound) => AuditAction::InboxRetry { inbound },
            Retry::AllFailed => AuditAction::InboxRetryAll { requeued },
        };
        let entry = NewAuditEntry {
            actor,
            game: None,
            action,
        };
        store::audit::append(&mut *tx, &entry, now).await?;
    }
    tx.commit().await?;
    let processed = crate::inbox::process_pending(pool, states, now, mail).await?;
    Ok(Retried {
        requeued,
        processed,
    })
}

/// Queues a failed or sent outbound message again (same Message-ID), audited as done by
/// `actor`. False when the message is neither (still queued, or no such message).
pub async fn resend_outbound(
    pool: &PgPool,
    now: DateTime<Utc>,
    id: OutboundId,
    actor: &str,
) -> Result<bool, LifecycleError> {
    let mut tx = pool.begin().await?;
    if !store::outbox::requeue(&mut *tx, id, now).await? {
        return Ok(false);
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: AuditAction::OutboxResend { outbound: id },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}
