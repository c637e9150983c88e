//! Games: their settings, state, schedule and status, and what the GM's console lists.
//!
//! The engine's setup and state are JSON to the store: it never looks inside.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;
use crate::status::GameStatus;
use crate::zines::ZineId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct GameId(pub i64);

/// A game to record.
#[derive(Debug, Clone)]
pub struct NewGame<'a> {
    pub zine_id: ZineId,
    pub name: &'a str,
    pub engine: &'a str,
    pub setup: &'a serde_json::Value,
    pub state: &'a serde_json::Value,
    /// The game's dice secret: never shown to anyone.
    pub secret: &'a [u8; 32],
}

pub async fn insert_game<'e>(
    db: impl PgExecutor<'e>,
    new: &NewGame<'_>,
    now: DateTime<Utc>,
) -> Result<GameId, StoreError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO games (zine_id, name, engine, setup, state, status, secret_seed, created_at) \
         VALUES ($1, $2, $3, $4, $5, 'running', $6, $7) RETURNING id",
    )
    .bind(new.zine_id)
    .bind(new.name)
    .bind(new.engine)
    .bind(new.setup)
    .bind(new.state)
    .bind(new.secret.as_slice())
    .bind(now)
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a game of that name in this zine"))?;
    Ok(GameId(id))
}

/// Stores the game's state after a turn. The state is JSON text the engine wrote.
pub async fn set_state<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    state: &serde_json::Value,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE games SET state = $2 WHERE id = $1")
        .bind(game)
        .bind(state)
        .execute(db)
        .await?;
    Ok(())
}

/// What resolving a turn needs to know of its game.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameForTurn {
    pub id: GameId,
    pub zine_id: ZineId,
    pub name: String,
    pub engine: String,
    /// The engine's state as JSON text, read by the engine without an intermediate value (a
    /// big game's state is megabytes).
    pub state: String,
    pub secret_seed: Vec<u8>,
    pub schedule: serde_json::Value,
}

/// The game of a turn being resolved, locked for this transaction.
pub async fn game_for_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<GameForTurn, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, zine_id, name, engine, state::text AS state, secret_seed, schedule FROM games \
         WHERE id = $1 FOR UPDATE",
    )
    .bind(game)
    .fetch_one(&mut *tx)
    .await?)
}

/// A game as the GM's actions need it, locked for this transaction.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameForGm {
    pub status: GameStatus,
    pub secret_seed: Vec<u8>,
    pub schedule: serde_json::Value,
    /// While paused: the time that was left to the open turn's deadline, given back on resume.
    pub paused_seconds_left: Option<i64>,
}

pub async fn lock_for_gm(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<Option<GameForGm>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT status, secret_seed, schedule, paused_seconds_left FROM games WHERE id = $1 AND deleted_at IS NULL FOR UPDATE",
    )
    .bind(game)
    .fetch_optional(&mut *tx)
    .await?)
}

/// Stops the game's clock, keeping the time that was left to the open turn's deadline.
pub async fn pause<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    seconds_left: Option<i64>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE games SET status = 'paused', paused_seconds_left = $2 WHERE id = $1")
        .bind(game)
        .bind(seconds_left)
        .execute(db)
        .await?;
    Ok(())
}

/// Starts the game's clock again.
pub async fn resume<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<(), StoreError> {
    sqlx::query("UPDATE games SET status = 'running', paused_seconds_left = NULL WHERE id = $1")
        .bind(game)
        .execute(db)
        .await?;
    Ok(())
}

/// A game's engine name, state (JSON text) and dice secret, for a replay or a preview.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameForReplay {
    pub engine: String,
    pub state: String,
    pub secret_seed: Vec<u8>,
}

pub async fn for_replay<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<GameForReplay>, StoreError> {
    Ok(
        sqlx::query_as("SELECT engine, state::text AS state, secret_seed FROM games WHERE id = $1")
            .bind(game)
            .fetch_optional(db)
            .await?,
    )
}

/// A game's current state as its players see it: the engine name, the state (JSON text), and
/// the seats whose replacement takes effect with the open turn (a JSON list of `{id, name}`,
/// the new holders' names; the engine takes them when that turn resolves).
pub async fn engine_and_state<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<(String, String, serde_json::Value)>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT g.engine, g.state::text, COALESCE(( \
             SELECT jsonb_agg(jsonb_build_object('id', r.engine_player_id, 'name', r.new_name) \
                              ORDER BY r.engine_player_id) \
             FROM (SELECT DISTINCT ON (p.engine_player_id) p.engine_player_id, p.new_name \
                   FROM player_replacements p JOIN turns t ON t.game_id = p.game_id \
                   AND t.status = 'open' AND t.number = p.from_turn \
                   WHERE p.game_id = g.id ORDER BY p.engine_player_id, p.id DESC) r \
         ), '[]'::jsonb) FROM games g WHERE g.id = $1",
    )
    .bind(game)
    .fetch_optional(db)
    .await?)
}

