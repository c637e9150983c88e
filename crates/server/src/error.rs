use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

use crate::web::errors::ErrorPage;

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
    /// A stored game the engine cannot read: the schema and the code disagree.
    #[error("stored game data")]
    Game(#[from] games::GameError),
    /// A page for logged-in people, asked for without a live session: log in, then come back
    /// to `next` (a path on this site).
    #[error("not logged in")]
    RedirectToLogin { login: &'static str, next: String },
    /// A form sent without a live session.
    #[error("not logged in")]
    LoginRequired,
    /// Logged in, but not as someone allowed here.
    #[error("forbidden")]
    Forbidden,
    /// A form whose CSRF token is missing or wrong: refused before anything is done.
    #[error("the form's security token is missing or wrong")]
    CsrfRejected,
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The request is understood but cannot be carried out now (e.g. resolving a paused game).
    #[error("{0}")]
    Conflict(String),
    #[error("too many attempts")]
    TooManyRequests(String),
    /// Every password check is busy (the argon2 gate and its queue are full): nothing was done.
    #[error("busy")]
    Busy,
}

fn error_page(
    status: StatusCode,
    title: &'static str,
    message: impl Into<std::borrow::Cow<'static, str>>,
) -> Response {
    ErrorPage::new(title, message).response(status)
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
            AppError::NotFound => ErrorPage::not_found().response(StatusCode::NOT_FOUND),
            AppError::RedirectToLogin { login, next } => {
                let target = format!("{login}?next={}", percent_encode(next));
                axum::response::Redirect::to(&target).into_response()
            }
            AppError::LoginRequired => error_page(
                StatusCode::UNAUTHORIZED,
                "Not logged in",
                "You are not logged in, or your session has expired. Log in and try again.",
            ),
            AppError::Forbidden => error_page(
                StatusCode::FORBIDDEN,
                "Not allowed",
                "Your login does not give access to this page.",
            ),
            AppError::CsrfRejected => error_page(
                StatusCode::FORBIDDEN,
                "Form refused",
                "This form did not carry this site's security token (it may have come from another \
                 site, or from a page opened before you logged in again). Nothing was changed. Go \
                 back, reload the page and send the form again.",
            ),
            AppError::BadRequest(message) => {
                error_page(StatusCode::BAD_REQUEST, "Bad request", message.clone())
            }
            AppError::Conflict(message) => {
                error_page(StatusCode::CONFLICT, "Not done", message.clone())
            }
            AppError::TooManyRequests(message) => error_page(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many attempts",
                message.clone(),
            ),
            AppError::Busy => {
                let mut response = error_page(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Busy",
                    "Admiralty is checking too many passwords at this moment, so yours was not \
                     checked (and does not count as a failed login). Wait a few seconds and try \
                     again.",
                );
                response.headers_mut().insert(
                    axum::http::header::RETRY_AFTER,
                    axum::http::HeaderValue::from_static("5"),
                );
                response
            }
            // A text PostgreSQL cannot hold (a NUL byte) that got past the doors' checks: the
            // request's fault, not the server's.
            AppError::Store(store::StoreError::Database(sqlx::Error::Database(db)))
                if matches!(db.code().as_deref(), Some("22021" | "22P05")) =>
            {
                error_page(
                    StatusCode::BAD_REQUEST,
                    "Bad request",
                    "The request holds a character that cannot be stored (a NUL byte). Remove it and try again.",
                )
            }
            AppError::Store(_) | AppError::Render(_) | AppError::Game(_) => {
                tracing::error!(error = ?self, "request failed");
                error_page(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "Admiralty could not answer this request; the details are in the server's \
                     log. Nothing was changed. Try again in a moment.",
                )
            }
        }
    }
}

/// `text` with every byte but unreserved URL characters percent-encoded (for `?next=`).
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
