//! Every action once (issue 27): each POST route of the router, sent its real form twice.
//! For each route a case builds the state its form acts on, opens the page that shows the
//! form, sends it once (it must succeed), takes a snapshot of every table of the database,
//! sends the very same form again, and checks that the answer says "Already done" and that
//! the database is byte for byte what it was: no turn, no mail, no audit entry.
//!
//! The POST routes are read from the router's source (`crates/server/src/routes/`), so a
//! route added without a case here fails `every_post_route_has_a_replay_case`. How to add a
//! case: tests/README.md ("Every action once: the replay test").

use reqwest::StatusCode;
use serde_json::Value;
use sqlx::PgPool;

use crate::console::{Browser, PASSWORD, add_gm, populate};
use crate::forms::{Form, form_to, form_with_id};
use crate::helpers::TestApp;

/// The router's files and the prefix their routes are nested under.
const ROUTER_FILES: [(&str, &str); 3] = [
    ("crates/server/src/routes/mod.rs", ""),
    ("crates/server/src/routes/gm/mod.rs", "/gm"),
    ("crates/server/src/routes/player/mod.rs", ""),
];

/// POST routes that take no form, and what "once" means for them instead (docs/web.md).
const NOT_FORMS: [(&str, &str); 2] = [
    (
        "/inbound/mail",
        "the webhook: a message is stored once per Message-ID and body (tests/it/mail_doors.rs)",
    ),
    (
        "/unsubscribe/{token}",
        "RFC 8058's one-click POST: its body is List-Unsubscribe=One-Click and nothing else (no \
         key); sent again it finds the subscriber gone and changes nothing (tests/it/mailout.rs)",
    ),
];

/// Every POST route of the router, as written in its source (`{param}` included).
fn post_routes() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut routes = Vec::new();
    for (file, prefix) in ROUTER_FILES {
        let source = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
        let mut rest = source.as_str();
        while let Some(at) = rest.find(".route(") {
            rest = &rest[at + ".route(".len()..];
            let call = call_text(rest);
            let path = call.split('"').nth(1).unwrap_or_default();
            if call.contains("post(") {
                routes.push(format!("{prefix}{path}"));
            }
        }
    }
    routes.sort();
    routes
}

/// The text of a call's arguments, up to its closing parenthesis.
fn call_text(after_open: &str) -> &str {
    let mut depth = 1;
    for (i, c) in after_open.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &after_open[..i];
                }
            }
            _ => {}
        }
    }
    after_open
}

/// Every table's rows, ordered, as JSON: the whole database.
async fn snapshot(pool: &PgPool) -> Value {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
         AND table_name <> '_sqlx_migrations' ORDER BY table_name",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut all = serde_json::Map::new();
    for table in tables {
        // The table names come from the catalogue, not from input.
        let rows: Value = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY to_jsonb(t)::text), '[]') FROM \"{table}\" t"
        )))
        .fetch_one(pool)
        .await
        .unwrap();
        all.insert(table, rows);
    }
    Value::Object(all)
}

/// Who sends a case's form.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Who {
    Gm,
    Player,
    Visitor,
}

/// One route's case: the page that shows the form, which form, and what a person types.
struct Case {
    route: &'static str,
    who: Who,
    page: String,
    form: Pick,
    fill: Vec<(String, String)>,
}

