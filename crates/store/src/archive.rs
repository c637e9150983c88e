//! What readers may see of a zine's games: the public archive's queries.
//!
//! Every query here selects public columns only. The game's secret, a turn's `state_before`
//! (it holds hidden facts) and orders of a game still running are never read; the one state
//! read ([`PublishedTurn::state_after`]) goes to the engine's public view before anyone sees it.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::games::GameId;
use crate::status::GameStatus;
use crate::zines::ZineId;

/// A game as its zine's readers see it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PublicGame {
    pub id: GameId,
    pub name: String,
    pub engine: String,
    pub status: GameStatus,
    pub created_at: DateTime<Utc>,
    /// The turn taking orders, if any.
    pub open_turn: Option<i32>,
    pub open_deadline: Option<DateTime<Utc>>,
    /// The game's time zone (IANA name) from its schedule; none for games made before it.
    pub time_zone: Option<String>,
    pub open_seed_commitment: Option<String>,
    pub open_sealed_commitment: Option<String>,
    /// The last turn whose report is published.
    pub last_published: Option<i32>,
}

macro_rules! game_columns {
    () => {
        "SELECT g.id, g.name, g.engine, g.status, g.created_at, \
     o.number AS open_turn, o.deadline AS open_deadline, o.seed_commitment AS open_seed_commitment, \
     o.sealed_commitment AS open_sealed_commitment, g.schedule->>'zone' AS time_zone, \
     (SELECT max(t.number) FROM turns t WHERE t.game_id = g.id AND t.status = 'published') AS last_published \
     FROM games g LEFT JOIN turns o ON o.game_id = g.id AND o.status = 'open'"
    };
}

/// A zine's games, oldest first.
pub async fn games<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<PublicGame>, StoreError> {
    Ok(sqlx::query_as(concat!(
        game_columns!(),
        " WHERE g.zine_id = $1 AND g.deleted_at IS NULL ORDER BY g.created_at, g.id"
    ))
    .bind(zine)
    .fetch_all(db)
    .await?)
}

/// One game of a zine (a game id of another zine is not found).
pub async fn game<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    game: GameId,
) -> Result<Option<PublicGame>, StoreError> {
    Ok(sqlx::query_as(concat!(
        game_columns!(),
        " WHERE g.zine_id = $1 AND g.id = $2 AND g.deleted_at IS NULL"
    ))
    .bind(zine)
    .bind(game)
    .fetch_optional(db)
    .await?)
}

/// A turn that has been published, with its seeds as far as they are revealed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PublicTurn {
    pub number: i32,
    pub seed_commitment: String,
    pub sealed_commitment: Option<String>,
    /// Revealed at resolution.
    pub revealed_seed: Option<String>,
    /// Revealed when the game is over.
    pub revealed_sealed_seed: Option<String>,
    pub published_at: DateTime<Utc>,
}

/// A game's published turns, in order.
pub async fn published_turns<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<PublicTurn>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.number, t.seed_commitment, t.sealed_commitment, t.revealed_seed, t.revealed_sealed_seed, \
         r.published_at FROM turns t JOIN published_reports r ON r.turn_id = t.id \
         WHERE t.game_id = $1 ORDER BY t.number",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// One published turn with its report and the state after it, for the public board picture.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PublishedTurn {
    pub turn_id: i64,
    pub number: i32,
    pub seed_commitment: String,
    pub sealed_commitment: Option<String>,
    pub revealed_seed: Option<String>,
    pub revealed_sealed_seed: Option<String>,
    pub text: String,
    /// The structured report (`engine::Report` as JSON); NULL in rows older than migration 5.
    pub report: Option<serde_json::Value>,
    pub published_at: DateTime<Utc>,
    /// The engine's state right after this turn: the next turn's `state_before`, or the game's
    /// state for the latest turn. It holds hidden facts: only the engine's public view of it
    /// may be shown.
    pub state_after: serde_json::Value,
    pub previous: Option<i32>,
    pub next: Option<i32>,
}

pub async fn published_turn<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    number: i32,
) -> Result<Option<PublishedTurn>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.id AS turn_id, t.number, t.seed_commitment, t.sealed_commitment, t.revealed_seed, \
         t.revealed_sealed_seed, r.text, r.report, r.published_at, \
         COALESCE((SELECT n.state_before FROM turns n WHERE n.game_id = t.game_id AND n.number > t.number \
                   AND n.state_before IS NOT NULL ORDER BY n.number LIMIT 1), g.state) AS state_after, \
         (SELECT max(p.number) FROM turns p JOIN published_reports pr ON pr.turn_id = p.id \
          WHERE p.game_id = t.game_id AND p.number < t.number) AS previous, \
         (SELECT min(p.number) FROM turns p JOIN published_reports pr ON pr.turn_id = p.id \
          WHERE p.game_id = t.game_id AND p.number > t.number) AS next \
         FROM turns t JOIN published_reports r ON r.turn_id = t.id JOIN games g ON g.id = t.game_id \
         WHERE t.game_id = $1 AND t.number = $2",
    )
    .bind(game)
    .bind(number)
    .fetch_optional(db)
    .await?)
}

/// A published report, for feeds.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct FeedReport {
    pub game_id: GameId,
    pub game_name: String,
    pub number: i32,
    pub text: String,
    pub published_at: DateTime<Utc>,
}

macro_rules! feed_columns {
    () => {
        "SELECT g.id AS game_id, g.name AS game_name, t.number, r.text, r.published_at \
         FROM published_reports r JOIN turns t ON t.id = r.turn_id JOIN games g ON g.id = t.game_id"
    };
}

/// The latest `limit` published reports of a zine's games, newest first.
pub async fn zine_feed<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    limit: i64,
) -> Result<Vec<FeedReport>, StoreError> {
    Ok(sqlx::query_as(concat!(
        feed_columns!(),
        " WHERE g.zine_id = $1 ORDER BY r.published_at DESC, r.id DESC LIMIT $2"
    ))
    .bind(zine)
    .bind(limit)
    .fetch_all(db)
    .await?)
}

/// The latest `limit` published reports of one game, newest first.
pub async fn game_feed<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    limit: i64,
) -> Result<Vec<FeedReport>, StoreError> {
    Ok(sqlx::query_as(concat!(
        feed_columns!(),
        " WHERE g.id = $1 ORDER BY t.number DESC, r.id DESC LIMIT $2"
    ))
    .bind(game)
    .bind(limit)
    .fetch_all(db)
    .await?)
}

/// One player's orders for one published turn, as written.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct HistoricOrders {
    pub number: i32,
    pub player: String,
    pub raw_text: String,
}

/// Every player's orders that counted, turn by turn — only for a finished game: while a game
/// runs, orders are the players' own business (and pending ones must never show).
pub async fn finished_game_orders<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<HistoricOrders>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.number, p.display_name AS player, o.raw_text \
         FROM orders o JOIN turns t ON t.id = o.turn_id JOIN players p ON p.id = o.player_id \
         JOIN games g ON g.id = t.game_id JOIN published_reports r ON r.turn_id = t.id \
         WHERE t.game_id = $1 AND g.status = 'finished' AND o.superseded_at IS NULL \
         ORDER BY t.number, p.engine_player_id",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}
