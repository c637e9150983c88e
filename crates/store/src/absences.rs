//! Absences (issue 18 item 4): the days a subscriber is away, each game's absence policy, and
//! what a turn records of them (excused players, a deadline that waited).

use chrono::{DateTime, NaiveDate, Utc};
use games::{AnyOrders, EngineKind};
use sqlx::PgExecutor;

use crate::StoreError;
use crate::ids::GameId;
use crate::ids::PlayerRowId;
use crate::ids::SubscriberId;
use crate::ids::TurnId;
use crate::status::{AbsencePolicy, PlayerStatus, TurnStatus};

/// One declared absence: both days included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Absence {
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
}

/// A game's absence policy and its waiting limit in days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GamePolicy {
    pub policy: AbsencePolicy,
    pub wait_days: u32,
}

/// An active player of a game who is absent on a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbsentPlayer {
    pub player_id: PlayerRowId,
    pub engine_player_id: i64,
    /// The last day of the absence covering the day.
    pub last_day: NaiveDate,
}

pub async fn add<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
    absence: Absence,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "INSERT INTO absences (subscriber_id, first_day, last_day, created_at) VALUES ($1, $2, $3, $4)",
        subscriber as SubscriberId,
        absence.first_day,
        absence.last_day,
        now,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Cancels the subscriber's absences that have not ended by `today`; returns how many.
pub async fn cancel_to_come<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
    today: NaiveDate,
) -> Result<u64, StoreError> {
    Ok(sqlx::query!(
        "DELETE FROM absences WHERE subscriber_id = $1 AND last_day >= $2",
        subscriber as SubscriberId,
        today,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// The subscriber's absences that have not ended by `today`, earliest first.
pub async fn to_come<'e>(
    db: impl PgExecutor<'e>,
    subscriber: SubscriberId,
    today: NaiveDate,
) -> Result<Vec<Absence>, StoreError> {
    Ok(sqlx::query_as!(
        Absence,
        "SELECT first_day, last_day FROM absences WHERE subscriber_id = $1 AND last_day >= $2
         ORDER BY first_day, last_day, id",
        subscriber as SubscriberId,
        today,
    )
    .fetch_all(db)
    .await?)
}

pub async fn policy<'e>(db: impl PgExecutor<'e>, game: GameId) -> Result<GamePolicy, StoreError> {
    let row = sqlx::query!(
        r#"SELECT absence_policy AS "policy: AbsencePolicy", absence_wait_days FROM games WHERE id = $1"#,
        game as GameId,
    )
    .fetch_one(db)
    .await?;
    Ok(GamePolicy {
        policy: row.policy,
        wait_days: u32::try_from(row.absence_wait_days)
            .map_err(|e| StoreError::invalid_row("games.absence_wait_days", e))?,
    })
}

pub async fn set_policy<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    policy: GamePolicy,
) -> Result<(), StoreError> {
    let wait_days = i32::try_from(policy.wait_days)
        .map_err(|e| StoreError::invalid_row("games.absence_wait_days", e))?;
    sqlx::query!(
        "UPDATE games SET absence_policy = $2, absence_wait_days = $3 WHERE id = $1",
        game as GameId,
        policy.policy as AbsencePolicy,
        wait_days,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The game's active players absent on `day`, in engine id order.
pub async fn absent_players<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    day: NaiveDate,
) -> Result<Vec<AbsentPlayer>, StoreError> {
    Ok(sqlx::query_as!(
        AbsentPlayer,
        r#"SELECT p.id AS "player_id: PlayerRowId", p.engine_player_id, max(a.last_day) AS "last_day!"
           FROM players p JOIN absences a ON a.subscriber_id = p.subscriber_id
           WHERE p.game_id = $1 AND p.status = $3 AND a.first_day <= $2 AND a.last_day >= $2
           GROUP BY p.id, p.engine_player_id ORDER BY p.engine_player_id"#,
        game as GameId,
        day,
        PlayerStatus::Active as PlayerStatus,
    )
    .fetch_all(db)
    .await?)
}

/// A player's orders that counted in their latest earlier turn of the game: raw text, the
/// orders read as `engine`'s, and whether they answered the turn.
pub async fn last_orders<'e>(
    db: impl PgExecutor<'e>,
    player: PlayerRowId,
    before_turn: i32,
    engine: EngineKind,
) -> Result<Option<(String, AnyOrders, bool)>, StoreError> {
    let row = sqlx::query!(
        "SELECT o.raw_text, o.parsed, o.answers_turn FROM orders o JOIN turns t ON t.id = o.turn_id
         WHERE o.player_id = $1 AND o.superseded_at IS NULL AND t.number < $2
         ORDER BY t.number DESC LIMIT 1",
        player as PlayerRowId,
        before_turn,
    )
    .fetch_optional(db)
    .await?;
    row.map(|row| {
        let orders = engine
            .parse_stored_orders(&row.parsed)
            .map_err(|e| StoreError::invalid_row("orders.parsed", e))?;
        Ok((row.raw_text, orders, row.answers_turn))
    })
    .transpose()
}

/// Records the players excused from a missed-turn penalty this turn (part of its input).
pub async fn set_excused<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    excused: &[i64],
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE turns SET excused = $2 WHERE id = $1",
        turn as TurnId,
        excused,
    )
    .execute(db)
    .await?;
    Ok(())
}

pub async fn excused<'e>(db: impl PgExecutor<'e>, turn: TurnId) -> Result<Vec<i64>, StoreError> {
    Ok(
        sqlx::query_scalar!("SELECT excused FROM turns WHERE id = $1", turn as TurnId)
            .fetch_one(db)
            .await?,
    )
}

/// The turn's deadline before it first waited for an absent player, if it has waited.
pub async fn deadline_before_absence<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
) -> Result<Option<DateTime<Utc>>, StoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT deadline_before_absence FROM turns WHERE id = $1",
        turn as TurnId,
    )
    .fetch_one(db)
    .await?)
}

/// Moves an open turn's deadline to wait for an absent player, keeping its first deadline.
pub async fn wait_for_absent<'e>(
    db: impl PgExecutor<'e>,
    turn: TurnId,
    first_deadline: DateTime<Utc>,
    new_deadline: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE turns SET deadline = $3, deadline_before_absence = COALESCE(deadline_before_absence, $2)
         WHERE id = $1 AND status = $4",
        turn as TurnId,
        first_deadline,
        new_deadline,
        TurnStatus::Open as TurnStatus,
    )
    .execute(db)
    .await?;
    Ok(())
}
