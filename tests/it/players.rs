#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! The players' pages through HTTP: the magic-link login (single use, expiring, rate-limited,
//! the same answer for any address), every /me route for every role (anonymous, the player,
//! another player, another zine's subscriber, a GM) including the refusals, orders and press
//! through the forms for a Barmy and a salvo game (an error beside its line and nothing stored;
//! a good set stored and shown), and no other player's position or pending orders on a page.

use chrono::Duration;
use engine::{PlayerId, Viewer};
use games::EngineKind;
use reqwest::StatusCode;
use reqwest::header::{LOCATION, SET_COOKIE};
use serde_json::Value;
use server::turns::{self, GameSpec, Schedule};
use store::games::GameId;
use store::players::PlayerRowId;
use store::subscribers::{self, NewSubscriber};
use store::{DisplayName, EmailAddress, PgPool, ZineSlug, zines};

use crate::console::{Browser, PASSWORD, add_gm, hidden_csrf, html};
use crate::helpers::{Counter, TestApp, trafalgar};

pub const NELSON: &str = "nelson@victory.example";
pub const VILLENEUVE: &str = "villeneuve@bucentaure.example";
const HARDY: &str = "hardy@courier.example";
const COLLINGWOOD: &str = "collingwood@courier.example";
const HOSTILE_NAME: &str = "<script>alert('villeneuve')</script>";

/// Two zines: the Gazette (Nelson and a hostile-named Villeneuve play a Barmy and a salvo
/// game) and the Courier (Hardy and Collingwood play a Barmy game).
pub struct Fleet {
    pub app: TestApp,
    pub barmy: GameId,
    pub salvo: GameId,
    pub courier: GameId,
}

pub async fn subscribe(pool: &PgPool, zine: store::zines::ZineId, email: &str, name: &str) {
    let new = NewSubscriber {
        zine_id: zine,
        email: EmailAddress::parse(email).unwrap(),
        // `stored`: a name stored before markup was refused at entry.
        display_name: DisplayName::stored(name).unwrap(),
    };
    subscribers::insert(pool, &new, trafalgar()).await.unwrap();
}

pub async fn start_game(
    pool: &PgPool,
    zine: store::zines::ZineId,
    name: &str,
    engine: EngineKind,
    seed: u8,
) -> GameId {
    let setup = engine.default_setup();
    let spec = GameSpec {
        zine,
        name,
        setup: &setup,
        first_deadline: Some(trafalgar() + Duration::days(1)),
        schedule: Schedule::EveryDays(1),
    };
    turns::create_game(pool, trafalgar(), &spec, &mut Counter(seed))
        .await
        .unwrap()
}

pub async fn fleet() -> Fleet {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let gazette = zines::insert(
        &pool,
        &ZineSlug::parse("gazette").unwrap(),
        "The Gazette",
        trafalgar(),
    )
    .await
    .unwrap();
    subscribe(&pool, gazette.id, NELSON, "Horatio Nelson").await;
    subscribe(&pool, gazette.id, VILLENEUVE, HOSTILE_NAME).await;
    let courier = zines::insert(
        &pool,
        &ZineSlug::parse("courier").unwrap(),
        "The Courier",
        trafalgar(),
    )
    .await
    .unwrap();
    subscribe(&pool, courier.id, HARDY, "Thomas Hardy").await;
    subscribe(&pool, courier.id, COLLINGWOOD, "Cuthbert Collingwood").await;
    let barmy = start_game(&pool, gazette.id, "Trafalgar", EngineKind::Barmy, 3).await;
    let salvo = start_game(&pool, gazette.id, "The Nile", EngineKind::Salvo, 5).await;
    let courier = start_game(&pool, courier.id, "Copenhagen", EngineKind::Barmy, 7).await;
    Fleet {
        app,
        barmy,
        salvo,
        courier,
    }
}

