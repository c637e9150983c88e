#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! Atom feeds per zine and per game: valid Atom, one entry per published report with a stable
//! id, the plain-text report as content.

use std::str::FromStr;

use atom_syndication::Feed;
use chrono::Duration;

use crate::archive::{HOSTILE_GAME, HOSTILE_PRESS, SLUG, game_in_progress};

async fn feed(app: &crate::helpers::TestApp, path: &str) -> Feed {
    let response = app.get(path).await;
    assert_eq!(response.status(), reqwest::StatusCode::OK, "{path}");
    Feed::from_str(&response.text().await.unwrap()).unwrap()
}

#[tokio::test]
async fn feeds_hold_one_entry_per_published_report_with_stable_ids() {
    let mut archive = game_in_progress().await;
    let base = format!("http://{}", archive.app.address);
    let game_feed_path = format!("{}/feed.atom", archive.game_path());
    let game = feed(&archive.app, &game_feed_path).await;
    assert_eq!(game.entries.len(), 3);
    assert_eq!(game.id, format!("{base}{game_feed_path}"));
    assert!(game.title.value.contains(HOSTILE_GAME));
    assert!(
        game.links
            .iter()
            .any(|l| l.rel == "self" && l.href == game.id)
    );
    // Newest first; each entry is a turn, its id the turn page's address, its content the
    // plain text served at `.txt`.
    for (entry, number) in game.entries.iter().zip([3u32, 2, 1]) {
        let page = archive.turn_path(number);
        assert_eq!(entry.id, format!("{base}{page}"));
        assert_eq!(entry.title.value, format!("{HOSTILE_GAME}: turn {number}"));
        let text = archive
            .app
            .get(&format!("{page}.txt"))
            .await
            .text()
            .await
            .unwrap();
        let content = entry.content.as_ref().unwrap();
        assert_eq!(content.content_type.as_deref(), Some("text"));
        assert_eq!(content.value.as_deref(), Some(text.as_str()));
        assert!(
            entry
                .links
                .iter()
                .any(|l| l.href == format!("{base}{page}"))
        );
    }
    assert!(
        game.entries[2]
            .content
            .as_ref()
            .unwrap()
            .value
            .as_deref()
            .unwrap()
            .contains(HOSTILE_PRESS),
        "the press survives the XML round trip"
    );
    let zine = feed(&archive.app, &format!("/zines/{SLUG}/feed.atom")).await;
    assert_eq!(zine.entries.len(), 3);
    let ids: Vec<String> = zine.entries.iter().map(|e| e.id.clone()).collect();

    // A new turn adds one entry; the others keep their ids.
    archive.resolve_open_turn().await;
    archive.app.clock.advance(Duration::minutes(1));
    let zine = feed(&archive.app, &format!("/zines/{SLUG}/feed.atom")).await;
    assert_eq!(zine.entries.len(), 4);
    assert_eq!(
        zine.entries[0].id,
        format!("{base}{}", archive.turn_path(4))
    );
    let later: Vec<String> = zine.entries[1..].iter().map(|e| e.id.clone()).collect();
    assert_eq!(later, ids);
    assert!(zine.updated >= zine.entries[1].updated);
    archive.app.stop().await;
}

#[tokio::test]
async fn an_empty_zine_has_an_empty_feed() {
    let app = crate::helpers::TestApp::spawn().await;
    store::zines::insert(
        &app.db.pool,
        &store::ZineSlug::parse("quiet").unwrap(),
        "Quiet",
        crate::helpers::trafalgar(),
    )
    .await
    .unwrap();
    let quiet = feed(&app, "/zines/quiet/feed.atom").await;
    assert!(quiet.entries.is_empty());
    assert_eq!(quiet.title.value, "Quiet");
    app.stop().await;
}
