//! Routes, one module per feature.

mod archive;
mod boards;
mod feeds;
mod gm;
mod health;
mod home;
mod inbound;
mod issues;
mod metrics;
mod player;
mod rules;
mod unsubscribe;

use axum::Router;
use axum::middleware;
use axum::routing::{get, post};

use store::zines::Zine;

use crate::AppState;
use crate::error::AppError;
use crate::web::once::once_per_form;

pub(crate) fn router(state: &AppState) -> Router<AppState> {
    let router = Router::new()
        .route("/", get(home::get_home))
        .route("/healthz", get(health::get_healthz))
        .route("/zines/{slug}", get(archive::get_zine))
        .route("/zines/{slug}/feed.atom", get(feeds::get_zine_feed))
        .route("/zines/{slug}/issues.atom", get(issues::get_issues_feed))
        .route("/zines/{slug}/issues/{issue}", get(issues::get_issue))
        .route(
            "/zines/{slug}/issues/{issue}/print",
            get(issues::get_issue_print),
        )
        .route("/zines/{slug}/games/{game}", get(archive::get_game))
        .route(
            "/zines/{slug}/games/{game}/record.json",
            get(archive::get_record),
        )
        .route(
            "/zines/{slug}/games/{game}/feed.atom",
            get(feeds::get_game_feed),
        )
        .route(
            "/zines/{slug}/games/{game}/history",
            get(archive::get_history),
        )
        .route(
            "/zines/{slug}/games/{game}/turns/{turn}",
            get(archive::get_turn),
        )
        .route(
            "/zines/{slug}/games/{game}/turns/{turn}/board.svg",
            get(archive::get_board),
        )
        .route("/static/admiralty.css", get(archive::get_style_sheet))
        .route("/rules/{engine}", get(rules::get_rules))
        // One-click unsubscribe (RFC 8058): outside the forms' CSRF and once-only layers, as a
        // mailbox provider's POST carries neither.
        .route(
            "/unsubscribe/{token}",
            get(unsubscribe::get_unsubscribe).post(unsubscribe::post_unsubscribe),
        )
        // Forms are refused whole when they hold a NUL (the webhook, outside, reads no body
        // before its token is checked).
        // Forms are claimed by their key before they act, so that each acts once.
        .nest(
            "/gm",
            gm::router()
                .layer(middleware::from_fn_with_state(state.clone(), once_per_form))
                .layer(middleware::from_fn(crate::web::input::refuse_nul_in_forms)),
        )
        .merge(
            player::router()
                .layer(middleware::from_fn_with_state(state.clone(), once_per_form))
                .layer(middleware::from_fn(crate::web::input::refuse_nul_in_forms)),
        )
        .fallback(not_found)
        // Every error of the pages above as a page in the layout (the webhook, a door for
        // machines, keeps its plain answers).
        .layer(middleware::from_fn(crate::web::errors::error_pages))
        // Probes and scrapers read plain answers, not pages.
        .route("/readyz", get(health::get_readyz));
    // On the web port the metrics exist only behind a token.
    let router = match &state.metrics {
        Some(door) if door.token.is_some() => router.route("/metrics", get(metrics::get_metrics)),
        _ => router,
    };
    // The webhook door exists only when a shared secret is configured.
    match &state.webhook {
        // The handler reads the body itself, after the token (and within the size limit).
        Some(_) => router.route("/inbound/mail", post(inbound::post_inbound_mail)),
        None => router,
    }
}

/// `/metrics` on a listener of its own (`ADMIRALTY_METRICS_LISTEN`).
pub(crate) fn metrics_router() -> Router<AppState> {
    Router::new()
        .route("/metrics", get(metrics::get_metrics))
        .fallback(not_found)
}

async fn not_found() -> AppError {
    AppError::NotFound
}

/// A zine named by a URL segment; anything malformed is simply not found.
pub(crate) async fn find_zine(state: &AppState, slug: &str) -> Result<Zine, AppError> {
    crate::views::zine(&state.pool, slug)
        .await?
        .ok_or(AppError::NotFound)
}
