//! Games open for sign-up (`openings`) and the subscribers queued for them (`signups`).

use chrono::{DateTime, Utc};
use games::{AnySetup, EngineKind};
use schedule::{Schedule, Tz};
use sqlx::PgExecutor;
use sqlx::types::Json;

use crate::StoreError;
use crate::games::{GameId, engine_of, setup_of};
use crate::ids::SubscriberId;
use crate::ids::ZineId;
use crate::status::{OpeningStatus, Seating};

pub use crate::ids::OpeningId;

#[derive(Debug, Clone)]
pub struct NewOpening<'a> {
    pub zine_id: ZineId,
    pub name: &'a str,
    pub setup: &'a AnySetup,
    pub schedule: Schedule,
    pub seats: u32,
    pub seating: Seating,
    pub secret: &'a [u8; 32],
    /// The game's time zone.
    pub zone: Tz,
    /// The first turn's deadline as the GM typed it, if any.
    pub first_deadline: Option<DateTime<Utc>>,
}

pub async fn insert_opening<'e>(
    db: impl PgExecutor<'e>,
    new: &NewOpening<'_>,
    now: DateTime<Utc>,
) -> Result<OpeningId, StoreError> {
    sqlx::query_scalar!(
        r#"INSERT INTO openings (zine_id, name, engine, setup, schedule, seats, seating, secret_seed, created_at, time_zone, status, first_deadline)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id AS "id: OpeningId""#,
        new.zine_id as ZineId,
        new.name,
        new.setup.kind().name(),
        Json(new.setup) as _,
        Json(new.schedule) as _,
        i32::try_from(new.seats).map_err(|e| StoreError::invalid_row("openings.seats", e))?,
        new.seating as Seating,
        &new.secret[..],
        now,
        new.zone.name(),
        OpeningStatus::Open as OpeningStatus,
        new.first_deadline,
    )
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a game open for sign-up by that name"))
}

/// A game open for sign-up, as the GM and the service know it (the secret included).
#[derive(Debug, Clone)]
pub struct Opening {
    pub id: OpeningId,
    pub zine_id: ZineId,
    pub name: String,
    pub engine: EngineKind,
    pub setup: AnySetup,
    pub schedule: Schedule,
    pub seats: i32,
    pub seating: Seating,
    /// The game's dice secret, made when the sign-up opened: never shown to anyone.
    pub secret_seed: [u8; 32],
    pub status: OpeningStatus,
    pub game_id: Option<GameId>,
    pub created_at: DateTime<Utc>,
    /// The game's time zone.
    pub zone: Tz,
    /// The first turn's deadline as the GM typed it, if any.
    pub first_deadline: Option<DateTime<Utc>>,
    /// How many have signed up.
    pub signed: i64,
}

/// [`Opening`]s: the query with the given condition, its parameters from `$1` on.
macro_rules! openings {
    ($db:expr, $condition:literal, $($param:expr),+ $(,)?) => {{
        let rows = sqlx::query!(
            r#"SELECT o.id AS "id: OpeningId", o.zine_id AS "zine_id: ZineId", o.name, o.engine,
                      o.setup, o.schedule AS "schedule: Json<Schedule>", o.seats,
                      o.seating AS "seating: Seating", o.secret_seed,
                      o.status AS "status: OpeningStatus", o.game_id AS "game_id: GameId",
                      o.created_at, o.time_zone, o.first_deadline,
                      (SELECT count(*) FROM signups s WHERE s.opening_id = o.id) AS "signed!"
               FROM openings o "#
                + $condition,
            $($param),+
        )
        .fetch_all($db)
        .await?;
        rows.into_iter()
            .map(|row| {
                let engine = engine_of("openings.engine", &row.engine)?;
                Ok(Opening {
                    id: row.id,
                    zine_id: row.zine_id,
                    name: row.name,
                    engine,
                    setup: setup_of("openings.setup", engine, &row.setup)?,
                    schedule: row.schedule.0,
                    seats: row.seats,
                    seating: row.seating,
                    secret_seed: row
                        .secret_seed
                        .as_slice()
                        .try_into()
                        .map_err(|_| StoreError::invalid_row("openings.secret_seed", "not 32 bytes"))?,
                    status: row.status,
                    game_id: row.game_id,
                    created_at: row.created_at,
                    zone: row
                        .time_zone
                        .parse()
                        .map_err(|e| StoreError::invalid_row("openings.time_zone", e))?,
                    first_deadline: row.first_deadline,
                    signed: row.signed,
                })
            })
            .collect::<Result<Vec<Opening>, StoreError>>()
    }};
}

