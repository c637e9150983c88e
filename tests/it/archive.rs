#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! The readers' archive through HTTP: every public route, its content type, 404s for unknown
//! and garbage ids, escaping of hostile names and press, seeds as far as they are revealed,
//! and a finished game's full record.

use chrono::{DateTime, Duration, Utc};
use engine::{GameSecret, TurnSeed};
use games::EngineKind;
use reqwest::StatusCode;
use server::turns::{self, GameSpec, GmAction, Schedule};
use store::games::GameId;
use store::players::PlayerRowId;
use store::status::Source;
use store::subscribers::{self, NewSubscriber};
use store::zines;
use store::{DisplayName, EmailAddress, ZineSlug};

use crate::helpers::{Counter, TestApp, trafalgar};

pub const SLUG: &str = "gazette";
pub const HOSTILE_ZINE: &str = "The <i>Gazette</i> & Co";
pub const HOSTILE_GAME: &str = "Barmy <b>Bash</b>";
pub const HOSTILE_NAME: &str = "<script>alert('name')</script>";
pub const HOSTILE_PRESS: &str = "<script>alert('press')</script> & <b>bold</b>";
const MAIL_DOMAIN: &str = "zine.example.org";

/// A Barmy game with three published turns and the fourth open, with orders pending.
pub struct GameInProgress {
    pub app: TestApp,
    pub game: GameId,
    pub secret: GameSecret,
    /// The open turn's number.
    pub open_turn: u32,
    /// The raw text of every pending order of the open turn.
    pub pending: Vec<String>,
    /// When the open turn's deadline falls.
    pub next_deadline: DateTime<Utc>,
}

impl GameInProgress {
    pub fn game_path(&self) -> String {
        format!("/zines/{SLUG}/games/{}", self.game)
    }

    pub fn turn_path(&self, number: u32) -> String {
        format!("{}/turns/{number}", self.game_path())
    }

    pub async fn state(&self) -> barmy::State {
        let state: serde_json::Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
            .bind(self.game)
            .fetch_one(&self.app.db.pool)
            .await
            .unwrap();
        serde_json::from_value(state).unwrap()
    }

    pub async fn players(&self) -> Vec<PlayerRowId> {
        sqlx::query_scalar("SELECT id FROM players WHERE game_id = $1 ORDER BY engine_player_id")
            .bind(self.game)
            .fetch_all(&self.app.db.pool)
            .await
            .unwrap()
    }

    /// Resolves the open turn at its deadline (orders as they stand), and moves the app's clock
    /// past the public cache's lifetime.
    pub async fn resolve_open_turn(&mut self) {
        let resolved = turns::resolve_due(&self.app.db.pool, self.next_deadline, MAIL_DOMAIN)
            .await
            .unwrap();
        assert_eq!(resolved.len(), 1);
        self.open_turn += 1;
        self.next_deadline += Duration::days(1);
        self.app.clock.advance(Duration::minutes(1));
    }
}

/// A square of the board no ship lies on and nobody has fired at, chosen by `pick`.
fn empty_square(state: &barmy::State, pick: usize) -> String {
    let taken: Vec<barmy::Square> = state.captains.iter().flat_map(|c| c.ship).collect();
    let grid = state.setup.grid();
    let free: Vec<barmy::Square> = (0..grid.height)
        .flat_map(|y| (0..grid.width).map(move |x| barmy::Square { x, y }))
        .filter(|s| !taken.contains(s) && !state.shots.contains(s))
        .collect();
    free[(pick * 37) % free.len()].to_string()
}

