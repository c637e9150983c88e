//! Standbys and replacements (issue 18 item 3): a subscriber volunteers by mail, the GM hands
//! them a seat mid-game; the engine renames the seat from that turn (an input recorded with
//! it), so `gm verify` replays every turn; the report's Name reads "New (replacing Old)" from the turn it takes effect, the newcomer gets
//! the position with their own reply address, and the old address is refused in words.

use chrono::Duration;
use games::EngineKind;
use server::inbox;
use server::rosters::replace::{Replacement, replace_player};
use server::turns::{self, GameSpec, GmAction, Roster, RosterPick, Schedule};
use store::PgPool;
use store::games::GameId;
use store::subscribers::SubscriberId;
use store::testing::TestDatabase;

use crate::helpers::{Counter, trafalgar};
use crate::inbox::{DOMAIN, barmy_game, message, outbound, reply_address_of};

/// Mails `body` to the reply address `to` through the real inbox; the answer's text.
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
    let (_, text, _) = outbound(pool).await.pop().unwrap();
    text
}

async fn subscriber(pool: &PgPool, name: &str) -> SubscriberId {
    crate::helpers::id::<SubscriberId>(
        sqlx::query_scalar("SELECT id FROM subscribers WHERE display_name = $1")
            .bind(name)
            .fetch_one(pool)
            .await
            .unwrap(),
    )
}

