#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! One face for every page (issue 20, fault 8) over HTTP: the front page, the public pages, the
//! players' pages, the GM console and the error pages share the one layout and style sheet; an
//! error is a page with a way back (a bad id is the 404 page, a 405 has a body); feeds, boards,
//! plain text and the style sheet keep their content types.

use reqwest::StatusCode;
use reqwest::header::{ALLOW, CONTENT_SECURITY_POLICY, CONTENT_TYPE};

use crate::console::{Browser, PASSWORD, add_gm};
use crate::players::{Fleet, NELSON, fleet, logged_in};

const STYLE_SHEET_LINK: &str = r#"<link rel="stylesheet" href="/static/admiralty.css">"#;

/// A fleet whose Trafalgar game has its first turn published, a GM logged in and Nelson
/// logged in as a player.
async fn published_fleet() -> (Fleet, Browser, Browser) {
    let fleet = fleet().await;
    server::turns::resolve_due(
        &fleet.app.db.pool,
        crate::helpers::trafalgar() + chrono::Duration::days(1),
        "zine.example.org",
    )
    .await
    .unwrap();
    add_gm(&fleet.app.db.pool, "nelson").await;
    let mut gm = Browser::new(&fleet.app);
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let player = logged_in(&fleet.app, NELSON).await;
    (fleet, gm, player)
}

