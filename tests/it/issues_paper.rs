//! The issue on paper and in a real browser: `gm zine SLUG pdf` through headless Chromium (A4
//! and US letter, games packed on pages, a game with nothing new in one line), and the GM
//! publishing an issue in Chromium that a reader then opens.

use chrono::Duration;
use games::EngineKind;
use server::issues;
use server::turns::{self, GameSpec, Schedule};

use crate::browser::{click, fill, in_browser, start_chromedriver, text_of, text_once};
use crate::console::{PASSWORD, add_gm};
use crate::helpers::{Counter, TestApp, trafalgar};
use crate::inbox::DOMAIN;
use crate::issues::a_zine_with_a_turn_and_letters;

/// How many pages a PDF has, and the size of its first (points), read from its page objects.
fn pages_and_size(pdf: &[u8]) -> (usize, String) {
    let text = String::from_utf8_lossy(pdf);
    let pages = text.matches("/Type /Page\n").count()
        + text.matches("/Type /Page ").count()
        + text.matches("/Type /Page/").count()
        + text.matches("/Type /Page>").count();
    let size = text
        .split("/MediaBox [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_default()
        .trim()
        .to_owned();
    (pages, size)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gm_zine_pdf_prints_an_issue_on_a4_and_letter_packing_its_games_on_pages() {
    let Some(driver) = start_chromedriver() else {
        return;
    };
    drop(driver);
    let db = store::testing::TestDatabase::migrated().await;
    let (zine, _game) = a_zine_with_a_turn_and_letters(&db.pool).await;
    // Four more games with nothing new: a line each, not a page each (issue 27).
    for (seed, name) in (10u8..).zip(["Quiet One", "Quiet Two", "Quiet Three", "Quiet Four"]) {
        let spec = GameSpec {
            zine: zine.id,
            name,
            setup: &EngineKind::Barmy.default_setup(),
            first_deadline: Some(trafalgar() + Duration::days(2)),
            schedule: Schedule::EveryDays(7),
        };
        turns::create_game(&db.pool, trafalgar(), &spec, &mut Counter(seed))
            .await
            .unwrap();
    }
    issues::publish_now(
        &db.pool,
        trafalgar() + Duration::hours(2),
        &zine,
        Some(DOMAIN),
        "",
        "nelson",
    )
    .await
    .unwrap();
    let dir = std::env::temp_dir().join(format!("admiralty-pdf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut sizes = Vec::new();
    for paper in ["a4", "letter"] {
        let out = dir.join(format!("issue-{paper}.pdf"));
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
            .env("DATABASE_URL", &db.url)
            .env_remove("ADMIRALTY_LOG")
            .args(["zine", "mailed", "pdf", "1", "--paper", paper, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let pdf = std::fs::read(&out).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        let (pages, size) = pages_and_size(&pdf);
        // Cover and editorial, the game's report, the four quiet games, sign-ups and letters
        // on two pages (a page per game made seven).
        assert!((1..=2).contains(&pages), "{pages} pages");
        if let Some(keep) = std::env::var_os("ADMIRALTY_KEEP_PDF") {
            std::fs::copy(
                &out,
                std::path::Path::new(&keep).join(format!("issue-{paper}.pdf")),
            )
            .unwrap();
        }
        sizes.push(size);
    }
    // A4 is 595 x 842 points (Chromium writes 594.96 x 841.92), US letter 612 x 792.
    assert!(
        sizes[0].starts_with("0 0 594.9") && sizes[0].contains(" 841.9"),
        "{sizes:?}"
    );
    assert!(
        sizes[1].contains("612") && sizes[1].contains("792"),
        "{sizes:?}"
    );
    // A draft or a missing issue is refused with the reason.
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
        .env("DATABASE_URL", &db.url)
        .args(["zine", "mailed", "pdf", "2", "--out"])
        .arg(dir.join("none.pdf"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("has no published issue 2"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gm_publishes_an_issue_in_a_real_browser_and_a_reader_opens_it() {
    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let _game = crate::inbox::game(&pool).await;
    add_gm(&pool, "nelson").await;
    let base = app.url("");
    in_browser("zine_issue", &driver, move |client| async move {
        client
            .goto(&format!("{base}/gm/zines/mailed/issues"))
            .await?;
        fill(&client, "#name", "nelson").await?;
        fill(&client, "#password", PASSWORD).await?;
        click(&client, "form button[type=submit]").await?;
        crate::browser::choose(&client, "#rhythm", "manual").await?;
        click(&client, "#issue-rhythm button").await?;
        anyhow::ensure!(
            text_once(&client, "#notice", "The rhythm is saved.").await? == "The rhythm is saved."
        );
        fill(&client, "#editorial", "Fair winds, *readers*.").await?;
        click(&client, "#issue-editorial button").await?;
        anyhow::ensure!(
            text_once(&client, "#notice", "The editorial is saved.").await?
                == "The editorial is saved."
        );
        click(&client, "#issue-preview").await?;
        let preview = text_of(&client, "article.issue").await?;
        anyhow::ensure!(preview.contains("Fair winds, readers."), "{preview}");
        client.back().await?;
        click(&client, "#issue-publish").await?;
        click(&client, "#confirm-form button").await?;
        anyhow::ensure!(
            text_once(
                &client,
                "#notice",
                "The issue is published and its mail queued."
            )
            .await?
                == "The issue is published and its mail queued."
        );
        // A reader, logged out, finds it on the zine's page.
        click(&client, "header form button").await?;
        // The logout's own page first: a goto before it lands would be overtaken by it.
        text_of(&client, "#password").await?;
        client.goto(&format!("{base}/zines/mailed")).await?;
        click(&client, "ul.issues a").await?;
        let issue = text_of(&client, "article.issue").await?;
        anyhow::ensure!(issue.contains("Mailed"), "{issue}");
        anyhow::ensure!(issue.contains("Fair winds, readers."), "{issue}");
        anyhow::ensure!(issue.contains("Mailed Barmy"), "{issue}");
        let emphasis = text_of(&client, ".issue-editorial em").await?;
        anyhow::ensure!(emphasis == "readers", "{emphasis}");
        Ok(())
    })
    .await;
    drop(driver);
    app.stop().await;
}
