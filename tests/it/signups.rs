//! Sign-ups (issue 18): a GM opens a game with a number of seats; subscribers JOIN by mail
//! through the real inbox, learn their place in the queue, LIST the games open; the game
//! starts when the last seat is taken, its seats drawn with the committed seating seed.

use engine::{Dice, GameSecret, SeatPlan};
use games::EngineKind;
use server::inbox;
use server::rosters::signups::{self, OpeningSpec};
use server::turns::Schedule;
use store::PgPool;
use store::status::Seating;
use store::testing::TestDatabase;

use crate::helpers::{Counter, trafalgar};
use crate::inbox::{DOMAIN, barmy_game, message, outbound, reply_address_of};

async fn zine_id(pool: &PgPool) -> store::zines::ZineId {
    sqlx::query_scalar("SELECT id FROM zines")
        .fetch_one(pool)
        .await
        .unwrap()
}

/// Mails `body` from the player `engine_id` of `game`'s reply address, through the inbox; the
/// confirmation's text.
async fn mail(pool: &PgPool, id: &str, to: &str, body: &str) -> String {
    let raw = message(id, to, "", body);
    inbox::ingest(pool, &raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
    let (_, text, _) = outbound(pool).await.pop().unwrap();
    text
}

#[tokio::test]
async fn subscribers_join_and_list_by_mail_and_the_last_seat_starts_the_game() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
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
    let zine = zine_id(pool).await;
    let setup = EngineKind::Skyfleet.default_setup();
    let opening = signups::open_signup(
        pool,
        trafalgar(),
        &OpeningSpec {
            zine,
            name: "Over Dover",
            setup: &setup,
            schedule: Schedule::EveryDays(7),
            seats: 2,
            seating: Seating::Random,
            zone: chrono_tz::Tz::UTC,
            first_deadline: None,
        },
        &mut Counter(9),
        "nelson",
    )
    .await
    .unwrap();
    let fred = reply_address_of(pool, barmy, 1).await;
    let john = reply_address_of(pool, barmy, 2).await;

    let listed = mail(pool, "list-1", &fred, "LIST\r\n").await;
    assert!(
        listed.contains("Over Dover (skyfleet): 2 of 2 seats free"),
        "{listed}"
    );
    let joined = mail(pool, "join-1", &fred, "JOIN over dover\r\n").await;
    assert!(
        joined.contains("Signed up for Over Dover: you are number 1 of 2 in the queue"),
        "{joined}"
    );
    assert!(joined.contains("drawn at random"), "{joined}");
    let again = mail(pool, "join-2", &fred, "SIGNON Over Dover\r\n").await;
    assert!(
        again.contains("You had already signed up for Over Dover: you are number 1 of 2"),
        "{again}"
    );
    let listed = mail(pool, "list-2", &john, "list\r\n").await;
    assert!(
        listed.contains("Over Dover (skyfleet): 1 of 2 seats free"),
        "{listed}"
    );
    let unknown = mail(pool, "join-3", &john, "JOIN Jutland\r\n").await;
    assert!(
        unknown.contains("No game called \"Jutland\" is open for sign-up"),
        "{unknown}"
    );
    assert!(unknown.contains("Over Dover (skyfleet)"), "{unknown}");
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(games, 1, "nothing starts before the last seat");
    assert!(
        crate::digest::notices_of(pool, "signup_filled")
            .await
            .is_empty()
    );

    // John takes the last seat: the game starts, seated by the committed seed.
    let last = mail(pool, "join-4", &john, "JOIN Over Dover\r\n").await;
    assert!(
        last.contains("yours was the last seat, so the game has started"),
        "{last}"
    );
    // The GM's digest will tell of it (issue 27 item 8).
    assert_eq!(
        crate::digest::notices_of(pool, "signup_filled").await,
        ["The sign-up for Over Dover filled (2 of 2): the game started."]
    );
    let (game, secret): (i64, Vec<u8>) =
        sqlx::query_as("SELECT game_id, secret_seed FROM openings WHERE id = $1")
            .bind(opening)
            .fetch_one(pool)
            .await
            .unwrap();
    let seated: Vec<(String, Option<i32>)> =
        sqlx::query_as("SELECT display_name, seat FROM players WHERE game_id = $1 ORDER BY seat")
            .bind(game)
            .fetch_all(pool)
            .await
            .unwrap();
    // Anyone can redo the draw from the revealed seed: the queue (Fred, John) shuffled.
    let secret = GameSecret::from_bytes(secret.try_into().unwrap());
    let order = SeatPlan::shuffled(2, &mut Dice::from_seed(&secret.seating_seed()));
    let queue = ["Fred Bloggs", "John Smith"];
    let expected: Vec<(String, Option<i32>)> = order
        .iter()
        .zip(0..)
        .map(|(index, seat)| (queue[*index].to_owned(), Some(seat)))
        .collect();
    assert_eq!(seated, expected);
    // The game's dice come from the same secret whose seating commitment was public.
    let commitment: String =
        sqlx::query_scalar("SELECT seed_commitment FROM turns WHERE game_id = $1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(commitment, secret.turn_seed(1).commitment());
    // The JOIN that filled it mailed both players their start, each from their new reply
    // address for this game (docs/rosters.md, "The start mail").
    let started: Vec<(String, String, serde_json::Value)> = sqlx::query_as(
        "SELECT to_address, body_text, headers FROM outbound_messages \
         WHERE subject LIKE 'Over Dover has started%' ORDER BY to_address",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let tokens: Vec<String> = sqlx::query_scalar(
        "SELECT p.reply_token FROM players p JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE p.game_id = $1 ORDER BY s.email",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(started.len(), 2, "{started:#?}");
    for ((to, body, headers), token) in started.iter().zip(&tokens) {
        assert!(
            body.contains("Over Dover has started, and you play in it."),
            "{body}"
        );
        assert_eq!(
            headers["Reply-To"],
            server::letters::reply_address(token, DOMAIN),
            "{to}"
        );
    }

    let listed = mail(pool, "list-3", &fred, "LIST\r\n").await;
    assert!(
        listed.contains("No game of your zine is open for sign-up now."),
        "{listed}"
    );
    let mary = reply_address_of(pool, barmy, 3).await;
    // Her JOIN comes too late: she is told it started, not that there is no such game.
    let late = mail(pool, "join-5", &mary, "JOIN Over Dover\r\n").await;
    assert!(
        late.contains("Over Dover has started, so it takes no more sign-ups"),
        "{late}"
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_gm_opens_a_game_for_sign_up_players_join_on_their_pages_and_the_gm_seats_them() {
    use reqwest::StatusCode;

    use crate::console::hidden_csrf;
    use crate::rosters::{SIX, standard_form, subscriber_id, zine_of_six};

    let app = crate::helpers::TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let page = gm
        .get_text("/gm/zines/gazette/games/new?engine=ironclad")
        .await;
    assert!(page.contains("id=\"open-signup\""), "{page}");
    let form = |seats: &str, seating: &str| {
        let mut form = standard_form(EngineKind::Ironclad, "Lissa");
        form.extend([
            ("start".to_owned(), "signup".to_owned()),
            ("signup_seats".to_owned(), seats.to_owned()),
            ("seating".to_owned(), seating.to_owned()),
        ]);
        form
    };
    for (seats, seating, expected) in [
        ("9", "gm", "room for at most 6 players"),
        ("1", "gm", "at least 2 seats"),
        ("many", "gm", "Seats: a number is needed"),
        ("4", "dice", "Seats given: choose"),
    ] {
        let response = submit_pairs(&mut gm, &form(seats, seating)).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let page = response.text().await.unwrap();
        assert!(page.contains(expected), "{expected}\n{page}");
    }
    let response = submit_pairs(&mut gm, &form("4", "gm")).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let signup_page = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        signup_page.ends_with("?done=signup-opened"),
        "{signup_page}"
    );
    let signup_page = signup_page.split('?').next().unwrap().to_owned();
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(games, 0, "a sign-up makes no game yet");

    // The public zine page lists it with its free seats.
    let public = app.get("/zines/gazette").await.text().await.unwrap();
    assert!(
        public.contains("<strong>Lissa</strong> (ironclad): 4 of 4 seats free"),
        "{public}"
    );

    // Five subscribers sign up on their pages; the fifth finds every seat taken.
    let opening: i64 = sqlx::query_scalar("SELECT id FROM openings")
        .fetch_one(pool)
        .await
        .unwrap();
    for (index, (email, _)) in SIX.iter().take(5).enumerate() {
        let mut player = crate::players::logged_in(&app, email).await;
        let me = player.get_text("/me").await;
        let csrf = hidden_csrf(&me);
        // The sign-up list is in the page, after its heading, never in its <title>.
        let title = &me[me.find("<title>").unwrap()..me.find("</title>").unwrap()];
        assert!(!title.contains("sign-up"), "{title}");
        assert!(
            me.find("<h1>Your games</h1>") < me.find("Open for sign-up"),
            "{me}"
        );
        if index < 4 {
            assert!(me.contains(&format!("id=\"join-{opening}\"")), "{me}");
        } else {
            assert!(me.contains("Every seat is taken"), "{me}");
        }
        let response = player
            .post(&format!("/me/signups/{opening}"), &[("csrf", &csrf)])
            .await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
        let me = player.get_text("/me").await;
        if index < 4 {
            assert!(
                me.contains(&format!("You are number {} of 4 in the queue", index + 1)),
                "{me}"
            );
        }
        // Without the session's token, nothing is signed up.
        let forged = player
            .post(&format!("/me/signups/{opening}"), &[("csrf", "0")])
            .await;
        assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    }
    let queued: i64 = sqlx::query_scalar("SELECT count(*) FROM signups")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(queued, 4);

    // The GM seats them: a side left empty is refused, then two captains a side.
    let page = gm.get_text(&signup_page).await;
    assert!(page.contains("4 of 4 signed up"), "{page}");
    let mut seat = Vec::new();
    for name in ["Nelson", "Collingwood", "Hardy", "Villeneuve"] {
        seat.push(format!("seat.{}", subscriber_id(pool, name).await));
    }
    let start = format!("{signup_page}/start");
    let lopsided: Vec<(&str, &str)> = seat.iter().map(|s| (s.as_str(), "0")).collect();
    let response = gm
        .submit(
            &start,
            &[[("seating", "gm")].as_slice(), &lopsided].concat(),
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(
        page.contains("Not started: the game cannot start: North takes at most 3 players, not 4."),
        "{page}"
    );
    let seats = [
        ("seating", "gm"),
        (seat[0].as_str(), "0"),
        (seat[1].as_str(), "1"),
        (seat[2].as_str(), "0"),
        (seat[3].as_str(), "1"),
    ];
    let response = gm.submit(&start, &seats).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let seated = crate::rosters::players_of(pool, "Lissa").await;
    let seated: Vec<(&str, Option<i32>)> = seated
        .iter()
        .map(|(name, _, seat)| (name.as_str(), *seat))
        .collect();
    assert_eq!(
        seated,
        vec![
            ("Nelson", Some(0)),
            ("Collingwood", Some(1)),
            ("Hardy", Some(0)),
            ("Villeneuve", Some(1))
        ]
    );
    let public = app.get("/zines/gazette").await;
    drop(public);
    app.clock.advance(chrono::Duration::seconds(5));
    let public = app.get("/zines/gazette").await.text().await.unwrap();
    assert!(!public.contains("id=\"signups\""), "{public}");
    app.stop().await;
}

async fn submit_pairs(
    gm: &mut crate::console::Browser,
    form: &[(String, String)],
) -> reqwest::Response {
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    gm.submit("/gm/zines/gazette/games/new", &pairs).await
}

/// The zine's issue lists a game open for sign-up with its free seats and how to join (issue 21
/// item 1 reading issue 18's sign-ups), and not once its seats are all taken.
#[tokio::test]
async fn the_zines_issue_lists_the_games_open_for_sign_up_with_their_free_seats() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let barmy = barmy_game(
        pool,
        ("gazette", "Gazette"),
        "Trafalgar",
        &[
            ("fred@example.org", "Fred Bloggs"),
            ("john@example.org", "John Smith"),
        ],
        5,
    )
    .await;
    let zine = server::issues::find_zine(pool, "gazette").await.unwrap();
    server::issues::set_rhythm(pool, trafalgar(), &zine, Some(Schedule::Manual), "nelson")
        .await
        .unwrap();
    let setup = EngineKind::Skyfleet.default_setup();
    signups::open_signup(
        pool,
        trafalgar(),
        &OpeningSpec {
            zine: zine.id,
            name: "Over Dover",
            setup: &setup,
            schedule: Schedule::EveryDays(7),
            seats: 2,
            seating: Seating::Order,
            zone: chrono_tz::Tz::UTC,
            first_deadline: None,
        },
        &mut Counter(9),
        "nelson",
    )
    .await
    .unwrap();
    let base = "https://zine.example";
    let text = server::issues::preview(pool, trafalgar(), &zine, base)
        .await
        .unwrap()
        .to_text()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("Over Dover"), "{text}");
    assert!(
        text.contains("2 of 2 seats free: send \"JOIN Over Dover\" by mail"),
        "{text}"
    );

    let fred = reply_address_of(pool, barmy, 1).await;
    let john = reply_address_of(pool, barmy, 2).await;
    mail(pool, "join-f", &fred, "JOIN over dover\r\n").await;
    let text = server::issues::preview(pool, trafalgar(), &zine, base)
        .await
        .unwrap()
        .to_text()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("1 of 2 seats free"), "{text}");
    mail(pool, "join-j", &john, "JOIN over dover\r\n").await;
    let text = server::issues::preview(pool, trafalgar(), &zine, base)
        .await
        .unwrap()
        .to_text()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        !text.contains("JOIN Over Dover"),
        "a full game is not open: {text}"
    );
}