/// The game of [`GameInProgress`], in a zine of four subscribers with a hostile name among
/// them. In turn 1 each player hits the next one's ship; later shots miss; press is hostile.
pub async fn game_in_progress() -> GameInProgress {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let zine = zines::insert(
        &pool,
        &ZineSlug::parse(SLUG).unwrap(),
        HOSTILE_ZINE,
        trafalgar(),
    )
    .await
    .unwrap();
    for (address, name) in [
        ("villain@example.org", HOSTILE_NAME),
        ("john@example.org", "John Smith"),
        ("annette@example.org", "Annette Curtain"),
        ("bob@example.org", "Bob Ross"),
    ] {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).unwrap(),
            // `stored`: these names stand for ones stored before markup was refused at entry.
            display_name: DisplayName::stored(name).unwrap(),
        };
        subscribers::insert(&pool, &new, trafalgar()).await.unwrap();
    }
    let setup = EngineKind::Barmy.default_setup();
    let first_deadline = trafalgar() + Duration::days(1);
    let spec = GameSpec {
        zine: zine.id,
        name: HOSTILE_GAME,
        setup: &setup,
        first_deadline: Some(first_deadline),
        schedule: Schedule::EveryDays(1),
    };
    let game = turns::create_game(&pool, trafalgar(), &spec, &mut Counter(11))
        .await
        .unwrap();
    let secret: Vec<u8> = sqlx::query_scalar("SELECT secret_seed FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(&pool)
        .await
        .unwrap();
    let mut archive = GameInProgress {
        app,
        game,
        secret: GameSecret::from_bytes(secret.try_into().unwrap()),
        open_turn: 1,
        pending: Vec::new(),
        next_deadline: first_deadline,
    };
    let players = archive.players().await;
    for turn in 1..=4u32 {
        let state = archive.state().await;
        let now = archive.next_deadline - Duration::hours(1);
        for (index, player) in players.iter().enumerate() {
            let target = &state.captains[(index + 1) % state.captains.len()];
            let aimed = if turn == 1 {
                target.ship[0].to_string()
            } else {
                empty_square(&state, index * 7 + turn as usize * 3)
            };
            let spare = empty_square(&state, index * 11 + turn as usize * 5 + 1);
            let press = match (turn, index) {
                (4, _) => format!("Pending press {index} of the open turn"),
                (_, 0) => HOSTILE_PRESS.to_owned(),
                _ => format!("Greetings from player {index} in turn {turn}"),
            };
            let text = format!("{aimed}, {spare} {press}");
            let parsed = turns::submit_orders(&pool, now, game, *player, &text, Source::Web)
                .await
                .unwrap();
            assert!(parsed.errors.is_empty(), "{text}: {:?}", parsed.errors);
            assert!(!parsed.press.is_empty(), "{text}");
            if turn == 4 {
                archive.pending.push(text);
            }
        }
        if turn < 4 {
            archive.resolve_open_turn().await;
        }
    }
    assert_eq!(archive.open_turn, 4);
    archive
}

async fn expect(app: &TestApp, path: &str, status: StatusCode, content_type: &str) -> String {
    let response = app.get(path).await;
    assert_eq!(response.status(), status, "{path}");
    let header = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    assert_eq!(header, content_type, "{path}");
    response.text().await.unwrap()
}

const HTML: &str = "text/html; charset=utf-8";

/// Markup's text with the character references askama, the SVG writer and the Atom writer
/// use turned back into characters.
pub fn unescape(markup: &str) -> String {
    let mut text = markup.to_owned();
    for (entity, c) in [
        ("&#60;", "<"),
        ("&lt;", "<"),
        ("&#62;", ">"),
        ("&gt;", ">"),
        ("&#34;", "\""),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&apos;", "'"),
        ("&#38;", "&"),
        ("&amp;", "&"),
    ] {
        text = text.replace(entity, c);
    }
    text
}

