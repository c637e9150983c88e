//! Games open for sign-up (`openings`) and the subscribers queued for them (`signups`).

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;
use crate::games::GameId;
use crate::status::{OpeningStatus, Seating};
use crate::subscribers::SubscriberId;
use crate::zines::ZineId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct OpeningId(pub i64);

#[derive(Debug, Clone)]
pub struct NewOpening<'a> {
    pub zine_id: ZineId,
    pub name: &'a str,
    pub engine: &'a str,
    pub setup: &'a serde_json::Value,
    pub schedule: &'a serde_json::Value,
    pub seats: u32,
    pub seating: Seating,
    pub secret: &'a [u8; 32],
    /// The game's time zone, an IANA name the service has checked.
    pub time_zone: &'a str,
}

pub async fn insert_opening<'e>(
    db: impl PgExecutor<'e>,
    new: &NewOpening<'_>,
    now: DateTime<Utc>,
) -> Result<OpeningId, StoreError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO openings (zine_id, name, engine, setup, schedule, seats, seating, secret_seed, created_at, time_zone) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
    )
    .bind(new.zine_id)
    .bind(new.name)
    .bind(new.engine)
    .bind(new.setup)
    .bind(new.schedule)
    .bind(i32::try_from(new.seats).map_err(|e| StoreError::invalid_row("openings.seats", e))?)
    .bind(new.seating)
    .bind(&new.secret[..])
    .bind(now)
    .bind(new.time_zone)
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a game open for sign-up by that name"))?;
    Ok(OpeningId(id))
}

/// A game open for sign-up, as the GM and the service know it (the secret included).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Opening {
    pub id: OpeningId,
    pub zine_id: ZineId,
    pub name: String,
    pub engine: String,
    pub setup: serde_json::Value,
    pub schedule: serde_json::Value,
    pub seats: i32,
    pub seating: Seating,
    pub secret_seed: Vec<u8>,
    pub status: OpeningStatus,
    pub game_id: Option<GameId>,
    pub created_at: DateTime<Utc>,
    /// The game's time zone (an IANA name).
    pub time_zone: String,
    /// How many have signed up.
    pub signed: i64,
}

const OPENING: &str = "SELECT o.id, o.zine_id, o.name, o.engine, o.setup, o.schedule, o.seats, o.seating, \
     o.secret_seed, o.status, o.game_id, o.created_at, o.time_zone, \
     (SELECT count(*) FROM signups s WHERE s.opening_id = o.id) AS signed FROM openings o";

/// One opening, as it is now.
pub async fn find<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
) -> Result<Option<Opening>, StoreError> {
    Ok(
        sqlx::query_as(sqlx::AssertSqlSafe(format!("{OPENING} WHERE o.id = $1")))
            .bind(opening)
            .fetch_optional(db)
            .await?,
    )
}

/// One opening, locked for the caller's transaction (sign-ups and starts queue behind it).
pub async fn lock<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
) -> Result<Option<Opening>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{OPENING} WHERE o.id = $1 FOR UPDATE OF o"
    )))
    .bind(opening)
    .fetch_optional(db)
    .await?)
}

/// The zine's game open for sign-up called `name` (case and outer spaces ignored), locked.
pub async fn lock_open_by_name<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    name: &str,
) -> Result<Option<Opening>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{OPENING} WHERE o.zine_id = $1 AND o.status = 'open' AND lower(btrim(o.name)) = lower(btrim($2)) \
         FOR UPDATE OF o"
    )))
    .bind(zine)
    .bind(name)
    .fetch_optional(db)
    .await?)
}

/// The zine's newest opening called `name` (case and outer spaces ignored), whatever its
/// status: what a JOIN that came too late is told about.
pub async fn newest_by_name<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    name: &str,
) -> Result<Option<Opening>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{OPENING} WHERE o.zine_id = $1 AND lower(btrim(o.name)) = lower(btrim($2)) \
         ORDER BY o.id DESC LIMIT 1"
    )))
    .bind(zine)
    .bind(name)
    .fetch_optional(db)
    .await?)
}

/// The zine's games open for sign-up, oldest first, with how many have signed up: what `LIST`,
/// the public zine page and the zine's issue show.
pub async fn open_for_signup<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Opening>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{OPENING} WHERE o.zine_id = $1 AND o.status = 'open' ORDER BY o.id"
    )))
    .bind(zine)
    .fetch_all(db)
    .await?)
}

/// What happened to a sign-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignedUp {
    /// Newly queued at this place (1 is first).
    Queued(i32),
    /// Already queued at this place.
    Already(i32),
}

/// The subscriber's place in the opening's queue, if queued.
pub async fn place_of<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
    subscriber: SubscriberId,
) -> Result<Option<i32>, StoreError> {
    Ok(
        sqlx::query_scalar(
            "SELECT place FROM signups WHERE opening_id = $1 AND subscriber_id = $2",
        )
        .bind(opening)
        .bind(subscriber)
        .fetch_optional(db)
        .await?,
    )
}

/// Queues `subscriber` for the opening (locked by the caller) at the next place.
pub async fn sign_up(
    db: &mut sqlx::PgConnection,
    opening: OpeningId,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<SignedUp, StoreError> {
    let existing: Option<i32> = sqlx::query_scalar(
        "SELECT place FROM signups WHERE opening_id = $1 AND subscriber_id = $2",
    )
    .bind(opening)
    .bind(subscriber)
    .fetch_optional(&mut *db)
    .await?;
    if let Some(place) = existing {
        return Ok(SignedUp::Already(place));
    }
    let place: i32 = sqlx::query_scalar(
        "INSERT INTO signups (opening_id, subscriber_id, signed_at, place) \
         SELECT $1, $2, $3, COALESCE(max(place), 0) + 1 FROM signups WHERE opening_id = $1 RETURNING place",
    )
    .bind(opening)
    .bind(subscriber)
    .bind(now)
    .fetch_one(&mut *db)
    .await?;
    Ok(SignedUp::Queued(place))
}

/// One subscriber in an opening's queue.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Signup {
    pub subscriber_id: SubscriberId,
    pub display_name: String,
    pub place: i32,
    pub signed_at: DateTime<Utc>,
}

/// The opening's queue, first place first.
pub async fn queue<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
) -> Result<Vec<Signup>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT s.subscriber_id, b.display_name, s.place, s.signed_at FROM signups s \
         JOIN subscribers b ON b.id = s.subscriber_id WHERE s.opening_id = $1 ORDER BY s.place",
    )
    .bind(opening)
    .fetch_all(db)
    .await?)
}

/// The zine's openings of any status, newest first, for the GM.
pub async fn of_zine<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Opening>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{OPENING} WHERE o.zine_id = $1 ORDER BY o.id DESC"
    )))
    .bind(zine)
    .fetch_all(db)
    .await?)
}

/// Marks the opening started as `game`.
pub async fn mark_started<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE openings SET status = 'started', game_id = $2, started_at = $3 WHERE id = $1",
    )
    .bind(opening)
    .bind(game)
    .bind(now)
    .execute(db)
    .await?;
    Ok(())
}

/// The seating seed's game, if `game` was filled by sign-up at random: the opening's secret,
/// from which the revealed seating seed is derived.
pub async fn random_seating_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<Vec<u8>>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT secret_seed FROM openings WHERE game_id = $1 AND seating = 'random' AND status = 'started'",
    )
    .bind(game)
    .fetch_optional(db)
    .await?)
}
