//! The schedule a GM sets, driven by the injected clock: weekly deadlines across a clock change,
//! reminders, grace, early resolution, and subscribers joining and leaving a running game.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]

use chrono::{DateTime, Duration, Utc};
use games::EngineKind;
use serde_json::{Value, json};
use server::ManualClock;
use server::clock::Clock;
use server::turns::{self, GameSpec, LifecycleError, OsEntropy, Schedule, ScheduleSettings};
use store::games::GameId;
use store::status::Source;
use store::subscribers::{self, NewSubscriber};
use store::testing::TestDatabase;
use store::zines::ZineId;
use store::{DisplayName, EmailAddress, PgPool};

use crate::turns::{player, zine_with};

const DOMAIN: &str = "zine.example.org";
const SITE: server::letters::MailSite<'static> = server::letters::MailSite {
    domain: DOMAIN,
    base_url: "https://zine.example.org",
};

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

async fn game_with(
    pool: &PgPool,
    clock: &ManualClock,
    zine: ZineId,
    name: &str,
    schedule: Schedule,
    first_deadline: Option<DateTime<Utc>>,
) -> GameId {
    let setup = EngineKind::Barmy.default_setup();
    let spec = GameSpec {
        zine,
        name,
        setup: &setup,
        first_deadline,
        schedule,
    };
    turns::create_game(pool, clock.now(), &spec, &mut OsEntropy)
        .await
        .unwrap()
}

async fn deadline_of(pool: &PgPool, game: GameId, number: i32) -> Option<DateTime<Utc>> {
    sqlx::query_scalar("SELECT deadline FROM turns WHERE game_id = $1 AND number = $2")
        .bind(game)
        .bind(number)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn turn_status(pool: &PgPool, game: GameId, number: i32) -> String {
    sqlx::query_scalar("SELECT status FROM turns WHERE game_id = $1 AND number = $2")
        .bind(game)
        .bind(number)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn report_of(pool: &PgPool, game: GameId, number: i32) -> String {
    sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id \
         WHERE t.game_id = $1 AND t.number = $2",
    )
    .bind(game)
    .bind(number)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn reminders(pool: &PgPool) -> Vec<(String, String, Value)> {
    sqlx::query_as(
        "SELECT idempotency_key, to_address, headers FROM outbound_messages \
         WHERE idempotency_key LIKE 'reminder:%' ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_weekly_deadline_stays_at_six_on_the_london_clock_across_the_change_to_summer_time() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "weekly", &["Fred Bloggs", "John Smith"]).await;
    // Thursday 20 March 2025; the clocks go forward on Sunday 30 March.
    let clock = ManualClock::new(utc("2025-03-20T09:00:00Z"));
    let friday = "weekly Friday 18:00 Europe/London".parse().unwrap();
    let game = game_with(pool, &clock, zine, "Weekly", friday, None).await;
    // No first deadline given: the schedule's next slot.
    assert_eq!(
        deadline_of(pool, game, 1).await,
        Some(utc("2025-03-21T18:00:00Z"))
    );

    clock.set(utc("2025-03-21T17:59:59Z"));
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty()
    );
    clock.set(utc("2025-03-21T18:00:00Z"));
    assert_eq!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .len(),
        1
    );
    // GMT: 18:00 London is 18:00 UTC.
    assert_eq!(
        deadline_of(pool, game, 2).await,
        Some(utc("2025-03-28T18:00:00Z"))
    );
    clock.set(utc("2025-03-28T18:00:00Z"));
    turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    // BST from 30 March: 18:00 London is 17:00 UTC, a week of 167 hours.
    assert_eq!(
        deadline_of(pool, game, 3).await,
        Some(utc("2025-04-04T17:00:00Z"))
    );
    clock.set(utc("2025-04-04T16:59:00Z"));
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty()
    );
    clock.set(utc("2025-04-04T17:00:00Z"));
    turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    assert_eq!(turn_status(pool, game, 3).await, "published");
    assert_eq!(
        deadline_of(pool, game, 4).await,
        Some(utc("2025-04-11T17:00:00Z"))
    );
    db.drop_database().await;
}