/// Checks that `response` is an HTML page in the one layout, and returns its text.
async fn in_the_layout(what: &str, response: reqwest::Response) -> String {
    let kind = response.headers()[CONTENT_TYPE]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/html"), "{what}: {kind}");
    let policy = response.headers()[CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        policy.contains("style-src 'self'"),
        "{what}: the style sheet may not load under {policy}"
    );
    let page = response.text().await.unwrap();
    assert!(page.contains(STYLE_SHEET_LINK), "{what}: no style sheet");
    assert!(page.contains(r#"<header class="site">"#), "{what}: {page}");
    assert!(page.contains(r#"<footer class="site">"#), "{what}: {page}");
    assert!(!page.contains("<style"), "{what}: a style of its own");
    if let Some(at) = page.find(" style=") {
        panic!(
            "{what}: a style attribute: {:?}",
            &page[at.saturating_sub(200)..at + 100]
        );
    }
    page
}

#[tokio::test]
async fn every_page_has_the_one_layout_and_style_sheet() {
    let (fleet, mut gm, mut player) = published_fleet().await;
    let game = fleet.barmy;
    let mut anonymous = Browser::new(&fleet.app);
    let public = [
        "/".to_owned(),
        "/zines/gazette".to_owned(),
        format!("/zines/gazette/games/{game}"),
        format!("/zines/gazette/games/{game}/turns/1"),
        "/login".to_owned(),
        "/gm/login".to_owned(),
        "/no/such/page".to_owned(),
    ];
    for path in &public {
        in_the_layout(path, anonymous.get(path).await).await;
    }
    let home = anonymous.get_text("/").await;
    assert!(!home.contains("served from"), "{home}");
    assert!(!home.contains("/healthz"), "{home}");
    let console = [
        "/gm".to_owned(),
        "/gm/zines".to_owned(),
        "/gm/zines/gazette".to_owned(),
        format!("/gm/games/{game}"),
        "/gm/zines/gazette/games/new?engine=barmy".to_owned(),
        "/gm/inbox".to_owned(),
        "/gm/outbox".to_owned(),
        "/gm/audit".to_owned(),
    ];
    for path in &console {
        let page = in_the_layout(path, gm.get(path).await).await;
        assert!(
            page.contains(r#"href="/gm/outbox""#),
            "{path}: no console menu"
        );
    }
    for path in ["/me".to_owned(), format!("/me/games/{game}")] {
        in_the_layout(&path, player.get(&path).await).await;
    }
    fleet.app.stop().await;
}

#[tokio::test]
async fn errors_are_pages_in_the_layout_with_a_way_back() {
    let (fleet, mut gm, mut player) = published_fleet().await;
    let game = fleet.barmy;
    let mut anonymous = Browser::new(&fleet.app);

    // A bad id is the 404 page, in every part of the site, with the way back to that part.
    for (path, back) in [
        ("/gm/games/abc", "/gm"),
        ("/gm/games/99999999999999999999", "/gm"),
        ("/gm/games/abc/preview", "/gm"),
        ("/gm/subscribers/abc", "/gm"),
    ] {
        let response = gm.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let page = in_the_layout(path, response).await;
        assert!(page.contains("Page not found"), "{path}: {page}");
        assert!(!page.contains("Invalid URL"), "{path}: {page}");
        assert!(
            page.contains(&format!(r#"href="{back}""#)),
            "{path}: {page}"
        );
    }
    for path in ["/me/games/abc", "/me/games/-1", "/me/games/99999"] {
        let response = player.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let page = in_the_layout(path, response).await;
        assert!(page.contains(r#"href="/me""#), "{path}: {page}");
    }
    for path in [
        "/zines/gazette/games/abc".to_owned(),
        format!("/zines/gazette/games/{game}/turns/abc"),
        "/zines/nosuch".to_owned(),
        "/no/such/page".to_owned(),
    ] {
        let response = anonymous.get(&path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let page = in_the_layout(&path, response).await;
        assert!(page.contains(r#"href="/""#), "{path}: {page}");
    }

    // A method a page does not take: 405, saying so, with the Allow header kept.
    let response = anonymous.post("/", &[]).await;
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(response.headers().contains_key(ALLOW));
    let page = in_the_layout("POST /", response).await;
    assert!(page.contains("does not take a POST"), "{page}");

    // A query the framework cannot read: a page saying so, not the framework's bare text.
    let response = gm.get("/gm/audit?before=abc").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let page = in_the_layout("audit?before=abc", response).await;
    assert!(page.contains("Nothing was changed"), "{page}");

    // Feeds, boards, plain text, the style sheet and the health check keep their types.
    for (path, kind) in [
        (
            "/zines/gazette/feed.atom".to_owned(),
            "application/atom+xml",
        ),
        (
            format!("/zines/gazette/games/{game}/feed.atom"),
            "application/atom+xml",
        ),
        (
            format!("/zines/gazette/games/{game}/turns/1.txt"),
            "text/plain",
        ),
        (
            format!("/zines/gazette/games/{game}/turns/1/board.svg"),
            "image/svg+xml",
        ),
        ("/static/admiralty.css".to_owned(), "text/css"),
        ("/healthz".to_owned(), "application/json"),
    ] {
        let response = anonymous.get(&path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let got = response.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(got.starts_with(kind), "{path}: {got}");
    }
    fleet.app.stop().await;
}

/// Issue 20, fault 9, under issue 27's one verdict: refused orders on the web. The result comes
/// first on the page (before the player's view and boards), the engine's examples are code (no
/// literal backticks); a set none of whose lines is an order is stored nowhere (422, red), and a
/// set with good lines stands without its refused ones (200, amber), said in mail's words ("if
/// not corrected it counts as a miss").
#[tokio::test]
async fn refused_orders_open_on_the_result_counted_by_line_with_examples_as_code() {
    let fleet = fleet().await;
    let mut nelson = logged_in(&fleet.app, NELSON).await;
    let page_path = format!("/me/games/{}", fleet.barmy);
    let csrf = crate::console::hidden_csrf(&nelson.get_text(&page_path).await);
    let path = format!("{page_path}/orders");

    // No line is an order: nothing stored.
    let response = nelson
        .post(
            &path,
            &[
                ("csrf", csrf.as_str()),
                ("orders", "fire at the big one\nasdf qwer zxcv"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(
        page.contains(
            r#"<p class="error" id="orders-error">No line of your message was read as an order"#
        ),
        "{page}"
    );

    // Three lines, one good square on the first: the set stands without what was refused.
    let partly = "A1, Z99, Q0\nK11 K12 K13\nB2 B2 B2";
    let response = nelson
        .post(&path, &[("csrf", csrf.as_str()), ("orders", partly)])
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let page = response.text().await.unwrap();
    assert!(
        page.contains(
            r#"<p class="warning" id="orders-error">Your orders for Trafalgar, as understood:"#
        ),
        "{page}"
    );
    assert!(
        page.contains("(a refused line is left out of them)"),
        "{page}"
    );

    let result = page.find(r#"id="orders-error""#).expect("the result");
    let view = page.find(r#"id="your-view""#).expect("the player's view");
    assert!(
        result < view,
        "the result comes after the player's view and boards"
    );

    let orders = &page[page.find(r#"<section id="orders">"#).unwrap()..view];
    if let Some(at) = orders.find('`') {
        panic!(
            "a literal backtick: {}",
            &orders[at.saturating_sub(300)..at + 50]
        );
    }
    // Issue 28: the example is a whole order that works in the line's place, from the line's
    // own squares on the board (A1; Z99 is off it), filled up to two.
    assert!(
        orders.contains("two squares such as <code>A1, "),
        "{orders}"
    );
    assert!(
        orders.contains("Z99 is off the board (BARMY-GM-01)"),
        "{orders}"
    );
    assert!(
        orders.contains("if not corrected"),
        "mail's wording, as the set stands: {orders}"
    );
    fleet.app.stop().await;
}

/// The other half of fault 9: mail keeps mail's wording. By mail a set with errors stands, so
/// the confirmation says what an error comes to (`LineIssue::if_it_stands`), through the real
/// inbox.
#[tokio::test]
async fn a_mailed_set_with_an_off_board_square_is_told_it_counts_as_a_miss() {
    use crate::inbox::{DOMAIN, game, message, outbound, reply_address_of};
    let db = store::testing::TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let to = reply_address_of(pool, game, 1).await;
    let raw = message("off-board", &to, "", "A1, Z99\r\n");
    server::inbox::ingest(pool, &raw, "pipe", crate::helpers::trafalgar(), DOMAIN)
        .await
        .unwrap();
    let mails = outbound(pool).await;
    let body = &mails.first().expect("a confirmation").1;
    assert!(
        body.contains("Z99 is off the board (BARMY-GM-01); if not corrected it counts as a miss"),
        "{body}"
    );
    assert!(
        body.contains("Would be accepted: two squares such as `A1, "),
        "{body}"
    );
    db.drop_database().await;
}
