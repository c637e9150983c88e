//! What readers may see of a zine's games: the public archive's queries.
//!
//! Every query here selects public columns only. The game's secret, a turn's `state_before`
//! (it holds hidden facts) and orders of a game still running are never read; the one state
//! read ([`PublishedTurn::state_after`]) goes to the engine's public view before anyone sees it.

use chrono::{DateTime, Utc};
use games::EngineKind;
use schedule::{ScheduleSettings, Tz};
use sqlx::PgExecutor;
use sqlx::types::Json;

use crate::StoreError;
use crate::games::{GameId, engine_of};
use crate::ids::ZineId;
use crate::status::{GameStatus, TurnStatus};

/// A game as its zine's readers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicGame {
    pub id: GameId,
    pub name: String,
    pub engine: EngineKind,
    pub status: GameStatus,
    pub created_at: DateTime<Utc>,
    pub open_turn: Option<i32>,
    pub open_deadline: Option<DateTime<Utc>>,
    /// The game's time zone, from its schedule: deadlines are shown in it.
    pub zone: Tz,
    pub open_seed_commitment: Option<String>,
    pub open_sealed_commitment: Option<String>,
    pub last_published: Option<i32>,
}

/// [`PublicGame`]s: the query with the given condition; `$1` and `$2` are the statuses it
/// binds itself, the condition's own parameters `$3` on.
macro_rules! public_games {
    ($db:expr, $fetch:ident, $condition:literal, $($param:expr),+ $(,)?) => {{
        let rows = sqlx::query!(
            r#"SELECT g.id AS "id: GameId", g.name, g.engine, g.status AS "status: GameStatus",
                      g.created_at, o.number AS "open_turn?", o.deadline AS "open_deadline?",
                      o.seed_commitment AS "open_seed_commitment?",
                      o.sealed_commitment AS "open_sealed_commitment?",
                      g.schedule AS "schedule: Json<ScheduleSettings>",
                      (SELECT max(t.number) FROM turns t WHERE t.game_id = g.id AND t.status = $1) AS last_published
               FROM games g LEFT JOIN turns o ON o.game_id = g.id AND o.status = $2 "#
                + $condition,
            TurnStatus::Published as TurnStatus,
            TurnStatus::Open as TurnStatus,
            $($param),+
        )
        .$fetch($db)
        .await?;
        rows.into_iter()
            .map(|row| {
                Ok(PublicGame {
                    id: row.id,
                    name: row.name,
                    engine: engine_of("games.engine", &row.engine)?,
                    status: row.status,
                    created_at: row.created_at,
                    open_turn: row.open_turn,
                    open_deadline: row.open_deadline,
                    zone: row.schedule.0.zone(),
                    open_seed_commitment: row.open_seed_commitment,
                    open_sealed_commitment: row.open_sealed_commitment,
                    last_published: row.last_published,
                })
            })
            .collect::<Result<Vec<PublicGame>, StoreError>>()
    }};
}

/// The zine's games, oldest first.
pub async fn games<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
) -> Result<Vec<PublicGame>, StoreError> {
    public_games!(
        db,
        fetch_all,
        "WHERE g.zine_id = $3 AND g.deleted_at IS NULL ORDER BY g.created_at, g.id",
        zine as ZineId,
    )
}

/// One game of a zine (a game id of another zine is not found).
pub async fn game<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    game: GameId,
) -> Result<Option<PublicGame>, StoreError> {
    Ok(public_games!(
        db,
        fetch_all,
        "WHERE g.zine_id = $3 AND g.id = $4 AND g.deleted_at IS NULL",
        zine as ZineId,
        game as GameId,
    )?
    .into_iter()
    .next())
}

/// A published turn's public facts: its commitments and, once revealed, its seeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicTurn {
    pub number: i32,
    pub seed_commitment: String,
    pub sealed_commitment: Option<String>,
    pub revealed_seed: Option<String>,
    pub revealed_sealed_seed: Option<String>,
    pub published_at: DateTime<Utc>,
}

/// Every published turn of a game, in order.
pub async fn published_turns<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<PublicTurn>, StoreError> {
    Ok(sqlx::query_as!(
        PublicTurn,
        "SELECT t.number, t.seed_commitment, t.sealed_commitment, t.revealed_seed, t.revealed_sealed_seed,
         r.published_at FROM turns t JOIN published_reports r ON r.turn_id = t.id
         WHERE t.game_id = $1 ORDER BY t.number",
        game as GameId,
    )
    .fetch_all(db)
    .await?)
}

