//! Turns: opening with their seeds' commitments, the claims of due turns, resolution and the
//! published report, reminder rounds.

use chrono::{DateTime, Utc};
use games::{AnyState, EngineKind};
use schedule::ScheduleSettings;
use sqlx::PgExecutor;
use sqlx::types::Json;

use crate::StoreError;
use crate::games::{GameId, engine_of};
use crate::status::{GameStatus, PlayerStatus, SubscriberStatus, TurnStatus};

pub use crate::ids::TurnId;

fn number(number: u32) -> Result<i32, StoreError> {
    i32::try_from(number).map_err(|e| StoreError::invalid_row("turns.number", e))
}

/// A turn opening: its public commitments to both of its seeds.
#[derive(Debug, Clone)]
pub struct NewTurn<'a> {
    pub game_id: GameId,
    pub number: u32,
    pub deadline: Option<DateTime<Utc>>,
    pub seed_commitment: &'a str,
    pub sealed_commitment: &'a str,
    /// The engine's state as the turn opens.
    pub state_before: &'a AnyState,
}

pub async fn open_turn<'e>(
    db: impl PgExecutor<'e>,
    new: &NewTurn<'_>,
    now: DateTime<Utc>,
) -> Result<TurnId, StoreError> {
    sqlx::query_scalar!(
        r#"INSERT INTO turns (game_id, number, deadline, status, seed_commitment, sealed_commitment, state_before, opened_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id AS "id: TurnId""#,
        new.game_id as GameId,
        number(new.number)?,
        new.deadline,
        TurnStatus::Open as TurnStatus,
        new.seed_commitment,
        new.sealed_commitment,
        Json(new.state_before) as _,
        now,
    )
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("that turn of this game"))
}

/// A game's open turn as orders are checked against it (its state is read apart, once per
/// process: see `server::turns::states`).
#[derive(Debug, Clone)]
pub struct OpenTurnRow {
    pub game_id: GameId,
    pub id: TurnId,
    pub number: i32,
    pub engine: EngineKind,
    pub deadline: Option<DateTime<Utc>>,
    pub schedule: ScheduleSettings,
}

/// The open turns of `games`, share-locked for this transaction in ascending game order (as
/// every other taker of several turn locks does): resolution, which locks a turn for update,
/// waits until this transaction ends, so the turn stays open and its state unchanged till then.
pub async fn share_open_turns(
    tx: &mut sqlx::PgConnection,
    games: &[GameId],
) -> Result<Vec<OpenTurnRow>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT t.game_id AS "game_id: GameId", t.id AS "id: TurnId", t.number, g.engine,
                  t.deadline, g.schedule AS "schedule: Json<ScheduleSettings>"
           FROM turns t JOIN games g ON g.id = t.game_id
           WHERE t.game_id = ANY($1) AND t.status = $2 ORDER BY t.game_id FOR SHARE OF t"#,
        games as &[GameId],
        TurnStatus::Open as TurnStatus,
    )
    .fetch_all(&mut *tx)
    .await?;
    rows.into_iter()
        .map(|row| {
            Ok(OpenTurnRow {
                game_id: row.game_id,
                id: row.id,
                number: row.number,
                engine: engine_of("games.engine", &row.engine)?,
                deadline: row.deadline,
                schedule: row.schedule.0,
            })
        })
        .collect()
}

/// The engine's state as the turn opened, as JSON text. It never changes once written, so a
/// process may keep it parsed for as long as the turn is open.
pub async fn state_before<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT state_before::text AS "state!" FROM turns WHERE id = $1"#,
        turn as TurnId,
    )
    .fetch_optional(db)
    .await?)
}

/// A game's open turn: id, number and deadline.
#[derive(Debug, Clone, Copy)]
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
    Ok(sqlx::query_as!(
        OpenTurnOfGame,
        r#"SELECT id AS "id: TurnId", number, deadline FROM turns
           WHERE game_id = $1 AND status = $2 FOR UPDATE"#,
        game as GameId,
        TurnStatus::Open as TurnStatus,
    )
    .fetch_optional(&mut *tx)
    .await?)
}

/// The game's open turn, without a lock.
pub async fn open_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<OpenTurnOfGame>, StoreError> {
    Ok(sqlx::query_as!(
        OpenTurnOfGame,
        r#"SELECT id AS "id: TurnId", number, deadline FROM turns WHERE game_id = $1 AND status = $2"#,
        game as GameId,
        TurnStatus::Open as TurnStatus,
    )
    .fetch_optional(db)
    .await?)
}

pub async fn set_deadline<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    deadline: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE turns SET deadline = $2 WHERE id = $1",
        turn as TurnId,
        deadline,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The open turn will never resolve: the GM ended the game.
pub async fn abandon<'e>(db: impl PgExecutor<'e>, turn: TurnId) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE turns SET status = $2 WHERE id = $1",
        turn as TurnId,
        TurnStatus::Locked as TurnStatus,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The number of the game's latest turn (0 when it has none).
