//! Issue 27, item 6: forms never dead-end. A mistake in a form of the game's page or the
//! new-game form (a sign-up's too) brings back the same form, 422, with everything typed kept
//! and each error beside its field: the field `aria-invalid`, described by its error
//! (`aria-describedby`), the first one `autofocus`ed; nothing saved.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use games::EngineKind;
use reqwest::StatusCode;
use serde_json::Value;
use store::PgPool;

use crate::console::populate;
use crate::console_season::gm_logged_in;
use crate::helpers::TestApp;
use crate::rosters::{standard_form, zine_of_six};

/// The opening tag of the element with `id` on `page`.
fn tag<'a>(page: &'a str, id: &str) -> &'a str {
    let at = page
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element {id} in\n{page}"));
    let start = page[..at].rfind('<').unwrap();
    &page[start..at + page[at..].find('>').unwrap()]
}

/// The field `id` is marked invalid, described by its error, which says `says`.
fn error_beside(page: &str, id: &str, says: &str) {
    let input = tag(page, id);
    assert!(input.contains("aria-invalid=\"true\""), "{input}");
    assert!(
        input.contains(&format!("aria-describedby=\"{id}-error\"")),
        "{input}"
    );
    let error = &page[page.find(&format!("id=\"{id}-error\"")).unwrap()..];
    let error = &error[..error.find("</p>").unwrap()];
    let says = crate::console::html(says);
    assert!(error.contains(&says), "{says} in {error}");
}

/// Only the field `id` has `autofocus`.
fn focused(page: &str, id: &str) {
    assert_eq!(page.matches(" autofocus").count(), 1, "{page}");
    assert!(tag(page, id).contains(" autofocus"), "{}", tag(page, id));
}

