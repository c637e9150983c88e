//! The zine's issues on the web: each published issue as a page, as plain text and as a
//! printable page; the Atom feed of issues; the GM's preview of the draft (console only).
//! A draft is never shown here to anyone but a GM: its number is simply not found.

use crate::web::Path;
use askama::Template;
use atom_syndication::{Content, Entry, Feed, Link, Text};
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use store::issues::Issue;
use store::zines::Zine;

use super::archive::{HTML, TEXT, cached};
use super::find_zine;
use crate::{AppError, AppState};

const ATOM: &str = "application/atom+xml; charset=utf-8";

#[derive(Template)]
#[template(path = "public/issue.html")]
pub(crate) struct IssuePage<'a> {
    pub zine: &'a Zine,
    pub title: String,
    pub number: i32,
    pub body: &'a str,
    pub preview: bool,
}

#[derive(Template)]
#[template(path = "public/issue_print.html")]
struct PrintPage<'a> {
    title: String,
    body: &'a str,
}

/// An issue number from a URL segment, and whether the plain text or the printable page was
/// asked for.
fn parse_issue(segment: &str) -> Result<(i32, &'static str), AppError> {
    let (digits, kind) = match segment.strip_suffix(".txt") {
        Some(digits) => (digits, "txt"),
        None => (segment, "html"),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AppError::NotFound);
    }
    let number = digits.parse::<i32>().map_err(|_| AppError::NotFound)?;
    Ok((number, kind))
}

async fn published_issue(state: &AppState, zine: &Zine, number: i32) -> Result<Issue, AppError> {
    crate::views::archive::published_issue(&state.pool, zine.id, number)
        .await?
        .ok_or(AppError::NotFound)
}

/// `/zines/{slug}/issues/{n}` (HTML) and `/zines/{slug}/issues/{n}.txt` (the plain text).
pub(crate) async fn get_issue(
    State(state): State<AppState>,
    Path((slug, issue)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let (number, kind) = parse_issue(&issue)?;
    let content_type = if kind == "txt" { TEXT } else { HTML };
    cached(&state, &uri, &headers, content_type, || async {
        let zine = find_zine(&state, &slug).await?;
        let issue = published_issue(&state, &zine, number).await?;
        if kind == "txt" {
            return Ok(issue.text.unwrap_or_default());
        }
        Ok(IssuePage {
            title: format!("{}, issue {number}", zine.name),
            zine: &zine,
            number,
            body: issue.html.as_deref().unwrap_or_default(),
            preview: false,
        }
        .render()?)
    })
    .await
}

/// `/zines/{slug}/issues/{n}/print`: the issue alone, for paper (and for the PDF).
pub(crate) async fn get_issue_print(
    State(state): State<AppState>,
    Path((slug, issue)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let (number, _) = parse_issue(&issue)?;
    cached(&state, &uri, &headers, HTML, || async {
        let zine = find_zine(&state, &slug).await?;
        let issue = published_issue(&state, &zine, number).await?;
        Ok(PrintPage {
            title: format!("{}, issue {number}", zine.name),
            body: issue.html.as_deref().unwrap_or_default(),
        }
        .render()?)
    })
    .await
}

/// `/zines/{slug}/issues.atom`: the published issues, newest first, each with its plain text.
pub(crate) async fn get_issues_feed(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, ATOM, || async {
        let zine = find_zine(&state, &slug).await?;
        let base = state.base_url.as_str();
        let issues = crate::views::archive::published_issues(&state.pool, zine.id).await?;
        let page = format!("{base}/zines/{}", zine.slug);
        let entries = issues
            .iter()
            .filter_map(|issue| {
                let at = issue.published_at?.fixed_offset();
                let url = format!("{page}/issues/{}", issue.number);
                Some(Entry {
                    id: url.clone(),
                    title: Text::plain(format!("{}, issue {}", zine.name, issue.number)),
                    updated: at,
                    published: Some(at),
                    links: vec![Link {
                        href: url,
                        rel: "alternate".into(),
                        mime_type: Some("text/html".into()),
                        ..Link::default()
                    }],
                    content: Some(Content {
                        value: issue.text.clone(),
                        content_type: Some("text".into()),
                        ..Content::default()
                    }),
                    ..Entry::default()
                })
            })
            .collect::<Vec<_>>();
        let updated = entries
            .first()
            .map(|e| e.updated)
            .unwrap_or_else(|| zine.created_at.fixed_offset());
        let feed = Feed {
            id: format!("{page}/issues.atom"),
            title: Text::plain(format!("{}: issues", zine.name)),
            updated,
            links: vec![
                Link {
                    href: format!("{page}/issues.atom"),
                    rel: "self".into(),
                    mime_type: Some("application/atom+xml".into()),
                    ..Link::default()
                },
                Link {
                    href: page.clone(),
                    rel: "alternate".into(),
                    mime_type: Some("text/html".into()),
                    ..Link::default()
                },
            ],
            entries,
            ..Feed::default()
        };
        Ok(feed.to_string())
    })
    .await
}
