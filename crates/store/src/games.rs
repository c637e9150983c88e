//! Games, their players, turns, orders, press and published reports.
//!
//! The engine's setup, state and parsed orders are JSON to the store: it never looks inside.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;
use crate::subscribers::SubscriberId;
use crate::zines::ZineId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct GameId(pub i64);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct PlayerRowId(pub i64);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct TurnId(pub i64);

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

#[derive(Debug, Clone)]
pub struct NewPlayer<'a> {
    pub game_id: GameId,
    pub subscriber_id: SubscriberId,
    pub display_name: &'a str,
    /// The id the engine knows the player by.
    pub engine_player_id: u64,
    /// The unguessable token of the player's personal reply address.
    pub reply_token: &'a str,
    pub joined_turn: u32,
}

pub async fn insert_player<'e>(
    db: impl PgExecutor<'e>,
    new: &NewPlayer<'_>,
) -> Result<PlayerRowId, StoreError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO players (game_id, subscriber_id, display_name, engine_player_id, reply_token, joined_turn) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(new.game_id)
    .bind(new.subscriber_id)
    .bind(new.display_name)
    .bind(i64::try_from(new.engine_player_id).map_err(|e| StoreError::invalid_row("players.engine_player_id", e))?)
    .bind(new.reply_token)
    .bind(i32::try_from(new.joined_turn).map_err(|e| StoreError::invalid_row("players.joined_turn", e))?)
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("that player in this game"))?;
    Ok(PlayerRowId(id))
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

/// One player's complete orders for a turn; supersedes their previous set.
#[derive(Debug, Clone)]
pub struct NewOrders<'a> {
    pub game_id: GameId,
    pub turn_id: TurnId,
    pub player_id: PlayerRowId,
    pub raw_text: &'a str,
    pub parsed: &'a serde_json::Value,
    /// `email` or `web`.
    pub source: &'a str,
}

/// Saves a player's orders, and the press they carry, unless a set received later stands.
pub async fn save_orders(
    tx: &mut sqlx::PgConnection,
    new: &NewOrders<'_>,
    press: &[String],
    now: DateTime<Utc>,
) -> Result<SavedOrders, StoreError> {
    // One statement: the check for a later set, the superseding of an earlier one, the insert
    // and the press. The insert reads the superseding's count, so it runs after it (and the
    // unique index on current orders never sees two).
    let later: Option<DateTime<Utc>> = sqlx::query_scalar(
        "WITH current AS (SELECT id, received_at FROM orders \
                          WHERE turn_id = $2 AND player_id = $3 AND superseded_at IS NULL), \
              later AS (SELECT max(received_at) AS at FROM current WHERE received_at > $7), \
              superseded AS (UPDATE orders SET superseded_at = $7 \
                             WHERE id IN (SELECT id FROM current) \
                               AND NOT EXISTS (SELECT 1 FROM later WHERE at IS NOT NULL) \
                             RETURNING id), \
              saved AS (INSERT INTO orders (game_id, turn_id, player_id, raw_text, parsed, source, received_at) \
                        SELECT $1, $2, $3, $4, $5, $6, $7 FROM (SELECT count(*) FROM superseded) AS done \
                        WHERE NOT EXISTS (SELECT 1 FROM later WHERE at IS NOT NULL)), \
              press_saved AS (INSERT INTO press (game_id, turn_id, player_id, text, source, received_at) \
                        SELECT $1, $2, $3, p.text, $6, $7 FROM unnest($8::text[]) WITH ORDINALITY AS p(text, n) \
                        WHERE NOT EXISTS (SELECT 1 FROM later WHERE at IS NOT NULL) ORDER BY p.n) \
         SELECT at FROM later",
    )
    .bind(new.game_id)
    .bind(new.turn_id)
    .bind(new.player_id)
    .bind(new.raw_text)
    .bind(new.parsed)
    .bind(new.source)
    .bind(now)
    .bind(press)
    .fetch_one(&mut *tx)
    .await?;
    if let Some(later) = later {
        return Ok(SavedOrders::LaterStand(later));
    }
    Ok(SavedOrders::Saved)
}

/// What [`save_orders`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavedOrders {
    /// Saved as the player's current set, superseding any earlier one.
    Saved,
    /// Not saved: a set received later (at this time) stands.
    LaterStand(DateTime<Utc>),
}

/// Press to save with [`save_press_many`].
#[derive(Debug, Clone)]
pub struct NewPress {
    pub game_id: GameId,
    pub turn_id: TurnId,
    pub player_id: PlayerRowId,
    pub text: String,
    /// `email` or `web`.
    pub source: &'static str,
    pub received_at: DateTime<Utc>,
}