/// The player row and engine id of the subscriber with `email` in `game`.
pub async fn player_of(pool: &PgPool, game: GameId, email: &str) -> (PlayerRowId, PlayerId) {
    let (row, engine): (PlayerRowId, i64) = sqlx::query_as(
        "SELECT p.id, p.engine_player_id FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND s.email = $2",
    )
    .bind(game)
    .bind(email)
    .fetch_one(pool)
    .await
    .unwrap();
    (row, PlayerId(u64::try_from(engine).unwrap()))
}

async fn game_state(pool: &PgPool, game: GameId) -> Value {
    sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The login mails queued to `email`, newest first.
pub async fn login_mails(pool: &PgPool, email: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE to_address = $1 \
         AND starts_with(idempotency_key, 'login:') ORDER BY id DESC",
    )
    .bind(email)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// The first login link in a mail's text, as a path (`/login/TOKEN`).
pub fn link_path(body: &str) -> String {
    let start = body.find("/login/").expect("a login link");
    body[start..start + "/login/".len() + 64].to_owned()
}

/// `text` as the web page shows an engine's message: escaped, its examples between backticks
/// as code.
pub fn with_code(text: &str) -> String {
    html(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 && !part.is_empty() {
                format!("<code>{part}</code>")
            } else {
                part.to_owned()
            }
        })
        .collect()
}

/// Asks for a link for `email` with the form, as a browser does.
pub(crate) async fn ask_for_link(browser: &mut Browser, email: &str) -> reqwest::Response {
    let page = browser.get_text("/login").await;
    let csrf = hidden_csrf(&page);
    browser
        .post("/login", &[("csrf", &csrf), ("email", email)])
        .await
}

/// Opens `link` and presses "Log in".
async fn use_link(browser: &mut Browser, link: &str) -> reqwest::Response {
    let page = browser.get(link).await;
    assert_eq!(page.status(), StatusCode::OK, "GET {link}");
    let csrf = hidden_csrf(&page.text().await.unwrap());
    browser.post(link, &[("csrf", &csrf)]).await
}

/// A browser logged in as the subscriber with `email`, through the mailed link.
pub async fn logged_in(app: &TestApp, email: &str) -> Browser {
    let mut browser = Browser::new(app);
    let asked = ask_for_link(&mut browser, email).await;
    assert_eq!(asked.status(), StatusCode::OK);
    let mail = login_mails(&app.db.pool, email).await;
    let response = use_link(&mut browser, &link_path(&mail[0])).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()[LOCATION], "/me");
    browser
}

async fn player_csrf(browser: &mut Browser) -> String {
    hidden_csrf(&browser.get_text("/me").await)
}