/// One published turn with its report, the state right after it (JSON text: the state the
/// next turn opened with, or the game's state for the last turn) and its neighbours.
#[derive(Debug, Clone)]
pub struct PublishedTurn {
    pub number: i32,
    pub seed_commitment: String,
    pub sealed_commitment: Option<String>,
    pub revealed_seed: Option<String>,
    pub revealed_sealed_seed: Option<String>,
    pub text: String,
    /// The report as the engine made it; none for turns published before reports were kept.
    pub report: Option<engine::Report>,
    pub published_at: DateTime<Utc>,
    pub state_after: String,
    pub previous: Option<i32>,
    pub next: Option<i32>,
}

pub async fn published_turn<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    number: i32,
) -> Result<Option<PublishedTurn>, StoreError> {
    let row = sqlx::query!(
        r#"SELECT t.number, t.seed_commitment, t.sealed_commitment, t.revealed_seed,
                  t.revealed_sealed_seed, r.text, r.report AS "report: Json<engine::Report>",
                  r.published_at,
                  COALESCE((SELECT n.state_before FROM turns n WHERE n.game_id = t.game_id AND n.number > t.number
                            AND n.state_before IS NOT NULL ORDER BY n.number LIMIT 1), g.state)::text AS "state_after!",
                  (SELECT max(p.number) FROM turns p JOIN published_reports pr ON pr.turn_id = p.id
                   WHERE p.game_id = t.game_id AND p.number < t.number) AS previous,
                  (SELECT min(p.number) FROM turns p JOIN published_reports pr ON pr.turn_id = p.id
                   WHERE p.game_id = t.game_id AND p.number > t.number) AS next
           FROM turns t JOIN published_reports r ON r.turn_id = t.id JOIN games g ON g.id = t.game_id
           WHERE t.game_id = $1 AND t.number = $2"#,
        game as GameId,
        number,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|row| PublishedTurn {
        number: row.number,
        seed_commitment: row.seed_commitment,
        sealed_commitment: row.sealed_commitment,
        revealed_seed: row.revealed_seed,
        revealed_sealed_seed: row.revealed_sealed_seed,
        text: row.text,
        report: row.report.map(|report| report.0),
        published_at: row.published_at,
        state_after: row.state_after,
        previous: row.previous,
        next: row.next,
    }))
}

/// A published report, as a feed entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedReport {
    pub game_id: GameId,
    pub game_name: String,
    pub number: i32,
    pub text: String,
    pub published_at: DateTime<Utc>,
}

/// The zine's newest published reports.
pub async fn zine_feed<'e>(
    db: impl PgExecutor<'e>,
    zine: ZineId,
    limit: i64,
) -> Result<Vec<FeedReport>, StoreError> {
    Ok(sqlx::query_as!(
        FeedReport,
        r#"SELECT g.id AS "game_id: GameId", g.name AS game_name, t.number, r.text, r.published_at
           FROM published_reports r JOIN turns t ON t.id = r.turn_id JOIN games g ON g.id = t.game_id
           WHERE g.zine_id = $1 ORDER BY r.published_at DESC, r.id DESC LIMIT $2"#,
        zine as ZineId,
        limit,
    )
    .fetch_all(db)
    .await?)
}

/// The game's newest published reports.
pub async fn game_feed<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
    limit: i64,
) -> Result<Vec<FeedReport>, StoreError> {
    Ok(sqlx::query_as!(
        FeedReport,
        r#"SELECT g.id AS "game_id: GameId", g.name AS game_name, t.number, r.text, r.published_at
           FROM published_reports r JOIN turns t ON t.id = r.turn_id JOIN games g ON g.id = t.game_id
           WHERE g.id = $1 ORDER BY t.number DESC, r.id DESC LIMIT $2"#,
        game as GameId,
        limit,
    )
    .fetch_all(db)
    .await?)
}

/// Who ordered what in a turn, for a finished game's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoricOrders {
    pub number: i32,
    pub player: String,
    pub raw_text: String,
}

/// Every player's orders that counted, turn by turn — only for a finished game: while a game
/// runs, orders are the players' own business (and pending ones must never show).
pub async fn finished_game_orders<'e>(
    db: impl PgExecutor<'e>,
    game: GameId,
) -> Result<Vec<HistoricOrders>, StoreError> {
    Ok(sqlx::query_as!(
        HistoricOrders,
        "SELECT t.number, p.display_name AS player, o.raw_text
         FROM orders o JOIN turns t ON t.id = o.turn_id JOIN players p ON p.id = o.player_id
         JOIN games g ON g.id = t.game_id JOIN published_reports r ON r.turn_id = t.id
         WHERE t.game_id = $1 AND g.status = $2 AND o.superseded_at IS NULL
         ORDER BY t.number, p.engine_player_id",
        game as GameId,
        GameStatus::Finished as GameStatus,
    )
    .fetch_all(db)
    .await?)
}