#[tokio::test]
async fn reminders_go_once_per_offset_and_only_to_players_without_orders() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(
        pool,
        "reminded",
        &["Fred Bloggs", "John Smith", "Annette Curtain"],
    )
    .await;
    let clock = ManualClock::new(utc("2025-05-01T12:00:00Z"));
    let deadline = utc("2025-05-09T18:00:00Z");
    let game = game_with(
        pool,
        &clock,
        zine,
        "Reminded",
        Schedule::EveryDays(7),
        Some(deadline),
    )
    .await;
    let settings = ScheduleSettings::new(
        Schedule::EveryDays(7),
        &[Duration::hours(48), Duration::hours(6)],
        Duration::zero(),
        false,
    )
    .unwrap();
    turns::set_schedule(pool, clock.now(), game, &settings, "gm")
        .await
        .unwrap();
    let fred = player(pool, game, 1).await;
    let john = player(pool, game, 2).await;
    turns::submit_orders(pool, clock.now(), game, fred, "A1, B2", Source::Email)
        .await
        .unwrap();

    clock.set(deadline - Duration::hours(49));
    assert!(
        turns::send_due_reminders(pool, clock.now(), SITE)
            .await
            .unwrap()
            .is_empty()
    );
    clock.set(deadline - Duration::hours(48));
    let rounds = turns::send_due_reminders(pool, clock.now(), SITE)
        .await
        .unwrap();
    assert_eq!(rounds.len(), 1);
    assert_eq!(
        (rounds[0].before_deadline, rounds[0].mails_queued),
        (Duration::hours(48), 2)
    );
    // Asked again, and by two workers at once, nothing more goes out.
    clock.set(deadline - Duration::hours(47));
    let (a, b) = tokio::join!(
        turns::send_due_reminders(pool, clock.now(), SITE),
        turns::send_due_reminders(pool, clock.now(), SITE)
    );
    assert!(a.unwrap().is_empty() && b.unwrap().is_empty());
    let sent = reminders(pool).await;
    let to: Vec<&str> = sent.iter().map(|(_, to, _)| to.as_str()).collect();
    assert_eq!(
        to,
        ["john.smith@example.org", "annette.curtain@example.org"]
    );
    let token: String = sqlx::query_scalar("SELECT reply_token FROM players WHERE id = $1")
        .bind(john)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(
        sent[0].2["Reply-To"],
        json!(format!("orders+{token}@{DOMAIN}"))
    );

    // John orders; at 6 hours only Annette is reminded.
    turns::submit_orders(pool, clock.now(), game, john, "C3, D4", Source::Email)
        .await
        .unwrap();
    clock.set(deadline - Duration::hours(6));
    let rounds = turns::send_due_reminders(pool, clock.now(), SITE)
        .await
        .unwrap();
    assert_eq!(rounds.len(), 1);
    assert_eq!(rounds[0].mails_queued, 1);
    clock.set(deadline - Duration::hours(1));
    assert!(
        turns::send_due_reminders(pool, clock.now(), SITE)
            .await
            .unwrap()
            .is_empty()
    );
    let sent = reminders(pool).await;
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[2].1, "annette.curtain@example.org");
    let body: String =
        sqlx::query_scalar("SELECT body_text FROM outbound_messages WHERE idempotency_key = $1")
            .bind(&sent[2].0)
            .fetch_one(pool)
            .await
            .unwrap();
    assert!(body.contains("no orders from you for turn 1"), "{body}");
    assert!(body.contains("Friday 9 May 2025, 18:00 UTC"), "{body}");

    // The next turn has reminders of its own.
    clock.set(deadline);
    turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    clock.set(deadline + Duration::days(7) - Duration::hours(48));
    let rounds = turns::send_due_reminders(pool, clock.now(), SITE)
        .await
        .unwrap();
    assert_eq!(
        (rounds.len(), rounds[0].turn, rounds[0].mails_queued),
        (1, 2, 3)
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_reminder_whose_moment_came_before_the_turn_opened_is_not_sent() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "late-start", &["Fred Bloggs", "John Smith"]).await;
    let clock = ManualClock::new(utc("2025-05-08T12:00:00Z"));
    // The turn opens 30 hours before its deadline: the 48-hour reminder never goes.
    let deadline = utc("2025-05-09T18:00:00Z");
    let game = game_with(pool, &clock, zine, "Late", Schedule::Manual, Some(deadline)).await;
    let settings = ScheduleSettings::new(
        Schedule::Manual,
        &[Duration::hours(48), Duration::hours(6)],
        Duration::zero(),
        false,
    )
    .unwrap();
    turns::set_schedule(pool, clock.now(), game, &settings, "gm")
        .await
        .unwrap();
    clock.set(deadline - Duration::hours(6));
    let rounds = turns::send_due_reminders(pool, clock.now(), SITE)
        .await
        .unwrap();
    assert_eq!(rounds.len(), 1);
    assert_eq!(rounds[0].before_deadline, Duration::hours(6));
    assert_eq!(reminders(pool).await.len(), 2);
    db.drop_database().await;
}

