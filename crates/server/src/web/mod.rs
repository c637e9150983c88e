//! What every logged-in page needs, whoever logs in: sessions in Postgres
//! behind a cookie, and CSRF tokens on every form. The GM console (`/gm/...`) is built on it,
//! and so are the player pages (`/login`, `/me/...`, with magic-link logins): a session belongs
//! to a [`store::sessions::Principal`].

pub mod csrf;
pub(crate) mod errors;
pub(crate) mod field_errors;
pub(crate) mod headers;
pub(crate) mod input;
pub mod once;
mod path;
pub mod session;

pub use path::Path;

/// `bytes` random bytes from the operating system, as lower-case hex.
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    crate::entropy::Entropy::fill(&mut crate::entropy::OsEntropy, &mut buffer);
    hex::encode(buffer)
}

/// Sets the headers of a page that shows what only its logged-in reader may see: never cached,
/// never framed, not sniffed, with the given referrer policy and content security policy.
pub(crate) fn set_private_page_headers(
    response: &mut axum::response::Response,
    referrer_policy: &'static str,
    content_security_policy: &'static str,
) {
    use axum::http::{HeaderValue, header};
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static(referrer_policy),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(content_security_policy),
    );
}
