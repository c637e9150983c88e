//! A game's public page (its state, its turns' seeds, its rulings and roster) and, once it
//! is over, its whole record.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use games::EngineKind;
use store::status::GameStatus;
use store::zines::Zine;

use super::{GameSummary, HTML, JSON, SeedView, cached, find_game, game_path};
use crate::turns::LifecycleError;
use crate::web::Path;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "public/game.html")]
struct GamePage {
    zine: Zine,
    game: GameSummary,
    finished: bool,
    open_turn: Option<i32>,
    open_commitment: Option<String>,
    open_sealed_commitment: Option<String>,
    turns: Vec<SeedView>,
    feed_url: String,
    history_url: String,
    record_url: String,
    /// The GM's switches for this game, in words with their rule IDs.
    rulings: Vec<engine::Ruling>,
    /// The players and their seats; none listed for Barmy, where every subscriber plays.
    roster: Vec<crate::rosters::RosterEntry>,
    every_subscriber_plays: bool,
    /// The revealed seating seed, for a game whose sign-ups were seated at random.
    seating_seed: Option<String>,
}

pub(crate) async fn get_game(
    State(state): State<AppState>,
    Path((slug, game)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, HTML, || async {
        let (zine, game) = find_game(&state, &slug, &game).await?;
        let record = crate::views::archive::game_record(&state.pool, &game).await?;
        let turns = record.turns;
        let base = game_path(&zine, game.id);
        Ok(GamePage {
            rulings: record.rulings,
            roster: record.roster,
            seating_seed: record.seating_seed,
            every_subscriber_plays: game.engine == EngineKind::Barmy,
            game: GameSummary::new(&zine, &game),
            finished: game.status == GameStatus::Finished,
            open_turn: game.open_turn,
            open_commitment: game.open_seed_commitment.clone(),
            open_sealed_commitment: game.open_sealed_commitment.clone(),
            turns: turns
                .iter()
                .rev()
                .map(|t| SeedView::new(&zine, game.id, t))
                .collect(),
            feed_url: format!("{base}/feed.atom"),
            history_url: format!("{base}/history"),
            record_url: format!("{base}/record.json"),
            zine,
        }
        .render()?)
    })
    .await
}

/// One player's orders in a finished game's history.
struct OrdersView {
    player: String,
    text: String,
}

struct HistoryTurn {
    seeds: SeedView,
    orders: Vec<OrdersView>,
}

#[derive(Template)]
#[template(path = "public/history.html")]
struct HistoryPage {
    zine: Zine,
    game: GameSummary,
    turns: Vec<HistoryTurn>,
}

/// A finished game's whole record: every turn's orders and both seeds, so anyone can replay
/// every turn (`gm adjudicate`, as `gm verify` does). Not found while the game runs.
pub(crate) async fn get_history(
    State(state): State<AppState>,
    Path((slug, game)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, HTML, || async {
        let (zine, game) = find_game(&state, &slug, &game).await?;
        if game.status != GameStatus::Finished {
            return Err(AppError::NotFound);
        }
        let (turns, orders) = crate::views::archive::history(&state.pool, game.id).await?;
        let turns = turns
            .iter()
            .map(|turn| HistoryTurn {
                seeds: SeedView::new(&zine, game.id, turn),
                orders: orders
                    .iter()
                    .filter(|o| o.number == turn.number)
                    .map(|o| OrdersView {
                        player: o.player.clone(),
                        text: o.raw_text.clone(),
                    })
                    .collect(),
            })
            .collect();
        Ok(HistoryPage {
            game: GameSummary::new(&zine, &game),
            turns,
            zine,
        }
        .render()?)
    })
    .await
}

/// The game's portable record (docs/record.md), for `admiralty-verify`. Served for every game:
/// while it runs, only what its public pages show (reports, commitments, revealed open seeds);
/// once it is over, the states, orders and sealed seeds that let anyone replay it.
pub(crate) async fn get_record(
    State(state): State<AppState>,
    Path((slug, game)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, JSON, || async {
        let (zine, game) = find_game(&state, &slug, &game).await?;
        let record = crate::turns::record::export_public(&state.pool, zine.slug.as_str(), &game)
            .await
            .map_err(lifecycle_error)?;
        record
            .to_json()
            .map_err(|e| lifecycle_error(LifecycleError::inconsistent(game.id, e.to_string())))
    })
    .await
}

/// Storage failures as any page's; a game the record cannot be made of is as good as missing
/// to a reader (and logged).
fn lifecycle_error(error: LifecycleError) -> AppError {
    match error {
        LifecycleError::Store(error) => AppError::Store(error),
        other => {
            tracing::error!(error = %other, "cannot make a game's record");
            AppError::NotFound
        }
    }
}