#[tokio::test]
async fn orders_are_taken_during_the_grace_period_and_the_turn_resolves_at_its_end() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "graceful", &["Fred Bloggs", "John Smith"]).await;
    let clock = ManualClock::new(utc("2025-05-01T12:00:00Z"));
    let deadline = utc("2025-05-09T18:00:00Z");
    let game = game_with(
        pool,
        &clock,
        zine,
        "Graceful",
        Schedule::EveryDays(7),
        Some(deadline),
    )
    .await;
    let settings =
        ScheduleSettings::new(Schedule::EveryDays(7), &[], Duration::hours(2), false).unwrap();
    turns::set_schedule(pool, clock.now(), game, &settings, "gm")
        .await
        .unwrap();
    let fred = player(pool, game, 1).await;
    let john = player(pool, game, 2).await;

    // Past the deadline, inside the grace period: orders are taken, nothing resolves.
    clock.set(deadline + Duration::minutes(90));
    turns::submit_orders(pool, clock.now(), game, fred, "Q17, R18", Source::Email)
        .await
        .unwrap();
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty()
    );
    // At the end of the grace period orders are refused, and the turn resolves with the late
    // orders in it.
    clock.set(deadline + Duration::hours(2));
    let refused =
        turns::submit_orders(pool, clock.now(), game, john, "A1, B2", Source::Email).await;
    match refused {
        Err(LifecycleError::DeadlinePassed(closed)) => {
            assert_eq!(closed, deadline + Duration::hours(2));
        }
        other => panic!("expected the orders to be refused, got {other:?}"),
    }
    assert_eq!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .len(),
        1
    );
    let report = report_of(pool, game, 1).await;
    assert!(report.contains("Q17, R18"), "{report}");
    // The grace period does not shift the rhythm: the next deadline is a week after the last.
    assert_eq!(
        deadline_of(pool, game, 2).await,
        Some(deadline + Duration::days(7))
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_turn_resolves_early_once_every_active_player_has_ordered_when_the_gm_allows_it() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(
        pool,
        "eager",
        &["Fred Bloggs", "John Smith", "Annette Curtain"],
    )
    .await;
    let clock = ManualClock::new(utc("2025-05-01T12:00:00Z"));
    let deadline = utc("2025-05-09T18:00:00Z");
    let early = game_with(
        pool,
        &clock,
        zine,
        "Early",
        Schedule::EveryDays(7),
        Some(deadline),
    )
    .await;
    let patient = game_with(
        pool,
        &clock,
        zine,
        "Patient",
        Schedule::EveryDays(7),
        Some(deadline),
    )
    .await;
    let settings =
        ScheduleSettings::new(Schedule::EveryDays(7), &[], Duration::zero(), true).unwrap();
    turns::set_schedule(pool, clock.now(), early, &settings, "gm")
        .await
        .unwrap();

    for game in [early, patient] {
        for (id, text) in [(1, "A1, B2"), (2, "C3, D4")] {
            let who = player(pool, game, id).await;
            turns::submit_orders(pool, clock.now(), game, who, text, Source::Web)
                .await
                .unwrap();
        }
    }
    // Two of three have ordered: nothing yet.
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty()
    );
    // Annette leaves the zine: the two who remain have all ordered.
    sqlx::query("UPDATE subscribers SET status = 'unsubscribed' WHERE email = 'annette.curtain@example.org'")
        .execute(pool)
        .await
        .unwrap();
    clock.advance(Duration::hours(1));
    let done = turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].game, early);
    assert_eq!(turn_status(pool, patient, 1).await, "open");
    // The next deadline keeps the game's rhythm.
    assert_eq!(
        deadline_of(pool, early, 2).await,
        Some(deadline + Duration::days(7))
    );
    // She is in no row of the report, only in its note that she left (BARMY-GM-11).
    let report = report_of(pool, early, 1).await;
    assert!(
        report.contains("Annette Curtain leaves the game before turn 1"),
        "{report}"
    );
    assert_eq!(report.matches("Annette Curtain").count(), 1, "{report}");
    db.drop_database().await;
}