pub async fn last_number<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<i32, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT COALESCE(max(number), 0) AS "number!" FROM turns WHERE game_id = $1"#,
        game as GameId,
    )
    .fetch_one(db)
    .await?)
}

/// A published turn as `gm verify` replays it: the state before it, its seeds as committed and
/// revealed, and the report's text as published.
#[derive(Debug, Clone)]
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
    Ok(sqlx::query_as!(
        PublishedForReplay,
        r#"SELECT t.id AS "id: TurnId", t.number, t.state_before::text AS "state_before!",
                  t.seed_commitment, t.revealed_seed AS "revealed_seed!", t.sealed_commitment,
                  t.revealed_sealed_seed, r.text
           FROM turns t JOIN published_reports r ON r.turn_id = t.id
           WHERE t.game_id = $1 ORDER BY t.number"#,
        game as GameId,
    )
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
    sqlx::query!(
        "UPDATE turns SET status = $4, revealed_seed = $2, resolved_at = $3 WHERE id = $1",
        turn as TurnId,
        revealed_seed,
        now,
        TurnStatus::Resolved as TurnStatus,
    )
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
    pub report: &'a engine::Report,
}

pub async fn publish_report(
    tx: &mut sqlx::PgConnection,
    new: &NewReport<'_>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "INSERT INTO published_reports (turn_id, text, markdown, html, report, published_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        new.turn_id as TurnId,
        new.text,
        new.markdown,
        new.html,
        Json(new.report) as _,
        now,
    )
    .execute(&mut *tx)
    .await
    .map_err(StoreError::unique_as("a published report for that turn"))?;
    sqlx::query!(
        "UPDATE turns SET status = $2 WHERE id = $1",
        new.turn_id as TurnId,
        TurnStatus::Published as TurnStatus,
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// An open turn whose deadline has passed, locked for this transaction: another process
/// looking for work skips it (`SKIP LOCKED`), so each turn is resolved by one process only.
#[derive(Debug, Clone)]
pub struct DueTurn {
    pub id: TurnId,
    pub game_id: GameId,
    pub number: i32,
    pub deadline: Option<DateTime<Utc>>,
}

/// A turn is due when its deadline plus the game's grace period (`schedule.grace_minutes`) has
/// passed, or, for a game that resolves early (`schedule.early_resolution`), as soon as every
/// active player (of an active subscriber) has current orders that answer the turn. A turn
/// whose resolution failed waits until its `resolve_retry_at` (see [`record_resolve_failure`]).
pub async fn claim_due_turn(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
) -> Result<Option<DueTurn>, StoreError> {
    Ok(sqlx::query_as!(
        DueTurn,
        r#"SELECT t.id AS "id: TurnId", t.game_id AS "game_id: GameId", t.number, t.deadline
           FROM turns t JOIN games g ON g.id = t.game_id
           WHERE t.status = $2 AND g.status = $3 AND (
             (t.deadline <= $1 AND t.deadline
                + make_interval(mins => COALESCE((g.schedule->>'grace_minutes')::int, 0)) <= $1)
             OR (COALESCE((g.schedule->>'early_resolution')::boolean, false)
                AND EXISTS (SELECT 1 FROM players p WHERE p.game_id = t.game_id AND p.status = $4)
                AND NOT EXISTS (SELECT 1 FROM players p JOIN subscribers s ON s.id = p.subscriber_id
                  WHERE p.game_id = t.game_id AND p.status = $4 AND s.status = $5
                  AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.turn_id = t.id AND o.player_id = p.id
                                  AND o.superseded_at IS NULL AND o.answers_turn))))
           AND (t.resolve_retry_at IS NULL OR t.resolve_retry_at <= $1)
           ORDER BY t.deadline NULLS LAST, t.id LIMIT 1 FOR UPDATE OF t SKIP LOCKED"#,
        now,
        TurnStatus::Open as TurnStatus,
        GameStatus::Running as GameStatus,
        PlayerStatus::Active as PlayerStatus,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_optional(&mut *tx)
    .await?)
}

/// How many times resolving this turn has failed so far, the turn locked for this
/// transaction; `None` when it is no longer open (another process resolved it meanwhile).
pub async fn lock_open_turn_failures(
    tx: &mut sqlx::PgConnection,
    turn: TurnId,
) -> Result<Option<i32>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT resolve_failures FROM turns WHERE id = $1 AND status = $2 FOR UPDATE",
        turn as TurnId,
        TurnStatus::Open as TurnStatus,
    )
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
    sqlx::query!(
        "UPDATE turns SET resolve_failures = resolve_failures + 1, resolve_error = $2,
         resolve_retry_at = $3 WHERE id = $1",
        turn as TurnId,
        error,
        retry_at,
    )
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
    Ok(sqlx::query_as!(
        DueTurn,
        r#"SELECT t.id AS "id: TurnId", t.game_id AS "game_id: GameId", t.number, t.deadline
           FROM turns t JOIN games g ON g.id = t.game_id
           WHERE t.game_id = $1 AND t.status = $2 AND g.status = $3 FOR UPDATE OF t"#,
        game as GameId,
        TurnStatus::Open as TurnStatus,
        GameStatus::Running as GameStatus,
    )
    .fetch_optional(&mut *tx)
    .await?)
}

