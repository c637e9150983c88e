//! The webhook door for inbound mail: a mail provider (or a script) POSTs one raw RFC 5322
//! message to `/inbound/mail` with `Authorization: Bearer <ADMIRALTY_WEBHOOK_SECRET>`. It is
//! stored before the answer, then processed by the inbox workers like mail from the other doors.
//!
//! The envelope recipient the provider delivered to may be given as the `X-Original-To` header
//! or the `recipient` query parameter (each may repeat): a reply token found only there (a Bcc,
//! a forwarding rule) authenticates the message as one in its headers would.
//!
//! The token is checked before a byte of the body is read (a wrong one costs the server
//! nothing but the request's head), in constant time whatever its length: both sides are
//! hashed to 32 bytes first, and those are compared with `subtle`.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::AppState;

pub(crate) async fn post_inbound_mail(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Some(webhook) = &state.webhook else {
        // Not routed without a secret; kept so the handler never runs unprotected.
        return (StatusCode::NOT_FOUND, "Not found\n").into_response();
    };
    if !bearer_matches(&headers, &webhook.secret) {
        return (
            StatusCode::UNAUTHORIZED,
            [
                (header::WWW_AUTHENTICATE, "Bearer"),
                (header::CONNECTION, "close"),
            ],
            "Unauthorized: send the shared secret as Authorization: Bearer <secret>\n",
        )
            .into_response();
    }
    let body = match read_message(&headers, body, webhook.max_bytes).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let recipients = envelope_recipients(&headers, query.as_deref());
    let now = state.clock.now();
    match crate::inbox::store(&state.pool, &body, &recipients, "webhook", now).await {
        Ok(stored) => {
            webhook.stored.notify_one();
            let (id, duplicate) = match stored {
                store::inbox::Stored::New(id) => (id, false),
                store::inbox::Stored::Duplicate(id) => (id, true),
            };
            (
                StatusCode::ACCEPTED,
                axum::Json(json!({ "stored": id, "duplicate": duplicate })),
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

/// The message the request carries, read within `max_bytes` (refused at once when the
/// announced length is over it); or the plain answer that refuses it.
async fn read_message(
    headers: &HeaderMap,
    body: Body,
    max_bytes: usize,
) -> Result<axum::body::Bytes, Response> {
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("Too large: the message is over {max_bytes} bytes\n"),
        )
            .into_response()
    };
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > u64::try_from(max_bytes).unwrap_or(u64::MAX)) {
        return Err(too_large());
    }
    let body = match axum::body::to_bytes(body, max_bytes).await {
        Ok(body) => body,
        Err(error) => {
            if crate::doors::http::is_body_timeout(&error) {
                return Err((
                    StatusCode::REQUEST_TIMEOUT,
                    "Request timeout: the body was not received in time\n",
                )
                    .into_response());
            }
            return Err(too_large());
        }
    };
    if body.is_empty() {
        return Err((
            StatusCode::BAD_REQUEST,
            "Bad request: the body must be one raw RFC 5322 message\n",
        )
            .into_response());
    }
    Ok(body)
}

/// Most envelope recipients taken from one request, and the longest.
const MAX_RECIPIENTS: usize = 100;
const MAX_RECIPIENT_LENGTH: usize = 320;

/// The envelope recipients the caller names: `X-Original-To` headers and `recipient` query
/// parameters.
fn envelope_recipients(headers: &HeaderMap, query: Option<&str>) -> Vec<String> {
    let from_headers = headers
        .get_all("x-original-to")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_owned());
    let from_query = query
        .and_then(|q| serde_urlencoded::from_str::<Vec<(String, String)>>(q).ok())
        .unwrap_or_default()
        .into_iter()
        .filter(|(name, _)| name == "recipient")
        .map(|(_, value)| value.trim().to_owned());
    from_headers
        .chain(from_query)
        .filter(|r| {
            !r.is_empty() && r.len() <= MAX_RECIPIENT_LENGTH && !r.chars().any(char::is_control)
        })
        .take(MAX_RECIPIENTS)
        .collect()
}

/// Whether the request carries `Authorization: Bearer <secret>`. Both sides are hashed first,
/// so the comparison takes the same time whatever the presented token's length (a plain
/// constant-time comparison of slices still returns early on a length mismatch).
pub(crate) fn bearer_matches(headers: &HeaderMap, secret: &str) -> bool {
    let presented = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes())
        .and_then(|v| v.strip_prefix(b"Bearer "))
        .unwrap_or_default();
    let presented = Sha256::digest(presented);
    let expected = Sha256::digest(secret.as_bytes());
    bool::from(presented.as_slice().ct_eq(expected.as_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, value.parse().unwrap());
        headers
    }

    #[test]
    fn only_the_exact_bearer_token_matches() {
        let secret = "a-long-shared-secret-0123";
        assert!(bearer_matches(
            &with("Bearer a-long-shared-secret-0123"),
            secret
        ));
        for wrong in [
            "Bearer a-long-shared-secret-012",
            "Bearer a-long-shared-secret-01234",
            "Bearer A-long-shared-secret-0123",
            "bearer a-long-shared-secret-0123",
            "Bearer ",
            "a-long-shared-secret-0123",
        ] {
            assert!(!bearer_matches(&with(wrong), secret), "{wrong}");
        }
        assert!(!bearer_matches(&HeaderMap::new(), secret));
    }

    #[test]
    fn envelope_recipients_come_from_the_header_and_the_query() {
        let mut headers = HeaderMap::new();
        headers.append("x-original-to", "orders+abc@x.example".parse().unwrap());
        headers.append("x-original-to", "a@x.example, b@x.example".parse().unwrap());
        let found = envelope_recipients(
            &headers,
            Some("recipient=orders%2Bdef%40x.example&other=1&recipient=a%0D%0Abad"),
        );
        assert_eq!(
            found,
            [
                "orders+abc@x.example",
                "a@x.example",
                "b@x.example",
                "orders+def@x.example"
            ]
        );
    }
}
