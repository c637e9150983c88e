//! The players of games: who plays which seat, with which reply token, and how they stand.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;
use crate::games::GameId;
use crate::status::{GameStatus, PlayerStatus, Source};
use crate::subscribers::SubscriberId;
use crate::turns::TurnId;
use crate::zines::ZineId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct PlayerRowId(pub i64);

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
    /// The named seat the GM gave the player (`engine::SeatPlan::Named`), if any.
    pub seat: Option<u32>,
}

pub async fn insert_player<'e>(
    db: impl PgExecutor<'e>,
    new: &NewPlayer<'_>,
) -> Result<PlayerRowId, StoreError> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO players (game_id, subscriber_id, display_name, engine_player_id, reply_token, joined_turn, seat) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(new.game_id)
    .bind(new.subscriber_id)
    .bind(new.display_name)
    .bind(i64::try_from(new.engine_player_id).map_err(|e| StoreError::invalid_row("players.engine_player_id", e))?)
    .bind(new.reply_token)
    .bind(i32::try_from(new.joined_turn).map_err(|e| StoreError::invalid_row("players.joined_turn", e))?)
    .bind(new.seat.map(i32::try_from).transpose().map_err(|e| StoreError::invalid_row("players.seat", e))?)
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("that player in this game"))?;
    Ok(PlayerRowId(id))
}

/// [`insert_player`] for many players in one statement (a game of a big zine starts with
/// thousands), in order.
pub async fn insert_many<'e>(
    db: impl PgExecutor<'e>,
    players: &[NewPlayer<'_>],
) -> Result<(), StoreError> {
    if players.is_empty() {
        return Ok(());
    }
    let mut engine_ids = Vec::with_capacity(players.len());
    let mut joined = Vec::with_capacity(players.len());
    let mut seats: Vec<Option<i32>> = Vec::with_capacity(players.len());
    for player in players {
        seats.push(
            player
                .seat
                .map(i32::try_from)
                .transpose()
                .map_err(|e| StoreError::invalid_row("players.seat", e))?,
        );
        engine_ids.push(
            i64::try_from(player.engine_player_id)
                .map_err(|e| StoreError::invalid_row("players.engine_player_id", e))?,
        );
        joined.push(
            i32::try_from(player.joined_turn)
                .map_err(|e| StoreError::invalid_row("players.joined_turn", e))?,
        );
    }
    let games: Vec<i64> = players.iter().map(|p| p.game_id.0).collect();
    let subscribers: Vec<i64> = players.iter().map(|p| p.subscriber_id.0).collect();
    let names: Vec<&str> = players.iter().map(|p| p.display_name).collect();
    let tokens: Vec<&str> = players.iter().map(|p| p.reply_token).collect();
    sqlx::query(
        "INSERT INTO players (game_id, subscriber_id, display_name, engine_player_id, reply_token, joined_turn, seat) \
         SELECT g, s, n, e, t, j, seat FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::int[]) \
           WITH ORDINALITY AS x(g, s, n, e, t, j, seat, ord) ORDER BY ord",
    )
    .bind(games)
    .bind(subscribers)
    .bind(names)
    .bind(engine_ids)
    .bind(tokens)
    .bind(joined)
    .bind(seats)
    .execute(db)
    .await
    .map_err(StoreError::unique_as("that player in this game"))?;
    Ok(())
}

/// The engine's id of a player of `game`; `None` when the row is not in that game.
pub async fn engine_player_id<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
    game: GameId,
) -> Result<Option<i64>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT engine_player_id FROM players WHERE id = $1 AND game_id = $2")
            .bind(player)
            .bind(game)
            .fetch_optional(db)
            .await?,
    )
}

/// A player of a game, as the engine and the mail know them.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GamePlayer {
    pub id: PlayerRowId,
    pub engine_player_id: i64,
    pub display_name: String,
    pub email: String,
    pub reply_token: String,
    pub status: PlayerStatus,
    /// Turns missed in a row by this holder of the seat.
    pub missed_turns: i32,
    /// The first turn the player plays.
    pub joined_turn: i32,
}

/// A game's players, in engine id order.
pub async fn of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<GamePlayer>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.id, p.engine_player_id, p.display_name, s.email, p.reply_token, p.status, \
         p.missed_turns, p.joined_turn FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 ORDER BY p.engine_player_id",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// One row of a game's roster as the GM and the public see it: no address, no token.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RosterRow {
    pub engine_player_id: i64,
    pub display_name: String,
    pub seat: Option<i32>,
    pub status: PlayerStatus,
    pub joined_turn: i32,
}

