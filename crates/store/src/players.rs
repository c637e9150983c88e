//! The players of games: who plays which seat, with which reply token, and how they stand.

use chrono::{DateTime, Utc};
use games::EngineKind;
use schedule::{ScheduleSettings, Tz};
use sqlx::PgExecutor;
use sqlx::types::Json;

use crate::StoreError;
use crate::games::{GameId, engine_of};
use crate::ids::SubscriberId;
use crate::ids::TurnId;
use crate::ids::ZineId;
use crate::status::{GameStatus, PlayerStatus, Source, SubscriberStatus, TurnStatus};

pub use crate::ids::PlayerRowId;

fn engine_id(id: u64) -> Result<i64, StoreError> {
    i64::try_from(id).map_err(|e| StoreError::invalid_row("players.engine_player_id", e))
}

fn turn_number(number: u32) -> Result<i32, StoreError> {
    i32::try_from(number).map_err(|e| StoreError::invalid_row("players.joined_turn", e))
}

fn seat(seat: Option<u32>) -> Result<Option<i32>, StoreError> {
    seat.map(i32::try_from)
        .transpose()
        .map_err(|e| StoreError::invalid_row("players.seat", e))
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
    /// The named seat the GM gave the player (`engine::SeatPlan::Named`), if any.
    pub seat: Option<u32>,
}

pub async fn insert_player<'e>(
    db: impl PgExecutor<'e>,
    new: &NewPlayer<'_>,
) -> Result<PlayerRowId, StoreError> {
    sqlx::query_scalar!(
        r#"INSERT INTO players (game_id, subscriber_id, display_name, engine_player_id, reply_token, joined_turn, seat)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id AS "id: PlayerRowId""#,
        new.game_id as GameId,
        new.subscriber_id as SubscriberId,
        new.display_name,
        engine_id(new.engine_player_id)?,
        new.reply_token,
        turn_number(new.joined_turn)?,
        seat(new.seat)?,
    )
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("that player in this game"))
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
        seats.push(seat(player.seat)?);
        engine_ids.push(engine_id(player.engine_player_id)?);
        joined.push(turn_number(player.joined_turn)?);
    }
    let games: Vec<GameId> = players.iter().map(|p| p.game_id).collect();
    let subscribers: Vec<SubscriberId> = players.iter().map(|p| p.subscriber_id).collect();
    let names: Vec<&str> = players.iter().map(|p| p.display_name).collect();
    let tokens: Vec<&str> = players.iter().map(|p| p.reply_token).collect();
    sqlx::query!(
        "INSERT INTO players (game_id, subscriber_id, display_name, engine_player_id, reply_token, joined_turn, seat)
         SELECT g, s, n, e, t, j, seat FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::int[])
           WITH ORDINALITY AS x(g, s, n, e, t, j, seat, ord) ORDER BY ord",
        &games as &[GameId],
        &subscribers as &[SubscriberId],
        &names as &[&str],
        &engine_ids as &[i64],
        &tokens as &[&str],
        &joined as &[i32],
        &seats as &[Option<i32>],
    )
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
    Ok(sqlx::query_scalar!(
        "SELECT engine_player_id FROM players WHERE id = $1 AND game_id = $2",
        player as PlayerRowId,
        game as GameId,
    )
    .fetch_optional(db)
    .await?)
}

/// A player of a game, as the engine and the mail know them.
#[derive(Debug, Clone)]
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
    Ok(sqlx::query_as!(
        GamePlayer,
        r#"SELECT p.id AS "id: PlayerRowId", p.engine_player_id, p.display_name, s.email,
                  p.reply_token, p.status AS "status: PlayerStatus", p.missed_turns, p.joined_turn
           FROM players p JOIN subscribers s ON s.id = p.subscriber_id
           WHERE p.game_id = $1 ORDER BY p.engine_player_id"#,
        game as GameId,
    )
    .fetch_all(db)
    .await?)
}

