//! The webhook door for inbound mail: a mail provider (or a script) POSTs one raw RFC 5322
//! message to `/inbound/mail` with `Authorization: Bearer <ADMIRALTY_WEBHOOK_SECRET>`. It is
//! stored before the answer, then processed by the inbox workers like mail from the other doors.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use subtle::ConstantTimeEq;

use crate::AppState;
use crate::inbox::storage_key;

pub(crate) async fn post_inbound_mail(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(webhook) = &state.webhook else {
        // Not routed without a secret; kept so the handler never runs unprotected.
        return (StatusCode::NOT_FOUND, "Not found\n").into_response();
    };
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    // Constant time, so the secret cannot be guessed a byte at a time from response times.
    if !bool::from(presented.as_bytes().ct_eq(webhook.secret.as_bytes())) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: send the shared secret as Authorization: Bearer <secret>\n",
        )
            .into_response();
    }
    if body.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            "Bad request: the body must be one raw RFC 5322 message\n",
        )
            .into_response();
    }
    let now = state.clock.now();
    match store::inbox::store_raw(&state.pool, &storage_key(&body), &body, "webhook", now).await {
        Ok(stored) => {
            webhook.stored.notify_one();
            let (id, duplicate) = match stored {
                store::inbox::Stored::New(id) => (id, false),
                store::inbox::Stored::Duplicate(id) => (id, true),
            };
            (
                StatusCode::ACCEPTED,
                axum::Json(json!({ "stored": id.0, "duplicate": duplicate })),
            )
                .into_response()
        }
        Err(error) => {
            tracing::error!(%error, "cannot store a webhook message");
            // 503 tells the sender to try again: nothing was stored.
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "Unavailable: the message could not be stored; please retry\n",
            )
                .into_response()
        }
    }
}