async fn submit(browser: &mut Browser, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
    let csrf = player_csrf(browser).await;
    let mut with_token = vec![("csrf", csrf.as_str())];
    with_token.extend_from_slice(form);
    browser.post(path, &with_token).await
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

/// The page's text between `<pre id="private-lines">` and its end.
fn private_lines(page: &str) -> String {
    let start = page
        .find("<pre id=\"private-lines\">")
        .expect("private lines")
        + 24;
    let end = start + page[start..].find("</pre>").unwrap();
    page[start..end].to_owned()
}

/// The squares the page's SVG draws as a ship of the viewer's (`<title>C4: ship</title>`).
fn ship_squares(page: &str) -> Vec<String> {
    page.match_indices(": ship</title>")
        .map(|(at, _)| {
            let open = page[..at].rfind("<title>").unwrap() + 7;
            page[open..at].to_owned()
        })
        .collect()
}

/// The row of the refused-orders table for line `number`, which must show `text` as written.
fn issue_row(page: &str, number: usize, text: &str) -> String {
    let start = format!("<td>{number}</td><td><code>{}</code></td>", html(text));
    let at = page
        .find(&start)
        .unwrap_or_else(|| panic!("no row {start} in {page}"));
    let end = at + page[at..].find("</tr>").unwrap();
    page[at..end].to_owned()
}

#[tokio::test]
async fn a_mailed_link_logs_a_subscriber_in_once_and_only_in_time() {
    let fleet = fleet().await;
    let app = &fleet.app;
    let pool = &app.db.pool;

    // The form is protected: without the double-submit cookie, nothing is queued.
    let mut stranger = Browser::new(app);
    let page = stranger.get_text("/login").await;
    let forged = stranger
        .http
        .post(app.url("/login"))
        .form(&[("csrf", hidden_csrf(&page).as_str()), ("email", NELSON)])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    assert!(login_mails(pool, NELSON).await.is_empty());

    // A subscribed address and an unknown one get the same page; only the first gets mail.
    let mut browser = Browser::new(app);
    let subscribed = ask_for_link(&mut browser, NELSON).await;
    assert_eq!(subscribed.status(), StatusCode::OK);
    let subscribed = subscribed.text().await.unwrap();
    let unknown = ask_for_link(&mut Browser::new(app), "nobody@example.org").await;
    assert_eq!(unknown.status(), StatusCode::OK);
    let unknown = unknown.text().await.unwrap();
    // The tokens differ by design: the CSRF token and the form's key (`once`).
    let without_token = |page: &str| {
        let key = page
            .split("name=\"once\" value=\"")
            .nth(1)
            .unwrap_or_default();
        let key = key.split('"').next().unwrap_or_default();
        page.replace(&hidden_csrf(page), "").replace(key, "")
    };
    assert_eq!(without_token(&subscribed), without_token(&unknown));
    assert!(
        subscribed.contains("If that address is subscribed to a zine, a login link is on its way")
    );
    let mails = login_mails(pool, NELSON).await;
    assert_eq!(mails.len(), 1);
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE to_address = 'nobody@example.org'"
        )
        .await,
        0
    );
    let link = link_path(&mails[0]);
    assert!(
        mails[0].contains(&format!("{}{link}", app.url(""))),
        "{}",
        mails[0]
    );
    assert!(
        mails[0].contains("The Gazette (as Horatio Nelson)"),
        "{}",
        mails[0]
    );
    // Only a hash of the token is stored.
    let token = link.trim_start_matches("/login/");
    assert_eq!(
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM login_links WHERE encode(token_hash, 'hex') = $1"
        )
        .bind(token)
        .fetch_one(pool)
        .await
        .unwrap(),
        0
    );
    assert_eq!(count(pool, "SELECT count(*) FROM login_links").await, 1);

    // Opening the link (as a mail scanner would, twice) logs nobody in and uses nothing.
    for _ in 0..2 {
        let opened = app.get(&link).await;
        assert_eq!(opened.status(), StatusCode::OK);
        let text = opened.text().await.unwrap();
        assert!(text.contains(">Log in</button>"));
        assert!(!text.contains("Trafalgar"));
    }
    assert_eq!(count(pool, "SELECT count(*) FROM web_sessions").await, 0);

    // Pressing the button without the form's token does nothing.
    let mut browser = Browser::new(app);
    browser.get(&link).await;
    let no_token = browser.post(&link, &[("csrf", "")]).await;
    assert_eq!(no_token.status(), StatusCode::FORBIDDEN);
    assert_eq!(count(pool, "SELECT count(*) FROM web_sessions").await, 0);

    // Pressing it logs in, with a secure cookie, and lands on the player's games.
    let response = use_link(&mut browser, &link).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()[LOCATION], "/me");
    let cookie = response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("admiralty_session="))
        .unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let me = browser.get_text("/me").await;
    assert!(me.contains("Trafalgar") && me.contains("The Nile"), "{me}");
    assert!(!me.contains("Copenhagen"));
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'player.login'"
        )
        .await,
        1
    );

    // The link is used up: in another browser it shows the error page, and logs nobody in.
    let mut thief = Browser::new(app);
    let reopened = thief.get(&link).await;
    assert_eq!(reopened.status(), StatusCode::GONE);
    let text = reopened.text().await.unwrap();
    assert!(text.contains("This login link no longer works"));
    assert!(text.contains("href=\"/login\""));
    let replayed = thief.post(&link, &[("csrf", "x")]).await;
    assert_eq!(replayed.status(), StatusCode::FORBIDDEN);
    // (with a valid pre-session token, still refused)
    let page = thief.get_text("/login").await;
    let replayed = thief.post(&link, &[("csrf", &hidden_csrf(&page))]).await;
    assert_eq!(replayed.status(), StatusCode::GONE);
    assert_eq!(thief.get("/me").await.status(), StatusCode::SEE_OTHER);

    // A link expires after 30 minutes, opened or not.
    let mut late = Browser::new(app);
    ask_for_link(&mut late, NELSON).await;
    let link = link_path(&login_mails(pool, NELSON).await[0]);
    let page = late.get(&link).await.text().await.unwrap();
    app.clock.advance(Duration::minutes(31));
    assert_eq!(late.get(&link).await.status(), StatusCode::GONE);
    let expired = late.post(&link, &[("csrf", &hidden_csrf(&page))]).await;
    assert_eq!(expired.status(), StatusCode::GONE);
    assert_eq!(late.get("/me").await.status(), StatusCode::SEE_OTHER);

    // Garbage tokens are simply dead links.
    for garbage in [
        "/login/abc",
        "/login/%3Cscript%3E",
        &format!("/login/{}", "0".repeat(64)),
    ] {
        assert_eq!(
            app.get(garbage).await.status(),
            StatusCode::GONE,
            "{garbage}"
        );
    }

    // Three link mails an hour per address: the fourth request is answered the same, audited,
    // and sends nothing.
    app.clock.advance(Duration::minutes(61));
    let before = login_mails(pool, NELSON).await.len();
    for _ in 0..4 {
        let response = ask_for_link(&mut Browser::new(app), NELSON).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    assert_eq!(login_mails(pool, NELSON).await.len(), before + 3);
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'player.login_link_refused'"
        )
        .await,
        1
    );
    app.clock.advance(Duration::minutes(61));
    ask_for_link(&mut Browser::new(app), NELSON).await;
    assert_eq!(login_mails(pool, NELSON).await.len(), before + 4);

    // An unsubscribed address gets no link; a bad address is told so.
    let villeneuve = subscribers::find_by_email(
        pool,
        zines::find_by_slug(pool, &ZineSlug::parse("gazette").unwrap())
            .await
            .unwrap()
            .unwrap()
            .id,
        &EmailAddress::parse(VILLENEUVE).unwrap(),
    )
    .await
    .unwrap()
    .unwrap();
    subscribers::set_status(
        pool,
        villeneuve.id,
        subscribers::SubscriberStatus::Unsubscribed,
    )
    .await
    .unwrap();
    let response = ask_for_link(&mut Browser::new(app), VILLENEUVE).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(login_mails(pool, VILLENEUVE).await.is_empty());
    let response = ask_for_link(&mut Browser::new(app), "not an address").await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("That is not an email address")
    );

    // Logging out ends the session at once.
    let csrf = player_csrf(&mut browser).await;
    let out = browser.post("/logout", &[("csrf", &csrf)]).await;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    assert_eq!(out.headers()[LOCATION], "/login");
    assert_eq!(browser.get("/me").await.status(), StatusCode::SEE_OTHER);
    fleet.app.stop().await;
}

