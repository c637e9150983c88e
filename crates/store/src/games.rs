//! Games: their settings, state, schedule and status, and what the GM's console lists.
//!
//! A game's engine, setup and schedule are read into their types here, once: a row whose
//! values those types refuse is an error ([`StoreError::InvalidRow`]), never a default. The
//! state stays JSON text to the store (a big game's is megabytes): the service parses it once
//! per open turn and caches it.

use chrono::{DateTime, Utc};
use games::{AnySetup, AnyState, EngineKind};
use schedule::ScheduleSettings;
use sqlx::PgExecutor;
use sqlx::types::Json;

use crate::StoreError;
use crate::ids::ZineId;
use crate::status::{GameStatus, TurnStatus};

pub use crate::ids::GameId;

/// Reads an engine's name from a row.
pub(crate) fn engine_of(column: &'static str, name: &str) -> Result<EngineKind, StoreError> {
    name.parse().map_err(|e| StoreError::invalid_row(column, e))
}

/// Reads a stored setup with its engine.
pub(crate) fn setup_of(
    column: &'static str,
    engine: EngineKind,
    setup: &serde_json::Value,
) -> Result<AnySetup, StoreError> {
    engine
        .parse_setup(setup)
        .map_err(|e| StoreError::invalid_row(column, e))
}

/// A game to record.
#[derive(Debug, Clone)]
pub struct NewGame<'a> {
    pub zine_id: ZineId,
    pub name: &'a str,
    pub setup: &'a AnySetup,
    pub state: &'a AnyState,
    pub schedule: &'a ScheduleSettings,
    /// The game's dice secret: never shown to anyone.
    pub secret: &'a [u8; 32],
}

pub async fn insert_game<'e>(
    db: impl PgExecutor<'e>,
    new: &NewGame<'_>,
    now: DateTime<Utc>,
) -> Result<GameId, StoreError> {
    sqlx::query_scalar!(
        r#"INSERT INTO games (zine_id, name, engine, setup, state, schedule, status, secret_seed, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id AS "id: GameId""#,
        new.zine_id as ZineId,
        new.name,
        new.setup.kind().name(),
        Json(new.setup) as _,
        Json(new.state) as _,
        Json(new.schedule) as _,
        GameStatus::Running as GameStatus,
        new.secret.as_slice(),
        now,
    )
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a game of that name in this zine"))
}

/// Stores the game's state after a turn, written without an intermediate value.
pub async fn set_state<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    state: &AnyState,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE games SET state = $2 WHERE id = $1",
        game as GameId,
        Json(state) as _,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// What resolving a turn needs to know of its game.
#[derive(Debug, Clone)]
pub struct GameForTurn {
    pub id: GameId,
    pub zine_id: ZineId,
    pub name: String,
    pub engine: EngineKind,
    /// The engine's state as JSON text, read by the engine without an intermediate value (a
    /// big game's state is megabytes).
    pub state: String,
    pub secret_seed: Vec<u8>,
    pub schedule: ScheduleSettings,
}

/// The game of a turn being resolved, locked for this transaction.
pub async fn game_for_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<GameForTurn, StoreError> {
    let row = sqlx::query!(
        r#"SELECT id AS "id: GameId", zine_id AS "zine_id: ZineId", name, engine,
                  state::text AS "state!", secret_seed,
                  schedule AS "schedule: Json<ScheduleSettings>"
           FROM games WHERE id = $1 FOR UPDATE"#,
        game as GameId,
    )
    .fetch_one(&mut *tx)
    .await?;
    Ok(GameForTurn {
        id: row.id,
        zine_id: row.zine_id,
        name: row.name,
        engine: engine_of("games.engine", &row.engine)?,
        state: row.state,
        secret_seed: row.secret_seed,
        schedule: row.schedule.0,
    })
}

/// A game as the GM's actions need it, locked for this transaction.
#[derive(Debug, Clone)]
pub struct GameForGm {
    pub status: GameStatus,
    pub secret_seed: Vec<u8>,
    pub schedule: ScheduleSettings,
    /// While paused: the time that was left to the open turn's deadline, given back on resume.
    pub paused_seconds_left: Option<i64>,
}

