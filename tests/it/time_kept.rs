//! Issue 27, item 7: time is kept exactly. Resolve now keeps the schedule's slots (the next
//! deadline falls on the schedule's time of day, in the game's zone, across a clock change);
//! a sign-up game keeps the first deadline typed on its form.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use chrono::{DateTime, Duration, Utc};
use games::EngineKind;
use server::turns::{self, Creation, GameSpec, GmAction, OsEntropy, Roster, Schedule};
use store::PgPool;
use store::games::GameId;
use store::testing::TestDatabase;

use crate::turns::zine_with;

const DOMAIN: &str = "zine.example.org";

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

async fn deadline_of(pool: &PgPool, game: GameId, number: i32) -> Option<DateTime<Utc>> {
    sqlx::query_scalar("SELECT deadline FROM turns WHERE game_id = $1 AND number = $2")
        .bind(game)
        .bind(number)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// An "every 7 days" Barmy game in London whose first deadline is Saturday 2025-03-22 12:00
/// GMT; the clocks go forward on 30 March.
async fn every_seven_days_in_london(pool: &PgPool, now: DateTime<Utc>) -> GameId {
    let zine = zine_with(pool, "kept", &["Fred Bloggs", "John Smith"]).await;
    let setup = EngineKind::Barmy.default_setup();
    let spec = GameSpec {
        zine,
        name: "Kept",
        setup: &setup,
        first_deadline: Some(utc("2025-03-22T12:00:00Z")),
        schedule: Schedule::EveryDays(7),
    };
    turns::create_game_with(
        pool,
        now,
        &spec,
        &Roster::EveryActiveSubscriber,
        &mut OsEntropy,
        &Creation {
            actor: "gm",
            zone: "Europe/London".parse().unwrap(),
            mail: None,
        },
    )
    .await
    .unwrap()
}

/// Fault 7: each Resolve now moved the deadline to an odd minute (12:10, then 12:17). The next
/// deadline is the schedule's slot after the resolved turn's own, at 12:00 London time, in
/// summer time too.
#[tokio::test]
async fn resolve_now_keeps_the_schedules_slot_times_across_a_clock_change() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = every_seven_days_in_london(pool, utc("2025-03-20T09:00:00Z")).await;
    let act = |now, action| turns::gm_action(pool, now, game, action, "gm", DOMAIN);

    // Resolve now on Thursday at 12:10: turn 2 is due on the next slot, Saturday 29th 12:00.
    act(utc("2025-03-20T12:10:00Z"), GmAction::ResolveNow)
        .await
        .unwrap();
    assert_eq!(
        deadline_of(pool, game, 2).await,
        Some(utc("2025-03-29T12:00:00Z"))
    );
    // Resolve now again at 12:17 the day after: the slot after, 5 April 12:00 BST (11:00 UTC),
    // not 12:17 nor 13:00 BST.
    act(utc("2025-03-21T12:17:00Z"), GmAction::ResolveNow)
        .await
        .unwrap();
    assert_eq!(
        deadline_of(pool, game, 3).await,
        Some(utc("2025-04-05T11:00:00Z"))
    );
    // A turn that resolves at its deadline goes on the same way.
    turns::resolve_due(pool, utc("2025-04-05T11:00:00Z"), DOMAIN)
        .await
        .unwrap();
    assert_eq!(
        deadline_of(pool, game, 4).await,
        Some(utc("2025-04-12T11:00:00Z"))
    );
    // Resolve now on a turn already overdue: the first slot after now, still 12:00 London.
    act(utc("2025-04-20T08:03:00Z"), GmAction::ResolveNow)
        .await
        .unwrap();
    assert_eq!(
        deadline_of(pool, game, 5).await,
        Some(utc("2025-04-26T11:00:00Z"))
    );
    assert!(
        deadline_of(pool, game, 5).await.unwrap() > utc("2025-04-20T08:03:00Z") + Duration::days(5)
    );
}

/// Fault 7: a sign-up game ignored the first deadline typed on its form (its first turn was due
/// the schedule's first slot after the last seat was taken). The typed deadline is kept.
#[tokio::test]
async fn a_sign_up_game_keeps_the_first_deadline_typed_on_its_form() {
    use reqwest::StatusCode;

    use crate::console::hidden_csrf;
    use crate::rosters::{SIX, standard_form, zine_of_six};

    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let mut form = standard_form(EngineKind::Salvo, "Spring Salvo");
    form.retain(|(key, _)| key != "deadline");
    form.extend([
        ("deadline".to_owned(), "1805-10-30T12:00".to_owned()),
        ("zone".to_owned(), "UTC".to_owned()),
        ("start".to_owned(), "signup".to_owned()),
        ("signup_seats".to_owned(), "2".to_owned()),
        ("seating".to_owned(), "order".to_owned()),
    ]);
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let opening: i64 = sqlx::query_scalar("SELECT id FROM openings")
        .fetch_one(pool)
        .await
        .unwrap();
    for (email, _) in SIX.iter().take(2) {
        let mut player = crate::players::logged_in(&app, email).await;
        let csrf = hidden_csrf(&player.get_text("/me").await);
        let response = player
            .post(&format!("/me/signups/{opening}"), &[("csrf", &csrf)])
            .await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
    }
    let deadline: Option<DateTime<Utc>> = sqlx::query_scalar(
        "SELECT t.deadline FROM turns t JOIN openings o ON o.game_id = t.game_id WHERE t.number = 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(deadline, Some(utc("1805-10-30T12:00:00Z")));
}
