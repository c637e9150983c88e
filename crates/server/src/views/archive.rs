//! The public archive's reads: what any reader may see, without logging in. Everything here
//! comes from `store::archive` (public columns only), the published issues, the openings'
//! public facts and the roster; nothing of a player's or the GM's view.

use games::EngineKind;
use store::archive::{FeedReport, HistoricOrders, PublicGame, PublicTurn, PublishedTurn};
use store::games::GameId;
use store::issues::Issue;
use store::signups::Opening;
use store::status::IssueStatus;
use store::zines::ZineId;
use store::{PgPool, StoreError};

use crate::rosters::RosterEntry;

/// A zine's game, or none (also for a game of another zine).
pub async fn game(
    pool: &PgPool,
    zine: ZineId,
    game: GameId,
) -> Result<Option<PublicGame>, StoreError> {
    store::archive::game(pool, zine, game).await
}

/// A game's latest published turn, for the zine's front page.
pub struct LatestReport {
    pub game: GameId,
    pub game_name: String,
    pub number: i32,
    pub turn: PublishedTurn,
}

/// What a zine's front page shows.
pub struct ZineFront {
    pub games: Vec<PublicGame>,
    /// Each game's latest report, in the games' order.
    pub latest: Vec<LatestReport>,
    /// The published issues, newest first.
    pub issues: Vec<Issue>,
    /// Games open for sign-up.
    pub signups: Vec<Opening>,
}

/// A zine's games with their state, each game's latest report, its issues and its openings.
pub async fn zine_front(pool: &PgPool, zine: ZineId) -> Result<ZineFront, StoreError> {
    let games = store::archive::games(pool, zine).await?;
    let mut latest = Vec::new();
    for game in &games {
        let Some(number) = game.last_published else {
            continue;
        };
        if let Some(turn) = store::archive::published_turn(pool, game.id, number).await? {
            latest.push(LatestReport {
                game: game.id,
                game_name: game.name.clone(),
                number,
                turn,
            });
        }
    }
    Ok(ZineFront {
        games,
        latest,
        issues: store::issues::published(pool, zine).await?,
        signups: store::signups::open_for_signup(pool, zine).await?,
    })
}

/// What a game's public page shows beside the game itself.
pub struct GameRecord {
    pub turns: Vec<PublicTurn>,
    /// The switches the game's setup chose.
    pub rulings: Vec<engine::Ruling>,
    /// The players and their seats; none for Barmy, where every subscriber plays.
    pub roster: Vec<RosterEntry>,
    /// The revealed seating seed, for a game whose sign-ups were seated at random.
    pub seating_seed: Option<String>,
}

/// A game's published turns, its rulings, its roster and its seating seed.
pub async fn game_record(pool: &PgPool, game: &PublicGame) -> Result<GameRecord, StoreError> {
    let turns = store::archive::published_turns(pool, game.id).await?;
    let rulings = store::games::setup(pool, game.id)
        .await?
        .map(|setup| setup.rulings())
        .unwrap_or_default();
    let roster = if game.engine == EngineKind::Barmy {
        Vec::new()
    } else {
        crate::rosters::roster(pool, game.id)
            .await?
            .unwrap_or_default()
    };
    let seating_seed = crate::rosters::signups::revealed_seating_seed(pool, game.id).await?;
    Ok(GameRecord {
        turns,
        rulings,
        roster,
        seating_seed,
    })
}

/// A game's published turn `number`, with its report and the state after it.
pub async fn published_turn(
    pool: &PgPool,
    game: GameId,
    number: i32,
) -> Result<Option<PublishedTurn>, StoreError> {
    store::archive::published_turn(pool, game, number).await
}

/// A finished game's whole record: every published turn, and every player's orders that
/// counted (the store gives none while the game runs).
pub async fn history(
    pool: &PgPool,
    game: GameId,
) -> Result<(Vec<PublicTurn>, Vec<HistoricOrders>), StoreError> {
    let turns = store::archive::published_turns(pool, game).await?;
    let orders = store::archive::finished_game_orders(pool, game).await?;
    Ok((turns, orders))
}

/// The most entries in one feed: readers poll, and old turns stay on the game's page.
const FEED_LENGTH: i64 = 50;

/// Every game's latest reports in a zine, newest first.
pub async fn zine_feed(pool: &PgPool, zine: ZineId) -> Result<Vec<FeedReport>, StoreError> {
    store::archive::zine_feed(pool, zine, FEED_LENGTH).await
}

/// One game's latest reports, newest first.
pub async fn game_feed(pool: &PgPool, game: GameId) -> Result<Vec<FeedReport>, StoreError> {
    store::archive::game_feed(pool, game, FEED_LENGTH).await
}

/// A zine's published issue `number`; none for a draft (only a GM may see one, in the
/// console's preview).
pub async fn published_issue(
    pool: &PgPool,
    zine: ZineId,
    number: i32,
) -> Result<Option<Issue>, StoreError> {
    Ok(store::issues::by_number(pool, zine, number)
        .await?
        .filter(|issue| issue.status == IssueStatus::Published))
}

/// A zine's published issues, newest first.
pub async fn published_issues(pool: &PgPool, zine: ZineId) -> Result<Vec<Issue>, StoreError> {
    store::issues::published(pool, zine).await
}