async fn schedule(pool: &PgPool, game: i64) -> Value {
    sqlx::query_scalar("SELECT schedule FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// Fault 5: "every Saturday morning", zone "London", reminders "2 days" gave a bare "Bad
/// request" page with every typed field lost.
#[tokio::test]
async fn the_schedule_form_comes_back_with_what_was_typed_and_each_error_beside_its_field() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let mut gm = gm_logged_in(&app).await;
    let before = schedule(pool, game).await;
    let response = gm
        .submit(
            &format!("/gm/games/{game}/schedule"),
            &[
                ("schedule", "weekly"),
                ("weekday", "Saturday"),
                ("time", "morning"),
                ("zone", "London"),
                ("reminders", "2 days"),
                ("grace", "1h"),
                ("early", "on"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(page.contains("id=\"schedule-form\""), "the form is back");
    error_beside(&page, "time", "\"morning\" is not a time of day");
    error_beside(&page, "zone", "\"London\" is not a time zone");
    error_beside(&page, "reminders", "\"2 days\" is not a duration");
    focused(&page, "time");
    assert!(tag(&page, "zone").contains("value=\"London\""));
    assert!(tag(&page, "zone").contains("list=\"zones\""));
    assert!(page.contains("<option value=\"Europe/London\">"));
    assert!(tag(&page, "reminders").contains("value=\"2 days\""));
    assert!(tag(&page, "grace").contains("value=\"1h\""));
    assert!(tag(&page, "early").contains(" checked"));
    assert!(page.contains("<option value=\"Saturday\" selected>"));
    assert!(page.contains("<option value=\"weekly\" selected>"));
    assert!(!tag(&page, "grace").contains("aria-invalid"));
    assert_eq!(schedule(pool, game).await, before, "nothing saved");

    // The same form mended is saved.
    let response = gm
        .submit(
            &format!("/gm/games/{game}/schedule"),
            &[
                ("schedule", "weekly"),
                ("weekday", "Saturday"),
                ("time", "09:00"),
                ("zone", "Europe/London"),
                ("reminders", "2d"),
                ("grace", "1h"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(schedule(pool, game).await["weekday"], "Saturday");
}

/// Fault 5: a deadline in the past, hours that are not a number and a wait of 90 days gave
/// "Not done" or "Bad request" pages.
#[tokio::test]
async fn the_deadline_extend_and_absence_forms_come_back_with_their_errors() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let mut gm = gm_logged_in(&app).await;

    let response = gm
        .submit(
            &format!("/gm/games/{game}/actions/deadline"),
            &[("deadline", "1805-10-20T09:00")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "deadline", "is past");
    focused(&page, "deadline");
    assert!(tag(&page, "deadline").contains("value=\"1805-10-20T09:00\""));

    let response = gm
        .submit(
            &format!("/gm/games/{game}/actions/extend"),
            &[("hours", "two days")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "hours", "from 1 to 720, not \"two days\"");
    assert!(tag(&page, "hours").contains("value=\"two days\""));

    let response = gm
        .submit(
            &format!("/gm/games/{game}/absence"),
            &[("absence_policy", "wait"), ("wait_days", "90")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "wait-days", "from 1 to 28");
    focused(&page, "wait-days");
    assert!(tag(&page, "wait-days").contains("value=\"90\""));
    assert!(page.contains("<option value=\"wait\" selected>"));
}

/// Issue 27 items 6 and 7: the new-game form takes a weekly schedule (it was only every N days
/// or manual) and a zone from the IANA list; a zone it does not know comes back beside its
/// field with the rest kept, a sign-up's seat count too.
#[tokio::test]
async fn the_new_game_form_takes_a_weekly_schedule_and_sends_back_a_bad_zone_beside_its_field() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let page = gm
        .get_text("/gm/zines/gazette/games/new?engine=barmy")
        .await;
    assert!(page.contains("<option value=\"weekly\">"), "weekly offered");
    assert!(tag(&page, "zone").contains("list=\"zones\""));

    let form = |zone: &str| {
        let mut form = standard_form(EngineKind::Barmy, "Weekly Barmy");
        form.retain(|(key, _)| key != "schedule");
        form.extend([
            ("schedule".to_owned(), "weekly".to_owned()),
            ("weekday".to_owned(), "Saturday".to_owned()),
            ("time".to_owned(), "12:00".to_owned()),
            ("zone".to_owned(), zone.to_owned()),
        ]);
        form
    };
    let pairs = form("London");
    let sent: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &sent).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "zone", "\"London\" is not a time zone");
    focused(&page, "zone");
    assert!(tag(&page, "game-name").contains("value=\"Weekly Barmy\""));
    assert!(tag(&page, "time").contains("value=\"12:00\""));
    assert!(page.contains("<option value=\"Saturday\" selected>"));
    assert!(page.contains("<option value=\"weekly\" selected>"));

    let pairs = form("Europe/London");
    let sent: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &sent).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let saved: Value = sqlx::query_scalar("SELECT schedule FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(saved["kind"], "weekly");
    assert_eq!(saved["weekday"], "Saturday");
    assert_eq!(saved["zone"], "Europe/London");

    // A sign-up with too many seats: the seat count is marked, the rest kept.
    let mut signup = standard_form(EngineKind::Salvo, "Spring Salvo");
    signup.extend([
        ("start".to_owned(), "signup".to_owned()),
        ("signup_seats".to_owned(), "many".to_owned()),
        ("seating".to_owned(), "order".to_owned()),
    ]);
    let sent: Vec<(&str, &str)> = signup
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &sent).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "signup-seats", "a number is needed");
    assert!(tag(&page, "game-name").contains("value=\"Spring Salvo\""));
}

/// Issue 27 item 6: what the engine refuses when the game is made comes back beside the
/// setting it is about (here Barmy's placements, which only More settings can give: BARMY-06),
/// focused, with everything typed kept and no game made.
#[tokio::test]
async fn the_engines_refusal_of_a_setting_comes_back_beside_it() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let mut form = standard_form(EngineKind::Barmy, "Crooked Barmy");
    let placements = r#"{"placements": [{"player": 1, "ship": ["A1", "C1", "E1", "G1"]}]}"#;
    form.push(("setup_extra".to_owned(), placements.to_owned()));
    let sent: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &sent).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(
        &page,
        "setup-extra",
        "More settings, placements: the placement for player 1, A1 C1 E1 G1, is not four squares in a line",
    );
    focused(&page, "setup-extra");
    assert!(
        page.contains("<a href=\"#setup-extra\">"),
        "the summary links to it"
    );
    assert!(tag(&page, "game-name").contains("value=\"Crooked Barmy\""));
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(games, 0, "no game was made");
}

/// Issue 27 items 2 and 6: Replace and Offer start on "— choose —"; sent with nothing chosen (a
/// client that ignores `required`), the game's page comes back with each missing choice beside
/// its select, the first focused, and nothing done: no confirmation page in between.
#[tokio::test]
async fn replace_and_offer_with_nothing_chosen_come_back_beside_their_selects() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (mut gm, game) = crate::offers::over_dover(&app).await;
    let roster = gm.roster(game).await;
    let players_before = everything(pool).await;

    let response = gm
        .get(&format!("/gm/games/{game}/confirm/replace?roster={roster}"))
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "replace-player", "Choose the seat to hand over");
    error_beside(&page, "replace-by", "Choose who takes the seat");
    focused(&page, "replace-player");

    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    let seat = tag(&page, "offer-any-seat");
    assert!(seat.contains("required"), "{seat}");
    let offered = page.split("id=\"offer-any-seat\"").nth(1).unwrap();
    let first = offered.split("<option value=\"").nth(2).unwrap();
    let row = first.split('"').next().unwrap();
    let response = gm
        .get(&format!(
            "/gm/games/{game}/confirm/offer?roster={roster}&player={row}"
        ))
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "offer-any-to", "Choose who takes the seat");
    focused(&page, "offer-any-to");
    assert!(
        tag(&page, "offer-any-seat").find("aria-invalid").is_none(),
        "the seat was chosen"
    );
    assert_eq!(everything(pool).await, players_before, "nothing was done");
}