async fn report_of(pool: &PgPool, game: GameId, turn: i32) -> String {
    sqlx::query_scalar(
        "SELECT r.markdown FROM published_reports r JOIN turns t ON t.id = r.turn_id \
         WHERE t.game_id = $1 AND t.number = $2",
    )
    .bind(game)
    .bind(turn)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn resolve_now(pool: &PgPool, game: GameId, hours: i64) {
    turns::gm_action(
        pool,
        trafalgar() + Duration::hours(hours),
        game,
        GmAction::ResolveNow,
        "gm",
        DOMAIN,
    )
    .await
    .unwrap();
}

/// A zine of three (all in a Barmy game, so each has a reply address) with a salvo game of
/// Fred and John.
async fn salvo_of_two(pool: &PgPool) -> (GameId, GameId) {
    let barmy = barmy_game(
        pool,
        ("gazette", "Gazette"),
        "Trafalgar",
        &[
            ("fred@example.org", "Fred Bloggs"),
            ("john@example.org", "John Smith"),
            ("mary@example.org", "Mary Jones"),
        ],
        5,
    )
    .await;
    let zine = sqlx::query_scalar("SELECT id FROM zines")
        .fetch_one(pool)
        .await
        .map(crate::helpers::id::<store::zines::ZineId>)
        .unwrap();
    let picks = vec![
        RosterPick {
            subscriber: subscriber(pool, "Fred Bloggs").await,
            seat: 0,
        },
        RosterPick {
            subscriber: subscriber(pool, "John Smith").await,
            seat: 0,
        },
    ];
    let salvo = turns::create_game_with(
        pool,
        trafalgar(),
        &GameSpec {
            zine,
            name: "Lissa",
            setup: &EngineKind::Salvo.default_setup(),
            first_deadline: Some(trafalgar() + Duration::days(2)),
            schedule: Schedule::EveryDays(7),
        },
        &Roster::Chosen(picks),
        &mut Counter(7),
        &turns::Creation {
            actor: "gm",
            zone: chrono_tz::Tz::UTC,
            mail: None,
        },
    )
    .await
    .unwrap();
    (barmy, salvo)
}

#[tokio::test]
async fn a_standby_takes_over_a_seat_and_every_published_turn_still_verifies() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = salvo_of_two(pool).await;
    let mary_barmy = reply_address_of(pool, barmy, 3).await;
    let john_lissa = reply_address_of(pool, lissa, 2).await;

    // Mary volunteers by mail; a second STANDBY says she is on the list already.
    let answer = mail(pool, "standby-1", &mary_barmy, "STANDBY\r\n").await;
    assert!(answer.contains("You are on the standby list"), "{answer}");
    let answer = mail(pool, "standby-2", &mary_barmy, "standby\r\n").await;
    assert!(answer.contains("already on the standby list"), "{answer}");
    let answer = mail(pool, "standby-3", &mary_barmy, "STANDBY maybe\r\n").await;
    assert!(answer.contains("nothing was done"), "{answer}");

    // Before taking the seat she sees nothing of John's position.
    let john_seat = turns::player_id(2);
    let hidden = turns::game_state(pool, lissa)
        .await
        .unwrap()
        .view(engine::Viewer::Player(john_seat))
        .lines;
    let public = turns::game_state(pool, lissa)
        .await
        .unwrap()
        .view(engine::Viewer::Public)
        .lines;
    let secret_lines: Vec<&String> = hidden.iter().filter(|l| !public.contains(l)).collect();
    assert!(!secret_lines.is_empty(), "{hidden:?}");
    let answer = mail(pool, "peek", &mary_barmy, "GAME Lissa\r\nPOSITION\r\n").await;
    assert!(answer.contains("no game called \"Lissa\""), "{answer}");
    for (to, body, _) in outbound(pool).await {
        if to == "mary@example.org" {
            for line in &secret_lines {
                assert!(!body.contains(line.as_str()), "{line} reached Mary: {body}");
            }
        }
    }

    // Turn 1 resolves with John; the GM then gives John's seat to Mary, from turn 2.
    resolve_now(pool, lissa, 1).await;
    let mary = subscriber(pool, "Mary Jones").await;
    let replaced = replace_player(
        pool,
        trafalgar() + Duration::hours(2),
        &Replacement {
            game: lissa,
            player: "John Smith",
            subscriber: mary,
        },
        "gm:nelson",
        DOMAIN,
        &mut Counter(40),
    )
    .await
    .unwrap();
    assert_eq!(
        (replaced.old_name.as_str(), replaced.from_turn),
        ("John Smith", 2)
    );
    // Mary gets the position with her own new reply address.
    let (to, body, headers) = outbound(pool).await.pop().unwrap();
    assert_eq!(to, "mary@example.org");
    assert!(body.contains("John Smith's place in Lissa"), "{body}");
    let mary_lissa = reply_address_of(pool, lissa, 2).await;
    assert_ne!(mary_lissa, john_lissa);
    assert_eq!(headers["Reply-To"].as_str(), Some(mary_lissa.as_str()));
    let now_visible = turns::game_state(pool, lissa)
        .await
        .unwrap()
        .view(engine::Viewer::Player(john_seat))
        .lines;
    for line in now_visible.iter().filter(|l| !public.contains(l)) {
        assert!(body.contains(line.as_str()), "{line} missing: {body}");
    }
    // She was taken off the standby list.
    let answer = mail(pool, "standby-off", &mary_barmy, "STANDBY OFF\r\n").await;
    assert!(answer.contains("were not on the standby list"), "{answer}");

    // John's old address is refused with the reason; Mary's works.
    let answer = mail(pool, "john-late", &john_lissa, "STATUS\r\n").await;
    assert!(
        answer.contains("you were replaced in Lissa on turn 2"),
        "{answer}"
    );
    let answer = mail(pool, "mary-status", &mary_lissa, "STATUS\r\n").await;
    assert!(answer.contains("Lissa"), "{answer}");
    assert!(!answer.contains("replaced"), "{answer}");

    // The reports: John's name on turn 1, "Mary Jones (replacing John Smith)" from turn 2.
    resolve_now(pool, lissa, 3).await;
    let first = report_of(pool, lissa, 1).await;
    assert!(first.contains("John Smith"), "{first}");
    assert!(!first.contains("replacing"), "{first}");
    let second = report_of(pool, lissa, 2).await;
    assert!(
        second.contains("Mary Jones (replacing John Smith)"),
        "{second}"
    );

    // gm verify replays both turns byte for byte across the replacement.
    let checks = turns::verify::verify_game(pool, lissa).await.unwrap();
    assert_eq!(checks.len(), 2, "{checks:?}");
    assert!(checks.iter().all(|c| c.matches), "{checks:?}");

    // A second replacement of a seat by someone who already plays is refused in words.
    let fred = subscriber(pool, "Fred Bloggs").await;
    let refused = replace_player(
        pool,
        trafalgar() + Duration::hours(4),
        &Replacement {
            game: lissa,
            player: "Mary Jones",
            subscriber: fred,
        },
        "gm:nelson",
        DOMAIN,
        &mut Counter(41),
    )
    .await
    .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("Fred Bloggs already plays in Lissa"),
        "{refused}"
    );

    // From the command line: Barmy hands no seat over; John takes Fred's seat in Lissa.
    let gm = |game: GameId, player: &str, subscriber: SubscriberId| {
        std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
            .args([
                "game",
                &game.to_string(),
                "replace",
                player,
                &subscriber.to_string(),
            ])
            .env("DATABASE_URL", &db.url)
            .env_remove("ADMIRALTY_LOG")
            .output()
            .unwrap()
    };
    let john = subscriber(pool, "John Smith").await;
    let output = gm(barmy, "Fred Bloggs", john);
    assert!(!output.status.success(), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("every subscriber plays Trafalgar"), "{said}");
    let output = gm(lissa, "Fred Bloggs", john);
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    assert!(
        printed.contains("John Smith replaces Fred Bloggs from turn 3"),
        "{printed}"
    );
}

