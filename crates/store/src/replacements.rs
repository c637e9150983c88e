//! Standbys, and the replacement of a player by another subscriber in the same seat.

use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::GameId;
use crate::ids::PlayerRowId;
use crate::ids::SubscriberId;
use crate::ids::ZineId;
use crate::status::{PlayerStatus, SubscriberStatus, TurnStatus};

/// Puts a subscriber on the standby list; `false` when they were on it already.
pub async fn standby_on<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "INSERT INTO standbys (subscriber_id) VALUES ($1) ON CONFLICT DO NOTHING",
        subscriber as SubscriberId,
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// Takes a subscriber off the standby list; `false` when they were not on it.
pub async fn standby_off<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "DELETE FROM standbys WHERE subscriber_id = $1",
        subscriber as SubscriberId,
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

pub async fn is_standby<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM standbys WHERE subscriber_id = $1) AS "standby!""#,
        subscriber as SubscriberId,
    )
    .fetch_one(db)
    .await?)
}

/// A standby of a zine, as the GM sees them.
#[derive(Debug, Clone)]
pub struct Standby {
    pub subscriber_id: SubscriberId,
    pub display_name: String,
}

/// The zine's active subscribers on the standby list who do not play `game`, longest-waiting
/// first.
pub async fn standbys_for_game<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    game: GameId,
) -> Result<Vec<Standby>, StoreError> {
    Ok(sqlx::query_as!(
        Standby,
        r#"SELECT s.id AS "subscriber_id: SubscriberId", s.display_name FROM standbys b
           JOIN subscribers s ON s.id = b.subscriber_id
           WHERE s.zine_id = $1 AND s.status = $3
           AND NOT EXISTS (SELECT 1 FROM players p WHERE p.game_id = $2 AND p.subscriber_id = s.id)
           ORDER BY b.since, s.id"#,
        zine as ZineId,
        game as GameId,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_all(db)
    .await?)
}

/// One replacement, to record.
#[derive(Debug, Clone)]
pub struct NewReplacement<'a> {
    pub game_id: GameId,
    pub player: PlayerRowId,
    /// The first turn the new player's orders count for (the open turn).
    pub from_turn: u32,
    pub new_subscriber: SubscriberId,
    pub new_name: &'a str,
    pub new_reply_token: &'a str,
}

/// Hands a player's row (and so their seat, engine id and position) to another subscriber:
/// records the old holder and their token, gives the row the new subscriber, name and token
/// (joining from `from_turn`),
/// drops the old holder's orders for the open turn, and takes the newcomer off the standby
/// list. Returns the old holder's name; `None` when the row is not a player of the game.
pub async fn replace(
    tx: &mut sqlx::PgConnection,
    new: &NewReplacement<'_>,
) -> Result<Option<String>, StoreError> {
    let from_turn = i32::try_from(new.from_turn)
        .map_err(|e| StoreError::invalid_row("player_replacements.from_turn", e))?;
    let old_name = sqlx::query_scalar!(
        "INSERT INTO player_replacements (game_id, engine_player_id, from_turn, old_subscriber_id, \
           old_name, old_reply_token, new_subscriber_id, new_name) \
         SELECT p.game_id, p.engine_player_id, $3, p.subscriber_id, p.display_name, p.reply_token, $4, $5 \
         FROM players p WHERE p.id = $1 AND p.game_id = $2 RETURNING old_name",
        new.player as PlayerRowId,
        new.game_id as GameId,
        from_turn,
        new.new_subscriber as SubscriberId,
        new.new_name,
    )
    .fetch_optional(&mut *tx)
    .await?;
    if old_name.is_none() {
        return Ok(None);
    }
    sqlx::query!(
        "UPDATE players SET subscriber_id = $2, display_name = $3, reply_token = $4, status = $6,
         missed_turns = 0, joined_turn = $5
         WHERE id = $1",
        new.player as PlayerRowId,
        new.new_subscriber as SubscriberId,
        new.new_name,
        new.new_reply_token,
        from_turn,
        PlayerStatus::Active as PlayerStatus,
    )
    .execute(&mut *tx)
    .await
    .map_err(StoreError::unique_as("that subscriber in this game"))?;
    sqlx::query!(
        "UPDATE orders o SET superseded_at = greatest(now(), o.received_at) FROM turns t \
         WHERE o.player_id = $1 AND o.superseded_at IS NULL AND t.id = o.turn_id AND t.status = $2",
        new.player as PlayerRowId,
        TurnStatus::Open as TurnStatus,
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "DELETE FROM standbys WHERE subscriber_id = $1",
        new.new_subscriber as SubscriberId,
    )
    .execute(&mut *tx)
    .await?;
    Ok(old_name)
}

/// Where a reply token was given up: the game's name and the turn the replacement took effect.
pub async fn replaced_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Option<(String, i32)>, StoreError> {
    let row = sqlx::query!(
        "SELECT g.name, r.from_turn FROM player_replacements r JOIN games g ON g.id = r.game_id
         WHERE r.old_reply_token = $1",
        token,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|row| (row.name, row.from_turn)))
}

/// The seats whose replacement takes effect with `turn`: for each engine player id, the
/// latest holder's name, as (engine player id, new name).
pub async fn taking_effect<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    turn: u32,
) -> Result<Vec<(i64, String)>, StoreError> {
    let turn = i32::try_from(turn).map_err(|e| StoreError::invalid_row("turns.number", e))?;
    let rows = sqlx::query!(
        "SELECT DISTINCT ON (engine_player_id) engine_player_id, new_name
         FROM player_replacements WHERE game_id = $1 AND from_turn = $2
         ORDER BY engine_player_id, id DESC",
        game as GameId,
        turn,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.engine_player_id, row.new_name))
        .collect())
}

/// The seats that changed hands by `turn`: for each engine player id, the latest replacement
/// that took effect at or before `turn`, as (engine player id, new name, old name).
pub async fn names_at_turn<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    turn: u32,
) -> Result<Vec<(i64, String, String)>, StoreError> {
    let turn = i32::try_from(turn).map_err(|e| StoreError::invalid_row("turns.number", e))?;
    let rows = sqlx::query!(
        "SELECT DISTINCT ON (engine_player_id) engine_player_id, new_name, old_name
         FROM player_replacements WHERE game_id = $1 AND from_turn <= $2
         ORDER BY engine_player_id, from_turn DESC, id DESC",
        game as GameId,
        turn,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.engine_player_id, row.new_name, row.old_name))
        .collect())
}