#[tokio::test]
async fn every_public_route_answers_with_its_content_type() {
    let archive = game_in_progress().await;
    let app = &archive.app;
    let zine = expect(app, "/zines/gazette", StatusCode::OK, HTML).await;
    assert!(zine.contains(&format!("href=\"{}\"", archive.game_path())));
    assert!(zine.contains("Barmy Battleships"), "the engine's title");
    assert!(
        zine.contains("turn 4, orders due 1805-10-25 11:45 UTC"),
        "{zine}"
    );
    assert!(zine.contains("href=\"/static/admiralty.css\""));
    let game = expect(app, &archive.game_path(), StatusCode::OK, HTML).await;
    for n in 1..=3 {
        assert!(game.contains(&format!("href=\"{}\"", archive.turn_path(n))));
    }
    let turn = expect(app, &archive.turn_path(2), StatusCode::OK, HTML).await;
    assert!(turn.contains("<th scope=\"col\">Own Status</th>"));
    assert!(turn.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let text = expect(
        app,
        &format!("{}.txt", archive.turn_path(2)),
        StatusCode::OK,
        "text/plain; charset=utf-8",
    )
    .await;
    let stored: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id \
         WHERE t.game_id = $1 AND t.number = 2",
    )
    .bind(archive.game)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        text, stored,
        "the plain text is the published report, byte for byte"
    );
    assert!(text.contains("Name") && text.contains("Own Status"));
    let svg = expect(
        app,
        &format!("{}/board.svg", archive.turn_path(1)),
        StatusCode::OK,
        "image/svg+xml",
    )
    .await;
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    // Turn 1's aimed shots hit: four hit marks.
    assert_eq!(svg.matches("class=\"hit\"").count(), 4, "{svg}");
    assert!(!svg.contains("class=\"ship\""));
    let atom = "application/atom+xml; charset=utf-8";
    expect(app, "/zines/gazette/feed.atom", StatusCode::OK, atom).await;
    expect(
        app,
        &format!("{}/feed.atom", archive.game_path()),
        StatusCode::OK,
        atom,
    )
    .await;
    let css = expect(
        app,
        "/static/admiralty.css",
        StatusCode::OK,
        "text/css; charset=utf-8",
    )
    .await;
    assert!(css.contains("table"));
    archive.app.stop().await;
}

#[tokio::test]
async fn unknown_and_garbage_ids_are_not_found() {
    let archive = game_in_progress().await;
    let app = &archive.app;
    let other = zines::insert(
        &app.db.pool,
        &ZineSlug::parse("other").unwrap(),
        "Other",
        trafalgar(),
    )
    .await
    .unwrap();
    assert_eq!(app.get("/zines/other").await.status(), StatusCode::OK);
    let game = archive.game;
    let id = game.to_string();
    let garbage_ids = [
        "0",
        "999999",
        "-1",
        "+1",
        "1e3",
        "abc",
        "%00",
        "99999999999999999999999",
    ];
    let mut paths = vec![
        "/zines/nope".to_owned(),
        "/zines/NOPE/feed.atom".to_owned(),
        "/zines/..%2Fetc".to_owned(),
        "/zines/gazette/games".to_owned(),
        // A game of another zine is not found under it.
        format!("/zines/{}/games/{id}", other.slug),
        format!("/zines/{}/games/{id}/turns/1", other.slug),
        // The open turn has no report yet; nor has any later one.
        archive.turn_path(4),
        format!("{}.txt", archive.turn_path(4)),
        format!("{}/board.svg", archive.turn_path(4)),
        archive.turn_path(0),
        archive.turn_path(99),
        format!("{}/turns/1.txt.txt", archive.game_path()),
        format!("{}/turns/.txt", archive.game_path()),
        format!("{}/turns/x.txt", archive.game_path()),
        format!("{}/turns/-1", archive.game_path()),
        format!("{}/turns/1/board.png", archive.game_path()),
        // A running game has no public record of orders.
        format!("{}/history", archive.game_path()),
    ];
    for bad in garbage_ids {
        paths.push(format!("/zines/gazette/games/{bad}"));
        paths.push(format!("/zines/gazette/games/{bad}/feed.atom"));
        paths.push(format!("/zines/gazette/games/{bad}/turns/1"));
        paths.push(format!("{}/turns/{bad}", archive.game_path()));
        paths.push(format!("{}/turns/{bad}.txt", archive.game_path()));
        paths.push(format!("{}/turns/{bad}/board.svg", archive.game_path()));
    }
    let not_found = app.get("/no/such/page").await.text().await.unwrap();
    assert!(not_found.contains("Page not found"), "{not_found}");
    for path in &paths {
        let response = app.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body = response.text().await.unwrap();
        assert_eq!(body, not_found, "{path}: an error says nothing more");
    }
    archive.app.stop().await;
}

