use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::{AppError, AppState};

/// A health probe must answer quickly even when the database hangs.
const DATABASE_TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Debug, Serialize)]
pub(crate) struct Health {
    status: &'static str,
    database: &'static str,
}

/// 200 `{"status":"ok","database":"ok"}` when the database answers, else 503.
pub(crate) async fn get_healthz(State(state): State<AppState>) -> Result<Json<Health>, AppError> {
    match tokio::time::timeout(
        DATABASE_TIMEOUT,
        crate::views::database_answers(&state.pool),
    )
    .await
    {
        Ok(Ok(())) => Ok(Json(Health {
            status: "ok",
            database: "ok",
        })),
        Ok(Err(error)) => Err(AppError::DatabaseUnavailable(Some(error))),
        Err(_elapsed) => Err(AppError::DatabaseUnavailable(None)),
    }
}

/// Readiness: 200 `ready` only when the database answers and its applied migrations are the
/// ones this binary embeds (versions and checksums); else 503 with a short plain reason. A
/// load balancer sends no traffic to an instance whose schema is not its own.
pub(crate) async fn get_readyz(State(state): State<AppState>) -> Response {
    let unready = |reason: String| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {reason}\n"),
        )
            .into_response()
    };
    match tokio::time::timeout(DATABASE_TIMEOUT, crate::views::schema_check(&state.pool)).await {
        Ok(Ok(store::schema::SchemaCheck::Current)) => (StatusCode::OK, "ready\n").into_response(),
        Ok(Ok(check)) => unready(check.reason()),
        Ok(Err(error)) => {
            tracing::warn!(%error, "readiness: the database does not answer");
            unready("the database does not answer".to_owned())
        }
        Err(_elapsed) => unready("the database did not answer in time".to_owned()),
    }
}
