//! Atom feeds of published reports: one per zine, one per game. Each entry is one published
//! turn report, its id the turn page's URL (stable: a published turn never moves), its content
//! the plain-text report.

use atom_syndication::{Content, Entry, Feed, FixedDateTime, Link, Person, Text};
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use chrono::{DateTime, Utc};
use store::archive::FeedReport;
use store::zines::Zine;

use super::archive::{cached, find_game, game_path, turn_path};
use super::find_zine;
use crate::web::Path;
use crate::{AppError, AppState};

const ATOM: &str = "application/atom+xml; charset=utf-8";

fn fixed(at: DateTime<Utc>) -> FixedDateTime {
    at.fixed_offset()
}

fn link(href: String, rel: &str, mime: Option<&str>) -> Link {
    Link {
        href,
        rel: rel.to_owned(),
        mime_type: mime.map(str::to_owned),
        ..Link::default()
    }
}

fn entry(base: &str, zine: &Zine, report: &FeedReport) -> Entry {
    let url = format!("{base}{}", turn_path(zine, report.game_id, report.number));
    Entry {
        id: url.clone(),
        title: Text::plain(format!("{}: turn {}", report.game_name, report.number)),
        updated: fixed(report.published_at),
        published: Some(fixed(report.published_at)),
        links: vec![
            link(url.clone(), "alternate", Some("text/html")),
            link(format!("{url}.txt"), "alternate", Some("text/plain")),
        ],
        content: Some(Content {
            value: Some(report.text.clone()),
            content_type: Some("text".to_owned()),
            ..Content::default()
        }),
        ..Entry::default()
    }
}

fn feed(
    base: &str,
    zine: &Zine,
    title: String,
    page: String,
    created: DateTime<Utc>,
    reports: &[FeedReport],
) -> String {
    let self_url = format!("{base}{page}/feed.atom");
    let updated = reports
        .iter()
        .map(|r| r.published_at)
        .max()
        .unwrap_or(created);
    Feed {
        id: self_url.clone(),
        title: Text::plain(title),
        updated: fixed(updated),
        authors: vec![Person {
            name: zine.name.clone(),
            ..Person::default()
        }],
        links: vec![
            link(self_url, "self", Some("application/atom+xml")),
            link(format!("{base}{page}"), "alternate", Some("text/html")),
        ],
        generator: Some(atom_syndication::Generator {
            value: "Admiralty".to_owned(),
            ..atom_syndication::Generator::default()
        }),
        entries: reports.iter().map(|r| entry(base, zine, r)).collect(),
        ..Feed::default()
    }
    .to_string()
}

/// `/zines/{slug}/feed.atom`: every game's reports, newest first.
pub(crate) async fn get_zine_feed(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, ATOM, || async {
        let zine = find_zine(&state, &slug).await?;
        let reports = crate::views::archive::zine_feed(&state.pool, zine.id).await?;
        Ok(feed(
            state.base_url.as_str(),
            &zine,
            zine.name.clone(),
            format!("/zines/{}", zine.slug),
            zine.created_at,
            &reports,
        ))
    })
    .await
}

/// `/zines/{slug}/games/{id}/feed.atom`: one game's reports, newest first.
pub(crate) async fn get_game_feed(
    State(state): State<AppState>,
    Path((slug, game)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, ATOM, || async {
        let (zine, game) = find_game(&state, &slug, &game).await?;
        let reports = crate::views::archive::game_feed(&state.pool, game.id).await?;
        Ok(feed(
            state.base_url.as_str(),
            &zine,
            format!("{} ({})", game.name, zine.name),
            game_path(&zine, game.id),
            game.created_at,
            &reports,
        ))
    })
    .await
}