/// One row of a game's roster as the GM and the public see it: no address, no token.
#[derive(Debug, Clone)]
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
    Ok(sqlx::query_as!(
        RosterRow,
        r#"SELECT engine_player_id, display_name, seat, status AS "status: PlayerStatus", joined_turn
           FROM players WHERE game_id = $1 ORDER BY engine_player_id"#,
        game as GameId,
    )
    .fetch_all(db)
    .await?)
}

/// The player a reply token belongs to, with their game's open turn, if any.
#[derive(Debug, Clone)]
pub struct TokenHolder {
    pub player_id: PlayerRowId,
    pub subscriber_id: SubscriberId,
    pub zine_id: ZineId,
    pub game_id: GameId,
    pub game_name: String,
    pub game_status: GameStatus,
    pub engine: EngineKind,
    pub engine_player_id: i64,
    pub display_name: String,
    pub email: String,
    pub reply_token: String,
    pub status: PlayerStatus,
    pub turn_number: Option<i32>,
    pub deadline: Option<DateTime<Utc>>,
    /// The game's time zone, from its schedule.
    pub zone: Tz,
    /// The name of the zine of the subscription (and of the game).
    pub zine_name: String,
}

/// [`TokenHolder`]s: the query, with the WHERE clause and order given; `$1` is the open
/// turn's status, bound here, and the clause's own parameters are `$2` on.
macro_rules! token_holders {
    ($db:expr, $where:literal, $($param:expr),+ $(,)?) => {{
        let rows = sqlx::query!(
            r#"SELECT p.id AS "player_id: PlayerRowId", s.id AS "subscriber_id: SubscriberId",
                      s.zine_id AS "zine_id: ZineId", g.id AS "game_id: GameId",
                      g.name AS game_name, g.status AS "game_status: GameStatus", g.engine,
                      p.engine_player_id, p.display_name, s.email, p.reply_token,
                      p.status AS "status: PlayerStatus", t.number AS "turn_number?",
                      t.deadline AS "deadline?", g.schedule AS "schedule: Json<ScheduleSettings>",
                      z.name AS zine_name
               FROM players p JOIN games g ON g.id = p.game_id
               JOIN subscribers s ON s.id = p.subscriber_id JOIN zines z ON z.id = s.zine_id
               LEFT JOIN turns t ON t.game_id = g.id AND t.status = $1 "#
                + $where,
            TurnStatus::Open as TurnStatus,
            $($param),+
        )
        .fetch_all($db)
        .await?;
        rows.into_iter()
            .map(|row| {
                Ok(TokenHolder {
                    player_id: row.player_id,
                    subscriber_id: row.subscriber_id,
                    zine_id: row.zine_id,
                    game_id: row.game_id,
                    game_name: row.game_name,
                    game_status: row.game_status,
                    engine: engine_of("games.engine", &row.engine)?,
                    engine_player_id: row.engine_player_id,
                    display_name: row.display_name,
                    email: row.email,
                    reply_token: row.reply_token,
                    status: row.status,
                    turn_number: row.turn_number,
                    deadline: row.deadline,
                    zone: row.schedule.0.zone(),
                    zine_name: row.zine_name,
                })
            })
            .collect::<Result<Vec<TokenHolder>, StoreError>>()
    }};
}

/// Every player row of the subscriber who holds reply token `token` (one per game), newest game
/// first: the token's own row is the one whose `reply_token` is `token`. Empty for an unknown
/// token, and for the token of a subscriber who is not active (unsubscribed or excluded): such
/// a token proves nothing.
pub async fn player_rows_of_token<'e>(
    db: impl PgExecutor<'e>,
    token: &str,
) -> Result<Vec<TokenHolder>, StoreError> {
    token_holders!(
        db,
        "WHERE s.id = (SELECT subscriber_id FROM players WHERE reply_token = $2)
         AND s.status = $3 ORDER BY g.id DESC",
        token,
        SubscriberStatus::Active as SubscriberStatus,
    )
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
    let rows: Vec<TokenHolder> = token_holders!(
        db,
        "WHERE s.id = ANY (SELECT subscriber_id FROM players WHERE reply_token = ANY($2))
         AND s.status = $3 ORDER BY s.id, g.id DESC",
        tokens,
        SubscriberStatus::Active as SubscriberStatus,
    )?;
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
    token_holders!(
        db,
        "WHERE s.id = $2 ORDER BY g.id DESC",
        subscriber as SubscriberId,
    )
}

