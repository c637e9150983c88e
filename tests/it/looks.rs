#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! Every kind of page in headless Chromium at 1280 and 390 px wide (issue 20): the front page,
//! a zine, a game, a turn's report, a finished game's record, the players' login and game page
//! (with refused orders too) and the zine choice, the zine's issue and its printable page, the
//! GM's login and every console page (the issues, a sign-up, a confirmation, the hidden
//! positions, a postal sheet, a game whose seats want players among them, the DNS records, a
//! subscriber whose mail bounces), the one-click unsubscribe's question, a player's erasure
//! page, the error pages, and forms sent back with their errors beside their fields (GM and
//! player).
//! Each is checked to fit the window's width (a table scrolls inside its own box or reflows;
//! nothing makes the page wider than a phone, fault 11), and a screenshot of the whole page
//! is kept in `target/screenshots/<width>/` for a person to look at after the run.

use std::path::PathBuf;

use anyhow::{Context, anyhow, ensure};
use fantoccini::Client;

use games::EngineKind;
use server::turns::Schedule;
use store::status::Seating;

use crate::browser::{click, failures_dir, fill, in_browser, start_chromedriver, text_of};
use crate::console::{PASSWORD, add_gm};
use crate::helpers::Counter;
use crate::players::{NELSON, fleet, link_path, login_mails};

/// The widths every page is looked at: a laptop's and a phone's.
pub const WIDTHS: [u32; 2] = [1280, 390];
/// The window's height: what a person sees where a page opens.
const OPENING_HEIGHT: u32 = 900;
/// The tallest screenshot taken (a longer page is cut there).
const TALLEST: u32 = 8000;

/// Where the screenshots go: `target/screenshots/` (beside `target/browser-failures/`).
pub fn screenshots_dir() -> PathBuf {
    failures_dir().with_file_name("screenshots")
}

/// Sizes the window so that the page's own viewport is `width` by `height` (the window's
/// frame, if any, is added).
async fn set_viewport(client: &Client, width: u32, height: u32) -> anyhow::Result<()> {
    client.set_window_size(width, height).await?;
    let inner = client
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .await?;
    let got = |i: usize| {
        inner[i]
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(0)
    };
    let (frame_w, frame_h) = (width.saturating_sub(got(0)), height.saturating_sub(got(1)));
    if frame_w > 0 || frame_h > 0 {
        client
            .set_window_size(width + frame_w, height + frame_h)
            .await?;
    }
    Ok(())
}

/// Finds what makes the page wider than its window, if anything: the page's width, the
/// window's, and the first few elements that stick out (outside any box that scrolls), and
/// the tables of games (`table.reflow`) that do not fit their box whole: those are read on a
/// phone as cards, never cut off at the right.
const OVERFLOW: &str = r"
const w = window.innerWidth;
const wide = [];
for (const e of document.querySelectorAll('body *')) {
  let scrolls = false;
  for (let p = e; p && p !== document.body; p = p.parentElement) {
    const x = getComputedStyle(p).overflowX;
    if (x === 'auto' || x === 'scroll' || p.tagName === 'PRE') { scrolls = true; break; }
  }
  if (scrolls) continue;
  const r = e.getBoundingClientRect();
  if (r.right > w + 1) wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.replace(/ /g, '.') : ''));
}
for (const t of document.querySelectorAll('table.reflow')) {
  const box = t.parentElement;
  if (t.getBoundingClientRect().width > box.clientWidth + 1) wide.push('cut off: table' + (t.id ? '#' + t.id : '.' + t.className));
}
return [document.documentElement.scrollWidth, w, wide.slice(0, 6)];
";

