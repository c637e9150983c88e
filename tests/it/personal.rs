//! A subscriber's data through their pages: the download holds their orders, press and mail
//! and nothing hidden of another player; the erasure, confirmed by typing the address, leaves
//! the address nowhere in the database, resigns the seats, keeps the published reports and
//! their replay byte for byte, tells the GM, and makes the old address a stranger's.

use chrono::Duration;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_DISPOSITION, LOCATION};
use serde_json::Value;
use server::turns;
use store::PgPool;
use store::games::GameId;
use store::status::Source;

use crate::console::hidden_csrf;
use crate::helpers::trafalgar;
use crate::players::{NELSON, VILLENEUVE, fleet, logged_in, player_of};

const DOMAIN: &str = "zine.example.org";

fn mail_from_nelson(id: &str, to: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Horatio Nelson <{NELSON}>\r\nTo: Admiralty <{to}>\r\n\
         Message-ID: <{id}@victory.example>\r\nSubject: Re: Trafalgar\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
    .into_bytes()
}

async fn reply_address(pool: &PgPool, game: GameId, email: &str) -> String {
    let token: String = sqlx::query_scalar(
        "SELECT p.reply_token FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 AND s.email = $2",
    )
    .bind(game)
    .bind(email)
    .fetch_one(pool)
    .await
    .unwrap();
    server::letters::reply_address(&token, DOMAIN)
}

/// The whole database as SQL text, as `pg_dump` writes it.
fn dump(url: &str) -> String {
    let output = std::process::Command::new("pg_dump")
        .arg("--data-only")
        .arg(format!("--dbname={url}"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

#[tokio::test]
async fn a_subscriber_downloads_their_data_then_erases_it_and_the_record_stands() {
    let fleet = fleet().await;
    let app = &fleet.app;
    let pool = &app.db.pool;
    let game = fleet.barmy;
    let (nelson, _) = player_of(pool, game, NELSON).await;
    let (villeneuve, _) = player_of(pool, game, VILLENEUVE).await;
    let at = trafalgar();
    turns::submit_orders(
        pool,
        at,
        game,
        nelson,
        "A1, B2 England expects",
        Source::Web,
    )
    .await
    .unwrap();
    turns::submit_orders(pool, at, game, villeneuve, "J9, J10", Source::Web)
        .await
        .unwrap();
    turns::resolve_due(pool, at + Duration::days(1), DOMAIN)
        .await
        .unwrap();
    let during = at + Duration::days(1) + Duration::hours(1);
    // Villeneuve's orders for the open turn are hidden from everyone else.
    turns::submit_orders(pool, during, game, villeneuve, "H8, G7", Source::Web)
        .await
        .unwrap();
    let to = reply_address(pool, game, NELSON).await;
    let raw = mail_from_nelson("orders-2", &to, "C3, D4\r\n");
    server::inbox::ingest(pool, &raw, "pipe", during, DOMAIN)
        .await
        .unwrap();
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM orders WHERE raw_text LIKE '%C3, D4%'"
        )
        .await,
        1
    );

    // An entry whose details hold the address: the erasure strikes it from the audit log.
    let subscriber: store::subscribers::SubscriberId =
        sqlx::query_scalar("SELECT id FROM subscribers WHERE email = $1")
            .bind(NELSON)
            .fetch_one(pool)
            .await
            .unwrap();
    let zine: store::zines::ZineId =
        sqlx::query_scalar("SELECT zine_id FROM subscribers WHERE email = $1")
            .bind(NELSON)
            .fetch_one(pool)
            .await
            .unwrap();
    store::audit::append(
        pool,
        &store::audit::NewAuditEntry {
            actor: "cli",
            game: None,
            action: store::audit::AuditAction::SubscriberAdd {
                zine,
                subscriber,
                email: store::EmailAddress::parse(NELSON).unwrap(),
            },
        },
        at,
    )
    .await
    .unwrap();

    let public = format!("/zines/gazette/games/{game}/turns/1");
    let page_before = app.get(&public).await.text().await.unwrap();
    let text_before = app
        .get(&format!("{public}.txt"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page_before.contains("England expects"));
    assert!(
        !page_before.contains(NELSON),
        "reports print names, not addresses"
    );

    // The download.
    let mut browser = logged_in(app, NELSON).await;
    let response = browser.get("/me/data").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()[CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );
    let text = response.text().await.unwrap();
    let data: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(data["format"], "admiralty-personal-data");
    assert_eq!(data["address"], NELSON);
    let orders = data["orders"].to_string();
    assert!(
        orders.contains("A1, B2 England expects") && orders.contains("C3, D4"),
        "{orders}"
    );
    assert!(data["press"].to_string().contains("England expects"));
    assert!(
        data["mail_from_them"]
            .to_string()
            .contains("orders-2@victory.example")
    );
    assert!(!data["mail_to_them"].as_array().unwrap().is_empty());
    assert!(!data["audit_entries"].as_array().unwrap().is_empty());
    assert_eq!(
        data["seats"].as_array().unwrap().len(),
        2,
        "Trafalgar and the Nile"
    );
    // Nothing of Villeneuve's: not the open turn's orders, not the address.
    assert!(!text.contains("H8, G7"), "another player's hidden orders");
    assert!(!text.contains(VILLENEUVE));

    // The erasure: a wrong address erases nothing.
    let page = browser.get_text("/me/erase").await;
    let csrf = hidden_csrf(&page);
    let wrong = browser
        .post(
            "/me/erase",
            &[("csrf", &csrf), ("address", "someone@else.example")],
        )
        .await;
    assert_eq!(wrong.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(dump(&app.db.url).contains(NELSON));
    let page = browser.get_text("/me/erase").await;
    let csrf = hidden_csrf(&page);
    let done = browser
        .post(
            "/me/erase",
            &[("csrf", &csrf), ("address", "Nelson@Victory.example")],
        )
        .await;
    assert_eq!(done.status(), StatusCode::OK);
    assert!(done.text().await.unwrap().contains("Your data is erased"));

    let everything = dump(&app.db.url).to_lowercase();
    assert!(
        !everything.contains(NELSON),
        "the address is still stored:\n{}",
        everything
            .lines()
            .filter(|l| l.contains(NELSON))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let checks = turns::verify_game(pool, game).await.unwrap();
    assert!(!checks.is_empty() && checks.iter().all(|c| c.matches));
    assert_eq!(app.get(&public).await.text().await.unwrap(), page_before);
    assert_eq!(
        app.get(&format!("{public}.txt"))
            .await
            .text()
            .await
            .unwrap(),
        text_before
    );
    let status: String = sqlx::query_scalar("SELECT status FROM players WHERE id = $1")
        .bind(nelson)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(status, "resigned");
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM gm_notices WHERE kind = 'subscriber_erased'"
        )
        .await,
        1
    );
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'subscriber.erase'"
        )
        .await,
        1
    );

    // Logged out for good, and a new mail from the old address is a stranger's.
    let me = browser.get("/me").await;
    assert_eq!(me.status(), StatusCode::SEE_OTHER);
    assert!(
        me.headers()[LOCATION]
            .to_str()
            .unwrap()
            .starts_with("/login")
    );
    let orders_before = count(pool, "SELECT count(*) FROM orders").await;
    let raw = mail_from_nelson("orders-3", &to, "E5, F6\r\n");
    server::inbox::ingest(pool, &raw, "pipe", during, DOMAIN)
        .await
        .unwrap();
    assert_eq!(
        count(pool, "SELECT count(*) FROM orders").await,
        orders_before
    );
    drop(browser);
    fleet.app.stop().await;
}
