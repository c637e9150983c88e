//! Every action once: each form carries a fresh key (the hidden field `once`, or `?once=` in
//! the action of a multipart form), claimed in `form_submissions` before the form's handler
//! runs. A form sent again with its key — Back and resend, a double click, a client retrying
//! a POST — is answered "Already done" with a link to what the first sending did, and its
//! handler never runs: no turn, no mail, no audit entry. A claim whose action failed (an error
//! page) is released, so the person can correct the form and send it again. Keys are chosen
//! when a page is rendered and never stored until used: 128 random bits no one else can know.
//! What "once" means route by route is in docs/web.md ("Every action once").

use askama::Template;
use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use store::sessions::Principal;
use store::submissions::{self, Claim, NewClaim, Submission};

use super::session::CurrentSession;
use crate::{AppError, AppState};

/// The hidden field (and query parameter) that carries a form's key.
pub const FIELD: &str = "once";
/// The largest urlencoded form the check reads (the forms' own limit, `csrf`'s).
const MAX_FORM_BYTES: usize = 256 * 1024;
/// A key's length in hexadecimal digits (16 random bytes).
const KEY_DIGITS: usize = 32;

/// A fresh key for one rendering of a form (templates call it once per form).
pub fn fresh_key() -> String {
    super::random_hex(KEY_DIGITS / 2)
}

/// The layer over the pages' routes: claims the key of every POST that carries one.
pub(crate) async fn once_per_form(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let (key, body) = match form_key(&parts, body).await {
        Ok(found) => found,
        Err(error) => return error.into_response(),
    };
    let Some(key) = key else {
        return next.run(Request::from_parts(parts, body)).await;
    };
    let actor = match actor(&mut parts, &state).await {
        Ok(actor) => actor,
        Err(error) => return error.into_response(),
    };
    let route = format!("POST {}", full_path(&parts));
    let new = NewClaim {
        key: &key,
        actor: &actor,
        route: &route,
    };
    match submissions::claim(&state.pool, new, state.clock.now()).await {
        Ok(Claim::Fresh) => {}
        Ok(Claim::Seen(first)) => return already_done(&first, &actor, &parts),
        Err(error) => return AppError::from(error).into_response(),
    }
    let fallback = way_back(&parts);
    let response = next.run(Request::from_parts(parts, body)).await;
    let location = response
        .headers()
        .get(header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .filter(|location| location.starts_with('/') && !location.starts_with("//"))
        .map(str::to_owned);
    let result = location.unwrap_or(fallback);
    settle(&state, &key, response.status(), &result).await;
    response
}

/// The form's key and the body to hand on (read whole only for a urlencoded form).
async fn form_key(parts: &Parts, body: Body) -> Result<(Option<String>, Body), AppError> {
    let from_query = parts
        .uri
        .query()
        .and_then(|query| serde_urlencoded::from_str::<Vec<(String, String)>>(query).ok())
        .and_then(value_of);
    let urlencoded = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/x-www-form-urlencoded"));
    if from_query.is_some() || !urlencoded {
        return Ok((from_query.map(checked).transpose()?, body));
    }
    let bytes = axum::body::to_bytes(body, MAX_FORM_BYTES)
        .await
        .map_err(|_| AppError::BadRequest("the form is too large".into()))?;
    let key = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&bytes)
        .ok()
        .and_then(value_of)
        .map(checked)
        .transpose()?;
    Ok((key, Body::from(bytes)))
}

fn value_of(pairs: Vec<(String, String)>) -> Option<String> {
    pairs
        .into_iter()
        .find(|(name, _)| name == FIELD)
        .map(|(_, value)| value)
}

/// A key as rendered by [`fresh_key`]; anything else is refused before anything is done.
fn checked(key: String) -> Result<String, AppError> {
    let well_formed = key.len() == KEY_DIGITS
        && key
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if well_formed {
        Ok(key)
    } else {
        Err(AppError::BadRequest(
            "the form's key is malformed: open the form again from its page".into(),
        ))
    }
}

/// Who sends the form: the session's GM or subscriber, or a visitor (a login form).
async fn actor(parts: &mut Parts, state: &AppState) -> Result<String, AppError> {
    let CurrentSession(session) = CurrentSession::from_request_parts(parts, state).await?;
    Ok(match session.map(|session| session.principal) {
        Some(Principal::Gm { id, .. }) => format!("gm:{id}"),
        Some(Principal::Subscriber(id)) => format!("subscriber:{id}"),
        None => "visitor".to_owned(),
    })
}

/// Keeps the claim of an action that succeeded, with where its result is seen, or frees the
/// claim of one that failed.
async fn settle(state: &AppState, key: &str, status: StatusCode, result: &str) {
    let outcome = if status.is_client_error() || status.is_server_error() {
        submissions::release(&state.pool, key).await
    } else {
        submissions::finish(&state.pool, key, result, state.clock.now()).await
    };
    if let Err(error) = outcome {
        tracing::error!(%error, "a form's claim could not be settled");
    }
}

/// Where the form came from (a page of this site), or the part of the site it belongs to.
fn way_back(parts: &Parts) -> String {
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok());
    let referer = parts
        .headers
        .get(header::REFERER)
        .and_then(|value| value.to_str().ok())
        .and_then(|referer| referer.split_once("://"))
        .and_then(|(_, rest)| rest.find('/').map(|slash| rest.split_at(slash)))
        .filter(|(origin, _)| Some(*origin) == host)
        .map(|(_, path)| path.to_owned());
    referer.unwrap_or_else(|| home_of(&full_path(parts)).to_owned())
}

/// The path asked for, with the prefix of a nested router (`/gm`) the layer does not see.
fn full_path(parts: &Parts) -> String {
    parts
        .extensions
        .get::<axum::extract::OriginalUri>()
        .map_or_else(|| parts.uri.path(), |original| original.0.path())
        .to_owned()
}

fn home_of(path: &str) -> &'static str {
    if path == "/gm" || path.starts_with("/gm/") {
        "/gm"
    } else {
        "/me"
    }
}

#[derive(Template)]
#[template(path = "already_done.html")]
struct AlreadyDonePage<'a> {
    /// Whether the first sending has finished.
    finished: bool,
    /// Where its result is seen (only to the one who sent it).
    result: Option<&'a str>,
    home: &'static str,
}

/// The answer to a form sent again: what happened, and nothing more done.
fn already_done(first: &Submission, actor: &str, parts: &Parts) -> Response {
    let own = first.actor == actor;
    let page = AlreadyDonePage {
        finished: first.done_at.is_some(),
        result: if own {
            first.result_path.as_deref()
        } else {
            None
        },
        home: home_of(&full_path(parts)),
    };
    match page.render() {
        Ok(html) => {
            let mut response = (StatusCode::OK, Html(html)).into_response();
            super::set_private_page_headers(
                &mut response,
                "same-origin",
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            );
            response
        }
        Err(error) => AppError::from(error).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rendered_keys_are_taken() {
        let key = fresh_key();
        assert_eq!(checked(key.clone()).ok(), Some(key));
        assert!(checked("ABCDEF0123456789ABCDEF0123456789".into()).is_err());
        assert!(checked("abc".into()).is_err());
        assert!(checked(String::new()).is_err());
    }

    #[test]
    fn keys_differ_each_time() {
        assert_ne!(fresh_key(), fresh_key());
    }
}
