//! Every action once, in a real browser (issue 27): Resolve now, then the browser's Back and
//! the same button again, resolves nothing more and mails no one.

use anyhow::ensure;
use sqlx::PgPool;

use crate::browser::{click, fill, in_browser, path_of, start_chromedriver, text_of};
use crate::console::{PASSWORD, add_gm, populate};
use crate::helpers::TestApp;

async fn count(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resolve_now_then_back_and_the_same_button_resolves_nothing_more() {
    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let base = app.url("");
    let pool = app.db.pool.clone();
    let reports = "SELECT count(*) FROM published_reports";
    let mails = "SELECT count(*) FROM outbound_messages";
    let audit = "SELECT count(*) FROM audit_log";
    let shots = crate::browser::failures_dir().join("../once");
    std::fs::create_dir_all(&shots).unwrap();
    in_browser("resolve_now_back", &driver, move |client| async move {
        client.goto(&format!("{base}/gm/login")).await?;
        fill(&client, "#name", "nelson").await?;
        fill(&client, "#password", PASSWORD).await?;
        click(&client, "form button[type=submit]").await?;
        text_of(&client, "h1").await?;
        client.goto(&format!("{base}/gm/games/{game}")).await?;
        click(&client, "#resolve-now").await?;
        text_of(&client, "#confirm-form").await?;
        let published = count(&pool, reports).await;
        click(&client, "#confirm-form button[type=submit]").await?;
        text_of(&client, "#notice").await?;
        ensure!(
            count(&pool, reports).await == published + 1,
            "one turn resolved"
        );
        let (mailed, audited) = (count(&pool, mails).await, count(&pool, audit).await);
        // Back to the confirmation page, and the same button again (where the page kept it).
        client.back().await?;
        text_of(&client, "h1").await?;
        if client
            .find(fantoccini::Locator::Css("#confirm-form button"))
            .await
            .is_ok()
        {
            click(&client, "#confirm-form button[type=submit]").await?;
        }
        let said = text_of(&client, "main").await?;
        ensure!(said.contains("Already done"), "the page said: {said}");
        ensure!(said.contains("The GM console"), "the way back: {said}");
        for width in [1280u32, 390] {
            client.set_window_size(width, 900).await?;
            let png = client.screenshot().await?;
            std::fs::write(shots.join(format!("resolve-back-{width}.png")), png)?;
        }
        ensure!(
            count(&pool, reports).await == published + 1,
            "no second turn"
        );
        ensure!(count(&pool, mails).await == mailed, "no more mail");
        ensure!(count(&pool, audit).await == audited, "no audit entry");
        ensure!(
            path_of(&client).await?.starts_with("/gm/games/"),
            "stays in the game"
        );
        Ok(())
    })
    .await;
    app.stop().await;
}

/// Logs the GM in, in the browser.
async fn gm_login(client: &fantoccini::Client, base: &str) -> anyhow::Result<()> {
    client.goto(&format!("{base}/gm/login")).await?;
    fill(client, "#name", "nelson").await?;
    fill(client, "#password", PASSWORD).await?;
    click(client, "form button[type=submit]").await?;
    text_of(client, "h1").await?;
    Ok(())
}

/// Back to the page the button was on, and the same button again if the page kept it.
async fn back_and_again(client: &fantoccini::Client, button: &str) -> anyhow::Result<String> {
    client.back().await?;
    text_of(client, "h1").await?;
    if client.find(fantoccini::Locator::Css(button)).await.is_ok() {
        click(client, button).await?;
    }
    text_of(client, "main").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_issue_then_back_and_the_same_button_publishes_no_second_issue() {
    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = TestApp::spawn().await;
    populate(&app.db.pool).await;
    add_gm(&app.db.pool, "nelson").await;
    let base = app.url("");
    let pool = app.db.pool.clone();
    let issues = "SELECT count(*) FROM zine_issues WHERE published_at IS NOT NULL";
    let mails = "SELECT count(*) FROM outbound_messages";
    let audit = "SELECT count(*) FROM audit_log";
    in_browser("publish_issue_back", &driver, move |client| async move {
        gm_login(&client, &base).await?;
        client.goto(&format!("{base}/gm/zines/demo/issues")).await?;
        crate::browser::choose(&client, "#rhythm", "manual").await?;
        click(&client, "#issue-rhythm button[type=submit]").await?;
        click(&client, "#issue-publish").await?;
        text_of(&client, "#confirm-form").await?;
        let published = count(&pool, issues).await;
        click(&client, "#confirm-form button[type=submit]").await?;
        text_of(&client, "#notice").await?;
        ensure!(
            count(&pool, issues).await == published + 1,
            "one issue published"
        );
        let (mailed, audited) = (count(&pool, mails).await, count(&pool, audit).await);
        ensure!(mailed > 0, "the issue was mailed");
        let said = back_and_again(&client, "#confirm-form button[type=submit]").await?;
        ensure!(said.contains("Already done"), "the page said: {said}");
        ensure!(
            count(&pool, issues).await == published + 1,
            "no second issue"
        );
        ensure!(count(&pool, mails).await == mailed, "no more mail");
        ensure!(count(&pool, audit).await == audited, "no audit entry");
        Ok(())
    })
    .await;
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn press_then_back_and_send_again_or_reload_and_send_again_is_printed_once() {
    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = TestApp::spawn().await;
    let game = populate(&app.db.pool).await;
    let base = app.url("");
    let pool = app.db.pool.clone();
    let words = "We leave Cadiz at dawn.";
    let press = "SELECT count(*) FROM press";
    in_browser("press_back", &driver, move |client| async move {
        client.goto(&format!("{base}/login")).await?;
        fill(&client, "#email", "villeneuve@example.org").await?;
        click(&client, "#login-form button[type=submit]").await?;
        text_of(&client, "#notice").await?;
        let mails = crate::players::login_mails(&pool, "villeneuve@example.org").await;
        let link = crate::players::link_path(mails.first().expect("a login mail"));
        client.goto(&format!("{base}{link}")).await?;
        click(&client, "#log-in").await?;
        text_of(&client, "h1").await?;
        let page = format!("{base}/me/games/{game}");
        client.goto(&page).await?;
        let before = count(&pool, press).await;
        fill(&client, "#press-text", words).await?;
        click(&client, "#press-form button[type=submit]").await?;
        text_of(&client, "#press-sent").await?;
        ensure!(count(&pool, press).await == before + 1, "the press is kept");
        // Back, and the same button again: the form's key was used.
        let said = back_and_again(&client, "#press-form button[type=submit]").await?;
        ensure!(said.contains("Already done"), "the page said: {said}");
        ensure!(count(&pool, press).await == before + 1, "no second entry");
        // Back, a reload (a fresh key), the same words again: the service knows the text.
        client.back().await?;
        client.refresh().await?;
        fill(&client, "#press-text", words).await?;
        click(&client, "#press-form button[type=submit]").await?;
        let said = text_of(&client, "main").await?;
        ensure!(said.contains("already sent"), "the page said: {said}");
        ensure!(count(&pool, press).await == before + 1, "no second entry");
        // Printed once: the turn resolves and the report carries the words once.
        server::turns::gm_action(
            &pool,
            crate::helpers::trafalgar() + chrono::Duration::hours(1),
            crate::helpers::id(game),
            server::turns::GmAction::ResolveNow,
            "gm",
            "zine.example.org",
        )
        .await?;
        let report: String = sqlx::query_scalar(
            "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id
             WHERE t.game_id = $1 ORDER BY r.id DESC LIMIT 1",
        )
        .bind(game)
        .fetch_one(&pool)
        .await?;
        ensure!(report.matches(words).count() == 1, "printed once: {report}");
        Ok(())
    })
    .await;
    app.stop().await;
}
