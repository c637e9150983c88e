#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! The GM console end to end in headless Chromium, driven through Debian's `chromedriver`:
//! the GM logs in, creates a zine, adds subscribers by the form and by a CSV file, creates a
//! game from the engine's form and sees the turn's status. A failing run leaves a screenshot
//! in `target/browser-failures/`.
//!
//! Without `chromedriver` on the PATH the test says so loudly and passes, unless
//! `ADMIRALTY_REQUIRE_BROWSER` is set (`./scripts/test` sets it and installs Chromium, so CI
//! never skips).

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, ensure};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

use crate::console::{PASSWORD, add_gm};
use crate::helpers::TestApp;

/// A `chromedriver` process on a free port, killed when dropped.
pub(crate) struct Chromedriver {
    process: Child,
    port: u16,
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Starts chromedriver, or returns `None` (after saying why, loudly) when it is not installed
/// and the browser is not required.
pub(crate) fn start_chromedriver() -> Option<Chromedriver> {
    let installed = Command::new("chromedriver")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !installed {
        assert!(
            std::env::var_os("ADMIRALTY_REQUIRE_BROWSER").is_none(),
            "ADMIRALTY_REQUIRE_BROWSER is set but chromedriver is not on the PATH: \
             install Debian's chromium and chromium-driver (./scripts/test does)"
        );
        eprintln!(
            "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
             !!! SKIPPED: the browser test needs chromedriver (Debian: chromium and\n\
             !!! chromium-driver; ./scripts/test installs them). Nothing was tested here.\n\
             !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
        );
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap();
    let process = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting chromedriver");
    let driver = Chromedriver { process, port };
    // A process starting up, not a deadline: poll until it listens.
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(driver)
}

pub(crate) async fn open_browser(driver: &Chromedriver) -> Client {
    let mut capabilities = serde_json::Map::new();
    let mut chrome = serde_json::json!({
        "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=420,900"],
    });
    // Debian's binary; chromedriver looks for "google-chrome" first.
    if std::path::Path::new("/usr/bin/chromium").exists() {
        chrome["binary"] = "/usr/bin/chromium".into();
    }
    capabilities.insert("goog:chromeOptions".into(), chrome);
    let connect = ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await;
    // A cold Chromium can be slow to start on a busy machine.
    tokio::time::timeout(Duration::from_secs(60), async { connect })
        .await
        .expect("a browser session within 60 s")
        .expect("a browser session")
}

pub(crate) fn failures_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    target.join("browser-failures")
}

/// Runs `flow` in the browser; on failure (an error or a panic) saves a screenshot and the
/// page's HTML, closes the session, then fails the test.
pub(crate) async fn in_browser<F, Fut>(name: &str, driver: &Chromedriver, flow: F)
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let client = open_browser(driver).await;
    let outcome = tokio::spawn(flow(client.clone())).await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(error)) => Some(format!("{error:#}")),
        Err(panic) => Some(format!("panicked: {panic}")),
    };
    if let Some(failure) = &failure {
        let dir = failures_dir();
        std::fs::create_dir_all(&dir).unwrap();
        if let Ok(png) = client.screenshot().await {
            std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
        }
        if let Ok(html) = client.source().await {
            std::fs::write(dir.join(format!("{name}.html")), html).unwrap();
        }
        eprintln!(
            "browser test {name} failed: {failure}; screenshot in {}",
            dir.display()
        );
    }
    // Close the session before chromedriver goes, or Chromium processes linger.
    client.close().await.unwrap();
    if let Some(failure) = failure {
        panic!("{failure}");
    }
}

/// Runs `step` on the element `css` names, found afresh each time: a page that is being left
/// may still answer the lookup and be gone when the step runs ("stale element reference"), so
/// such a step is tried again, on the element of the page that replaced it, for up to 10 s.
pub(crate) async fn on_element<T, F, Fut>(client: &Client, css: &str, step: F) -> anyhow::Result<T>
where
    F: Fn(fantoccini::elements::Element) -> Fut,
    Fut: std::future::Future<Output = Result<T, fantoccini::error::CmdError>>,
{
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let element = client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("waiting for {css}"))?;
        match step(element).await {
            Ok(value) => return Ok(value),
            Err(error) if page_was_replaced(&error) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => return Err(error).with_context(|| format!("on {css}")),
        }
    }
}

/// Whether `error` says the element's page went away under the step. Chromium says so as a
/// "stale element reference", or, when the node goes while the step runs, as an "unknown
/// error" of its inspector ("Node with given id does not belong to the document").
fn page_was_replaced(error: &fantoccini::error::CmdError) -> bool {
    if error.is_stale_element_reference() {
        return true;
    }
    let message = error.to_string();
    ["does not belong to the document", "No node with given id"]
        .iter()
        .any(|sign| message.contains(sign))
}

pub(crate) async fn text_of(client: &Client, css: &str) -> anyhow::Result<String> {
    on_element(client, css, |element| async move { element.text().await }).await
}

