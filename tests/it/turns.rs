//! The turn lifecycle's core: a game of the zine's subscribers, orders, a deadline passing,
//! and each turn resolved, published and mailed exactly once, even by several workers at once.

use chrono::{DateTime, Duration, Utc};
use engine::{GameSecret, PlayerId, TurnDice, TurnInput, TurnSeed};
use games::EngineKind;
use serde_json::{Value, json};
use server::turns::{self, Entropy, GameSpec, Schedule};
use store::games::GameId;
use store::players::PlayerRowId;
use store::status::Source;
use store::subscribers::{self, NewSubscriber};
use store::testing::TestDatabase;
use store::zines::{self, ZineId};
use store::{DisplayName, EmailAddress, PgPool, ZineSlug};

use crate::helpers::{Counter, trafalgar};

pub(crate) async fn zine_with(pool: &PgPool, slug: &str, names: &[&str]) -> ZineId {
    let zine = zines::insert(pool, &ZineSlug::parse(slug).unwrap(), slug, trafalgar())
        .await
        .unwrap();
    for name in names {
        let address = format!("{}@example.org", name.to_lowercase().replace(' ', "."));
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(&address).unwrap(),
            display_name: DisplayName::parse(name).unwrap(),
        };
        subscribers::insert(pool, &new, trafalgar()).await.unwrap();
    }
    zine.id
}

async fn barmy_game(
    pool: &PgPool,
    zine: ZineId,
    name: &str,
    setup: Value,
    deadline: DateTime<Utc>,
    seed: u8,
) -> GameId {
    let spec = GameSpec {
        zine,
        name,
        setup: &EngineKind::Barmy.parse_setup(&setup).unwrap(),
        first_deadline: Some(deadline),
        schedule: Schedule::EveryDays(7),
    };
    turns::create_game(pool, trafalgar(), &spec, &mut Counter(seed))
        .await
        .unwrap()
}

