//! Routes, one module per feature.

mod archive;
mod health;
mod home;
mod inbound;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use crate::AppState;
use crate::error::AppError;

pub(crate) fn router(state: &AppState) -> Router<AppState> {
    let inbound_limit = state.webhook.as_ref().map_or(0, |w| w.max_bytes);
    Router::new()
        .route(
            "/inbound/mail",
            post(inbound::post_inbound_mail).layer(DefaultBodyLimit::max(inbound_limit)),
        )
        .route("/", get(home::get_home))
        .route("/healthz", get(health::get_healthz))
        .route("/zines/{slug}", get(archive::get_zine))
        .fallback(not_found)
}

async fn not_found() -> AppError {
    AppError::NotFound
}
