//! Subscribers of a zine: the people who receive it and may play its games.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::ids::PlayerRowId;
use crate::ids::ZineId;
use crate::{DisplayName, EmailAddress, StoreError};

pub use crate::ids::SubscriberId;

pub use crate::status::SubscriberStatus;

/// A subscriber as stored. The password hash never leaves the store through this type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subscriber {
    pub id: SubscriberId,
    pub zine_id: ZineId,
    pub email: EmailAddress,
    pub display_name: DisplayName,
    pub status: SubscriberStatus,
    pub has_password: bool,
    pub created_at: DateTime<Utc>,
}

/// [`Subscriber`]s: the query with the given FROM/WHERE clause, its parameters from `$1` on.
macro_rules! subscribers {
    ($clause:literal $(, $param:expr)* $(,)?) => {
        sqlx::query_as!(
            Subscriber,
            r#"SELECT id AS "id: SubscriberId", zine_id AS "zine_id: ZineId",
                      email AS "email: EmailAddress", display_name AS "display_name: DisplayName",
                      status AS "status: SubscriberStatus",
                      password_hash IS NOT NULL AS "has_password!", created_at "#
                + $clause,
            $($param),*
        )
    };
}

/// A subscription to record; only valid values can be put in it.
#[derive(Debug, Clone)]
pub struct NewSubscriber {
    pub zine_id: ZineId,
    pub email: EmailAddress,
    pub display_name: DisplayName,
}

/// Records a new active subscriber. An address already subscribed to the zine (in any letter
/// case) is refused with [`StoreError::AlreadyExists`].
pub async fn insert<'e>(
    db: impl PgExecutor<'e>,
    new: &NewSubscriber,
    now: DateTime<Utc>,
) -> Result<Subscriber, StoreError> {
    sqlx::query_as!(
        Subscriber,
        r#"INSERT INTO subscribers (zine_id, email, display_name, status, created_at)
           VALUES ($1, $2, $3, $4, $5)
           RETURNING id AS "id: SubscriberId", zine_id AS "zine_id: ZineId",
                     email AS "email: EmailAddress", display_name AS "display_name: DisplayName",
                     status AS "status: SubscriberStatus",
                     password_hash IS NOT NULL AS "has_password!", created_at"#,
        new.zine_id as ZineId,
        &new.email as &EmailAddress,
        &new.display_name as &DisplayName,
        SubscriberStatus::Active as SubscriberStatus,
        now,
    )
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a subscriber with this address"))
}

pub async fn find_by_email<'e>(
    db: impl PgExecutor<'e>,
    zine_id: ZineId,
    email: &EmailAddress,
) -> Result<Option<Subscriber>, StoreError> {
    Ok(subscribers!(
        "FROM subscribers WHERE zine_id = $1 AND lower(email) = lower($2)",
        zine_id as ZineId,
        email as &EmailAddress,
    )
    .fetch_optional(db)
    .await?)
}

/// The active subscriptions of an address, in any zine and any letter case, oldest first.
pub async fn active_by_email<'e>(
    db: impl PgExecutor<'e>,
    email: &EmailAddress,
) -> Result<Vec<Subscriber>, StoreError> {
    Ok(subscribers!(
        "FROM subscribers WHERE lower(email) = lower($1) AND status = $2 ORDER BY id",
        email as &EmailAddress,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_all(db)
    .await?)
}

/// A zine's subscribers in the order they joined.
pub async fn list_for_zine<'e>(
    db: impl PgExecutor<'e>,
    zine_id: ZineId,
) -> Result<Vec<Subscriber>, StoreError> {
    Ok(subscribers!(
        "FROM subscribers WHERE zine_id = $1 ORDER BY id",
        zine_id as ZineId
    )
    .fetch_all(db)
    .await?)
}

pub async fn set_status<'e>(
    db: impl PgExecutor<'e>,
    id: SubscriberId,
    status: SubscriberStatus,
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "UPDATE subscribers SET status = $2 WHERE id = $1",
        id as SubscriberId,
        status as SubscriberStatus,
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// The stored password hash (PHC string) of a subscriber, if they set one.
pub async fn password_hash<'e>(
    db: impl PgExecutor<'e>,
    id: SubscriberId,
) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT password_hash FROM subscribers WHERE id = $1",
        id as SubscriberId,
    )
    .fetch_optional(db)
    .await?
    .flatten())
}

