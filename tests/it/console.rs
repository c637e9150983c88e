#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! The GM console over HTTP: every /gm route refuses anonymous visitors (GET pages redirect to
//! the login), refuses forms without the session's CSRF token (403, nothing changed), and works
//! for a logged-in GM; hostile input gets a clear error and changes nothing it should not.

use chrono::Duration;
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use serde_json::Value;
use server::Clock;
use store::PgPool;
use store::status::Source;

use crate::helpers::TestApp;

pub const PASSWORD: &str = "kiss me hardy, 1805";

/// A GM account, made as `gm admin add-gm` does.
pub async fn add_gm(pool: &PgPool, name: &str) {
    let gate = server::secrets::gate();
    let hash = server::secrets::hash_new(gate, server::secrets::Wait::Always, PASSWORD.into())
        .await
        .unwrap();
    let name = store::accounts::GmName::parse(name).unwrap();
    store::accounts::insert_gm(pool, &name, &hash, crate::helpers::trafalgar())
        .await
        .unwrap();
}

/// An HTTP client that keeps the console's cookies by hand and never follows redirects, so
/// each answer can be checked.
pub struct Browser {
    pub http: reqwest::Client,
    pub base: String,
    pub cookies: Vec<(String, String)>,
}

impl Browser {
    pub fn new(app: &TestApp) -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(std::time::Duration::from_secs(30))
                .build()
                .unwrap(),
            base: app.url(""),
            cookies: Vec::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep_cookies(&mut self, response: &reqwest::Response) {
        for value in response.headers().get_all(SET_COOKIE) {
            let text = value.to_str().unwrap();
            let (pair, _) = text.split_once(';').unwrap_or((text, ""));
            let (name, value) = pair.split_once('=').unwrap();
            self.cookies.retain(|(k, _)| k != name);
            if !value.is_empty() && !text.contains("Max-Age=0") {
                self.cookies.push((name.to_owned(), value.to_owned()));
            }
        }
    }

    pub async fn get(&mut self, path: &str) -> reqwest::Response {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .header(COOKIE, self.cookie_header())
            .send()
            .await
            .unwrap();
        self.keep_cookies(&response);
        response
    }

    pub async fn get_text(&mut self, path: &str) -> String {
        let response = self.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.text().await.unwrap()
    }

    pub async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header(COOKIE, self.cookie_header())
            .form(form)
            .send()
            .await
            .unwrap();
        self.keep_cookies(&response);
        response
    }

    /// Posts `form` with the session's CSRF token, read from the console's front page.
    pub async fn submit(&mut self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        let csrf = self.csrf().await;
        let mut with_token = vec![("csrf", csrf.as_str())];
        with_token.extend_from_slice(form);
        self.post(path, &with_token).await
    }

    /// Sends a form as `multipart/form-data` (an upload form), its fields as text parts.
    pub async fn post_multipart(&mut self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        let mut parts = reqwest::multipart::Form::new();
        for (name, value) in form {
            parts = parts.text(name.to_string(), value.to_string());
        }
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header(COOKIE, self.cookie_header())
            .multipart(parts)
            .send()
            .await
            .unwrap();
        self.keep_cookies(&response);
        response
    }

    /// Opens a confirmation page and sends its one form, as the GM's click would.
    pub async fn confirm(&mut self, page_path: &str) -> reqwest::Response {
        let page = self.get_text(page_path).await;
        let form = crate::forms::form_with_id(&page, "confirm-form");
        self.post(&form.action, &form.pairs()).await
    }

    /// The roster's version a game's page shows (its roster forms carry it).
    pub async fn roster(&mut self, game: i64) -> String {
        let page = self.get_text(&format!("/gm/games/{game}")).await;
        let field = "name=\"roster\" value=\"";
        let start = page.find(field).expect("a roster field") + field.len();
        page[start..].split('"').next().unwrap().to_owned()
    }

    pub async fn csrf(&mut self) -> String {
        let page = self.get_text("/gm").await;
        hidden_csrf(&page)
    }

    pub async fn login(&mut self, name: &str, password: &str) -> reqwest::Response {
        let page = self.get_text("/gm/login").await;
        let token = hidden_csrf(&page);
        self.post(
            "/gm/login",
            &[
                ("csrf", &token),
                ("name", name),
                ("password", password),
                ("next", "/gm"),
            ],
        )
        .await
    }
}

pub fn hidden_csrf(page: &str) -> String {
    let start = page.find("name=\"csrf\" value=\"").expect("a csrf field") + 19;
    page[start..start + 64].to_owned()
}

