//! Orders and press: each player's current set for a turn, and the press published under its
//! report. Orders are stored as the JSON their engine's orders serialise to, and read back
//! typed with the game's engine.

use chrono::{DateTime, Utc};
use games::{AnyOrders, EngineKind};
use sqlx::PgExecutor;
use sqlx::types::Json;

use crate::StoreError;
use crate::ids::GameId;
use crate::ids::PlayerRowId;
use crate::ids::PressId;
use crate::ids::TurnId;
use crate::status::{Source, TurnStatus};

/// One player's complete orders for a turn; supersedes their previous set.
#[derive(Debug, Clone)]
pub struct NewOrders<'a> {
    pub game_id: GameId,
    pub turn_id: TurnId,
    pub player_id: PlayerRowId,
    pub raw_text: &'a str,
    pub parsed: &'a AnyOrders,
    pub source: Source,
    /// Whether the set answers the turn (the engine's `answers_turn`): one that does not
    /// stands as the player's set but counts as not ordered for reminders and early
    /// resolution.
    pub answers_turn: bool,
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
    let later = sqlx::query_scalar!(
        "WITH current AS (SELECT id, received_at FROM orders
                          WHERE turn_id = $2 AND player_id = $3 AND superseded_at IS NULL),
              later AS (SELECT max(received_at) AS at FROM current WHERE received_at > $7),
              superseded AS (UPDATE orders SET superseded_at = $7
                             WHERE id IN (SELECT id FROM current)
                               AND NOT EXISTS (SELECT 1 FROM later WHERE at IS NOT NULL)
                             RETURNING id),
              saved AS (INSERT INTO orders (game_id, turn_id, player_id, raw_text, parsed, source, received_at, answers_turn)
                        SELECT $1, $2, $3, $4, $5, $6, $7, $9 FROM (SELECT count(*) FROM superseded) AS done
                        WHERE NOT EXISTS (SELECT 1 FROM later WHERE at IS NOT NULL)),
              press_saved AS (INSERT INTO press (game_id, turn_id, player_id, text, source, received_at)
                        SELECT $1, $2, $3, p.text, $6, $7 FROM unnest($8::text[]) WITH ORDINALITY AS p(text, n)
                        WHERE NOT EXISTS (SELECT 1 FROM later WHERE at IS NOT NULL) ORDER BY p.n)
         SELECT at FROM later",
        new.game_id as GameId,
        new.turn_id as TurnId,
        new.player_id as PlayerRowId,
        new.raw_text,
        Json(new.parsed) as _,
        new.source as Source,
        now,
        press,
        new.answers_turn,
    )
    .fetch_one(&mut *tx)
    .await?;
    if let Some(later) = later {
        return Ok(SavedOrders::LaterStand(later));
    }
    Ok(SavedOrders::Saved)
}

/// When a set of the player's orders for the turn that arrived after `at` was received, if
/// one stands: then a set that arrived at `at` does not count.
pub async fn later_orders_at(
    tx: &mut sqlx::PgConnection,
    turn: TurnId,
    player: PlayerRowId,
    at: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT max(received_at) FROM orders WHERE turn_id = $1 AND player_id = $2
         AND superseded_at IS NULL AND received_at > $3",
        turn as TurnId,
        player as PlayerRowId,
        at,
    )
    .fetch_one(&mut *tx)
    .await?)
}

