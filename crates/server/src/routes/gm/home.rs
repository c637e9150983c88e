//! The console's front page: every game and where it stands, and what needs the GM's eye.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use games::EngineKind;
use serde::Deserialize;
use store::games::GameId;

use super::{Chrome, Gm};
use crate::{AppError, AppState};

#[derive(Debug, Deserialize)]
pub(crate) struct DoneQuery {
    pub done: Option<String>,
}

pub(crate) struct GameRow {
    pub id: GameId,
    pub name: String,
    pub zine_slug: String,
    pub engine: EngineKind,
    pub status: String,
    pub turn: String,
    pub deadline: String,
}

#[derive(Template)]
#[template(path = "gm/home.html")]
struct HomePage {
    chrome: Chrome,
    games: Vec<GameRow>,
    zines: usize,
    failed_inbound: usize,
    failed_outbound: usize,
    queued_outbound: usize,
}

pub(crate) fn game_rows(games: Vec<store::games::GameSummary>) -> Vec<GameRow> {
    games
        .into_iter()
        .map(|g| GameRow {
            id: g.id,
            name: g.name,
            zine_slug: g.zine_slug,
            engine: g.engine,
            status: g.status.to_string(),
            turn: g
                .open_turn
                .map_or_else(|| "none open".to_owned(), |n| n.to_string()),
            deadline: g.deadline.map_or_else(
                || "none".to_owned(),
                |at| schedule::local_time(at, g.schedule.zone()),
            ),
        })
        .collect()
}

pub(crate) async fn get_home(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<DoneQuery>,
) -> Result<Html<String>, AppError> {
    let front = crate::views::gm_console::console_front(&state.pool).await?;
    let page = HomePage {
        chrome: gm.chrome(super::notice(query.done.as_deref())),
        games: game_rows(front.games),
        zines: usize::try_from(front.zines).unwrap_or_default(),
        failed_inbound: front.failed_inbound,
        failed_outbound: front.failed_outbound,
        queued_outbound: front.queued_outbound,
    };
    Ok(Html(page.render()?))
}
