//! Routes, one module per feature.

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
        .fallback(not_found)
}

async fn not_found() -> AppError {
    AppError::NotFound
}
