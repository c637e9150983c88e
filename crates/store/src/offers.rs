//! Missed turns and offers of seats to standbys (issue 18 item 3): each game's limit and who
//! makes offers, each player's turns missed in a row, and the offers themselves.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::GameId;
use crate::ids::PlayerRowId;
use crate::ids::SubscriberId;
use crate::status::{GameStatus, OfferReason, OfferStatus, PlayerStatus, StandbyOffers};

pub use crate::ids::OfferId;

/// A game's missed-turns limit (`None`: the engine's default), who offers seats, and how many
/// days an offer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissedPolicy {
    pub limit: Option<u32>,
    pub offers: StandbyOffers,
    pub offer_days: u32,
}

impl MissedPolicy {
    /// How long an offer stands unless the GM chooses otherwise (`games.offer_days`).
    pub const DEFAULT_OFFER_DAYS: u32 = 3;
}

impl Default for MissedPolicy {
    /// A new game's: the engine's limit, offers made by the GM, standing three days.
    fn default() -> Self {
        Self {
            limit: None,
            offers: StandbyOffers::Gm,
            offer_days: Self::DEFAULT_OFFER_DAYS,
        }
    }
}

pub async fn policy<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<MissedPolicy, StoreError> {
    let row = sqlx::query!(
        r#"SELECT missed_turns_limit, standby_offers AS "offers: StandbyOffers", offer_days
           FROM games WHERE id = $1"#,
        game as GameId,
    )
    .fetch_one(db)
    .await?;
    Ok(MissedPolicy {
        limit: row
            .missed_turns_limit
            .map(u32::try_from)
            .transpose()
            .map_err(|e| StoreError::invalid_row("games.missed_turns_limit", e))?,
        offers: row.offers,
        offer_days: u32::try_from(row.offer_days)
            .map_err(|e| StoreError::invalid_row("games.offer_days", e))?,
    })
}

pub async fn set_policy<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    policy: MissedPolicy,
) -> Result<(), StoreError> {
    let limit = policy
        .limit
        .map(i32::try_from)
        .transpose()
        .map_err(|e| StoreError::invalid_row("games.missed_turns_limit", e))?;
    let offer_days = i32::try_from(policy.offer_days)
        .map_err(|e| StoreError::invalid_row("games.offer_days", e))?;
    sqlx::query!(
        "UPDATE games SET missed_turns_limit = $2, standby_offers = $3, offer_days = $4
         WHERE id = $1",
        game as GameId,
        limit,
        policy.offers as StandbyOffers,
        offer_days,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Counts a resolved turn: `missed` players' runs of missed turns grow by one, `ordered`
/// players' start again at 0. Returns each missed player's new count.
pub async fn count_turn(
    tx: &mut sqlx::PgConnection,
    missed: &[PlayerRowId],
    ordered: &[PlayerRowId],
) -> Result<Vec<(PlayerRowId, i32)>, StoreError> {
    sqlx::query!(
        "UPDATE players SET missed_turns = 0 WHERE id = ANY($1) AND missed_turns > 0",
        ordered as &[PlayerRowId],
    )
    .execute(&mut *tx)
    .await?;
    let rows = sqlx::query!(
        r#"UPDATE players SET missed_turns = missed_turns + 1 WHERE id = ANY($1)
           RETURNING id AS "id: PlayerRowId", missed_turns"#,
        missed as &[PlayerRowId],
    )
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.id, row.missed_turns))
        .collect())
}

#[derive(Debug, Clone)]
pub struct NewOffer<'a> {
    pub game_id: GameId,
    pub player: PlayerRowId,
    pub subscriber: SubscriberId,
    pub token: &'a str,
    pub reason: OfferReason,
    pub offered_by: &'a str,
    /// Unanswered by then, the offer expires.
    pub expires_at: DateTime<Utc>,
}

/// Records an offer; `None` when that subscriber holds an open offer of that seat already.
pub async fn insert<'e>(
    db: impl PgExecutor<'e>,
    new: &NewOffer<'_>,
    now: DateTime<Utc>,
) -> Result<Option<OfferId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"INSERT INTO seat_offers (game_id, player_id, subscriber_id, token, reason, offered_by,
             offered_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id AS "id: OfferId""#,
        new.game_id as GameId,
        new.player as PlayerRowId,
        new.subscriber as SubscriberId,
        new.token,
        new.reason as OfferReason,
        new.offered_by,
        now,
        new.expires_at,
    )
    .fetch_optional(db)
    .await?)
}