/// A game's roster: its players in engine id order, with the seat each was given.
pub async fn roster<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<RosterRow>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT engine_player_id, display_name, seat, status, joined_turn FROM players \
         WHERE game_id = $1 ORDER BY engine_player_id",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// The player a reply token belongs to, with their game's open turn, if any.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenHolder {
    pub player_id: PlayerRowId,
    pub subscriber_id: SubscriberId,
    pub zine_id: ZineId,
    pub game_id: GameId,
    pub game_name: String,
    pub game_status: GameStatus,
    pub engine: String,
    pub engine_player_id: i64,
    pub display_name: String,
    pub email: String,
    pub reply_token: String,
    pub status: PlayerStatus,
    pub turn_number: Option<i32>,
    pub deadline: Option<DateTime<Utc>>,
    /// The game's time zone (IANA name) from its schedule; none for games made before it.
    pub time_zone: Option<String>,
    /// The name of the zine of the subscription (and of the game).
    pub zine_name: String,
}

/// The columns of [`TokenHolder`]; callers add the WHERE clause.
macro_rules! token_holder_select {
    ($where:literal) => {
        concat!(
            "SELECT p.id AS player_id, s.id AS subscriber_id, s.zine_id, g.id AS game_id, \
             g.name AS game_name, g.status AS game_status, g.engine, p.engine_player_id, \
             p.display_name, s.email, p.reply_token, p.status, t.number AS turn_number, t.deadline, \
             g.schedule->>'zone' AS time_zone, z.name AS zine_name \
             FROM players p JOIN games g ON g.id = p.game_id JOIN subscribers s ON s.id = p.subscriber_id \
             JOIN zines z ON z.id = s.zine_id \
             LEFT JOIN turns t ON t.game_id = g.id AND t.status = 'open' ",
            $where
        )
    };
}

/// Every player row of the subscriber who holds reply token `token` (one per game), newest game
/// first: the token's own row is the one whose `reply_token` is `token`. Empty for an unknown
/// token, and for the token of a subscriber who is not active (unsubscribed or excluded): such
/// a token proves nothing.
pub async fn player_rows_of_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Vec<TokenHolder>, StoreError> {
    Ok(sqlx::query_as(token_holder_select!(
        "WHERE s.id = (SELECT subscriber_id FROM players WHERE reply_token = $1) \
         AND s.status = 'active' ORDER BY g.id DESC"
    ))
    .bind(token)
    .fetch_all(db)
    .await?)
}

/// [`player_rows_of_token`] for many tokens in one statement: each token found (of an active
/// subscriber), with its holder's player rows, newest game first.
pub async fn player_rows_of_tokens<'e>(
    db: impl PgExecutor<'e>,
    tokens: &[String],
) -> Result<Vec<(String, Vec<TokenHolder>)>, StoreError> {
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<TokenHolder> = sqlx::query_as(token_holder_select!(
        "WHERE s.id = ANY (SELECT subscriber_id FROM players WHERE reply_token = ANY($1)) \
         AND s.status = 'active' ORDER BY s.id, g.id DESC"
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
    subscriber: SubscriberId,
) -> Result<Vec<TokenHolder>, StoreError> {
    Ok(
        sqlx::query_as(token_holder_select!("WHERE s.id = $1 ORDER BY g.id DESC"))
            .bind(subscriber)
            .fetch_all(db)
            .await?,
    )
}

/// Every player row of the person who holds `subscriber`'s address: the rows of each active
/// subscription of that address (any zine; letter case aside), and `subscriber`'s own, newest
/// game first. A login link proves the address, so it shows that person's games everywhere.
pub async fn player_rows_of_person<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<TokenHolder>, StoreError> {
    Ok(sqlx::query_as(token_holder_select!(
        "WHERE s.id = $1 OR (s.status = 'active' AND lower(s.email) = \
           (SELECT lower(o.email) FROM subscribers o WHERE o.id = $1)) \
         ORDER BY g.id DESC"
    ))
    .bind(subscriber)
    .fetch_all(db)
    .await?)
}

/// The players of a game with their subscribers' addresses, for relaying private messages:
/// only those whose subscription is active (an address that unsubscribed was promised no more
/// mail, even before its player leaves the game at the next resolution).
pub async fn player_rows_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<TokenHolder>, StoreError> {
    Ok(sqlx::query_as(token_holder_select!(
        "WHERE g.id = $1 AND s.status = 'active' ORDER BY p.engine_player_id"
    ))
    .bind(game)
    .fetch_all(db)
    .await?)
}

/// The player rows of a subscriber, oldest first: the rows [`replace_reply_tokens`] takes
/// new tokens for.
pub async fn rows_of_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<PlayerRowId>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT id FROM players WHERE subscriber_id = $1 ORDER BY id")
            .bind(subscriber)
            .fetch_all(db)
            .await?,
    )
}

