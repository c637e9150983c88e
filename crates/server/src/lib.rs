//! The `gm` service: configuration, the command line, the HTTP routes, the mail doors and the
//! workers (inbox, deadlines, outbox). Domain logic lives in the pure crates and queries in `store`; this
//! crate is the thin shell around them.

pub mod accounts;
pub mod backup;
pub mod bounces;
pub mod cli;
pub mod clients;
pub mod clock;
pub mod config;
pub mod demo;
pub mod digest;
pub mod dkim;
pub mod dns;
pub mod doors;
pub mod entropy;
mod error;
pub mod fault;
pub mod inbox;
pub mod issues;
pub mod letters;
pub mod lifecycle;
pub mod limits;
pub mod logins;
pub mod mailroom;
pub mod measures;
pub mod offers;
pub mod outbox;
pub mod personal;
pub mod postal;
pub mod public_cache;
pub mod rosters;
mod routes;
pub mod secrets;
pub mod smtp;
mod state;
pub mod subscriptions;
pub mod telemetry;
pub mod turns;
mod views;
pub mod web;
pub mod zines;

use std::future::Future;

use axum::Router;
use tokio::net::TcpListener;
use tower_http::trace::TraceLayer;

pub use clock::{Clock, ManualClock, SystemClock};
pub use error::AppError;
pub use state::{AppState, MetricsDoor, Webhook};

/// The whole HTTP application. Tests build it directly.
pub fn app(state: AppState) -> Router {
    routes::router(&state)
        .layer(axum::middleware::from_fn(web::input::refuse_nul_in_address))
        .layer(axum::middleware::from_fn(
            web::headers::default_page_headers,
        ))
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            clients::find_client,
        ))
        .layer(axum::middleware::from_fn(measures::http::count_requests))
        .with_state(state)
}

/// `/metrics` alone, for `ADMIRALTY_METRICS_LISTEN`'s own address.
pub fn metrics_app(state: AppState) -> Router {
    routes::metrics_router().with_state(state)
}

/// A request's log span names its client (see `clients`), found by the layer outside it.
fn request_span(request: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let client = request
        .extensions()
        .get::<clients::ClientAddress>()
        .and_then(|c| c.0);
    tracing::debug_span!(
        "request",
        method = %request.method(),
        uri = %request.uri(),
        version = ?request.version(),
        client = client.map(tracing::field::display),
    )
}

/// Serves `app(state)` on `listener` until `shutdown` completes, then lets requests in flight
/// finish (for at most [`DEFAULT_SHUTDOWN_GRACE`]), with the default limits of
/// [`doors::http::HttpLimits`].
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let stop = doors::Stop::on(shutdown, DEFAULT_SHUTDOWN_GRACE);
    serve_with(listener, state, doors::http::HttpLimits::default(), stop).await
}

/// How long a stopping process lets its connections finish, unless configured.
pub const DEFAULT_SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves `app(state)` on `listener` within `limits` until `stop` closes the door.
pub async fn serve_with(
    listener: TcpListener,
    state: AppState,
    limits: doors::http::HttpLimits,
    stop: doors::Stop,
) -> std::io::Result<()> {
    doors::http::serve(listener, app(state), limits, stop).await
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();

    tokio::select! {
        () = interrupt => tracing::info!("SIGINT received: shutting down"),
        () = terminate => tracing::info!("SIGTERM received: shutting down"),
    }
}