/// Subscriptions of an address (any zine, any letter case) that have a password, with it.
pub async fn with_password_by_email<'e>(
    db: impl PgExecutor<'e>,
    email: &str,
) -> Result<Vec<(SubscriberId, String)>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT id AS "id: SubscriberId", password_hash AS "password_hash!" FROM subscribers
           WHERE lower(email) = lower($1) AND status = $2 AND password_hash IS NOT NULL ORDER BY id"#,
        email,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.id, row.password_hash))
        .collect())
}

/// Of `subscribers`, those with at least `max` failed mail passwords since `since`: their
/// password is not checked (locked out) until the oldest of those leaves the window.
pub async fn password_locked<'e>(
    db: impl PgExecutor<'e>,
    subscribers: &[SubscriberId],
    since: DateTime<Utc>,
    max: i64,
) -> Result<Vec<SubscriberId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT subscriber_id AS "id: SubscriberId" FROM password_failures
           WHERE subscriber_id = ANY($1) AND at >= $2
           GROUP BY subscriber_id HAVING count(*) >= $3 ORDER BY subscriber_id"#,
        subscribers as &[SubscriberId],
        since,
        max,
    )
    .fetch_all(db)
    .await?)
}

/// Records a failed mail password for each of `subscribers` (forgetting their failures before
/// `since`, which count no more); returns each one's failures since `since`, this one included.
pub async fn record_password_failures(
    tx: &mut sqlx::PgConnection,
    subscribers: &[SubscriberId],
    since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Vec<(SubscriberId, i64)>, StoreError> {
    sqlx::query!(
        "DELETE FROM password_failures WHERE subscriber_id = ANY($1) AND at < $2",
        subscribers as &[SubscriberId],
        since,
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "INSERT INTO password_failures (subscriber_id, at) SELECT unnest($1::bigint[]), $2",
        subscribers as &[SubscriberId],
        now,
    )
    .execute(&mut *tx)
    .await?;
    let rows = sqlx::query!(
        r#"SELECT subscriber_id AS "id: SubscriberId", count(*) AS "failures!" FROM password_failures
           WHERE subscriber_id = ANY($1) AND at >= $2 GROUP BY subscriber_id ORDER BY subscriber_id"#,
        subscribers as &[SubscriberId],
        since,
    )
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows.into_iter().map(|row| (row.id, row.failures)).collect())
}

/// Stores a subscriber's new password hash (PHC string, never the password).
pub async fn set_password_hash<'e>(
    db: impl PgExecutor<'e>,
    id: SubscriberId,
    hash: &str,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE subscribers SET password_hash = $2 WHERE id = $1",
        id as SubscriberId,
        hash,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// One subscriber, by id.
pub async fn find<'e>(
    db: impl PgExecutor<'e>,
    id: SubscriberId,
) -> Result<Option<Subscriber>, StoreError> {
    Ok(
        subscribers!("FROM subscribers WHERE id = $1", id as SubscriberId)
            .fetch_optional(db)
            .await?,
    )
}

/// Changes a subscriber's address and name. An address another subscriber of the zine has is
/// refused with [`StoreError::AlreadyExists`]. Returns whether the subscriber exists.
pub async fn update<'e>(
    db: impl PgExecutor<'e>,
    id: SubscriberId,
    email: &EmailAddress,
    display_name: &DisplayName,
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "UPDATE subscribers SET email = $2, display_name = $3 WHERE id = $1",
        id as SubscriberId,
        email as &EmailAddress,
        display_name as &DisplayName,
    )
    .execute(db)
    .await
    .map_err(StoreError::unique_as("a subscriber with this address"))?;
    Ok(result.rows_affected() == 1)
}

/// The first key of the advisory locks that serialise what is done for one subscriber (the
/// two-key form, so they cannot meet the one-key locks used elsewhere). Mail workers and web
/// forms take them before acting, so a player's orders are checked against the latest ones and
/// saved as one step, while different players' orders are taken in parallel.
const SUBSCRIBER_LOCK: i32 = 0x4144;

/// Proof that the transaction holds the lock of the subscriber who holds player row
/// `player`: what [`lock_player`] or [`SendersLock::player`] give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerLock {
    player: PlayerRowId,
}

impl PlayerLock {
    /// The player row the lock is for.
    pub fn player(&self) -> PlayerRowId {
        self.player
    }
}

/// The subscribers a transaction locked with [`lock_senders`].
#[derive(Debug, Clone, Default)]
pub struct SendersLock {
    subscribers: Vec<SubscriberId>,
}

impl SendersLock {
    /// The lock for player row `player` of `subscriber`, if that subscriber is locked.
    pub fn player(&self, player: PlayerRowId, subscriber: SubscriberId) -> Option<PlayerLock> {
        self.subscribers
            .binary_search(&subscriber)
            .is_ok()
            .then_some(PlayerLock { player })
    }
}

