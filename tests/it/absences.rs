//! Absences (issue 18 item 4): ABSENT by mail through the real inbox, and each absence policy's
//! effect on a resolved Barmy turn (the deadline waits up to the limit; the last orders stand;
//! no NMR penalty for the absent player while a present NMR player still takes one).

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use server::inbox;
use server::turns;
use store::PgPool;
use store::absences::{Absence, GamePolicy};
use store::games::GameId;
use store::status::{AbsencePolicy, Source};
use store::testing::TestDatabase;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, barmy_game, message, outbound, reply_address_of};
use crate::turns::player;

const PLAYERS: &[(&str, &str)] = &[
    ("fred@example.org", "Fred Bloggs"),
    ("john@example.org", "John Smith"),
    ("mary@example.org", "Mary Jones"),
];

/// The first turn's deadline of `barmy_game`, and the second's (every 7 days).
fn deadlines() -> (DateTime<Utc>, DateTime<Utc>) {
    let first = trafalgar() + Duration::days(2);
    (first, first + Duration::days(7))
}

async fn mail(pool: &PgPool, id: &str, to: &str, body: &str) -> String {
    inbox::ingest(
        pool,
        &message(id, to, "", body),
        "smtp",
        trafalgar(),
        DOMAIN,
    )
    .await
    .unwrap();
    outbound(pool).await.pop().unwrap().1
}

async fn set_policy(pool: &PgPool, game: GameId, policy: AbsencePolicy, wait_days: u32) {
    store::absences::set_policy(pool, game, GamePolicy { policy, wait_days })
        .await
        .unwrap();
}

/// Fred (player 1) is away on the days around turn 2's deadline.
async fn fred_away_for_turn_two(pool: &PgPool, last_day_after: i64) {
    let (_, second) = deadlines();
    let subscriber: i64 = sqlx::query_scalar("SELECT id FROM subscribers WHERE email = $1")
        .bind("fred@example.org")
        .fetch_one(pool)
        .await
        .unwrap();
    store::absences::add(
        pool,
        crate::helpers::id::<store::subscribers::SubscriberId>(subscriber),
        Absence {
            first_day: (second - Duration::days(1)).date_naive(),
            last_day: (second + Duration::days(last_day_after)).date_naive(),
        },
        trafalgar(),
    )
    .await
    .unwrap();
}

/// How many NMR penalty hits each captain's ship carries, by engine player id.
async fn penalties(pool: &PgPool, game: GameId) -> Vec<(u64, usize)> {
    let state: Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    state["captains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let hits = c["damage"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["by"] == "penalty")
                .count();
            (c["id"].as_u64().unwrap(), hits)
        })
        .collect()
}

async fn resolve(pool: &PgPool, at: DateTime<Utc>) -> usize {
    turns::resolve_due(pool, at, DOMAIN).await.unwrap().len()
}

async fn turn_two(pool: &PgPool, game: GameId) -> (String, DateTime<Utc>) {
    sqlx::query_as("SELECT status, deadline FROM turns WHERE game_id = $1 AND number = 2")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn assert_verifies(pool: &PgPool, game: GameId) {
    let checks = turns::verify_game(pool, game).await.unwrap();
    assert!(!checks.is_empty());
    assert!(checks.iter().all(|c| c.matches), "{checks:?}");
}

#[tokio::test]
async fn absent_by_mail_names_the_policy_and_the_turns_and_absent_none_cancels() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = barmy_game(pool, ("gazette", "Gazette"), "Trafalgar", PLAYERS, 5).await;
    let fred = reply_address_of(pool, game, 1).await;

    let answer = mail(pool, "absent-1", &fred, "ABSENT 1805-10-29 1805-11-02\r\n").await;
    assert!(
        answer.contains("Absence recorded: 1805-10-29 to 1805-11-02"),
        "{answer}"
    );
    assert!(
        answer.contains("Trafalgar: A turn resolves without an absent player's orders")
            && answer.contains("with no penalty for missing it"),
        "{answer}"
    );
    // Turn 2's deadline (30 October) falls in it; turn 1's (23 October) does not.
    assert!(
        answer.contains("It applies to turn 2 (deadline"),
        "{answer}"
    );
    assert!(!answer.contains("turn 1 (deadline"), "{answer}");

    set_policy(pool, game, AbsencePolicy::Wait, 4).await;
    let answer = mail(pool, "absent-2", &fred, "absent 1805-12-20 1806-01-03\r\n").await;
    assert!(
        answer.contains("Your absences: 1805-10-29 to 1805-11-02; 1805-12-20 to 1806-01-03."),
        "{answer}"
    );
    assert!(
        answer.contains("The deadline waits for a player who is away, at most 4 days"),
        "{answer}"
    );

    let bad = mail(pool, "absent-3", &fred, "ABSENT 1805-11-02 1805-10-29\r\n").await;
    assert!(bad.contains("first day is after its last day"), "{bad}");

    let cancelled = mail(pool, "absent-4", &fred, "ABSENT NONE\r\n").await;
    assert!(cancelled.contains("Cancelled 2 absences"), "{cancelled}");
    assert!(cancelled.contains("Your absences: none."), "{cancelled}");
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM absences")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(count, 0);
}

