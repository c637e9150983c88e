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
            engine: EngineKind::Skyfleet,
            setup: &setup,
            schedule: Schedule::EveryDays(7),
            seats: 2,
            seating: Seating::Random,
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

    // John takes the last seat: the game starts, seated by the committed seed.
    let last = mail(pool, "join-4", &john, "JOIN Over Dover\r\n").await;
    assert!(
        last.contains("yours was the last seat, so the game has started"),
        "{last}"
    );
    let (game, secret): (i64, Vec<u8>) =
        sqlx::query_as("SELECT game_id, secret_seed FROM openings WHERE id = $1")
            .bind(opening)
            .fetch_one(pool)
            .await
            .unwrap();
    let seated: Vec<(String, Option<i32>)> = sqlx::query_as(
        "SELECT display_name, seat FROM players WHERE game_id = $1 ORDER BY seat",
    )
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

    let listed = mail(pool, "list-3", &fred, "LIST\r\n").await;
    assert!(
        listed.contains("No game of your zine is open for sign-up now."),
        "{listed}"
    );
    let mary = reply_address_of(pool, barmy, 3).await;
    let late = mail(pool, "join-5", &mary, "JOIN Over Dover\r\n").await;
    assert!(late.contains("No game called \"Over Dover\" is open"), "{late}");
    db.drop_database().await;
}