pub(crate) async fn player(pool: &PgPool, game: GameId, engine_id: i64) -> PlayerRowId {
    sqlx::query_scalar("SELECT id FROM players WHERE game_id = $1 AND engine_player_id = $2")
        .bind(game)
        .bind(engine_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

pub(crate) async fn count(pool: &PgPool, sql: &'static str, game: GameId) -> i64 {
    sqlx::query_scalar(sql)
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_turn_resolves_at_its_deadline_once_and_replays_from_what_is_stored() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(
        pool,
        "gazette",
        &["Fred Bloggs", "John Smith", "Annette Curtain"],
    )
    .await;
    let deadline = trafalgar() + Duration::days(1);
    let game = barmy_game(pool, zine, "Barmy", json!({}), deadline, 1).await;
    // Every active subscriber plays (BARMY-02).
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM players WHERE game_id = $1",
            game
        )
        .await,
        3
    );

    let fred = player(pool, game, 1).await;
    let john = player(pool, game, 2).await;
    let first = turns::submit_orders(pool, trafalgar(), game, fred, "A1, B2", Source::Web)
        .await
        .unwrap();
    assert!(first.errors.is_empty());
    // A later set replaces the first: the last set received counts.
    let parsed = turns::submit_orders(
        pool,
        trafalgar(),
        game,
        fred,
        "Fred Bloggs G13, K19 One more shot!",
        Source::Email,
    )
    .await
    .unwrap();
    assert_eq!(parsed.understood[0], "fire at G13");
    let bad = turns::submit_orders(pool, trafalgar(), game, john, "T12, S13", Source::Web)
        .await
        .unwrap();
    assert!(bad.errors[0].problem.contains("T12 is off the board"));

    // Before the deadline nothing happens; at it, the turn is done once.
    assert!(
        turns::resolve_due(pool, trafalgar(), "zine.example.org")
            .await
            .unwrap()
            .is_empty()
    );
    let done = turns::resolve_due(pool, deadline, "zine.example.org")
        .await
        .unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!((done[0].turn, done[0].finished), (1, false));
    // 3 reports to the zine's subscribers and 3 private positions.
    assert_eq!(done[0].mails_queued, 6);
    assert!(
        turns::resolve_due(pool, deadline + Duration::hours(1), "zine.example.org")
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE $1 > 0",
            game
        )
        .await,
        6
    );

    let (status, revealed, commitment): (String, String, String) = sqlx::query_as(
        "SELECT status, revealed_seed, seed_commitment FROM turns WHERE game_id = $1 AND number = 1",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(status, "published");
    let seed = TurnSeed::parse_hex(&revealed).unwrap();
    assert!(seed.matches(&commitment));
    let (number, next_deadline, next_status): (i32, DateTime<Utc>, String) = sqlx::query_as(
        "SELECT number, deadline, status FROM turns WHERE game_id = $1 AND number = 2",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        (number, next_deadline, next_status.as_str()),
        (2, deadline + Duration::days(7), "open")
    );

    let text: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id WHERE t.game_id = $1",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(text.contains("Fred Bloggs"));
    assert!(text.contains("G13, K19"));
    assert!(text.contains("T12, S13"));
    assert!(text.contains("miss (off board)"));
    assert!(text.contains("NMR"), "Annette sent nothing:\n{text}");
    assert!(text.contains("Fred Bloggs: \"One more shot!\""));
    let position: (String, Value) = sqlx::query_as(
        "SELECT body_text, headers FROM outbound_messages WHERE idempotency_key LIKE 'position:%' ORDER BY id LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(position.0.contains("Your battleship lies on"));
    assert!(
        position.1["Reply-To"]
            .as_str()
            .unwrap()
            .starts_with("orders+")
    );

    // Anyone with the state before the turn, the orders that counted, the press and both
    // seeds gets the same report.
    let state_before: Value =
        sqlx::query_scalar("SELECT state_before FROM turns WHERE game_id = $1 AND number = 1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    let mut input = TurnInput::default();
    let turn = turn_id(pool, game, 1).await;
    for (id, parsed) in store::orders::current_orders(pool, turn, EngineKind::Barmy)
        .await
        .unwrap()
    {
        input.orders.insert(PlayerId(id as u64), parsed);
    }
    let press: Vec<games::PressItem> =
        store::orders::turn_press(pool, turn_id(pool, game, 1).await)
            .await
            .unwrap()
            .into_iter()
            .map(|(id, text)| games::PressItem {
                player: PlayerId(id as u64),
                text,
            })
            .collect();
    let mut secret = [0u8; 32];
    Counter(1).fill(&mut secret);
    let sealed = GameSecret::from_bytes(secret).sealed_seed(1);
    let replay = EngineKind::Barmy
        .parse_state(&state_before)
        .unwrap()
        .resolve(input, &press, &mut TurnDice::from_seeds(&seed, &sealed))
        .unwrap();
    assert_eq!(replay.report.to_text(), text);
    db.drop_database().await;
}

async fn turn_id(pool: &PgPool, game: GameId, number: i32) -> store::turns::TurnId {
    sqlx::query_scalar("SELECT id FROM turns WHERE game_id = $1 AND number = $2")
        .bind(game)
        .bind(number)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn several_workers_at_once_resolve_each_due_turn_exactly_once() {
    let db = TestDatabase::migrated().await;
    let pool = db.pool.clone();
    let zine = zine_with(&pool, "crowd", &["A One", "B Two", "C Three", "D Four"]).await;
    let deadline = trafalgar() + Duration::days(1);
    for index in 0..12u8 {
        barmy_game(
            &pool,
            zine,
            &format!("Game {index}"),
            json!({}),
            deadline,
            index,
        )
        .await;
    }
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let pool = pool.clone();
            tokio::spawn(async move {
                turns::resolve_due(&pool, deadline, "zine.example.org")
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut resolved = Vec::new();
    for worker in workers {
        resolved.extend(worker.await.unwrap());
    }
    assert_eq!(resolved.len(), 12, "{resolved:?}");
    let games: std::collections::BTreeSet<GameId> = resolved.iter().map(|r| r.game).collect();
    assert_eq!(games.len(), 12, "a game was resolved twice");
    let reports: i64 = sqlx::query_scalar("SELECT count(*) FROM published_reports")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(reports, 12);
    // 4 reports and 4 positions per game, never twice.
    let mails: i64 = sqlx::query_scalar("SELECT count(*) FROM outbound_messages")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(mails, 12 * 8);
    let audit: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'turn.resolve'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(audit, 12);
    db.drop_database().await;
}

#[tokio::test]
async fn a_finished_game_reveals_every_sealed_seed() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "short", &["Fred Bloggs", "John Smith"]).await;
    let deadline = trafalgar() + Duration::days(1);
    let game = barmy_game(
        pool,
        zine,
        "One turn",
        json!({ "final_turn": 1 }),
        deadline,
        9,
    )
    .await;
    let done = turns::resolve_due(pool, deadline, "zine.example.org")
        .await
        .unwrap();
    assert!(done[0].finished);
    let (status,): (String,) = sqlx::query_as("SELECT status FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(status, "finished");
    let (sealed, commitment): (String, String) =
        sqlx::query_as("SELECT revealed_sealed_seed, sealed_commitment FROM turns WHERE game_id = $1 AND number = 1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    assert!(TurnSeed::parse_hex(&sealed).unwrap().matches(&commitment));
    // No turn 2 opens.
    assert_eq!(
        count(pool, "SELECT count(*) FROM turns WHERE game_id = $1", game).await,
        1
    );
    let text: String = sqlx::query_scalar("SELECT text FROM published_reports")
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(text.contains("Game over"), "{text}");
    db.drop_database().await;
}

#[tokio::test]
async fn gm_verify_replays_every_published_turn_and_catches_a_forged_report() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(
        pool,
        "checked",
        &["Fred Bloggs", "John Smith", "Annette Curtain"],
    )
    .await;
    let deadline = trafalgar() + Duration::days(1);
    let game = barmy_game(
        pool,
        zine,
        "Checked",
        json!({ "width": 8, "height": 8 }),
        deadline,
        5,
    )
    .await;
    for (week, text) in [(0, "A1, B2 Hello"), (1, "C3, D4"), (2, "E5, F6")] {
        let fred = player(pool, game, 1).await;
        turns::submit_orders(pool, trafalgar(), game, fred, text, Source::Web)
            .await
            .unwrap();
        turns::resolve_due(
            pool,
            deadline + Duration::days(7 * week),
            "zine.example.org",
        )
        .await
        .unwrap();
    }
    let verify = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
            .args(["verify", &game.to_string()])
            .env("DATABASE_URL", &db.url)
            .env_remove("ADMIRALTY_LOG")
            .output()
            .unwrap()
    };
    let output = verify();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.ends_with("ok (sealed seed from the secret)"))
            .count(),
        3,
        "{stdout}"
    );

    // Forge turn 2's published report: verify says so and fails.
    sqlx::query(
        "UPDATE published_reports SET text = replace(text, 'Fred Bloggs', 'Fred Blogs') \
         WHERE turn_id = (SELECT id FROM turns WHERE game_id = $1 AND number = 2)",
    )
    .bind(game)
    .execute(pool)
    .await
    .unwrap();
    let output = verify();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(!output.status.success());
    assert!(stdout.contains("turn 1: ok"), "{stdout}");
    assert!(stdout.contains("turn 2: MISMATCH"), "{stdout}");
    assert!(
        !stdout.contains("turn 3"),
        "verify stops at the first mismatch: {stdout}"
    );
    db.drop_database().await;
}

async fn open_deadline(pool: &PgPool, game: GameId) -> Option<DateTime<Utc>> {
    sqlx::query_scalar("SELECT deadline FROM turns WHERE game_id = $1 AND status = 'open'")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn audit_actions(pool: &PgPool, game: GameId) -> Vec<String> {
    sqlx::query_scalar("SELECT action FROM audit_log WHERE game_id = $1 ORDER BY id")
        .bind(game)
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_gm_extends_pauses_resumes_resolves_now_and_ends_with_every_action_audited() {
    use server::turns::GmAction;
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(
        pool,
        "steered",
        &["Fred Bloggs", "John Smith", "Annette Curtain"],
    )
    .await;
    let t0 = trafalgar();
    let deadline = t0 + Duration::days(2);
    let game = barmy_game(pool, zine, "Steered", json!({}), deadline, 11).await;
    let act = |now, action| turns::gm_action(pool, now, game, action, "gm", "zine.example.org");

    // Extend: the deadline moves; nothing resolves at the old one.
    act(t0, GmAction::Extend(Duration::hours(24)))
        .await
        .unwrap();
    assert_eq!(
        open_deadline(pool, game).await,
        Some(deadline + Duration::hours(24))
    );
    assert!(
        turns::resolve_due(pool, deadline, "zine.example.org")
            .await
            .unwrap()
            .is_empty()
    );

    // Pause a day before the deadline: nothing resolves while paused, however late it gets.
    let paused_at = deadline;
    act(paused_at, GmAction::Pause).await.unwrap();
    let much_later = paused_at + Duration::days(10);
    assert!(
        turns::resolve_due(pool, much_later, "zine.example.org")
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        act(much_later, GmAction::ResolveNow).await.is_err(),
        "resolve-now must refuse a paused game"
    );
    // Resume gives back the day that was left.
    act(much_later, GmAction::Resume).await.unwrap();
    assert_eq!(
        open_deadline(pool, game).await,
        Some(much_later + Duration::hours(24))
    );

    // Resolve now: turn 1 is published at once.
    act(much_later, GmAction::ResolveNow).await.unwrap();
    let status: String =
        sqlx::query_scalar("SELECT status FROM turns WHERE game_id = $1 AND number = 1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(status, "published");

    // End: the game is over, turn 2 abandoned, every sealed seed revealed.
    act(much_later, GmAction::End).await.unwrap();
    let game_status: String = sqlx::query_scalar("SELECT status FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(game_status, "finished");
    let hidden: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM turns WHERE game_id = $1 AND revealed_sealed_seed IS NULL",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(hidden, 0);
    assert!(
        act(much_later, GmAction::Extend(Duration::hours(1)))
            .await
            .is_err(),
        "a finished game stays finished"
    );
    assert_eq!(
        audit_actions(pool, game).await,
        [
            "game.create",
            "game.extend",
            "game.pause",
            "game.resume",
            "game.resolve_now",
            "turn.resolve",
            "game.end"
        ]
    );
    db.drop_database().await;
}

#[tokio::test]
async fn gm_verify_replays_with_the_players_who_had_left_not_todays_roster() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(
        pool,
        "leavers",
        &["Fred Bloggs", "John Smith", "Annette Curtain"],
    )
    .await;
    let deadline = trafalgar() + Duration::days(1);
    let game = barmy_game(pool, zine, "Leavers", json!({}), deadline, 21).await;
    // John resigns before the deadline: his ship leaves the board this turn (BARMY-GM-11).
    sqlx::query(
        "UPDATE players SET status = 'resigned' WHERE game_id = $1 AND engine_player_id = 2",
    )
    .bind(game)
    .execute(pool)
    .await
    .unwrap();
    turns::resolve_due(pool, deadline, "zine.example.org")
        .await
        .unwrap();
    let text: String = sqlx::query_scalar("SELECT text FROM published_reports")
        .fetch_one(pool)
        .await
        .unwrap();
    // He is in no row, only in the report's note that he left (BARMY-GM-11).
    assert!(
        text.contains("John Smith leaves the game before turn 1"),
        "{text}"
    );
    assert_eq!(text.matches("John Smith").count(), 1, "{text}");
    // Whatever his status becomes later, the published turn replays as it was resolved.
    sqlx::query("UPDATE players SET status = 'active' WHERE game_id = $1")
        .bind(game)
        .execute(pool)
        .await
        .unwrap();
    let checks = turns::verify_game(pool, game).await.unwrap();
    assert_eq!(checks.len(), 1);
    assert!(checks[0].matches, "{checks:?}");
    db.drop_database().await;
}

#[tokio::test]
async fn the_gm_is_told_what_is_wrong_and_a_pause_keeps_its_time_left_in_the_game() {
    use server::turns::{GmAction, LifecycleError};
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let zine = zine_with(pool, "told", &["Fred Bloggs", "John Smith"]).await;
    let t0 = trafalgar();
    let deadline = t0 + Duration::days(2);
    let game = barmy_game(pool, zine, "Told", json!({}), deadline, 12).await;
    let act =
        |now, game, action| turns::gm_action(pool, now, game, action, "gm", "zine.example.org");

    // A game that does not exist is not found, whatever is asked of it.
    let missing = crate::helpers::id::<GameId>(999_999);
    assert!(matches!(
        act(t0, missing, GmAction::Pause).await,
        Err(LifecycleError::GameNotFound(game)) if game == missing
    ));
    assert!(matches!(
        turns::verify_game(pool, missing).await,
        Err(LifecycleError::GameNotFound(game)) if game == missing
    ));
    assert!(matches!(
        turns::schedule_of(pool, missing).await,
        Err(LifecycleError::GameNotFound(game)) if game == missing
    ));

    // A paused game is paused, not inconsistent.
    act(t0, game, GmAction::Pause).await.unwrap();
    let left: Option<i64> =
        sqlx::query_scalar("SELECT paused_seconds_left FROM games WHERE id = $1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(left, Some(Duration::days(2).num_seconds()));
    let refused = act(t0, game, GmAction::ResolveNow).await;
    assert!(
        matches!(refused, Err(LifecycleError::Paused(id)) if id == game),
        "{refused:?}"
    );

    // Resuming gives back what the game's row says was left (here set to an hour): the time is
    // read from the game, not from the audit log's pause entry (which says two days).
    sqlx::query("UPDATE games SET paused_seconds_left = 3600 WHERE id = $1")
        .bind(game)
        .execute(pool)
        .await
        .unwrap();
    let later = t0 + Duration::days(5);
    act(later, game, GmAction::Resume).await.unwrap();
    assert_eq!(
        open_deadline(pool, game).await,
        Some(later + Duration::hours(1))
    );
    let left: Option<i64> =
        sqlx::query_scalar("SELECT paused_seconds_left FROM games WHERE id = $1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(left, None);
    db.drop_database().await;
}