/// Looks at the page open in `client` at each width: it must fit the width, and a
/// screenshot of the whole page is saved as `<width>/<name>.png`. Answers axe-core's
/// violations at each width (issue 27): the test gathers them and fails listing them all.
pub async fn look(client: &Client, name: &str) -> anyhow::Result<Vec<String>> {
    let mut violations = Vec::new();
    for width in WIDTHS {
        set_viewport(client, width, OPENING_HEIGHT).await?;
        let overflow = client.execute(OVERFLOW, vec![]).await?;
        let page_width = overflow[0].as_u64().unwrap_or(u64::MAX);
        let window = overflow[1].as_u64().unwrap_or(0);
        ensure!(
            page_width <= window && overflow[2].as_array().is_some_and(Vec::is_empty),
            "{name} at {width} px does not fit: the page is {page_width} px wide in a window of {window} px; sticking out or cut off: {}",
            overflow[2]
        );
        let height = client
            .execute("return document.documentElement.scrollHeight;", vec![])
            .await?
            .as_u64()
            .and_then(|h| u32::try_from(h).ok())
            .unwrap_or(OPENING_HEIGHT);
        set_viewport(client, width, height.clamp(OPENING_HEIGHT, TALLEST)).await?;
        // The whole page in the window, so that axe-core sees every element's colours.
        violations.extend(crate::axe::violations(client, &format!("{name} at {width} px")).await?);
        let png = client.screenshot().await?;
        let dir = screenshots_dir().join(width.to_string());
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("{name}.png")), png)?;
    }
    set_viewport(client, WIDTHS[0], OPENING_HEIGHT).await?;
    Ok(violations)
}

/// Fails listing every axe-core violation found, unless there are none.
pub fn no_violations(violations: &[String]) -> anyhow::Result<()> {
    ensure!(
        violations.is_empty(),
        "{} accessibility violations (axe-core, {}, target-size):\n{}",
        violations.len(),
        crate::axe::WCAG_TAGS.join(", "),
        violations.join("\n")
    );
    Ok(())
}

/// Opens `path` and looks at it.
async fn visit(client: &Client, base: &str, path: &str, name: &str) -> anyhow::Result<Vec<String>> {
    client.goto(&format!("{base}{path}")).await?;
    look(client, name)
        .await
        .with_context(|| format!("GET {path}"))
}

/// Sets the fields of the form `form` by script and submits it with its button, as a client
/// that skips the browser's own checks (`required`, `min`, a date picker) would send it: the
/// way to reach the page a form comes back as with its errors beside their fields.
async fn send_unchecked(
    client: &Client,
    form: &str,
    fields: &[(&str, &str)],
) -> anyhow::Result<()> {
    let script = "const [form, fields] = arguments; \
                  const f = document.querySelector(form); f.noValidate = true; \
                  for (const [css, value] of fields) { f.querySelector(css).value = value; } \
                  f.querySelector('button[type=submit], button:not([type])').click();";
    client
        .execute(
            script,
            vec![serde_json::json!(form), serde_json::json!(fields)],
        )
        .await
        .with_context(|| format!("sending {form}"))?;
    Ok(())
}