#[tokio::test]
async fn no_penalty_policy_spares_the_absent_player_but_not_a_present_nmr_player() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = barmy_game(pool, ("gazette", "Gazette"), "Trafalgar", PLAYERS, 5).await;
    set_policy(pool, game, AbsencePolicy::NoPenalty, 7).await;
    fred_away_for_turn_two(pool, 1).await;
    let (first, second) = deadlines();
    assert_eq!(resolve(pool, first).await, 1);
    // Nobody fires in turn 2: Fred is away, John and Mary are present and miss it.
    assert_eq!(resolve(pool, second).await, 1);
    let hits = penalties(pool, game).await;
    assert!(hits.contains(&(1, 0)), "Fred was away: no penalty {hits:?}");
    assert!(
        hits.contains(&(2, 1)),
        "John sent nothing: one penalty {hits:?}"
    );
    assert!(
        hits.contains(&(3, 1)),
        "Mary sent nothing: one penalty {hits:?}"
    );
    let excused: Vec<i64> =
        sqlx::query_scalar("SELECT excused FROM turns WHERE game_id = $1 AND number = 2")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(excused, vec![1]);
    assert_verifies(pool, game).await;
}

#[tokio::test]
async fn standing_orders_policy_repeats_the_absent_players_last_orders() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = barmy_game(pool, ("gazette", "Gazette"), "Trafalgar", PLAYERS, 5).await;
    set_policy(pool, game, AbsencePolicy::Standing, 7).await;
    fred_away_for_turn_two(pool, 1).await;
    let (first, second) = deadlines();
    let fred = player(pool, game, 1).await;
    turns::submit_orders(pool, trafalgar(), game, fred, "C3", Source::Web)
        .await
        .unwrap();
    assert_eq!(resolve(pool, first).await, 1);
    assert_eq!(resolve(pool, second).await, 1);
    let (raw, source): (String, String) = sqlx::query_as(
        "SELECT o.raw_text, o.source FROM orders o JOIN turns t ON t.id = o.turn_id \
         WHERE t.game_id = $1 AND t.number = 2 AND o.player_id = $2",
    )
    .bind(game)
    .bind(fred)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!((raw.as_str(), source.as_str()), ("C3", "standing"));
    let report: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id \
         WHERE t.game_id = $1 AND t.number = 2",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(report.contains("C3"), "{report}");
    let hits = penalties(pool, game).await;
    assert!(hits.contains(&(1, 0)), "Fred's orders stood: {hits:?}");
    assert_verifies(pool, game).await;
}

#[tokio::test]
async fn wait_policy_holds_the_deadline_for_the_absent_player_up_to_the_limit() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = barmy_game(pool, ("gazette", "Gazette"), "Trafalgar", PLAYERS, 5).await;
    set_policy(pool, game, AbsencePolicy::Wait, 3).await;
    // Away until ten days after turn 2's deadline: longer than the limit of 3 days.
    fred_away_for_turn_two(pool, 10).await;
    let (first, second) = deadlines();
    assert_eq!(resolve(pool, first).await, 1);
    assert_eq!(resolve(pool, second).await, 0, "turn 2 waits for Fred");
    let (status, deadline) = turn_two(pool, game).await;
    assert_eq!(
        (status.as_str(), deadline),
        ("open", second + Duration::days(3))
    );
    assert_eq!(resolve(pool, second + Duration::days(2)).await, 0);
    // At the limit the turn resolves, Fred or no Fred.
    assert_eq!(resolve(pool, second + Duration::days(3)).await, 1);
    assert_eq!(turn_two(pool, game).await.0, "published");
    assert_verifies(pool, game).await;
}

#[tokio::test]
async fn wait_policy_moves_the_deadline_to_the_day_after_a_short_absence() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = barmy_game(pool, ("gazette", "Gazette"), "Trafalgar", PLAYERS, 5).await;
    set_policy(pool, game, AbsencePolicy::Wait, 7).await;
    fred_away_for_turn_two(pool, 1).await;
    let (first, second) = deadlines();
    assert_eq!(resolve(pool, first).await, 1);
    assert_eq!(resolve(pool, second).await, 0);
    // Back the day after the deadline: the turn waits until the day after that.
    assert_eq!(turn_two(pool, game).await.1, second + Duration::days(2));
    // Every player is told the new deadline, once, without naming who is away.
    let told: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT to_address, subject, body_text FROM outbound_messages \
         WHERE idempotency_key LIKE 'deadline-waits:%' ORDER BY to_address",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(told.len(), PLAYERS.len(), "{told:?}");
    for (_, subject, body) in &told {
        assert!(
            subject.starts_with("Trafalgar: turn 2's deadline moves to"),
            "{subject}"
        );
        assert!(body.contains("waits for a player who is away"), "{body}");
        assert!(!body.contains("Fred"), "{body}");
    }
    assert_eq!(resolve(pool, second + Duration::days(1)).await, 0);
    let again: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_messages WHERE idempotency_key LIKE 'deadline-waits:%'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        again,
        told.len() as i64,
        "no second mail while nothing moves"
    );
    assert_eq!(resolve(pool, second + Duration::days(2)).await, 1);
}

