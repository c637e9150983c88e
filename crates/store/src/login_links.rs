//! Magic login links for the player pages: a random token mailed to a subscriber, stored here
//! only as its SHA-256, valid once and until it expires.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::subscribers::{SubscriberId, SubscriberStatus};

/// Records a link for `subscriber`; `token_hash` is the SHA-256 of the mailed token.
pub async fn insert<'e>(
    db: impl PgExecutor<'e>,
    token_hash: &[u8; 32],
    subscriber: SubscriberId,
    now: DateTime<Utc>,
    expires_at: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "INSERT INTO login_links (token_hash, subscriber_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        token_hash.as_slice(),
        subscriber as SubscriberId,
        now,
        expires_at,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The subscriber a link would log in, if it is unused, unexpired at `now`, and the
/// subscription still active. Changes nothing (a mail scanner fetching the link uses nothing).
pub async fn usable<'e>(
    db: impl PgExecutor<'e>,
    token_hash: &[u8; 32],
    now: DateTime<Utc>,
) -> Result<Option<SubscriberId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT l.subscriber_id AS "id: SubscriberId" FROM login_links l
           JOIN subscribers s ON s.id = l.subscriber_id
           WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2 AND s.status = $3"#,
        token_hash.as_slice(),
        now,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_optional(db)
    .await?)
}

/// Uses a link: returns its subscriber if it was [`usable`], and marks it used in the same
/// statement, so two requests racing with one link log in once.
pub async fn consume<'e>(
    db: impl PgExecutor<'e>,
    token_hash: &[u8; 32],
    now: DateTime<Utc>,
) -> Result<Option<SubscriberId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE login_links l SET used_at = $2 FROM subscribers s
           WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2
           AND s.id = l.subscriber_id AND s.status = $3 RETURNING l.subscriber_id AS "id: SubscriberId""#,
        token_hash.as_slice(),
        now,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_optional(db)
    .await?)
}

/// The first key of the advisory locks that serialise the link mails of one address (the
/// two-key form; see `subscribers::SUBSCRIBER_LOCK`).
const LINK_ADDRESS_LOCK: i32 = 0x414C;

/// Locks, until the transaction ends, the login links of one address (any letter case): the
/// hourly limit's count and the link mail it allows are then one step, however many requests
/// for the address arrive at once.
pub async fn lock_address(tx: &mut sqlx::PgConnection, email: &str) -> Result<(), StoreError> {
    sqlx::query!(
        "SELECT pg_advisory_xact_lock($1, hashtext(lower($2)))",
        LINK_ADDRESS_LOCK,
        email,
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Forgets a subscriber's links, used or not (their subscription ended); returns how many.
pub async fn delete_of_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "DELETE FROM login_links WHERE subscriber_id = $1",
        subscriber as SubscriberId,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// Forgets links that expired before `now`; returns how many.
pub async fn delete_expired<'e>(
    db: impl PgExecutor<'e>,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    Ok(
        sqlx::query!("DELETE FROM login_links WHERE expires_at <= $1", now,)
            .execute(db)
            .await?
            .rows_affected(),
    )
}
