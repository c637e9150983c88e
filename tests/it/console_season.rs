#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! Issue 20: running a season from the GM console. Each test names the fault it proves fixed:
//! the schedule form shows what is saved, the GM sets the open turn's deadline, times are shown
//! in the game's zone, irreversible actions ask first, and the GM's mail views and hidden view.

use reqwest::StatusCode;
use serde_json::Value;
use server::Clock;
use store::PgPool;

use crate::console::{Browser, PASSWORD, add_gm, populate};
use crate::helpers::TestApp;

pub(crate) async fn gm_logged_in(app: &TestApp) -> Browser {
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(app);
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    gm
}

/// The value of attribute `name` in one HTML tag's text.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = start + tag[start..].find('"')?;
    Some(tag[start..end].replace("&#58;", ":").replace("&#47;", "/"))
}

/// What a browser would send for the form with `id` on `page`: each named input's value
/// (checkboxes only when checked), each select's selected option.
pub(crate) fn form_fields(page: &str, id: &str) -> Vec<(String, String)> {
    let start = page
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no form {id}"));
    let form = &page[start..start + page[start..].find("</form>").unwrap()];
    let mut fields = Vec::new();
    for piece in form.split("<input").skip(1) {
        let tag = &piece[..piece.find('>').unwrap()];
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        if attribute(tag, "type").as_deref() == Some("checkbox") {
            if tag.contains(" checked") {
                fields.push((name, "on".to_owned()));
            }
            continue;
        }
        fields.push((name, attribute(tag, "value").unwrap_or_default()));
    }
    for piece in form.split("<select").skip(1) {
        let tag = &piece[..piece.find('>').unwrap()];
        let name = attribute(tag, "name").unwrap();
        let body = &piece[..piece.find("</select>").unwrap()];
        let selected = body
            .split("<option")
            .skip(1)
            .find(|option| option[..option.find('>').unwrap()].contains(" selected"))
            .or_else(|| body.split("<option").nth(1))
            .and_then(|option| attribute(option, "value"))
            .unwrap_or_default();
        fields.push((name, selected));
    }
    fields
}

