//! The public archive: what any reader may see, without logging in.
//!
//! Every handler here reads through `store::archive` (public columns only) and draws boards
//! with the engine's `Viewer::Public` view of the state *after* a published turn; nothing here
//! ever asks for a player's or the GM's view. Pages are cached a few seconds
//! ([`crate::public_cache`]) and carry an ETag.

use std::future::Future;

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use engine::{Report, Viewer};
use games::EngineKind;
use store::archive::{PublicGame, PublicTurn, PublishedTurn};
use store::games::GameId;
use store::status::GameStatus;
use store::zines::Zine;

use super::boards;
use crate::web::Path;
use crate::{AppError, AppState};

pub(crate) const HTML: &str = "text/html; charset=utf-8";
pub(crate) const TEXT: &str = "text/plain; charset=utf-8";
pub(crate) const SVG: &str = "image/svg+xml";
pub(crate) const CSS: &str = "text/css; charset=utf-8";

/// The one style sheet of the public pages.
/// The one style sheet: the site's, then the zine issue's rules for paper (its print rules apply
/// only when printing).
const STYLE_SHEET: &str = concat!(
    include_str!("../../../../templates/public/admiralty.css"),
    include_str!("../../../../templates/public/issue_print.css")
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

/// A zine named by a URL segment; anything malformed is simply not found.
pub(crate) async fn find_zine(state: &AppState, slug: &str) -> Result<Zine, AppError> {
    let slug = store::ZineSlug::parse(slug).map_err(|_| AppError::NotFound)?;
    store::zines::find_by_slug(&state.pool, &slug)
        .await?
        .ok_or(AppError::NotFound)
}

/// A game id from a URL segment: digits only, no sign, no leading `+`.
fn parse_id(segment: &str) -> Result<GameId, AppError> {
    segment.parse().map_err(|_| AppError::NotFound)
}

fn parse_turn(segment: &str) -> Result<i32, AppError> {
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
    let game = store::archive::game(&state.pool, zine.id, id)
        .await?
        .ok_or(AppError::NotFound)?;
    Ok((zine, game))
}

/// The switches the game's setup chose.
async fn rulings_of(
    state: &AppState,
    game: &store::archive::PublicGame,
) -> Result<Vec<engine::Ruling>, AppError> {
    Ok(store::games::setup(&state.pool, game.id)
        .await?
        .map(|setup| setup.rulings())
        .unwrap_or_default())
}

pub(crate) fn game_path(zine: &Zine, game: GameId) -> String {
    format!("/zines/{}/games/{}", zine.slug, game)
}

pub(crate) fn turn_path(zine: &Zine, game: GameId, number: i32) -> String {
    format!("{}/turns/{number}", game_path(zine, game))
}

/// A game as the index and its own page show it.
struct GameSummary {
    name: String,
    url: String,
    engine: String,
    status: String,
    /// "turn 3, orders due 2025-03-01 12:00 UTC", or how it ended.
    now: String,
    last_turn_url: Option<String>,
    last_turn: Option<i32>,
}

impl GameSummary {
    fn new(zine: &Zine, game: &PublicGame) -> Self {
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
struct ReportView {
    heading: String,
    url: String,
    report: Option<Report>,
    text: String,
    /// The turn's open seed, revealed with the report.
    revealed_seed: Option<String>,
}

#[derive(Template)]
#[template(path = "public/zine.html")]
struct ZinePage {
    zine: Zine,
    /// The published issues, newest first: (number, date).
    issues: Vec<(i32, String)>,
    games: Vec<GameSummary>,
    latest: Vec<ReportView>,
    /// Games open for sign-up: name, rules, free seats, seats, the seating commitment.
    signups: Vec<SignupView>,
}

/// A game open for sign-up, as readers of the zine see it (no queue names, no secret).
struct SignupView {
    name: String,
    engine: String,
    free: i64,
    seats: i32,
    seating_commitment: Option<String>,
}

/// A zine's games with their state, and each game's latest report.
pub(crate) async fn get_zine(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, HTML, || async {
        let zine = find_zine(&state, &slug).await?;
        let games = store::archive::games(&state.pool, zine.id).await?;
        let mut latest = Vec::new();
        for game in &games {
            let Some(number) = game.last_published else {
                continue;
            };
            if let Some(turn) = store::archive::published_turn(&state.pool, game.id, number).await?
            {
                latest.push(report_view(
                    format!("{}, turn {number}", game.name),
                    turn_path(&zine, game.id, number),
                    &turn,
                ));
            }
        }
        let games = games.iter().map(|g| GameSummary::new(&zine, g)).collect();
        let issues = store::issues::published(&state.pool, zine.id)
            .await?
            .iter()
            .filter_map(|i| Some((i.number, i.published_at?.format("%-d %B %Y").to_string())))
            .collect();
        let signups = store::signups::open_for_signup(&state.pool, zine.id)
            .await?
            .iter()
            .map(|o| SignupView {
                name: o.name.clone(),
                engine: o.engine.name().to_owned(),
                free: i64::from(o.seats).saturating_sub(o.signed).max(0),
                seats: o.seats,
                seating_commitment: crate::rosters::signups::seating_commitment(o),
            })
            .collect();
        Ok(ZinePage {
            signups,
            zine,
            issues,
            games,
            latest,
        }
        .render()?)
    })
    .await
}

fn report_view(heading: String, url: String, turn: &PublishedTurn) -> ReportView {
    ReportView {
        heading,
        url,
        report: turn.report.clone(),
        text: turn.text.clone(),
        revealed_seed: turn.revealed_seed.clone(),
    }
}

/// A turn's dice, as far as they are public.
struct SeedView {
    number: i32,
    url: String,
    commitment: String,
    revealed: Option<String>,
    sealed_commitment: Option<String>,
    sealed_revealed: Option<String>,
}

impl SeedView {
    fn new(zine: &Zine, game: GameId, turn: &PublicTurn) -> Self {
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
        let turns = store::archive::published_turns(&state.pool, game.id).await?;
        let base = game_path(&zine, game.id);
        let rulings = rulings_of(&state, &game).await?;
        let every_subscriber_plays = game.engine == EngineKind::Barmy;
        let roster = if every_subscriber_plays {
            Vec::new()
        } else {
            crate::rosters::roster(&state.pool, game.id)
                .await?
                .unwrap_or_default()
        };
        let seating_seed =
            crate::rosters::signups::revealed_seating_seed(&state.pool, game.id).await?;
        Ok(GamePage {
            rulings,
            roster,
            seating_seed,
            every_subscriber_plays,
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
            zine,
        }
        .render()?)
    })
    .await
}

#[derive(Template)]
#[template(path = "public/turn.html")]
struct TurnPage {
    zine: Zine,
    game: GameSummary,
    number: i32,
    report: ReportView,
    /// Escaped SVG markup from [`boards::svg`] (every text in it escaped there).
    board_svg: Option<String>,
    board_url: String,
    text_url: String,
    previous_url: Option<String>,
    next_url: Option<String>,
    seeds: SeedView,
    finished: bool,
}

/// The public picture of the board right after `turn`: the engine's public view of that state
/// (none where the engine draws no board).
fn public_board(
    engine: EngineKind,
    turn: &PublishedTurn,
) -> Result<Option<engine::Board>, AppError> {
    Ok(engine
        .parse_state_text(&turn.state_after)?
        .view(Viewer::Public)
        .board)
}

/// `/turns/{n}` (the page) and `/turns/{n}.txt` (the plain text report).
pub(crate) async fn get_turn(
    State(state): State<AppState>,
    Path((slug, game, turn)): Path<(String, String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let (number, plain) = match turn.strip_suffix(".txt") {
        Some(number) => (parse_turn(number)?, true),
        None => (parse_turn(&turn)?, false),
    };
    if plain {
        return cached(&state, &uri, &headers, TEXT, || async {
            let (_zine, game) = find_game(&state, &slug, &game).await?;
            let published = store::archive::published_turn(&state.pool, game.id, number)
                .await?
                .ok_or(AppError::NotFound)?;
            Ok(published.text)
        })
        .await;
    }
    cached(&state, &uri, &headers, HTML, || async {
        let (zine, game) = find_game(&state, &slug, &game).await?;
        let published = store::archive::published_turn(&state.pool, game.id, number)
            .await?
            .ok_or(AppError::NotFound)?;
        let title = format!("{}, turn {number}", game.name);
        let board_svg =
            public_board(game.engine, &published)?.map(|board| boards::svg(&board, &title));
        let path = turn_path(&zine, game.id, number);
        let seeds = PublicTurn {
            number,
            seed_commitment: published.seed_commitment.clone(),
            sealed_commitment: published.sealed_commitment.clone(),
            revealed_seed: published.revealed_seed.clone(),
            revealed_sealed_seed: published.revealed_sealed_seed.clone(),
            published_at: published.published_at,
        };
        Ok(TurnPage {
            game: GameSummary::new(&zine, &game),
            number,
            report: report_view(title, path.clone(), &published),
            board_svg,
            board_url: format!("{path}/board.svg"),
            text_url: format!("{path}.txt"),
            previous_url: published.previous.map(|n| turn_path(&zine, game.id, n)),
            next_url: published.next.map(|n| turn_path(&zine, game.id, n)),
            seeds: SeedView::new(&zine, game.id, &seeds),
            finished: game.status == GameStatus::Finished,
            zine,
        }
        .render()?)
    })
    .await
}

/// `/turns/{n}/board.svg`: the board after turn `n`, from public facts only.
pub(crate) async fn get_board(
    State(state): State<AppState>,
    Path((slug, game, turn)): Path<(String, String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let number = parse_turn(&turn)?;
    cached(&state, &uri, &headers, SVG, || async {
        let (_zine, game) = find_game(&state, &slug, &game).await?;
        let published = store::archive::published_turn(&state.pool, game.id, number)
            .await?
            .ok_or(AppError::NotFound)?;
        let board = public_board(game.engine, &published)?.ok_or(AppError::NotFound)?;
        Ok(boards::svg(
            &board,
            &format!("{}, turn {number}", game.name),
        ))
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
        let turns = store::archive::published_turns(&state.pool, game.id).await?;
        let orders = store::archive::finished_game_orders(&state.pool, game.id).await?;
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