/// Withdraws the press the player sent for the turn before `before` (new orders replace it,
/// or PRESS WITHDRAW): it will not be printed. Returns how many entries went.
pub async fn withdraw_press(
    tx: &mut sqlx::PgConnection,
    turn: TurnId,
    player: PlayerRowId,
    before: DateTime<Utc>,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "DELETE FROM press WHERE turn_id = $1 AND player_id = $2 AND received_at < $3",
        turn as TurnId,
        player as PlayerRowId,
        before,
    )
    .execute(&mut *tx)
    .await?
    .rows_affected())
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
    pub source: Source,
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
    let games: Vec<GameId> = press.iter().map(|p| p.game_id).collect();
    let turns: Vec<TurnId> = press.iter().map(|p| p.turn_id).collect();
    let players: Vec<PlayerRowId> = press.iter().map(|p| p.player_id).collect();
    let texts: Vec<&str> = press.iter().map(|p| p.text.as_str()).collect();
    let sources: Vec<Source> = press.iter().map(|p| p.source).collect();
    let times: Vec<DateTime<Utc>> = press.iter().map(|p| p.received_at).collect();
    sqlx::query!(
        "INSERT INTO press (game_id, turn_id, player_id, text, source, received_at)
         SELECT p.game_id, p.turn_id, p.player_id, p.text, p.source, p.received_at
         FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::timestamptz[])
           WITH ORDINALITY AS p(game_id, turn_id, player_id, text, source, received_at, n) ORDER BY p.n",
        &games as &[GameId],
        &turns as &[TurnId],
        &players as &[PlayerRowId],
        &texts as &[&str],
        &sources as &[Source],
        &times as &[DateTime<Utc>],
    )
    .execute(db)
    .await?;
    Ok(())
}

/// How many press entries a player has for a turn, and how many characters they hold in all:
/// what the turn's press limits count.
pub async fn press_used<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    player: PlayerRowId,
) -> Result<(i64, i64), StoreError> {
    let used = sqlx::query!(
        r#"SELECT count(*) AS "entries!", coalesce(sum(char_length(text)), 0)::bigint AS "chars!"
           FROM press WHERE turn_id = $1 AND player_id = $2"#,
        turn as TurnId,
        player as PlayerRowId,
    )
    .fetch_one(db)
    .await?;
    Ok((used.entries, used.chars))
}

/// The orders that count for a turn: each player's last set not superseded, by engine id,
/// read as `engine`'s orders.
pub async fn current_orders<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    engine: EngineKind,
) -> Result<Vec<(i64, AnyOrders)>, StoreError> {
    let rows = sqlx::query!(
        "SELECT p.engine_player_id, o.parsed FROM orders o JOIN players p ON p.id = o.player_id
         WHERE o.turn_id = $1 AND o.superseded_at IS NULL ORDER BY p.engine_player_id",
        turn as TurnId,
    )
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|row| {
            let orders = engine
                .parse_stored_orders(&row.parsed)
                .map_err(|e| StoreError::invalid_row("orders.parsed", e))?;
            Ok((row.engine_player_id, orders))
        })
        .collect()
}

/// The engine ids of the players with current orders for a turn.
pub async fn players_with_orders<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<i64>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT p.engine_player_id FROM orders o JOIN players p ON p.id = o.player_id
         WHERE o.turn_id = $1 AND o.superseded_at IS NULL ORDER BY p.engine_player_id",
        turn as TurnId,
    )
    .fetch_all(db)
    .await?)
}

/// A turn's press in the order received.
pub async fn turn_press<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<(i64, String)>, StoreError> {
    let rows = sqlx::query!(
        "SELECT p.engine_player_id, x.text FROM press x JOIN players p ON p.id = x.player_id
         WHERE x.turn_id = $1 ORDER BY x.received_at, x.id",
        turn as TurnId,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.engine_player_id, row.text))
        .collect())
}

/// The raw text of a player's current orders for the open turn, if any.
pub async fn current_raw_orders<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    player: PlayerRowId,
) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT o.raw_text FROM orders o JOIN turns t ON t.id = o.turn_id
         WHERE t.game_id = $1 AND t.status = $3 AND o.player_id = $2 AND o.superseded_at IS NULL",
        game as GameId,
        player as PlayerRowId,
        TurnStatus::Open as TurnStatus,
    )
    .fetch_optional(db)
    .await?)
}

/// A turn's press with who sent it, in the order received.
#[derive(Debug, Clone)]
pub struct PressEntry {
    pub id: PressId,
    pub display_name: String,
    pub text: String,
    pub source: Source,
    pub received_at: DateTime<Utc>,
}