/// Every page a reader can reach for this game.
fn public_paths(archive: &GameInProgress, published: u32) -> Vec<String> {
    let mut paths = vec![
        "/zines/gazette".to_owned(),
        "/zines/gazette/feed.atom".to_owned(),
        archive.game_path(),
        format!("{}/feed.atom", archive.game_path()),
    ];
    for n in 1..=published {
        paths.push(archive.turn_path(n));
        paths.push(format!("{}.txt", archive.turn_path(n)));
        paths.push(format!("{}/board.svg", archive.turn_path(n)));
    }
    paths
}

#[tokio::test]
async fn hostile_names_and_press_are_escaped_everywhere() {
    let archive = game_in_progress().await;
    let app = &archive.app;
    let mut html_seen = 0;
    for path in public_paths(&archive, 3) {
        let response = app.get(&path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let plain = path.ends_with(".txt");
        let body = response.text().await.unwrap();
        if plain {
            // Plain text is not markup: it carries the press as written.
            continue;
        }
        for raw in ["<script", "<b>", "<i>"] {
            assert!(!body.contains(raw), "{path} holds {raw:?} unescaped");
        }
        if path.ends_with(".svg") {
            continue;
        }
        html_seen += 1;
        let text = unescape(&body);
        assert!(
            text.contains(HOSTILE_ZINE) || text.contains(HOSTILE_GAME),
            "{path}: the hostile names are shown, escaped"
        );
    }
    assert_eq!(html_seen, 7);
    let turn = app.get(&archive.turn_path(1)).await.text().await.unwrap();
    let text = unescape(&turn);
    assert!(text.contains(HOSTILE_PRESS), "{turn}");
    assert!(text.contains(HOSTILE_NAME), "{turn}");
    archive.app.stop().await;
}

#[tokio::test]
async fn turn_pages_link_their_neighbours_and_reveal_only_revealed_seeds() {
    let mut archive = game_in_progress().await;
    let first = archive
        .app
        .get(&archive.turn_path(1))
        .await
        .text()
        .await
        .unwrap();
    assert!(first.contains("first turn"));
    assert!(first.contains(&format!("rel=\"next\" href=\"{}\"", archive.turn_path(2))));
    let last = archive
        .app
        .get(&archive.turn_path(3))
        .await
        .text()
        .await
        .unwrap();
    assert!(last.contains(&format!("rel=\"prev\" href=\"{}\"", archive.turn_path(2))));
    assert!(last.contains("latest turn"));
    for n in 1..=3 {
        let page = archive
            .app
            .get(&archive.turn_path(n))
            .await
            .text()
            .await
            .unwrap();
        let open = archive.secret.turn_seed(n);
        let sealed = archive.secret.sealed_seed(n);
        assert!(
            page.contains(&open.to_hex()),
            "turn {n}'s open seed is revealed"
        );
        assert!(page.contains(&open.commitment()));
        assert!(page.contains(&sealed.commitment()));
        assert!(
            !page.contains(&sealed.to_hex()),
            "turn {n}'s sealed seed stays sealed"
        );
        assert!(page.contains("sealed until the game is over"));
    }
    let game = archive
        .app
        .get(&archive.game_path())
        .await
        .text()
        .await
        .unwrap();
    assert!(game.contains(&archive.secret.turn_seed(4).commitment()));
    assert!(game.contains(&archive.secret.sealed_seed(4).commitment()));
    assert!(!game.contains(&archive.secret.turn_seed(4).to_hex()));

    // Turn 4 is published: turn 3's page links to it once its cached copy has expired.
    archive.resolve_open_turn().await;
    let last = archive
        .app
        .get(&archive.turn_path(3))
        .await
        .text()
        .await
        .unwrap();
    assert!(last.contains(&format!("rel=\"next\" href=\"{}\"", archive.turn_path(4))));
    let fourth = archive
        .app
        .get(&archive.turn_path(4))
        .await
        .text()
        .await
        .unwrap();
    assert!(fourth.contains(&archive.secret.turn_seed(4).to_hex()));
    assert!(
        fourth.contains("Pending press 1 of the open turn"),
        "published with its turn"
    );
    archive.app.stop().await;
}

#[tokio::test]
async fn pages_carry_an_etag_and_answer_304_to_a_reader_who_has_them() {
    let archive = game_in_progress().await;
    let path = archive.turn_path(2);
    let first = archive.app.get(&path).await;
    let etag = first
        .headers()
        .get("etag")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        first
            .headers()
            .get("cache-control")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("public")
    );
    let body = first.text().await.unwrap();
    let again = archive
        .app
        .http
        .get(archive.app.url(&path))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    // Rendered again after the cache expired: the same bytes, the same validator.
    archive.app.clock.advance(Duration::minutes(5));
    let later = archive.app.get(&path).await;
    assert_eq!(later.headers().get("etag").unwrap().to_str().unwrap(), etag);
    assert_eq!(later.text().await.unwrap(), body);
    let stale = archive
        .app
        .http
        .get(archive.app.url(&path))
        .header("if-none-match", "\"something else\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::OK);
    archive.app.stop().await;
}

#[tokio::test]
async fn a_finished_game_shows_every_order_and_every_seed() {
    let archive = game_in_progress().await;
    let played: Vec<(i32, String)> = sqlx::query_as(
        "SELECT t.number, o.raw_text FROM orders o JOIN turns t ON t.id = o.turn_id \
         WHERE t.game_id = $1 AND o.superseded_at IS NULL AND t.number <= 3 ORDER BY t.number",
    )
    .bind(archive.game)
    .fetch_all(&archive.app.db.pool)
    .await
    .unwrap();
    assert_eq!(played.len(), 12);
    turns::gm_action(
        &archive.app.db.pool,
        archive.next_deadline - Duration::hours(2),
        archive.game,
        GmAction::End,
        "gm",
        MAIL_DOMAIN,
    )
    .await
    .unwrap();
    archive.app.clock.advance(Duration::minutes(1));
    let game = archive
        .app
        .get(&archive.game_path())
        .await
        .text()
        .await
        .unwrap();
    let history_path = format!("{}/history", archive.game_path());
    assert!(game.contains(&format!("href=\"{history_path}\"")));
    let history = archive.app.get(&history_path).await;
    assert_eq!(history.status(), StatusCode::OK);
    let history = history.text().await.unwrap();
    assert!(!history.contains("<script"));
    let record = unescape(&history);
    for (_, text) in &played {
        assert!(record.contains(text.as_str()), "{text} is in the record");
    }
    for n in 1..=3u32 {
        let sealed: TurnSeed = archive.secret.sealed_seed(n);
        assert!(history.contains(&sealed.to_hex()), "turn {n}'s sealed seed");
        assert!(history.contains(&archive.secret.turn_seed(n).to_hex()));
        let page = archive
            .app
            .get(&archive.turn_path(n))
            .await
            .text()
            .await
            .unwrap();
        assert!(page.contains(&sealed.to_hex()));
    }
    // The abandoned turn's orders were never carried out: they are not part of the record.
    for pending in &archive.pending {
        assert!(!record.contains(pending.as_str()));
    }
    archive.app.stop().await;
}

#[tokio::test]
async fn every_engine_draws_its_public_board() {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let zine = zines::insert(
        &pool,
        &ZineSlug::parse("fleet").unwrap(),
        "Fleet",
        trafalgar(),
    )
    .await
    .unwrap();
    for (address, name) in [("a@example.org", "Alice"), ("b@example.org", "Bob")] {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).unwrap(),
            // `stored`: these names stand for ones stored before markup was refused at entry.
            display_name: DisplayName::stored(name).unwrap(),
        };
        subscribers::insert(&pool, &new, trafalgar()).await.unwrap();
    }
    let deadline = trafalgar() + Duration::days(1);
    for (index, engine) in EngineKind::ALL.into_iter().enumerate() {
        let setup = engine.default_setup();
        let name = format!("{engine} game");
        let spec = GameSpec {
            zine: zine.id,
            name: &name,
            setup: &setup,
            first_deadline: Some(deadline),
            schedule: Schedule::EveryDays(1),
        };
        let game = turns::create_game(&pool, trafalgar(), &spec, &mut Counter(index as u8))
            .await
            .unwrap();
        let resolved = turns::resolve_due(&pool, deadline, MAIL_DOMAIN)
            .await
            .unwrap();
        assert_eq!(resolved.len(), 1, "{engine}");
        let number = resolved[0].turn;
        let turn = format!("/zines/fleet/games/{}/turns/{number}", game);
        let svg = expect(
            &app,
            &format!("{turn}/board.svg"),
            StatusCode::OK,
            "image/svg+xml",
        )
        .await;
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{engine}"
        );
        assert!(svg.len() > 300, "{engine}: {svg}");
        let page = expect(&app, &turn, StatusCode::OK, HTML).await;
        assert!(page.contains("<figure class=\"board\">"), "{engine}");
        // The public board never draws a ship nobody has seen.
        assert!(!svg.contains("class=\"ship\""), "{engine}");
        // Every board says what its marks mean (issue 20, fault 12); a map, its scale.
        assert!(svg.contains("<g class=\"legend\""), "{engine}: {svg}");
        assert!(svg.contains("<g class=\"key\""), "{engine}: {svg}");
        if matches!(engine, EngineKind::Skyfleet | EngineKind::Forever) {
            assert!(svg.contains("<g class=\"scale\">"), "{engine}: {svg}");
        }
        // Pictures of the map engines carry units; grids carry their labels.
        match engine {
            EngineKind::Skyfleet | EngineKind::Forever => {
                assert!(
                    svg.contains("class=\"unit\"") || svg.contains("class=\"zone\""),
                    "{engine}: {svg}"
                )
            }
            _ => assert!(svg.contains("<text"), "{engine}"),
        }
    }
    app.stop().await;
}