/// Every player row of the person who holds `subscriber`'s address: the rows of each active
/// subscription of that address (any zine; letter case aside), and `subscriber`'s own, newest
/// game first. A login link proves the address, so it shows that person's games everywhere.
pub async fn player_rows_of_person<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<TokenHolder>, StoreError> {
    token_holders!(
        db,
        "WHERE s.id = $2 OR (s.status = $3 AND lower(s.email) =
           (SELECT lower(o.email) FROM subscribers o WHERE o.id = $2))
         ORDER BY g.id DESC",
        subscriber as SubscriberId,
        SubscriberStatus::Active as SubscriberStatus,
    )
}

/// The players of a game with their subscribers' addresses, for relaying private messages:
/// only those whose subscription is active (an address that unsubscribed was promised no more
/// mail, even before its player leaves the game at the next resolution).
pub async fn player_rows_of_game<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<TokenHolder>, StoreError> {
    token_holders!(
        db,
        "WHERE g.id = $2 AND s.status = $3 ORDER BY p.engine_player_id",
        game as GameId,
        SubscriberStatus::Active as SubscriberStatus,
    )
}

/// The player rows of a subscriber, oldest first: the rows [`replace_reply_tokens`] takes
/// new tokens for.
pub async fn rows_of_subscriber<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<PlayerRowId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT id AS "id: PlayerRowId" FROM players WHERE subscriber_id = $1 ORDER BY id"#,
        subscriber as SubscriberId,
    )
    .fetch_all(db)
    .await?)
}

