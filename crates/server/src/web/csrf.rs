//! CSRF: every form carries a token that a page of another site cannot know. Forms of a
//! logged-in session carry the session's own token; the login form (no session yet) carries a
//! token that must equal the one in a short-lived cookie (double submit). Tokens are compared in
//! constant time. A missing or wrong token is refused with 403 before the handler runs, so
//! nothing changes.

use axum::extract::{FromRequest, FromRequestParts, Multipart, Request};
use axum::http::{HeaderMap, HeaderValue, Method};
use chrono::Duration;
use serde::de::DeserializeOwned;
use subtle::ConstantTimeEq;

use super::session::{CurrentSession, cookie, set_cookie};
use crate::{AppError, AppState};

/// The hidden field every form carries.
pub const FIELD: &str = "csrf";
/// The largest form body accepted (a CSV import is a multipart body, limited separately).
const MAX_FORM_BYTES: usize = 256 * 1024;

/// Whether `given` is `expected`, in time that does not depend on where they differ.
pub fn tokens_match(expected: &str, given: &str) -> bool {
    !expected.is_empty() && bool::from(expected.as_bytes().ct_eq(given.as_bytes()))
}

/// The double-submit cookie of forms shown before there is a session (the GM's and the
/// players' logins).
const PRE_SESSION_COOKIE: &str = "admiralty_login_csrf";

/// A fresh token for a form shown before there is a session, and the `Set-Cookie` header that
/// holds its twin for an hour.
pub fn pre_session_token(state: &AppState) -> (String, HeaderValue) {
    let token = crate::web::random_hex(32);
    let cookie = set_cookie(state, PRE_SESSION_COOKIE, &token, Duration::hours(1));
    (token, cookie)
}

/// Checks a pre-session form's token against its cookie (a page of another site can set
/// neither).
pub fn check_pre_session(headers: &HeaderMap, given: &str) -> Result<(), AppError> {
    let expected = cookie(headers, PRE_SESSION_COOKIE).unwrap_or_default();
    if tokens_match(expected, given) {
        Ok(())
    } else {
        Err(AppError::CsrfRejected)
    }
}

/// The `Set-Cookie` header that drops the pre-session cookie once a session has started.
pub fn clear_pre_session(state: &AppState) -> HeaderValue {
    set_cookie(state, PRE_SESSION_COOKIE, "", Duration::zero())
}

/// A urlencoded form whose `csrf` field matches the request's session; `T` is read from the
/// same body (it may ignore the `csrf` field). Use it on every state-changing route.
#[derive(Debug)]
pub struct CsrfForm<T>(pub T);

impl<T: DeserializeOwned + Send> FromRequest<AppState> for CsrfForm<T> {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let (mut parts, body) = request.into_parts();
        let CurrentSession(session) = CurrentSession::from_request_parts(&mut parts, state).await?;
        let session = session.ok_or(AppError::LoginRequired)?;
        if parts.method == Method::GET || parts.method == Method::HEAD {
            return Err(AppError::BadRequest("a form must be sent with POST".into()));
        }
        let bytes = axum::body::to_bytes(body, MAX_FORM_BYTES)
            .await
            .map_err(|_| AppError::BadRequest("the form is too large".into()))?;
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(&bytes)
            .map_err(|e| AppError::BadRequest(format!("the form could not be read: {e}")))?;
        let given = pairs
            .iter()
            .find(|(key, _)| key == FIELD)
            .map(|(_, value)| value.as_str())
            .unwrap_or_default();
        if !tokens_match(&session.csrf_token, given) {
            return Err(AppError::CsrfRejected);
        }
        let form = serde_urlencoded::from_bytes(&bytes)
            .map_err(|e| AppError::BadRequest(format!("the form could not be read: {e}")))?;
        Ok(CsrfForm(form))
    }
}

/// Checks a multipart form's token, which must be its first field (forms put the hidden
/// `csrf` input first, and browsers send fields in document order), before any upload is read.
pub async fn check_multipart(
    session: &store::sessions::Session,
    form: &mut Multipart,
) -> Result<(), AppError> {
    let field = form
        .next_field()
        .await
        .map_err(|e| AppError::BadRequest(format!("the upload could not be read: {e}")))?;
    let Some(field) = field else {
        return Err(AppError::CsrfRejected);
    };
    if field.name() != Some(FIELD) {
        return Err(AppError::CsrfRejected);
    }
    let given = field
        .text()
        .await
        .map_err(|e| AppError::BadRequest(format!("the upload could not be read: {e}")))?;
    if tokens_match(&session.csrf_token, &given) {
        Ok(())
    } else {
        Err(AppError::CsrfRejected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_must_match_exactly() {
        assert!(tokens_match("abc123", "abc123"));
        assert!(!tokens_match("abc123", "abc124"));
        assert!(!tokens_match("abc123", "abc12"));
        assert!(!tokens_match("abc123", ""));
        assert!(!tokens_match("", ""));
    }
}
