//! Missed turns and offers of seats to standbys (issue 18 item 3): each game's limit and who
//! makes offers, each player's turns missed in a row, and the offers themselves.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::games::GameId;
use crate::players::PlayerRowId;
use crate::status::{OfferReason, OfferStatus, StandbyOffers};
use crate::subscribers::SubscriberId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, sqlx::Type)]
#[sqlx(transparent)]
pub struct OfferId(pub i64);

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
    let (limit, offers, offer_days): (Option<i32>, StandbyOffers, i32) = sqlx::query_as(
        "SELECT missed_turns_limit, standby_offers, offer_days FROM games WHERE id = $1",
    )
    .bind(game)
    .fetch_one(db)
    .await?;
    Ok(MissedPolicy {
        limit: limit.and_then(|n| u32::try_from(n).ok()),
        offers,
        offer_days: u32::try_from(offer_days)
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
    sqlx::query(
        "UPDATE games SET missed_turns_limit = $2, standby_offers = $3, offer_days = $4 \
         WHERE id = $1",
    )
    .bind(game)
    .bind(limit)
    .bind(policy.offers)
    .bind(offer_days)
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
    sqlx::query("UPDATE players SET missed_turns = 0 WHERE id = ANY($1) AND missed_turns > 0")
        .bind(ordered.iter().map(|p| p.0).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await?;
    Ok(sqlx::query_as(
        "UPDATE players SET missed_turns = missed_turns + 1 WHERE id = ANY($1) \
         RETURNING id, missed_turns",
    )
    .bind(missed.iter().map(|p| p.0).collect::<Vec<_>>())
    .fetch_all(&mut *tx)
    .await?)
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
    Ok(sqlx::query_scalar(
        "INSERT INTO seat_offers (game_id, player_id, subscriber_id, token, reason, offered_by, \
           offered_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id",
    )
    .bind(new.game_id)
    .bind(new.player)
    .bind(new.subscriber)
    .bind(new.token)
    .bind(new.reason)
    .bind(new.offered_by)
    .bind(now)
    .bind(new.expires_at)
    .fetch_optional(db)
    .await?)
}

/// One offer, as its answer needs it.
#[derive(Debug, Clone, sqlx::FromRow)]
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

/// `SELECT` of [`Offer`]s, then the given condition.
macro_rules! select_offers {
    ($condition:literal) => {
        concat!(
            "SELECT o.id, o.game_id, g.name AS game_name, o.player_id, \
             p.display_name AS holder_name, o.subscriber_id, s.display_name AS subscriber_name, \
             o.reason, o.status, o.offered_at, o.expires_at FROM seat_offers o JOIN games g ON g.id = o.game_id \
             JOIN players p ON p.id = o.player_id JOIN subscribers s ON s.id = o.subscriber_id ",
            $condition
        )
    };
}

/// The offer, locked for this transaction.
pub async fn lock(tx: &mut sqlx::PgConnection, id: OfferId) -> Result<Option<Offer>, StoreError> {
    Ok(
        sqlx::query_as(select_offers!("WHERE o.id = $1 FOR UPDATE OF o"))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?,
    )
}

/// The offer a reply token belongs to, whatever its status.
pub async fn of_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Option<Offer>, StoreError> {
    Ok(sqlx::query_as(select_offers!("WHERE o.token = $1"))
        .bind(token)
        .fetch_optional(db)
        .await?)
}

/// The open offers made to a subscriber, oldest first.
pub async fn open_to_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<Offer>, StoreError> {
    Ok(sqlx::query_as(select_offers!(
        "WHERE o.subscriber_id = $1 AND o.status = 'open' AND g.status <> 'finished' \
         ORDER BY o.offered_at, o.id"
    ))
    .bind(subscriber)
    .fetch_all(db)
    .await?)
}

/// The game's open offers, oldest first.
pub async fn open_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<Offer>, StoreError> {
    Ok(sqlx::query_as(select_offers!(
        "WHERE o.game_id = $1 AND o.status = 'open' ORDER BY o.offered_at, o.id"
    ))
    .bind(game)
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
    Ok(sqlx::query(
        "UPDATE seat_offers SET status = $2, decided_at = $3 WHERE id = $1 AND status = 'open'",
    )
    .bind(id)
    .bind(status)
    .bind(now)
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
    let offers: Vec<Offer> = sqlx::query_as(select_offers!(
        "WHERE o.player_id = $1 AND o.status = 'open' FOR UPDATE OF o"
    ))
    .bind(player)
    .fetch_all(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE seat_offers SET status = 'lapsed', decided_at = $2 \
         WHERE player_id = $1 AND status = 'open'",
    )
    .bind(player)
    .bind(now)
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
    Ok(sqlx::query_scalar(
        "SELECT subscriber_id FROM seat_offers WHERE player_id = $1 \
         AND status IN ('open', 'declined', 'expired')",
    )
    .bind(player)
    .fetch_all(db)
    .await?)
}

/// Subscribers holding an open offer of any seat of the game: one seat at a time each.
pub async fn holders_of_open_offers<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<SubscriberId>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT DISTINCT subscriber_id FROM seat_offers WHERE game_id = $1 AND status = 'open'",
    )
    .bind(game)
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
    Ok(sqlx::query(
        "UPDATE seat_offers SET status = 'lapsed', decided_at = $3 \
         WHERE game_id = $1 AND subscriber_id = $2 AND status = 'open'",
    )
    .bind(game)
    .bind(subscriber)
    .bind(now)
    .execute(db)
    .await?
    .rows_affected())
}

/// Expires the open offers unanswered by `now`, locked for this transaction; returns them.
pub async fn expire_due(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
) -> Result<Vec<Offer>, StoreError> {
    let expired: Vec<OfferId> = sqlx::query_scalar(
        "UPDATE seat_offers SET status = 'expired', decided_at = $1 \
         WHERE id IN (SELECT id FROM seat_offers WHERE status = 'open' AND expires_at <= $1 \
                      ORDER BY expires_at, id LIMIT 500 FOR UPDATE SKIP LOCKED) \
         RETURNING id",
    )
    .bind(now)
    .fetch_all(&mut *tx)
    .await?;
    Ok(sqlx::query_as(select_offers!(
        "WHERE o.id = ANY($1) ORDER BY o.expires_at, o.id"
    ))
    .bind(expired.iter().map(|id| id.0).collect::<Vec<_>>())
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
    Ok(sqlx::query(
        "UPDATE seat_offers SET status = 'lapsed', decided_at = $2 \
         WHERE player_id = ANY($1) AND status = 'open' AND reason = 'missed'",
    )
    .bind(players.iter().map(|p| p.0).collect::<Vec<_>>())
    .bind(now)
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
    let offers: Vec<Offer> = sqlx::query_as(select_offers!(
        "WHERE o.player_id = $1 AND o.status = 'open' AND o.reason = 'missed' FOR UPDATE OF o"
    ))
    .bind(player)
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
    Ok(sqlx::query(
        "UPDATE seat_offers o SET status = 'lapsed', decided_at = $2 FROM players p \
         WHERE p.id = o.player_id AND o.game_id = $1 AND o.status = 'open' AND p.status <> 'active'",
    )
    .bind(game)
    .bind(now)
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
    Ok(sqlx::query(
        "UPDATE seat_offers SET status = 'lapsed', decided_at = $2 WHERE game_id = $1 AND status = 'open'",
    )
    .bind(game)
    .bind(now)
    .execute(db)
    .await?
    .rows_affected())
}
