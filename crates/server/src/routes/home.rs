use askama::Template;
use axum::extract::State;
use axum::response::Html;

use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage {
    zines: Vec<store::zines::Zine>,
}

/// The front page: the zines hosted here, and where players and GMs log in.
pub(crate) async fn get_home(State(state): State<AppState>) -> Result<Html<String>, AppError> {
    let zines = crate::views::zines(&state.pool).await?;
    Ok(Html(HomePage { zines }.render()?))
}
