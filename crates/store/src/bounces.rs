//! Bounces (issue 29 item 4): the key that signs return paths, each mailbox's bounce score
//! and whether delivery to it is suspended, and what the GM's pages list. The scoring rules
//! are the server's (`bounces`); here the rows.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::{OutboundId, SubscriberId, ZineId};
use crate::{EmailAddress, ZineSlug};

/// The return-path key: the stored one, or `fresh` stored now when there is none yet (two
/// processes starting at once agree on whichever was stored first).
pub async fn tag_key(
    db: &mut sqlx::PgConnection,
    fresh: [u8; 32],
    now: DateTime<Utc>,
) -> Result<[u8; 32], StoreError> {
    sqlx::query!(
        "INSERT INTO mail_keys (name, key, created_at) VALUES ('return-path', $1, $2)
         ON CONFLICT (name) DO NOTHING",
        &fresh[..],
        now,
    )
    .execute(&mut *db)
    .await?;
    let key = sqlx::query_scalar!("SELECT key FROM mail_keys WHERE name = 'return-path'")
        .fetch_one(&mut *db)
        .await?;
    key.try_into()
        .map_err(|_| StoreError::invalid_row("mail_keys.key", "not 32 bytes"))
}

/// The outgoing message a return path names: its Message-ID and recipient.
pub async fn outbound<'e>(
    db: impl PgExecutor<'e>,
    id: OutboundId,
) -> Result<Option<(String, String)>, StoreError> {
    Ok(sqlx::query!(
        "SELECT message_id, to_address FROM outbound_messages WHERE id = $1",
        id as OutboundId,
    )
    .fetch_optional(db)
    .await?
    .map(|row| (row.message_id, row.to_address)))
}

/// Whether the message with `message_id` (a circular's copies share one) was sent to
/// `address`: a DSN's recipient must be one of the message's.
pub async fn was_sent_to<'e>(
    db: impl PgExecutor<'e>,
    message_id: &str,
    address: &str,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM outbound_messages
                          WHERE message_id = $1 AND lower(to_address) = lower($2)) AS "sent!""#,
        message_id,
        address,
    )
    .fetch_one(db)
    .await?)
}

/// A mailbox's bounce record.
#[derive(Debug, Clone, PartialEq)]
pub struct BounceScore {
    /// lower(address)
    pub mailbox: String,
    pub score: f64,
    pub last_scored_at: Option<DateTime<Utc>>,
    pub last_bounce_at: DateTime<Utc>,
    pub last_reason: String,
    pub reports: i32,
    pub suspended_at: Option<DateTime<Utc>>,
    pub suspended_reason: Option<String>,
}

/// A mailbox's record, locked until the transaction ends (bounces for one mailbox are scored
/// one after the other).
pub async fn lock_score(
    db: &mut sqlx::PgConnection,
    mailbox: &str,
) -> Result<Option<BounceScore>, StoreError> {
    Ok(sqlx::query_as!(
        BounceScore,
        r#"SELECT mailbox, score_hundredths::float8 / 100 AS "score!", last_scored_at,
                last_bounce_at, last_reason, reports, suspended_at, suspended_reason
         FROM bounce_scores WHERE mailbox = lower($1) FOR UPDATE"#,
        mailbox,
    )
    .fetch_optional(&mut *db)
    .await?)
}

/// Writes a mailbox's record.
pub async fn put_score(db: &mut sqlx::PgConnection, score: &BounceScore) -> Result<(), StoreError> {
    sqlx::query!(
        "INSERT INTO bounce_scores (mailbox, score_hundredths, last_scored_at, last_bounce_at,
                                    last_reason, reports, suspended_at, suspended_reason)
         VALUES (lower($1), round($2::float8 * 100)::integer, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (mailbox) DO UPDATE SET score_hundredths = round($2::float8 * 100)::integer,
             last_scored_at = $3, last_bounce_at = $4, last_reason = $5, reports = $6,
             suspended_at = $7, suspended_reason = $8",
        score.mailbox,
        score.score,
        score.last_scored_at,
        score.last_bounce_at,
        score.last_reason,
        score.reports,
        score.suspended_at,
        score.suspended_reason,
    )
    .execute(&mut *db)
    .await?;
    Ok(())
}

