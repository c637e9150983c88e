//! What only the GM may see of a game: a preview of the open turn's resolution, and every
//! hidden position.

use askama::Template;
use axum::extract::State;
use axum::response::Html;
use store::games::GameId;

use super::super::{Chrome, Gm};
use super::{find_game, lifecycle_error};
use crate::turns;
use crate::web::Path;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "gm/preview.html")]
struct PreviewPage {
    chrome: Chrome,
    game: store::games::GameSummary,
    turn: u32,
    text: String,
    html: String,
}

pub(crate) async fn get_preview(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let (turn, resolved) = turns::preview_turn(&state.pool, game.id)
        .await
        .map_err(lifecycle_error)?;
    let page = PreviewPage {
        chrome: gm.chrome(None),
        game,
        turn,
        text: resolved.report.to_text(),
        html: resolved.report.to_html(),
    };
    Ok(Html(page.render()?))
}

#[derive(Template)]
#[template(path = "gm/positions.html")]
struct PositionsPage {
    chrome: Chrome,
    game: store::games::GameSummary,
    lines: Vec<String>,
    board_svg: Option<String>,
}

/// Every hidden position, as the engine shows them to the GM (`Viewer::Gm`): the console's
/// `Gm` extractor is the only way in.
pub(crate) async fn get_positions(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let game_state = turns::game_state(&state.pool, game.id)
        .await
        .map_err(lifecycle_error)?;
    let view = game_state.view(engine::Viewer::Gm);
    let title = format!("{}: every position", game.name);
    let page = PositionsPage {
        chrome: gm.chrome(None),
        lines: view.lines,
        board_svg: view
            .board
            .as_ref()
            .map(|board| crate::routes::boards::svg(board, &title)),
        game,
    };
    Ok(Html(page.render()?))
}
