//! Missed turns and offers of seats to standbys (issue 18 item 3): a player who misses the
//! game's limit of turns in a row leaves their seat wanting a player; Admiralty (or the GM)
//! offers it to a standby, who sees nothing of the position before accepting by mail or on
//! their player page; the first to accept takes the seat, and every published turn still
//! verifies.

use chrono::Duration;
use games::EngineKind;
use server::inbox;
use server::offers;
use server::turns::{self, GameSpec, GmAction, Roster, RosterPick, Schedule};
use store::PgPool;
use store::games::GameId;
use store::offers::MissedPolicy;
use store::status::StandbyOffers;
use store::subscribers::SubscriberId;
use store::testing::TestDatabase;

use crate::helpers::{Counter, trafalgar};
use crate::inbox::{DOMAIN, barmy_game, message, outbound, reply_address_of};

pub(crate) async fn mail(pool: &PgPool, id: &str, to: &str, body: &str) -> String {
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

pub(crate) async fn subscriber(pool: &PgPool, name: &str) -> SubscriberId {
    crate::helpers::id::<SubscriberId>(
        sqlx::query_scalar("SELECT id FROM subscribers WHERE display_name = $1")
            .bind(name)
            .fetch_one(pool)
            .await
            .unwrap(),
    )
}

/// The game's missed-turns limit and who offers seats, set by the GM; offers stand 3 days.
pub(crate) async fn set_policy(
    pool: &PgPool,
    game: GameId,
    limit: Option<u32>,
    offers: StandbyOffers,
) {
    offers::set_policy(
        pool,
        trafalgar(),
        game,
        MissedPolicy {
            limit,
            offers,
            offer_days: 3,
        },
        "gm:nelson",
    )
    .await
    .unwrap();
}

/// After [`lissa`]: a salvo game of three, Tsushima (Fred, John and Ann), which goes on when
/// one of them leaves.
pub(crate) async fn tsushima(pool: &PgPool) -> GameId {
    salvo_game(
        pool,
        "Tsushima",
        &["Fred Bloggs", "John Smith", "Ann Lee"],
        9,
    )
    .await
}

/// A salvo game of the (only) zine's subscribers `names`, each a player, made by the GM with
/// its first deadline two days on.
pub(crate) async fn salvo_game(pool: &PgPool, name: &str, names: &[&str], dice: u8) -> GameId {
    let zine = sqlx::query_scalar("SELECT id FROM zines")
        .fetch_one(pool)
        .await
        .map(crate::helpers::id::<store::zines::ZineId>)
        .unwrap();
    let mut picks = Vec::new();
    for player in names {
        picks.push(RosterPick {
            subscriber: subscriber(pool, player).await,
            seat: 0,
        });
    }
    turns::create_game_with(
        pool,
        trafalgar(),
        &GameSpec {
            zine,
            name,
            setup: &EngineKind::Salvo.default_setup(),
            first_deadline: Some(trafalgar() + Duration::days(2)),
            schedule: Schedule::EveryDays(7),
        },
        &Roster::Chosen(picks),
        &mut Counter(dice),
        &turns::Creation {
            actor: "gm",
            zone: chrono_tz::Tz::UTC,
            mail: None,
        },
    )
    .await
    .unwrap()
}

pub(crate) async fn resolve_now(pool: &PgPool, game: GameId, hours: i64) {
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

async fn missed(pool: &PgPool, game: GameId, name: &str) -> i32 {
    sqlx::query_scalar("SELECT missed_turns FROM players WHERE game_id = $1 AND display_name = $2")
        .bind(game)
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The mail last queued to `to` that is not a turn's report: (subject, body, Reply-To).
pub(crate) async fn last_mail_to(pool: &PgPool, to: &str) -> (String, String, Option<String>) {
    sqlx::query_as(
        "SELECT subject, body_text, headers->>'Reply-To' FROM outbound_messages \
         WHERE to_address = $1 AND subject NOT LIKE '%report' AND subject NOT LIKE '%position%' \
         ORDER BY id DESC LIMIT 1",
    )
    .bind(to)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// A zine of four (all in a Barmy game, so each has a reply address) with a salvo game of Fred
/// and John, a missed-turns limit of 2, and offers made by Admiralty.
pub(crate) async fn lissa(pool: &PgPool) -> (GameId, GameId) {
    let barmy = barmy_game(
        pool,
        ("gazette", "Gazette"),
        "Trafalgar",
        &[
            ("fred@example.org", "Fred Bloggs"),
            ("john@example.org", "John Smith"),
            ("mary@example.org", "Mary Jones"),
            ("ann@example.org", "Ann Lee"),
        ],
        5,
    )
    .await;
    let lissa = salvo_game(pool, "Lissa", &["Fred Bloggs", "John Smith"], 7).await;
    (barmy, lissa)
}

#[tokio::test]
async fn a_seat_missed_twice_is_offered_to_standbys_in_turn_and_the_first_to_accept_takes_it() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    set_policy(pool, lissa, Some(2), StandbyOffers::Automatic).await;
    let fred_lissa = reply_address_of(pool, lissa, 1).await;
    let john_lissa = reply_address_of(pool, lissa, 2).await;
    // Mary and then Ann volunteer as standbys, by mail.
    for (id, name, engine_id) in [("m", "Mary", 3), ("a", "Ann", 4)] {
        let address = reply_address_of(pool, barmy, engine_id).await;
        let answer = mail(pool, &format!("standby-{id}"), &address, "STANDBY\r\n").await;
        assert!(answer.contains("standby list"), "{name}: {answer}");
    }

    // Turn 1: Fred fires, John sends nothing. One miss: no offer yet.
    mail(pool, "fred-1", &fred_lissa, "FIRE B7\r\n").await;
    resolve_now(pool, lissa, 1).await;
    assert_eq!(missed(pool, lissa, "John Smith").await, 1);
    assert_eq!(missed(pool, lissa, "Fred Bloggs").await, 0);
    let offers_made: i64 = sqlx::query_scalar("SELECT count(*) FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(offers_made, 0);

    // Turn 2: John misses again and reaches the limit: the seat goes to Mary, the
    // longest-waiting standby, by mail, with nothing of John's position in it.
    mail(pool, "fred-2", &fred_lissa, "FIRE C7\r\n").await;
    resolve_now(pool, lissa, 2).await;
    assert_eq!(missed(pool, lissa, "John Smith").await, 2);
    // The GM's digest will tell of the seat (issue 27 item 8).
    assert_eq!(
        crate::digest::notices_of(pool, "seat_wanted").await,
        ["John Smith has missed 2 turns in a row in Lissa: the seat wants a player."]
    );
    // John is told his seat may now go to a standby, and how to keep it.
    let (subject, warning, warning_reply_to) = last_mail_to(pool, "john@example.org").await;
    assert_eq!(subject, "Lissa: you have missed 2 turns in a row");
    assert!(
        warning.contains("To keep it, reply to this message with your orders"),
        "{warning}"
    );
    assert_eq!(warning_reply_to.as_deref(), Some(john_lissa.as_str()));
    let (subject, offer, reply_to) = last_mail_to(pool, "mary@example.org").await;
    assert_eq!(subject, "Lissa: a seat is offered to you");
    assert!(
        offer.contains("John Smith has missed 2 turns in a row"),
        "{offer}"
    );
    assert!(offer.contains("from turn 3"), "{offer}");
    assert!(offer.contains("ACCEPT"), "{offer}");
    let public = turns::game_state(pool, lissa)
        .await
        .unwrap()
        .view(engine::Viewer::Public)
        .lines;
    let johns = turns::game_state(pool, lissa)
        .await
        .unwrap()
        .view(engine::Viewer::Player(turns::player_id(2)))
        .lines;
    let secret: Vec<&String> = johns.iter().filter(|l| !public.contains(l)).collect();
    assert!(!secret.is_empty());
    for line in &secret {
        assert!(
            !offer.contains(line.as_str()),
            "{line} reached Mary: {offer}"
        );
    }
    let mary_offer = reply_to.expect("the offer has its own reply address");
    assert!(!offer.contains(&john_lissa));
    println!(
        "--- the offer Mary receives ---\nSubject: {subject}\nReply-To: {mary_offer}\n\n{offer}"
    );

    // Mary declines by replying to the offer: Ann, the next standby, is offered the seat.
    let answer = mail(pool, "mary-no", &mary_offer, "DECLINE\r\n").await;
    assert!(
        answer.contains("You declined the seat in Lissa"),
        "{answer}"
    );
    let (subject, _, ann_offer) = last_mail_to(pool, "ann@example.org").await;
    assert_eq!(subject, "Lissa: a seat is offered to you");
    let ann_offer = ann_offer.unwrap();

    // Mary changes her mind: her offer is closed, nothing changes.
    let answer = mail(pool, "mary-yes", &mary_offer, "ACCEPT\r\n").await;
    assert!(
        answer.contains("no longer offered to you: you declined it"),
        "{answer}"
    );

    // Ann accepts: she takes John's seat from turn 3, with her own reply address and the
    // position; John is told, and his old address is refused.
    let answer = mail(pool, "ann-yes", &ann_offer, "Accept\r\n").await;
    assert!(
        answer.contains("You take John Smith's seat in Lissa from turn 3"),
        "{answer}"
    );
    assert_eq!(
        crate::digest::notices_of(pool, "standby_seated").await,
        ["Ann Lee took John Smith's seat in Lissa from turn 3."]
    );
    let (subject, body, _) = last_mail_to(pool, "john@example.org").await;
    assert_eq!(subject, "Lissa: Ann Lee takes your seat");
    assert!(body.contains("no longer takes orders"), "{body}");
    let ann_lissa = reply_address_of(pool, lissa, 2).await;
    let (position, ann_reply_to): (String, Option<String>) = sqlx::query_as(
        "SELECT body_text, headers->>'Reply-To' FROM outbound_messages \
         WHERE to_address = 'ann@example.org' AND subject = 'Lissa: you take over from John Smith'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(ann_reply_to.as_deref(), Some(ann_lissa.as_str()));
    assert!(
        position.contains("John Smith's place in Lissa"),
        "{position}"
    );
    assert_eq!(missed(pool, lissa, "Ann Lee").await, 0);
    let answer = mail(pool, "john-late", &john_lissa, "FIRE D4\r\n").await;
    assert!(
        answer.contains("you were replaced in Lissa on turn 3"),
        "{answer}"
    );
    let answer = mail(pool, "ann-again", &ann_offer, "ACCEPT\r\n").await;
    assert!(answer.contains("you accepted it already"), "{answer}");

    // The roster says she plays from turn 3.
    let roster = server::rosters::roster(pool, lissa).await.unwrap().unwrap();
    let ann = roster.iter().find(|entry| entry.name == "Ann Lee").unwrap();
    assert_eq!(ann.joined_turn, 3, "{roster:?}");
    // Ann plays turn 3; every published turn verifies across the change.
    let answer = mail(pool, "ann-3", &ann_lissa, "FIRE E5\r\n").await;
    assert!(!answer.contains("replaced"), "{answer}");
    mail(pool, "fred-3", &fred_lissa, "FIRE F5\r\n").await;
    resolve_now(pool, lissa, 3).await;
    assert_eq!(missed(pool, lissa, "Ann Lee").await, 0);
    let checks = turns::verify::verify_game(pool, lissa).await.unwrap();
    assert_eq!(checks.len(), 3, "{checks:?}");
    assert!(checks.iter().all(|c| c.matches), "{checks:?}");
    let audit: Vec<String> = sqlx::query_scalar(
        "SELECT action FROM audit_log WHERE action LIKE 'seat.%' OR action = 'player.missed_limit' ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(
        audit,
        [
            "player.missed_limit",
            "seat.offer",
            "seat.decline",
            "seat.offer",
            "seat.accept"
        ]
    );
}

#[tokio::test]
async fn a_player_who_orders_again_keeps_the_seat_and_the_offer_lapses() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    set_policy(pool, lissa, Some(1), StandbyOffers::Automatic).await;
    let mary_barmy = reply_address_of(pool, barmy, 3).await;
    mail(pool, "standby", &mary_barmy, "STANDBY\r\n").await;
    let john_lissa = reply_address_of(pool, lissa, 2).await;
    let fred_lissa = reply_address_of(pool, lissa, 1).await;
    mail(pool, "fred-1", &fred_lissa, "FIRE B7\r\n").await;
    resolve_now(pool, lissa, 1).await;
    let (_, _, mary_offer) = last_mail_to(pool, "mary@example.org").await;
    let mary_offer = mary_offer.unwrap();
    // John is back for turn 2: the offer made for his miss lapses at once, before the turn
    // resolves, so Mary's ACCEPT that comes after his orders takes nothing.
    mail(pool, "john-2", &john_lissa, "FIRE C3\r\n").await;
    let (subject, body, _) = last_mail_to(pool, "mary@example.org").await;
    assert_eq!(subject, "Lissa: the seat is no longer offered");
    assert!(
        body.contains("John Smith has sent orders for Lissa again, so they keep their seat"),
        "{body}"
    );
    assert!(body.contains("You stay on the standby list"), "{body}");
    let answer = mail(pool, "mary-late", &mary_offer, "ACCEPT\r\n").await;
    assert!(answer.contains("no longer offered to you"), "{answer}");
    assert!(answer.contains("its player came back"), "{answer}");
    resolve_now(pool, lissa, 2).await;
    assert_eq!(missed(pool, lissa, "John Smith").await, 0);
    let still: String = sqlx::query_scalar(
        "SELECT display_name FROM players WHERE game_id = $1 AND engine_player_id = 2",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(still, "John Smith");
}

#[tokio::test]
async fn a_resignation_is_offered_to_the_standby_and_accept_needs_the_offer_or_a_game_line() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    set_policy(pool, lissa, None, StandbyOffers::Automatic).await;
    let mary_barmy = reply_address_of(pool, barmy, 3).await;
    mail(pool, "standby", &mary_barmy, "STANDBY\r\n").await;
    // ACCEPT with no offer made is answered in words.
    let answer = mail(pool, "mary-early", &mary_barmy, "ACCEPT\r\n").await;
    assert!(answer.contains("no seat is offered to you"), "{answer}");
    // Forever's ACCEPT DRAW stays an order line, not the command.
    let john_lissa = reply_address_of(pool, lissa, 2).await;
    let answer = mail(pool, "john-resigns", &john_lissa, "RESIGN\r\n").await;
    assert!(answer.contains("You have resigned from Lissa"), "{answer}");
    let (subject, offer, _) = last_mail_to(pool, "mary@example.org").await;
    assert_eq!(subject, "Lissa: a seat is offered to you");
    assert!(offer.contains("John Smith has resigned"), "{offer}");
    // Mary answers from her Barmy reply address with a GAME line instead of the offer's.
    let answer = mail(pool, "mary-yes", &mary_barmy, "GAME Lissa\r\nACCEPT\r\n").await;
    assert!(
        answer.contains("You take John Smith's seat in Lissa"),
        "{answer}"
    );
    let holder: String = sqlx::query_scalar(
        "SELECT display_name FROM players WHERE game_id = $1 AND engine_player_id = 2",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(holder, "Mary Jones");
}

/// The console's zine of six with a salvo game, Over Dover, of Lucas and Collingwood: the GM's
/// logged-in browser and the game's id.
pub(crate) async fn over_dover(app: &crate::helpers::TestApp) -> (crate::console::Browser, i64) {
    use crate::rosters::{game_id, zine_of_six};
    let pool = &app.db.pool;
    let gm = zine_of_six(app).await;
    salvo_game(pool, "Over Dover", &["Lucas", "Collingwood"], 8).await;
    (gm, game_id(pool, "Over Dover").await)
}

#[tokio::test]
async fn the_gm_offers_a_flagged_seat_on_the_console_and_the_standby_takes_it_on_the_web() {
    use crate::rosters::subscriber_id;
    use reqwest::StatusCode;
    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let (mut gm, game) = over_dover(&app).await;
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("id=\"missed-form\""), "{page}");
    assert!(page.contains("rules' default, 2"), "{page}");
    assert!(page.contains("id=\"no-wanted\""), "{page}");
    let csrf = crate::console::hidden_csrf(&page);
    // A limit out of range is refused in words beside its field; 1 is saved, offers left to
    // the GM.
    let refused = gm
        .post(
            &format!("/gm/games/{game}/missed"),
            &[
                ("csrf", &csrf),
                ("missed_limit", "0"),
                ("standby_offers", "gm"),
            ],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.text().await.unwrap().contains("from 1 to 20"));
    let refused = gm
        .post(
            &format!("/gm/games/{game}/missed"),
            &[
                ("csrf", &csrf),
                ("missed_limit", "1"),
                ("standby_offers", "gm"),
                ("offer_days", "0"),
            ],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.text().await.unwrap().contains("from 1 to 14"));
    let saved = gm
        .post(
            &format!("/gm/games/{game}/missed"),
            &[
                ("csrf", &csrf),
                ("missed_limit", "1"),
                ("standby_offers", "gm"),
                ("offer_days", "2"),
            ],
        )
        .await;
    assert!(saved.status().is_redirection() || saved.status().is_success());
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("An offer stands 2 days."), "{page}");
    assert!(
        page.contains("name=\"offer_days\" min=\"1\" max=\"14\" value=\"2\""),
        "{page}"
    );
    // Turn 1 resolves with nobody's orders: both seats are flagged, nobody is offered anything.
    turns::gm_action(
        pool,
        trafalgar() + Duration::hours(1),
        crate::helpers::id::<GameId>(game),
        GmAction::ResolveNow,
        "gm",
        DOMAIN,
    )
    .await
    .unwrap();
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(
        page.contains("missed 1 turn in a row (the limit is 1)"),
        "{page}"
    );
    let offers_made: i64 = sqlx::query_scalar("SELECT count(*) FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(offers_made, 0);
    let lucas_row: i64 =
        sqlx::query_scalar("SELECT id FROM players WHERE game_id = $1 AND display_name = 'Lucas'")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    let gravina = subscriber_id(pool, "Gravina").await;
    // The GM offers Lucas's seat to Gravina (a form without the session's token does nothing).
    let forged = gm
        .post(
            &format!("/gm/games/{game}/offer"),
            &[
                ("csrf", "0"),
                ("player", &lucas_row.to_string()),
                ("subscriber", &gravina.to_string()),
            ],
        )
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let roster = gm.roster(game).await;
    let offered = gm
        .post(
            &format!("/gm/games/{game}/offer"),
            &[
                ("csrf", &csrf),
                ("player", &lucas_row.to_string()),
                ("subscriber", &gravina.to_string()),
                ("roster", &roster),
                ("confirm", "yes"),
            ],
        )
        .await;
    assert!(offered.status().is_redirection() || offered.status().is_success());
    let stands: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM expires_at - offered_at)::float8 / 86400 FROM seat_offers",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(
        (stands - 2.0).abs() < 1e-9,
        "the game's 2 days, not {stands}"
    );
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(
        page.contains("Offered to <strong>Gravina</strong>"),
        "{page}"
    );
    // Gravina sees the offer on her page, and nothing of the position; she takes the seat.
    let mut player = crate::players::logged_in(&app, "gravina@principe.example").await;
    let me = player.get_text("/me").await;
    assert!(me.contains("Seats offered to you"), "{me}");
    assert!(
        me.contains("Lucas has missed too many turns in a row"),
        "{me}"
    );
    let offer_id: i64 = sqlx::query_scalar("SELECT id FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    let player_csrf = crate::console::hidden_csrf(&me);
    let forged = player
        .post(
            &format!("/me/offers/{offer_id}"),
            &[("csrf", "0"), ("answer", "accept")],
        )
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let taken = player
        .post(
            &format!("/me/offers/{offer_id}"),
            &[("csrf", &player_csrf), ("answer", "accept")],
        )
        .await;
    assert!(taken.status().is_redirection() || taken.status().is_success());
    let me = player.get_text("/me?offer=accepted").await;
    assert!(me.contains("You took the seat"), "{me}");
    // The same button again: the offer is closed, and the page says so.
    let again = player
        .post(
            &format!("/me/offers/{offer_id}"),
            &[("csrf", &player_csrf), ("answer", "accept")],
        )
        .await;
    assert_eq!(
        again.headers()["location"].to_str().unwrap(),
        "/me?offer=closed"
    );
    assert!(me.contains("Over Dover"), "{me}");
    let holder: String = sqlx::query_scalar("SELECT display_name FROM players WHERE id = $1")
        .bind(lucas_row)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(holder, "Gravina");
    // Her seat is no longer flagged; Collingwood's still is.
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(!page.contains("<strong>Lucas</strong>"), "{page}");
    assert!(
        page.contains("<strong>Collingwood</strong>: missed 1 turn"),
        "{page}"
    );
    // Barmy's page has no such part: its seats are never handed over (BARMY-02).
    let barmy: Option<i64> =
        sqlx::query_scalar("SELECT id FROM games WHERE engine = 'barmy' LIMIT 1")
            .fetch_optional(pool)
            .await
            .unwrap();
    if let Some(barmy) = barmy {
        let page = gm.get_text(&format!("/gm/games/{barmy}")).await;
        assert!(!page.contains("missed-form"), "{page}");
    }
}

#[tokio::test]
async fn a_subscription_the_gm_ends_resigns_its_seats_and_each_is_offered_to_a_standby() {
    use crate::rosters::subscriber_id;
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
    let gravina = crate::helpers::id::<SubscriberId>(subscriber_id(pool, "Gravina").await);
    store::replacements::standby_on(pool, gravina)
        .await
        .unwrap();
    let lucas = subscriber_id(pool, "Lucas").await;
    // The confirmation page says what ending the subscription does to the game.
    let confirm = gm
        .get_text(&format!("/gm/subscribers/{lucas}/unsubscribe"))
        .await;
    assert!(
        confirm.contains("They resign from every game they play") && confirm.contains("Over Dover"),
        "{confirm}"
    );
    let csrf = crate::console::hidden_csrf(&confirm);
    let done = gm
        .post(
            &format!("/gm/subscribers/{lucas}/status"),
            &[
                ("csrf", csrf.as_str()),
                ("status", "unsubscribed"),
                ("confirm", "yes"),
            ],
        )
        .await;
    assert!(done.status().is_redirection(), "{}", done.status());
    let status: String = sqlx::query_scalar(
        "SELECT status FROM players WHERE game_id = $1 AND display_name = 'Lucas'",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(status, "resigned");
    // Admiralty makes the offers here: the seat goes to the standby at once, as on a RESIGN.
    let (to, reason, offer_status): (String, String, String) = sqlx::query_as(
        "SELECT b.email, o.reason, o.status FROM seat_offers o \
         JOIN subscribers b ON b.id = o.subscriber_id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        (to.as_str(), reason.as_str(), offer_status.as_str()),
        ("gravina@principe.example", "resigned", "open")
    );
    let (subject, offer, _) = last_mail_to(pool, "gravina@principe.example").await;
    assert_eq!(subject, "Over Dover: a seat is offered to you");
    assert!(offer.contains("Lucas has resigned"), "{offer}");
    // The game's page lists the seat with its offer.
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(
        page.contains("Offered to <strong>Gravina</strong>"),
        "{page}"
    );
    let audit: serde_json::Value =
        sqlx::query_scalar("SELECT details FROM audit_log WHERE action = 'subscriber.unsubscribe'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(audit["left_games"], serde_json::json!([game]));
    assert!(
        confirm.contains("To undo it, subscribe them again"),
        "{confirm}"
    );
    // Gravina takes the seat; Lucas, who unsubscribed, is sent nothing more.
    let offer: i64 = sqlx::query_scalar("SELECT id FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    let taken = offers::answer(
        pool,
        trafalgar() + Duration::hours(1),
        crate::helpers::id::<store::offers::OfferId>(offer),
        gravina,
        offers::Answer::Accept,
        DOMAIN,
    )
    .await
    .unwrap();
    assert!(matches!(taken, offers::Answered::Took(_)), "{taken:?}");
    let to_lucas: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_messages WHERE to_address = 'lucas@redoutable.example' \
         AND subject LIKE '%takes your seat'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(to_lucas, 0, "an unsubscribed address gets no more mail");
}

#[tokio::test]
async fn a_standby_is_offered_one_seat_of_a_game_at_a_time() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    set_policy(pool, lissa, Some(1), StandbyOffers::Automatic).await;
    let mary_barmy = reply_address_of(pool, barmy, 3).await;
    mail(pool, "standby", &mary_barmy, "STANDBY\r\n").await;
    // Neither Fred nor John orders: both seats want a player, and Mary is offered one.
    resolve_now(pool, lissa, 1).await;
    let offered: Vec<(String, String)> = sqlx::query_as(
        "SELECT s.display_name, p.display_name FROM seat_offers o \
         JOIN subscribers s ON s.id = o.subscriber_id JOIN players p ON p.id = o.player_id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(
        offered,
        [("Mary Jones".to_owned(), "Fred Bloggs".to_owned())]
    );
    let none_left: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE action = 'seat.no_standby' AND details->>'player' = \
         (SELECT id::text FROM players WHERE game_id = $1 AND display_name = 'John Smith')",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(none_left, 1, "John's seat waits for the GM");
    let wanted = offers::wanted_seats(pool, lissa).await.unwrap();
    assert_eq!(wanted.len(), 2);
    // The GM offers John's seat to Mary as well; she takes Fred's, and John's offer lapses.
    let john_row: i64 = sqlx::query_scalar(
        "SELECT id FROM players WHERE game_id = $1 AND display_name = 'John Smith'",
    )
    .bind(lissa)
    .fetch_one(pool)
    .await
    .unwrap();
    let mary = subscriber(pool, "Mary Jones").await;
    offers::offer_seat(
        pool,
        trafalgar() + Duration::hours(2),
        lissa,
        crate::helpers::id::<store::players::PlayerRowId>(john_row),
        mary,
        "gm:nelson",
        DOMAIN,
    )
    .await
    .unwrap();
    let answer = mail(pool, "mary-fred", &mary_barmy, "GAME Lissa\r\nACCEPT\r\n").await;
    assert!(
        answer.contains("2 seats in Lissa are offered to you; answer in a reply to the offer"),
        "{answer}"
    );
    let first: i64 = sqlx::query_scalar("SELECT min(id) FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    let taken = offers::answer(
        pool,
        trafalgar() + Duration::hours(3),
        crate::helpers::id::<store::offers::OfferId>(first),
        mary,
        offers::Answer::Accept,
        DOMAIN,
    )
    .await
    .unwrap();
    let offers::Answered::Took(words) = taken else {
        panic!("{taken:?}")
    };
    assert!(words.contains("You take Fred Bloggs's seat"), "{words}");
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM seat_offers WHERE status = 'open'")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(open, 0, "her offer of John's seat lapsed");
}

#[tokio::test]
async fn the_gm_sets_the_limit_offers_and_withdraws_from_the_command_line() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    let gm = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
            .arg("game")
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
    let id = lissa.to_string();
    let (ok, said, _) = gm(&[
        &id,
        "missed",
        "--limit",
        "1",
        "--offers",
        "gm",
        "--offer-days",
        "5",
    ]);
    assert!(ok, "{said}");
    assert!(
        said.contains("missed-turns limit 1; offers made by gm, standing 5 days"),
        "{said}"
    );
    let (ok, _, err) = gm(&[&id, "missed", "--limit", "0"]);
    assert!(!ok);
    assert!(err.contains("1 to 20"), "{err}");
    let (ok, _, err) = gm(&[&id, "missed", "--limit", "1", "--offer-days", "15"]);
    assert!(!ok);
    assert!(
        err.contains("an offer stands 1 to 14 days, not 15"),
        "{err}"
    );
    let (ok, _, err) = gm(&[&id, "missed", "--offers", "sometimes"]);
    assert!(!ok, "{err}");
    resolve_now(pool, lissa, 1).await;
    let (ok, roster, _) = gm(&[&id, "roster"]);
    assert!(ok);
    assert!(
        roster.contains("wants a player: John Smith (missed 1 in a row; the limit is 1)"),
        "{roster}"
    );
    let mary = subscriber(pool, "Mary Jones").await.to_string();
    let (ok, said, err) = gm(&[&id, "offer", "John Smith", &mary]);
    assert!(ok, "{err}");
    assert!(
        said.contains("John Smith's seat in Lissa is offered to Mary Jones"),
        "{said}"
    );
    let (_, roster, _) = gm(&[&id, "roster"]);
    let (offer, stands): (i64, f64) = sqlx::query_as(
        "SELECT id, extract(epoch FROM expires_at - offered_at)::float8 / 86400 FROM seat_offers",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(
        (stands - 5.0).abs() < 1e-9,
        "the game's 5 days, not {stands}"
    );
    assert!(
        roster.contains(&format!("  offer {offer}: to Mary Jones")),
        "{roster}"
    );
    // Barmy seats are never offered; a stranger's name is refused with the players listed.
    let (ok, _, err) = gm(&[&barmy.to_string(), "missed", "--limit", "2"]);
    assert!(!ok);
    assert!(err.contains("its seats are never handed over"), "{err}");
    let (ok, _, err) = gm(&[&barmy.to_string(), "offer", "Fred Bloggs", &mary]);
    assert!(!ok);
    assert!(err.contains("no seat is handed over"), "{err}");
    let (ok, _, err) = gm(&[&id, "offer", "Nobody", &mary]);
    assert!(!ok);
    assert!(
        err.contains("its players: Fred Bloggs (1), John Smith (2)"),
        "{err}"
    );
    let (ok, said, _) = gm(&[&id, "withdraw", &offer.to_string()]);
    assert!(ok, "{said}");
    let (subject, _, _) = last_mail_to(pool, "mary@example.org").await;
    assert_eq!(subject, "Lissa: the offer of a seat is withdrawn");
    let (ok, _, err) = gm(&[&id, "withdraw", &offer.to_string()]);
    assert!(!ok);
    assert!(err.contains("that offer is not open"), "{err}");
}

#[tokio::test]
async fn a_turn_missed_while_away_under_the_no_penalty_policy_is_not_counted() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (_, lissa) = lissa(pool).await;
    set_policy(pool, lissa, Some(1), StandbyOffers::Gm).await;
    // John is away on the day of turn 1's deadline (two days after Trafalgar); Fred is not.
    let john = subscriber(pool, "John Smith").await;
    let deadline = trafalgar() + Duration::days(2);
    store::absences::add(
        pool,
        john,
        store::absences::Absence {
            first_day: deadline.date_naive() - Duration::days(1),
            last_day: deadline.date_naive() + Duration::days(1),
        },
        trafalgar(),
    )
    .await
    .unwrap();
    // The turn resolves at its deadline, as the worker does, with nobody's orders.
    turns::resolve_due(pool, deadline, DOMAIN).await.unwrap();
    assert_eq!(missed(pool, lissa, "John Smith").await, 0, "excused: away");
    assert_eq!(missed(pool, lissa, "Fred Bloggs").await, 1);
    let wanted: Vec<String> = offers::wanted_seats(pool, lissa)
        .await
        .unwrap()
        .into_iter()
        .map(|seat| seat.name)
        .collect();
    assert_eq!(wanted, ["Fred Bloggs"]);
}

#[tokio::test]
async fn an_offer_unanswered_for_three_days_expires_and_goes_to_the_next_standby() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    set_policy(pool, lissa, Some(1), StandbyOffers::Automatic).await;
    for (id, engine_id) in [("m", 3), ("a", 4)] {
        let address = reply_address_of(pool, barmy, engine_id).await;
        mail(pool, &format!("standby-{id}"), &address, "STANDBY\r\n").await;
    }
    let fred_lissa = reply_address_of(pool, lissa, 1).await;
    mail(pool, "fred-1", &fred_lissa, "FIRE B7\r\n").await;
    resolve_now(pool, lissa, 1).await;
    let (_, offer, mary_offer) = last_mail_to(pool, "mary@example.org").await;
    assert!(offer.contains("expires"), "{offer}");
    let offered_at = trafalgar() + Duration::hours(1);
    // Not yet: a minute before the three days are up, nothing expires.
    let expire = |at| server::offers::expire_offers(pool, at, DOMAIN);
    assert_eq!(
        expire(offered_at + Duration::days(3) - Duration::minutes(1))
            .await
            .unwrap(),
        0
    );
    assert_eq!(expire(offered_at + Duration::days(3)).await.unwrap(), 1);
    let (subject, _, _) = last_mail_to(pool, "mary@example.org").await;
    assert_eq!(subject, "Lissa: the offer of a seat expired");
    let (subject, _, _) = last_mail_to(pool, "ann@example.org").await;
    assert_eq!(subject, "Lissa: a seat is offered to you");
    let answer = mail(pool, "mary-late", &mary_offer.unwrap(), "ACCEPT\r\n").await;
    assert!(
        answer.contains("no longer offered to you: it expired unanswered"),
        "{answer}"
    );
    // Ann lets hers expire too: with no standby left, the seat waits for the GM.
    assert_eq!(expire(offered_at + Duration::days(7)).await.unwrap(), 1);
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM seat_offers WHERE status = 'open'")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(open, 0);
    assert_eq!(offers::wanted_seats(pool, lissa).await.unwrap().len(), 1);
}

#[tokio::test]
async fn an_offer_of_a_resigned_seat_lapses_when_the_turn_resolves_without_a_taker() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, lissa) = lissa(pool).await;
    set_policy(pool, lissa, None, StandbyOffers::Automatic).await;
    let mary_barmy = reply_address_of(pool, barmy, 3).await;
    mail(pool, "standby", &mary_barmy, "STANDBY\r\n").await;
    let john_lissa = reply_address_of(pool, lissa, 2).await;
    mail(pool, "john-resigns", &john_lissa, "RESIGN\r\n").await;
    // The offer stands until the turn's deadline at most: John's fleet leaves with that turn.
    let (expires, deadline): (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>) =
        sqlx::query_as(
            "SELECT o.expires_at, t.deadline FROM seat_offers o \
             JOIN turns t ON t.game_id = o.game_id AND t.status = 'open'",
        )
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(expires, deadline);
    assert_eq!(offers::wanted_seats(pool, lissa).await.unwrap().len(), 1);
    // Nobody takes it before the turn resolves: the fleet leaves, the offer lapses, and the seat
    // is no longer listed (there is nothing left to take over).
    resolve_now(pool, lissa, 1).await;
    let (_, _, mary_offer) = last_mail_to(pool, "mary@example.org").await;
    let status: String = sqlx::query_scalar("SELECT status FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(status, "lapsed");
    assert!(offers::wanted_seats(pool, lissa).await.unwrap().is_empty());
    let answer = mail(pool, "mary-late", &mary_offer.unwrap(), "ACCEPT\r\n").await;
    assert!(answer.contains("it left the game"), "{answer}");
}

#[tokio::test]
async fn a_fleet_that_left_the_game_is_not_handed_to_anyone() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (barmy, _) = lissa(pool).await;
    let tsushima = tsushima(pool).await;
    // John resigns; before the turn resolves his seat may still be handed on ...
    let john_tsushima = reply_address_of(pool, tsushima, 2).await;
    mail(pool, "john-resigns", &john_tsushima, "RESIGN\r\n").await;
    assert_eq!(offers::wanted_seats(pool, tsushima).await.unwrap().len(), 1);
    // ... but once it resolves his fleet has left the game (the game goes on with two), and
    // neither the GM's replacement nor an offer can hand it to Mary.
    resolve_now(pool, tsushima, 1).await;
    assert!(
        offers::wanted_seats(pool, tsushima)
            .await
            .unwrap()
            .is_empty()
    );
    let mary = subscriber(pool, "Mary Jones").await;
    let refused = server::rosters::replace::replace_player(
        pool,
        trafalgar() + Duration::hours(2),
        &server::rosters::replace::Replacement {
            game: tsushima,
            player: "John Smith",
            subscriber: mary,
        },
        "gm:nelson",
        DOMAIN,
        &mut Counter(50),
    )
    .await
    .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("John Smith's fleet is out of Tsushima"),
        "{refused}"
    );
    let john_row = sqlx::query_scalar(
        "SELECT id FROM players WHERE game_id = $1 AND display_name = 'John Smith'",
    )
    .bind(tsushima)
    .fetch_one(pool)
    .await
    .map(crate::helpers::id::<store::players::PlayerRowId>)
    .unwrap();
    let refused = offers::offer_seat(
        pool,
        trafalgar() + Duration::hours(2),
        tsushima,
        john_row,
        mary,
        "gm:nelson",
        DOMAIN,
    )
    .await
    .unwrap_err();
    assert!(
        refused.to_string().contains("there is no seat to offer"),
        "{refused}"
    );
    let _ = barmy;
}

