//! Turns: opening with their seeds' commitments, the claims of due turns, resolution and the
//! published report, reminder rounds.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;
use crate::games::GameId;
use crate::status::TurnStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct TurnId(pub i64);

/// A turn opening: its public commitments to both of its seeds.
#[derive(Debug, Clone)]
pub struct NewTurn<'a> {
    pub game_id: GameId,
    pub number: u32,
    pub deadline: Option<DateTime<Utc>>,
    pub seed_commitment: &'a str,
    pub sealed_commitment: &'a str,
    /// The engine's state as the turn opens.
    pub state_before: &'a serde_json::Value,
}

pub async fn open_turn<'e>(
    db: impl PgExecutor<'e>,
    new: &NewTurn<'_>,
    now: DateTime<Utc>,
) -> Result<TurnId, StoreError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO turns (game_id, number, deadline, status, seed_commitment, sealed_commitment, state_before, opened_at) \
         VALUES ($1, $2, $3, 'open', $4, $5, $6, $7) RETURNING id",
    )
    .bind(new.game_id)
    .bind(i32::try_from(new.number).map_err(|e| StoreError::invalid_row("turns.number", e))?)
    .bind(new.deadline)
    .bind(new.seed_commitment)
    .bind(new.sealed_commitment)
    .bind(new.state_before)
    .bind(now)
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("that turn of this game"))?;
    Ok(TurnId(id))
}

/// A game's open turn as orders are checked against it (its state is read apart, once per
/// process: see `server::lifecycle::states`).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OpenTurnRow {
    pub game_id: GameId,
    pub id: TurnId,
    pub number: i32,
    pub engine: String,
    pub deadline: Option<DateTime<Utc>>,
    pub schedule: serde_json::Value,
}

/// The open turns of `games`, share-locked for this transaction in ascending game order (as
/// every other taker of several turn locks does): resolution, which locks a turn for update,
/// waits until this transaction ends, so the turn stays open and its state unchanged till then.
pub async fn share_open_turns(
    tx: &mut sqlx::PgConnection,
    games: &[i64],
) -> Result<Vec<OpenTurnRow>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.game_id, t.id, t.number, g.engine, t.deadline, g.schedule FROM turns t \
         JOIN games g ON g.id = t.game_id \
         WHERE t.game_id = ANY($1) AND t.status = 'open' ORDER BY t.game_id FOR SHARE OF t",
    )
    .bind(games)
    .fetch_all(&mut *tx)
    .await?)
}

/// The engine's state as the turn opened, as JSON text. It never changes once written, so a
/// process may keep it parsed for as long as the turn is open.
pub async fn state_before<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Option<String>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT state_before::text FROM turns WHERE id = $1")
            .bind(turn)
            .fetch_optional(db)
            .await?
            .flatten(),
    )
}

/// A game's open turn: id, number and deadline.
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub struct OpenTurnOfGame {
    pub id: TurnId,
    pub number: i32,
    pub deadline: Option<DateTime<Utc>>,
}

/// The game's open turn, locked for update (waiting for whoever holds it).
pub async fn lock_open_of_game(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<Option<OpenTurnOfGame>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, number, deadline FROM turns WHERE game_id = $1 AND status = 'open' FOR UPDATE",
    )
    .bind(game)
    .fetch_optional(&mut *tx)
    .await?)
}

/// The game's open turn, without a lock.
pub async fn open_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<OpenTurnOfGame>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, number, deadline FROM turns WHERE game_id = $1 AND status = 'open'",
    )
    .bind(game)
    .fetch_optional(db)
    .await?)
}

pub async fn set_deadline<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    deadline: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE turns SET deadline = $2 WHERE id = $1")
        .bind(turn)
        .bind(deadline)
        .execute(db)
        .await?;
    Ok(())
}

/// The open turn will never resolve: the GM ended the game.
pub async fn abandon<'e>(db: impl PgExecutor<'e>, turn: TurnId) -> Result<(), StoreError> {
    sqlx::query("UPDATE turns SET status = 'locked' WHERE id = $1")
        .bind(turn)
        .execute(db)
        .await?;
    Ok(())
}

/// The number of the game's latest turn (0 when it has none).
pub async fn last_number<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<i32, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT COALESCE(max(number), 0) FROM turns WHERE game_id = $1")
            .bind(game)
            .fetch_one(db)
            .await?,
    )
}

/// A published turn as `gm verify` replays it: the state before it, its seeds as committed and
/// revealed, and the report's text as published.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PublishedForReplay {
    pub id: TurnId,
    pub number: i32,
    pub state_before: String,
    pub seed_commitment: String,
    pub revealed_seed: String,
    pub sealed_commitment: Option<String>,
    pub revealed_sealed_seed: Option<String>,
    pub text: String,
}