#[tokio::test]
async fn a_new_subscriber_joins_at_the_next_turn_one_who_left_is_gone_and_verify_still_matches() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(
        pool,
        "growing",
        &["Fred Bloggs", "John Smith", "Annette Curtain"],
    )
    .await;
    let clock = ManualClock::new(utc("2025-05-01T12:00:00Z"));
    let deadline = utc("2025-05-09T18:00:00Z");
    let game = game_with(
        pool,
        &clock,
        zine,
        "Growing",
        Schedule::EveryDays(7),
        Some(deadline),
    )
    .await;
    let fred = player(pool, game, 1).await;
    turns::submit_orders(pool, clock.now(), game, fred, "A1, B2 Hello", Source::Email)
        .await
        .unwrap();
    clock.set(deadline);
    turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();

    // During turn 2: Newt subscribes, John unsubscribes.
    subscribers::insert(
        pool,
        &NewSubscriber {
            zine_id: zine,
            email: EmailAddress::parse("newt.comer@example.org").unwrap(),
            display_name: DisplayName::parse("Newt Comer").unwrap(),
        },
        clock.now(),
    )
    .await
    .unwrap();
    sqlx::query(
        "UPDATE subscribers SET status = 'unsubscribed' WHERE email = 'john.smith@example.org'",
    )
    .execute(pool)
    .await
    .unwrap();
    clock.set(deadline + Duration::days(7));
    turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();

    let roster: Vec<(i64, String, String, i32)> = sqlx::query_as(
        "SELECT engine_player_id, display_name, status, joined_turn FROM players \
         WHERE game_id = $1 ORDER BY engine_player_id",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(
        roster,
        [
            (1, "Fred Bloggs".into(), "active".into(), 1),
            (2, "John Smith".into(), "resigned".into(), 1),
            (3, "Annette Curtain".into(), "active".into(), 1),
            (4, "Newt Comer".into(), "active".into(), 3),
        ]
    );
    let (joining, leaving): (Value, Vec<i64>) =
        sqlx::query_as("SELECT joining, leaving FROM turns WHERE game_id = $1 AND number = 2")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(joining, json!([{ "id": 4, "name": "Newt Comer" }]));
    assert_eq!(leaving, [2]);
    let report = report_of(pool, game, 2).await;
    assert!(
        report.contains("Newt Comer joins the game and fires from turn 3."),
        "{report}"
    );
    assert!(
        report.contains("John Smith leaves the game before turn 2"),
        "{report}"
    );
    assert_eq!(report.matches("John Smith").count(), 1, "{report}");
    // Newt is mailed the report and his position with his own reply address; John neither.
    let mail_to = |address: &'static str| async move {
        sqlx::query_scalar::<_, String>(
            "SELECT idempotency_key FROM outbound_messages WHERE to_address = $1 \
             AND idempotency_key NOT LIKE '%:' || (SELECT id FROM turns WHERE game_id = $2 AND number = 1) || ':%' \
             ORDER BY id",
        )
        .bind(address)
        .bind(game)
        .fetch_all(pool)
        .await
        .unwrap()
    };
    let newt_mail = mail_to("newt.comer@example.org").await;
    assert_eq!(newt_mail.len(), 2, "{newt_mail:?}");
    assert!(newt_mail[1].starts_with("position:"));
    assert!(mail_to("john.smith@example.org").await.is_empty());

    // Newt fires in turn 3 with the address he was given.
    let newt = player(pool, game, 4).await;
    let parsed = turns::submit_orders(pool, clock.now(), game, newt, "E5, F6", Source::Email)
        .await
        .unwrap();
    assert!(parsed.errors.is_empty(), "{parsed:?}");
    clock.set(deadline + Duration::days(14));
    turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    let report = report_of(pool, game, 3).await;
    assert!(report.contains("Newt Comer"), "{report}");
    assert!(report.contains("E5, F6"), "{report}");

    // `gm verify` replays all three turns with the recorded joiners and leavers.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
        .args(["verify", &game.to_string()])
        .env("DATABASE_URL", &db.url)
        .env_remove("ADMIRALTY_LOG")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.contains(": ok")).count(),
        3,
        "{stdout}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn the_gm_sets_a_schedule_from_the_command_line_and_it_is_audited() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "commanded", &["Fred Bloggs", "John Smith"]).await;
    let clock = ManualClock::new(utc("2025-05-01T12:00:00Z"));
    let game = game_with(pool, &clock, zine, "Commanded", Schedule::Manual, None).await;
    assert_eq!(deadline_of(pool, game, 1).await, None);
    let gm = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
            .args(["game", &game.to_string(), "schedule"])
            .args(args)
            .env("DATABASE_URL", &db.url)
            // Thursday 1 May 2025, 12:00 UTC.
            .env("ADMIRALTY_NOW", "2025-05-01T12:00:00Z")
            .env_remove("ADMIRALTY_LOG")
            .output()
            .unwrap()
    };
    let output = gm(&[
        "weekly",
        "Friday",
        "18:00",
        "Europe/London",
        "--remind",
        "48h,6h",
        "--grace",
        "2h",
        "--early",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("weekly Friday 18:00 Europe/London; reminders 2d, 6h before; grace 2h"),
        "{stdout}"
    );
    let stored = turns::schedule_of(pool, game).await.unwrap();
    assert_eq!(
        stored,
        ScheduleSettings::new(
            "weekly Friday 18:00 Europe/London".parse().unwrap(),
            &[Duration::hours(48), Duration::hours(6)],
            Duration::hours(2),
            true
        )
        .unwrap()
    );
    // The open turn had no deadline: it gets the first Friday 18:00 BST after "now".
    assert_eq!(
        deadline_of(pool, game, 1).await,
        Some(utc("2025-05-02T17:00:00Z"))
    );
    let audited: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE game_id = $1 AND action = 'game.schedule' AND actor = 'gm'",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(audited, 1);

    // Bad input is refused with the reason, and changes nothing.
    for (args, says) in [
        (
            &["weekly", "Funday", "18:00", "Europe/London"][..],
            "not a day of the week",
        ),
        (
            &["weekly", "Friday", "18:00", "Mars/Olympus"][..],
            "not a time zone",
        ),
        (
            &["every", "7", "days", "--remind", "6"][..],
            "not a duration",
        ),
    ] {
        let output = gm(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert_eq!(turns::schedule_of(pool, game).await.unwrap(), stored);
    db.drop_database().await;
}

async fn resolve_failures_logged(pool: &PgPool, game: GameId) -> Vec<Value> {
    sqlx::query_scalar(
        "SELECT details FROM audit_log WHERE action = 'turn.resolve_failed' AND game_id = $1 ORDER BY id",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_turn_that_fails_to_resolve_does_not_hold_up_the_other_games_and_is_retried_later() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let clock = ManualClock::new(utc("2025-03-20T09:00:00Z"));
    let broken_zine = zine_with(pool, "broken", &["Fred Bloggs", "John Smith"]).await;
    let sound_zine = zine_with(pool, "sound", &["Jane Doe", "Joe Soap"]).await;
    let weekly = || Schedule::EveryDays(7);
    // The broken game's deadline comes first, so it is the first due turn claimed.
    let broken = game_with(
        pool,
        &clock,
        broken_zine,
        "Broken",
        weekly(),
        Some(utc("2025-03-21T12:00:00Z")),
    )
    .await;
    let sound = game_with(
        pool,
        &clock,
        sound_zine,
        "Sound",
        weekly(),
        Some(utc("2025-03-21T18:00:00Z")),
    )
    .await;
    // A stored state the engine cannot read (as after a bad manual edit or a botched restore).
    let good_state: Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(broken)
        .fetch_one(pool)
        .await
        .unwrap();
    sqlx::query("UPDATE games SET state = '{\"ships\": \"garbled\"}' WHERE id = $1")
        .bind(broken)
        .execute(pool)
        .await
        .unwrap();

    clock.set(utc("2025-03-21T18:00:00Z"));
    let done = turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    assert_eq!(
        done.iter().map(|t| t.game).collect::<Vec<_>>(),
        vec![sound],
        "the sound game is resolved although the broken one, due first, fails"
    );
    assert_eq!(turn_status(pool, sound, 1).await, "published");
    assert_eq!(turn_status(pool, broken, 1).await, "open");
    let logged = resolve_failures_logged(pool, broken).await;
    assert_eq!(logged.len(), 1, "{logged:?}");
    // The GM's digest will tell of it (issue 27 item 8).
    let told = crate::digest::notices_of(pool, "turn_failed").await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].starts_with("A due turn of Broken could not be resolved"));
    assert_eq!(logged[0]["failures"], 1);
    assert!(
        !logged[0]["error"].as_str().unwrap().is_empty(),
        "{logged:?}"
    );
    let (error, retry_at): (Option<String>, Option<DateTime<Utc>>) =
        sqlx::query_as("SELECT resolve_error, resolve_retry_at FROM turns WHERE game_id = $1")
            .bind(broken)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(error.as_deref(), logged[0]["error"].as_str());
    assert_eq!(retry_at, Some(clock.now() + Duration::minutes(1)));

    // Polled again at once: the failing turn is put off, not retried in a loop.
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(resolve_failures_logged(pool, broken).await.len(), 1);

    // Still broken a minute later: it fails again and waits twice as long.
    clock.advance(Duration::minutes(1));
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty()
    );
    let logged = resolve_failures_logged(pool, broken).await;
    assert_eq!(logged.len(), 2);
    assert_eq!(logged[1]["failures"], 2);

    // Repaired, it is resolved at its next try, once.
    sqlx::query("UPDATE games SET state = $2 WHERE id = $1")
        .bind(broken)
        .bind(&good_state)
        .execute(pool)
        .await
        .unwrap();
    clock.advance(Duration::minutes(1));
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty(),
        "not before its back-off has passed"
    );
    clock.advance(Duration::minutes(1));
    let done = turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    assert_eq!(
        done.iter().map(|t| t.game).collect::<Vec<_>>(),
        vec![broken]
    );
    assert_eq!(turn_status(pool, broken, 1).await, "published");
    assert_eq!(turn_status(pool, sound, 2).await, "open");
    db.drop_database().await;
}