pub async fn press_entries<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Vec<PressEntry>, StoreError> {
    Ok(sqlx::query_as!(
        PressEntry,
        r#"SELECT x.id AS "id: PressId", p.display_name, x.text, x.source AS "source: Source",
                  x.received_at
           FROM press x JOIN players p ON p.id = x.player_id
           WHERE x.turn_id = $1 ORDER BY x.received_at, x.id"#,
        turn as TurnId,
    )
    .fetch_all(db)
    .await?)
}

/// One set of a player's orders that counted for a resolved turn.
#[derive(Debug, Clone)]
pub struct PastOrders {
    pub turn_number: i32,
    pub raw_text: String,
    pub source: Source,
    pub received_at: DateTime<Utc>,
}

/// A player's own orders of every resolved turn, newest turn first (the player pages' history).
pub async fn past_orders_of_player<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
) -> Result<Vec<PastOrders>, StoreError> {
    Ok(sqlx::query_as!(
        PastOrders,
        r#"SELECT t.number AS turn_number, o.raw_text, o.source AS "source: Source", o.received_at
           FROM orders o JOIN turns t ON t.id = o.turn_id
           WHERE o.player_id = $1 AND o.superseded_at IS NULL AND t.status IN ($2, $3)
           ORDER BY t.number DESC"#,
        player as PlayerRowId,
        TurnStatus::Resolved as TurnStatus,
        TurnStatus::Published as TurnStatus,
    )
    .fetch_all(db)
    .await?)
}

/// The press a player has sent for the game's open turn, in the order received.
pub async fn open_turn_press_of_player<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    player: PlayerRowId,
) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT x.text FROM press x JOIN turns t ON t.id = x.turn_id
         WHERE t.game_id = $1 AND t.status = $3 AND x.player_id = $2 ORDER BY x.received_at, x.id",
        game as GameId,
        player as PlayerRowId,
        TurnStatus::Open as TurnStatus,
    )
    .fetch_all(db)
    .await?)
}

/// A press entry the GM may strike, with what the player is told and the turn it is for.
#[derive(Debug, Clone)]
pub struct PressToStrike {
    pub id: PressId,
    pub player_id: PlayerRowId,
    pub display_name: String,
    pub email: crate::EmailAddress,
    pub reply_token: String,
    pub text: String,
    pub turn_id: TurnId,
    pub turn_number: i32,
    pub turn_status: TurnStatus,
}

/// The game's press entry `id`, its turn locked (shared) to the end of the transaction, so the
/// turn cannot resolve while the entry is struck. `None`: no such entry in the game (withdrawn,
/// or struck already).
pub async fn lock_press_entry(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    id: PressId,
) -> Result<Option<PressToStrike>, StoreError> {
    Ok(sqlx::query_as!(
        PressToStrike,
        r#"SELECT x.id AS "id: PressId", x.player_id AS "player_id: PlayerRowId", p.display_name,
                  s.email AS "email: crate::EmailAddress", p.reply_token, x.text,
                  t.id AS "turn_id: TurnId", t.number AS turn_number,
                  t.status AS "turn_status: TurnStatus"
           FROM press x JOIN turns t ON t.id = x.turn_id
                JOIN players p ON p.id = x.player_id
                JOIN subscribers s ON s.id = p.subscriber_id
           WHERE x.id = $1 AND x.game_id = $2
           FOR SHARE OF t"#,
        id as PressId,
        game as GameId,
    )
    .fetch_optional(&mut *tx)
    .await?)
}

/// Deletes a press entry the GM struck: it is not printed. Returns whether it was there.
pub async fn delete_press_entry(
    tx: &mut sqlx::PgConnection,
    id: PressId,
) -> Result<bool, StoreError> {
    Ok(
        sqlx::query!("DELETE FROM press WHERE id = $1", id as PressId)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1,
    )
}
