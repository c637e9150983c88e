//! Web sessions: a random token in the browser's cookie, stored here only as its SHA-256, with
//! the session's CSRF token and its expiry. A session belongs to a GM account or (for the
//! player pages) to a subscriber.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::GmAccountId;
use crate::subscribers::{SubscriberId, SubscriberStatus};

/// Whose session it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    Gm { id: GmAccountId, name: String },
    Subscriber(SubscriberId),
}

/// A live session, as found from its cookie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub principal: Principal,
    pub csrf_token: String,
    pub expires_at: DateTime<Utc>,
}

/// A session to record: `token_hash` is the SHA-256 of the cookie's token.
#[derive(Debug, Clone)]
pub struct NewSession<'a> {
    pub token_hash: &'a [u8; 32],
    pub principal: &'a Principal,
    pub csrf_token: &'a str,
    pub expires_at: DateTime<Utc>,
}

pub async fn insert<'e>(
    db: impl PgExecutor<'e>,
    new: &NewSession<'_>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let (gm, subscriber) = match new.principal {
        Principal::Gm { id, .. } => (Some(*id), None),
        Principal::Subscriber(id) => (None, Some(*id)),
    };
    sqlx::query!(
        "INSERT INTO web_sessions (token_hash, gm_account_id, subscriber_id, csrf_token, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
        new.token_hash.as_slice(),
        gm as Option<GmAccountId>,
        subscriber as Option<SubscriberId>,
        new.csrf_token,
        now,
        new.expires_at,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The session whose token hashes to `token_hash`, if it has not expired by `now`, and, for a
/// subscriber's session, only while the subscription is active: a subscriber unsubscribed or
/// excluded (by mail, by the GM, or any other way) is logged out at once.
pub async fn find_live<'e>(
    db: impl PgExecutor<'e>,
    token_hash: &[u8; 32],
    now: DateTime<Utc>,
) -> Result<Option<Session>, StoreError> {
    let row = sqlx::query!(
        r#"SELECT s.gm_account_id AS "gm_account_id: GmAccountId", g.name AS "gm_name?",
                  s.subscriber_id AS "subscriber_id: SubscriberId", s.csrf_token, s.expires_at
           FROM web_sessions s LEFT JOIN gm_accounts g ON g.id = s.gm_account_id
           LEFT JOIN subscribers sub ON sub.id = s.subscriber_id
           WHERE s.token_hash = $1 AND s.expires_at > $2
           AND (s.subscriber_id IS NULL OR sub.status = $3)"#,
        token_hash.as_slice(),
        now,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_optional(db)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let principal = match (row.gm_account_id, row.gm_name, row.subscriber_id) {
        (Some(id), Some(name), None) => Principal::Gm { id, name },
        (None, _, Some(id)) => Principal::Subscriber(id),
        _ => {
            return Err(StoreError::invalid_row(
                "web_sessions",
                "a session must belong to one GM or one subscriber",
            ));
        }
    };
    Ok(Some(Session {
        principal,
        csrf_token: row.csrf_token,
        expires_at: row.expires_at,
    }))
}

/// Logs a session out. Returns whether there was one.
pub async fn delete<'e>(
    db: impl PgExecutor<'e>,
    token_hash: &[u8; 32],
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "DELETE FROM web_sessions WHERE token_hash = $1",
        token_hash.as_slice(),
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// Ends every session of a subscriber (their subscription ended); returns how many.
pub async fn delete_of_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "DELETE FROM web_sessions WHERE subscriber_id = $1",
        subscriber as SubscriberId,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// Forgets sessions that expired before `now`; returns how many.
pub async fn delete_expired<'e>(
    db: impl PgExecutor<'e>,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    Ok(
        sqlx::query!("DELETE FROM web_sessions WHERE expires_at <= $1", now,)
            .execute(db)
            .await?
            .rows_affected(),
    )
}