/// Issue 19, BARMY-17: a Barmy set that fires no shot stands as the player's set (its press is
/// printed) but is a missed turn, so the player is still reminded, the turn does not resolve
/// early on it, and the GM's page says so. A set that fires resolves the turn early at once.
#[tokio::test]
async fn a_set_that_fires_nothing_is_reminded_and_resolves_no_turn_early() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "silent", &["Fred Bloggs", "John Smith"]).await;
    let clock = ManualClock::new(utc("2025-05-01T12:00:00Z"));
    let deadline = utc("2025-05-09T18:00:00Z");
    let game = game_with(
        pool,
        &clock,
        zine,
        "Silent",
        Schedule::EveryDays(7),
        Some(deadline),
    )
    .await;
    let settings = ScheduleSettings::new(
        Schedule::EveryDays(7),
        &[Duration::hours(48)],
        Duration::zero(),
        true,
    )
    .unwrap();
    turns::set_schedule(pool, clock.now(), game, &settings, "gm")
        .await
        .unwrap();
    let fred = player(pool, game, 1).await;
    let john = player(pool, game, 2).await;
    turns::submit_orders(pool, clock.now(), game, fred, "A1, B2", Source::Web)
        .await
        .unwrap();
    let parsed = turns::submit_orders(
        pool,
        clock.now(),
        game,
        john,
        "Fair winds to all, and no shots from me this week",
        Source::Web,
    )
    .await
    .unwrap();
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.problem.contains("missed turn")),
        "{parsed:?}"
    );
    // Both have a set, but John's fires nothing: no early resolution.
    assert!(
        turns::resolve_due(pool, clock.now(), DOMAIN)
            .await
            .unwrap()
            .is_empty()
    );
    // John is reminded, Fred is not.
    clock.set(deadline - Duration::hours(48));
    turns::send_due_reminders(pool, clock.now(), SITE)
        .await
        .unwrap();
    let to: Vec<String> = reminders(pool)
        .await
        .into_iter()
        .map(|(_, to, _)| to)
        .collect();
    assert_eq!(to, ["john.smith@example.org"]);
    // John fires: the turn resolves at once.
    turns::submit_orders(pool, clock.now(), game, john, "C3, D4", Source::Web)
        .await
        .unwrap();
    let done = turns::resolve_due(pool, clock.now(), DOMAIN).await.unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].game, game);
    db.drop_database().await;
}
