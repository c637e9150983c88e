//! The audit log, newest first, a page at a time.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use serde::Deserialize;
use store::audit::AuditId;

use super::{Chrome, Gm};
use crate::{AppError, AppState};

const PAGE: i64 = 50;

#[derive(Debug, Deserialize)]
pub(crate) struct PageQuery {
    before: Option<i64>,
}

struct EntryRow {
    id: i64,
    at: String,
    actor: String,
    action: String,
    game: Option<i64>,
    details: String,
}

#[derive(Template)]
#[template(path = "gm/audit.html")]
struct AuditPage {
    chrome: Chrome,
    entries: Vec<EntryRow>,
    older: Option<i64>,
    first_page: bool,
}

pub(crate) async fn get_audit(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<PageQuery>,
) -> Result<Html<String>, AppError> {
    // One more than shown tells whether there is an older page.
    let mut entries =
        store::audit::list_page(&state.pool, query.before.map(AuditId), PAGE + 1).await?;
    let more = entries.len() > usize::try_from(PAGE).unwrap_or(usize::MAX);
    entries.truncate(usize::try_from(PAGE).unwrap_or(usize::MAX));
    let older = more.then(|| entries.last().map(|e| e.id.0)).flatten();
    let page = AuditPage {
        chrome: gm.chrome(None),
        entries: entries
            .into_iter()
            .map(|e| EntryRow {
                id: e.id.0,
                at: super::when(&e.at),
                actor: e.actor,
                action: e.action,
                game: e.game_id,
                details: e.details.to_string(),
            })
            .collect(),
        older,
        first_page: query.before.is_none(),
    };
    Ok(Html(page.render()?))
}
