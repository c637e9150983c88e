//! Sessions: a random 256-bit token in an HttpOnly, SameSite=Lax cookie (Secure when the base
//! URL is https), stored in Postgres only as its SHA-256, with an absolute expiry. Logging out
//! deletes the row, so a copied cookie dies with it.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use store::sessions::{self, NewSession, Principal, Session};

use crate::{AppError, AppState};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "admiralty_session";
/// How long a login lasts, whatever is done with it.
pub const SESSION_LIFETIME: Duration = Duration::hours(12);

/// The value of cookie `name` in the request's `Cookie` headers, if any.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.trim())
}

/// A `Set-Cookie` value with the flags every Admiralty cookie has: HttpOnly, SameSite=Lax,
/// Path=/ and Secure when the service is served over https. `max_age` 0 deletes the cookie.
pub fn set_cookie(state: &AppState, name: &str, value: &str, max_age: Duration) -> HeaderValue {
    let secure = if state.base_url.as_str().starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    let text = format!(
        "{name}={value}; Max-Age={}; Path=/; HttpOnly; SameSite=Lax{secure}",
        max_age.num_seconds().max(0)
    );
    // Names and values are ours (hex tokens), so this cannot fail; an empty value is the fallback.
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// The SHA-256 under which a token (a session's, a login link's) is stored.
pub(crate) fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Starts a session for `principal`: returns the `Set-Cookie` header to send. A fresh token on
/// every login, so a token planted before the login (session fixation) is worth nothing.
pub async fn start(
    state: &AppState,
    principal: &Principal,
    now: DateTime<Utc>,
) -> Result<HeaderValue, AppError> {
    let token = super::random_hex(32);
    let csrf_token = super::random_hex(32);
    sessions::delete_expired(&state.pool, now).await?;
    sessions::insert(
        &state.pool,
        &NewSession {
            token_hash: &token_hash(&token),
            principal,
            csrf_token: &csrf_token,
            expires_at: now + SESSION_LIFETIME,
        },
        now,
    )
    .await?;
    Ok(set_cookie(state, SESSION_COOKIE, &token, SESSION_LIFETIME))
}

/// The hash under which the request's session token is stored, if the request has one.
pub fn token_hash_in(headers: &HeaderMap) -> Option<[u8; 32]> {
    cookie(headers, SESSION_COOKIE).map(token_hash)
}

/// The `Set-Cookie` header that clears the session cookie.
pub fn cleared(state: &AppState) -> HeaderValue {
    set_cookie(state, SESSION_COOKIE, "", Duration::zero())
}

/// Ends the request's session, if any: returns the `Set-Cookie` header that clears the cookie.
pub async fn end(state: &AppState, headers: &HeaderMap) -> Result<HeaderValue, AppError> {
    if let Some(hash) = token_hash_in(headers) {
        sessions::delete(&state.pool, &hash).await?;
    }
    Ok(cleared(state))
}

/// The request's live session, or `None` (no cookie, an unknown or expired token). Looked up
/// once per request and kept in the request's extensions.
#[derive(Debug, Clone)]
pub struct CurrentSession(pub Option<Session>);

impl FromRequestParts<AppState> for CurrentSession {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if let Some(found) = parts.extensions.get::<CurrentSession>() {
            return Ok(found.clone());
        }
        let session = match cookie(&parts.headers, SESSION_COOKIE) {
            Some(token) if !token.is_empty() => {
                sessions::find_live(&state.pool, &token_hash(token), state.clock.now()).await?
            }
            _ => None,
        };
        let found = CurrentSession(session);
        parts.extensions.insert(found.clone());
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cookies_are_secure_exactly_when_the_site_is_https() {
        let pool = store::connect_lazy("postgres://nobody:x@127.0.0.1:1/none", 1).unwrap();
        let clock = std::sync::Arc::new(crate::SystemClock);
        for (base, secure) in [
            ("http://127.0.0.1:8080", false),
            ("https://gm.example", true),
        ] {
            let url = crate::config::BaseUrl::parse(base).unwrap();
            let state = AppState::new(pool.clone(), clock.clone(), url);
            let cookie = set_cookie(&state, SESSION_COOKIE, "abc", SESSION_LIFETIME);
            let cookie = cookie.to_str().unwrap();
            assert!(cookie.starts_with(
                "admiralty_session=abc; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax"
            ));
            assert_eq!(cookie.ends_with("; Secure"), secure, "{cookie}");
        }
    }

    #[test]
    fn reads_one_cookie_among_several() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; admiralty_session=abc ; b=2"),
        );
        headers.append(header::COOKIE, HeaderValue::from_static("c=3"));
        assert_eq!(cookie(&headers, SESSION_COOKIE), Some("abc"));
        assert_eq!(cookie(&headers, "c"), Some("3"));
        assert_eq!(cookie(&headers, "admiralty"), None);
    }
}
