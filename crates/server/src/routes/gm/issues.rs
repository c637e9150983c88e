//! The GM's preview of the zine's next issue: the draft as it would come out now, which only a
//! GM may see (it prints letters and the editorial before they are public).

use askama::Template;
use axum::extract::{Path, State};
use axum::response::Html;

use super::Gm;
use crate::routes::archive::find_zine;
use crate::routes::issues::{IssuePage, PRINT_STYLE};
use crate::{AppError, AppState};

/// `/gm/zines/{slug}/issues/preview`: the draft as it would come out now, for GMs only (the
/// `Gm` extractor refuses anyone else). Never cached.
pub(crate) async fn get_issue_preview(
    State(state): State<AppState>,
    _gm: Gm,
    Path(slug): Path<String>,
) -> Result<Html<String>, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let now = state.clock.now();
    let contents = crate::issues::preview(&state.pool, now, &zine, "")
        .await
        .map_err(|e| match e {
            crate::issues::IssueError::NoIssues(_) => AppError::Conflict(e.to_string()),
            crate::issues::IssueError::Store(e) => AppError::Store(e),
            other => AppError::BadRequest(other.to_string()),
        })?;
    let body = contents.to_html();
    Ok(Html(
        IssuePage {
            title: format!("Preview: {}", contents.title()),
            zine: &zine,
            number: contents.number,
            body: &body,
            preview: true,
            print_style: PRINT_STYLE,
        }
        .render()?,
    ))
}