/// Saves press, in order, in one statement.
pub async fn save_press_many<'e>(
    db: impl PgExecutor<'e>,
    press: &[NewPress],
) -> Result<(), StoreError> {
    if press.is_empty() {
        return Ok(());
    }
    let games: Vec<i64> = press.iter().map(|p| p.game_id.0).collect();
    let turns: Vec<i64> = press.iter().map(|p| p.turn_id.0).collect();
    let players: Vec<i64> = press.iter().map(|p| p.player_id.0).collect();
    let texts: Vec<&str> = press.iter().map(|p| p.text.as_str()).collect();
    let sources: Vec<&str> = press.iter().map(|p| p.source).collect();
    let times: Vec<DateTime<Utc>> = press.iter().map(|p| p.received_at).collect();
    sqlx::query(
        "INSERT INTO press (game_id, turn_id, player_id, text, source, received_at) \
         SELECT p.game_id, p.turn_id, p.player_id, p.text, p.source, p.received_at \
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::timestamptz[]) \
           WITH ORDINALITY AS p(game_id, turn_id, player_id, text, source, received_at, n) ORDER BY p.n",
    )
    .bind(games)
    .bind(turns)
    .bind(players)
    .bind(texts)
    .bind(sources)
    .bind(times)
    .execute(db)
    .await?;
    Ok(())
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

/// A published report, for readers.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PublishedReport {
    pub game_id: i64,
    pub game_name: String,
    pub turn: i32,
    pub text: String,
    pub html: String,
    pub revealed_seed: Option<String>,
    pub seed_commitment: String,
}

/// Every published report of a zine's games, newest first.
pub async fn published_reports<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<PublishedReport>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT g.id AS game_id, g.name AS game_name, t.number AS turn, r.text, r.html, t.revealed_seed, t.seed_commitment \
         FROM published_reports r JOIN turns t ON t.id = r.turn_id JOIN games g ON g.id = t.game_id \
         WHERE g.zine_id = $1 ORDER BY g.id, t.number DESC",
    )
    .bind(zine)
    .fetch_all(db)
    .await?)
}

/// What resolving a turn needs to know of its game.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameForTurn {
    pub id: GameId,
    pub zine_id: i64,
    pub name: String,
    pub engine: String,
    pub state: serde_json::Value,
    pub secret_seed: Vec<u8>,
    pub schedule: serde_json::Value,
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
/// active player (of an active subscriber) has current orders. A turn whose resolution failed
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
                                AND o.superseded_at IS NULL)))) \
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

pub async fn game_for_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<GameForTurn, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, zine_id, name, engine, state, secret_seed, schedule FROM games WHERE id = $1 FOR UPDATE",
    )
    .bind(game)
    .fetch_one(&mut *tx)
    .await?)
}

/// A player of a game, as the engine and the mail know them.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GamePlayer {
    pub id: PlayerRowId,
    pub engine_player_id: i64,
    pub display_name: String,
    pub email: String,
    pub reply_token: String,
    pub status: String,
}

pub async fn players<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<GamePlayer>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.id, p.engine_player_id, p.display_name, s.email, p.reply_token, p.status \
         FROM players p JOIN subscribers s ON s.id = p.subscriber_id WHERE p.game_id = $1 ORDER BY p.engine_player_id",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// The orders that count for a turn: each player's last set not superseded.
pub async fn current_orders<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<(i64, serde_json::Value)>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.engine_player_id, o.parsed FROM orders o JOIN players p ON p.id = o.player_id \
         WHERE o.turn_id = $1 AND o.superseded_at IS NULL ORDER BY p.engine_player_id",
    )
    .bind(turn)
    .fetch_all(db)
    .await?)
}

/// A turn's press in the order received.
pub async fn turn_press<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<(i64, String)>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.engine_player_id, x.text FROM press x JOIN players p ON p.id = x.player_id \
         WHERE x.turn_id = $1 ORDER BY x.received_at, x.id",
    )
    .bind(turn)
    .fetch_all(db)
    .await?)
}

/// The game is over: every sealed seed is revealed, so every turn can be checked by anyone.
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

/// The player a reply token belongs to, with their game's open turn, if any.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenHolder {
    pub player_id: PlayerRowId,
    pub subscriber_id: i64,
    pub zine_id: i64,
    pub game_id: GameId,
    pub game_name: String,
    pub game_status: String,
    pub engine: String,
    pub engine_player_id: i64,
    pub display_name: String,
    pub email: String,
    pub reply_token: String,
    pub status: String,
    pub turn_number: Option<i32>,
    pub deadline: Option<DateTime<Utc>>,
}