#[tokio::test]
async fn the_gm_replaces_a_player_with_a_standby_on_the_console() {
    use crate::rosters::{game_id, subscriber_id, zine_of_six};
    use reqwest::StatusCode;
    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    // The game is made by the service (the new-game form is tested in rosters.rs).
    let zine = sqlx::query_scalar("SELECT id FROM zines")
        .fetch_one(pool)
        .await
        .map(crate::helpers::id::<store::zines::ZineId>)
        .unwrap();
    let mut picks = Vec::new();
    for name in ["Lucas", "Collingwood"] {
        picks.push(RosterPick {
            subscriber: crate::helpers::id::<SubscriberId>(subscriber_id(pool, name).await),
            seat: 0,
        });
    }
    turns::create_game_with(
        pool,
        trafalgar(),
        &GameSpec {
            zine,
            name: "Over Dover",
            setup: &EngineKind::Salvo.default_setup(),
            first_deadline: Some(trafalgar() + Duration::days(2)),
            schedule: Schedule::EveryDays(7),
        },
        &Roster::Chosen(picks),
        &mut Counter(8),
        &turns::Creation {
            actor: "gm",
            zone: chrono_tz::Tz::UTC,
            mail: None,
        },
    )
    .await
    .unwrap();
    let game = game_id(pool, "Over Dover").await;
    let gravina = subscriber_id(pool, "Gravina").await;
    // Gravina volunteers on her player pages; a form without the session's token does nothing.
    let mut player = crate::players::logged_in(&app, "gravina@principe.example").await;
    let me = player.get_text("/me").await;
    assert!(me.contains("id=\"standby-on\""), "{me}");
    let csrf = crate::console::hidden_csrf(&me);
    let forged = player
        .post("/me/standby", &[("csrf", "0"), ("standby", "on")])
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    assert!(
        !store::replacements::is_standby(pool, crate::helpers::id::<SubscriberId>(gravina))
            .await
            .unwrap()
    );
    let response = player
        .post("/me/standby", &[("csrf", &csrf), ("standby", "on")])
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let me = player.get_text("/me").await;
    assert!(me.contains("id=\"standby-off\""), "{me}");
    let (lucas_seat, lucas_token): (i64, String) = sqlx::query_as(
        "SELECT engine_player_id, reply_token FROM players WHERE game_id = $1 AND display_name = 'Lucas'",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();

    // Before taking a seat the standby sees nothing of the game: not on her pages, and the
    // game's player page is not hers.
    let lucas_view = turns::game_state(pool, crate::helpers::id::<GameId>(game))
        .await
        .unwrap()
        .view(engine::Viewer::Player(turns::player_id(lucas_seat)))
        .lines;
    let public_view = turns::game_state(pool, crate::helpers::id::<GameId>(game))
        .await
        .unwrap()
        .view(engine::Viewer::Public)
        .lines;
    let me = player.get_text("/me").await;
    assert!(!me.contains("Over Dover"), "{me}");
    for line in lucas_view.iter().filter(|l| !public_view.contains(l)) {
        assert!(!me.contains(line.as_str()), "{line}: {me}");
    }
    let response = player.get(&format!("/me/games/{game}")).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let page = response.text().await.unwrap();
    for line in lucas_view.iter().filter(|l| !public_view.contains(l)) {
        assert!(!page.contains(line.as_str()), "{line}: {page}");
    }

    // The game page offers the seats, the standby first.
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("id=\"replace\""), "{page}");
    let offered = page.split("id=\"replace-by\"").nth(1).unwrap();
    assert!(
        offered.find("Gravina (standby)").unwrap() < offered.find("Nelson").unwrap(),
        "{offered}"
    );

    // Someone who already plays is refused in words, and nothing changes.
    let path = format!("/gm/games/{game}/replace");
    let seat = lucas_seat.to_string();
    let collingwood = subscriber_id(pool, "Collingwood").await.to_string();
    let roster = gm.roster(game).await;
    let response = gm
        .submit(
            &path,
            &[
                ("player", &seat),
                ("subscriber", &collingwood),
                ("confirm", "yes"),
                ("roster", &roster),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    let text = response.text().await.unwrap();
    assert!(
        text.contains("Collingwood already plays in Over Dover"),
        "{text}"
    );

    let gravina_id = gravina.to_string();
    let response = gm
        .confirm(&format!(
            "/gm/games/{game}/confirm/replace?player={seat}&subscriber={gravina_id}&roster={roster}"
        ))
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (name, token): (String, String) = sqlx::query_as(
        "SELECT display_name, reply_token FROM players WHERE game_id = $1 AND engine_player_id = $2",
    )
    .bind(game)
    .bind(lucas_seat)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(name, "Gravina");
    assert_ne!(token, lucas_token);
    let (to, body, headers) = outbound(pool).await.pop().unwrap();
    assert_eq!(to, "gravina@principe.example");
    assert!(body.contains("Lucas's place in Over Dover"), "{body}");
    assert!(headers["Reply-To"].as_str().unwrap().contains(&token));
    let actor: String =
        sqlx::query_scalar("SELECT actor FROM audit_log WHERE action = 'player.replace'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(actor, "gm:nelson");
    let page = gm
        .get_text(&format!("/gm/games/{game}?done=replaced"))
        .await;
    assert!(page.contains("The seat has a new player"), "{page}");
    let me = player.get_text("/me").await;
    assert!(me.contains("Over Dover"), "{me}");
    // Now the seat is hers, so is its page, with the position.
    let seat_page = player.get_text(&format!("/me/games/{game}")).await;
    for line in lucas_view.iter().filter(|l| !public_view.contains(l)) {
        assert!(seat_page.contains(line.as_str()), "{line}: {seat_page}");
    }
    assert!(
        me.contains("id=\"standby-on\""),
        "off the list once seated: {me}"
    );
    let roster = page.split("id=\"roster\"").nth(1).unwrap();
    assert!(
        roster.contains("Gravina") && !roster.contains("Lucas"),
        "{roster}"
    );
}

/// After a replacement the engine knows the seat by its new holder's name, from the turn the
/// replacement took effect: the report's row, the next turn's orders that name the seat, and
/// `gm verify`, which replays the rename recorded with the turn.
#[tokio::test]
async fn a_replaced_seat_goes_by_its_new_holders_name_from_the_turn_it_changed_hands() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (_, _) = crate::offers::lissa(pool).await;
    let tsushima = crate::offers::tsushima(pool).await;
    let mary = crate::offers::subscriber(pool, "Mary Jones").await;
    replace_player(
        pool,
        trafalgar(),
        &Replacement {
            game: tsushima,
            player: "John Smith",
            subscriber: mary,
        },
        "gm:nelson",
        DOMAIN,
        &mut Counter(40),
    )
    .await
    .unwrap();
    // Already in the turn of the replacement, orders name the seat by its new holder.
    let fred = reply_address_of(pool, tsushima, 1).await;
    let answer = crate::offers::mail(pool, "fred-1", &fred, "FIRE B2 AT Mary Jones\r\n").await;
    assert!(!answer.contains("no opponent called"), "{answer}");
    // Her position mail calls the fleet hers.
    let (position,): (String,) = sqlx::query_as(
        "SELECT body_text FROM outbound_messages WHERE to_address = 'mary@example.org' \
         AND subject LIKE '%you take over from%'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(
        position.contains("\nMary Jones: ") && !position.contains("\nJohn Smith: "),
        "{position}"
    );
    crate::offers::resolve_now(pool, tsushima, 1).await;
    let report: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id \
         WHERE t.game_id = $1 AND t.number = 1",
    )
    .bind(tsushima)
    .fetch_one(pool)
    .await
    .unwrap();
    // The table wraps the long name; the row's name is whole in the report's JSON.
    assert!(
        report.contains("Mary Jones (replacing") && report.contains("John Smith)"),
        "{report}"
    );
    // Turn 2: Fred names Mary's fleet by her name, and the engine takes it.
    let answer = crate::offers::mail(pool, "fred-2", &fred, "FIRE C3 AT Mary Jones\r\n").await;
    assert!(!answer.contains("no opponent called"), "{answer}");
    assert!(answer.contains("Mary Jones"), "{answer}");
    crate::offers::resolve_now(pool, tsushima, 2).await;
    let checks = turns::verify::verify_game(pool, tsushima).await.unwrap();
    assert_eq!(checks.len(), 2, "{checks:?}");
    assert!(checks.iter().all(|c| c.matches), "{checks:?}");
    let renaming: serde_json::Value =
        sqlx::query_scalar("SELECT renaming FROM turns WHERE game_id = $1 AND number = 1")
            .bind(tsushima)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        renaming,
        serde_json::json!([{ "id": 2, "name": "Mary Jones" }])
    );
}