enum Pick {
    Id(&'static str),
    Action(String),
    /// The page's first form whose action ends so.
    Ending(&'static str),
    /// The page's first form whose action contains this.
    Containing(&'static str),
}

struct World {
    app: TestApp,
    gm: Browser,
    player: Browser,
    visitor: Browser,
    game: i64,
}

impl World {
    fn browser(&mut self, who: Who) -> &mut Browser {
        match who {
            Who::Gm => &mut self.gm,
            Who::Player => &mut self.player,
            Who::Visitor => &mut self.visitor,
        }
    }

    async fn id(&self, sql: &str) -> i64 {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_one(&self.app.db.pool)
            .await
            .unwrap()
    }
}

/// Sends a case's form twice and checks the second sending changed nothing.
async fn replay(world: &mut World, case: Case) {
    let route = case.route;
    let page = world.browser(case.who).get_text(&case.page).await;
    let mut form: Form = match &case.form {
        Pick::Id(id) => form_with_id(&page, id),
        Pick::Action(action) => form_to(&page, action),
        Pick::Ending(end) => crate::forms::forms(&page)
            .into_iter()
            .find(|f| f.action.ends_with(end))
            .unwrap_or_else(|| panic!("{route}: no form to …{end} in {page}")),
        Pick::Containing(part) => crate::forms::forms(&page)
            .into_iter()
            .find(|f| f.action.contains(part))
            .unwrap_or_else(|| panic!("{route}: no form to …{part}… in {page}")),
    };
    assert!(
        form.get("once").is_some() || form.action.contains("once="),
        "{route}: the form carries no key"
    );
    for (name, value) in &case.fill {
        form.set(name, value);
    }
    let first = send(world.browser(case.who), &form).await;
    let status = first.status();
    let said = first.text().await.unwrap();
    assert!(
        status.is_success() || status.is_redirection(),
        "{route}: the first sending failed ({status}): {said}"
    );
    let before = snapshot(&world.app.db.pool).await;
    let again = send(world.browser(case.who), &form).await;
    assert_eq!(
        again.status(),
        StatusCode::OK,
        "{route}: the replay's status"
    );
    let said = again.text().await.unwrap();
    assert!(
        said.contains("Already done"),
        "{route}: the replay said {said}"
    );
    let after = snapshot(&world.app.db.pool).await;
    assert!(before == after, "{route}: the replay changed the database");
}

async fn send(browser: &mut Browser, form: &Form) -> reqwest::Response {
    assert_eq!(form.method, "post", "{} is not a POST form", form.action);
    if form.multipart {
        browser.post_multipart(&form.action, &form.pairs()).await
    } else {
        browser.post(&form.action, &form.pairs()).await
    }
}

fn case(route: &'static str, who: Who, page: String, form: Pick) -> Case {
    Case {
        route,
        who,
        page,
        form,
        fill: Vec::new(),
    }
}

impl Case {
    fn fill(mut self, name: impl Into<String>, value: impl Into<String>) -> Case {
        self.fill.push((name.into(), value.into()));
        self
    }
}

async fn world() -> World {
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(&app);
    gm.login("nelson", PASSWORD).await;
    let player = crate::players::logged_in(&app, "villeneuve@example.org").await;
    let visitor = Browser::new(&app);
    World {
        app,
        gm,
        player,
        visitor,
        game,
    }
}

/// The cases of the GM's console, in an order in which each finds what it acts on.
async fn gm_cases(world: &World) -> Vec<Case> {
    let game = world.game;
    let subscriber = world
        .id("SELECT id FROM subscribers WHERE email = 'gravina@example.org'")
        .await;
    let inbound = world.id("SELECT id FROM inbound_messages LIMIT 1").await;
    let gravina_row = world
        .id(&format!(
            "SELECT id FROM players WHERE game_id = {game} AND subscriber_id = {subscriber}"
        ))
        .await;
    let zine = "/gm/zines/demo";
    vec![
        case(
            "/gm/zines",
            Who::Gm,
            "/gm/zines".into(),
            Pick::Action("/gm/zines".into()),
        )
        .fill("name", "The Second Gazette")
        .fill("slug", "second"),
        case(
            "/gm/zines/{slug}/subscribers",
            Who::Gm,
            zine.into(),
            Pick::Action(format!("{zine}/subscribers")),
        )
        .fill("name", "Thomas Hardy")
        .fill("email", "hardy@example.org"),
        case(
            "/gm/zines/{slug}/subscribers/import",
            Who::Gm,
            zine.into(),
            Pick::Id("import"),
        )
        .fill("text", "blackwood@example.org,Henry Blackwood"),
        case(
            "/gm/subscribers/{id}",
            Who::Gm,
            format!("/gm/subscribers/{subscriber}"),
            Pick::Action(format!("/gm/subscribers/{subscriber}")),
        )
        .fill("name", "Federico C. Gravina"),
        case(
            "/gm/subscribers/{id}/postal",
            Who::Gm,
            format!("/gm/subscribers/{subscriber}"),
            Pick::Id("postal-form"),
        )
        .fill("postal", "on"),
        case(
            "/gm/games/{id}/schedule",
            Who::Gm,
            format!("/gm/games/{game}"),
            Pick::Action(format!("/gm/games/{game}/schedule")),
        ),
        case(
            "/gm/games/{id}/absence",
            Who::Gm,
            format!("/gm/games/{game}"),
            Pick::Action(format!("/gm/games/{game}/absence")),
        ),
        case(
            "/gm/games/{id}/post-orders",
            Who::Gm,
            format!("/gm/games/{game}"),
            Pick::Id("post-orders"),
        )
        .fill("player", gravina_row.to_string())
        .fill("orders", "B2"),
        case(
            "/gm/inbox/{id}/retry",
            Who::Gm,
            "/gm/inbox".into(),
            Pick::Action(format!("/gm/inbox/{inbound}/retry")),
        ),
        case(
            "/gm/outbox/{id}/resend",
            Who::Gm,
            "/gm/outbox?status=failed".into(),
            Pick::Ending("/resend"),
        ),
        case(
            "/gm/games/{id}/actions/{action}",
            Who::Gm,
            format!("/gm/games/{game}/confirm/resolve-now"),
            Pick::Id("confirm-form"),
        ),
    ]
}

/// The address a GET form (a "…" button that leads to a confirmation page) goes to, filled
/// in as a person would: the confirmation page carries what the form chose.
async fn asked(
    world: &mut World,
    page: &str,
    pick: &dyn Fn(&Form) -> bool,
    fill: &[(&str, String)],
) -> String {
    let text = world.gm.get_text(page).await;
    let mut form = crate::forms::forms(&text)
        .into_iter()
        .find(|f| f.method == "get" && pick(f))
        .unwrap_or_else(|| panic!("no such GET form in {page}:\n{text}"));
    for (name, value) in fill {
        form.set(name, value);
    }
    let query = serde_urlencoded::to_string(form.pairs()).unwrap();
    format!("{}?{query}", form.action)
}

/// The roster's routes, on games this test makes through the new-game form (the demo's game
/// is Barmy's, whose seats are never handed over): each case is made once the one before it
/// has made what it acts on.
async fn roster_cases(world: &mut World, covered: &mut Vec<&'static str>) {
    let mut run = async |world: &mut World, case: Case| {
        covered.push(case.route);
        replay(world, case).await;
    };
    let sub = async |world: &World, email: &str| {
        world
            .id(&format!(
                "SELECT id FROM subscribers WHERE email = '{email}'"
            ))
            .await
    };
    let villeneuve = sub(world, "villeneuve@example.org").await;
    let gravina = sub(world, "gravina@example.org").await;
    let collingwood = sub(world, "collingwood@example.org").await;
    let nelson = sub(world, "nelson@example.org").await;
    run(
        world,
        case(
            "/gm/zines/{slug}/games/new",
            Who::Gm,
            "/gm/zines/demo/games/new?engine=skyfleet".into(),
            Pick::Id("new-game-form"),
        )
        .fill("name", "The Channel duel")
        .fill(format!("roster.{nelson}"), "")
        .fill(format!("roster.{villeneuve}"), "")
        .fill(format!("roster.{gravina}"), "0")
        .fill(format!("roster.{collingwood}"), "1"),
    )
    .await;
    let duel = world.id("SELECT max(id) FROM games").await;
    let desk = format!("/gm/games/{duel}");
    run(
        world,
        case(
            "/gm/games/{id}/missed",
            Who::Gm,
            desk.clone(),
            Pick::Id("missed-form"),
        )
        .fill("missed_limit", "2"),
    )
    .await;
    let row = async |world: &World, subscriber: i64| {
        world
            .id(&format!(
                "SELECT id FROM players WHERE game_id = {duel} AND subscriber_id = {subscriber} AND status = 'active'"
            ))
            .await
    };
    let gravina_seat = row(world, gravina).await;
    let collingwood_seat = row(world, collingwood).await;
    // The GM offers Gravina's seat to Villeneuve, who takes it on his page.
    let offer_page = asked(
        world,
        &desk,
        &|f| f.id == "offer-any-form",
        &[
            ("player", gravina_seat.to_string()),
            ("subscriber", villeneuve.to_string()),
        ],
    )
    .await;
    run(
        world,
        case(
            "/gm/games/{id}/offer",
            Who::Gm,
            offer_page,
            Pick::Id("confirm-form"),
        ),
    )
    .await;
    run(
        world,
        case(
            "/me/offers/{offer}",
            Who::Player,
            "/me".into(),
            Pick::Containing("/me/offers/"),
        )
        .fill("answer", "accept"),
    )
    .await;
    // An offer of Collingwood's seat to Nelson, withdrawn.
    let offer_page = asked(
        world,
        &desk,
        &|f| f.id == "offer-any-form",
        &[
            ("player", collingwood_seat.to_string()),
            ("subscriber", nelson.to_string()),
        ],
    )
    .await;
    world.gm.confirm(&offer_page).await;
    let withdraw_page = asked(
        world,
        &desk,
        &|f| f.action.ends_with("/confirm/withdraw"),
        &[],
    )
    .await;
    run(
        world,
        case(
            "/gm/games/{id}/offers/{offer}/withdraw",
            Who::Gm,
            withdraw_page,
            Pick::Id("confirm-form"),
        ),
    )
    .await;
    // Gravina, free again, takes Collingwood's seat over.
    let engine_seat = world
        .id(&format!(
            "SELECT engine_player_id FROM players WHERE id = {collingwood_seat}"
        ))
        .await;
    let replace_page = asked(
        world,
        &desk,
        &|f| f.id == "replace",
        &[
            ("player", engine_seat.to_string()),
            ("subscriber", gravina.to_string()),
        ],
    )
    .await;
    run(
        world,
        case(
            "/gm/games/{id}/replace",
            Who::Gm,
            replace_page,
            Pick::Id("confirm-form"),
        ),
    )
    .await;
    run(
        world,
        case(
            "/gm/games/{id}/delete",
            Who::Gm,
            format!("{desk}/confirm/delete"),
            Pick::Id("confirm-form"),
        ),
    )
    .await;
    // A game opened for sign-up: Villeneuve signs up on his page, the GM starts it.
    run(
        world,
        case(
            "/gm/zines/{slug}/games/new",
            Who::Gm,
            "/gm/zines/demo/games/new?engine=salvo".into(),
            Pick::Id("new-game-form"),
        )
        .fill("name", "Spring salvo")
        .fill("start", "signup")
        .fill("signup_seats", "3"),
    )
    .await;
    // A second player, by mail's door, so the game may start (a salvo needs two).
    let zine = world.id("SELECT id FROM zines WHERE slug = 'demo'").await;
    server::rosters::signups::join(
        &world.app.db.pool,
        crate::helpers::trafalgar(),
        crate::helpers::id(zine),
        crate::helpers::id(gravina),
        "Spring salvo",
        server::letters::MailSite {
            domain: "example.org",
            base_url: "https://admiralty.example.org",
        },
    )
    .await
    .unwrap();
    run(
        world,
        case(
            "/me/signups/{opening}",
            Who::Player,
            "/me".into(),
            Pick::Containing("/me/signups/"),
        ),
    )
    .await;
    let opening = world.id("SELECT max(id) FROM openings").await;
    run(
        world,
        case(
            "/gm/signups/{id}/start",
            Who::Gm,
            format!("/gm/signups/{opening}"),
            Pick::Id("start-form"),
        ),
    )
    .await;
}

/// The players' pages, the logins and the logouts (last: they end the sessions).
async fn other_cases(world: &World) -> Vec<Case> {
    let game = world.game;
    vec![
        case(
            "/me/games/{game}/press",
            Who::Player,
            format!("/me/games/{game}"),
            Pick::Id("press-form"),
        )
        .fill("press", "The fleet sails at dawn."),
        case(
            "/me/standby",
            Who::Player,
            "/me".into(),
            Pick::Action("/me/standby".into()),
        ),
        case(
            "/me/games/{game}/orders",
            Who::Player,
            format!("/me/games/{game}"),
            Pick::Id("orders-form"),
        )
        .fill("orders", "A1"),
        case(
            "/me/games/{game}/press",
            Who::Player,
            format!("/me/games/{game}"),
            Pick::Id("press-form"),
        )
        .fill("press", "A second word from the Bucentaure."),
    ]
}

/// After the GM has struck a press entry: a new press, withdrawn, and the rest.
async fn later_cases(world: &World) -> Vec<Case> {
    let game = world.game;
    let hardy = world
        .id("SELECT id FROM subscribers WHERE email = 'hardy@example.org'")
        .await;
    vec![
        case(
            "/me/games/{game}/press",
            Who::Player,
            format!("/me/games/{game}"),
            Pick::Id("press-form"),
        )
        .fill("press", "A third word, after the GM's pen."),
        case(
            "/me/games/{game}/press/withdraw",
            Who::Player,
            format!("/me/games/{game}"),
            Pick::Id("press-withdraw-form"),
        ),
        case(
            "/me/absences",
            Who::Player,
            "/me".into(),
            Pick::Id("absence-form"),
        )
        .fill("first_day", "2026-12-24")
        .fill("last_day", "2026-12-31"),
        case(
            "/me/zine/mail",
            Who::Player,
            "/me/zine".into(),
            Pick::Id("mail-choice"),
        )
        .fill("receive", "issue"),
        case(
            "/me/zine/letter",
            Who::Player,
            "/me/zine".into(),
            Pick::Id("letter-form"),
        )
        .fill("letter", "Sir, the Channel fleet is slow to answer."),
        case(
            "/gm/zines/{slug}/letters/{letter}",
            Who::Gm,
            "/gm/zines/demo/issues".into(),
            Pick::Containing("/letters/"),
        ),
        case(
            "/gm/zines/{slug}/issues/first",
            Who::Gm,
            "/gm/zines/demo/issues".into(),
            Pick::Id("first-issue"),
        )
        .fill("gathers", "since_issues_began"),
        case(
            "/gm/games/{id}/sheets-posted",
            Who::Gm,
            format!("/gm/games/{game}/print-postal"),
            Pick::Id("sheets-posted"),
        ),
        case(
            "/gm/settings",
            Who::Gm,
            "/gm/settings".into(),
            Pick::Id("digest-form"),
        )
        .fill("email", "nelson@example.org"),
        case(
            "/gm/zines/{slug}/issues/rhythm",
            Who::Gm,
            "/gm/zines/demo/issues".into(),
            Pick::Id("issue-rhythm"),
        )
        .fill("rhythm", "manual"),
        case(
            "/gm/zines/{slug}/issues/editorial",
            Who::Gm,
            "/gm/zines/demo/issues".into(),
            Pick::Id("issue-editorial"),
        )
        .fill("editorial", "The first issue of the season."),
        case(
            "/gm/zines/{slug}/issues/publish",
            Who::Gm,
            "/gm/zines/demo/issues/publish?issue=1".into(),
            Pick::Id("confirm-form"),
        ),
        case(
            "/me/games/{game}/resign",
            Who::Player,
            format!("/me/games/{game}/resign"),
            Pick::Id("resign-form"),
        ),
        case(
            "/gm/games/{id}/players/{player}/reinstate",
            Who::Gm,
            format!("/gm/games/{game}"),
            Pick::Containing("/reinstate"),
        ),
        case(
            "/gm/subscribers/{id}/status",
            Who::Gm,
            format!("/gm/subscribers/{hardy}/unsubscribe"),
            Pick::Id("confirm-form"),
        ),
        case(
            "/gm/login",
            Who::Visitor,
            "/gm/login".into(),
            Pick::Action("/gm/login".into()),
        )
        .fill("name", "nelson")
        .fill("password", PASSWORD),
        case(
            "/login",
            Who::Visitor,
            "/login".into(),
            Pick::Id("login-form"),
        )
        .fill("email", "gravina@example.org"),
    ]
}

/// The logins and the logouts, last: they end the sessions. The link's case is made once
/// `/login` has mailed the link.
fn end_cases() -> Vec<Case> {
    vec![
        case(
            "/gm/logout",
            Who::Gm,
            "/gm".into(),
            Pick::Action("/gm/logout".into()),
        ),
        case(
            "/logout",
            Who::Player,
            "/me".into(),
            Pick::Action("/logout".into()),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_form_sent_twice_acts_once() {
    let mut world = world().await;
    let mut covered: Vec<&str> = Vec::new();
    roster_cases(&mut world, &mut covered).await;
    for case in gm_cases(&world).await {
        covered.push(case.route);
        replay(&mut world, case).await;
    }
    for case in other_cases(&world).await {
        covered.push(case.route);
        replay(&mut world, case).await;
    }
    // The GM strikes a press entry of the open turn, found by its link on the game's page.
    let desk = world
        .gm
        .get_text(&format!("/gm/games/{}", world.game))
        .await;
    let strike = desk
        .split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .find(|href| href.ends_with("/strike"))
        .unwrap_or_else(|| panic!("no press to strike on {desk}"))
        .to_owned();
    let struck = case(
        "/gm/games/{id}/press/{press}/strike",
        Who::Gm,
        strike,
        Pick::Id("strike-form"),
    )
    .fill("reason", "It names a real person.");
    covered.push(struck.route);
    replay(&mut world, struck).await;
    for case in later_cases(&world).await {
        covered.push(case.route);
        replay(&mut world, case).await;
    }
    // Mail to two addresses bounced until delivery was suspended (issue 29): the GM resumes one
    // from the subscriber's page, the player the other from their own.
    for email in ["gravina@example.org", "villeneuve@example.org"] {
        sqlx::query(
            "INSERT INTO bounce_scores (mailbox, score_hundredths, last_scored_at, \
             last_bounce_at, last_reason, reports, suspended_at, suspended_reason) \
             VALUES ($1, 500, now(), now(), '5.1.1', 5, now(), 'five bounces')",
        )
        .bind(email)
        .execute(&world.app.db.pool)
        .await
        .unwrap();
    }
    let gravina = world
        .id("SELECT id FROM subscribers WHERE email = 'gravina@example.org'")
        .await;
    for case in [
        case(
            "/gm/subscribers/{id}/resume",
            Who::Gm,
            format!("/gm/subscribers/{gravina}"),
            Pick::Id("resume-form"),
        ),
        case(
            "/me/resume",
            Who::Player,
            "/me".into(),
            Pick::Id("resume-form"),
        ),
    ] {
        covered.push(case.route);
        replay(&mut world, case).await;
    }
    let mailed = crate::players::login_mails(&world.app.db.pool, "gravina@example.org").await;
    let link = crate::players::link_path(mailed.first().expect("a login mail"));
    let mut last = vec![case(
        "/login/{token}",
        Who::Visitor,
        link,
        Pick::Id("link-form"),
    )];
    // The visitor, now logged in as Gravina, erases their data: the second sending finds the
    // key already used, though the session the first one ended is gone.
    last.push(
        case(
            "/me/erase",
            Who::Visitor,
            "/me/erase".into(),
            Pick::Id("erase-form"),
        )
        .fill("address", "gravina@example.org"),
    );
    last.extend(end_cases());
    for case in last {
        covered.push(case.route);
        replay(&mut world, case).await;
    }
    let routes = post_routes();
    let missing: Vec<&String> = routes
        .iter()
        .filter(|r| !covered.contains(&r.as_str()) && !NOT_FORMS.iter().any(|(n, _)| n == r))
        .collect();
    assert!(
        missing.is_empty(),
        "POST routes without a replay case: {missing:#?}"
    );
    world.app.stop().await;
}

#[test]
fn every_post_route_has_a_replay_case() {
    let routes = post_routes();
    assert!(routes.len() > 30, "{routes:#?}");
    assert!(routes.contains(&"/gm/games/{id}/actions/{action}".to_owned()));
    assert!(routes.contains(&"/me/games/{game}/press".to_owned()));
}

/// Back, then a reload, gives the press form a fresh once key: the same text from the same
/// player for the same turn is still that press again. It is answered "already sent" and
/// nothing is stored; a different text is a new entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_press_sent_from_a_reloaded_page_is_stored_once() {
    let mut world = world().await;
    let game = world.game;
    let pool = world.app.db.pool.clone();
    let entries = "SELECT count(*) FROM press";
    let page = format!("/me/games/{game}");
    let words = "The fleet sails at dawn.";
    let send_from_fresh_page = async |world: &mut World, text: &str| {
        let mut form = form_with_id(&world.player.get_text(&page).await, "press-form");
        form.set("press", text);
        let response = send(&mut world.player, &form).await;
        (response.status(), response.text().await.unwrap())
    };
    let seeded = world.id(entries).await;
    let (status, said) = send_from_fresh_page(&mut world, words).await;
    assert!(
        status.is_success() || status.is_redirection(),
        "{status}: {said}"
    );
    assert_eq!(world.id(entries).await, seeded + 1);
    let before = snapshot(&pool).await;
    // A fresh page, so a fresh key; the text as typed again, with its spaces.
    let (status, said) = send_from_fresh_page(&mut world, &format!("  {words}\n")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{said}");
    assert!(said.contains("already sent"), "{said}");
    assert!(
        snapshot(&pool).await == before,
        "the same press again changed the database"
    );
    let (status, said) = send_from_fresh_page(&mut world, "And returns at dusk.").await;
    assert!(
        status.is_success() || status.is_redirection(),
        "{status}: {said}"
    );
    assert_eq!(
        world.id(entries).await,
        seeded + 2,
        "another text is another entry"
    );
    world.app.stop().await;
}