/// One offer, as its answer needs it.
#[derive(Debug, Clone)]
pub struct Offer {
    pub id: OfferId,
    pub game_id: GameId,
    pub game_name: String,
    pub player_id: PlayerRowId,
    /// The seat's holder when the offer was read.
    pub holder_name: String,
    pub subscriber_id: SubscriberId,
    pub subscriber_name: String,
    pub reason: OfferReason,
    pub status: OfferStatus,
    pub offered_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// [`Offer`]s: the query with the given condition, its parameters from `$1` on.
macro_rules! offers {
    ($condition:literal, $($param:expr),+ $(,)?) => {
        sqlx::query_as!(
            Offer,
            r#"SELECT o.id AS "id: OfferId", o.game_id AS "game_id: GameId", g.name AS game_name,
                      o.player_id AS "player_id: PlayerRowId", p.display_name AS holder_name,
                      o.subscriber_id AS "subscriber_id: SubscriberId",
                      s.display_name AS subscriber_name, o.reason AS "reason: OfferReason",
                      o.status AS "status: OfferStatus", o.offered_at, o.expires_at
               FROM seat_offers o JOIN games g ON g.id = o.game_id
               JOIN players p ON p.id = o.player_id JOIN subscribers s ON s.id = o.subscriber_id "#
                + $condition,
            $($param),+
        )
    };
}

/// The offer, locked for this transaction.
pub async fn lock(tx: &mut sqlx::PgConnection, id: OfferId) -> Result<Option<Offer>, StoreError> {
    Ok(offers!("WHERE o.id = $1 FOR UPDATE OF o", id as OfferId)
        .fetch_optional(&mut *tx)
        .await?)
}

/// The offer a reply token belongs to, whatever its status.
pub async fn of_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Option<Offer>, StoreError> {
    Ok(offers!("WHERE o.token = $1", token)
        .fetch_optional(db)
        .await?)
}

/// The open offers made to a subscriber, oldest first.
pub async fn open_to_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<Offer>, StoreError> {
    Ok(offers!(
        "WHERE o.subscriber_id = $1 AND o.status = $2 AND g.status <> $3
         ORDER BY o.offered_at, o.id",
        subscriber as SubscriberId,
        OfferStatus::Open as OfferStatus,
        GameStatus::Finished as GameStatus,
    )
    .fetch_all(db)
    .await?)
}

/// The game's open offers, oldest first.
pub async fn open_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<Offer>, StoreError> {
    Ok(offers!(
        "WHERE o.game_id = $1 AND o.status = $2 ORDER BY o.offered_at, o.id",
        game as GameId,
        OfferStatus::Open as OfferStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Closes an open offer with `status`; false when it was not open.
pub async fn close<'e>(
    db: impl PgExecutor<'e>,
    id: OfferId,
    status: OfferStatus,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    Ok(sqlx::query!(
        "UPDATE seat_offers SET status = $2, decided_at = $3 WHERE id = $1 AND status = $4",
        id as OfferId,
        status as OfferStatus,
        now,
        OfferStatus::Open as OfferStatus,
    )
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}

/// Lapses the seat's open offers (the seat was filled, or its player came back): the offers,
/// as they were, for telling their standbys.
pub async fn lapse_open_of_player(
    tx: &mut sqlx::PgConnection,
    player: PlayerRowId,
    now: DateTime<Utc>,
) -> Result<Vec<Offer>, StoreError> {
    let offers: Vec<Offer> = offers!(
        "WHERE o.player_id = $1 AND o.status = $2 FOR UPDATE OF o",
        player as PlayerRowId,
        OfferStatus::Open as OfferStatus,
    )
    .fetch_all(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE seat_offers SET status = $3, decided_at = $2
         WHERE player_id = $1 AND status = $4",
        player as PlayerRowId,
        now,
        OfferStatus::Lapsed as OfferStatus,
        OfferStatus::Open as OfferStatus,
    )
    .execute(&mut *tx)
    .await?;
    Ok(offers)
}

/// Subscribers who were offered this seat and declined it or let the offer expire, or hold an
/// open offer of it: an automatic offer goes to someone else.
pub async fn asked_already<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
) -> Result<Vec<SubscriberId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT subscriber_id AS "id: SubscriberId" FROM seat_offers WHERE player_id = $1
           AND status IN ($2, $3, $4)"#,
        player as PlayerRowId,
        OfferStatus::Open as OfferStatus,
        OfferStatus::Declined as OfferStatus,
        OfferStatus::Expired as OfferStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Subscribers holding an open offer of any seat of the game: one seat at a time each.
pub async fn holders_of_open_offers<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<SubscriberId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT DISTINCT subscriber_id AS "id: SubscriberId" FROM seat_offers
           WHERE game_id = $1 AND status = $2"#,
        game as GameId,
        OfferStatus::Open as OfferStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Lapses the subscriber's open offers of the game's seats (they took one).
pub async fn lapse_open_to_subscriber<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    subscriber: SubscriberId,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "UPDATE seat_offers SET status = $4, decided_at = $3
         WHERE game_id = $1 AND subscriber_id = $2 AND status = $5",
        game as GameId,
        subscriber as SubscriberId,
        now,
        OfferStatus::Lapsed as OfferStatus,
        OfferStatus::Open as OfferStatus,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// Expires the open offers unanswered by `now`, locked for this transaction; returns them.
pub async fn expire_due(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
) -> Result<Vec<Offer>, StoreError> {
    let expired = sqlx::query_scalar!(
        r#"UPDATE seat_offers SET status = $2, decided_at = $1
           WHERE id IN (SELECT id FROM seat_offers WHERE status = $3 AND expires_at <= $1
                        ORDER BY expires_at, id LIMIT 500 FOR UPDATE SKIP LOCKED)
           RETURNING id AS "id: OfferId""#,
        now,
        OfferStatus::Expired as OfferStatus,
        OfferStatus::Open as OfferStatus,
    )
    .fetch_all(&mut *tx)
    .await?;
    Ok(offers!(
        "WHERE o.id = ANY($1) ORDER BY o.expires_at, o.id",
        &expired as &[OfferId]
    )
    .fetch_all(&mut *tx)
    .await?)
}

/// Lapses the open offers made for missed turns of these players' seats (they ordered again),
/// in one statement; returns how many.
pub async fn lapse_missed_of_players<'e>(
    db: impl PgExecutor<'e>,
    players: &[PlayerRowId],
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "UPDATE seat_offers SET status = $3, decided_at = $2
         WHERE player_id = ANY($1) AND status = $4 AND reason = $5",
        players as &[PlayerRowId],
        now,
        OfferStatus::Lapsed as OfferStatus,
        OfferStatus::Open as OfferStatus,
        OfferReason::Missed as OfferReason,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// Lapses the open offers made for `player`'s missed turns (they came back): the offers, as
/// they were, for telling their standbys.
pub async fn lapse_missed_of_player(
    tx: &mut sqlx::PgConnection,
    player: PlayerRowId,
    now: DateTime<Utc>,
) -> Result<Vec<Offer>, StoreError> {
    let offers: Vec<Offer> = offers!(
        "WHERE o.player_id = $1 AND o.status = $2 AND o.reason = $3 FOR UPDATE OF o",
        player as PlayerRowId,
        OfferStatus::Open as OfferStatus,
        OfferReason::Missed as OfferReason,
    )
    .fetch_all(&mut *tx)
    .await?;
    if !offers.is_empty() {
        lapse_missed_of_players(&mut *tx, &[player], now).await?;
    }
    Ok(offers)
}

/// Lapses the open offers of the game's seats whose players are no longer active: a turn has
/// resolved with them leaving the game, so there is no seat left to take. Returns how many.
pub async fn lapse_open_of_departed<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "UPDATE seat_offers o SET status = $3, decided_at = $2 FROM players p
         WHERE p.id = o.player_id AND o.game_id = $1 AND o.status = $4 AND p.status <> $5",
        game as GameId,
        now,
        OfferStatus::Lapsed as OfferStatus,
        OfferStatus::Open as OfferStatus,
        PlayerStatus::Active as PlayerStatus,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// Lapses every open offer of the game's seats (it ended); returns how many.
pub async fn lapse_open_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "UPDATE seat_offers SET status = $3, decided_at = $2 WHERE game_id = $1 AND status = $4",
        game as GameId,
        now,
        OfferStatus::Lapsed as OfferStatus,
        OfferStatus::Open as OfferStatus,
    )
    .execute(db)
    .await?
    .rows_affected())
}