/// Records which players had left when the turn was resolved (their engine ids): part of the
/// turn's input.
pub async fn set_leaving<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    leaving: &[i64],
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE turns SET leaving = $2 WHERE id = $1",
        turn as TurnId,
        leaving,
    )
    .execute(db)
    .await?;
    Ok(())
}

pub async fn leaving<'e>(db: impl PgExecutor<'e>, turn: TurnId) -> Result<Vec<i64>, StoreError> {
    Ok(
        sqlx::query_scalar!("SELECT leaving FROM turns WHERE id = $1", turn as TurnId)
            .fetch_one(db)
            .await?,
    )
}

/// Records which players joined with the turn (the engine's players): part of the turn's
/// input.
pub async fn set_joining<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    joining: &[engine::Player],
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE turns SET joining = $2 WHERE id = $1",
        turn as TurnId,
        Json(joining) as _,
    )
    .execute(db)
    .await?;
    Ok(())
}

pub async fn joining<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<engine::Player>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT joining AS "joining: Json<Vec<engine::Player>>" FROM turns WHERE id = $1"#,
        turn as TurnId,
    )
    .fetch_one(db)
    .await?
    .0)
}

/// Records the seats that change hands with the turn (`turns.renaming`): the engine's players
/// (engine id and new name), the engine's input as `joining` is.
pub async fn set_renaming<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    renaming: &[engine::Player],
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE turns SET renaming = $2 WHERE id = $1",
        turn as TurnId,
        Json(renaming) as _,
    )
    .execute(db)
    .await?;
    Ok(())
}

pub async fn renaming<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<engine::Player>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT renaming AS "renaming: Json<Vec<engine::Player>>" FROM turns WHERE id = $1"#,
        turn as TurnId,
    )
    .fetch_one(db)
    .await?
    .0)
}

/// An open turn of a running game with a deadline still ahead and reminders set.
#[derive(Debug, Clone)]
pub struct RemindableTurn {
    pub id: TurnId,
    pub game_id: GameId,
    pub number: i32,
    pub deadline: DateTime<Utc>,
    pub opened_at: DateTime<Utc>,
    pub schedule: ScheduleSettings,
    /// The offsets (minutes) whose round is done already.
    pub done_minutes: Vec<i32>,
}

pub async fn remindable_turns<'e>(
    db: impl PgExecutor<'e>,
    now: DateTime<Utc>,
) -> Result<Vec<RemindableTurn>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT t.id AS "id: TurnId", t.game_id AS "game_id: GameId", t.number,
                  t.deadline AS "deadline!", t.opened_at,
                  g.schedule AS "schedule: Json<ScheduleSettings>",
                  ARRAY(SELECT r.offset_minutes FROM turn_reminders r WHERE r.turn_id = t.id) AS "done_minutes!"
           FROM turns t JOIN games g ON g.id = t.game_id
           WHERE t.status = $2 AND g.status = $3 AND t.deadline > $1
           AND jsonb_array_length(COALESCE(g.schedule->'reminder_minutes', '[]'::jsonb)) > 0
           ORDER BY t.deadline, t.id"#,
        now,
        TurnStatus::Open as TurnStatus,
        GameStatus::Running as GameStatus,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| RemindableTurn {
            id: row.id,
            game_id: row.game_id,
            number: row.number,
            deadline: row.deadline,
            opened_at: row.opened_at,
            schedule: row.schedule.0,
            done_minutes: row.done_minutes,
        })
        .collect())
}

/// Locks an open turn for a reminder round, skipping it if another process holds it.
pub async fn lock_open_turn(tx: &mut sqlx::PgConnection, turn: TurnId) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM turns WHERE id = $1 AND status = $2 FOR UPDATE SKIP LOCKED",
        turn as TurnId,
        TurnStatus::Open as TurnStatus,
    )
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
    Ok(sqlx::query!(
        "INSERT INTO turn_reminders (turn_id, offset_minutes, sent_at, mails) VALUES ($1, $2, $3, 0)
         ON CONFLICT DO NOTHING",
        turn as TurnId,
        offset_minutes,
        now,
    )
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
    sqlx::query!(
        "UPDATE turn_reminders SET mails = $3 WHERE turn_id = $1 AND offset_minutes = $2",
        turn as TurnId,
        offset_minutes,
        mails,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// A turn of a game, for the GM.
#[derive(Debug, Clone)]
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
    Ok(sqlx::query_as!(
        TurnSummary,
        r#"SELECT t.id AS "id: TurnId", t.number, t.status AS "status: TurnStatus", t.deadline,
                  t.opened_at, t.resolved_at, t.seed_commitment, r.text AS "report_text?"
           FROM turns t LEFT JOIN published_reports r ON r.turn_id = t.id
           WHERE t.game_id = $1 AND t.number > 0 ORDER BY t.number DESC"#,
        game as GameId,
    )
    .fetch_all(db)
    .await?)
}