#[tokio::test]
async fn the_gm_sets_the_absence_policy_on_the_game_page_with_csrf() {
    use crate::rosters::{standard_form, zine_of_six};
    use games::EngineKind;
    use reqwest::StatusCode;

    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let form = standard_form(EngineKind::Barmy, "Trafalgar");
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    let game: i64 = sqlx::query_scalar("SELECT id FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    // The default: no penalty for an absent player's missed turn.
    assert!(page.contains("id=\"absence-form\""), "{page}");
    assert!(page.contains("value=\"no_penalty\" selected"), "{page}");
    let path = format!("/gm/games/{game}/absence");

    // Without the CSRF token nothing changes; a bad limit is refused in words.
    let response = gm
        .post(&path, &[("absence_policy", "wait"), ("wait_days", "5")])
        .await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let response = gm
        .submit(&path, &[("absence_policy", "wait"), ("wait_days", "90")])
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(response.text().await.unwrap().contains("from 1 to 28"));
    let policy = store::absences::policy(pool, crate::helpers::id::<GameId>(game))
        .await
        .unwrap();
    assert_eq!(policy.policy, AbsencePolicy::NoPenalty);

    let response = gm
        .submit(&path, &[("absence_policy", "wait"), ("wait_days", "5")])
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let policy = store::absences::policy(pool, crate::helpers::id::<GameId>(game))
        .await
        .unwrap();
    assert_eq!((policy.policy, policy.wait_days), (AbsencePolicy::Wait, 5));
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(
        page.contains("the deadline waits for a player who is away, at most 5 days"),
        "{page}"
    );
    let audited: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'game.absence_policy'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(audited, 1);
}

#[tokio::test]
async fn a_player_declares_and_cancels_an_absence_on_their_page() {
    use crate::console::hidden_csrf;
    use crate::rosters::{SIX, standard_form, zine_of_six};
    use games::EngineKind;
    use reqwest::StatusCode;

    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let form = standard_form(EngineKind::Barmy, "Trafalgar");
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    let mut player = crate::players::logged_in(&app, SIX[0].0).await;
    let me = player.get_text("/me").await;
    assert!(me.contains("Your absences: none."), "{me}");
    let csrf = hidden_csrf(&me);
    let days = [("first_day", "2099-12-20"), ("last_day", "2100-01-03")];

    // Without the session's token, or with the days the wrong way round, nothing is recorded.
    let forged = player
        .post("/me/absences", &[("csrf", "0"), days[0], days[1]])
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let backwards = player
        .post(
            "/me/absences",
            &[
                ("csrf", &csrf),
                ("first_day", "2100-01-03"),
                ("last_day", "2099-12-20"),
            ],
        )
        .await;
    assert_eq!(backwards.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let count = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM absences")
            .fetch_one(pool)
            .await
            .unwrap()
    };
    assert_eq!(count().await, 0);

    let response = player
        .post("/me/absences", &[("csrf", &csrf), days[0], days[1]])
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let me = player.get_text("/me").await;
    assert!(
        me.contains("Your absences: 2099-12-20 to 2100-01-03."),
        "{me}"
    );
    assert!(
        me.contains("Trafalgar: A turn resolves without an absent player&#39;s orders")
            || me.contains("Trafalgar: A turn resolves without an absent player&#x27;s orders")
            || me.contains("Trafalgar: A turn resolves without an absent player's orders"),
        "{me}"
    );
    assert_eq!(count().await, 1);

    let response = player
        .post("/me/absences", &[("csrf", &csrf), ("cancel", "1")])
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert!(
        player
            .get_text("/me")
            .await
            .contains("Your absences: none.")
    );
    assert_eq!(count().await, 0);
}

#[tokio::test]
async fn an_absent_player_gets_no_reminder_and_a_present_one_does() {
    use server::turns::ScheduleSettings;
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = barmy_game(pool, ("gazette", "Gazette"), "Trafalgar", PLAYERS, 5).await;
    let (first, second) = deadlines();
    let settings = ScheduleSettings::new(
        turns::Schedule::EveryDays(7),
        &[Duration::hours(48)],
        Duration::zero(),
        false,
    )
    .unwrap();
    turns::set_schedule(pool, trafalgar(), game, &settings, "gm")
        .await
        .unwrap();
    fred_away_for_turn_two(pool, 1).await;
    assert_eq!(resolve(pool, first).await, 1);
    let rounds = turns::send_due_reminders(
        pool,
        second - Duration::hours(48),
        server::letters::MailSite {
            domain: DOMAIN,
            base_url: "https://zine.example.org",
        },
    )
    .await
    .unwrap();
    assert_eq!(rounds.len(), 1);
    let to: Vec<String> = sqlx::query_scalar(
        "SELECT to_address FROM outbound_messages WHERE idempotency_key LIKE 'reminder:%' ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(to, ["john@example.org", "mary@example.org"]);
}
