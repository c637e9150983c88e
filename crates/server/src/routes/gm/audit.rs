//! The audit log, newest first, a page at a time, filtered by game, actor and action; each
//! entry's details in full.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use serde::Deserialize;
use store::audit::{AuditFilter, AuditId};
use store::games::GameId;

use super::{Chrome, Gm};
use crate::{AppError, AppState};

#[derive(Debug, Deserialize)]
pub(crate) struct PageQuery {
    before: Option<AuditId>,
    /// Filters; empty is none. `game` is a game's number.
    #[serde(default)]
    game: String,
    #[serde(default)]
    actor: String,
    #[serde(default)]
    action: String,
}

struct EntryRow {
    id: AuditId,
    at: String,
    actor: String,
    action: String,
    /// The game's number and name (none when the game was deleted).
    game: Option<(GameId, Option<String>)>,
    details: String,
}

#[derive(Template)]
#[template(path = "gm/audit.html")]
struct AuditPage {
    chrome: Chrome,
    entries: Vec<EntryRow>,
    older: Option<AuditId>,
    first_page: bool,
    game: String,
    actor: String,
    action: String,
    /// The filters as a query string to carry to the next page (`&game=1&actor=...`).
    filters: String,
}

fn nonempty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

pub(crate) async fn get_audit(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<PageQuery>,
) -> Result<Html<String>, AppError> {
    let game_id = match nonempty(&query.game) {
        None => None,
        Some(text) => Some(text.parse::<GameId>().map_err(|_| {
            AppError::BadRequest(format!(
                "the game filter must be a game's number, not {text:?}"
            ))
        })?),
    };
    let filter = AuditFilter {
        game_id,
        actor: nonempty(&query.actor),
        action: nonempty(&query.action),
    };
    let (entries, older) =
        crate::views::gm_console::audit_log(&state.pool, query.before, &filter).await?;
    let filters: String = [
        ("game", filter.game_id.map(|g| g.to_string())),
        ("actor", filter.actor.clone()),
        ("action", filter.action.clone()),
    ]
    .into_iter()
    .filter_map(|(key, value)| value.map(|v| format!("&{key}={}", urlencoding(&v))))
    .collect();
    let page = AuditPage {
        chrome: gm.chrome(None),
        entries: entries
            .into_iter()
            .map(|listed| {
                let e = listed.entry;
                EntryRow {
                    id: e.id,
                    at: super::when(&e.at),
                    actor: e.actor,
                    action: e.action,
                    game: e.game_id.map(|id| (id, listed.game_name)),
                    details: serde_json::to_string_pretty(&e.details).unwrap_or_default(),
                }
            })
            .collect(),
        older,
        first_page: query.before.is_none(),
        game: filter.game_id.map(|g| g.to_string()).unwrap_or_default(),
        actor: filter.actor.unwrap_or_default(),
        action: filter.action.unwrap_or_default(),
        filters,
    };
    Ok(Html(page.render()?))
}

/// Percent-encodes a query value (everything but unreserved characters).
fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
