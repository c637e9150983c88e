use std::time::Duration;

use axum::Json;
use axum::extract::State;
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
