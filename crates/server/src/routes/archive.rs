use askama::Template;
use axum::extract::{Path, State};
use axum::response::Html;

use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "zine.html")]
struct ZinePage {
    zine: store::zines::Zine,
    reports: Vec<store::games::PublishedReport>,
}

/// A zine's published turn reports, newest first within each game: what readers may see.
/// Only published reports are read, so no hidden fact (ships, pending orders, unrevealed
/// seeds) can reach this page.
pub(crate) async fn get_zine(
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Html<String>, AppError> {
    let slug = store::ZineSlug::parse(&slug).map_err(|_| AppError::NotFound)?;
    let zine = store::zines::find_by_slug(&state.pool, &slug)
        .await?
        .ok_or(AppError::NotFound)?;
    let reports = store::games::published_reports(&state.pool, zine.id).await?;
    Ok(Html(ZinePage { zine, reports }.render()?))
}
