//! The zine's issues in the GM's console and on the player pages, over HTTP with sessions and
//! CSRF tokens as a browser has them.

use reqwest::StatusCode;
use reqwest::header::LOCATION;

use crate::console::{Browser, PASSWORD, add_gm, hidden_csrf};
use crate::helpers::TestApp;
use crate::inbox::game;
use crate::players::logged_in;

async fn gm(app: &TestApp) -> Browser {
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(app);
    gm.login("nelson", PASSWORD).await;
    gm
}

#[tokio::test]
async fn the_gm_sets_the_rhythm_writes_the_editorial_moderates_letters_and_publishes_in_the_console()
 {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let _game = game(&pool).await;
    let mut gm = gm(&app).await;
    let page = gm.get_text("/gm/zines/mailed/issues").await;
    assert!(page.contains("publishes no issues"), "{page}");

    // A bad rhythm is refused with the reason beside its field; nothing changes.
    let bad = gm
        .submit(
            "/gm/zines/mailed/issues/rhythm",
            &[("rhythm", "every_days"), ("days", "fortnightly")],
        )
        .await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().await.unwrap().contains("id=\"days-error\""));
    // Without the form's token nothing is done.
    let forged = gm
        .post("/gm/zines/mailed/issues/rhythm", &[("rhythm", "manual")])
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let rhythm: Option<serde_json::Value> =
        sqlx::query_scalar("SELECT issue_rhythm FROM zines WHERE slug = 'mailed'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(rhythm, None);

    let set = gm
        .submit(
            "/gm/zines/mailed/issues/rhythm",
            &[
                ("rhythm", "weekly"),
                ("weekday", "Saturday"),
                ("time", "09:00"),
                ("zone", "Europe/London"),
            ],
        )
        .await;
    assert_eq!(set.status(), StatusCode::SEE_OTHER);
    let page = gm.get_text("/gm/zines/mailed/issues?done=rhythm").await;
    assert!(page.contains("The rhythm is saved."), "{page}");
    assert!(
        page.contains("weekly Saturday 09:00 Europe/London"),
        "{page}"
    );
    assert!(page.contains("Issue 1 (not published yet)"), "{page}");

    let saved = gm
        .submit(
            "/gm/zines/mailed/issues/editorial",
            &[("editorial", "All hands to *quarters*.")],
        )
        .await;
    assert_eq!(saved.status(), StatusCode::SEE_OTHER);

    // A reader's letter on the web waits for the GM, who approves it.
    let mut fred = logged_in(&app, "fred@example.org").await;
    let csrf = hidden_csrf(&fred.get_text("/me/zine").await);
    let sent = fred
        .post(
            "/me/zine/letter",
            &[
                ("csrf", csrf.as_str()),
                ("letter", "More frigates, please."),
            ],
        )
        .await;
    assert_eq!(sent.status(), StatusCode::SEE_OTHER);
    let page = gm.get_text("/gm/zines/mailed/issues").await;
    assert!(page.contains("More frigates, please."), "{page}");
    let letter: i64 = sqlx::query_scalar("SELECT id FROM zine_letters")
        .fetch_one(&pool)
        .await
        .unwrap();
    let approved = gm
        .submit(
            &format!("/gm/zines/mailed/letters/{letter}"),
            &[("decision", "approve")],
        )
        .await;
    assert_eq!(approved.status(), StatusCode::SEE_OTHER);

    // The player may not see the GM's preview nor publish.
    assert_eq!(
        fred.get("/gm/zines/mailed/issues/preview").await.status(),
        StatusCode::FORBIDDEN
    );
    let preview = gm.get_text("/gm/zines/mailed/issues/preview").await;
    assert!(preview.contains("<em>quarters</em>"), "{preview}");
    assert!(preview.contains("More frigates, please."), "{preview}");

    // Without the confirmation page's form, the GM is sent to it.
    let asked = gm.submit("/gm/zines/mailed/issues/publish", &[]).await;
    assert_eq!(asked.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        asked.headers()[LOCATION],
        "/gm/zines/mailed/issues/publish?issue="
    );
    let published = gm.confirm("/gm/zines/mailed/issues/publish?issue=1").await;
    assert_eq!(published.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        published.headers()[LOCATION],
        "/gm/zines/mailed/issues?done=published"
    );
    let issue = app
        .get("/zines/mailed/issues/1")
        .await
        .text()
        .await
        .unwrap();
    assert!(issue.contains("More frigates, please."), "{issue}");
    assert!(issue.contains("<em>quarters</em>"), "{issue}");
    let audit: Vec<String> = sqlx::query_scalar(
        "SELECT action FROM audit_log WHERE action LIKE 'zine.%' AND actor = 'gm:nelson' ORDER BY id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        audit,
        [
            "zine.issue_rhythm",
            "zine.issue_editorial",
            "zine.letter_moderate",
            "zine.issue_publish"
        ]
    );
    // Issues mailed: Fred and John chose nothing, so both get the issue.
    let mails: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_messages WHERE idempotency_key LIKE 'issue:%'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(mails, 2);
    app.stop().await;
}

#[tokio::test]
async fn a_player_chooses_reports_or_the_issue_and_a_refused_letter_comes_back_in_the_form() {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let _game = game(&pool).await;
    let mut fred = logged_in(&app, "fred@example.org").await;
    let page = fred.get_text("/me/zine").await;
    // A zine without issues: reports by default.
    assert!(page.contains("value=\"reports\" checked"), "{page}");
    let csrf = hidden_csrf(&page);
    let chosen = fred
        .post(
            "/me/zine/mail",
            &[("csrf", csrf.as_str()), ("receive", "issue")],
        )
        .await;
    assert_eq!(chosen.status(), StatusCode::SEE_OTHER);
    let page = fred.get_text("/me/zine?done=issue").await;
    assert!(page.contains("value=\"issue\" checked"), "{page}");
    let choice: Option<String> =
        sqlx::query_scalar("SELECT mail_choice FROM subscribers WHERE email = 'fred@example.org'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(choice.as_deref(), Some("issue"));

    let long = "x".repeat(4001);
    let refused = fred
        .post(
            "/me/zine/letter",
            &[("csrf", csrf.as_str()), ("letter", long.as_str())],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = refused.text().await.unwrap();
    assert!(body.contains("at most 4000 are printed"), "{body}");
    assert!(body.contains(&long), "the letter is lost");
    let letters: i64 = sqlx::query_scalar("SELECT count(*) FROM zine_letters")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(letters, 0);
    // Without a session, nothing.
    let stranger = Browser::new(&app)
        .post("/me/zine/letter", &[("letter", "hello")])
        .await;
    assert!(stranger.status().is_client_error(), "{}", stranger.status());
    app.stop().await;
}
