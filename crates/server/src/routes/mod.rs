//! Routes, one module per feature.

mod archive;
mod gm;
mod health;
mod home;

use axum::Router;
use axum::routing::get;

use crate::AppState;
use crate::error::AppError;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(home::get_home))
        .route("/healthz", get(health::get_healthz))
        .route("/zines/{slug}", get(archive::get_zine))
        .nest("/gm", gm::router())
        .fallback(not_found)
}

async fn not_found() -> AppError {
    AppError::NotFound
}
