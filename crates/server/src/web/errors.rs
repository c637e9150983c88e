//! Error pages: every error a person's browser can meet is a page in the site's one layout,
//! with its status, what went wrong and a way back. Handlers' errors ([`crate::AppError`])
//! carry an [`ErrorPage`]; the router's outer layer, [`error_pages`], renders it with the ways
//! back that suit the address asked for, and turns the framework's own answers (an empty 405,
//! a plain-text rejection) into pages too.

use std::borrow::Cow;

use askama::Template;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// What an error page says. Put on a response as an extension, it is rendered by
/// [`error_pages`], which knows the address asked for.
#[derive(Debug, Clone)]
pub(crate) struct ErrorPage {
    pub title: Cow<'static, str>,
    pub message: Cow<'static, str>,
}

impl ErrorPage {
    pub fn new(title: impl Into<Cow<'static, str>>, message: impl Into<Cow<'static, str>>) -> Self {
        ErrorPage {
            title: title.into(),
            message: message.into(),
        }
    }

    /// The page a missing page gets: the same words whatever was asked for, so that an error
    /// tells nothing about what exists.
    pub fn not_found() -> Self {
        ErrorPage::new(
            "Page not found",
            "There is no page at this address. It may have been mistyped, or the game, turn or \
             zine it names does not exist (or is not yours to see).",
        )
    }

    /// A response with this page (the ways back to the front page only, until
    /// [`error_pages`] renders it for its address).
    pub fn response(self, status: StatusCode) -> Response {
        let mut response = render(status, &self, "/");
        response.extensions_mut().insert(self);
        response
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorHtml<'a> {
    title: &'a str,
    message: &'a str,
    ways_back: Vec<(&'static str, &'static str)>,
}

/// Where a person who met an error at `path` may go on: the part of the site they were in,
/// and the front page.
fn ways_back(path: &str) -> Vec<(&'static str, &'static str)> {
    let mut ways = Vec::new();
    if path == "/gm" || path.starts_with("/gm/") {
        ways.push(("/gm", "The GM console"));
    } else if path == "/me" || path.starts_with("/me/") || path.starts_with("/login") {
        ways.push(("/me", "Your games"));
    }
    ways.push(("/", "Admiralty's front page"));
    ways
}

fn render(status: StatusCode, page: &ErrorPage, path: &str) -> Response {
    let html = ErrorHtml {
        title: &page.title,
        message: &page.message,
        ways_back: ways_back(path),
    };
    match html.render() {
        Ok(html) => (status, axum::response::Html(html)).into_response(),
        Err(error) => {
            tracing::error!(%error, "the error page could not be rendered");
            (status, format!("{}: {}\n", page.title, page.message)).into_response()
        }
    }
}

/// The framework's own error answers (no page of ours) as pages: what each status means to a
/// person, with the framework's words after them where they say what was wrong.
fn framework_page(status: StatusCode, method: &Method, said: &str) -> (StatusCode, ErrorPage) {
    let page = match status {
        StatusCode::NOT_FOUND => ErrorPage::not_found(),
        StatusCode::METHOD_NOT_ALLOWED => ErrorPage::new(
            "Not allowed here",
            format!(
                "This address does not take a {method} request: a page is opened with a link, \
                 and a form is sent from its own page."
            ),
        ),
        // axum's words for a path segment it could not read: the page does not exist.
        _ if said.starts_with("Invalid URL") => {
            return (StatusCode::NOT_FOUND, ErrorPage::not_found());
        }
        _ if status.is_client_error() => ErrorPage::new(
            status.canonical_reason().unwrap_or("Bad request"),
            format!(
                "Admiralty could not read this request ({}). Nothing was changed.",
                said.trim()
            ),
        ),
        _ => ErrorPage::new(
            "Something went wrong",
            "Admiralty could not answer this request; the details are in the server's log. \
             Nothing was changed. Try again in a moment.",
        ),
    };
    (status, page)
}

/// Whether `response` is an error answered in the framework's words (plain text, or nothing)
/// rather than by a page or a machine-readable body of ours.
fn framework_answer(response: &Response) -> bool {
    match response.headers().get(header::CONTENT_TYPE) {
        None => true,
        Some(kind) => kind.as_bytes().starts_with(b"text/plain"),
    }
}

/// The router's layer that makes every error a page in the layout (see the module's comment).
/// Headers the error set (`Allow`, `Retry-After`, `Set-Cookie`) are kept.
pub(crate) async fn error_pages(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let page = match response.extensions().get::<ErrorPage>() {
        Some(page) => page.clone(),
        None if framework_answer(&response) => {
            let (parts, body) = response.into_parts();
            // The framework's answers are a line or two; more is not read.
            let said = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
            let (status, page) = framework_page(status, &method, &String::from_utf8_lossy(&said));
            return with_page(
                Response::from_parts(parts, Body::empty()),
                status,
                &page,
                &path,
            );
        }
        None => return response,
    };
    with_page(response, status, &page, &path)
}

/// `response`'s status and headers with `page` as its body.
fn with_page(response: Response, status: StatusCode, page: &ErrorPage, path: &str) -> Response {
    let (mut parts, _) = response.into_parts();
    let (rendered, body) = render(status, page, path).into_parts();
    parts.status = status;
    parts.headers.remove(header::CONTENT_LENGTH);
    if let Some(kind) = rendered.headers.get(header::CONTENT_TYPE) {
        parts.headers.insert(header::CONTENT_TYPE, kind.clone());
    } else {
        parts.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    Response::from_parts(parts, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_way_back_suits_the_part_of_the_site() {
        assert_eq!(ways_back("/gm/games/abc")[0].0, "/gm");
        assert_eq!(ways_back("/me/games/1")[0].0, "/me");
        assert_eq!(ways_back("/zines/x")[0].0, "/");
        assert_eq!(ways_back("/gmx")[0].0, "/");
    }

    #[test]
    fn axum_s_unreadable_segment_is_not_found() {
        let (status, page) = framework_page(
            StatusCode::BAD_REQUEST,
            &Method::GET,
            "Invalid URL: Cannot parse `abc` to a `i64`",
        );
        assert_eq!(
            (status, page.title.as_ref()),
            (StatusCode::NOT_FOUND, "Page not found")
        );
    }
}
