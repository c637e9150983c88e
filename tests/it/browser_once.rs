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
