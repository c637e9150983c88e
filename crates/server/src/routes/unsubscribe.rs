//! One-click unsubscribe (RFC 8058): the https address in the `List-Unsubscribe` header of
//! mail sent to many. A POST with the body `List-Unsubscribe=One-Click` unsubscribes its
//! reader at once: no session, no cookie, no CSRF token, as a mailbox provider sends it (the
//! token in the path is the proof). A GET only shows a page with the button: mail scanners
//! follow links, and a link followed must never unsubscribe anyone.

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use crate::subscriptions::{self, OneClick};
use crate::web::Path;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "public/unsubscribe.html")]
struct UnsubscribePage {
    token: String,
    zine: String,
    /// The confirmation (`Ask`), or what the POST did.
    state: &'static str,
}

/// The confirmation page: what the button does; nothing changes.
pub(crate) async fn get_unsubscribe(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> Result<Response, AppError> {
    let Some((zine, active)) = crate::views::unsubscribe_link(&state.pool, &token).await? else {
        return Err(AppError::NotFound);
    };
    let page = UnsubscribePage {
        token,
        zine,
        state: if active { "ask" } else { "gone" },
    };
    Ok(Html(page.render()?).into_response())
}

/// The one-click POST: the body must say `List-Unsubscribe=One-Click` (form-encoded, as RFC
/// 8058 asks, or as one field of a multipart form).
pub(crate) async fn post_unsubscribe(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, AppError> {
    if !is_one_click(&headers, &body) {
        return Err(AppError::BadRequest(
            "a one-click unsubscribe sends List-Unsubscribe=One-Click".into(),
        ));
    }
    let done = subscriptions::one_click(&state.pool, state.clock.now(), &token, &state.mail_domain)
        .await
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    let state_name = match done {
        OneClick::Unknown => return Err(AppError::NotFound),
        OneClick::Unsubscribed => "done",
        OneClick::AlreadyGone => "gone",
    };
    let zine = crate::views::unsubscribe_link(&state.pool, &token)
        .await?
        .map(|(zine, _)| zine)
        .unwrap_or_default();
    let page = UnsubscribePage {
        token,
        zine,
        state: state_name,
    };
    Ok((StatusCode::OK, Html(page.render()?)).into_response())
}

/// Whether the body is RFC 8058's `List-Unsubscribe=One-Click`.
fn is_one_click(headers: &HeaderMap, body: &[u8]) -> bool {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if content_type.starts_with("multipart/form-data") {
        // One part named List-Unsubscribe whose value is One-Click.
        let text = String::from_utf8_lossy(body);
        return text.split("Content-Disposition:").skip(1).any(|part| {
            part.contains("name=\"List-Unsubscribe\"")
                && part
                    .split_once("\r\n\r\n")
                    .is_some_and(|(_, value)| value.trim_start().starts_with("One-Click"))
        });
    }
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(body).is_ok_and(|fields| {
        fields
            .iter()
            .any(|(name, value)| name == "List-Unsubscribe" && value == "One-Click")
    })
}
