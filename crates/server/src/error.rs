use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

/// Every error a handler can return. [`IntoResponse`] below is the only place errors become
/// HTTP responses; details are logged, never shown.
#[derive(Debug, Error)]
pub enum AppError {
    /// The database did not answer (in time).
    #[error("the database is unavailable")]
    DatabaseUnavailable(#[source] Option<store::StoreError>),
    #[error("not found")]
    NotFound,
    #[error("storage error")]
    Store(#[from] store::StoreError),
    #[error("cannot render page")]
    Render(#[from] askama::Error),
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        match &self {
            AppError::DatabaseUnavailable(source) => {
                tracing::warn!(error = ?source, "database unavailable");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    Json(json!({ "status": "error", "database": "unavailable" })),
                )
                    .into_response()
            }
            AppError::NotFound => (StatusCode::NOT_FOUND, "Not found\n").into_response(),
            AppError::Store(_) | AppError::Render(_) => {
                tracing::error!(error = ?self, "request failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Internal error: the details are in the server's log\n",
                )
                    .into_response()
            }
        }
    }
}
