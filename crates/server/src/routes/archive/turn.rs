//! A published turn: its page (the report, the public board, the seeds), its plain text and
//! its board alone.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use engine::Viewer;
use games::EngineKind;
use store::archive::{PublicTurn, PublishedTurn};
use store::status::GameStatus;
use store::zines::Zine;

use super::super::boards;
use super::{
    GameSummary, HTML, ReportView, SVG, SeedView, TEXT, cached, find_game, parse_turn, report_view,
    turn_path,
};
use crate::web::Path;
use crate::{AppError, AppState};

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
            let published = crate::views::archive::published_turn(&state.pool, game.id, number)
                .await?
                .ok_or(AppError::NotFound)?;
            Ok(published.text)
        })
        .await;
    }
    cached(&state, &uri, &headers, HTML, || async {
        let (zine, game) = find_game(&state, &slug, &game).await?;
        let published = crate::views::archive::published_turn(&state.pool, game.id, number)
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
        let published = crate::views::archive::published_turn(&state.pool, game.id, number)
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
