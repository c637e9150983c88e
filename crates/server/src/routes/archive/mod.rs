//! The public archive: what any reader may see, without logging in.
//!
//! Every handler here reads through `views::archive` (public columns only) and draws boards
//! with the engine's `Viewer::Public` view of the state *after* a published turn; nothing here
//! ever asks for a player's or the GM's view. Pages are cached a few seconds
//! ([`crate::public_cache`]) and carry an ETag.

mod game;
mod turn;
mod zine;

pub(crate) use game::{get_game, get_history, get_record};
pub(crate) use turn::{get_board, get_turn};
pub(crate) use zine::get_zine;

use std::future::Future;

use axum::body::Bytes;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use engine::Report;
use store::archive::{PublicGame, PublicTurn, PublishedTurn};
use store::games::GameId;
use store::status::GameStatus;
use store::zines::Zine;

use super::find_zine;
use crate::{AppError, AppState};

pub(crate) const HTML: &str = "text/html; charset=utf-8";
pub(crate) const TEXT: &str = "text/plain; charset=utf-8";
pub(crate) const JSON: &str = "application/json";
pub(crate) const SVG: &str = "image/svg+xml";
pub(crate) const CSS: &str = "text/css; charset=utf-8";

/// The one style sheet of the public pages.
/// The one style sheet: the site's, then the zine issue's rules for paper (its print rules apply
/// only when printing).
const STYLE_SHEET: &str = concat!(
    include_str!("../../../../../templates/public/admiralty.css"),
    include_str!("../../../../../templates/public/issue_print.css")
);

/// Serves what `render` makes for this path, from the cache while it is fresh; answers 304 to
/// a request that already holds the same version.
pub(crate) async fn cached<Fut>(
    state: &AppState,
    uri: &Uri,
    headers: &HeaderMap,
    content_type: &'static str,
    render: impl FnOnce() -> Fut,
) -> Result<Response, AppError>
where
    Fut: Future<Output = Result<String, AppError>>,
{
    let now = state.clock.now();
    let path = uri.path();
    let page = match state.public_cache.get(path, now) {
        Some(page) => page,
        None => {
            let body = render().await?;
            state
                .public_cache
                .put(path, content_type, Bytes::from(body), now)
        }
    };
    let etag = HeaderValue::from_str(&page.etag).map_err(|_| AppError::NotFound)?;
    let max_age = state.public_cache.ttl().num_seconds().max(0);
    let cache_control = HeaderValue::from_str(&format!("public, max-age={max_age}"))
        .unwrap_or(HeaderValue::from_static("no-cache"));
    let unchanged = headers
        .get(IF_NONE_MATCH)
        .is_some_and(|held| held.as_bytes() == page.etag.as_bytes());
    if unchanged {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [(ETAG, etag), (CACHE_CONTROL, cache_control)],
        )
            .into_response());
    }
    Ok((
        [
            (CONTENT_TYPE, HeaderValue::from_static(page.content_type)),
            (ETAG, etag),
            (CACHE_CONTROL, cache_control),
        ],
        page.body,
    )
        .into_response())
}

pub(crate) async fn get_style_sheet() -> Response {
    (
        [
            (CONTENT_TYPE, HeaderValue::from_static(CSS)),
            (
                CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ],
        STYLE_SHEET,
    )
        .into_response()
}

/// A game id from a URL segment: digits only, no sign, no leading `+`.
fn parse_id(segment: &str) -> Result<GameId, AppError> {
    segment.parse().map_err(|_| AppError::NotFound)
}

pub(super) fn parse_turn(segment: &str) -> Result<i32, AppError> {
    if segment.is_empty() || !segment.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AppError::NotFound);
    }
    segment.parse::<i32>().map_err(|_| AppError::NotFound)
}

/// A zine's game, or not found (also for a game of another zine).
pub(crate) async fn find_game(
    state: &AppState,
    slug: &str,
    game: &str,
) -> Result<(Zine, PublicGame), AppError> {
    let id = parse_id(game)?;
    let zine = find_zine(state, slug).await?;
    let game = crate::views::archive::game(&state.pool, zine.id, id)
        .await?
        .ok_or(AppError::NotFound)?;
    Ok((zine, game))
}

pub(crate) fn game_path(zine: &Zine, game: GameId) -> String {
    format!("/zines/{}/games/{}", zine.slug, game)
}

pub(crate) fn turn_path(zine: &Zine, game: GameId, number: i32) -> String {
    format!("{}/turns/{number}", game_path(zine, game))
}

/// A game as the index and its own page show it.
pub(super) struct GameSummary {
    pub name: String,
    pub url: String,
    pub engine: String,
    pub status: String,
    /// "turn 3, orders due 2025-03-01 12:00 UTC", or how it ended.
    pub now: String,
    pub last_turn_url: Option<String>,
    pub last_turn: Option<i32>,
}

impl GameSummary {
    pub(super) fn new(zine: &Zine, game: &PublicGame) -> Self {
        let now = match (game.status, game.open_turn, game.open_deadline) {
            (GameStatus::Finished, _, _) => "over".to_owned(),
            (GameStatus::Paused, Some(turn), _) => format!("turn {turn}, paused by the GM"),
            (_, Some(turn), Some(deadline)) => {
                format!(
                    "turn {turn}, orders due {}",
                    schedule::local_time(deadline, game.zone)
                )
            }
            (_, Some(turn), None) => format!("turn {turn}, deadline not set yet"),
            _ => "no turn open".to_owned(),
        };
        GameSummary {
            name: game.name.clone(),
            url: game_path(zine, game.id),
            engine: game.engine.title().to_owned(),
            status: game.status.to_string(),
            now,
            last_turn_url: game.last_published.map(|n| turn_path(zine, game.id, n)),
            last_turn: game.last_published,
        }
    }
}

/// A published report, ready for a page: the structured table when stored, else the text.
pub(super) struct ReportView {
    pub heading: String,
    pub url: String,
    pub report: Option<Report>,
    pub text: String,
    /// The turn's open seed, revealed with the report.
    pub revealed_seed: Option<String>,
}

pub(super) fn report_view(heading: String, url: String, turn: &PublishedTurn) -> ReportView {
    ReportView {
        heading,
        url,
        report: turn.report.clone(),
        text: turn.text.clone(),
        revealed_seed: turn.revealed_seed.clone(),
    }
}

/// A turn's dice, as far as they are public.
pub(super) struct SeedView {
    pub number: i32,
    pub url: String,
    pub commitment: String,
    pub revealed: Option<String>,
    pub sealed_commitment: Option<String>,
    pub sealed_revealed: Option<String>,
}

impl SeedView {
    pub(super) fn new(zine: &Zine, game: GameId, turn: &PublicTurn) -> Self {
        SeedView {
            number: turn.number,
            url: turn_path(zine, game, turn.number),
            commitment: turn.seed_commitment.clone(),
            revealed: turn.revealed_seed.clone(),
            sealed_commitment: turn.sealed_commitment.clone(),
            sealed_revealed: turn.revealed_sealed_seed.clone(),
        }
    }
}