/// The seats the subscriber still holds in games that go on: each active player row of a game
/// not finished, with its game.
pub async fn held_seats<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<(PlayerRowId, GameId)>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.id, p.game_id FROM players p JOIN games g ON g.id = p.game_id \
         WHERE p.subscriber_id = $1 AND p.status = 'active' AND g.status <> 'finished' \
         AND g.deleted_at IS NULL ORDER BY p.id",
    )
    .bind(subscriber)
    .fetch_all(db)
    .await?)
}

/// Gives player rows new reply tokens (`tokens[i]` for `rows[i]`): the old ones, in every
/// mail sent so far, then name no one.
pub async fn replace_reply_tokens<'e>(
    db: impl PgExecutor<'e>,
    rows: &[PlayerRowId],
    tokens: &[String],
) -> Result<u64, StoreError> {
    if rows.len() != tokens.len() {
        return Err(StoreError::invalid_row(
            "players.reply_token",
            "one new token per player row",
        ));
    }
    let ids: Vec<i64> = rows.iter().map(|row| row.0).collect();
    Ok(sqlx::query(
        "UPDATE players p SET reply_token = t.token \
         FROM unnest($1::bigint[], $2::text[]) AS t(id, token) WHERE p.id = t.id",
    )
    .bind(ids)
    .bind(tokens)
    .execute(db)
    .await?
    .rows_affected())
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

/// Sets a player's status; false when there is no such player.
pub async fn set_status<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
    status: PlayerStatus,
) -> Result<bool, StoreError> {
    let result = sqlx::query("UPDATE players SET status = $2 WHERE id = $1")
        .bind(player)
        .bind(status)
        .execute(db)
        .await?;
    Ok(result.rows_affected() == 1)
}

/// Moves the player from `from` to `to` only if they are still `from` (a concurrent change,
/// a replacement say, wins); `true` when it did.
pub async fn change_status<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
    from: PlayerStatus,
    to: PlayerStatus,
) -> Result<bool, StoreError> {
    let result = sqlx::query("UPDATE players SET status = $3 WHERE id = $1 AND status = $2")
        .bind(player)
        .bind(from)
        .bind(to)
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

/// Active players (of active subscribers) with no current orders for the turn that answer it.
pub async fn players_without_orders<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    turn: TurnId,
) -> Result<Vec<GamePlayer>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT p.id, p.engine_player_id, p.display_name, s.email, p.reply_token, p.status, \
         p.missed_turns, p.joined_turn FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND p.status = 'active' AND s.status = 'active' \
         AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.turn_id = $2 AND o.player_id = p.id \
                         AND o.superseded_at IS NULL AND o.answers_turn) \
         ORDER BY p.engine_player_id",
    )
    .bind(game)
    .bind(turn)
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
    pub status: PlayerStatus,
    pub raw_orders: Option<String>,
    pub orders_source: Option<Source>,
    pub orders_received_at: Option<DateTime<Utc>>,
    /// Whether those orders answer the turn (none: no orders).
    pub orders_answer_turn: Option<bool>,
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
         o.raw_text AS raw_orders, o.source AS orders_source, o.received_at AS orders_received_at, \
         o.answers_turn AS orders_answer_turn \
         FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         LEFT JOIN orders o ON o.player_id = p.id AND o.turn_id = $2 AND o.superseded_at IS NULL \
         WHERE p.game_id = $1 ORDER BY p.engine_player_id",
    )
    .bind(game)
    .bind(turn)
    .fetch_all(db)
    .await?)
}

/// The game's active players whose subscribers are marked postal, in engine id order.
pub async fn postal_players<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<PlayerRowId>, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT p.id FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND p.status = 'active' AND s.postal ORDER BY p.engine_player_id",
    )
    .bind(game)
    .fetch_all(db)
    .await?)
}
