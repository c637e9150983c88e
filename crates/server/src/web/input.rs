//! Input no handler should ever see. PostgreSQL's text cannot hold a NUL character (byte 0),
//! so a NUL that reached a query would fail it, a 500. It is refused at the door instead, with
//! a 4xx: in any path (404: nothing is named with one) or query (400, saying why) of every
//! route, and in any urlencoded form of the console and the player pages (400, saying why,
//! before the form is read for anything else). Uploads (multipart) are checked field by field
//! by their handlers; the error mapping turns a NUL that slips through anyway into a 400 too
//! ([`crate::AppError`]).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppError;

/// Largest urlencoded form read here: the same bound as every form's own reading.
pub(crate) const MAX_FORM_BYTES: usize = 256 * 1024;

const NUL_MESSAGE: &str = "The request holds a NUL character (byte 0), which Admiralty does not \
                           accept in any field, address or query. Remove it and try again.";

/// Whether `text`, as sent (raw bytes or percent-encoded), holds a NUL.
pub(crate) fn holds_nul(text: &[u8]) -> bool {
    text.contains(&0)
        || text
            .windows(3)
            .any(|w| w.first() == Some(&b'%') && w.get(1) == Some(&b'0') && w.get(2) == Some(&b'0'))
}

/// Every route: no NUL in the path (nothing here is named with one: not found) or the query
/// (a bad request).
pub(crate) async fn refuse_nul_in_address(request: Request, next: Next) -> Response {
    if holds_nul(request.uri().path().as_bytes()) {
        return AppError::NotFound.into_response();
    }
    if holds_nul(request.uri().query().unwrap_or_default().as_bytes()) {
        return AppError::BadRequest(NUL_MESSAGE.to_owned()).into_response();
    }
    next.run(request).await
}

/// Forms of the console and the player pages: no NUL in a urlencoded body.
pub(crate) async fn refuse_nul_in_forms(request: Request, next: Next) -> Response {
    let is_form = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        });
    if !is_form || request.method() == Method::GET || request.method() == Method::HEAD {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return AppError::BadRequest(format!(
            "the form is larger than {} KiB, or was not sent in time",
            MAX_FORM_BYTES / 1024
        ))
        .into_response();
    };
    if holds_nul(&bytes) {
        return AppError::BadRequest(NUL_MESSAGE.to_owned()).into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_is_found_raw_and_percent_encoded() {
        assert!(holds_nul(b"a=\0"));
        assert!(holds_nul(b"a=x%00y"));
        assert!(holds_nul(b"/zines/%00"));
        assert!(!holds_nul(b"a=100%25&b=%0A"));
        assert!(!holds_nul(b"a=%2500"));
        assert!(!holds_nul(b""));
    }
}