/// The seats the subscriber still holds in games that go on: each active player row of a game
/// not finished, with its game.
pub async fn held_seats<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
) -> Result<Vec<(PlayerRowId, GameId)>, StoreError> {
    let rows = sqlx::query!(
        r#"SELECT p.id AS "id: PlayerRowId", p.game_id AS "game_id: GameId"
           FROM players p JOIN games g ON g.id = p.game_id
           WHERE p.subscriber_id = $1 AND p.status = $2 AND g.status <> $3
           AND g.deleted_at IS NULL ORDER BY p.id"#,
        subscriber as SubscriberId,
        PlayerStatus::Active as PlayerStatus,
        GameStatus::Finished as GameStatus,
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|row| (row.id, row.game_id)).collect())
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
    Ok(sqlx::query!(
        "UPDATE players p SET reply_token = t.token
         FROM unnest($1::bigint[], $2::text[]) AS t(id, token) WHERE p.id = t.id",
        rows as &[PlayerRowId],
        tokens,
    )
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
    Ok(sqlx::query!(
        "UPDATE players p SET status = CASE s.status WHEN $3 THEN $4 ELSE $5 END
         FROM subscribers s WHERE s.id = p.subscriber_id AND p.game_id = $1 AND p.status = $2
         AND s.status <> $6",
        game as GameId,
        PlayerStatus::Active as PlayerStatus,
        SubscriberStatus::Excluded as SubscriberStatus,
        PlayerStatus::Excluded as PlayerStatus,
        PlayerStatus::Resigned as PlayerStatus,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// A subscriber of the game's zine who is active and not (yet) a player of the game.
#[derive(Debug, Clone)]
pub struct Unenrolled {
    pub subscriber_id: SubscriberId,
    pub display_name: String,
}

/// Active subscribers of the game's zine who have never played it, oldest subscription first.
pub async fn unenrolled_subscribers<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<Unenrolled>, StoreError> {
    Ok(sqlx::query_as!(
        Unenrolled,
        r#"SELECT s.id AS "subscriber_id: SubscriberId", s.display_name
           FROM subscribers s JOIN games g ON g.zine_id = s.zine_id
           WHERE g.id = $1 AND s.status = $2
           AND NOT EXISTS (SELECT 1 FROM players p WHERE p.game_id = g.id AND p.subscriber_id = s.id)
           ORDER BY s.id"#,
        game as GameId,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Sets a player's status; false when there is no such player.
pub async fn set_status<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
    status: PlayerStatus,
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "UPDATE players SET status = $2 WHERE id = $1",
        player as PlayerRowId,
        status as PlayerStatus,
    )
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
    let result = sqlx::query!(
        "UPDATE players SET status = $3 WHERE id = $1 AND status = $2",
        player as PlayerRowId,
        from as PlayerStatus,
        to as PlayerStatus,
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// The largest engine id given to a player of the game (0 when none).
pub async fn max_engine_player_id<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT COALESCE(max(engine_player_id), 0) AS "id!" FROM players WHERE game_id = $1"#,
        game as GameId,
    )
    .fetch_one(db)
    .await?)
}

/// Active players (of active subscribers) with no current orders for the turn that answer it.
pub async fn players_without_orders<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    turn: TurnId,
) -> Result<Vec<GamePlayer>, StoreError> {
    Ok(sqlx::query_as!(
        GamePlayer,
        r#"SELECT p.id AS "id: PlayerRowId", p.engine_player_id, p.display_name, s.email,
                  p.reply_token, p.status AS "status: PlayerStatus", p.missed_turns, p.joined_turn
           FROM players p JOIN subscribers s ON s.id = p.subscriber_id
           WHERE p.game_id = $1 AND p.status = $3 AND s.status = $4
           AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.turn_id = $2 AND o.player_id = p.id
                           AND o.superseded_at IS NULL AND o.answers_turn)
           ORDER BY p.engine_player_id"#,
        game as GameId,
        turn as TurnId,
        PlayerStatus::Active as PlayerStatus,
        SubscriberStatus::Active as SubscriberStatus,
    )
    .fetch_all(db)
    .await?)
}

/// Where one player stands on a turn: their current orders, if any.
#[derive(Debug, Clone)]
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
    Ok(sqlx::query_as!(
        PlayerTurnStatus,
        r#"SELECT p.id AS "player_id: PlayerRowId", p.engine_player_id, p.display_name, s.email,
                  p.status AS "status: PlayerStatus", o.raw_text AS "raw_orders?",
                  o.source AS "orders_source?: Source", o.received_at AS "orders_received_at?",
                  o.answers_turn AS "orders_answer_turn?"
           FROM players p JOIN subscribers s ON s.id = p.subscriber_id
           LEFT JOIN orders o ON o.player_id = p.id AND o.turn_id = $2 AND o.superseded_at IS NULL
           WHERE p.game_id = $1 ORDER BY p.engine_player_id"#,
        game as GameId,
        turn as TurnId,
    )
    .fetch_all(db)
    .await?)
}

/// The game's active players whose subscribers are marked postal, in engine id order.
pub async fn postal_players<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<PlayerRowId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT p.id AS "id: PlayerRowId" FROM players p JOIN subscribers s ON s.id = p.subscriber_id
           WHERE p.game_id = $1 AND p.status = $2 AND s.postal ORDER BY p.engine_player_id"#,
        game as GameId,
        PlayerStatus::Active as PlayerStatus,
    )
    .fetch_all(db)
    .await?)
}

/// A player's name in their game, if the row exists.
pub async fn name_of<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT display_name FROM players WHERE id = $1",
        player as PlayerRowId
    )
    .fetch_optional(db)
    .await?)
}