async fn schedule(pool: &PgPool, game: i64) -> Value {
    sqlx::query_scalar("SELECT schedule FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn open_deadline(pool: &PgPool, game: i64) -> Option<chrono::DateTime<chrono::Utc>> {
    sqlx::query_scalar("SELECT deadline FROM turns WHERE game_id = $1 AND status = 'open'")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

fn borrowed(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// Fault 1: a weekly schedule with reminders and grace survives a reload, and a second save
/// that only ticks "early resolution" keeps all of it.
#[tokio::test]
async fn season_fault1_the_schedule_form_shows_what_is_saved_and_a_second_save_keeps_it() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let mut gm = gm_logged_in(&app).await;
    let response = gm
        .submit(
            &format!("/gm/games/{game}/schedule"),
            &[
                ("schedule", "weekly"),
                ("weekday", "Friday"),
                ("time", "18:00"),
                ("zone", "Europe/London"),
                ("reminders", "48h, 6h"),
                ("grace", "2h"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let saved = schedule(pool, game).await;

    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    let mut fields = form_fields(&page, "schedule-form");
    let value = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(value("schedule"), "weekly", "{fields:?}");
    assert_eq!(value("weekday"), "Friday");
    assert_eq!(value("time"), "18:00");
    assert_eq!(value("zone"), "Europe/London");
    assert_eq!(value("reminders"), "2d, 6h");
    assert_eq!(value("grace"), "2h");
    assert_eq!(value("early"), "");

    // Only early resolution is ticked: everything else is sent as the page shows it.
    fields.retain(|(k, _)| k != "csrf");
    fields.push(("early".into(), "on".into()));
    let response = gm
        .submit(&format!("/gm/games/{game}/schedule"), &borrowed(&fields))
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let again = schedule(pool, game).await;
    assert_eq!(again["kind"], "weekly");
    assert_eq!(again["weekday"], "Friday");
    assert_eq!(again["time"], "18:00");
    assert_eq!(again["zone"], "Europe/London");
    assert_eq!(again["reminder_minutes"], serde_json::json!([2880, 360]));
    assert_eq!(again["grace_minutes"], 120);
    assert_eq!(again["early_resolution"], true);
    let mut expected = saved.clone();
    expected["early_resolution"] = true.into();
    assert_eq!(again, expected);
    app.stop().await;
}

/// Fault 3: a manual game's open turn gets a deadline typed as a date and time in the game's
/// zone; a move earlier works too; the past is refused; switching to weekly moves the open
/// turn's deadline to the rule's next slot, and saving only the reminders does not move it.
#[tokio::test]
async fn season_fault3_the_gm_sets_and_moves_the_open_turns_deadline() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let mut gm = gm_logged_in(&app).await;
    // Manual, in New York: in 1805 a zone with an offset of its own (local mean time).
    gm.submit(
        &format!("/gm/games/{game}/schedule"),
        &[("schedule", "manual"), ("zone", "America/New_York")],
    )
    .await;
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("id=\"set-deadline\""), "a deadline form");
    let response = gm
        .submit(
            &format!("/gm/games/{game}/actions/deadline"),
            &[("deadline", "1805-10-30T18:00")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let set = open_deadline(pool, game).await.unwrap();
    // New York's local mean time in 1805 was UTC-4:56:02.
    assert_eq!(set.to_rfc3339(), "1805-10-30T22:56:02+00:00");
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(
        page.contains("value=\"1805-10-30T18:00\""),
        "the form shows the deadline in the zone"
    );
    assert!(page.contains("1805-10-30 18:00 LMT (22:56 UTC)"), "{page}");

    // Earlier is fine while it is in the future; the past is refused and changes nothing.
    gm.submit(
        &format!("/gm/games/{game}/actions/deadline"),
        &[("deadline", "1805-10-22T09:00")],
    )
    .await;
    let earlier = open_deadline(pool, game).await.unwrap();
    assert!(earlier < set);
    for bad in ["1805-10-20T09:00", "next friday", ""] {
        let response = gm
            .submit(
                &format!("/gm/games/{game}/actions/deadline"),
                &[("deadline", bad)],
            )
            .await;
        assert!(
            response.status() == StatusCode::UNPROCESSABLE_ENTITY,
            "{bad}: {}",
            response.status()
        );
        assert_eq!(open_deadline(pool, game).await, Some(earlier), "{bad}");
    }
    let audited: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'game.set_deadline'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(audited, 2);

    // Weekly Friday 18:00 London: the open turn is due the coming Friday (1805-10-21 was a
    // Monday), 18:00 GMT.
    gm.submit(
        &format!("/gm/games/{game}/schedule"),
        &[
            ("schedule", "weekly"),
            ("weekday", "Friday"),
            ("time", "18:00"),
            ("zone", "Europe/London"),
        ],
    )
    .await;
    let weekly = open_deadline(pool, game).await.unwrap();
    assert_eq!(weekly.to_rfc3339(), "1805-10-25T18:01:15+00:00");
    // Only the reminders change: the deadline stays.
    gm.submit(
        &format!("/gm/games/{game}/schedule"),
        &[
            ("schedule", "weekly"),
            ("weekday", "Friday"),
            ("time", "18:00"),
            ("zone", "Europe/London"),
            ("reminders", "6h"),
        ],
    )
    .await;
    assert_eq!(open_deadline(pool, game).await, Some(weekly));
    app.stop().await;
}

fn at(text: &str) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&chrono::Utc)
}

/// Fault 2: a game scheduled in Europe/London shows its deadline in London time (summer time
/// here) with UTC beside it, to the GM, the public pages, the player's page, and in the mail:
/// the confirmation, the reminder and the report.
#[tokio::test]
async fn season_fault2_deadlines_are_shown_in_the_games_time_zone_everywhere() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    app.clock.set(at("2026-06-01T00:00:00Z"));
    let mut gm = gm_logged_in(&app).await;
    gm.submit(
        &format!("/gm/games/{game}/schedule"),
        &[
            ("schedule", "weekly"),
            ("weekday", "Friday"),
            ("time", "18:00"),
            ("zone", "Europe/London"),
            ("reminders", "48h"),
        ],
    )
    .await;
    assert_eq!(
        open_deadline(pool, game).await,
        Some(at("2026-06-05T17:00:00Z"))
    );
    let shown = "2026-06-05 18:00 BST (17:00 UTC)";
    let mailed = "Friday 5 June 2026, 18:00 BST (17:00 UTC)";
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains(&format!("deadline {shown}")), "GM game page");
    assert!(gm.get_text("/gm").await.contains(shown), "GM home");
    let public = app.get("/zines/demo").await.text().await.unwrap();
    assert!(public.contains(shown), "public zine page: {public}");
    let public = app
        .get(&format!("/zines/demo/games/{game}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(public.contains(shown), "public game page");
    let mut player = crate::players::logged_in(&app, "nelson@example.org").await;
    let me = player.get_text("/me").await;
    assert!(me.contains(mailed), "player page: {me}");

    // A new game's first deadline is typed in the zone chosen with it.
    let made = gm
        .submit(
            "/gm/zines/demo/games/new",
            &[
                ("engine", "barmy"),
                ("name", "Zoned"),
                ("zone", "Europe/London"),
                ("deadline", "2026-06-12T18:00"),
                ("schedule", "manual"),
                ("setup.width", "10"),
                ("setup.height", "10"),
            ],
        )
        .await;
    assert_eq!(made.status(), StatusCode::SEE_OTHER);
    let zoned: i64 = sqlx::query_scalar("SELECT id FROM games WHERE name = 'Zoned'")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(
        open_deadline(pool, zoned).await,
        Some(at("2026-06-12T17:00:00Z"))
    );
    assert_eq!(schedule(pool, zoned).await["zone"], "Europe/London");
    let bad = gm
        .submit(
            "/gm/zines/demo/games/new",
            &[
                ("engine", "barmy"),
                ("name", "Nowhere"),
                ("zone", "Mars/Olympus"),
                ("schedule", "manual"),
                ("setup.width", "10"),
                ("setup.height", "10"),
            ],
        )
        .await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);

    // The confirmation of a mail.
    let token: String = sqlx::query_scalar(
        "SELECT p.reply_token FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND s.email = 'nelson@example.org'",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    let to = server::letters::reply_address(&token, crate::inbox::DOMAIN);
    let raw = crate::inbox::message("zone-1", &to, "", "PRESS Steady.\r\n");
    server::inbox::ingest(pool, &raw, "pipe", app.clock.now(), crate::inbox::DOMAIN)
        .await
        .unwrap();
    let confirmation: String = sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE idempotency_key NOT LIKE 'login:%' \
         ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(confirmation.contains(mailed), "{confirmation}");

    // The reminder, 48 hours before.
    app.clock.set(at("2026-06-03T17:30:00Z"));
    server::turns::reminders::send_due_reminders(
        pool,
        app.clock.now(),
        server::letters::MailSite {
            domain: crate::inbox::DOMAIN,
            base_url: "https://zine.example.org",
        },
    )
    .await
    .unwrap();
    let reminders: Vec<String> = sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE idempotency_key LIKE 'reminder:%'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(!reminders.is_empty());
    assert!(
        reminders.iter().all(|r| r.contains(mailed)),
        "{reminders:?}"
    );

    // The report names the next turn's deadline, a week on.
    app.clock.set(at("2026-06-05T17:00:01Z"));
    server::turns::gm::gm_action(
        pool,
        app.clock.now(),
        crate::helpers::id::<store::games::GameId>(game),
        server::turns::GmAction::ResolveNow,
        "gm:nelson",
        crate::inbox::DOMAIN,
    )
    .await
    .unwrap();
    let report: String =
        sqlx::query_scalar("SELECT body_text FROM outbound_bodies ORDER BY id DESC LIMIT 1")
            .fetch_one(pool)
            .await
            .unwrap();
    assert!(
        report.contains("orders are due Friday 12 June 2026, 18:00 BST (17:00 UTC)."),
        "{report}"
    );
    app.stop().await;
}

async fn count(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
        .fetch_one(pool)
        .await
        .unwrap()
}

fn location(response: &reqwest::Response) -> String {
    response.headers()[reqwest::header::LOCATION]
        .to_str()
        .unwrap()
        .to_owned()
}

/// Fault 4: Resolve now, End game and Unsubscribe do nothing from one click: the form without
/// the confirmation page's `confirm=yes` leads to that page, which says what will happen; a
/// game made by mistake is deleted from its own confirmation page, and a game with a published
/// turn cannot be.
#[tokio::test]
async fn season_fault4_irreversible_actions_ask_first_and_a_mistaken_game_can_be_deleted() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let mut gm = gm_logged_in(&app).await;
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(!page.contains(&format!("action=\"/gm/games/{game}/actions/resolve-now\"")));
    assert!(page.contains(&format!(
        "href=\"/gm/games/{game}/confirm/resolve-now?turn="
    )));

    // Resolve now: one click only asks.
    let reports = "SELECT count(*) FROM published_reports";
    let before = count(pool, reports).await;
    let response = gm
        .submit(&format!("/gm/games/{game}/actions/resolve-now"), &[])
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        location(&response),
        format!("/gm/games/{game}/confirm/resolve-now")
    );
    assert_eq!(count(pool, reports).await, before, "nothing was resolved");
    let confirm = gm.get_text(&location(&response)).await;
    assert!(
        confirm.contains("is resolved now, before its deadline"),
        "{confirm}"
    );
    assert!(
        confirm.contains("mailed to every active subscriber (4)"),
        "{confirm}"
    );
    // Once the zine publishes issues, its subscribers who chose nothing read the report there,
    // and the confirmation says so instead of promising them a mail.
    let slug: String = sqlx::query_scalar(
        "SELECT z.slug FROM zines z JOIN games g ON g.zine_id = z.id WHERE g.id = $1",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    let zine = server::issues::find_zine(pool, &slug).await.unwrap();
    server::issues::set_rhythm(
        pool,
        crate::helpers::trafalgar(),
        &zine,
        Some(server::turns::Schedule::Manual),
        "nelson",
    )
    .await
    .unwrap();
    let with_issues = gm.get_text(&location(&response)).await;
    assert!(
        with_issues.contains("mailed to the 0 subscriber(s) who take each game")
            && with_issues.contains("the other 4 read it in the zine"),
        "{with_issues}"
    );
    server::issues::set_rhythm(pool, crate::helpers::trafalgar(), &zine, None, "nelson")
        .await
        .unwrap();
    assert!(confirm.contains("name=\"confirm\" value=\"yes\""));
    let mut fields = form_fields(&confirm, "confirm-form");
    fields.retain(|(k, _)| k != "csrf");
    let response = gm
        .submit(
            &format!("/gm/games/{game}/actions/resolve-now"),
            &borrowed(&fields),
        )
        .await;
    assert_eq!(
        location(&response),
        format!("/gm/games/{game}?done=resolve-now")
    );
    assert_eq!(count(pool, reports).await, before + 1);

    // A game with a published turn cannot be deleted, even with the confirmation.
    let response = gm.get(&format!("/gm/games/{game}/confirm/delete")).await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert!(response.text().await.unwrap().contains("cannot be deleted"));
    let response = gm
        .submit(&format!("/gm/games/{game}/delete"), &[("confirm", "yes")])
        .await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert_eq!(
        gm.get(&format!("/gm/games/{game}")).await.status(),
        StatusCode::OK
    );

    // End: one click only asks.
    let response = gm
        .submit(&format!("/gm/games/{game}/actions/end"), &[])
        .await;
    assert_eq!(location(&response), format!("/gm/games/{game}/confirm/end"));
    let status = format!("SELECT count(*) FROM games WHERE id = {game} AND status = 'running'");
    assert_eq!(count(pool, &status).await, 1, "the game still runs");
    let confirm = gm.get_text(&location(&response)).await;
    assert!(confirm.contains("is abandoned"), "{confirm}");
    assert!(confirm.contains("Every sealed seed is revealed"));

    // Unsubscribe: one click only asks, and the page names the games they leave.
    let response = gm
        .submit("/gm/subscribers/1/status", &[("status", "unsubscribed")])
        .await;
    assert_eq!(location(&response), "/gm/subscribers/1/unsubscribe");
    let active = "SELECT count(*) FROM subscribers WHERE id = 1 AND status = 'active'";
    assert_eq!(count(pool, active).await, 1, "still subscribed");
    let zine_page = gm.get_text("/gm/zines/demo").await;
    assert!(zine_page.contains("href=\"/gm/subscribers/1/unsubscribe\""));
    let confirm = gm.get_text("/gm/subscribers/1/unsubscribe").await;
    let game_name: String = sqlx::query_scalar("SELECT name FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(
        confirm.contains(&format!(
            "They resign from every game they play, and their fleet leaves at its next \
             resolution: {}",
            crate::console::html(&game_name)
        )),
        "{confirm}"
    );
    let mut fields = form_fields(&confirm, "confirm-form");
    fields.retain(|(k, _)| k != "csrf");
    gm.submit("/gm/subscribers/1/status", &borrowed(&fields))
        .await;
    assert_eq!(count(pool, active).await, 0, "unsubscribed once confirmed");

    // A game made by mistake: deleted before its first turn is published.
    let made = gm
        .submit(
            "/gm/zines/demo/games/new",
            &[
                ("engine", "barmy"),
                ("name", "Mistake"),
                ("schedule", "manual"),
                ("setup.width", "10"),
                ("setup.height", "10"),
            ],
        )
        .await;
    assert_eq!(made.status(), StatusCode::SEE_OTHER);
    let mistake: i64 = count(pool, "SELECT id FROM games WHERE name = 'Mistake'").await;
    let page = gm.get_text(&format!("/gm/games/{mistake}")).await;
    assert!(page.contains(&format!("href=\"/gm/games/{mistake}/confirm/delete\"")));
    let response = gm.submit(&format!("/gm/games/{mistake}/delete"), &[]).await;
    assert_eq!(
        location(&response),
        format!("/gm/games/{mistake}/confirm/delete")
    );
    assert_eq!(
        gm.get(&format!("/gm/games/{mistake}")).await.status(),
        StatusCode::OK
    );
    let confirm = gm.get_text(&location(&response)).await;
    assert!(confirm.contains("is deleted, as if it had never been made"));
    let mut fields = form_fields(&confirm, "confirm-form");
    fields.retain(|(k, _)| k != "csrf");
    let response = gm
        .submit(&format!("/gm/games/{mistake}/delete"), &borrowed(&fields))
        .await;
    assert_eq!(location(&response), "/gm/zines/demo?done=game-deleted");
    assert_eq!(
        gm.get(&format!("/gm/games/{mistake}")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get(&format!("/zines/demo/games/{mistake}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert!(!gm.get_text("/gm").await.contains("Mistake"));
    let players = format!("SELECT count(*) FROM players WHERE game_id = {mistake}");
    assert_eq!(count(pool, &players).await, 0);
    let audited = format!(
        "SELECT count(*) FROM audit_log WHERE game_id = {mistake} AND action = 'game.delete' AND actor = 'gm:nelson'"
    );
    assert_eq!(count(pool, &audited).await, 1);
    // Its name is free again.
    let again = gm
        .submit(
            "/gm/zines/demo/games/new",
            &[
                ("engine", "barmy"),
                ("name", "Mistake"),
                ("schedule", "manual"),
                ("setup.width", "10"),
                ("setup.height", "10"),
            ],
        )
        .await;
    assert_eq!(again.status(), StatusCode::SEE_OTHER);
    app.stop().await;
}

async fn press_of(pool: &PgPool, email: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT x.text FROM press x JOIN players p ON p.id = x.player_id \
         JOIN subscribers s ON s.id = p.subscriber_id WHERE s.email = $1 ORDER BY x.id",
    )
    .bind(email)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// Mails `body` to `game`'s player `engine_id` (by their reply address), arriving at `at`;
/// returns the confirmation.
async fn mail_in(
    pool: &PgPool,
    game: store::games::GameId,
    engine_id: i64,
    id: &str,
    body: &str,
    at: chrono::DateTime<chrono::Utc>,
) -> String {
    let to = crate::inbox::reply_address_of(pool, game, engine_id).await;
    let raw = crate::inbox::message(id, &to, "", body);
    server::inbox::ingest(pool, &raw, "pipe", at, crate::inbox::DOMAIN)
        .await
        .unwrap();
    sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE idempotency_key NOT LIKE 'login:%' \
         ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Fault 5: press is withdrawn (PRESS WITHDRAW) or replaced (WITHDRAW then PRESS) by mail,
/// new orders drop the press sent before them unless it is sent again, and on the web the
/// player sees their pending press, withdraws it or replaces it; not after the deadline, and
/// never another player's.
#[tokio::test]
async fn season_fault5_press_is_withdrawn_or_replaced_and_new_orders_drop_earlier_press() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = crate::inbox::game(pool).await;
    let fred = "fred@example.org";
    let john = "john@example.org";
    let t = |minutes: i64| crate::helpers::trafalgar() + chrono::Duration::minutes(minutes);
    mail_in(pool, game, 2, "j1", "PRESS John stands by.\r\n", t(1)).await;
    mail_in(
        pool,
        game,
        1,
        "f1",
        "G13, K19\r\nPRESS First words.\r\n",
        t(2),
    )
    .await;
    mail_in(pool, game, 1, "f2", "PRESS Second words.\r\n", t(3)).await;
    assert_eq!(
        press_of(pool, fred).await,
        ["First words.", "Second words."]
    );

    // PRESS WITHDRAW with new press: the new press replaces the old.
    let reply = mail_in(
        pool,
        game,
        1,
        "f3",
        "PRESS WITHDRAW\r\nPRESS Replacement.\r\n",
        t(4),
    )
    .await;
    assert!(
        reply.contains("Line 1: your earlier press for this turn of Mailed Barmy (2 entries) is withdrawn and will not be printed."),
        "{reply}"
    );
    assert_eq!(press_of(pool, fred).await, ["Replacement."]);

    // New orders replace everything before them, press included.
    let reply = mail_in(pool, game, 1, "f4", "A1, B2\r\n", t(5)).await;
    assert!(
        reply.contains("These orders replace everything you sent before for this turn of Mailed Barmy: your earlier press (1 entry) is withdrawn"),
        "{reply}"
    );
    assert!(press_of(pool, fred).await.is_empty());
    // Orders with press of their own keep it.
    mail_in(pool, game, 1, "f5", "C3, D4\r\nPRESS Kept.\r\n", t(6)).await;
    assert_eq!(press_of(pool, fred).await, ["Kept."]);
    let reply = mail_in(pool, game, 1, "f6", "press withdraw\r\n", t(7)).await;
    assert!(reply.contains("(1 entry) is withdrawn"), "{reply}");
    assert!(press_of(pool, fred).await.is_empty());
    assert_eq!(
        press_of(pool, john).await,
        ["John stands by."],
        "John's stays"
    );

    // On the web: the pending press is shown, withdrawn, replaced.
    app.clock.set(t(10));
    let mut player = crate::players::logged_in(&app, fred).await;
    let page_path = format!("/me/games/{}", game);
    let page = player.get_text(&page_path).await;
    assert!(page.contains("id=\"no-press\""), "{page}");
    let csrf = crate::console::hidden_csrf(&page);
    let response = player
        .post(
            &format!("{page_path}/press"),
            &[("csrf", &csrf), ("press", "Web press.")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let page = player.get_text(&page_path).await;
    assert!(page.contains("id=\"press-sent\""));
    assert!(page.contains("Web press."));
    assert!(page.contains("id=\"press-withdraw-form\""));
    let response = player
        .post(&format!("{page_path}/press/withdraw"), &[("csrf", &csrf)])
        .await;
    assert_eq!(
        location(&response),
        format!("{page_path}?done=press-withdrawn")
    );
    assert!(press_of(pool, fred).await.is_empty());
    let page = player.get_text(&location(&response)).await;
    assert!(page.contains("Your press for this turn is withdrawn"));
    for text in ["One.", "Two."] {
        player
            .post(
                &format!("{page_path}/press"),
                &[("csrf", &csrf), ("press", text)],
            )
            .await;
    }
    player
        .post(
            &format!("{page_path}/press"),
            &[("csrf", &csrf), ("press", "Three."), ("replace", "on")],
        )
        .await;
    assert_eq!(press_of(pool, fred).await, ["Three."]);
    // Web orders drop it too, and say so.
    let response = player
        .post(
            &format!("{page_path}/orders"),
            &[("csrf", &csrf), ("orders", "E5, F6")],
        )
        .await;
    assert_eq!(
        location(&response),
        format!("{page_path}?done=orders-press-withdrawn")
    );
    assert!(press_of(pool, fred).await.is_empty());
    player
        .post(
            &format!("{page_path}/press"),
            &[("csrf", &csrf), ("press", "Late words.")],
        )
        .await;

    // After the deadline nothing is withdrawn, by mail or on the web.
    app.clock.set(t(3 * 24 * 60));
    let mut player = crate::players::logged_in(&app, fred).await;
    let csrf = crate::console::hidden_csrf(&player.get_text(&page_path).await);
    let response = player
        .post(&format!("{page_path}/press/withdraw"), &[("csrf", &csrf)])
        .await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    let reply = mail_in(pool, game, 1, "f7", "PRESS WITHDRAW\r\n", t(3 * 24 * 60)).await;
    assert!(reply.contains("press not withdrawn"), "{reply}");
    assert_eq!(press_of(pool, fred).await, ["Late words."]);
    assert_eq!(press_of(pool, john).await, ["John stands by."]);
    app.stop().await;
}

/// Fault 10: the GM's inbox names each message's sender and subject; the outbox pages and says
/// when no relay sends anything; the audit log shows details in full, filters by game, actor
/// and action, and names games with links; the game page links its public page and the GM's
/// view of every hidden position, which only a GM can open.
#[tokio::test]
async fn season_fault10_mail_views_audit_filters_and_the_gms_hidden_view() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let now = crate::helpers::trafalgar();
    let raw: &[u8] = b"From: Fred Bloggs <fred@example.org>\r\nTo: orders@zine.example.org\r\n\
Subject: My orders for turn 1\r\nMessage-ID: <fred-1@example.org>\r\n\r\nFIRE B7\r\n";
    let stored = store::inbox::store_raw(
        pool,
        &store::inbox::NewInbound {
            message_id: "<fred-1@example.org>",
            body_sha256: &server::inbox::body_sha256(raw),
            raw,
            envelope_recipients: &[],
            received_at: now,
            over_tls: None,
        },
        "pipe",
    )
    .await
    .unwrap();
    let (store::inbox::Stored::New(id) | store::inbox::Stored::Duplicate(id)) = stored;
    store::inbox::finish_many(
        pool,
        &[store::inbox::Outcome::failed(id, "boom".into())],
        now,
    )
    .await
    .unwrap();
    for i in 0..60 {
        let key = format!("page:{i}");
        let to = format!("p{i}@example.org");
        let id = format!("<page{i}@localhost>");
        let new = store::outbox::NewOutbound {
            message_id: &id,
            idempotency_key: &key,
            to_address: &to,
            subject: "Paging",
            body_text: "text",
            body_html: None,
            headers: &store::outbox::Headers::default(),
        };
        store::outbox::enqueue(pool, &new, now).await.unwrap();
    }
    let mut gm = gm_logged_in(&app).await;

    let inbox = gm.get_text("/gm/inbox?status=failed").await;
    assert!(
        inbox.contains("<td class=\"from\">Fred Bloggs &#60;fred@example.org&#62;</td>"),
        "{inbox}"
    );
    assert!(inbox.contains("<td class=\"subject\">My orders for turn 1"));

    let outbox = gm.get_text("/gm/outbox").await;
    assert!(outbox.contains("id=\"no-relay\""), "says nothing is sent");
    assert!(outbox.contains("No mail is being sent"));
    assert!(outbox.contains("p59@example.org"));
    assert!(
        !outbox.contains("p5@example.org<"),
        "page one holds the newest 50"
    );
    let start = outbox.find("id=\"older\"").expect("an Older link");
    let href_start = outbox[..start].rfind("href=\"").unwrap() + 6;
    let href = outbox[href_start..]
        .split('"')
        .next()
        .unwrap()
        .replace("&#38;", "&")
        .replace("&amp;", "&");
    let older = gm.get_text(&href).await;
    assert!(older.contains("p5@example.org<"), "{href}");
    assert!(!older.contains("p59@example.org"));

    // The audit log: filters, names and links, details in full.
    gm.submit(
        &format!("/gm/games/{game}/schedule"),
        &[
            ("schedule", "weekly"),
            ("weekday", "Friday"),
            ("time", "18:00"),
            ("zone", "Europe/London"),
            ("reminders", "48h, 6h"),
        ],
    )
    .await;
    let name: String = sqlx::query_scalar("SELECT name FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    let audit = gm.get_text("/gm/audit?action=game.schedule").await;
    assert!(audit.contains("<td>game.schedule</td>"));
    assert!(!audit.contains("<td>gm.login</td>"), "filtered by action");
    assert!(audit.contains(&format!(
        "<a href=\"/gm/games/{game}\">{}</a>",
        crate::console::html(&name)
    )));
    assert!(audit.contains("<pre class=\"details\">"));
    assert!(audit.contains("weekly Friday 18:00 Europe/London; reminders 2d, 6h before"));
    let by_actor = gm.get_text("/gm/audit?actor=gm%3Anelson").await;
    assert!(by_actor.contains("<td>gm.login</td>"));
    assert!(!by_actor.contains("<td>demo.seed</td>"));
    let prefix = gm.get_text("/gm/audit?action=gm.").await;
    assert!(prefix.contains("<td>gm.login</td>"));
    assert!(!prefix.contains("<td>game.schedule</td>"));
    let by_game = gm.get_text(&format!("/gm/audit?game={game}")).await;
    assert!(by_game.contains("<td>game.schedule</td>"));
    assert!(!by_game.contains("<td>gm.login</td>"));
    assert_eq!(
        gm.get("/gm/audit?game=abc").await.status(),
        StatusCode::BAD_REQUEST
    );

    // The game page links its public page and the hidden view.
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains(&format!("href=\"/zines/demo/games/{game}\"")));
    assert!(page.contains(&format!("href=\"/gm/games/{game}/positions\"")));

    // Every hidden position: shown to the GM, hidden from readers, players and strangers.
    let state = server::turns::game_state(pool, crate::helpers::id::<store::games::GameId>(game))
        .await
        .unwrap();
    let public_lines = state.view(engine::Viewer::Public).lines;
    let hidden: Vec<String> = state
        .view(engine::Viewer::Gm)
        .lines
        .into_iter()
        .filter(|line| !line.trim().is_empty() && !public_lines.contains(line))
        .collect();
    assert!(!hidden.is_empty(), "the GM sees more than the public");
    let positions_path = format!("/gm/games/{game}/positions");
    let positions = gm.get_text(&positions_path).await;
    for line in &hidden {
        assert!(positions.contains(&crate::console::html(line)), "{line}");
    }
    let public = app
        .get(&format!("/zines/demo/games/{game}"))
        .await
        .text()
        .await
        .unwrap();
    let mut player = crate::players::logged_in(&app, "nelson@example.org").await;
    let own = player.get_text(&format!("/me/games/{game}")).await;
    for line in &hidden {
        assert!(
            !public.contains(&crate::console::html(line)),
            "public: {line}"
        );
    }
    assert!(
        hidden
            .iter()
            .any(|line| !own.contains(&crate::console::html(line))),
        "a player sees only their own"
    );
    let refused = player.get(&positions_path).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let stranger = app.get(&positions_path).await;
    assert!(!stranger.url().path().ends_with("/positions") || !stranger.status().is_success());
    let mut anonymous = Browser::new(&app);
    let response = anonymous.get(&positions_path).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert!(location(&response).starts_with("/gm/login"));
    app.stop().await;
}

/// A zine with `subscribers` (address, name) and a Barmy game they all play.
async fn zine_with_game(
    pool: &PgPool,
    slug: &str,
    title: &str,
    game: &str,
    subscribers: &[(&str, &str)],
    seed: u8,
) -> store::games::GameId {
    let now = crate::helpers::trafalgar();
    let zine = store::zines::insert(pool, &store::ZineSlug::parse(slug).unwrap(), title, now)
        .await
        .unwrap();
    for (email, name) in subscribers {
        let new = store::subscribers::NewSubscriber {
            zine_id: zine.id,
            email: store::EmailAddress::parse(email).unwrap(),
            display_name: store::DisplayName::parse(name).unwrap(),
        };
        store::subscribers::insert(pool, &new, now).await.unwrap();
    }
    let setup = games::EngineKind::Barmy.default_setup();
    let spec = server::turns::GameSpec {
        zine: zine.id,
        name: game,
        setup: &setup,
        first_deadline: Some(now + chrono::Duration::days(1)),
        schedule: server::turns::Schedule::EveryDays(1),
    };
    server::turns::create_game(pool, now, &spec, &mut crate::helpers::Counter(seed))
        .await
        .unwrap()
}

/// Fault 6: one login shows all of a person's games, in every zine they subscribe to with the
/// address, each with its zine named, and plays them; never a game they do not play, nor what
/// another player alone may see; a subscription they left is not among them.
#[tokio::test]
async fn season_fault6_one_login_shows_a_persons_games_in_every_zine() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let nelson = "nelson@victory.example";
    let hardy = "hardy@courier.example";
    let trafalgar = zine_with_game(
        pool,
        "gazette",
        "The Gazette",
        "Trafalgar",
        &[
            (nelson, "Horatio Nelson"),
            ("villeneuve@b.example", "Villeneuve"),
        ],
        3,
    )
    .await;
    let copenhagen = zine_with_game(
        pool,
        "courier",
        "The Courier",
        "Copenhagen",
        &[(hardy, "Thomas Hardy"), (nelson, "Lord Nelson")],
        5,
    )
    .await;
    let nile = zine_with_game(
        pool,
        "herald",
        "The Herald",
        "The Nile",
        &[(hardy, "Thomas Hardy"), ("brueys@o.example", "Brueys")],
        7,
    )
    .await;

    let mut player = crate::players::logged_in(&app, nelson).await;
    let me = player.get_text("/me").await;
    for (zine, game) in [("The Gazette", trafalgar), ("The Courier", copenhagen)] {
        assert!(
            me.contains(&format!(
                "<td class=\"zine\" data-label=\"Zine\">{zine}</td>"
            )),
            "{zine}: {me}"
        );
        assert!(me.contains(&format!("href=\"/me/games/{}\"", game)));
    }
    assert!(!me.contains("The Herald"));
    let courier_page = player.get_text(&format!("/me/games/{}", copenhagen)).await;
    assert!(courier_page.contains("<dd id=\"zine\">The Courier</dd>"));
    assert!(courier_page.contains("Lord Nelson"));
    // Hardy's own facts are his alone.
    let state = server::turns::game_state(pool, copenhagen).await.unwrap();
    let hardy_id: i64 = sqlx::query_scalar(
        "SELECT p.engine_player_id FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND s.email = $2",
    )
    .bind(copenhagen)
    .bind(hardy)
    .fetch_one(pool)
    .await
    .unwrap();
    let public = state.view(engine::Viewer::Public).lines;
    let hardys: Vec<String> = state
        .view(engine::Viewer::Player(engine::PlayerId(
            u64::try_from(hardy_id).unwrap(),
        )))
        .lines
        .into_iter()
        .filter(|line| !line.trim().is_empty() && !public.contains(line))
        .collect();
    assert!(!hardys.is_empty());
    for line in &hardys {
        assert!(
            !courier_page.contains(&crate::console::html(line)),
            "Hardy's {line}"
        );
    }
    // He plays there: orders go to his Courier subscription's player.
    let csrf = crate::console::hidden_csrf(&courier_page);
    let response = player
        .post(
            &format!("/me/games/{}/orders", copenhagen),
            &[("csrf", &csrf), ("orders", "A1, B2")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let ordered_by: String = sqlx::query_scalar(
        "SELECT p.display_name FROM orders o JOIN players p ON p.id = o.player_id \
         WHERE o.game_id = $1 AND o.superseded_at IS NULL",
    )
    .bind(copenhagen)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(ordered_by, "Lord Nelson");
    // A game he does not play is not his, in any zine.
    assert_eq!(
        player.get(&format!("/me/games/{}", nile)).await.status(),
        StatusCode::NOT_FOUND
    );

    // A subscription he left is no longer his to see.
    let courier_sub =
        store::subscribers::active_by_email(pool, &store::EmailAddress::parse(nelson).unwrap())
            .await
            .unwrap()
            .into_iter()
            .find(|s| s.display_name.as_str() == "Lord Nelson")
            .unwrap();
    server::subscriptions::set_status(
        pool,
        app.clock.now(),
        &courier_sub,
        store::subscribers::SubscriberStatus::Unsubscribed,
        "gm:test",
        "example.org",
    )
    .await
    .unwrap();
    let me = player.get_text("/me").await;
    assert!(!me.contains("The Courier"), "{me}");
    assert_eq!(
        player
            .get(&format!("/me/games/{}", copenhagen))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    // Hardy sees his two zines' games and not Nelson's.
    let mut hardy_browser = crate::players::logged_in(&app, hardy).await;
    let his = hardy_browser.get_text("/me").await;
    assert!(his.contains("The Herald") && his.contains("The Courier"));
    assert!(!his.contains("The Gazette"));
    assert_eq!(
        hardy_browser
            .get(&format!("/me/games/{}", trafalgar))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}