/// Every published turn of a game, in order.
pub async fn published_for_replay<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<PublishedForReplay>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.id, t.number, t.state_before::text AS state_before, t.seed_commitment, t.revealed_seed, \
         t.sealed_commitment, t.revealed_sealed_seed, r.text FROM turns t \
         JOIN published_reports r ON r.turn_id = t.id WHERE t.game_id = $1 ORDER BY t.number",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// The turn is resolved: its open seed is revealed.
pub async fn mark_resolved<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    revealed_seed: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE turns SET status = 'resolved', revealed_seed = $2, resolved_at = $3 WHERE id = $1",
    )
    .bind(turn)
    .bind(revealed_seed)
    .bind(now)
    .execute(db)
    .await?;
    Ok(())
}

/// A resolved turn's report, as published on the web and by mail.
#[derive(Debug, Clone)]
pub struct NewReport<'a> {
    pub turn_id: TurnId,
    pub text: &'a str,
    pub markdown: &'a str,
    pub html: &'a str,
    pub report: &'a serde_json::Value,
}

pub async fn publish_report(
    tx: &mut sqlx::PgConnection,
    new: &NewReport<'_>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO published_reports (turn_id, text, markdown, html, report, published_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(new.turn_id)
    .bind(new.text)
    .bind(new.markdown)
    .bind(new.html)
    .bind(new.report)
    .bind(now)
    .execute(&mut *tx)
    .await
    .map_err(StoreError::unique_as("a published report for that turn"))?;
    sqlx::query("UPDATE turns SET status = 'published' WHERE id = $1")
        .bind(new.turn_id)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// An open turn whose deadline has passed, locked for this transaction: another process
/// looking for work skips it (`SKIP LOCKED`), so each turn is resolved by one process only.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueTurn {
    pub id: TurnId,
    pub game_id: GameId,
    pub number: i32,
    pub deadline: Option<DateTime<Utc>>,
}

/// A turn is due when its deadline plus the game's grace period (`schedule.grace_minutes`) has
/// passed, or, for a game that resolves early (`schedule.early_resolution`), as soon as every
/// active player (of an active subscriber) has current orders that answer the turn. A turn whose resolution failed
/// waits until its `resolve_retry_at` (see [`record_resolve_failure`]).
pub async fn claim_due_turn(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
) -> Result<Option<DueTurn>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.id, t.game_id, t.number, t.deadline FROM turns t JOIN games g ON g.id = t.game_id \
         WHERE t.status = 'open' AND g.status = 'running' AND ( \
           (t.deadline <= $1 AND t.deadline \
              + make_interval(mins => COALESCE((g.schedule->>'grace_minutes')::int, 0)) <= $1) \
           OR (COALESCE((g.schedule->>'early_resolution')::boolean, false) \
              AND EXISTS (SELECT 1 FROM players p WHERE p.game_id = t.game_id AND p.status = 'active') \
              AND NOT EXISTS (SELECT 1 FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
                WHERE p.game_id = t.game_id AND p.status = 'active' AND s.status = 'active' \
                AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.turn_id = t.id AND o.player_id = p.id \
                                AND o.superseded_at IS NULL AND o.answers_turn)))) \
         AND (t.resolve_retry_at IS NULL OR t.resolve_retry_at <= $1) \
         ORDER BY t.deadline NULLS LAST, t.id LIMIT 1 FOR UPDATE OF t SKIP LOCKED",
    )
    .bind(now)
    .fetch_optional(&mut *tx)
    .await?)
}

/// How many times resolving this turn has failed so far, the turn locked for this
/// transaction; `None` when it is no longer open (another process resolved it meanwhile).
pub async fn lock_open_turn_failures(
    tx: &mut sqlx::PgConnection,
    turn: TurnId,
) -> Result<Option<i32>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT resolve_failures FROM turns WHERE id = $1 AND status = 'open' FOR UPDATE",
    )
    .bind(turn)
    .fetch_optional(&mut *tx)
    .await?)
}

/// Records that resolving this turn failed with `error`, and puts it off until `retry_at`:
/// [`claim_due_turn`] skips it until then.
pub async fn record_resolve_failure<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    error: &str,
    retry_at: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE turns SET resolve_failures = resolve_failures + 1, resolve_error = $2, \
         resolve_retry_at = $3 WHERE id = $1",
    )
    .bind(turn)
    .bind(error)
    .bind(retry_at)
    .execute(db)
    .await?;
    Ok(())
}

/// The game's open turn, locked for this transaction (waiting for a process that holds it),
/// whatever its deadline; `None` when there is none or the game is not running.
pub async fn claim_open_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<Option<DueTurn>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.id, t.game_id, t.number, t.deadline FROM turns t JOIN games g ON g.id = t.game_id \
         WHERE t.game_id = $1 AND t.status = 'open' AND g.status = 'running' FOR UPDATE OF t",
    )
    .bind(game)
    .fetch_optional(&mut *tx)
    .await?)
}

