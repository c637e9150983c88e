//! Web input and output: every public response carries the security headers; a NUL byte in
//! any form, path or query is refused with a 4xx; a login's `next` that is not a plain console
//! path is ignored, never a 500.

use std::collections::{BTreeSet, VecDeque};

use reqwest::StatusCode;
use reqwest::header::{
    CONTENT_SECURITY_POLICY, LOCATION, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};

use crate::archive::{SLUG, game_in_progress};
use crate::console::{Browser, PASSWORD, add_gm, forms, hidden_csrf, populate};
use crate::crawl::links;
use crate::helpers::TestApp;
use crate::players::{NELSON, fleet, logged_in};

/// What every response must carry, whoever may read it.
fn assert_protected(path: &str, response: &reqwest::Response) {
    let headers = response.headers();
    let csp = headers
        .get(CONTENT_SECURITY_POLICY)
        .unwrap_or_else(|| panic!("{path}: no Content-Security-Policy"))
        .to_str()
        .unwrap();
    for directive in [
        "default-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ] {
        assert!(
            csp.contains(directive),
            "{path}: CSP {csp:?} lacks {directive}"
        );
    }
    assert!(
        !csp.contains("script-src"),
        "{path}: CSP allows scripts: {csp}"
    );
    assert_eq!(
        headers.get(X_FRAME_OPTIONS).map(|v| v.to_str().unwrap()),
        Some("DENY"),
        "{path}"
    );
    assert_eq!(
        headers
            .get(X_CONTENT_TYPE_OPTIONS)
            .map(|v| v.to_str().unwrap()),
        Some("nosniff"),
        "{path}"
    );
    assert!(
        headers.get(REFERRER_POLICY).is_some(),
        "{path}: no Referrer-Policy"
    );
}