/// Every player route, GET and POST.
fn routes(game: GameId) -> (Vec<String>, Vec<String>) {
    (
        vec!["/me".to_owned(), format!("/me/games/{}", game)],
        vec![
            format!("/me/games/{}/orders", game),
            format!("/me/games/{}/press", game),
            "/logout".to_owned(),
        ],
    )
}

async fn orders_and_press(pool: &PgPool) -> (i64, i64) {
    (
        count(pool, "SELECT count(*) FROM orders").await,
        count(pool, "SELECT count(*) FROM press").await,
    )
}

#[tokio::test]
async fn every_player_route_refuses_who_may_not_use_it() {
    let fleet = fleet().await;
    let app = &fleet.app;
    let pool = &app.db.pool;
    let (pages, forms) = routes(fleet.barmy);
    let form = [("orders", "A1, B2"), ("press", "hello")];

    // Anonymous: pages send to the login, forms are refused.
    let mut anonymous = Browser::new(app);
    for page in &pages {
        let response = anonymous.get(page).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{page}");
        let location = response.headers()[LOCATION].to_str().unwrap();
        assert!(location.starts_with("/login?next="), "{location}");
        assert_eq!(response.headers()["cache-control"], "no-store");
        assert_eq!(response.headers()["referrer-policy"], "no-referrer");
        assert_eq!(response.headers()["x-frame-options"], "DENY");
    }
    for path in &forms {
        let response = anonymous.post(path, &form).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path}");
    }

    // A GM is not a player.
    add_gm(pool, "collingwood").await;
    let mut gm = Browser::new(app);
    gm.login("collingwood", PASSWORD).await;
    let gm_csrf = gm.csrf().await;
    for page in &pages {
        assert_eq!(gm.get(page).await.status(), StatusCode::FORBIDDEN, "{page}");
    }
    for path in forms.iter().take(2) {
        let mut with_token = vec![("csrf", gm_csrf.as_str())];
        with_token.extend_from_slice(&form);
        assert_eq!(
            gm.post(path, &with_token).await.status(),
            StatusCode::FORBIDDEN,
            "{path}"
        );
    }
    // And a player's session opens no GM page.
    let mut nelson = logged_in(app, NELSON).await;
    assert_eq!(nelson.get("/gm").await.status(), StatusCode::FORBIDDEN);

    // The player: every page, but no form without the session's token.
    for page in &pages {
        assert_eq!(nelson.get(page).await.status(), StatusCode::OK, "{page}");
    }
    for path in &forms {
        let response = nelson.post(path, &form).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
        let response = nelson
            .post(path, &[("csrf", &"0".repeat(64)), ("orders", "A1")])
            .await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
    }
    assert_eq!(orders_and_press(pool).await, (0, 0));

    // Another zine's subscriber: the Gazette's game is not found (as a game that does not
    // exist is), by GET and by a form with a good token; their own game opens.
    let mut hardy = logged_in(app, HARDY).await;
    let missing = hardy.get("/me/games/999999").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let missing = missing.text().await.unwrap();
    for page in &pages[1..] {
        let response = hardy.get(page).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{page}");
        assert_eq!(response.text().await.unwrap(), missing);
    }
    for path in forms.iter().take(2) {
        let response = submit(&mut hardy, path, &form).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(orders_and_press(pool).await, (0, 0));
    assert_eq!(
        hardy
            .get(&format!("/me/games/{}", fleet.courier))
            .await
            .status(),
        StatusCode::OK
    );
    for garbage in [
        "/me/games/abc",
        "/me/games/-1",
        "/me/games/99999999999999999999999",
    ] {
        assert_eq!(
            hardy.get(garbage).await.status(),
            StatusCode::NOT_FOUND,
            "{garbage}"
        );
    }
    // Nelson is not a player of the Courier's game either.
    let courier = format!("/me/games/{}", fleet.courier);
    assert_eq!(nelson.get(&courier).await.status(), StatusCode::NOT_FOUND);

    // The player's forms work with the token (logout last).
    for path in &forms {
        let response = submit(&mut nelson, path, &form).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
    }
    assert_eq!(orders_and_press(pool).await, (1, 1));
    fleet.app.stop().await;
}