/// Shows the page open in `client` at 1280 and 390 px and keeps a screenshot of each in
/// `target/screenshots-forms/<width>/<name>.png` for a person to look at.
async fn photograph(client: &fantoccini::Client, name: &str) -> anyhow::Result<()> {
    let dir = crate::browser::failures_dir().with_file_name("screenshots-forms");
    for width in crate::looks::WIDTHS {
        client.set_window_size(width, 1400).await?;
        let png = client.screenshot().await?;
        let dir = dir.join(width.to_string());
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("{name}.png")), png)?;
    }
    Ok(())
}

/// The zone picker in Chromium: the zone field offers chrono-tz's list (`<datalist>`, no
/// JavaScript); a name not on it comes back beside the field, the field focused, the rest of
/// the form as typed; a name from the list is saved.
#[tokio::test]
async fn the_zone_picker_offers_the_iana_list_and_a_zone_not_on_it_comes_back_focused() {
    use anyhow::ensure;

    use crate::browser::{click, fill, in_browser, start_chromedriver, text_of};
    use crate::console::{PASSWORD, add_gm};

    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let base = app.url("");
    let pool = app.db.pool.clone();
    in_browser("forms-zone-picker", &driver, move |client| async move {
        client.goto(&format!("{base}/gm/login")).await?;
        fill(&client, "#name", "nelson").await?;
        fill(&client, "#password", PASSWORD).await?;
        click(&client, "main form button[type=submit]").await?;
        text_of(&client, "#games").await?;

        client.goto(&format!("{base}/gm/games/{game}")).await?;
        let offered = client
            .execute(
                "const list = document.querySelector('#zone').list; \
                 return [list.options.length, [...list.options].some(o => o.value === 'Europe/London')];",
                vec![],
            )
            .await?;
        ensure!(
            offered[0].as_u64().unwrap_or(0) > 400 && offered[1] == true,
            "the zone field offers the IANA list: {offered}"
        );
        fill(&client, "#zone", "London").await?;
        fill(&client, "#reminders", "48h, 6h").await?;
        click(&client, "#schedule-form button[type=submit]").await?;
        let error = text_of(&client, "#zone-error").await?;
        ensure!(error.contains("\"London\" is not a time zone"), "{error}");
        let focus = client
            .execute(
                "const e = document.activeElement; \
                 return [e.id, e.value, e.getAttribute('aria-invalid'), e.getAttribute('aria-describedby'), \
                         document.querySelector('#reminders').value];",
                vec![],
            )
            .await?;
        ensure!(
            focus == serde_json::json!(["zone", "London", "true", "zone-error", "48h, 6h"]),
            "the zone field is focused, marked and kept, the reminders kept: {focus}"
        );
        photograph(&client, "game-schedule-zone-error").await?;

        fill(&client, "#zone", "Europe/London").await?;
        click(&client, "#schedule-form button[type=submit]").await?;
        text_of(&client, "#game-status").await?;

        client
            .goto(&format!("{base}/gm/zines/demo/games/new?engine=barmy"))
            .await?;
        fill(&client, "#game-name", "Weekly").await?;
        fill(&client, "#zone", "Mars/Olympus").await?;
        click(&client, "#create-game").await?;
        let error = text_of(&client, "#zone-error").await?;
        ensure!(error.contains("\"Mars/Olympus\" is not a time zone"), "{error}");
        photograph(&client, "new-game-zone-error").await?;
        Ok(())
    })
    .await;
    let zone: String = sqlx::query_scalar("SELECT schedule->>'zone' FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(zone, "Europe/London");
    drop(driver);
    app.stop().await;
}

async fn issue_rhythm(pool: &PgPool, slug: &str) -> Option<Value> {
    sqlx::query_scalar("SELECT issue_rhythm FROM zines WHERE slug = $1")
        .bind(slug)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// Fault 5: the issue's rhythm was free text ("every Saturday morning" gave a bare "Bad
/// request"); it is chosen with the game schedule's fields, the zone from the IANA list, and
/// a mistake comes back beside its field.
#[tokio::test]
async fn the_issue_rhythm_is_chosen_with_fields_and_a_mistake_comes_back_beside_its_field() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let page = gm.get_text("/gm/zines/gazette/issues").await;
    assert!(
        page.contains("<option value=\"off\" selected>"),
        "no issues yet"
    );
    assert!(tag(&page, "zone").contains("list=\"zones\""));

    let response = gm
        .submit(
            "/gm/zines/gazette/issues/rhythm",
            &[
                ("rhythm", "weekly"),
                ("weekday", "Saturday"),
                ("time", "morning"),
                ("zone", "London"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(page.contains("id=\"issue-rhythm\""), "the form is back");
    error_beside(&page, "time", "\"morning\" is not a time of day");
    error_beside(&page, "zone", "\"London\" is not a time zone");
    focused(&page, "time");
    assert!(tag(&page, "time").contains("value=\"morning\""));
    assert!(tag(&page, "zone").contains("value=\"London\""));
    assert!(page.contains("<option value=\"Saturday\" selected>"));
    assert!(page.contains("<option value=\"weekly\" selected>"));
    assert!(page.contains("<option value=\"Europe/London\">"));
    assert_eq!(issue_rhythm(pool, "gazette").await, None, "nothing saved");

    let response = gm
        .submit(
            "/gm/zines/gazette/issues/rhythm",
            &[("rhythm", "every_days"), ("days", "a fortnight")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "days", "from 1 to 365, not \"a fortnight\"");
    assert!(tag(&page, "days").contains("value=\"a fortnight\""));
    assert_eq!(issue_rhythm(pool, "gazette").await, None, "nothing saved");

    let response = gm
        .submit(
            "/gm/zines/gazette/issues/rhythm",
            &[
                ("rhythm", "weekly"),
                ("weekday", "Saturday"),
                ("time", "09:00"),
                ("zone", "Europe/London"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let page = gm.get_text("/gm/zines/gazette/issues").await;
    assert!(
        page.contains("<option value=\"weekly\" selected>"),
        "{page}"
    );
    assert!(tag(&page, "time").contains("value=\"09:00\""));
    assert!(tag(&page, "zone").contains("value=\"Europe/London\""));
    assert!(issue_rhythm(pool, "gazette").await.is_some());
}

/// The weekly time is a text field on the 24-hour clock: `<input type=time>` shows the
/// browser locale's clock (6:00 PM in Chromium), while every mail and page says 18:00.
#[tokio::test]
async fn the_weekly_time_is_typed_and_shown_on_the_24_hour_clock() {
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    let mut gm = gm_logged_in(&app).await;
    for path in [
        format!("/gm/games/{game}"),
        "/gm/zines/demo/issues".to_owned(),
        "/gm/zines/demo/games/new?engine=barmy".to_owned(),
    ] {
        let page = gm.get_text(&path).await;
        let time = tag(&page, "time");
        assert!(time.contains("type=\"text\""), "{path}: {time}");
        assert!(page.contains("24-hour clock"), "{path}");
    }
}

/// Everything these forms may change, to show a form sent back changed nothing.
async fn everything(pool: &PgPool) -> Value {
    let mut all = crate::console::fingerprint(pool).await;
    all["absences"] = sqlx::query_scalar(
        "SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY id), '[]') FROM absences a",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    all
}

/// Fault 5 on the zine's forms: a new zine with a bad short name, or one taken, comes back
/// with the error beside the short name and the name kept (it was a list above the form).
#[tokio::test]
async fn the_new_zine_form_names_the_field_in_error_and_keeps_what_was_typed() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    populate(pool).await;
    let mut gm = gm_logged_in(&app).await;
    let before = everything(pool).await;
    for (slug, says) in [
        ("Second Gazette!", "Short name:"),
        ("demo", "There is already"),
    ] {
        let response = gm
            .submit(
                "/gm/zines",
                &[("name", "The Second Gazette"), ("slug", slug)],
            )
            .await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{slug}"
        );
        let page = response.text().await.unwrap();
        error_beside(&page, "zine-slug", says);
        focused(&page, "zine-slug");
        assert!(tag(&page, "zine-name").contains("value=\"The Second Gazette\""));
        assert!(!tag(&page, "zine-name").contains("aria-invalid"));
        assert!(tag(&page, "zine-slug").contains(&format!("value=\"{slug}\"")));
    }
    assert_eq!(everything(pool).await, before, "nothing saved");
}

/// Fault 5 on the subscriber forms: adding or editing with a bad address or name, and an
/// upload with nothing in it, come back with each error beside its field and what was typed.
#[tokio::test]
async fn the_subscriber_forms_send_back_each_error_beside_its_field() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    populate(pool).await;
    let mut gm = gm_logged_in(&app).await;
    let before = everything(pool).await;

    let response = gm
        .submit(
            "/gm/zines/demo/subscribers",
            &[("name", " "), ("email", "hardy at example.org")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "sub-name", "Name:");
    error_beside(&page, "sub-email", "Address:");
    focused(&page, "sub-name");
    assert!(tag(&page, "sub-email").contains("value=\"hardy at example.org\""));

    let response = gm
        .submit(
            "/gm/zines/demo/subscribers",
            &[
                ("name", "Thomas Hardy"),
                ("email", "villeneuve@example.org"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "sub-email", "There is already");
    assert!(tag(&page, "sub-name").contains("value=\"Thomas Hardy\""));

    let response = gm
        .submit(
            "/gm/subscribers/1",
            &[("name", "Horatio"), ("email", "nelson@")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(page.contains("id=\"edit-subscriber\""), "the form is back");
    error_beside(&page, "sub-email", "Address:");
    focused(&page, "sub-email");
    assert!(tag(&page, "sub-name").contains("value=\"Horatio\""));

    let csrf = gm.csrf().await;
    let response = gm
        .post_multipart(
            "/gm/zines/demo/subscribers/import",
            &[("csrf", &csrf), ("text", "  \n")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "import-file", "Choose a CSV file");
    assert_eq!(everything(pool).await, before, "nothing saved");

    // A bad row is named with its line, the rows pasted kept to mend.
    let rows = "email,name\nhardy@example.org,Thomas Hardy\nblackwood at sea,Henry Blackwood";
    let response = gm
        .post_multipart(
            "/gm/zines/demo/subscribers/import",
            &[("csrf", &csrf), ("text", rows)],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    let report = &page[page.find("id=\"import-report\"").unwrap()..];
    assert!(
        report.contains("<td>3</td><td><code>blackwood at sea,Henry Blackwood</code>"),
        "{report}"
    );
    assert!(
        page.contains(&crate::console::html(rows)),
        "the rows are kept"
    );
}

/// Fault 5 on the player's page: an absence with its days the wrong way round, or a day that
/// is not a date, gave a bare "Bad request"; it comes back beside its field, the days kept.
#[tokio::test]
async fn the_players_absence_form_comes_back_with_the_days_typed_and_the_error_beside_them() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    populate(pool).await;
    let mut player = crate::players::logged_in(&app, "villeneuve@example.org").await;
    let before = everything(pool).await;
    let csrf = crate::console::hidden_csrf(&player.get_text("/me").await);
    let response = player
        .post(
            "/me/absences",
            &[
                ("csrf", csrf.as_str()),
                ("first_day", "2030-05-10"),
                ("last_day", "2030-05-01"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(page.contains("id=\"absence-form\""), "the form is back");
    error_beside(&page, "last-day", "The last day is before the first");
    focused(&page, "last-day");
    assert!(tag(&page, "first-day").contains("value=\"2030-05-10\""));
    assert!(tag(&page, "last-day").contains("value=\"2030-05-01\""));

    let response = player
        .post(
            "/me/absences",
            &[
                ("csrf", csrf.as_str()),
                ("first_day", "next Monday"),
                ("last_day", "2030-05-01"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(
        &page,
        "first-day",
        "must be a date (YYYY-MM-DD), not \"next Monday\"",
    );
    assert_eq!(
        everything(pool).await["absences"],
        before["absences"],
        "nothing recorded"
    );
    assert_eq!(everything(pool).await, before, "nothing saved");
}

/// Fault 5 on the game page's post form: orders received by post with no player chosen and a
/// day that is not a date gave a bare "Bad request" and lost the orders typed.
#[tokio::test]
async fn the_post_form_comes_back_with_the_orders_typed_and_each_error_beside_its_field() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = populate(pool).await;
    let mut gm = gm_logged_in(&app).await;
    let before = everything(pool).await;
    let response = gm
        .submit(
            &format!("/gm/games/{game}/post-orders"),
            &[
                ("player", ""),
                ("received_on", "last Tuesday"),
                ("kind", "orders"),
                ("orders", "B2\nC3"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(page.contains("id=\"post-orders\""), "the form is back");
    error_beside(&page, "post-player", "Choose the player");
    error_beside(&page, "post-received", "not \"last Tuesday\"");
    focused(&page, "post-player");
    assert!(tag(&page, "post-received").contains("value=\"last Tuesday\""));
    assert!(page.contains(">B2\nC3</textarea>"), "the orders are kept");

    let response = gm
        .submit(
            &format!("/gm/games/{game}/post-orders"),
            &[
                ("player", "1"),
                ("received_on", "2005-10-21"),
                ("kind", "press"),
                ("orders", ""),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "post-text", "Write the press as received.");
    assert!(page.contains("<option value=\"press\" selected>"));
    assert!(page.contains("<option value=\"1\" selected>"));
    assert_eq!(everything(pool).await, before, "nothing saved");
}

/// Fault 5 on the missed-turns form: a limit of 0 and an offer of 30 days gave a bare "Bad
/// request"; both come back beside their fields, the choice of who offers kept.
#[tokio::test]
async fn the_missed_turns_form_comes_back_with_each_error_beside_its_field() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (mut gm, game) = crate::offers::over_dover(&app).await;
    let before = everything(pool).await;
    let response = gm
        .submit(
            &format!("/gm/games/{game}/missed"),
            &[
                ("missed_limit", "0"),
                ("standby_offers", "automatic"),
                ("offer_days", "30"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(page.contains("id=\"missed-form\""), "the form is back");
    error_beside(
        &page,
        "missed-limit",
        "from 1 to 20, or empty for the rules' default, not \"0\"",
    );
    error_beside(&page, "offer-days", "from 1 to 14, not \"30\"");
    focused(&page, "missed-limit");
    assert!(tag(&page, "missed-limit").contains("value=\"0\""));
    assert!(tag(&page, "offer-days").contains("value=\"30\""));
    assert!(page.contains("<option value=\"automatic\" selected>"));
    assert_eq!(everything(pool).await, before, "nothing saved");
}

/// The player's letter and the login-link request: the refusal is beside its field (it was a
/// line above the form, and the letter's page answered 200 as if it had gone).
#[tokio::test]
async fn the_letter_and_login_link_forms_tie_their_error_to_the_field() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    populate(pool).await;
    let mut player = crate::players::logged_in(&app, "villeneuve@example.org").await;
    let before = everything(pool).await;
    let csrf = crate::console::hidden_csrf(&player.get_text("/me/zine").await);
    let response = player
        .post(
            "/me/zine/letter",
            &[("csrf", csrf.as_str()), ("letter", "  ")],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    error_beside(&page, "letter", "Your letter was not sent");
    focused(&page, "letter");
    let letters: i64 = sqlx::query_scalar("SELECT count(*) FROM zine_letters")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(letters, 0);

    let mut visitor = crate::console::Browser::new(&app);
    let response = crate::players::ask_for_link(&mut visitor, "villeneuve at sea").await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    let input = tag(&page, "email");
    assert!(
        input.contains("aria-describedby=\"login-error\""),
        "{input}"
    );
    assert!(input.contains("value=\"villeneuve at sea\""), "{input}");
    assert!(input.contains(" autofocus"), "{input}");
    assert!(page.contains("id=\"login-error\">That is not an email address"));
    let mut after = everything(pool).await;
    after["sessions"] = before["sessions"].clone();
    assert_eq!(after, before, "nothing saved");
}

/// The forms sent back in Chromium: the issue rhythm's weekly time and zone, a short name
/// taken on the new-zine form, an address already subscribed; each error beside its field,
/// the field focused, photographed at 1280 and 390 px.
#[tokio::test]
async fn the_forms_sent_back_in_chromium_focus_the_field_in_error() {
    use anyhow::ensure;

    use crate::browser::{choose, click, fill, in_browser, start_chromedriver, text_of};
    use crate::console::{PASSWORD, add_gm};

    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = TestApp::spawn().await;
    populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let base = app.url("");
    in_browser("forms-sent-back", &driver, move |client| async move {
        client.goto(&format!("{base}/gm/login")).await?;
        fill(&client, "#name", "nelson").await?;
        fill(&client, "#password", PASSWORD).await?;
        click(&client, "main form button[type=submit]").await?;
        text_of(&client, "#games").await?;
        let focus = "const e = document.activeElement; \
                     return [e.id, e.value, e.getAttribute('aria-describedby')];";

        client.goto(&format!("{base}/gm/zines/demo/issues")).await?;
        choose(&client, "#rhythm", "weekly").await?;
        choose(&client, "#weekday", "Saturday").await?;
        fill(&client, "#time", "9 am").await?;
        fill(&client, "#zone", "London").await?;
        click(&client, "#issue-rhythm button[type=submit]").await?;
        let error = text_of(&client, "#time-error").await?;
        ensure!(error.contains("\"9 am\" is not a time of day"), "{error}");
        let focused = client.execute(focus, vec![]).await?;
        ensure!(
            focused == serde_json::json!(["time", "9 am", "time-error"]),
            "the time is focused and kept: {focused}"
        );
        photograph(&client, "issue-rhythm-error").await?;
        fill(&client, "#time", "09:00").await?;
        fill(&client, "#zone", "Europe/London").await?;
        click(&client, "#issue-rhythm button[type=submit]").await?;
        let notice = text_of(&client, "#notice").await?;
        ensure!(notice.contains("The rhythm is saved."), "{notice}");

        client.goto(&format!("{base}/gm/zines")).await?;
        fill(&client, "#zine-name", "The Second Gazette").await?;
        fill(&client, "#zine-slug", "demo").await?;
        click(&client, "#new-zine button[type=submit]").await?;
        let error = text_of(&client, "#zine-slug-error").await?;
        ensure!(error.contains("There is already"), "{error}");
        let focused = client.execute(focus, vec![]).await?;
        ensure!(
            focused == serde_json::json!(["zine-slug", "demo", "zine-slug-error"]),
            "{focused}"
        );
        photograph(&client, "new-zine-error").await?;

        client.goto(&format!("{base}/gm/zines/demo")).await?;
        fill(&client, "#sub-name", "Pierre Again").await?;
        fill(&client, "#sub-email", "villeneuve@example.org").await?;
        click(&client, "#add-subscriber button[type=submit]").await?;
        let error = text_of(&client, "#sub-email-error").await?;
        ensure!(error.contains("There is already"), "{error}");
        photograph(&client, "add-subscriber-error").await?;
        Ok(())
    })
    .await;
    drop(driver);
    app.stop().await;
}