/// Locks, until the transaction ends, every subscriber that `tokens` (reply tokens) or
/// `emails` (lower-case From addresses) may act for. In ascending order, so two workers locking
/// overlapping sets never wait on each other in a cycle.
pub async fn lock_senders(
    tx: &mut sqlx::PgConnection,
    tokens: &[String],
    emails: &[String],
) -> Result<SendersLock, StoreError> {
    // The lock column is never read, but a volatile call is never planned away.
    let mut subscribers = sqlx::query_scalar!(
        r#"SELECT id AS "id!: SubscriberId" FROM (
             SELECT id, pg_advisory_xact_lock($3, (id % 2147483647)::int) AS locked FROM (
               SELECT subscriber_id AS id FROM players WHERE reply_token = ANY($1)
               UNION SELECT id FROM subscribers WHERE lower(email) = ANY($2)
               ORDER BY id) AS senders) AS locked_senders"#,
        tokens,
        emails,
        SUBSCRIBER_LOCK,
    )
    .fetch_all(&mut *tx)
    .await?;
    subscribers.sort_unstable();
    Ok(SendersLock { subscribers })
}

/// Locks, until the transaction ends, the subscriber who holds player row `player` (see
/// [`lock_senders`]; taking a lock this transaction already holds does not wait).
pub async fn lock_player(
    tx: &mut sqlx::PgConnection,
    player: PlayerRowId,
) -> Result<PlayerLock, StoreError> {
    sqlx::query!(
        "SELECT pg_advisory_xact_lock($2, (subscriber_id % 2147483647)::int) FROM players WHERE id = $1",
        player as PlayerRowId,
        SUBSCRIBER_LOCK,
    )
    .execute(&mut *tx)
    .await?;
    Ok(PlayerLock { player })
}

/// Marks a subscriber as a postal player (orders on paper or by phone, entered by the GM) or
/// not; false when there is no such subscriber.
pub async fn set_postal<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
    postal: bool,
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "UPDATE subscribers SET postal = $2 WHERE id = $1",
        subscriber as SubscriberId,
        postal,
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// Whether the subscriber is a postal player.
pub async fn is_postal<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT postal FROM subscribers WHERE id = $1",
        subscriber as SubscriberId,
    )
    .fetch_optional(db)
    .await?
    .unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_round_trips_through_text() {
        for status in [
            SubscriberStatus::Active,
            SubscriberStatus::Unsubscribed,
            SubscriberStatus::Excluded,
        ] {
            assert_eq!(status.as_str().parse::<SubscriberStatus>(), Ok(status));
        }
        assert!("gone".parse::<SubscriberStatus>().is_err());
    }
}

/// The subscriber whose one-click unsubscribe token this is (compared whole, in the index),
/// locked for the change (two clicks at once change them once).
pub async fn lock_by_unsubscribe_token(
    tx: &mut sqlx::PgConnection,
    token: &str,
) -> Result<Option<Subscriber>, StoreError> {
    Ok(subscribers!(
        "FROM subscribers WHERE unsubscribe_token = $1 FOR UPDATE",
        token
    )
    .fetch_optional(&mut *tx)
    .await?)
}

/// Whether this is a subscriber's one-click token, for the confirmation page (which changes
/// nothing).
pub async fn find_by_unsubscribe_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Option<Subscriber>, StoreError> {
    Ok(
        subscribers!("FROM subscribers WHERE unsubscribe_token = $1", token)
            .fetch_optional(db)
            .await?,
    )
}

/// What the `List-*` headers of a game's mail to one of its players name: the zine and the
/// player's subscriber's one-click token, per player row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListReader {
    pub player: PlayerRowId,
    pub zine_slug: String,
    pub zine_name: String,
    pub unsubscribe_token: String,
}

/// [`ListReader`]s of the players of one game.
pub async fn list_readers_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: crate::ids::GameId,
) -> Result<Vec<ListReader>, StoreError> {
    Ok(sqlx::query_as!(
        ListReader,
        r#"SELECT p.id AS "player: PlayerRowId", z.slug AS zine_slug, z.name AS zine_name,
                  s.unsubscribe_token
             FROM players p
             JOIN subscribers s ON s.id = p.subscriber_id
             JOIN games g ON g.id = p.game_id
             JOIN zines z ON z.id = g.zine_id
            WHERE p.game_id = $1
            ORDER BY p.id"#,
        game as crate::ids::GameId,
    )
    .fetch_all(db)
    .await?)
}