/// The columns of [`TokenHolder`]; callers add the WHERE clause.
macro_rules! token_holder_select {
    ($where:literal) => {
        concat!(
            "SELECT p.id AS player_id, s.id AS subscriber_id, s.zine_id, g.id AS game_id, \
             g.name AS game_name, g.status AS game_status, g.engine, p.engine_player_id, \
             p.display_name, s.email, p.reply_token, p.status, t.number AS turn_number, t.deadline \
             FROM players p JOIN games g ON g.id = p.game_id JOIN subscribers s ON s.id = p.subscriber_id \
             LEFT JOIN turns t ON t.game_id = g.id AND t.status = 'open' ",
            $where
        )
    };
}
/// The raw text of a player's current orders for the open turn, if any.
pub async fn current_raw_orders<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    player: PlayerRowId,
) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT o.raw_text FROM orders o JOIN turns t ON t.id = o.turn_id \
         WHERE t.game_id = $1 AND t.status = 'open' AND o.player_id = $2 AND o.superseded_at IS NULL",
    )
    .bind(game)
    .bind(player)
    .fetch_optional(db)
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

/// Every player row of the subscriber who holds reply token `token` (one per game), newest game
/// first: the token's own row is the one whose `reply_token` is `token`. Empty for an unknown
/// token.
pub async fn player_rows_of_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Vec<TokenHolder>, StoreError> {
    Ok(sqlx::query_as(token_holder_select!(
        "WHERE s.id = (SELECT subscriber_id FROM players WHERE reply_token = $1) ORDER BY g.id DESC"
    ))
    .bind(token)
    .fetch_all(db)
    .await?)
}

/// [`player_rows_of_token`] for many tokens in one statement: each token found, with its
/// holder's player rows, newest game first.
pub async fn player_rows_of_tokens<'e>(
    db: impl PgExecutor<'e>,
    tokens: &[String],
) -> Result<Vec<(String, Vec<TokenHolder>)>, StoreError> {
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<TokenHolder> = sqlx::query_as(token_holder_select!(
        "WHERE s.id = ANY (SELECT subscriber_id FROM players WHERE reply_token = ANY($1)) \
         ORDER BY s.id, g.id DESC"
    ))
    .bind(tokens)
    .fetch_all(db)
    .await?;
    let mut found = Vec::new();
    for token in tokens {
        if found.iter().any(|(seen, _): &(String, _)| seen == token) {
            continue;
        }
        let Some(holder) = rows.iter().find(|row| &row.reply_token == token) else {
            continue;
        };
        let games = rows
            .iter()
            .filter(|row| row.subscriber_id == holder.subscriber_id)
            .cloned()
            .collect();
        found.push((token.clone(), games));
    }
    Ok(found)
}

/// Every player row of a subscriber (one per game), newest game first.
pub async fn player_rows_of_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: i64,
) -> Result<Vec<TokenHolder>, StoreError> {
    Ok(
        sqlx::query_as(token_holder_select!("WHERE s.id = $1 ORDER BY g.id DESC"))
            .bind(subscriber)
            .fetch_all(db)
            .await?,
    )
}

/// The players of a game with their subscribers' addresses, for relaying private messages.
pub async fn player_rows_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<TokenHolder>, StoreError> {
    Ok(sqlx::query_as(token_holder_select!(
        "WHERE g.id = $1 ORDER BY p.engine_player_id"
    ))
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// Players whose subscription is no longer active leave the game: `excluded` subscribers are
/// excluded, unsubscribed ones resigned. Returns how many players changed.
pub async fn retire_lapsed_subscribers<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<u64, StoreError> {
    Ok(sqlx::query(
        "UPDATE players p SET status = CASE s.status WHEN 'excluded' THEN 'excluded' ELSE 'resigned' END \
         FROM subscribers s WHERE s.id = p.subscriber_id AND p.game_id = $1 AND p.status = 'active' \
         AND s.status <> 'active'",
    )
    .bind(game)
    .execute(db)
    .await?
    .rows_affected())
}

/// A subscriber of the game's zine who is active and not (yet) a player of the game.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Unenrolled {
    pub subscriber_id: SubscriberId,
    pub display_name: String,
}

/// Active subscribers of the game's zine who have never played it, oldest subscription first.
pub async fn unenrolled_subscribers<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<Unenrolled>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT s.id AS subscriber_id, s.display_name FROM subscribers s JOIN games g ON g.zine_id = s.zine_id \
         WHERE g.id = $1 AND s.status = 'active' \
         AND NOT EXISTS (SELECT 1 FROM players p WHERE p.game_id = g.id AND p.subscriber_id = s.id) \
         ORDER BY s.id",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// Sets a player's status (`active`, `resigned` or `excluded`); false when there is no such player.
pub async fn set_player_status<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
    status: &str,
) -> Result<bool, StoreError> {
    let result = sqlx::query("UPDATE players SET status = $2 WHERE id = $1")
        .bind(player)
        .bind(status)
        .execute(db)
        .await?;
    Ok(result.rows_affected() == 1)
}

