//! Resigning and taking a resignation back (issue 18 item 3, docs/rosters.md): a player
//! resigns by mail or on their game page, after a page that says what it does; until the turn
//! resolves (when the fleet leaves) the GM can take the resignation back, on the console or
//! the command line, and the player plays on with the same reply address.

use chrono::Duration;
use reqwest::StatusCode;
use server::turns;
use store::PgPool;
use store::games::GameId;
use store::status::StandbyOffers;
use store::subscribers::SubscriberId;
use store::testing::TestDatabase;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, reply_address_of};
use crate::offers::{last_mail_to, lissa, mail, over_dover, resolve_now, set_policy, tsushima};

async fn status_of(pool: &PgPool, game: GameId, name: &str) -> String {
    sqlx::query_scalar("SELECT status FROM players WHERE game_id = $1 AND display_name = $2")
        .bind(game)
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn offer_statuses(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("SELECT status FROM seat_offers ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_player_resigns_on_the_web_and_the_gm_takes_it_back_before_the_turn_resolves() {
    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let (mut gm, game) = over_dover(&app).await;
    set_policy(
        pool,
        crate::helpers::id::<GameId>(game),
        None,
        StandbyOffers::Automatic,
    )
    .await;
    let gravina =
        crate::helpers::id::<SubscriberId>(crate::rosters::subscriber_id(pool, "Gravina").await);
    store::replacements::standby_on(pool, gravina)
        .await
        .unwrap();

    // Lucas finds the way out on his game page, and a page that says what it does.
    let mut lucas = crate::players::logged_in(&app, "lucas@redoutable.example").await;
    let url = format!("/me/games/{game}");
    let page = lucas.get_text(&url).await;
    assert!(page.contains("id=\"resign-link\""), "{page}");
    let confirm = lucas.get_text(&format!("{url}/resign")).await;
    assert!(confirm.contains("Resign from Over Dover?"), "{confirm}");
    assert!(
        confirm.contains("the GM can take your resignation back"),
        "{confirm}"
    );
    let csrf = crate::console::hidden_csrf(&confirm);
    // A form without the session's token, or not from the confirmation page, resigns nobody.
    let forged = lucas
        .post(
            &format!("{url}/resign"),
            &[("csrf", "0"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let unconfirmed = lucas
        .post(&format!("{url}/resign"), &[("csrf", csrf.as_str())])
        .await;
    assert_eq!(
        unconfirmed.headers()["location"].to_str().unwrap(),
        format!("{url}/resign")
    );
    assert_eq!(
        status_of(pool, crate::helpers::id(game), "Lucas").await,
        "active"
    );
    let done = lucas
        .post(
            &format!("{url}/resign"),
            &[("csrf", csrf.as_str()), ("confirm", "yes")],
        )
        .await;
    assert_eq!(
        done.headers()["location"].to_str().unwrap(),
        format!("{url}?done=resigned")
    );
    assert_eq!(
        status_of(pool, crate::helpers::id(game), "Lucas").await,
        "resigned"
    );
    let page = lucas.get_text(&format!("{url}?done=resigned")).await;
    assert!(page.contains("You have resigned from this game"), "{page}");
    assert!(!page.contains("id=\"resign-link\""), "{page}");
    let via: String =
        sqlx::query_scalar("SELECT details->>'via' FROM audit_log WHERE action = 'player.resign'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(via, "web");
    // Admiralty makes the offers here: Gravina is offered the seat at once.
    assert_eq!(offer_statuses(pool).await, ["open"]);
    // Resigned, his orders are refused, and a second resignation says why.
    let orders = lucas
        .post(
            &format!("{url}/orders"),
            &[("csrf", csrf.as_str()), ("orders", "FIRE B7")],
        )
        .await;
    assert_eq!(orders.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let again = lucas.get_text(&format!("{url}/resign")).await;
    assert!(again.contains("id=\"refusal\""), "{again}");

    // The GM takes it back from the game's page.
    let console = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(console.contains("Take back the resignation"), "{console}");
    let gm_csrf = crate::console::hidden_csrf(&console);
    let lucas_row: i64 =
        sqlx::query_scalar("SELECT id FROM players WHERE game_id = $1 AND display_name = 'Lucas'")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    let reinstate = format!("/gm/games/{game}/players/{lucas_row}/reinstate");
    let forged = gm.post(&reinstate, &[("csrf", "0")]).await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        status_of(pool, crate::helpers::id(game), "Lucas").await,
        "resigned"
    );
    let roster = gm.roster(game).await;
    let taken_back = gm
        .post(
            &reinstate,
            &[("csrf", gm_csrf.as_str()), ("roster", &roster)],
        )
        .await;
    assert_eq!(
        taken_back.headers()["location"].to_str().unwrap(),
        format!("/gm/games/{game}?done=reinstated")
    );
    assert_eq!(
        status_of(pool, crate::helpers::id(game), "Lucas").await,
        "active"
    );
    assert_eq!(offer_statuses(pool).await, ["lapsed"]);
    let console = gm
        .get_text(&format!("/gm/games/{game}?done=reinstated"))
        .await;
    assert!(
        console.contains("The resignation is taken back"),
        "{console}"
    );
    assert!(!console.contains("Take back the resignation"), "{console}");
    // Lucas is told, from his own reply address, which still takes his orders.
    let (subject, body, reply_to) = last_mail_to(pool, "lucas@redoutable.example").await;
    assert_eq!(subject, "Over Dover: you are back in the game");
    assert!(body.contains("taken back your resignation"), "{body}");
    let his_address = reply_address_of(pool, crate::helpers::id::<GameId>(game), 1).await;
    let local_part = |address: &str| address.split('@').next().unwrap().to_owned();
    assert_eq!(
        reply_to.as_deref().map(local_part),
        Some(local_part(&his_address)),
        "his reply address, as before"
    );
    let actor: String =
        sqlx::query_scalar("SELECT actor FROM audit_log WHERE action = 'player.reinstate'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(actor, "gm:nelson");
    // A second press of the button (the form shown for the roster before) is refused in
    // words; nothing changes. With the roster as it is now, the service says why.
    let twice = gm
        .post(
            &reinstate,
            &[("csrf", gm_csrf.as_str()), ("roster", &roster)],
        )
        .await;
    assert_eq!(twice.status(), StatusCode::CONFLICT);
    assert!(
        twice
            .text()
            .await
            .unwrap()
            .contains("the roster has moved on")
    );
    let roster = gm.roster(game).await;
    let again = gm
        .post(
            &reinstate,
            &[("csrf", gm_csrf.as_str()), ("roster", &roster)],
        )
        .await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert!(
        again
            .text()
            .await
            .unwrap()
            .contains("Lucas has not resigned")
    );
    // Gravina is told the seat is no longer hers to take, and her offer is closed.
    let (subject, body, _) = last_mail_to(pool, "gravina@principe.example").await;
    assert_eq!(subject, "Over Dover: the seat is no longer offered");
    assert!(
        body.contains("The GM has taken back Lucas's resignation from Over Dover"),
        "{body}"
    );
    let mut gravina_browser = crate::players::logged_in(&app, "gravina@principe.example").await;
    let me = gravina_browser.get_text("/me").await;
    assert!(!me.contains("Seats offered to you"), "{me}");
}

#[tokio::test]
async fn a_resignation_by_mail_is_taken_back_from_the_command_line_until_the_fleet_leaves() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (_, _) = lissa(pool).await;
    let tsushima = tsushima(pool).await;
    let gm = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
            .arg("game")
            .arg(tsushima.to_string())
            .args(args)
            .env("DATABASE_URL", &db.url)
            .env("ADMIRALTY_MAIL_DOMAIN", DOMAIN)
            .env_remove("ADMIRALTY_LOG")
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // Fred has not resigned: nothing to take back.
    let (ok, _, err) = gm(&["reinstate", "Fred Bloggs"]);
    assert!(!ok);
    assert!(err.contains("Fred Bloggs has not resigned"), "{err}");
    // John resigns by mail; the answer says who can undo it, and until when.
    let john = reply_address_of(pool, tsushima, 2).await;
    let answer = mail(pool, "john-resigns", &john, "RESIGN\r\n").await;
    assert!(
        answer.contains("Ask the GM before the turn resolves"),
        "{answer}"
    );
    let (ok, said, err) = gm(&["reinstate", "John Smith"]);
    assert!(ok, "{err}");
    assert!(
        said.contains("John Smith is back in Tsushima, with the same reply address"),
        "{said}"
    );
    assert_eq!(status_of(pool, tsushima, "John Smith").await, "active");
    // His reply address takes his orders again.
    let answer = mail(pool, "john-orders", &john, "FIRE B7\r\n").await;
    assert!(
        answer.contains("FIRE B7") && !answer.contains("no longer"),
        "{answer}"
    );
    // He resigns again, and this time the turn resolves: his fleet leaves with it, and there is
    // nothing left to take back.
    mail(pool, "john-resigns-again", &john, "RESIGN\r\n").await;
    resolve_now(pool, tsushima, 1).await;
    let (ok, _, err) = gm(&["reinstate", "2"]);
    assert!(!ok);
    assert!(
        err.contains("John Smith's fleet has left Tsushima"),
        "{err}"
    );
    assert_eq!(status_of(pool, tsushima, "John Smith").await, "resigned");
    let reinstated: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'player.reinstate'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(reinstated, 1);
}

#[tokio::test]
async fn a_player_whose_subscription_ended_is_not_taken_back() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    let john = reply_address_of(pool, lissa, 2).await;
    // UNSUBSCRIBE resigns every game at once.
    mail(pool, "john-leaves", &john, "UNSUBSCRIBE\r\n").await;
    let john_row = sqlx::query_scalar(
        "SELECT id FROM players WHERE game_id = $1 AND display_name = 'John Smith'",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .map(crate::helpers::id::<store::players::PlayerRowId>)
    .unwrap();
    let refused = server::rosters::resign::reinstate(
        pool,
        trafalgar() + Duration::hours(1),
        lissa,
        john_row,
        "gm:nelson",
        DOMAIN,
    )
    .await
    .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("John Smith's subscription has ended"),
        "{refused}"
    );
    assert_eq!(status_of(pool, lissa, "John Smith").await, "resigned");
    let _ = barmy;
}

#[tokio::test]
async fn a_resigned_seat_is_not_offered_when_the_turn_resolves_within_the_hour_unless_paused() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    // Lissa's deadline is two days on; John resigns, and the GM makes the offers.
    let deadline = trafalgar() + chrono::Duration::days(2);
    let john = reply_address_of(pool, lissa, 2).await;
    mail(pool, "john-resigns", &john, "RESIGN\r\n").await;
    let john_row = sqlx::query_scalar(
        "SELECT id FROM players WHERE game_id = $1 AND display_name = 'John Smith'",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .map(crate::helpers::id::<store::players::PlayerRowId>)
    .unwrap();
    let mary = crate::offers::subscriber(pool, "Mary Jones").await;
    let offer_at =
        |at| server::offers::offer_seat(pool, at, lissa, john_row, mary, "gm:nelson", DOMAIN);
    // Half an hour before the deadline John's fleet is about to leave: no offer is made.
    let refused = offer_at(deadline - chrono::Duration::minutes(30))
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("there is no time left to offer the seat"),
        "{refused}"
    );
    assert!(offer_statuses(pool).await.is_empty());
    // Paused, the turn does not resolve: the offer stands the game's three days.
    turns::gm_action(
        pool,
        deadline - chrono::Duration::hours(1),
        lissa,
        turns::GmAction::Pause,
        "gm:nelson",
        DOMAIN,
    )
    .await
    .unwrap();
    offer_at(deadline - chrono::Duration::minutes(30))
        .await
        .unwrap();
    let stands: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM expires_at - offered_at)::float8 / 86400 FROM seat_offers",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!((stands - 3.0).abs() < 1e-9, "{stands}");
    let _ = barmy;
}

#[tokio::test]
async fn an_automatic_offer_with_no_time_left_is_not_made_and_the_gm_can_read_why() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    set_policy(pool, lissa, None, StandbyOffers::Automatic).await;
    let mary_barmy = reply_address_of(pool, barmy, 3).await;
    mail(pool, "standby", &mary_barmy, "STANDBY\r\n").await;
    // John resigns ten minutes before the deadline.
    let john = reply_address_of(pool, lissa, 2).await;
    let late = trafalgar() + chrono::Duration::days(2) - chrono::Duration::minutes(10);
    server::inbox::ingest(
        pool,
        &crate::inbox::message("john-resigns", &john, "", "RESIGN\r\n"),
        "smtp",
        late,
        DOMAIN,
    )
    .await
    .unwrap();
    assert!(offer_statuses(pool).await.is_empty());
    let audited: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE action = 'seat.no_time' AND game_id = $1",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(audited, 1);
}

#[tokio::test]
async fn when_one_standby_takes_a_seat_the_others_offered_it_are_told() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (_, lissa) = lissa(pool).await;
    let john = reply_address_of(pool, lissa, 2).await;
    mail(pool, "john-resigns", &john, "RESIGN\r\n").await;
    let john_row = sqlx::query_scalar(
        "SELECT id FROM players WHERE game_id = $1 AND display_name = 'John Smith'",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .map(crate::helpers::id::<store::players::PlayerRowId>)
    .unwrap();
    // The GM offers John's seat to Mary and to Ann; Mary takes it.
    let mut offers = Vec::new();
    for name in ["Mary Jones", "Ann Lee"] {
        let who = crate::offers::subscriber(pool, name).await;
        server::offers::offer_seat(pool, trafalgar(), lissa, john_row, who, "gm:nelson", DOMAIN)
            .await
            .unwrap();
        offers.push(who);
    }
    let first: i64 = sqlx::query_scalar("SELECT min(id) FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    let taken = server::offers::answer(
        pool,
        trafalgar() + chrono::Duration::hours(1),
        crate::helpers::id::<store::offers::OfferId>(first),
        offers[0],
        server::offers::Answer::Accept,
        DOMAIN,
    )
    .await
    .unwrap();
    assert!(
        matches!(taken, server::offers::Answered::Took(_)),
        "{taken:?}"
    );
    assert_eq!(offer_statuses(pool).await, ["accepted", "lapsed"]);
    let (subject, body, _) = last_mail_to(pool, "ann@example.org").await;
    assert_eq!(subject, "Lissa: the seat is no longer offered");
    assert!(
        body.contains("Mary Jones has taken John Smith's seat in Lissa"),
        "{body}"
    );
    // Ann was never a standby: nothing says she stays one.
    assert!(!body.contains("standby list"), "{body}");
}