/// How far down the page, in CSS pixels, the element `css` starts.
pub async fn top_of(client: &Client, css: &str) -> anyhow::Result<f64> {
    let script = format!(
        "const e = document.querySelector({css:?}); return e ? e.getBoundingClientRect().top + window.scrollY : null;"
    );
    client
        .execute(&script, vec![])
        .await?
        .as_f64()
        .ok_or_else(|| anyhow!("no {css} on the page"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_kind_fits_a_phone_and_is_photographed() {
    let Some(driver) = start_chromedriver() else {
        return;
    };
    let fleet = fleet().await;
    let pool = fleet.app.db.pool.clone();
    let now = crate::helpers::trafalgar() + chrono::Duration::days(1);
    server::turns::resolve_due(&pool, now, "zine.example.org")
        .await
        .unwrap();
    // The Nile is over: its full record is public.
    server::turns::gm_action(
        &pool,
        now,
        fleet.salvo,
        server::turns::GmAction::End,
        "gm:nelson",
        "zine.example.org",
    )
    .await
    .unwrap();
    add_gm(&pool, "nelson").await;
    // The zine's first issue (issue 21), a game open for sign-up (issue 18), and a player's row
    // for the GM's postal sheet.
    let zine = server::issues::find_zine(&pool, "gazette").await.unwrap();
    server::issues::set_rhythm(&pool, now, &zine, Some(Schedule::Manual), "nelson")
        .await
        .unwrap();
    server::issues::publish_now(&pool, now, &zine, None, "http://zine.example.org", "nelson")
        .await
        .unwrap();
    let setup = EngineKind::Salvo.default_setup();
    let opening = server::rosters::signups::open_signup(
        &pool,
        now,
        &server::rosters::signups::OpeningSpec {
            zine: zine.id,
            name: "Jutland",
            setup: &setup,
            schedule: Schedule::EveryDays(7),
            seats: 4,
            seating: Seating::Order,
            zone: chrono_tz::Tz::UTC,
            first_deadline: None,
        },
        &mut Counter(3),
        "nelson",
    )
    .await
    .unwrap();
    // A salvo game of two others whose first turn went unanswered, with a limit of one miss
    // and offers made by Admiralty: both seats want a player, and Nelson, a standby, has been
    // offered the first (issue 18's missed turns).
    let mut lissa_players = Vec::new();
    for (email, name) in [
        ("fremantle@ganges.example", "Thomas Fremantle"),
        ("foley@goliath.example", "Thomas Foley"),
    ] {
        crate::players::subscribe(&pool, zine.id, email, name).await;
        let id: i64 = sqlx::query_scalar("SELECT id FROM subscribers WHERE email = $1")
            .bind(email)
            .fetch_one(&pool)
            .await
            .unwrap();
        lissa_players.push(server::turns::RosterPick {
            subscriber: crate::helpers::id::<store::subscribers::SubscriberId>(id),
            seat: 0,
        });
    }
    let lissa = server::turns::create_game_with(
        &pool,
        now,
        &server::turns::GameSpec {
            zine: zine.id,
            name: "Lissa",
            setup: &setup,
            first_deadline: Some(now + chrono::Duration::days(1)),
            schedule: Schedule::EveryDays(7),
        },
        &server::turns::Roster::Chosen(lissa_players),
        &mut Counter(11),
        &server::turns::Creation {
            actor: "nelson",
            zone: chrono_tz::Tz::UTC,
            mail: None,
        },
    )
    .await
    .unwrap();
    server::offers::set_policy(
        &pool,
        now,
        lissa,
        store::offers::MissedPolicy {
            limit: Some(1),
            offers: store::status::StandbyOffers::Automatic,
            offer_days: 3,
        },
        "gm:nelson",
    )
    .await
    .unwrap();
    let nelson: i64 = sqlx::query_scalar("SELECT id FROM subscribers WHERE email = $1")
        .bind(NELSON)
        .fetch_one(&pool)
        .await
        .unwrap();
    server::rosters::replace::set_standby(
        &pool,
        now,
        crate::helpers::id::<store::subscribers::SubscriberId>(nelson),
        true,
        store::audit::Via::Web,
    )
    .await
    .unwrap();
    server::turns::gm_action(
        &pool,
        now,
        lissa,
        server::turns::GmAction::ResolveNow,
        "gm:nelson",
        "zine.example.org",
    )
    .await
    .unwrap();
    // Lissa's second player has resigned this turn: the GM's page offers to take it back.
    sqlx::query(
        "UPDATE players SET status = 'resigned' WHERE game_id = $1 AND engine_player_id = 2",
    )
    .bind(lissa)
    .execute(&pool)
    .await
    .unwrap();
    // Another subscriber's mailbox bounced five times (issue 29): the zine's page lists it and
    // their page says delivery is suspended; their one-click unsubscribe link asks first.
    let (bounced, bounced_token): (i64, String) = sqlx::query_as(
        "SELECT id, unsubscribe_token FROM subscribers WHERE email <> $1 ORDER BY id LIMIT 1",
    )
    .bind(NELSON)
    .fetch_one(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO bounce_scores (mailbox, score_hundredths, last_scored_at, last_bounce_at, last_reason, \
         reports, suspended_at, suspended_reason) \
         SELECT lower(email), 500, $2, $2, '5.1.1 mailbox unknown', 5, $2, \
         'five bounces: 5.1.1 mailbox unknown' FROM subscribers WHERE id = $1",
    )
    .bind(bounced)
    .bind(now)
    .execute(&pool)
    .await
    .unwrap();
    let player_row: i64 =
        sqlx::query_scalar("SELECT id FROM players WHERE game_id = $1 ORDER BY id LIMIT 1")
            .bind(fleet.barmy)
            .fetch_one(&pool)
            .await
            .unwrap();
    let base = fleet.app.url("");
    let (barmy, salvo) = (fleet.barmy, fleet.salvo);

    in_browser("looks", &driver, move |client| async move {
        let mut found = Vec::new();
        let at = |path: String, name: &'static str| (path, name);
        // What anyone may see.
        for (path, name) in [
            at("/".into(), "01-home"),
            at("/zines/gazette".into(), "02-zine"),
            at(format!("/zines/gazette/games/{barmy}"), "03-game"),
            at(
                format!("/zines/gazette/games/{barmy}/turns/1"),
                "04-turn-report",
            ),
            at(
                format!("/zines/gazette/games/{salvo}/history"),
                "05-history",
            ),
            at("/no/such/page".into(), "06-error-404"),
            at(
                format!("/zines/gazette/games/{barmy}abc"),
                "07-error-bad-id",
            ),
            at("/rules/ironclad".into(), "08-rules"),
            at("/zines/gazette/issues/1".into(), "25-issue"),
            at("/zines/gazette/issues/1/print".into(), "26-issue-print"),
            at("/gm/login".into(), "10-gm-login"),
        ] {
            found.extend(visit(&client, &base, &path, name).await?);
        }

        // The GM's console.
        fill(&client, "#name", "nelson").await?;
        fill(&client, "#password", PASSWORD).await?;
        click(&client, "main form button[type=submit]").await?;
        text_of(&client, "#games").await?;
        for (path, name) in [
            at("/gm".into(), "11-console-home"),
            at("/gm/zines".into(), "12-console-zines"),
            at("/gm/zines/gazette".into(), "13-console-zine"),
            at(format!("/gm/games/{barmy}"), "14-console-game"),
            at(
                "/gm/zines/gazette/games/new?engine=salvo".into(),
                "15-console-new-game",
            ),
            at("/gm/inbox".into(), "16-console-inbox"),
            at("/gm/outbox".into(), "17-console-outbox"),
            at("/gm/audit".into(), "18-console-audit"),
            at("/gm/games/abc".into(), "19-console-error"),
            at("/gm/zines/gazette/issues".into(), "27-console-issues"),
            at(
                "/gm/zines/gazette/issues/preview".into(),
                "28-console-issue-preview",
            ),
            at(format!("/gm/signups/{opening}"), "29-console-signup"),
            at(
                format!("/gm/games/{barmy}/confirm/resolve-now"),
                "30-console-confirm",
            ),
            at(
                format!("/gm/games/{barmy}/positions"),
                "31-console-positions",
            ),
            at(
                format!("/gm/games/{barmy}/print/{player_row}"),
                "32-console-postal-sheet",
            ),
            at(format!("/gm/games/{lissa}"), "34-console-game-standbys"),
            at("/gm/dns".into(), "42-console-dns"),
            at(
                format!("/gm/subscribers/{bounced}"),
                "43-console-subscriber-suspended",
            ),
        ] {
            found.extend(visit(&client, &base, &path, name).await?);
        }
        // Forms sent back with their errors beside their fields (issue 27 item 6): the
        // engine's refusal of a setting on the new-game form, the game page's missed-turns form,
        // and Replace with nothing chosen.
        client
            .goto(&format!("{base}/gm/zines/gazette/games/new?engine=barmy"))
            .await?;
        send_unchecked(
            &client,
            "#new-game-form",
            &[
                ("#game-name", "Crooked Barmy"),
                ("#deadline", "2030-01-01T12:00"),
                (
                    "#setup-extra",
                    r#"{"placements": [{"player": 1, "ship": ["A1", "C1", "E1", "G1"]}]}"#,
                ),
            ],
        )
        .await?;
        text_of(&client, "#setup-extra-error").await?;
        found.extend(look(&client, "36-console-new-game-refused").await?);
        client.goto(&format!("{base}/gm/games/{lissa}")).await?;
        send_unchecked(
            &client,
            "#missed-form",
            &[("#missed-limit", "0"), ("#offer-days", "30")],
        )
        .await?;
        text_of(&client, "#missed-limit-error").await?;
        found.extend(look(&client, "37-console-game-form-errors").await?);
        client.goto(&format!("{base}/gm/games/{barmy}")).await?;
        send_unchecked(
            &client,
            "#post-orders",
            &[("#post-received", "last Tuesday"), ("#post-text", "B2 C3")],
        )
        .await?;
        text_of(&client, "#post-player-error").await?;
        found.extend(look(&client, "46-console-post-form-errors").await?);
        client.goto(&format!("{base}/gm/games/{lissa}")).await?;
        send_unchecked(&client, "#replace", &[]).await?;
        text_of(&client, "#replace-player-error").await?;
        found.extend(look(&client, "38-console-replace-unchosen").await?);

        client.goto(&format!("{base}/gm")).await?;
        click(&client, "header form.logout button").await?;
        text_of(&client, "#password").await?;

        // A reader's one-click unsubscribe link opened in a browser: it asks, changes nothing.
        found.extend(
            visit(
                &client,
                &base,
                &format!("/unsubscribe/{bounced_token}"),
                "44-unsubscribe-confirm",
            )
            .await?,
        );

        // A player: the login by mail, their games, a game, and refused orders.
        client.goto(&format!("{base}/login")).await?;
        found.extend(look(&client, "20-player-login").await?);
        send_unchecked(&client, "#login-form", &[("#email", "nelson at sea")]).await?;
        text_of(&client, "#login-error").await?;
        found.extend(look(&client, "39-player-login-error").await?);
        fill(&client, "#email", NELSON).await?;
        click(&client, "#login-form button[type=submit]").await?;
        text_of(&client, "#notice").await?;
        let mails = login_mails(&pool, NELSON).await;
        let link = link_path(mails.first().ok_or_else(|| anyhow!("no login mail"))?);
        client.goto(&format!("{base}{link}")).await?;
        click(&client, "#log-in").await?;
        text_of(&client, "#games").await?;
        // Nelson is offered a seat in Lissa: the offer is on his page, with nothing of it.
        text_of(&client, "#offers").await?;
        found.extend(look(&client, "21-player-games").await?);
        found.extend(
            visit(
                &client,
                &base,
                &format!("/me/games/{barmy}"),
                "22-player-game",
            )
            .await?,
        );
        fill(&client, "#orders-text", "A1, Z99, Q0\nK11 K12\nB2").await?;
        click(&client, "#orders-form button").await?;
        // Fault 9: the result is where the page opens, at either width.
        text_of(&client, "#orders-error").await?;
        for width in WIDTHS {
            set_viewport(&client, width, OPENING_HEIGHT).await?;
            let top = top_of(&client, "#orders-error").await?;
            ensure!(
                top < f64::from(OPENING_HEIGHT) / 2.0,
                "at {width} px the refused orders' result starts {top} px down the page"
            );
        }
        found.extend(look(&client, "23-player-game-refused-orders").await?);
        found.extend(visit(&client, &base, "/me/games/abc", "24-player-error").await?);
        found.extend(visit(&client, &base, "/me/zine", "33-player-zine").await?);
        send_unchecked(&client, "#letter-form", &[("#letter", "  ")]).await?;
        text_of(&client, "#letter-error").await?;
        found.extend(look(&client, "40-player-letter-error").await?);
        client.goto(&format!("{base}/me")).await?;
        send_unchecked(
            &client,
            "#absence-form",
            &[("#first-day", "2030-05-10"), ("#last-day", "2030-05-01")],
        )
        .await?;
        text_of(&client, "#last-day-error").await?;
        found.extend(look(&client, "41-player-absence-error").await?);
        found.extend(visit(&client, &base, "/me/erase", "45-player-erase").await?);
        found.extend(
            visit(
                &client,
                &base,
                &format!("/me/games/{barmy}/resign"),
                "35-player-resign",
            )
            .await?,
        );
        no_violations(&found)
    })
    .await;
    drop(driver);
    let kept = std::fs::read_dir(screenshots_dir().join("390"))
        .unwrap()
        .filter(|entry| {
            let name = entry.as_ref().unwrap().file_name();
            !name.to_string_lossy().starts_with("3x-")
        })
        .count();
    assert_eq!(kept, 45, "a screenshot of every page at 390 px");
    fleet.app.stop().await;
}

/// Every engine's published turn, board and legend in Chromium at both widths (issue 20,
/// fault 12): the board fits the page (scaled down, or scrolling in its own box) and its
/// legend is drawn; the screenshots are `3x-board-<engine>.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_engines_board_and_legend_are_photographed() {
    use games::EngineKind;
    use server::turns::{GameSpec, Schedule};
    use store::subscribers::NewSubscriber;
    use store::{DisplayName, EmailAddress, ZineSlug};

    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = crate::helpers::TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let start = crate::helpers::trafalgar();
    let zine = store::zines::insert(&pool, &ZineSlug::parse("fleet").unwrap(), "Fleet", start)
        .await
        .unwrap();
    for (address, name) in [
        ("a@example.org", "Alice Ames"),
        ("b@example.org", "Bob Bell"),
    ] {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address).unwrap(),
            display_name: DisplayName::parse(name).unwrap(),
        };
        store::subscribers::insert(&pool, &new, start)
            .await
            .unwrap();
    }
    let deadline = start + chrono::Duration::days(1);
    let mut turns = Vec::new();
    for (index, engine) in EngineKind::ALL.into_iter().enumerate() {
        let setup = engine.default_setup();
        let name = format!("{} game", engine.title());
        let spec = GameSpec {
            zine: zine.id,
            name: &name,
            setup: &setup,
            first_deadline: Some(deadline),
            schedule: Schedule::EveryDays(1),
        };
        let seed = u8::try_from(index).unwrap();
        let game =
            server::turns::create_game(&pool, start, &spec, &mut crate::helpers::Counter(seed))
                .await
                .unwrap();
        let resolved = server::turns::resolve_due(&pool, deadline, "zine.example.org")
            .await
            .unwrap();
        turns.push((
            engine.to_string(),
            format!("/zines/fleet/games/{}/turns/{}", game, resolved[0].turn),
        ));
    }
    let base = app.url("");
    in_browser("boards", &driver, move |client| async move {
        let mut found = Vec::new();
        for (engine, path) in turns {
            client.goto(&format!("{base}{path}")).await?;
            let keys = client
                .execute(
                    "return document.querySelectorAll('figure.board g.legend g.key').length;",
                    vec![],
                )
                .await?;
            ensure!(
                keys.as_u64().unwrap_or(0) > 0,
                "{engine}: no legend on the board"
            );
            found.extend(look(&client, &format!("3x-board-{engine}")).await?);
        }
        no_violations(&found)
    })
    .await;
    drop(driver);
    app.stop().await;
}