pub async fn lock_for_gm(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<Option<GameForGm>, StoreError> {
    let row = sqlx::query!(
        r#"SELECT status AS "status: GameStatus", secret_seed,
                  schedule AS "schedule: Json<ScheduleSettings>", paused_seconds_left
           FROM games WHERE id = $1 AND deleted_at IS NULL FOR UPDATE"#,
        game as GameId,
    )
    .fetch_optional(&mut *tx)
    .await?;
    Ok(row.map(|row| GameForGm {
        status: row.status,
        secret_seed: row.secret_seed,
        schedule: row.schedule.0,
        paused_seconds_left: row.paused_seconds_left,
    }))
}

/// Stops the game's clock, keeping the time that was left to the open turn's deadline.
pub async fn pause<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    seconds_left: Option<i64>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE games SET status = $2, paused_seconds_left = $3 WHERE id = $1",
        game as GameId,
        GameStatus::Paused as GameStatus,
        seconds_left,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Starts the game's clock again.
pub async fn resume<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE games SET status = $2, paused_seconds_left = NULL WHERE id = $1",
        game as GameId,
        GameStatus::Running as GameStatus,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// A game's engine, state (JSON text) and dice secret, for a replay or a preview.
#[derive(Debug, Clone)]
pub struct GameForReplay {
    pub engine: EngineKind,
    pub state: String,
    pub secret_seed: Vec<u8>,
}

pub async fn for_replay<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<GameForReplay>, StoreError> {
    let row = sqlx::query!(
        r#"SELECT engine, state::text AS "state!", secret_seed FROM games WHERE id = $1"#,
        game as GameId,
    )
    .fetch_optional(db)
    .await?;
    row.map(|row| {
        Ok(GameForReplay {
            engine: engine_of("games.engine", &row.engine)?,
            state: row.state,
            secret_seed: row.secret_seed,
        })
    })
    .transpose()
}

/// A game's current state as its players see it.
#[derive(Debug, Clone)]
pub struct CurrentState {
    pub engine: EngineKind,
    /// The state as JSON text.
    pub state: String,
    /// The seats whose replacement takes effect with the open turn, with their new holders'
    /// names (the engine takes them when that turn resolves).
    pub renames: Vec<engine::Player>,
}

pub async fn current_state<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<CurrentState>, StoreError> {
    let row = sqlx::query!(
        r#"SELECT g.engine, g.state::text AS "state!", COALESCE((
               SELECT jsonb_agg(jsonb_build_object('id', r.engine_player_id, 'name', r.new_name)
                                ORDER BY r.engine_player_id)
               FROM (SELECT DISTINCT ON (p.engine_player_id) p.engine_player_id, p.new_name
                     FROM player_replacements p JOIN turns t ON t.game_id = p.game_id
                     AND t.status = $2 AND t.number = p.from_turn
                     WHERE p.game_id = g.id ORDER BY p.engine_player_id, p.id DESC) r
           ), '[]'::jsonb) AS "renames!: Json<Vec<engine::Player>>"
           FROM games g WHERE g.id = $1"#,
        game as GameId,
        TurnStatus::Open as TurnStatus,
    )
    .fetch_optional(db)
    .await?;
    row.map(|row| {
        Ok(CurrentState {
            engine: engine_of("games.engine", &row.engine)?,
            state: row.state,
            renames: row.renames.0,
        })
    })
    .transpose()
}

/// A game's setup (the GM's settings), if the game exists. It may name hidden things (fleets
/// before they are revealed): callers show only what the engine draws from it.
pub async fn setup<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<AnySetup>, StoreError> {
    let row = sqlx::query!(
        "SELECT engine, setup FROM games WHERE id = $1",
        game as GameId,
    )
    .fetch_optional(db)
    .await?;
    row.map(|row| {
        setup_of(
            "games.setup",
            engine_of("games.engine", &row.engine)?,
            &row.setup,
        )
    })
    .transpose()
}

/// A game's name, if the game exists.
pub async fn name<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<Option<String>, StoreError> {
    Ok(
        sqlx::query_scalar!("SELECT name FROM games WHERE id = $1", game as GameId)
            .fetch_optional(db)
            .await?,
    )
}

/// A game's schedule, if the game exists.
pub async fn schedule<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<ScheduleSettings>, StoreError> {
    let schedule = sqlx::query_scalar!(
        r#"SELECT schedule AS "schedule: Json<ScheduleSettings>" FROM games WHERE id = $1"#,
        game as GameId,
    )
    .fetch_optional(db)
    .await?;
    Ok(schedule.map(|schedule| schedule.0))
}