/// The largest engine id given to a player of the game (0 when none).
pub async fn max_engine_player_id<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT COALESCE(max(engine_player_id), 0) FROM players WHERE game_id = $1",
    )
    .bind(game)
    .fetch_one(db)
    .await?)
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

// --- What the GM's console reads (it sees everything, hidden facts included) ---

/// A game as the GM's console lists it, with its open turn if any.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameSummary {
    pub id: GameId,
    pub zine_id: i64,
    pub zine_slug: String,
    pub name: String,
    pub engine: String,
    pub status: String,
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
        "{GAME_SUMMARY} WHERE $1::bigint IS NULL OR g.zine_id = $1 ORDER BY g.id DESC"
    )))
    .bind(zine)
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

/// Active players (of active subscribers) with no current orders for the turn.
pub async fn players_without_orders<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    turn: TurnId,
) -> Result<Vec<GamePlayer>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.id, p.engine_player_id, p.display_name, s.email, p.reply_token, p.status \
         FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND p.status = 'active' AND s.status = 'active' \
         AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.turn_id = $2 AND o.player_id = p.id AND o.superseded_at IS NULL) \
         ORDER BY p.engine_player_id",
    )
    .bind(game)
    .bind(turn)
    .fetch_all(db)
    .await?)
}

pub async fn summary<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Option<GameSummary>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{GAME_SUMMARY} WHERE g.id = $1"
    )))
    .bind(game)
    .fetch_optional(db)
    .await?)
}

/// A turn of a game, for the GM.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TurnSummary {
    pub id: TurnId,
    pub number: i32,
    pub status: String,
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

/// Where one player stands on a turn: their current orders, if any.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PlayerTurnStatus {
    pub player_id: PlayerRowId,
    pub engine_player_id: i64,
    pub display_name: String,
    pub email: String,
    pub status: String,
    pub raw_orders: Option<String>,
    pub orders_source: Option<String>,
    pub orders_received_at: Option<DateTime<Utc>>,
}

/// Every player of the turn's game, with the orders that count for the turn (none: not yet
/// ordered).
pub async fn player_turn_status<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    turn: TurnId,
) -> Result<Vec<PlayerTurnStatus>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.id AS player_id, p.engine_player_id, p.display_name, s.email, p.status, \
         o.raw_text AS raw_orders, o.source AS orders_source, o.received_at AS orders_received_at \
         FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         LEFT JOIN orders o ON o.player_id = p.id AND o.turn_id = $2 AND o.superseded_at IS NULL \
         WHERE p.game_id = $1 ORDER BY p.engine_player_id",
    )
    .bind(game)
    .bind(turn)
    .fetch_all(db)
    .await?)
}

/// A turn's press with who sent it, in the order received.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PressEntry {
    pub display_name: String,
    pub text: String,
    pub source: String,
    pub received_at: DateTime<Utc>,
}

pub async fn press_entries<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<PressEntry>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.display_name, x.text, x.source, x.received_at FROM press x JOIN players p ON p.id = x.player_id \
         WHERE x.turn_id = $1 ORDER BY x.received_at, x.id",
    )
    .bind(turn)
    .fetch_all(db)
    .await?)
}

/// One set of a player's orders that counted for a resolved turn.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PastOrders {
    pub turn_number: i32,
    pub raw_text: String,
    pub source: String,
    pub received_at: DateTime<Utc>,
}

/// A player's own orders of every resolved turn, newest turn first (the player pages' history).
pub async fn past_orders_of_player<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
) -> Result<Vec<PastOrders>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT t.number AS turn_number, o.raw_text, o.source, o.received_at \
         FROM orders o JOIN turns t ON t.id = o.turn_id \
         WHERE o.player_id = $1 AND o.superseded_at IS NULL AND t.status IN ('resolved', 'published') \
         ORDER BY t.number DESC",
    )
    .bind(player)
    .fetch_all(db)
    .await?)
}

/// The press a player has sent for the game's open turn, in the order received.
pub async fn open_turn_press_of_player<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    player: PlayerRowId,
) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT x.text FROM press x JOIN turns t ON t.id = x.turn_id \
         WHERE t.game_id = $1 AND t.status = 'open' AND x.player_id = $2 ORDER BY x.received_at, x.id",
    )
    .bind(game)
    .bind(player)
    .fetch_all(db)
    .await?)
}
