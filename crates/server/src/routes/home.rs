use askama::Template;
use axum::extract::State;
use axum::response::Html;

use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage {
    zines: Vec<store::zines::Zine>,
    base_url: String,
}

/// The front page: the zines hosted here. The real web UI comes later.
pub(crate) async fn get_home(State(state): State<AppState>) -> Result<Html<String>, AppError> {
    let zines = store::zines::list(&state.pool).await?;
    let page = HomePage {
        zines,
        base_url: state.base_url.to_string(),
    };
    Ok(Html(page.render()?))
}