/// Whether any turn of the game has been published (or is being: resolved, locked).
pub async fn has_published_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM turns WHERE game_id = $1 AND status <> $2) AS "published!""#,
        game as GameId,
        TurnStatus::Open as TurnStatus,
    )
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
    sqlx::query!("DELETE FROM turns WHERE game_id = $1", game as GameId)
        .execute(&mut *tx)
        .await?;
    sqlx::query!("DELETE FROM players WHERE game_id = $1", game as GameId)
        .execute(&mut *tx)
        .await?;
    sqlx::query!(
        "UPDATE games SET status = $3, deleted_at = $2 WHERE id = $1",
        game as GameId,
        now,
        GameStatus::Finished as GameStatus,
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The game is over: every sealed seed is revealed, so every turn can be checked by anyone.
pub async fn finish_game(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    sealed_seeds: &[(u32, String)],
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE games SET status = $2 WHERE id = $1",
        game as GameId,
        GameStatus::Finished as GameStatus,
    )
    .execute(&mut *tx)
    .await?;
    for (number, seed) in sealed_seeds {
        sqlx::query!(
            "UPDATE turns SET revealed_sealed_seed = $3 WHERE game_id = $1 AND number = $2",
            game as GameId,
            i32::try_from(*number).map_err(|e| StoreError::invalid_row("turns.number", e))?,
            seed,
        )
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

pub async fn set_schedule<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    schedule: &ScheduleSettings,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE games SET schedule = $2 WHERE id = $1",
        game as GameId,
        Json(schedule) as _,
    )
    .execute(db)
    .await?;
    Ok(())
}

// --- What the GM's console reads (it sees everything, hidden facts included) ---

/// A game as the GM's console lists it, with its open turn if any.
#[derive(Debug, Clone)]
pub struct GameSummary {
    pub id: GameId,
    pub zine_id: ZineId,
    pub zine_slug: String,
    pub name: String,
    pub engine: EngineKind,
    pub status: GameStatus,
    pub schedule: ScheduleSettings,
    pub setup: AnySetup,
    pub created_at: DateTime<Utc>,
    pub open_turn: Option<i32>,
    pub deadline: Option<DateTime<Utc>>,
}

/// Every game, newest first; only `zine`'s when given.
pub async fn list_summaries<'e>(
    db: impl PgExecutor<'e>,
    zine: Option<ZineId>,
) -> Result<Vec<GameSummary>, StoreError> {
    summaries(db, zine, None).await
}

pub async fn summary<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<GameSummary>, StoreError> {
    Ok(summaries(db, None, Some(game)).await?.into_iter().next())
}

async fn summaries<'e>(
    db: impl PgExecutor<'e>,
    zine: Option<ZineId>,
    game: Option<GameId>,
) -> Result<Vec<GameSummary>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT g.id AS "id: GameId", g.zine_id AS "zine_id: ZineId", z.slug AS zine_slug,
                  g.name, g.engine, g.status AS "status: GameStatus",
                  g.schedule AS "schedule: Json<ScheduleSettings>", g.setup, g.created_at,
                  t.number AS "open_turn?", t.deadline AS "deadline?"
           FROM games g JOIN zines z ON z.id = g.zine_id
           LEFT JOIN turns t ON t.game_id = g.id AND t.status = $3
           WHERE g.deleted_at IS NULL AND ($1::bigint IS NULL OR g.zine_id = $1)
             AND ($2::bigint IS NULL OR g.id = $2)
           ORDER BY g.id DESC"#,
        zine as Option<ZineId>,
        game as Option<GameId>,
        TurnStatus::Open as TurnStatus,
    )
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|row| {
            let engine = engine_of("games.engine", &row.engine)?;
            Ok(GameSummary {
                id: row.id,
                zine_id: row.zine_id,
                zine_slug: row.zine_slug,
                name: row.name,
                engine,
                status: row.status,
                schedule: row.schedule.0,
                setup: setup_of("games.setup", engine, &row.setup)?,
                created_at: row.created_at,
                open_turn: row.open_turn,
                deadline: row.deadline,
            })
        })
        .collect()
}
