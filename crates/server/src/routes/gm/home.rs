//! The console's front page: every game and where it stands, and what needs the GM's eye.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use games::EngineKind;
use serde::Deserialize;
use store::games::GameId;
use store::status::{InboundStatus, OutboundStatus};

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
    let games = store::games::list_summaries(&state.pool, None).await?;
    let zines = store::zines::count(&state.pool).await?;
    // Counts for the front page; the lists themselves are on the inbox and outbox pages.
    const LOOK: i64 = 1000;
    let failed_inbound = store::inbox::list_by_status(&state.pool, InboundStatus::Failed, LOOK)
        .await?
        .len();
    let failed_outbound =
        store::outbox::list_by_status(&state.pool, OutboundStatus::Failed, None, LOOK)
            .await?
            .len();
    let queued_outbound =
        store::outbox::list_by_status(&state.pool, OutboundStatus::Queued, None, LOOK)
            .await?
            .len();
    let page = HomePage {
        chrome: gm.chrome(super::notice(query.done.as_deref())),
        games: game_rows(games),
        zines: usize::try_from(zines).unwrap_or_default(),
        failed_inbound,
        failed_outbound,
        queued_outbound,
    };
    Ok(Html(page.render()?))
}