/// `text` as askama escapes it into a page.
pub fn html(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

fn location(response: &reqwest::Response) -> String {
    response.headers()[LOCATION].to_str().unwrap().to_owned()
}

/// Everything a refused request must leave alone.
pub(crate) async fn fingerprint(pool: &PgPool) -> Value {
    sqlx::query_scalar(
        "SELECT jsonb_build_object( \
           'zines', (SELECT coalesce(jsonb_agg(to_jsonb(z) ORDER BY id), '[]') FROM zines z), \
           'subscribers', (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY id), '[]') FROM subscribers s), \
           'games', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'status', status, 'schedule', schedule) ORDER BY id), '[]') FROM games), \
           'turns', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'status', status, 'deadline', deadline) ORDER BY id), '[]') FROM turns), \
           'inbound', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'status', status) ORDER BY id), '[]') FROM inbound_messages), \
           'outbound', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'status', status) ORDER BY id), '[]') FROM outbound_messages), \
           'audit', (SELECT count(*) FROM audit_log WHERE action NOT IN ('gm.login')), \
           'sessions', (SELECT count(*) FROM web_sessions))",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

/// A zine with subscribers, a running game with an open turn, a failed inbound and a failed
/// outbound message: something for every route to act on.
pub async fn populate(pool: &PgPool) -> i64 {
    server::demo::seed_if_empty(pool, crate::helpers::trafalgar(), [9; 32])
        .await
        .unwrap();
    let now = crate::helpers::trafalgar();
    let inbound = match store::inbox::store_raw(
        pool,
        &store::inbox::NewInbound {
            message_id: "<m1@example.org>",
            body_sha256: &server::inbox::body_sha256(b"Subject: x\r\n\r\nhi"),
            raw: b"Subject: x\r\n\r\nhi",
            envelope_recipients: &[],
            received_at: now,
            over_tls: None,
        },
        "pipe",
    )
    .await
    .unwrap()
    {
        store::inbox::Stored::New(id) | store::inbox::Stored::Duplicate(id) => id,
    };
    let failed = store::inbox::Outcome::failed(inbound, "<b>boom</b>".into());
    store::inbox::finish_many(pool, &[failed], now)
        .await
        .unwrap();
    let new = store::outbox::NewOutbound {
        message_id: "<o1@localhost>",
        idempotency_key: "test:1",
        to_address: "nelson@example.org",
        subject: "Report",
        body_text: "text",
        body_html: None,
        headers: &store::outbox::Headers::default(),
    };
    store::outbox::enqueue(pool, &new, now).await.unwrap();
    let outbound: store::outbox::OutboundId =
        sqlx::query_scalar("SELECT id FROM outbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    store::outbox::mark_failed(pool, outbound, "550 no such user")
        .await
        .unwrap();
    sqlx::query_scalar("SELECT id FROM games ORDER BY id LIMIT 1")
        .fetch_one(pool)
        .await
        .unwrap()
}

/// Every GET page of the console, for a database made by [`populate`].
pub(crate) fn pages(game: i64) -> Vec<String> {
    [
        "/gm",
        "/gm/zines",
        "/gm/zines/demo",
        "/gm/zines/demo/subscribers.csv",
        "/gm/zines/demo/games/new",
        "/gm/zines/demo/games/new?engine=salvo",
        "/gm/subscribers/1",
        "/gm/inbox",
        "/gm/inbox?status=processed",
        "/gm/outbox",
        "/gm/outbox?status=failed",
        "/gm/audit",
        "/gm/subscribers/1/unsubscribe",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain([
        format!("/gm/games/{game}"),
        format!("/gm/games/{game}/preview"),
        format!("/gm/games/{game}/confirm/resolve-now"),
        format!("/gm/games/{game}/confirm/end"),
    ])
    .collect()
}

/// Every form of the console, with fields that would succeed.
pub(crate) fn forms(game: i64) -> Vec<(String, Vec<(&'static str, &'static str)>)> {
    vec![
        (
            "/gm/zines".into(),
            vec![("slug", "new-zine"), ("name", "New zine")],
        ),
        (
            "/gm/zines/demo/subscribers".into(),
            vec![("email", "new@example.org"), ("name", "New")],
        ),
        (
            "/gm/subscribers/1".into(),
            vec![("email", "nelson2@example.org"), ("name", "Horatio")],
        ),
        (
            "/gm/subscribers/1/status".into(),
            vec![("status", "unsubscribed"), ("confirm", "yes")],
        ),
        (
            "/gm/zines/demo/games/new".into(),
            vec![
                ("engine", "barmy"),
                ("name", "Another"),
                ("schedule", "manual"),
                ("setup.width", "10"),
                ("setup.height", "10"),
            ],
        ),
        (
            format!("/gm/games/{game}/schedule"),
            vec![("schedule", "every_days"), ("days", "3")],
        ),
        (
            format!("/gm/games/{game}/actions/extend"),
            vec![("hours", "5")],
        ),
        (
            format!("/gm/games/{game}/actions/resolve-now"),
            vec![("confirm", "yes"), ("turn", "2")],
        ),
        (format!("/gm/games/{game}/actions/pause"), vec![]),
        (format!("/gm/games/{game}/actions/resume"), vec![]),
        (
            format!("/gm/games/{game}/actions/end"),
            vec![("confirm", "yes"), ("turn", "3")],
        ),
        ("/gm/inbox/1/retry".into(), vec![]),
        ("/gm/outbox/1/resend".into(), vec![]),
        ("/gm/logout".into(), vec![]),
    ]
}

#[tokio::test]
async fn anonymous_visitors_are_sent_to_the_login_or_refused_everywhere() {
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    let before = fingerprint(&app.db.pool).await;
    let mut anonymous = Browser::new(&app);
    for page in pages(game) {
        let response = anonymous.get(&page).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "GET {page}");
        let to = location(&response);
        assert!(
            to.starts_with("/gm/login?next=/gm"),
            "GET {page} went to {to}"
        );
    }
    for (path, form) in forms(game) {
        let response = anonymous.post(&path, &form).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "POST {path}");
    }
    let response = anonymous
        .http
        .post(app.url("/gm/zines/demo/subscribers/import"))
        .multipart(
            reqwest::multipart::Form::new()
                .text("csrf", "x")
                .text("text", "a@example.org,A"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(fingerprint(&app.db.pool).await, before);
    app.stop().await;
}

#[tokio::test]
async fn a_form_without_the_sessions_token_is_refused_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(&app);
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let token = gm.csrf().await;
    let before = fingerprint(&app.db.pool).await;
    let wrong = format!(
        "{}{}",
        &token[..63],
        if token.ends_with('0') { '1' } else { '0' }
    );
    for (path, form) in forms(game) {
        for bad in [None, Some(""), Some(wrong.as_str())] {
            let mut fields = form.clone();
            if let Some(bad) = bad {
                fields.push(("csrf", bad));
            }
            let response = gm.post(&path, &fields).await;
            assert_eq!(
                response.status(),
                StatusCode::FORBIDDEN,
                "POST {path} with {bad:?}"
            );
            assert!(
                response
                    .text()
                    .await
                    .unwrap()
                    .contains("Nothing was changed")
            );
        }
    }
    // Another GM's token is no good either: tokens are per session.
    add_gm(&app.db.pool, "collingwood").await;
    let mut other = Browser::new(&app);
    other.login("collingwood", PASSWORD).await;
    let other_token = other.csrf().await;
    let response = gm
        .post(
            "/gm/zines",
            &[("csrf", &other_token), ("slug", "x"), ("name", "X")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // The upload's token must come first and be right.
    for form in [
        reqwest::multipart::Form::new()
            .text("csrf", wrong.clone())
            .text("text", "a@example.org,A"),
        reqwest::multipart::Form::new()
            .text("text", "a@example.org,A")
            .text("csrf", token.clone()),
    ] {
        let response = gm
            .http
            .post(app.url("/gm/zines/demo/subscribers/import"))
            .header(COOKIE, gm.cookie_header())
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
    }
    let mut after = fingerprint(&app.db.pool).await;
    // The other GM's login made a session; nothing else changed.
    after["sessions"] = before["sessions"].clone();
    assert_eq!(after, before);
    app.stop().await;
}

#[tokio::test]
async fn every_page_and_form_works_for_a_logged_in_gm_and_is_audited_by_name() {
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(&app);
    gm.login("nelson", PASSWORD).await;
    for page in pages(game) {
        let response = gm.get(&page).await;
        assert_eq!(response.status(), StatusCode::OK, "GET {page}");
        assert_eq!(response.headers()["cache-control"], "no-store", "{page}");
        assert_eq!(response.headers()["x-frame-options"], "DENY", "{page}");
        assert_eq!(
            response.headers()["referrer-policy"],
            "same-origin",
            "{page}"
        );
    }
    for (path, form) in forms(game) {
        let response = gm.submit(&path, &form).await;
        assert_eq!(
            response.status(),
            StatusCode::SEE_OTHER,
            "POST {path}: {}",
            response.text().await.unwrap()
        );
    }
    let actions: Vec<(String, String)> =
        sqlx::query_as("SELECT actor, action FROM audit_log WHERE actor LIKE 'gm:%' ORDER BY id")
            .fetch_all(&app.db.pool)
            .await
            .unwrap();
    let actions: Vec<String> = actions
        .into_iter()
        .map(|(actor, action)| {
            assert_eq!(actor, "gm:nelson");
            action
        })
        .collect();
    assert_eq!(
        actions,
        [
            "gm.login",
            "zine.create",
            "subscriber.add",
            "subscriber.edit",
            "subscriber.unsubscribe",
            "game.create",
            "game.schedule",
            "game.extend",
            "game.resolve_now",
            "game.pause",
            "game.resume",
            "game.end",
            "inbox.retry",
            "outbox.resend",
            "gm.logout",
        ]
    );
    // Logged out: the old cookie opens nothing.
    assert_eq!(gm.get("/gm").await.status(), StatusCode::SEE_OTHER);
    app.stop().await;
}

#[tokio::test]
async fn logins_fail_alike_for_unknown_names_and_wrong_passwords_and_are_rate_limited() {
    let app = TestApp::spawn().await;
    add_gm(&app.db.pool, "nelson").await;
    let mut browser = Browser::new(&app);
    let unknown = browser.login("villeneuve", PASSWORD).await;
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    let unknown = unknown.text().await.unwrap();
    let wrong = browser.login("nelson", "not the password").await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let wrong = wrong.text().await.unwrap();
    let message = |page: &str| {
        page[page.find("login-error").unwrap()..]
            .split('<')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(message(&unknown), message(&wrong));
    assert!(wrong.contains("Wrong name or password."));
    // The name typed comes back escaped.
    let hostile = browser
        .login("<script>x</script>", "pw")
        .await
        .text()
        .await
        .unwrap();
    assert!(hostile.contains(&html("<script>x</script>")) && !hostile.contains("<script>x"));

    // Four more failures for "nelson" (five in all): now even the right password is refused...
    for _ in 0..4 {
        assert_eq!(
            browser.login("NELSON", "guess").await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let limited = browser.login("nelson", PASSWORD).await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    // ...and so is an unknown name after as many failures: the limit tells nothing.
    for _ in 0..4 {
        browser.login("villeneuve", "guess").await;
    }
    assert_eq!(
        browser.login("villeneuve", "guess").await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // Fifteen minutes later the GM gets in.
    app.clock.advance(Duration::minutes(16));
    let ok = browser.login("nelson", PASSWORD).await;
    assert_eq!(ok.status(), StatusCode::SEE_OTHER);
    let cookie = ok
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with("admiralty_session="))
        .unwrap();
    assert!(
        cookie.contains("; HttpOnly")
            && cookie.contains("; SameSite=Lax")
            && cookie.contains("; Path=/"),
        "{cookie}"
    );
    assert!(!cookie.contains("Secure"), "http base URL: {cookie}");
    let token = cookie["admiralty_session=".len()..]
        .split(';')
        .next()
        .unwrap();
    assert_eq!(token.len(), 64, "256 bits, hex");
    // Only the token's hash is stored.
    let stored: Vec<Vec<u8>> = sqlx::query_scalar("SELECT token_hash FROM web_sessions")
        .fetch_all(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_ne!(hex::encode(&stored[0]), token);
    assert_eq!(browser.get("/gm").await.status(), StatusCode::OK);

    // A login form posted without its cookie (from another site) is refused.
    let mut stranger = Browser::new(&app);
    let page = stranger.get_text("/gm/login").await;
    stranger.cookies.clear();
    let response = stranger
        .post(
            "/gm/login",
            &[
                ("csrf", &hidden_csrf(&page)),
                ("name", "nelson"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);

    // Sessions expire after 12 hours.
    app.clock.advance(Duration::hours(12));
    let expired = browser.get("/gm/zines").await;
    assert_eq!(expired.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&expired), "/gm/login?next=/gm/zines");
    app.stop().await;
}

#[tokio::test]
async fn the_login_sends_the_gm_back_only_within_the_console() {
    let app = TestApp::spawn().await;
    add_gm(&app.db.pool, "nelson").await;
    for (next, expected) in [
        ("/gm/zines", "/gm/zines"),
        ("//evil.example/", "/gm"),
        ("https://evil.example/gm", "/gm"),
    ] {
        let mut browser = Browser::new(&app);
        let page = browser.get_text("/gm/login").await;
        let response = browser
            .post(
                "/gm/login",
                &[
                    ("csrf", &hidden_csrf(&page)),
                    ("name", "nelson"),
                    ("password", PASSWORD),
                    ("next", next),
                ],
            )
            .await;
        assert_eq!(location(&response), expected, "{next}");
    }
    app.stop().await;
}

#[tokio::test]
async fn a_subscribers_session_opens_no_gm_page() {
    let app = TestApp::spawn().await;
    populate(&app.db.pool).await;
    let token = "ab".repeat(32);
    let hash: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(token.as_bytes()).into();
    store::sessions::insert(
        &app.db.pool,
        &store::sessions::NewSession {
            token_hash: &hash,
            principal: &store::sessions::Principal::Subscriber(crate::helpers::id::<
                store::subscribers::SubscriberId,
            >(1)),
            csrf_token: &"cd".repeat(32),
            expires_at: crate::helpers::trafalgar() + Duration::hours(1),
        },
        crate::helpers::trafalgar(),
    )
    .await
    .unwrap();
    let mut player = Browser::new(&app);
    player.cookies.push(("admiralty_session".into(), token));
    assert_eq!(player.get("/gm").await.status(), StatusCode::FORBIDDEN);
    let response = player
        .post(
            "/gm/zines",
            &[("csrf", &"cd".repeat(32)), ("slug", "x"), ("name", "X")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(store::zines::count(&app.db.pool).await.unwrap(), 1);
    app.stop().await;
}

async fn logged_in(app: &TestApp) -> Browser {
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(app);
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    gm
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

#[tokio::test]
async fn zines_and_subscribers_refuse_bad_input_and_escape_what_they_show() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = logged_in(&app).await;

    // Bad short names change nothing and say why.
    for (slug, name) in [("Bad Slug", "Gazette"), ("ok", ""), ("ok", "a\u{7}b")] {
        let response = gm
            .submit("/gm/zines", &[("slug", slug), ("name", name)])
            .await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{slug:?} {name:?}"
        );
        assert!(response.text().await.unwrap().contains("id=\"errors\""));
    }
    assert_eq!(count(pool, "SELECT count(*) FROM zines").await, 0);
    // Markup in a name is kept as typed and shown as text.
    let hostile = "<script>alert('x')</script> & Co";
    let response = gm
        .submit("/gm/zines", &[("slug", "gazette"), ("name", hostile)])
        .await;
    assert_eq!(location(&response), "/gm/zines?done=zine-added");
    let page = gm.get_text("/gm/zines?done=zine-added").await;
    assert!(page.contains("Zine added."));
    assert!(page.contains(&html(hostile)), "{page}");
    assert!(!page.contains("<script>alert"));
    let again = gm
        .submit("/gm/zines", &[("slug", "gazette"), ("name", "Other")])
        .await;
    assert_eq!(again.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        again
            .text()
            .await
            .unwrap()
            .contains("There is already a zine with this short name:")
    );

    // Subscribers by the form.
    let bad = gm
        .submit(
            "/gm/zines/gazette/subscribers",
            &[("email", "not-an-address"), ("name", "")],
        )
        .await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let bad = bad.text().await.unwrap();
    assert!(
        bad.contains("Address: the address must contain exactly one &#39;@&#39;."),
        "{bad}"
    );
    assert!(bad.contains("Name: the name is empty."));
    assert!(
        bad.contains("value=\"not-an-address\""),
        "what was typed is kept"
    );
    // A name with markup is refused at entry (issue 27), with what was typed kept.
    let marked = gm
        .submit(
            "/gm/zines/gazette/subscribers",
            &[
                ("email", "nelson@victory.example"),
                ("name", "<b>Nelson</b>"),
            ],
        )
        .await;
    assert_eq!(marked.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let marked = marked.text().await.unwrap();
    assert!(
        marked.contains(&html(
            "Name: the name contains < or >: write the name as plain text"
        )),
        "{marked}"
    );
    assert!(marked.contains("value=\"nelson@victory.example\""));
    let added = gm
        .submit(
            "/gm/zines/gazette/subscribers",
            &[("email", "nelson@victory.example"), ("name", "Nelson")],
        )
        .await;
    assert_eq!(location(&added), "/gm/zines/gazette?done=subscriber-added");
    let twice = gm
        .submit(
            "/gm/zines/gazette/subscribers",
            &[("email", "NELSON@victory.example"), ("name", "N")],
        )
        .await;
    assert_eq!(twice.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let nelson: i64 = count(
        pool,
        "SELECT id FROM subscribers WHERE email = 'nelson@victory.example'",
    )
    .await;

    // CSV: good rows in, every other row reported with its line and why.
    let csv = "email,name\n\
               hardy@victory.example,Thomas Hardy\n\
               nelson@victory.example,Again\n\
               broken-address,Someone\n\
               collingwood@royal.example,Cuthbert Collingwood,extra\n\
               hardy@victory.example,Twice\n\
               \"blackwood@euryalus.example\",\"Blackwood, Henry\"\n\
               '=cmd@evil.example,\"=HYPERLINK(\"\"x\"\")\"\n\
               felix@fell.example,<i>Felix</i> Fell\n";
    let token = gm.csrf().await;
    let response = gm
        .http
        .post(app.url("/gm/zines/gazette/subscribers/import"))
        .header(COOKIE, gm.cookie_header())
        .multipart(
            reqwest::multipart::Form::new()
                .text("csrf", token.clone())
                .part(
                    "file",
                    reqwest::multipart::Part::bytes(csv.as_bytes().to_vec()).file_name("subs.csv"),
                )
                .text("text", ""),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let report = response.text().await.unwrap();
    let report = &report[report.find("id=\"import-report\"").unwrap()..];
    assert!(
        report.contains("CSV import: 3 subscriber(s) added; 5 row(s) not imported"),
        "{report}"
    );
    for expected in [
        "<td>3</td><td><code>nelson@victory.example,Again</code></td><td>already a subscriber of this zine</td>",
        "<td>4</td><td><code>broken-address,Someone</code></td><td>Address: the address must contain exactly one &#39;@&#39;.</td>",
        "<td>5</td><td><code>collingwood@royal.example,Cuthbert Collingwood,extra</code></td><td>expected 2 columns (email,name), found 3</td>",
        "<td>6</td><td><code>hardy@victory.example,Twice</code></td><td>this address is on an earlier row of the file</td>",
    ] {
        assert!(report.contains(expected), "{expected}\n{report}");
    }
    // A name with markup is refused on import too (issue 27).
    let felix = format!(
        "<td>9</td><td><code>{}</code></td><td>{}</td>",
        html("felix@fell.example,<i>Felix</i> Fell"),
        html("Name: the name contains < or >: write the name as plain text, without markup.")
    );
    assert!(report.contains(&felix), "{felix}\n{report}");
    // Export: every subscriber, formulas defused, and it imports back unchanged.
    let export = gm.get("/gm/zines/gazette/subscribers.csv").await;
    assert_eq!(export.headers()["content-type"], "text/csv; charset=utf-8");
    let export = export.text().await.unwrap();
    let lines: Vec<&str> = export.lines().collect();
    assert_eq!(lines[0], "email,name,status,subscribed_at");
    assert_eq!(lines.len(), 5, "{export}");
    assert!(lines[1].starts_with("nelson@victory.example,Nelson,active,"));
    assert!(lines[3].starts_with("blackwood@euryalus.example,\"Blackwood, Henry\",active,"));
    assert!(
        lines[4].starts_with("'=cmd@evil.example,\"'=HYPERLINK(\"\"x\"\")\",active"),
        "{export}"
    );
    // '=' may start a mailbox name (RFC 5322): stored as written, defused only in the export.
    let stored: String = sqlx::query_scalar(
        "SELECT display_name FROM subscribers WHERE email = '=cmd@evil.example'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(stored, "=HYPERLINK(\"x\")");

    // Edit: a bad address changes nothing; another subscriber's address is refused.
    let path = format!("/gm/subscribers/{nelson}");
    let response = gm
        .submit(&path, &[("email", "x@y"), ("name", "Horatio")])
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let response = gm
        .submit(
            &path,
            &[("email", "hardy@victory.example"), ("name", "Horatio")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("There is already a subscriber with this address in this zine.")
    );
    let response = gm
        .submit(
            &path,
            &[
                ("email", "horatio@victory.example"),
                ("name", "Horatio Nelson"),
            ],
        )
        .await;
    assert_eq!(
        location(&response),
        "/gm/zines/gazette?done=subscriber-saved"
    );
    let response = gm
        .submit(&format!("{path}/status"), &[("status", "excluded")])
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    gm.submit(
        &format!("{path}/status"),
        &[("status", "unsubscribed"), ("confirm", "yes")],
    )
    .await;
    let (email, name, status): (String, String, String) =
        sqlx::query_as("SELECT email, display_name, status FROM subscribers WHERE id = $1")
            .bind(nelson)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        (email.as_str(), name.as_str(), status.as_str()),
        ("horatio@victory.example", "Horatio Nelson", "unsubscribed")
    );
    assert_eq!(
        gm.get("/gm/zines/nosuch").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        gm.get("/gm/subscribers/999").await.status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

#[tokio::test]
async fn a_game_is_set_up_from_its_engines_form_and_run_from_its_page() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = logged_in(&app).await;
    gm.submit("/gm/zines", &[("slug", "gazette"), ("name", "Gazette")])
        .await;
    let new_game = |name: &'static str, width: &'static str| {
        vec![
            ("engine", "barmy"),
            ("name", name),
            ("deadline", "1805-10-28T12:00"),
            ("schedule", "every_days"),
            ("days", "7"),
            ("setup.width", width),
            ("setup.height", "8"),
            ("setup.final_turn", ""),
        ]
    };
    // No players yet.
    let response = gm
        .submit("/gm/zines/gazette/games/new", &new_game("Trafalgar", "8"))
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("the zine has no active subscriber to play")
    );
    for (email, name) in [
        ("nelson@victory.example", "Nelson"),
        ("villeneuve@bucentaure.example", "Villeneuve"),
    ] {
        gm.submit(
            "/gm/zines/gazette/subscribers",
            &[("email", email), ("name", name)],
        )
        .await;
    }
    // The form is the engine's own: each default setting has an input.
    let form = gm
        .get_text("/gm/zines/gazette/games/new?engine=barmy")
        .await;
    for input in [
        "name=\"setup.width\" value=\"19\"",
        "name=\"setup.height\" value=\"19\"",
        "name=\"setup.show_shares\"",
    ] {
        assert!(form.contains(input), "{input}");
    }
    assert_eq!(
        gm.get("/gm/zines/gazette/games/new?engine=chess")
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    // Bad settings: named by the console, or refused by the engine in its own words.
    for (form, expected) in [
        (
            new_game("Trafalgar", "wide"),
            "Columns: a whole number from 4 to 702 is needed, not &#34;wide&#34;.",
        ),
        (
            new_game("Trafalgar", "-3"),
            "Columns: -3 is not from 4 to 702.",
        ),
        (new_game("", "8"), "Game name"),
    ] {
        let response = gm.submit("/gm/zines/gazette/games/new", &form).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let page = response.text().await.unwrap();
        assert!(page.contains(expected), "{expected}\n{page}");
        assert!(
            page.contains("name=\"setup.height\" value=\"8\""),
            "what was typed is kept"
        );
    }
    let mut past = new_game("Trafalgar", "8");
    past[2] = ("deadline", "1805-10-20T12:00");
    let response = gm.submit("/gm/zines/gazette/games/new", &past).await;
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("First deadline: it must be in the future.")
    );
    assert_eq!(count(pool, "SELECT count(*) FROM games").await, 0);

    let response = gm
        .submit(
            "/gm/zines/gazette/games/new",
            &new_game("<i>Trafalgar</i>", "8"),
        )
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let game_page = location(&response);
    let game: i64 = count(pool, "SELECT id FROM games").await;
    assert_eq!(game_page, format!("/gm/games/{game}?done=game-created"));
    let (setup, schedule): (Value, Value) = sqlx::query_as("SELECT setup, schedule FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(setup["width"], 8);
    assert_eq!(schedule["kind"], "every_days");
    assert_eq!(schedule["days"], 7);
    let page = gm.get_text(&game_page).await;
    assert!(page.contains(&html("<i>Trafalgar</i>")));
    assert!(page.contains("Turn 1: deadline 1805-10-28 12:00 UTC"));
    assert!(page.contains("0 of 2 active player(s) have sent orders."));

    // Orders and press come in (as by mail); the page shows who has ordered and what.
    let nelson: store::players::PlayerRowId =
        sqlx::query_scalar("SELECT id FROM players WHERE display_name = 'Nelson'")
            .fetch_one(pool)
            .await
            .unwrap();
    server::turns::submit_orders(
        pool,
        app.clock.now(),
        crate::helpers::id::<store::games::GameId>(game),
        nelson,
        "A1 B2 C3\nPRESS England expects <everyone>",
        Source::Email,
    )
    .await
    .unwrap();
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(
        page.contains("1 of 2 active player(s) have sent orders."),
        "{page}"
    );
    assert!(page.contains("<strong>no orders yet</strong>"));
    assert!(page.contains("A1 B2 C3"));

    // The preview is the resolution to come, and writes nothing.
    let before = fingerprint(pool).await;
    let reports = count(pool, "SELECT count(*) FROM published_reports").await;
    let preview = gm.get_text(&format!("/gm/games/{game}/preview")).await;
    assert_eq!(fingerprint(pool).await, before);
    assert_eq!(
        count(pool, "SELECT count(*) FROM published_reports").await,
        reports
    );
    let start =
        preview.find("<pre id=\"preview-text\">").unwrap() + "<pre id=\"preview-text\">".len();
    let previewed = preview[start..].split("</pre>").next().unwrap().to_owned();
    let response = gm
        .confirm(&format!("/gm/games/{game}/confirm/resolve-now"))
        .await;
    assert_eq!(
        location(&response),
        format!("/gm/games/{game}?done=resolve-now")
    );
    let published: String = sqlx::query_scalar("SELECT text FROM published_reports")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(previewed, html(&published));

    // Lifecycle refusals are explained.
    gm.submit(&format!("/gm/games/{game}/actions/pause"), &[])
        .await;
    let response = gm
        .confirm(&format!("/gm/games/{game}/confirm/resolve-now"))
        .await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("the game is paused: resume it first")
    );
    for hours in ["0", "721", "x"] {
        let response = gm
            .submit(
                &format!("/gm/games/{game}/actions/extend"),
                &[("hours", hours)],
            )
            .await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{hours}"
        );
    }
    let response = gm
        .submit(
            &format!("/gm/games/{game}/schedule"),
            &[("schedule", "every_days"), ("days", "0")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        gm.submit(&format!("/gm/games/{game}/actions/explode"), &[])
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    gm.confirm(&format!("/gm/games/{game}/confirm/end")).await;
    let response = gm.confirm(&format!("/gm/games/{game}/confirm/end")).await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert_eq!(
        gm.get(&format!("/gm/games/{game}/preview")).await.status(),
        StatusCode::CONFLICT
    );
    assert_eq!(
        gm.get("/gm/games/999").await.status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

/// The game's page and its confirmation page count the same players: those still playing, and
/// of them those whose orders are in. A player who ordered and then resigned is in neither count.
#[tokio::test]
async fn the_order_counts_leave_out_a_player_who_resigned_after_ordering() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let mut gm = logged_in(&app).await;
    let players: Vec<store::players::PlayerRowId> = sqlx::query_scalar(
        "SELECT id FROM players WHERE game_id = $1 AND status = 'active' ORDER BY id",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(players.len() >= 2);
    for player in &players[..2] {
        server::turns::submit_orders(
            pool,
            app.clock.now(),
            crate::helpers::id::<store::games::GameId>(game),
            *player,
            "A1 B2 C3",
            Source::Email,
        )
        .await
        .unwrap();
    }
    let before = format!("2 of {} active player(s) have sent orders", players.len());
    assert!(
        gm.get_text(&format!("/gm/games/{game}"))
            .await
            .contains(&before)
    );
    sqlx::query("UPDATE players SET status = 'resigned' WHERE id = $1")
        .bind(players[0])
        .execute(pool)
        .await
        .unwrap();
    let after = format!(
        "1 of {} active player(s) have sent orders",
        players.len() - 1
    );
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains(&after), "{page}");
    let confirm = gm
        .get_text(&format!("/gm/games/{game}/confirm/resolve-now"))
        .await;
    assert!(confirm.contains(&after), "{confirm}");
}

#[tokio::test]
async fn the_mail_queues_show_failures_and_take_retries() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    populate(pool).await;
    let mut gm = logged_in(&app).await;
    let inbox = gm.get_text("/gm/inbox").await;
    assert!(
        inbox.contains(&html("<b>boom</b>")) && inbox.contains(&html("<m1@example.org>")),
        "{inbox}"
    );
    assert!(inbox.contains("not checked"), "{inbox}");
    // What the listener and the sender checks recorded is shown with the message (issue 29).
    sqlx::query(
        "UPDATE inbound_messages SET over_tls = true, auth_checked_at = now(), auth_spf = 'softfail', \
         auth_dkim = 'none', auth_dmarc = 'fail', auth_dmarc_policy = 'reject'",
    )
    .execute(pool)
    .await
    .unwrap();
    let inbox = gm.get_text("/gm/inbox").await;
    assert!(
        inbox.contains("via pipe (over TLS)")
            && inbox.contains("SPF softfail · DKIM none · DMARC fail (p=reject)")
            && inbox.contains("its From domain disowns it"),
        "{inbox}"
    );
    let outbox = gm.get_text("/gm/outbox?status=failed").await;
    assert!(outbox.contains("550 no such user") && outbox.contains("Send again"));
    assert!(
        gm.get_text("/gm/outbox?status=queued")
            .await
            .contains("No queued message.")
    );
    assert_eq!(
        gm.get("/gm/outbox?status=bogus").await.status(),
        StatusCode::BAD_REQUEST
    );

    let response = gm.submit("/gm/inbox/1/retry", &[]).await;
    assert_eq!(location(&response), "/gm/inbox?status=failed&done=retried");
    let status: String = sqlx::query_scalar("SELECT status FROM inbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_ne!(status, "failed");
    assert_eq!(
        gm.submit("/gm/inbox/1/retry", &[]).await.status(),
        StatusCode::CONFLICT
    );

    let response = gm.submit("/gm/outbox/1/resend", &[]).await;
    assert_eq!(location(&response), "/gm/outbox?status=queued&done=resent");
    let (status, attempts): (String, i32) =
        sqlx::query_as("SELECT status, attempts FROM outbound_messages")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!((status.as_str(), attempts), ("queued", 0));
    assert!(
        gm.get_text("/gm/outbox?status=queued&done=resent")
            .await
            .contains("The message is queued to be sent again.")
    );
    assert_eq!(
        gm.submit("/gm/outbox/1/resend", &[]).await.status(),
        StatusCode::CONFLICT
    );
    app.stop().await;
}

#[tokio::test]
async fn the_audit_log_pages_back_fifty_at_a_time() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    for n in 0..120 {
        store::audit::append(
            pool,
            &store::audit::NewAuditEntry {
                actor: "test",
                game: None,
                action: store::audit::AuditAction::InboxRetryAll { requeued: n },
            },
            crate::helpers::trafalgar(),
        )
        .await
        .unwrap();
    }
    let mut gm = logged_in(&app).await;
    // 121 entries with the login: pages of 50, 50 and 21.
    let first = gm.get_text("/gm/audit").await;
    assert_eq!(first.matches("<tr>").count() - 1, 50);
    assert!(first.contains("gm:nelson") && first.contains("gm.login"));
    let older = first
        .split("href=\"/gm/audit?before=")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(older, "72");
    let second = gm.get_text(&format!("/gm/audit?before={older}")).await;
    assert_eq!(second.matches("<tr>").count() - 1, 50);
    // Details are shown in full, pretty-printed.
    let n = |n: u32| {
        html(&serde_json::to_string_pretty(&serde_json::json!({ "requeued": n })).unwrap())
    };
    assert!(second.contains(&n(70)) && !second.contains(&n(71)));
    let third = gm.get_text("/gm/audit?before=22").await;
    assert_eq!(third.matches("<tr>").count() - 1, 21);
    assert!(!third.contains("id=\"older\""));
    app.stop().await;
}

fn gm_command() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gm"));
    command
        .env_remove("DATABASE_URL")
        .env_remove("ADMIRALTY_LOG");
    command
}

/// Runs `gm admin add-gm NAME` with `password` on standard input.
fn add_gm_by_cli(url: &str, name: &str, password: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = gm_command()
        .args(["admin", "add-gm", name])
        .env("DATABASE_URL", url)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{password}\n").as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn gm_admin_add_gm_reads_the_password_from_stdin_and_the_gm_can_log_in() {
    let app = TestApp::spawn().await;
    let url = app.db.url.clone();
    let made = add_gm_by_cli(&url, "hardy", "a long enough password");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(String::from_utf8_lossy(&made.stdout).contains("GM hardy created"));
    for (name, password, error) in [
        (
            "HARDY",
            "another long password",
            "a GM with this name already exists",
        ),
        ("blackwood", "short", "at least 12 characters"),
        (
            "<b>",
            "a long enough password",
            "a GM name is 1 to 64 letters",
        ),
    ] {
        let refused = add_gm_by_cli(&url, name, password);
        assert!(!refused.status.success(), "{name}");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains(error), "{name}: {stderr}");
    }
    let hash: String = sqlx::query_scalar("SELECT password_hash FROM gm_accounts")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert!(hash.starts_with("$argon2id$") && !hash.contains("a long enough password"));
    let mut browser = Browser::new(&app);
    assert_eq!(
        browser
            .login("hardy", "a long enough password")
            .await
            .status(),
        StatusCode::SEE_OTHER
    );
    assert_eq!(browser.get("/gm").await.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn the_demo_seed_prints_a_demo_gm_login_that_works() {
    let app = TestApp::spawn().await;
    let output = gm_command()
        .args(["migrate", "--seed-demo"])
        .env("DATABASE_URL", &app.db.url)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("demo: GM console login \"demo\", password \""))
        .unwrap_or_else(|| panic!("{stdout}"));
    let password = line.split('"').nth(3).unwrap();
    let mut browser = Browser::new(&app);
    assert_eq!(
        browser.login("demo", password).await.status(),
        StatusCode::SEE_OTHER
    );
    assert!(
        browser
            .get_text("/gm")
            .await
            .contains("Barmy Battleships (demo)")
    );
    app.stop().await;
}