#[tokio::test]
async fn barmy_orders_through_the_form_keep_hidden_what_is_hidden() {
    let fleet = fleet().await;
    let app = &fleet.app;
    let pool = &app.db.pool;
    let page_path = format!("/me/games/{}", fleet.barmy);
    let orders_path = format!("{page_path}/orders");
    let (nelson_row, nelson_id) = player_of(pool, fleet.barmy, NELSON).await;
    let (_, villeneuve_id) = player_of(pool, fleet.barmy, VILLENEUVE).await;
    let state = game_state(pool, fleet.barmy).await;
    let mut nelson = logged_in(app, NELSON).await;
    let mut villeneuve = logged_in(app, VILLENEUVE).await;

    let me = nelson.get_text("/me").await;
    assert!(me.contains("not in yet"), "{me}");

    // A partly bad set: the engine's error beside its line, the text kept, and (one policy for
    // both doors, issue 27 item 5) the good line stands, as it does by mail.
    let bad = "A1, B2\nZ99, Q0 hoist the signal";
    let expected = EngineKind::Barmy
        .parse_state(&state)
        .unwrap()
        .parse_orders(nelson_id, bad);
    assert!(!expected.errors.is_empty());
    let response = submit(&mut nelson, &orders_path, &[("orders", bad)]).await;
    assert_eq!(response.status(), StatusCode::OK, "stored, so not 422");
    let page = response.text().await.unwrap();
    assert!(
        page.contains("Your orders for Trafalgar, as understood:")
            && page.contains("(a refused line is left out of them)"),
        "{page}"
    );
    for error in &expected.errors {
        let row = issue_row(&page, error.line, &error.text);
        let beside = format!(
            "<strong>Error:</strong> {} Would be accepted: {}",
            with_code(&error.problem_if_it_stands()),
            with_code(&error.expected)
        );
        assert!(row.contains(&beside), "{beside} in {row}");
    }
    assert!(!issue_row(&page, 1, "A1, B2").contains("Error"));
    assert!(page.contains(&format!(">{}</textarea>", html(bad))));
    // Barmy reads what follows the last square as press: "hoist the signal" is kept with it.
    assert_eq!(orders_and_press(pool).await, (1, 1));
    let stored = store::orders::current_raw_orders(pool, fleet.barmy, nelson_row)
        .await
        .unwrap();
    assert_eq!(stored.as_deref(), Some(bad));

    // A good set: stored from the web, confirmed, shown as understood, in STATUS's place.
    let good = "A1, B2 England expects";
    let parsed = EngineKind::Barmy
        .parse_state(&state)
        .unwrap()
        .parse_orders(nelson_id, good);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let response = submit(&mut nelson, &orders_path, &[("orders", good)]).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    // It replaces the partly bad set that stood, and so withdraws that set's press.
    assert_eq!(
        response.headers()[LOCATION].to_str().unwrap(),
        format!("{page_path}?done=orders-press-withdrawn")
    );
    let page = nelson
        .get_text(&format!("{page_path}?done=orders-press-withdrawn"))
        .await;
    assert!(page.contains("Your orders were received."), "{page}");
    for line in &parsed.understood {
        assert!(page.contains(&format!("<li>{}</li>", html(line))), "{line}");
    }
    let stored = store::orders::current_raw_orders(pool, fleet.barmy, nelson_row)
        .await
        .unwrap();
    assert_eq!(stored.as_deref(), Some(good));
    let source: String =
        sqlx::query_scalar("SELECT source FROM orders WHERE superseded_at IS NULL")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(source, "web");
    assert!(
        nelson
            .get_text("/me")
            .await
            .contains(r#"<td data-label="Your orders">in</td>"#)
    );

    // A second set replaces the first, as by mail; press goes with the turn.
    let second = "C3, D4";
    let response = submit(&mut nelson, &orders_path, &[("orders", second)]).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let response = submit(
        &mut nelson,
        &format!("{page_path}/press"),
        &[("press", "Kiss me, <Hardy> & co")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let page = nelson.get_text(&format!("{page_path}?done=press")).await;
    assert!(page.contains(&html("Kiss me, <Hardy> & co")));
    assert!(!page.contains("Kiss me, <Hardy>"));
    assert_eq!(
        store::orders::current_raw_orders(pool, fleet.barmy, nelson_row)
            .await
            .unwrap()
            .as_deref(),
        Some(second)
    );
    let empty = submit(&mut nelson, &orders_path, &[("orders", "  \r\n ")]).await;
    assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        empty
            .text()
            .await
            .unwrap()
            .contains("No orders were written")
    );

    // Villeneuve's orders and press are pending: never on Nelson's page.
    let secret = "E5, F6 the fleet sails at dawn";
    let response = submit(&mut villeneuve, &orders_path, &[("orders", secret)]).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let nelson_page = nelson.get_text(&page_path).await;
    let villeneuve_page = villeneuve.get_text(&page_path).await;
    assert!(villeneuve_page.contains(secret));
    assert!(!nelson_page.contains("E5, F6") && !nelson_page.contains("sails at dawn"));
    assert!(!villeneuve_page.contains(second) && !villeneuve_page.contains("Kiss me"));
    // Each sees their own position, and not the other's: in the text and in the SVG.
    let barmy: barmy::State = serde_json::from_value(state.clone()).unwrap();
    let ship = |id: PlayerId| -> Vec<String> {
        barmy
            .captains
            .iter()
            .find(|c| c.id == id)
            .unwrap()
            .ship
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let (nelson_ship, villeneuve_ship) = (ship(nelson_id), ship(villeneuve_id));
    let nelson_lines = private_lines(&nelson_page);
    let villeneuve_lines = private_lines(&villeneuve_page);
    assert!(
        nelson_lines.contains(&format!(
            "Your battleship lies on {}",
            nelson_ship.join(", ")
        )),
        "{nelson_lines}"
    );
    assert!(villeneuve_lines.contains(&format!(
        "Your battleship lies on {}",
        villeneuve_ship.join(", ")
    )));
    let position = |lines: &str| lines.lines().next().unwrap().to_owned();
    assert!(!nelson_page.contains(&position(&villeneuve_lines)));
    assert!(!villeneuve_page.contains(&position(&nelson_lines)));
    let mut drawn = ship_squares(&nelson_page);
    drawn.sort();
    let mut own = nelson_ship.clone();
    own.sort();
    assert_eq!(drawn, own, "Nelson's board draws his ship and no other");
    let mut drawn = ship_squares(&villeneuve_page);
    drawn.sort();
    let mut own = villeneuve_ship.clone();
    own.sort();
    assert_eq!(drawn, own);
    // The engine's own player view is what the page shows (as the POSITION mail has it).
    let view = EngineKind::Barmy
        .parse_state(&state)
        .unwrap()
        .view(Viewer::Player(nelson_id));
    for line in &view.lines {
        assert!(nelson_lines.contains(&html(line)), "{line}");
    }
    // Names are escaped.
    assert!(villeneuve_page.contains(&html(HOSTILE_NAME)));
    assert!(!villeneuve_page.contains(HOSTILE_NAME));
    assert!(!nelson_page.contains(HOSTILE_NAME));

    // After the deadline: refused with the reason, nothing stored. (A login lasts 12 hours:
    // log in again a day later.)
    app.clock
        .set(trafalgar() + Duration::days(1) + Duration::minutes(1));
    let mut nelson = logged_in(app, NELSON).await;
    let mut villeneuve = logged_in(app, VILLENEUVE).await;
    let before = orders_and_press(pool).await;
    let late = submit(&mut nelson, &orders_path, &[("orders", "G7, H8")]).await;
    assert_eq!(late.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        late.text()
            .await
            .unwrap()
            .contains("the deadline has passed")
    );
    assert_eq!(orders_and_press(pool).await, before);

    // Once resolved, each sees their own orders (and only theirs) in the history.
    turns::resolve_due(pool, trafalgar() + Duration::days(1), "zine.example.org")
        .await
        .unwrap();
    let nelson_page = nelson.get_text(&page_path).await;
    let history = &nelson_page[nelson_page.find("id=\"history\"").unwrap()..];
    assert!(
        history.contains("Turn 1") && history.contains(second),
        "{history}"
    );
    assert!(!history.contains("E5, F6"));
    assert!(
        !history.contains(good),
        "a superseded set is not the turn's orders"
    );
    let villeneuve_page = villeneuve.get_text(&page_path).await;
    assert!(villeneuve_page[villeneuve_page.find("id=\"history\"").unwrap()..].contains(secret));
    assert!(!villeneuve_page.contains(second));
    fleet.app.stop().await;
}

#[tokio::test]
async fn salvo_orders_through_the_form_keep_each_fleet_to_its_admiral() {
    let fleet = fleet().await;
    let app = &fleet.app;
    let pool = &app.db.pool;
    let page_path = format!("/me/games/{}", fleet.salvo);
    let orders_path = format!("{page_path}/orders");
    let (nelson_row, nelson_id) = player_of(pool, fleet.salvo, NELSON).await;
    let state = game_state(pool, fleet.salvo).await;
    let mut nelson = logged_in(app, NELSON).await;
    let mut villeneuve = logged_in(app, VILLENEUVE).await;

    // The salvo form: a bad line gets salvo's own message beside it; the good line stands.
    let bad = "FIRE B7\nFIRE Z99";
    let expected = EngineKind::Salvo
        .parse_state(&state)
        .unwrap()
        .parse_orders(nelson_id, bad);
    assert!(!expected.errors.is_empty(), "{expected:?}");
    let response = submit(&mut nelson, &orders_path, &[("orders", bad)]).await;
    assert_eq!(response.status(), StatusCode::OK, "stored, so not 422");
    let page = response.text().await.unwrap();
    for error in &expected.errors {
        let row = issue_row(&page, error.line, &error.text);
        assert!(
            row.contains(&html(&error.problem)),
            "{} in {row}",
            error.problem
        );
    }
    assert_eq!(orders_and_press(pool).await, (1, 0));
    // Salvo's order help is on the form.
    assert!(page.contains("PLACE RANDOM"));

    let good = "FIRE B7";
    let parsed = EngineKind::Salvo
        .parse_state(&state)
        .unwrap()
        .parse_orders(nelson_id, good);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let response = submit(&mut nelson, &orders_path, &[("orders", good)]).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let page = nelson.get_text(&page_path).await;
    for line in &parsed.understood {
        assert!(page.contains(&html(line)), "{line}");
    }
    assert_eq!(
        store::orders::current_raw_orders(pool, fleet.salvo, nelson_row)
            .await
            .unwrap()
            .as_deref(),
        Some(good)
    );

    // Each admiral's page lists their own fleet, and no line of the other's.
    let fleet_lines = |page: &str| -> Vec<String> {
        private_lines(page)
            .lines()
            .filter(|line| line.starts_with("  ") && line.contains(": afloat"))
            .map(str::to_owned)
            .collect()
    };
    let nelson_page = nelson.get_text(&page_path).await;
    let villeneuve_page = villeneuve.get_text(&page_path).await;
    let (nelson_fleet, villeneuve_fleet) =
        (fleet_lines(&nelson_page), fleet_lines(&villeneuve_page));
    assert_eq!(nelson_fleet.len(), 5, "{nelson_page}");
    assert_eq!(villeneuve_fleet.len(), 5);
    for line in &villeneuve_fleet {
        assert!(
            !nelson_page.contains(line.trim()),
            "{line} leaked to Nelson"
        );
    }
    for line in &nelson_fleet {
        assert!(
            !villeneuve_page.contains(line.trim()),
            "{line} leaked to Villeneuve"
        );
    }
    assert!(
        !villeneuve_page.contains("FIRE B7</"),
        "Nelson's pending orders"
    );
    fleet.app.stop().await;
}