/// One opening, as it is now.
pub async fn find<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
) -> Result<Option<Opening>, StoreError> {
    Ok(openings!(db, "WHERE o.id = $1", opening as OpeningId)?
        .into_iter()
        .next())
}

/// One opening, locked for the caller's transaction (sign-ups and starts queue behind it).
pub async fn lock<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
) -> Result<Option<Opening>, StoreError> {
    Ok(
        openings!(db, "WHERE o.id = $1 FOR UPDATE OF o", opening as OpeningId)?
            .into_iter()
            .next(),
    )
}

/// The zine's game open for sign-up called `name` (case and outer spaces ignored), locked.
pub async fn lock_open_by_name<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    name: &str,
) -> Result<Option<Opening>, StoreError> {
    Ok(openings!(
        db,
        "WHERE o.zine_id = $1 AND o.status = $3 AND lower(btrim(o.name)) = lower(btrim($2))
         FOR UPDATE OF o",
        zine as ZineId,
        name,
        OpeningStatus::Open as OpeningStatus,
    )?
    .into_iter()
    .next())
}

/// The zine's newest opening called `name` (case and outer spaces ignored), whatever its
/// status: what a JOIN that came too late is told about.
pub async fn newest_by_name<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    name: &str,
) -> Result<Option<Opening>, StoreError> {
    Ok(openings!(
        db,
        "WHERE o.zine_id = $1 AND lower(btrim(o.name)) = lower(btrim($2))
         ORDER BY o.id DESC LIMIT 1",
        zine as ZineId,
        name,
    )?
    .into_iter()
    .next())
}

/// The zine's games open for sign-up, oldest first, with how many have signed up: what `LIST`,
/// the public zine page and the zine's issue show.
pub async fn open_for_signup<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Opening>, StoreError> {
    openings!(
        db,
        "WHERE o.zine_id = $1 AND o.status = $2 ORDER BY o.id",
        zine as ZineId,
        OpeningStatus::Open as OpeningStatus,
    )
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
    Ok(sqlx::query_scalar!(
        "SELECT place FROM signups WHERE opening_id = $1 AND subscriber_id = $2",
        opening as OpeningId,
        subscriber as SubscriberId,
    )
    .fetch_optional(db)
    .await?)
}

/// Queues `subscriber` for the opening (locked by the caller) at the next place.
pub async fn sign_up(
    db: &mut sqlx::PgConnection,
    opening: OpeningId,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<SignedUp, StoreError> {
    let existing = place_of(&mut *db, opening, subscriber).await?;
    if let Some(place) = existing {
        return Ok(SignedUp::Already(place));
    }
    let place = sqlx::query_scalar!(
        "INSERT INTO signups (opening_id, subscriber_id, signed_at, place)
         SELECT $1, $2, $3, COALESCE(max(place), 0) + 1 FROM signups WHERE opening_id = $1 RETURNING place",
        opening as OpeningId,
        subscriber as SubscriberId,
        now,
    )
    .fetch_one(&mut *db)
    .await?;
    Ok(SignedUp::Queued(place))
}

/// One subscriber in an opening's queue.
#[derive(Debug, Clone)]
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
    Ok(sqlx::query_as!(
        Signup,
        r#"SELECT s.subscriber_id AS "subscriber_id: SubscriberId", b.display_name, s.place, s.signed_at
           FROM signups s JOIN subscribers b ON b.id = s.subscriber_id
           WHERE s.opening_id = $1 ORDER BY s.place"#,
        opening as OpeningId,
    )
    .fetch_all(db)
    .await?)
}

/// The zine's openings of any status, newest first, for the GM.
pub async fn of_zine<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<Opening>, StoreError> {
    openings!(
        db,
        "WHERE o.zine_id = $1 ORDER BY o.id DESC",
        zine as ZineId
    )
}

/// Marks the opening started as `game`.
pub async fn mark_started<'e>(
    db: impl PgExecutor<'e>,
    opening: OpeningId,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE openings SET status = $4, game_id = $2, started_at = $3 WHERE id = $1",
        opening as OpeningId,
        game as GameId,
        now,
        OpeningStatus::Started as OpeningStatus,
    )
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
    Ok(sqlx::query_scalar!(
        "SELECT secret_seed FROM openings WHERE game_id = $1 AND seating = $2 AND status = $3",
        game as GameId,
        Seating::Random as Seating,
        OpeningStatus::Started as OpeningStatus,
    )
    .fetch_optional(db)
    .await?)
}
