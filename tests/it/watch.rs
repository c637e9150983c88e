//! What an operator watches (issue 30): the metrics after real mail and a real resolution,
//! counted exactly; the metrics' token; readiness against the schema the binary embeds; and
//! the client address a trusted proxy names, for the GM login limits and the audit log.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue};
use store::testing::TestDatabase;

use crate::console::{Browser, PASSWORD, add_gm};
use crate::doors::{Doors, smtp_reply, smtp_say};
use crate::helpers::TestApp;
use crate::inbox::{DOMAIN, game, message, reply_address_of};
use crate::kill::{scalar, until};
use crate::outbox::{SmtpSink, free_port};

const NOW: &str = "1805-10-21T11:45:00Z";
const TOKEN: &str = "a-metrics-token-of-some-length";

/// The samples of a Prometheus text, by series as written (`name{label="value"}`).
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            Some((series.to_owned(), value.parse().ok()?))
        })
        .collect()
}

async fn scrape(port: u16, token: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(format!("http://127.0.0.1:{port}/metrics"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn metrics(port: u16) -> BTreeMap<String, f64> {
    let response = scrape(port, Some(TOKEN)).await;
    assert_eq!(response.status(), StatusCode::OK);
    samples(&response.text().await.unwrap())
}

/// The change of each of `series` from `before` to `after` (absent counts as 0).
fn deltas(
    before: &BTreeMap<String, f64>,
    after: &BTreeMap<String, f64>,
    series: &[&str],
) -> Vec<(String, f64)> {
    series
        .iter()
        .map(|s| {
            let at = |m: &BTreeMap<String, f64>| m.get(*s).copied().unwrap_or(0.0);
            ((*s).to_owned(), at(after) - at(before))
        })
        .collect()
}

/// Scrapes until `series` moved by `want` from `before` (a counter moves just after the
/// commit the database shows), then returns that scrape.
async fn metrics_once(
    port: u16,
    before: &BTreeMap<String, f64>,
    series: &str,
    want: f64,
) -> BTreeMap<String, f64> {
    let started = Instant::now();
    loop {
        let now = metrics(port).await;
        let moved = deltas(before, &now, &[series])[0].1;
        if moved >= want || started.elapsed() > Duration::from_secs(30) {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One message through the SMTP listener, one session for it.
async fn smtp_send(doors: &Doors, from: &str, to: &str, raw: &[u8]) {
    use tokio::io::AsyncWriteExt;
    let mut client = doors.smtp_connect().await;
    assert!(smtp_reply(&mut client).await.starts_with("220"));
    for command in [
        "EHLO client.example".to_owned(),
        format!("MAIL FROM:<{from}>"),
        format!("RCPT TO:<{to}>"),
    ] {
        let said = smtp_say(&mut client, &command).await;
        assert!(said.starts_with("250"), "{command}: {said}");
    }
    assert!(smtp_say(&mut client, "DATA").await.starts_with("354"));
    client.write_all(raw).await.unwrap();
    let said = smtp_say(&mut client, ".").await;
    assert!(said.starts_with("250"), "{said}");
    assert!(smtp_say(&mut client, "QUIT").await.starts_with("221"));
}

#[tokio::test]
async fn metrics_count_a_burst_of_mail_a_resolved_turn_and_its_deliveries_exactly() {
    let db = TestDatabase::migrated().await;
    let game = game(&db.pool).await;
    let envelope = reply_address_of(&db.pool, game, 1).await;
    let sink = SmtpSink::start(free_port());
    let relay = format!("smtp://127.0.0.1:{}", sink.port());
    let doors = Doors::start_on(
        db,
        &[
            ("ADMIRALTY_MAIL_DOMAIN", DOMAIN),
            ("ADMIRALTY_NOW", NOW),
            ("ADMIRALTY_DEADLINE_POLL_SECONDS", "1"),
            ("ADMIRALTY_METRICS_TOKEN", TOKEN),
            ("ADMIRALTY_SMTP_URL", &relay),
        ],
    )
    .await;
    let pool = doors.db.pool.clone();
    let before = metrics(doors.http).await;

    // The burst: three sets of orders, a command, a stranger's mail, an auto-reply.
    for (n, orders) in ["G13, K19", "T12, S13", "A1, A2"].iter().enumerate() {
        let raw = message(
            &format!("orders-{n}"),
            &envelope,
            "",
            &format!("{orders}\r\n"),
        );
        smtp_send(&doors, "fred@example.org", &envelope, &raw).await;
    }
    let help = message("help", &envelope, "", "HELP\r\n");
    smtp_send(&doors, "fred@example.org", &envelope, &help).await;
    let orders_at = format!("orders@{DOMAIN}");
    let stranger = format!(
        "From: <mallory@example.net>\r\nTo: <{orders_at}>\r\nMessage-ID: <stranger@example.net>\r\n\
         Subject: hello\r\n\r\nG13\r\n"
    );
    smtp_send(
        &doors,
        "mallory@example.net",
        &orders_at,
        stranger.as_bytes(),
    )
    .await;
    let away = message(
        "away",
        &envelope,
        "Auto-Submitted: auto-replied\r\n",
        "I am away until Monday.\r\n",
    );
    smtp_send(&doors, "fred@example.org", &envelope, &away).await;
    until(
        &pool,
        "SELECT count(*) FROM inbound_messages WHERE status <> 'new'",
        6,
    )
    .await;
    let after_mail = metrics_once(
        doors.http,
        &before,
        "admiralty_inbound_processing_seconds_count",
        6.0,
    )
    .await;
    let moved = deltas(
        &before,
        &after_mail,
        &[
            "admiralty_inbound_messages_total{outcome=\"orders\"}",
            "admiralty_inbound_messages_total{outcome=\"command\"}",
            "admiralty_inbound_messages_total{outcome=\"refused\"}",
            "admiralty_inbound_messages_total{outcome=\"dropped\"}",
            "admiralty_inbound_messages_total{outcome=\"failed\"}",
            "admiralty_inbound_processing_seconds_count",
            "admiralty_smtp_sessions_total",
            "admiralty_smtp_sessions_refused_total",
            "admiralty_turns_resolved_total",
            "admiralty_http_requests_total{route=\"/metrics\",method=\"GET\",status=\"200\"}",
        ],
    );
    let expected = [1.0 + 2.0, 1.0, 1.0, 1.0, 0.0, 6.0, 6.0, 0.0, 0.0];
    for ((series, delta), want) in moved.iter().zip(expected) {
        assert_eq!(*delta, want, "{series}");
    }
    // The earlier scrapes, each counted once it was answered.
    assert!(moved[9].1 >= 1.0, "{moved:?}");
    assert_eq!(after_mail["admiralty_smtp_sessions_open"], 0.0);
    assert_eq!(after_mail["admiralty_inbound_queue_messages"], 0.0);

    // The turn falls due 90 seconds before the fixed now: resolved once, 90 s late.
    sqlx::query("UPDATE turns SET deadline = $1 WHERE game_id = $2 AND status = 'open'")
        .bind(crate::helpers::trafalgar() - chrono::Duration::seconds(90))
        .bind(game)
        .execute(&pool)
        .await
        .unwrap();
    until(
        &pool,
        "SELECT count(*) FROM turns WHERE status <> 'open'",
        1,
    )
    .await;
    let resolved = metrics_once(
        doors.http,
        &after_mail,
        "admiralty_turns_resolved_total",
        1.0,
    )
    .await;
    let moved = deltas(
        &after_mail,
        &resolved,
        &[
            "admiralty_turns_resolved_total",
            "admiralty_turn_resolution_seconds_count",
            "admiralty_turn_resolution_lag_seconds_count",
            "admiralty_turn_resolution_lag_seconds_sum",
            "admiralty_inbound_messages_total{outcome=\"orders\"}",
        ],
    );
    assert_eq!(
        moved.iter().map(|(_, d)| *d).collect::<Vec<_>>(),
        [1.0, 1.0, 1.0, 90.0, 0.0],
        "{moved:?}"
    );

    // Everything queued is delivered through the relay, and counted once per message.
    until(
        &pool,
        "SELECT count(*) FROM outbound_messages WHERE status = 'queued'",
        0,
    )
    .await;
    let sent = scalar(
        &pool,
        "SELECT count(*) FROM outbound_messages WHERE status = 'sent'",
    )
    .await;
    assert!(
        sent >= 5,
        "confirmations, a refusal and the turn's mail: {sent}"
    );
    let delivered = metrics_once(
        doors.http,
        &before,
        "admiralty_outbox_deliveries_total",
        sent as f64,
    )
    .await;
    let moved = deltas(
        &before,
        &delivered,
        &[
            "admiralty_outbox_deliveries_total",
            "admiralty_outbox_delivery_failures_total{class=\"temporary\"}",
        ],
    );
    assert_eq!(moved[0].1, sent as f64, "{moved:?}");
    assert_eq!(moved[1].1, 0.0, "{moved:?}");
    assert_eq!(delivered["admiralty_outbox_queued_messages"], 0.0);
    assert_eq!(delivered["admiralty_outbox_failed_messages"], 0.0);
    assert!(
        delivered.contains_key("admiralty_db_pool_connections{state=\"idle\"}"),
        "{delivered:?}"
    );
    assert!(
        delivered
            .keys()
            .all(|series| !series.contains("route=\"/metrics?") && !series.contains("/games/1")),
        "routes are templates"
    );
    doors.stop().await;
}

#[tokio::test]
async fn metrics_are_read_with_their_token_only_and_absent_without_one() {
    let guarded = Doors::start(&[("ADMIRALTY_METRICS_TOKEN", TOKEN)]).await;
    assert_eq!(
        scrape(guarded.http, None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let wrong = scrape(guarded.http, Some("a-metrics-token-of-some-lengtH")).await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let right = scrape(guarded.http, Some(TOKEN)).await;
    assert_eq!(right.status(), StatusCode::OK);
    assert!(
        right.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = right.text().await.unwrap();
    assert!(
        text.contains("# TYPE admiralty_inbound_queue_messages gauge"),
        "{text}"
    );
    // The failed scrapes are requests too, by route template and status.
    assert!(
        text.contains(
            "admiralty_http_requests_total{route=\"/metrics\",method=\"GET\",status=\"401\"} 2"
        ),
        "{text}"
    );
    guarded.stop().await;

    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let open = Doors::start(&[("ADMIRALTY_METRICS_LISTEN", listen.as_str())]).await;
    assert_eq!(
        scrape(open.http, None).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        scrape(open.http, Some(TOKEN)).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(scrape(port, None).await.status(), StatusCode::OK);
    open.stop().await;

    let none = Doors::start(&[]).await;
    assert_eq!(
        scrape(none.http, Some(TOKEN)).await.status(),
        StatusCode::NOT_FOUND
    );
    none.stop().await;
}

async fn readyz(app: &TestApp) -> (StatusCode, String) {
    let response = app.get("/readyz").await;
    (response.status(), response.text().await.unwrap())
}

#[tokio::test]
async fn ready_only_on_the_schema_the_binary_embeds() {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    assert_eq!(readyz(&app).await, (StatusCode::OK, "ready\n".to_owned()));
    let newest: i64 = scalar(&pool, "SELECT max(version) FROM _sqlx_migrations").await;

    // A migration missing.
    let row: (Vec<u8>, String) =
        sqlx::query_as("SELECT checksum, description FROM _sqlx_migrations WHERE version = $1")
            .bind(newest)
            .fetch_one(&pool)
            .await
            .unwrap();
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = $1")
        .bind(newest)
        .execute(&pool)
        .await
        .unwrap();
    let (status, reason) = readyz(&app).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reason,
        format!("not ready: migrations not applied: {newest}: run `gm migrate`\n")
    );
    let put_back = "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
                    VALUES ($1, $2, true, $3, 0)";
    sqlx::query(put_back)
        .bind(newest)
        .bind(&row.1)
        .bind(&row.0)
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(readyz(&app).await.0, StatusCode::OK);

    // An unknown one, applied by a newer binary.
    sqlx::query(put_back)
        .bind(newest + 1000)
        .bind("from the future")
        .bind(vec![0u8; 48])
        .execute(&pool)
        .await
        .unwrap();
    let (status, reason) = readyz(&app).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        reason.contains(&format!("does not know: {}", newest + 1000)),
        "{reason}"
    );
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = $1")
        .bind(newest + 1000)
        .execute(&pool)
        .await
        .unwrap();

    // One whose text differs from the embedded one.
    sqlx::query("UPDATE _sqlx_migrations SET checksum = $2 WHERE version = $1")
        .bind(newest)
        .bind(vec![1u8; 48])
        .execute(&pool)
        .await
        .unwrap();
    let (status, reason) = readyz(&app).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        reason.contains(&format!("differ from this binary's: {newest}")),
        "{reason}"
    );
    app.stop().await;

    let db = TestDatabase::empty().await;
    let dead = store::connect_lazy("postgres://nobody:x@127.0.0.1:1/none", 1).unwrap();
    let app = TestApp::spawn_with_pool(db, dead).await;
    let (status, reason) = readyz(&app).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    // A pool still retrying its connection outlasts the probe's own timeout.
    assert!(
        reason.starts_with("not ready: the database did")
            || reason == "not ready: the database does not answer\n",
        "{reason}"
    );
    // Liveness is another question.
    assert_eq!(
        app.get("/healthz").await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
    app.stop().await;
}

/// A console client whose requests carry `X-Forwarded-For: forwarded_for`.
fn client_behind(doors: &Doors, forwarded_for: &str) -> Browser {
    let mut headers = HeaderMap::new();
    headers.insert(
        "x-forwarded-for",
        HeaderValue::from_str(forwarded_for).unwrap(),
    );
    Browser {
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .default_headers(headers)
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap(),
        base: format!("http://127.0.0.1:{}", doors.http),
        cookies: Vec::new(),
    }
}

async fn login_status(doors: &Doors, forwarded_for: &str, password: &str) -> StatusCode {
    client_behind(doors, forwarded_for)
        .login("nelson", password)
        .await
        .status()
}

const LIMITS: [(&str, &str); 2] = [
    ("ADMIRALTY_GM_LOGIN_MAX_FAILURES_PER_CLIENT", "2"),
    ("ADMIRALTY_GM_LOGIN_MAX_FAILURES", "100"),
];

#[tokio::test]
async fn through_a_trusted_proxy_each_forwarded_client_has_its_own_login_budget() {
    let db = TestDatabase::migrated().await;
    add_gm(&db.pool, "nelson").await;
    let mut env = LIMITS.to_vec();
    env.push(("ADMIRALTY_TRUSTED_PROXIES", "10.0.0.0/8, 127.0.0.1"));
    let doors = Doors::start_on(db, &env).await;
    // The client's own claim, left of what the proxies saw, is not believed.
    let first = "192.0.2.1, 203.0.113.7, 10.1.1.1";
    assert_eq!(
        login_status(&doors, first, "wrong").await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        login_status(&doors, "203.0.113.7", "wrong").await,
        StatusCode::UNAUTHORIZED
    );
    // 203.0.113.7 has had its two failures, whatever it claims on its left.
    assert_eq!(
        login_status(&doors, "192.0.2.99, 203.0.113.7", "wrong").await,
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        login_status(&doors, "203.0.113.7", PASSWORD).await,
        StatusCode::TOO_MANY_REQUESTS
    );
    // Another client behind the same proxy has a budget of its own.
    assert_eq!(
        login_status(&doors, "198.51.100.9", "wrong").await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        login_status(&doors, "198.51.100.9", PASSWORD).await,
        StatusCode::SEE_OTHER
    );
    let logins: Vec<serde_json::Value> =
        sqlx::query_scalar("SELECT details FROM audit_log WHERE action = 'gm.login' ORDER BY id")
            .fetch_all(&doors.db.pool)
            .await
            .unwrap();
    assert_eq!(logins, [serde_json::json!({ "client": "198.51.100.9" })]);
    doors.stop().await;
}

#[tokio::test]
async fn an_unlisted_peer_cannot_spoof_its_address() {
    let db = TestDatabase::migrated().await;
    add_gm(&db.pool, "nelson").await;
    let mut env = LIMITS.to_vec();
    // Loopback, where the test connects from, is not a listed proxy.
    env.push(("ADMIRALTY_TRUSTED_PROXIES", "10.0.0.0/8"));
    let doors = Doors::start_on(db, &env).await;
    for claimed in ["203.0.113.1", "203.0.113.2"] {
        assert_eq!(
            login_status(&doors, claimed, "wrong").await,
            StatusCode::UNAUTHORIZED
        );
    }
    // A third address claimed does not buy a third guess: all were 127.0.0.1.
    assert_eq!(
        login_status(&doors, "203.0.113.3", "wrong").await,
        StatusCode::TOO_MANY_REQUESTS
    );
    doors.stop().await;

    // Without a failure budget spent, a login from an unlisted peer names the peer.
    let db = TestDatabase::migrated().await;
    add_gm(&db.pool, "nelson").await;
    let doors = Doors::start_on(db, &[("ADMIRALTY_TRUSTED_PROXIES", "10.0.0.0/8")]).await;
    assert_eq!(
        login_status(&doors, "203.0.113.1", PASSWORD).await,
        StatusCode::SEE_OTHER
    );
    let client: String =
        sqlx::query_scalar("SELECT details->>'client' FROM audit_log WHERE action = 'gm.login'")
            .fetch_one(&doors.db.pool)
            .await
            .unwrap();
    assert_eq!(client, "127.0.0.1");
    doors.stop().await;
}
