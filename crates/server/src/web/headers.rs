//! The headers every response carries unless its router set stricter ones: public pages, feeds,
//! boards, the style sheet, errors and the health check alike may not be framed, sniffed or run
//! script, and say little in the referrer. The console and the player pages set their own
//! (never cached, a stricter referrer policy) with [`super::set_private_page_headers`].

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

/// Public pages need the site's style sheet and images
/// from this site; nothing else, and never a script.
pub(crate) const PUBLIC_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Public pages hold nothing secret in their address, but other sites need not learn more than
/// the origin.
pub(crate) const PUBLIC_REFERRER_POLICY: &str = "strict-origin-when-cross-origin";

/// The router's outermost layer: adds each header the response lacks.
pub(crate) async fn default_page_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in [
        (
            header::CONTENT_SECURITY_POLICY,
            PUBLIC_CONTENT_SECURITY_POLICY,
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, PUBLIC_REFERRER_POLICY),
    ] {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    response
}
