use reqwest::StatusCode;
use serde_json::{Value, json};
use store::testing::TestDatabase;

use crate::helpers::{TestApp, trafalgar};

#[tokio::test]
async fn healthz_reports_ok_over_http() {
    let app = TestApp::spawn().await;
    let response = app.get("/healthz").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json"),
        "{:?}",
        response.headers()
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({ "status": "ok", "database": "ok" }));
    app.stop().await;
}

#[tokio::test]
async fn healthz_is_503_when_the_database_is_unreachable() {
    let db = TestDatabase::empty().await;
    // Nothing listens on port 1; a lazy pool lets the app start anyway.
    let dead = store::connect_lazy("postgres://nobody:x@127.0.0.1:1/none", 1).unwrap();
    let app = TestApp::spawn_with_pool(db, dead).await;
    let response = app.get("/healthz").await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({ "status": "error", "database": "unavailable" })
    );
    app.stop().await;
}

#[tokio::test]
async fn home_page_lists_the_zines() {
    let app = TestApp::spawn().await;
    let empty = app.get("/").await;
    assert_eq!(empty.status(), StatusCode::OK);
    assert!(empty.text().await.unwrap().contains("No zine yet"));

    server::demo::seed_if_empty(&app.db.pool, trafalgar(), [7; 32])
        .await
        .unwrap();
    let page = app.get("/").await.text().await.unwrap();
    assert!(page.contains("The Admiralty Gazette (demo)"), "{page}");
    app.stop().await;
}

#[tokio::test]
async fn unknown_paths_are_404() {
    let app = TestApp::spawn().await;
    assert_eq!(
        app.get("/no/such/page").await.status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}