/// Delivery to `mailbox` resumes: its score starts again from nothing. Returns whether it was
/// suspended.
pub async fn resume<'e>(db: impl PgExecutor<'e>, mailbox: &str) -> Result<bool, StoreError> {
    let row = sqlx::query_scalar!(
        r#"UPDATE bounce_scores SET score_hundredths = 0, last_scored_at = NULL, suspended_at = NULL,
                  suspended_reason = NULL
           WHERE mailbox = lower($1)
           RETURNING (SELECT suspended_at IS NOT NULL FROM bounce_scores WHERE mailbox = lower($1)) AS "was!""#,
        mailbox,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.unwrap_or(false))
}

/// Which of `addresses` (any letter case) are suspended, lower-cased.
pub async fn suspended_among<'e>(
    db: impl PgExecutor<'e>,
    addresses: &[String],
) -> Result<Vec<String>, StoreError> {
    let lower: Vec<String> = addresses.iter().map(|a| a.to_lowercase()).collect();
    Ok(sqlx::query_scalar!(
        "SELECT mailbox FROM bounce_scores WHERE mailbox = ANY($1) AND suspended_at IS NOT NULL",
        &lower as &[String],
    )
    .fetch_all(db)
    .await?)
}

/// A subscription whose address a bounce was about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub subscriber: SubscriberId,
    pub zine: ZineId,
    pub slug: ZineSlug,
    pub email: EmailAddress,
}

/// The active subscriptions of `address` (any letter case), in every zine.
pub async fn subscriptions_of<'e>(
    db: impl PgExecutor<'e>,
    address: &str,
) -> Result<Vec<Subscription>, StoreError> {
    Ok(sqlx::query_as!(
        Subscription,
        r#"SELECT s.id AS "subscriber: SubscriberId", s.zine_id AS "zine: ZineId",
                  z.slug AS "slug: ZineSlug", s.email AS "email: EmailAddress"
           FROM subscribers s JOIN zines z ON z.id = s.zine_id
           WHERE lower(s.email) = lower($1) AND s.status = 'active' ORDER BY s.id"#,
        address,
    )
    .fetch_all(db)
    .await?)
}

/// A subscriber with bounces, as the GM's pages and `gm zine SLUG bounces` list them.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriberBounces {
    pub subscriber: SubscriberId,
    pub email: EmailAddress,
    pub score: f64,
    pub last_bounce_at: DateTime<Utc>,
    pub last_reason: String,
    pub suspended_at: Option<DateTime<Utc>>,
    pub suspended_reason: Option<String>,
}

/// The zine's subscribers whose address has bounced, by address.
pub async fn of_zine<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<SubscriberBounces>, StoreError> {
    Ok(sqlx::query_as!(
        SubscriberBounces,
        r#"SELECT s.id AS "subscriber: SubscriberId", s.email AS "email: EmailAddress",
                  b.score_hundredths::float8 / 100 AS "score!", b.last_bounce_at, b.last_reason,
                  b.suspended_at, b.suspended_reason
           FROM subscribers s JOIN bounce_scores b ON b.mailbox = lower(s.email)
           WHERE s.zine_id = $1 ORDER BY lower(s.email)"#,
        zine as ZineId,
    )
    .fetch_all(db)
    .await?)
}

/// One subscriber's bounce record, if their address has bounced.
pub async fn of_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Option<SubscriberBounces>, StoreError> {
    Ok(sqlx::query_as!(
        SubscriberBounces,
        r#"SELECT s.id AS "subscriber: SubscriberId", s.email AS "email: EmailAddress",
                  b.score_hundredths::float8 / 100 AS "score!", b.last_bounce_at, b.last_reason,
                  b.suspended_at, b.suspended_reason
           FROM subscribers s JOIN bounce_scores b ON b.mailbox = lower(s.email)
           WHERE s.id = $1"#,
        subscriber as SubscriberId,
    )
    .fetch_optional(db)
    .await?)
}