#[tokio::test]
async fn the_gm_offers_the_seat_of_a_player_still_playing_and_sees_and_withdraws_the_offer() {
    use crate::rosters::subscriber_id;
    use reqwest::StatusCode;
    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let (mut gm, game) = over_dover(&app).await;
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("id=\"offer-any-form\""), "{page}");
    let csrf = crate::console::hidden_csrf(&page);
    let collingwood_row: i64 = sqlx::query_scalar(
        "SELECT id FROM players WHERE game_id = $1 AND display_name = 'Collingwood'",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    let gravina = subscriber_id(pool, "Gravina").await;
    let roster = gm.roster(game).await;
    let offered = gm
        .post(
            &format!("/gm/games/{game}/offer"),
            &[
                ("csrf", csrf.as_str()),
                ("player", &collingwood_row.to_string()),
                ("subscriber", &gravina.to_string()),
                ("roster", &roster),
                ("confirm", "yes"),
            ],
        )
        .await;
    assert_eq!(offered.status(), StatusCode::SEE_OTHER);
    // The offer is listed with its seat, why, and a way to take it back.
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(
        page.contains("<strong>Collingwood</strong>: still playing; you offered the seat"),
        "{page}"
    );
    assert!(
        page.contains("Offered to <strong>Gravina</strong>"),
        "{page}"
    );
    let offer: i64 = sqlx::query_scalar("SELECT id FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(
        page.contains(&format!("action=\"/gm/games/{game}/confirm/withdraw\"")),
        "{page}"
    );
    assert!(
        page.contains(&format!("name=\"offer\" value=\"{offer}\"")),
        "{page}"
    );
    let roster = gm.roster(game).await;
    let withdrawn = gm
        .confirm(&format!(
            "/gm/games/{game}/confirm/withdraw?offer={offer}&roster={roster}"
        ))
        .await;
    assert_eq!(withdrawn.status(), StatusCode::SEE_OTHER);
    let status: String = sqlx::query_scalar("SELECT status FROM seat_offers")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(status, "withdrawn");
    // Gravina is told; she never was a standby, so nothing says she stays one.
    let (subject, body, _) = last_mail_to(pool, "gravina@principe.example").await;
    assert_eq!(subject, "Over Dover: the offer of a seat is withdrawn");
    assert!(!body.contains("standby list"), "{body}");
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("id=\"no-wanted\""), "{page}");
}