/// The text of `css` once it contains `wanted`, for up to 10 s: after a click that leaves the
/// page, the old page's element (a notice of the step before) may answer first.
pub(crate) async fn text_once(client: &Client, css: &str, wanted: &str) -> anyhow::Result<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = text_of(client, css).await?;
        if text.contains(wanted) || Instant::now() >= deadline {
            return Ok(text);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) async fn fill(client: &Client, css: &str, text: &str) -> anyhow::Result<()> {
    on_element(client, css, |input| async move {
        input.clear().await?;
        input.send_keys(text).await
    })
    .await
}

/// Chooses the option `value` of the `<select>` `css`.
pub(crate) async fn choose(client: &Client, css: &str, value: &str) -> anyhow::Result<()> {
    let value = value.to_owned();
    on_element(client, css, move |select| {
        let value = value.clone();
        async move { select.select_by_value(&value).await }
    })
    .await
}

pub(crate) async fn click(client: &Client, css: &str) -> anyhow::Result<()> {
    on_element(client, css, |element| async move { element.click().await }).await
}

pub(crate) async fn path_of(client: &Client) -> anyhow::Result<String> {
    let url = client.current_url().await?;
    Ok(match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gm_sets_up_a_zine_and_a_game_in_a_real_browser() {
    let Some(driver) = start_chromedriver() else {
        return;
    };
    let app = TestApp::spawn().await;
    add_gm(&app.db.pool, "nelson").await;
    let base = app.url("");
    let csv = failures_dir().join("../browser-subscribers.csv");
    std::fs::create_dir_all(failures_dir()).unwrap();
    std::fs::write(
        &csv,
        "email,name\nhardy@victory.example,Thomas Hardy\nnot an address,Nobody\nblackwood@euryalus.example,Henry Blackwood\n",
    )
    .unwrap();
    let csv = csv.canonicalize().unwrap();

    in_browser("gm_console", &driver, move |client| async move {
        // The console sends a stranger to the login; a wrong password is refused.
        client.goto(&format!("{base}/gm/zines")).await?;
        ensure!(
            path_of(&client).await?.starts_with("/gm/login?next="),
            "not sent to the login"
        );
        fill(&client, "#name", "nelson").await?;
        fill(&client, "#password", "wrong password").await?;
        click(&client, "form button[type=submit]").await?;
        ensure!(text_of(&client, "#login-error").await? == "Wrong name or password.");
        fill(&client, "#password", PASSWORD).await?;
        click(&client, "form button[type=submit]").await?;
        text_of(&client, "#zine-name").await?;
        ensure!(
            path_of(&client).await? == "/gm/zines",
            "back where the GM was going"
        );

        // A zine.
        fill(&client, "#zine-name", "The Gazette").await?;
        fill(&client, "#zine-slug", "gazette").await?;
        click(&client, "form[action='/gm/zines'] button").await?;
        ensure!(text_once(&client, "#notice", "Zine added.").await? == "Zine added.");
        click(&client, "#zines a").await?;

        // Subscribers by the form...
        for (name, email) in [
            ("Horatio Nelson", "nelson@victory.example"),
            ("Pierre Villeneuve", "villeneuve@bucentaure.example"),
        ] {
            fill(&client, "#sub-name", name).await?;
            fill(&client, "#sub-email", email).await?;
            click(&client, "#add-subscriber button").await?;
            ensure!(
                text_once(&client, "#notice", "Subscriber added.").await? == "Subscriber added."
            );
        }
        // ...and by a CSV file, with the bad row reported.
        client
            .find(Locator::Css("#import-file"))
            .await?
            .send_keys(csv.to_str().ok_or_else(|| anyhow!("path"))?)
            .await?;
        click(&client, "#import button").await?;
        let report = text_of(&client, "#import-report").await?;
        ensure!(
            report.contains("CSV import: 2 subscriber(s) added; 1 row(s) not imported"),
            "{report}"
        );
        ensure!(report.contains("not an address,Nobody"), "{report}");
        let table = text_of(&client, "#subscribers").await?;
        for name in [
            "Horatio Nelson",
            "Pierre Villeneuve",
            "Thomas Hardy",
            "Henry Blackwood",
        ] {
            ensure!(table.contains(name), "{name} missing from {table}");
        }

        // A game, from the engine's own form: a bad setting first, then a good one.
        click(&client, "#new-game").await?;
        click(&client, "#engines a[href$='engine=barmy']").await?;
        fill(&client, "#game-name", "Trafalgar").await?;
        // The browser checks the numbers' limits itself; the server checks them again, and
        // names every bad field at once (the browser's own check is switched off here, as an
        // old browser would not have it).
        client
            .execute(
                "document.querySelector('#new-game-form').noValidate = true;",
                vec![],
            )
            .await?;
        fill(&client, "#setup-width", "").await?;
        fill(&client, "#setup-height", "1000").await?;
        click(&client, "#new-game-form button[type=submit]").await?;
        let errors = text_of(&client, "#errors").await?;
        ensure!(
            errors.contains("Columns: a number from 4 to 702 is needed.")
                && errors.contains("Rows: 1000 is not from 4 to 999."),
            "{errors}"
        );
        fill(&client, "#setup-width", "9").await?;
        fill(&client, "#setup-height", "9").await?;
        click(&client, "#new-game-form button[type=submit]").await?;
        ensure!(
            text_once(&client, "#notice", "Game created: turn 1 is open.").await?
                == "Game created: turn 1 is open."
        );

        // The turn's status: nobody has ordered yet.
        ensure!(
            text_of(&client, "#open-turn")
                .await?
                .starts_with("Turn 1: deadline")
        );
        ensure!(
            text_of(&client, "#order-count").await? == "0 of 4 active player(s) have sent orders."
        );
        let players = text_of(&client, "#players").await?;
        ensure!(players.matches("no orders yet").count() == 4, "{players}");
        Ok(())
    })
    .await;
    drop(driver);
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games WHERE name = 'Trafalgar'")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(games, 1);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_logs_in_by_mail_and_sends_orders_in_a_real_browser() {
    use crate::players::{NELSON, fleet, link_path, login_mails};
    let Some(driver) = start_chromedriver() else {
        return;
    };
    let fleet = fleet().await;
    let base = fleet.app.url("");
    let pool = fleet.app.db.pool.clone();
    let game = fleet.barmy;
    let state: serde_json::Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(&pool)
        .await
        .unwrap();
    let nelson: i64 = sqlx::query_scalar(
        "SELECT p.engine_player_id FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND s.email = $2",
    )
    .bind(game)
    .bind(NELSON)
    .fetch_one(&pool)
    .await
    .unwrap();
    let nelson = engine::PlayerId(u64::try_from(nelson).unwrap());
    let (bad, good) = ("A1, B2\nZ99, Q0", "A1, B2 England expects");
    let barmy = games::EngineKind::Barmy;
    let problem = barmy
        .parse_state(&state)
        .unwrap()
        .parse_orders(nelson, bad)
        .errors[0]
        .problem
        .clone();
    let understood = barmy
        .parse_state(&state)
        .unwrap()
        .parse_orders(nelson, good)
        .understood;

    let player_base = base.clone();
    in_browser("player_orders", &driver, move |client| async move {
        let base = player_base;
        // A stranger is sent to the login; the link arrives by mail (the outbox).
        client.goto(&format!("{base}/me")).await?;
        ensure!(
            path_of(&client).await?.starts_with("/login"),
            "not sent to the login"
        );
        fill(&client, "#email", NELSON).await?;
        click(&client, "#login-form button[type=submit]").await?;
        let notice = text_once(&client, "#notice", "a login link is on its way").await?;
        ensure!(notice.contains("a login link is on its way"), "{notice}");
        let mails = login_mails(&pool, NELSON).await;
        let link = link_path(mails.first().ok_or_else(|| anyhow!("no login mail"))?);
        client.goto(&format!("{base}{link}")).await?;
        click(&client, "#log-in").await?;
        text_of(&client, "#games").await?;
        ensure!(
            path_of(&client).await? == "/me",
            "not on /me after the login"
        );

        // A bad line: the engine's error beside it, the text kept, the good line standing (one
        // policy for mail and web); then the set is sent again whole and right.
        click(&client, &format!("#games a[href='/me/games/{game}']")).await?;
        fill(&client, "#orders-text", bad).await?;
        click(&client, "#orders-form button").await?;
        let error = text_of(&client, "#orders-error").await?;
        ensure!(
            error.contains("as understood") && error.contains("a refused line is left out"),
            "{error}"
        );
        let lines = text_of(&client, "#order-lines").await?;
        ensure!(lines.contains(&problem), "{problem} not in {lines}");
        ensure!(lines.contains("Z99, Q0"), "{lines}");
        fill(&client, "#orders-text", good).await?;
        click(&client, "#orders-form button").await?;
        let notice = text_once(&client, "#notice", "Your orders were received.").await?;
        ensure!(notice.starts_with("Your orders were received."), "{notice}");
        let current = text_of(&client, "#current-orders").await?;
        for line in &understood {
            ensure!(current.contains(line.as_str()), "{line} not in {current}");
        }
        Ok(())
    })
    .await;

    // The deadline passes and the turn resolves; a reader (no login) sees the report and the
    // board.
    let resolved = server::turns::resolve_due(
        &fleet.app.db.pool,
        crate::helpers::trafalgar() + chrono::Duration::days(1),
        "zine.example.org",
    )
    .await
    .unwrap();
    assert!(resolved.iter().any(|r| r.game == game));
    in_browser("reader_report", &driver, move |client| async move {
        client
            .goto(&format!("{base}/zines/gazette/games/{game}/turns/1"))
            .await?;
        let report = text_of(&client, ".report-table").await?;
        ensure!(report.contains("Horatio Nelson"), "{report}");
        let press = text_of(&client, ".press").await?;
        ensure!(press.contains("England expects"), "{press}");
        client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css("figure.board svg"))
            .await
            .context("the board picture")?;
        client
            .goto(&format!(
                "{base}/zines/gazette/games/{game}/turns/1/board.svg"
            ))
            .await?;
        let svg = client.source().await?;
        ensure!(svg.contains("<svg"), "no SVG: {svg}");
        Ok(())
    })
    .await;
    drop(driver);
    fleet.app.stop().await;
}
