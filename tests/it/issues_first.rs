//! The zine's first issue (issue 27): it gathers every report since the zine began, or only
//! those since issues were turned on, as the GM chooses; an issue after it never prints one
//! again.

use chrono::Duration;
use schedule::Schedule;
use server::issues;
use server::turns::{GmAction, gm_action};
use store::PgPool;
use store::status::FirstIssueGathers;
use store::testing::TestDatabase;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, game};
use crate::issues::{BASE, ingest};

/// The "Mailed" zine with turn 1 of "Mailed Barmy" resolved an hour in, before issues; issues
/// by hand turned on two hours in. Returns the zine.
async fn a_report_before_issues(pool: &PgPool) -> store::zines::Zine {
    let game = game(pool).await;
    let zine = issues::find_zine(pool, "mailed").await.unwrap();
    ingest(
        pool,
        "fred-1",
        game,
        1,
        "G13, K19\r\nPRESS Before issues.\r\n",
    )
    .await;
    ingest(pool, "john-1", game, 2, "A1, B2\r\n").await;
    gm_action(
        pool,
        trafalgar() + Duration::hours(1),
        game,
        GmAction::ResolveNow,
        "nelson",
        DOMAIN,
    )
    .await
    .unwrap();
    issues::set_rhythm(
        pool,
        trafalgar() + Duration::hours(2),
        &zine,
        Some(Schedule::Manual),
        "nelson",
    )
    .await
    .unwrap();
    zine
}

async fn publish(pool: &PgPool, zine: &store::zines::Zine, hours: i64) -> String {
    let published = issues::publish_now(
        pool,
        trafalgar() + Duration::hours(hours),
        zine,
        Some(DOMAIN),
        BASE,
        "nelson",
    )
    .await
    .unwrap();
    store::issues::by_number(pool, zine.id, published.number)
        .await
        .unwrap()
        .unwrap()
        .text
        .unwrap()
}

#[tokio::test]
async fn the_first_issue_gathers_every_report_since_the_zine_began_by_default() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = a_report_before_issues(pool).await;
    let settings = issues::settings(pool, zine.id).await.unwrap();
    assert_eq!(
        settings.first_issue_gathers,
        FirstIssueGathers::SinceZineBegan
    );
    let first = publish(pool, &zine, 3).await;
    assert!(first.contains("Barmy Battleships — Turn 1"), "{first}");
    assert!(first.contains("Before issues."), "{first}");
    // The second issue does not print it again.
    let second = publish(pool, &zine, 4).await;
    assert!(!second.contains("Before issues."), "{second}");
    assert!(!second.contains("— Turn 1"), "{second}");
    db.drop_database().await;
}

#[tokio::test]
async fn the_gm_may_have_the_first_issue_gather_only_what_came_after_issues_were_turned_on() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = a_report_before_issues(pool).await;
    let since_issues = issues::parse_first_issue_gathers("since-issues").unwrap();
    let now = trafalgar() + Duration::hours(2);
    assert!(
        issues::set_first_issue_gathers(pool, now, &zine, since_issues, "gm:nelson")
            .await
            .unwrap()
    );
    // The same choice again changes nothing and audits nothing.
    assert!(
        !issues::set_first_issue_gathers(pool, now, &zine, since_issues, "gm:nelson")
            .await
            .unwrap()
    );
    let audited: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE action = 'zine.first_issue_gathers'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(audited, 1);
    assert!(issues::parse_first_issue_gathers("whenever").is_err());
    let first = publish(pool, &zine, 3).await;
    assert!(!first.contains("Before issues."), "{first}");
    assert!(
        first.contains("NO TURN RESOLVED SINCE THE LAST ISSUE"),
        "{first}"
    );
    db.drop_database().await;
}