#[tokio::test]
async fn every_public_response_carries_the_security_headers() {
    let archive = game_in_progress().await;
    let app = &archive.app;
    let base = format!("http://{}", app.address);
    // Every page, feed, board and text reachable from the front page...
    let mut queue = VecDeque::from(["/".to_owned()]);
    let mut seen = BTreeSet::from(["/".to_owned()]);
    let mut kinds = BTreeSet::new();
    while let Some(path) = queue.pop_front() {
        let response = app.get(&path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_protected(&path, &response);
        let kind = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        kinds.insert(kind.split(';').next().unwrap().to_owned());
        let body = response.text().await.unwrap();
        for link in links(&body, &base) {
            if !link.starts_with("/gm") && !link.starts_with("/me") && seen.insert(link.clone()) {
                queue.push_back(link);
            }
        }
        assert!(seen.len() < 500, "the crawl does not end");
    }
    // ...and what no page links to: the plain-text report, errors, the health check.
    let game = archive.game_path();
    let turn = archive.turn_path(1);
    for path in [
        format!("{turn}.txt"),
        format!("{turn}/board.svg"),
        format!("/zines/{SLUG}/feed.atom"),
        format!("{game}/feed.atom"),
        format!("{game}/history"),
        "/static/admiralty.css".to_owned(),
        "/healthz".to_owned(),
        "/no/such/page".to_owned(),
        "/zines/no-such-zine".to_owned(),
        format!("{game}/turns/99"),
        format!("{game}/turns/not-a-number"),
        "/inbound/mail".to_owned(),
    ] {
        let response = app.get(&path).await;
        assert_protected(&path, &response);
        let kind = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        kinds.insert(kind.split(';').next().unwrap().to_owned());
    }
    for kind in [
        "text/html",
        "application/atom+xml",
        "image/svg+xml",
        "text/css",
        "text/plain",
        "application/json",
    ] {
        assert!(
            kinds.contains(kind),
            "no {kind} response was checked: {kinds:?}"
        );
    }
    // The console and the player pages keep their own, stricter policies.
    let login = app.get("/gm/login").await;
    assert_protected("/gm/login", &login);
    assert_eq!(login.headers()[REFERRER_POLICY], "same-origin");
    let player_login = app.get("/login").await;
    assert_eq!(player_login.headers()[REFERRER_POLICY], "no-referrer");
    archive.app.stop().await;
}

/// `value` with a NUL byte in its middle.
fn with_nul(value: &str) -> String {
    format!("{value}\0x")
}

#[tokio::test]
async fn a_nul_byte_in_any_gm_form_path_or_query_is_refused_with_a_4xx() {
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(&app);
    // The login form itself, before any session.
    let page = gm.get_text("/gm/login").await;
    let response = gm
        .post(
            "/gm/login",
            &[
                ("csrf", &hidden_csrf(&page)),
                ("name", &with_nul("nelson")),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert!(
        response.status().is_client_error(),
        "login: {}",
        response.status()
    );
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let audit_before: i64 = sqlx::query_scalar("SELECT count(*) FROM audit_log")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    for (path, form) in forms(game) {
        if path == "/gm/logout" {
            continue;
        }
        // Each field in turn, and a field the form does not have.
        let mut fields: Vec<&str> = form.iter().map(|(name, _)| *name).collect();
        fields.push("unexpected");
        for field in fields {
            let mut sent: Vec<(&str, String)> = form
                .iter()
                .filter(|(name, _)| *name != field)
                .map(|(name, value)| (*name, (*value).to_owned()))
                .collect();
            let original = form
                .iter()
                .find(|(name, _)| *name == field)
                .map_or("", |f| f.1);
            sent.push((field, with_nul(original)));
            let sent: Vec<(&str, &str)> = sent.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let response = gm.submit(&path, &sent).await;
            let status = response.status();
            let body = response.text().await.unwrap();
            assert!(
                status.is_client_error(),
                "POST {path} with a NUL in {field}: {status}\n{body}"
            );
            assert!(
                body.contains("NUL"),
                "POST {path} ({field}): no clear message: {body}"
            );
        }
    }
    let audit_after: i64 = sqlx::query_scalar("SELECT count(*) FROM audit_log")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(
        audit_before, audit_after,
        "a form with a NUL changed something"
    );
    // The CSV import (multipart) with a NUL in its rows: those rows are refused (the import
    // itself is audited, with nothing added).
    let csrf = gm.csrf().await;
    let response = gm
        .http
        .post(app.url("/gm/zines/demo/subscribers/import"))
        .header(
            reqwest::header::COOKIE,
            format!("admiralty_session={}", session_cookie(&gm)),
        )
        .multipart(
            reqwest::multipart::Form::new()
                .text("csrf", csrf)
                .text("text", "nul\0@example.org,Null\nok@example.org,Name\0Here"),
        )
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert!(
        status.is_client_error() || status == StatusCode::OK,
        "import: {status}"
    );
    let stored: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM subscribers WHERE email LIKE 'nul%' OR email = 'ok@example.org'",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(stored, 0, "a row with a NUL was imported");
    // Paths and queries.
    for path in [
        "/zines/%00".to_owned(),
        "/zines/demo%00".to_owned(),
        format!("/zines/demo/games/{game}%00"),
        "/gm/zines/%00".to_owned(),
        "/gm/zines/demo%00x".to_owned(),
        "/gm/inbox?status=%00".to_owned(),
        "/gm/audit?page=%00".to_owned(),
        "/gm/login?next=/gm/%00".to_owned(),
        "/login/%00".to_owned(),
    ] {
        let response = gm.get(&path).await;
        let status = response.status();
        assert!(
            status.is_client_error() || status.is_redirection(),
            "GET {path}: {status}"
        );
    }
    app.stop().await;
}

fn session_cookie(browser: &Browser) -> String {
    browser
        .cookies
        .iter()
        .find(|(name, _)| name == "admiralty_session")
        .map(|(_, value)| value.clone())
        .unwrap()
}

#[tokio::test]
async fn a_nul_byte_in_a_players_orders_press_or_login_is_refused_with_a_4xx() {
    let fleet = fleet().await;
    let app = &fleet.app;
    let mut anonymous = Browser::new(app);
    let page = anonymous.get_text("/login").await;
    let response = anonymous
        .post(
            "/login",
            &[("csrf", &hidden_csrf(&page)), ("email", &with_nul(NELSON))],
        )
        .await;
    assert!(
        response.status().is_client_error(),
        "login: {}",
        response.status()
    );
    let mut nelson = logged_in(app, NELSON).await;
    let game = format!("/me/games/{}", fleet.barmy);
    let csrf = hidden_csrf(&nelson.get_text(&game).await);
    for (path, field, value) in [
        (format!("{game}/orders"), "orders", "A1\0, B2"),
        (format!("{game}/press"), "press", "Steady\0lads"),
        (format!("{game}/press"), "press", "\0"),
    ] {
        let response = nelson.post(&path, &[("csrf", &csrf), (field, value)]).await;
        let status = response.status();
        let body = response.text().await.unwrap();
        assert!(status.is_client_error(), "POST {path}: {status}\n{body}");
        assert!(
            body.contains("NUL"),
            "POST {path}: no clear message: {body}"
        );
    }
    let written: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM orders WHERE source = 'web') + (SELECT count(*) FROM press WHERE source = 'web')",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(written, 0);
    let response = nelson.get(&format!("/me/games/{}%00", fleet.barmy)).await;
    assert!(response.status().is_client_error(), "{}", response.status());
    fleet.app.stop().await;
}

#[tokio::test]
async fn a_login_next_that_is_not_a_plain_console_path_is_ignored_never_a_500() {
    let app = TestApp::spawn().await;
    add_gm(&app.db.pool, "nelson").await;
    let hostile = [
        "/gm/%0D%0ASet-Cookie:%20x=1",
        "/gm/%0Aa",
        "/gm/%0Da",
        "/gm/%09a",
        "/gm/%7F",
        "/gm/%00",
        "/gm/%C3%A9",
        "/gm/%20x",
        "/gm/%5C%5Cevil.example",
        "/gm/..%2F..%2F%2Fevil.example",
        "/gm%2F%2Fevil.example",
        "%2Fgm",
        "/gmx",
        "/gm/zines#%0D%0A",
    ];
    // Anonymous: the login page shows, whatever `next` says (a NUL anywhere in an address is
    // refused outright).
    let mut anonymous = Browser::new(&app);
    for next in hostile {
        let response = anonymous.get(&format!("/gm/login?next={next}")).await;
        let expected = if next.contains("%00") {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        assert_eq!(response.status(), expected, "next={next}");
    }
    // Logged in: sent to the console's front page, not where `next` says, and never a 500.
    let mut gm = Browser::new(&app);
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    for next in hostile.iter().filter(|next| !next.contains("%00")) {
        let response = gm.get(&format!("/gm/login?next={next}")).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "next={next}");
        let location = response.headers()[LOCATION].to_str().unwrap().to_owned();
        assert!(
            location == "/gm" || location == "/gm/zines",
            "next={next} sent the GM to {location:?}"
        );
    }
    // And through the login form.
    for next in hostile {
        let decoded = percent_decode(next);
        let mut browser = Browser::new(&app);
        let page = browser.get_text("/gm/login").await;
        let response = browser
            .post(
                "/gm/login",
                &[
                    ("csrf", &hidden_csrf(&page)),
                    ("name", "nelson"),
                    ("password", PASSWORD),
                    ("next", &decoded),
                ],
            )
            .await;
        let status = response.status();
        assert!(
            status == StatusCode::SEE_OTHER || status.is_client_error(),
            "next={next:?}: {status}"
        );
        if status == StatusCode::SEE_OTHER {
            let location = response.headers()[LOCATION].to_str().unwrap();
            assert!(
                location == "/gm" || location == "/gm/zines",
                "next={next:?} sent the GM to {location:?}"
            );
        }
    }
    app.stop().await;
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 3 <= bytes.len()
            && let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