/// Records which players had left when the turn was resolved (part of the turn's input).
pub async fn set_leaving<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    leaving: &[i64],
) -> Result<(), StoreError> {
    sqlx::query("UPDATE turns SET leaving = $2 WHERE id = $1")
        .bind(turn)
        .bind(leaving)
        .execute(db)
        .await?;
    Ok(())
}

pub async fn leaving<'e>(db: impl PgExecutor<'e>, turn: TurnId) -> Result<Vec<i64>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT leaving FROM turns WHERE id = $1")
            .bind(turn)
            .fetch_one(db)
            .await?,
    )
}

/// Records which players joined with the turn (the engine's players, as JSON): part of the
/// turn's input.
pub async fn set_joining<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    joining: &serde_json::Value,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE turns SET joining = $2 WHERE id = $1")
        .bind(turn)
        .bind(joining)
        .execute(db)
        .await?;
    Ok(())
}

pub async fn joining<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<serde_json::Value, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT joining FROM turns WHERE id = $1")
            .bind(turn)
            .fetch_one(db)
            .await?,
    )
}

/// Records the seats that change hands with the turn (`turns.renaming`): a JSON list of
/// players (engine id and new name), the engine's input as `joining` is.
pub async fn set_renaming<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    renaming: &serde_json::Value,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE turns SET renaming = $2 WHERE id = $1")
        .bind(turn)
        .bind(renaming)
        .execute(db)
        .await?;
    Ok(())
}

pub async fn renaming<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<serde_json::Value, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT renaming FROM turns WHERE id = $1")
            .bind(turn)
            .fetch_one(db)
            .await?,
    )
}

/// An open turn of a running game with a deadline still ahead and reminders set.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RemindableTurn {
    pub id: TurnId,
    pub game_id: GameId,
    pub number: i32,
    pub deadline: DateTime<Utc>,
    pub opened_at: DateTime<Utc>,
    pub schedule: serde_json::Value,
    /// The offsets (minutes) whose round is done already.
    pub done_minutes: Vec<i32>,
}

pub async fn remindable_turns<'e>(
    db: impl PgExecutor<'e>,
    now: DateTime<Utc>,
) -> Result<Vec<RemindableTurn>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.id, t.game_id, t.number, t.deadline, t.opened_at, g.schedule, \
           ARRAY(SELECT r.offset_minutes FROM turn_reminders r WHERE r.turn_id = t.id) AS done_minutes \
         FROM turns t JOIN games g ON g.id = t.game_id \
         WHERE t.status = 'open' AND g.status = 'running' AND t.deadline > $1 \
         AND jsonb_array_length(COALESCE(g.schedule->'reminder_minutes', '[]'::jsonb)) > 0 \
         ORDER BY t.deadline, t.id",
    )
    .bind(now)
    .fetch_all(db)
    .await?)
}

/// Locks an open turn for a reminder round, skipping it if another process holds it.
pub async fn lock_open_turn(tx: &mut sqlx::PgConnection, turn: TurnId) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar::<_, i64>(
        "SELECT id FROM turns WHERE id = $1 AND status = 'open' FOR UPDATE SKIP LOCKED",
    )
    .bind(turn)
    .fetch_optional(&mut *tx)
    .await?
    .is_some())
}

/// Claims a reminder round for this process; false when it was done already.
pub async fn claim_reminder_round<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    offset_minutes: i32,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    Ok(sqlx::query(
        "INSERT INTO turn_reminders (turn_id, offset_minutes, sent_at, mails) VALUES ($1, $2, $3, 0) \
         ON CONFLICT DO NOTHING",
    )
    .bind(turn)
    .bind(offset_minutes)
    .bind(now)
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}

/// How many mails a claimed reminder round queued.
pub async fn count_reminder_round<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    offset_minutes: i32,
    mails: i32,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE turn_reminders SET mails = $3 WHERE turn_id = $1 AND offset_minutes = $2")
        .bind(turn)
        .bind(offset_minutes)
        .bind(mails)
        .execute(db)
        .await?;
    Ok(())
}

/// A turn of a game, for the GM.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TurnSummary {
    pub id: TurnId,
    pub number: i32,
    pub status: TurnStatus,
    pub deadline: Option<DateTime<Utc>>,
    pub opened_at: DateTime<Utc>,
    pub resolved_at: Option<DateTime<Utc>>,
    pub seed_commitment: String,
    pub report_text: Option<String>,
}

/// A game's turns, newest first, with their published reports.
pub async fn turn_summaries<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<TurnSummary>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.id, t.number, t.status, t.deadline, t.opened_at, t.resolved_at, t.seed_commitment, \
         r.text AS report_text FROM turns t LEFT JOIN published_reports r ON r.turn_id = t.id \
         WHERE t.game_id = $1 AND t.number > 0 ORDER BY t.number DESC",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}