/// A game's setup (the GM's settings), if the game exists. It may name hidden things (fleets
/// before they are revealed): callers show only what the engine draws from it.
pub async fn setup<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<serde_json::Value>, StoreError> {
    Ok(sqlx::query_scalar("SELECT setup FROM games WHERE id = $1")
        .bind(game)
        .fetch_optional(db)
        .await?)
}

/// A game's name, if the game exists.
pub async fn name<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar("SELECT name FROM games WHERE id = $1")
        .bind(game)
        .fetch_optional(db)
        .await?)
}

/// A game's schedule (JSON), if the game exists.
pub async fn schedule<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<serde_json::Value>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT schedule FROM games WHERE id = $1")
            .bind(game)
            .fetch_optional(db)
            .await?,
    )
}

/// The game is over: every sealed seed is revealed, so every turn can be checked by anyone.
/// Whether any turn of the game has been published (or is being: resolved, locked).
pub async fn has_published_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM turns WHERE game_id = $1 AND status <> 'open')",
    )
    .bind(game)
    .fetch_one(&mut *tx)
    .await?)
}

/// Deletes a game that published nothing: its turns and players go (their orders, press and
/// reminders with them), and the row stays as a tombstone that the audit log can name
/// (migration 0030); no page or list shows it. Call under [`lock_for_gm`].
pub async fn delete_unpublished(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM turns WHERE game_id = $1")
        .bind(game)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM players WHERE game_id = $1")
        .bind(game)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE games SET status = 'finished', deleted_at = $2 WHERE id = $1")
        .bind(game)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

pub async fn finish_game(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    sealed_seeds: &[(u32, String)],
) -> Result<(), StoreError> {
    sqlx::query("UPDATE games SET status = 'finished' WHERE id = $1")
        .bind(game)
        .execute(&mut *tx)
        .await?;
    for (number, seed) in sealed_seeds {
        sqlx::query(
            "UPDATE turns SET revealed_sealed_seed = $3 WHERE game_id = $1 AND number = $2",
        )
        .bind(game)
        .bind(i32::try_from(*number).map_err(|e| StoreError::invalid_row("turns.number", e))?)
        .bind(seed)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

pub async fn set_schedule<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    schedule: &serde_json::Value,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE games SET schedule = $2 WHERE id = $1")
        .bind(game)
        .bind(schedule)
        .execute(db)
        .await?;
    Ok(())
}

// --- What the GM's console reads (it sees everything, hidden facts included) ---

/// A game as the GM's console lists it, with its open turn if any.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameSummary {
    pub id: GameId,
    pub zine_id: ZineId,
    pub zine_slug: String,
    pub name: String,
    pub engine: String,
    pub status: GameStatus,
    pub schedule: serde_json::Value,
    pub setup: serde_json::Value,
    pub created_at: DateTime<Utc>,
    pub open_turn: Option<i32>,
    pub deadline: Option<DateTime<Utc>>,
}

const GAME_SUMMARY: &str = "SELECT g.id, g.zine_id, z.slug AS zine_slug, g.name, g.engine, g.status, g.schedule, g.setup, \
     g.created_at, t.number AS open_turn, t.deadline FROM games g JOIN zines z ON z.id = g.zine_id \
     LEFT JOIN turns t ON t.game_id = g.id AND t.status = 'open'";

/// Every game, newest first; only `zine`'s when given.
pub async fn list_summaries<'e>(
    db: impl PgExecutor<'e>,
    zine: Option<ZineId>,
) -> Result<Vec<GameSummary>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{GAME_SUMMARY} WHERE g.deleted_at IS NULL AND ($1::bigint IS NULL OR g.zine_id = $1) ORDER BY g.id DESC"
    )))
    .bind(zine)
    .fetch_all(db)
    .await?)
}

pub async fn summary<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<GameSummary>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{GAME_SUMMARY} WHERE g.id = $1 AND g.deleted_at IS NULL"
    )))
    .bind(game)
    .fetch_optional(db)
    .await?)
}