/// Askama's HTML escaping, to find a text as the page prints it.
fn escaped(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// Issue 19, the rulebook: a game's public page lists the GM's switches its setup chose, each
/// with its rule ID, in words; a switched setup reads as switched.
#[tokio::test]
async fn a_games_page_lists_the_switches_its_setup_chose() {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let zine = zines::insert(
        &pool,
        &ZineSlug::parse("rules").unwrap(),
        "Rules",
        trafalgar(),
    )
    .await
    .unwrap();
    for (address, name) in [("a@example.org", "Alice"), ("b@example.org", "Bob")] {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).unwrap(),
            // `stored`: these names stand for ones stored before markup was refused at entry.
            display_name: DisplayName::stored(name).unwrap(),
        };
        subscribers::insert(&pool, &new, trafalgar()).await.unwrap();
    }
    let mut switched = EngineKind::Skyfleet.default_setup().to_json().unwrap();
    switched["shot_over_island"] = serde_json::json!("near_miss");
    let mut setups: Vec<(EngineKind, games::AnySetup)> = EngineKind::ALL
        .into_iter()
        .map(|engine| (engine, engine.default_setup()))
        .collect();
    setups.push((
        EngineKind::Skyfleet,
        EngineKind::Skyfleet.parse_setup(&switched).unwrap(),
    ));
    let mut texts = Vec::new();
    for (index, (engine, setup)) in setups.iter().enumerate() {
        let name = format!("{engine} game {index}");
        let spec = GameSpec {
            zine: zine.id,
            name: &name,
            setup,
            first_deadline: Some(trafalgar() + Duration::days(1)),
            schedule: Schedule::EveryDays(1),
        };
        let game = turns::create_game(&pool, trafalgar(), &spec, &mut Counter(index as u8))
            .await
            .unwrap();
        let page = expect(
            &app,
            &format!("/zines/rules/games/{}", game),
            StatusCode::OK,
            HTML,
        )
        .await;
        let rulings = setup.rulings();
        assert!(!rulings.is_empty(), "{engine} has switches");
        for ruling in &rulings {
            assert!(
                page.contains(&escaped(&ruling.rule)),
                "{engine}: {}",
                ruling.rule
            );
            assert!(
                page.contains(&escaped(&ruling.text)),
                "{engine}: {}",
                ruling.text
            );
        }
        assert_eq!(
            page.contains("House rules"),
            !rulings.is_empty(),
            "{engine}"
        );
        if *engine == EngineKind::Skyfleet {
            texts.push(rulings);
        }
    }
    // The switched setup reads differently from the default one, on the shot over an island.
    assert_eq!(texts.len(), 2);
    assert_ne!(
        texts[0], texts[1],
        "the switch changed nothing the page says"
    );
    app.stop().await;
}
