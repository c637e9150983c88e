//! Group commit: sessions hand their message to one writer task, which stores every message
//! waiting at that moment with one statement and one commit, then tells each session whether its
//! message is stored. Under load, one commit serves many sessions; alone, a message is written
//! at once.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::inbox::NewInbound;
use tokio::sync::{mpsc, oneshot};

/// A group stops growing at this many messages or this many bytes (it always takes one).
pub(super) const GROUP_MAX_MESSAGES: usize = 256;
const GROUP_MAX_BYTES: usize = 8 << 20;

/// A message handed to the writer, and where to tell its session whether it is stored.
pub(super) struct ToStore {
    pub key: String,
    /// See [`crate::inbox::body_sha256`].
    pub body_sha256: [u8; 32],
    pub raw: Vec<u8>,
    /// The envelope's recipients (RCPT TO) that the listener accepted.
    pub recipients: Vec<String>,
    pub received_at: DateTime<Utc>,
    pub over_tls: bool,
    pub told: oneshot::Sender<bool>,
}

/// The group-commit writer: takes every message waiting, stores them together, tells each
/// session, and starts again; ends when every session and the listener are gone.
pub(super) async fn write_groups(pool: PgPool, mut waiting: mpsc::Receiver<ToStore>) {
    while let Some(first) = waiting.recv().await {
        let mut bytes = first.raw.len();
        let mut group = vec![first];
        while group.len() < GROUP_MAX_MESSAGES && bytes < GROUP_MAX_BYTES {
            let Ok(next) = waiting.try_recv() else { break };
            bytes += next.raw.len();
            group.push(next);
        }
        let stored = store_group(&pool, &group).await;
        for (message, stored) in group.into_iter().zip(stored) {
            // A session that went away meanwhile needs no answer.
            let _ = message.told.send(stored);
        }
    }
}

/// Stores a group in one statement; returns, for each message, whether it is stored.
async fn store_group(pool: &PgPool, group: &[ToStore]) -> Vec<bool> {
    let new: Vec<NewInbound<'_>> = group
        .iter()
        .map(|message| NewInbound {
            message_id: &message.key,
            body_sha256: &message.body_sha256,
            raw: &message.raw,
            envelope_recipients: &message.recipients,
            received_at: message.received_at,
            over_tls: Some(message.over_tls),
        })
        .collect();
    let error = match store::inbox::store_many(pool, &new, "smtp").await {
        Ok(()) => return vec![true; group.len()],
        Err(error) => error,
    };
    // PostgreSQL refused the statement, so perhaps only one message of the group is at fault
    // (say, a Message-ID it cannot hold): store each alone, so that only that one is refused.
    // Any other failure (no connection) would fail each alone as well: all are refused.
    let refused_by_the_database = matches!(
        &error,
        store::StoreError::Database(sqlx::Error::Database(_))
    );
    if !refused_by_the_database || group.len() == 1 {
        tracing::error!(%error, messages = group.len(), "cannot store inbound messages");
        return vec![false; group.len()];
    }
    tracing::warn!(%error, messages = group.len(), "a group of inbound messages was refused: storing each alone");
    let mut stored = Vec::with_capacity(group.len());
    for message in &new {
        let result = store::inbox::store_many(pool, std::slice::from_ref(message), "smtp").await;
        if let Err(error) = &result {
            tracing::error!(%error, message_id = message.message_id, "cannot store an inbound message");
        }
        stored.push(result.is_ok());
    }
    stored
}
