//! What is not orders is not orders (issue 27, item 4), by mail through the real SMTP listener
//! of `gm serve`: sign-offs, names, chat and a command for another game written to a player's
//! orders address never replace the orders on file nor count as orders for the turn; a RESIGN
//! with a line of chat is answered as a resignation only; the reply says which lines were
//! taken as chat.

use games::EngineKind;
use store::games::GameId;
use store::testing::TestDatabase;
use store::zines;
use store::{PgPool, ZineSlug};

use super::Doors;
use super::tells::{confirmation, on_file, send};
use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, count, reply_address_of};
use crate::players::{player_of, start_game, subscribe};

const NOW: &str = "1805-10-21T11:45:00Z";
const DMITRI: &str = "dmitri@example.org";
const AGNES: &str = "agnes@example.org";

/// An ironclad game of two: Dmitri commands North (Agamemnon, Bellerophon, Colossus) or
/// South, as the seating falls; Agnes the other side.
async fn ironclad_game(pool: &PgPool) -> GameId {
    let zine = zines::insert(
        pool,
        &ZineSlug::parse("spring").unwrap(),
        "Spring",
        trafalgar(),
    )
    .await
    .unwrap();
    subscribe(pool, zine.id, DMITRI, "Dmitri Orlov").await;
    subscribe(pool, zine.id, AGNES, "Agnes Fell").await;
    start_game(pool, zine.id, "Lissa", EngineKind::Ironclad, 5).await
}

/// The engine player id of the subscriber at `address`.
async fn seat_of(pool: &PgPool, game: GameId, address: &str) -> i64 {
    i64::try_from(player_of(pool, game, address).await.1.0).unwrap()
}

fn mail(from: (&str, &str), id: &str, to: &str, body: &str) -> String {
    let (name, address) = from;
    format!(
        "From: {name} <{address}>\nTo: <{to}>\nMessage-ID: <{id}@example.org>\n\
         Subject: Re: Lissa, turn 1\nIn-Reply-To: <turn-1-lissa@{DOMAIN}>\n\
         Content-Type: text/plain; charset=utf-8\n\n{body}"
    )
}

#[tokio::test]
async fn sign_offs_chat_and_other_games_commands_are_not_orders_by_mail() {
    let db = TestDatabase::migrated().await;
    let game = ironclad_game(&db.pool).await;
    let (dmitri_seat, agnes_seat) = (
        seat_of(&db.pool, game, DMITRI).await,
        seat_of(&db.pool, game, AGNES).await,
    );
    let north = if dmitri_seat == 1 {
        "Agamemnon"
    } else {
        "Dandolo"
    };
    let dmitri_address = reply_address_of(&db.pool, game, dmitri_seat).await;
    let agnes_address = reply_address_of(&db.pool, game, agnes_seat).await;
    let doors = Doors::start_on(
        db,
        &[("ADMIRALTY_MAIL_DOMAIN", DOMAIN), ("ADMIRALTY_NOW", NOW)],
    )
    .await;
    let pool = doors.db.pool.clone();
    let dmitri = ("Dmitri Orlov", DMITRI);
    let agnes = ("Agnes Fell", AGNES);

    // Dmitri's orders are on file.
    let orders = format!("{north} MOVE F\n\nPRESS Full steam!\n");
    send(
        &doors,
        DMITRI,
        &dmitri_address,
        &mail(dmitri, "d-orders", &dmitri_address, &orders),
    )
    .await;
    let first = confirmation(&pool, DMITRI, 1).await;
    assert!(
        first.contains("Your orders for Lissa, as understood:"),
        "{first}"
    );
    let on_file_before = on_file(&pool, game, dmitri_seat).await;
    assert_eq!(on_file_before.0.len(), 1, "{on_file_before:?}");

    // A reply meant for another game, signed off: the JOIN is a command (answered as one),
    // the closing and the name are not orders, and nothing replaces Dmitri's orders.
    send(
        &doors,
        DMITRI,
        &dmitri_address,
        &mail(
            dmitri,
            "d-join",
            &dmitri_address,
            "JOIN spring salvo\n\nCheers,\nDmitri\n",
        ),
    )
    .await;
    let reply = confirmation(&pool, DMITRI, 2).await;
    eprintln!("Dmitri's answer to JOIN / Cheers / Dmitri:\n{reply}\n");
    assert!(
        reply.contains(
            "No line of your message was read as an order for Lissa, so nothing was stored"
        ),
        "{reply}"
    );
    assert!(
        reply.contains("your orders on file, if any, still stand"),
        "{reply}"
    );
    assert!(!reply.contains("Error on line"), "{reply}");
    assert!(
        reply.contains("Chat on line 3: \"Cheers,\"\n    taken as a closing, not an order"),
        "{reply}"
    );
    assert!(
        reply.contains("Chat on line 4: \"Dmitri\"\n    taken as a name under the message"),
        "{reply}"
    );
    assert!(
        reply.contains("spring salvo"),
        "the JOIN is answered: {reply}"
    );
    assert!(
        !reply.contains("no orders: holds fire"),
        "nothing stored, so nothing is listed as understood: {reply}"
    );
    assert_eq!(
        on_file(&pool, game, dmitri_seat).await,
        on_file_before,
        "the orders and press on file stand"
    );
    assert_eq!(
        count(&pool, "SELECT count(*) FROM orders").await,
        1,
        "no set was stored for the reply"
    );

    // "Regards, / Agnes": no error lines, nothing stored, and the turn is not answered.
    send(
        &doors,
        AGNES,
        &agnes_address,
        &mail(agnes, "a-regards", &agnes_address, "Regards,\nAgnes\n"),
    )
    .await;
    let reply = confirmation(&pool, AGNES, 1).await;
    eprintln!("Agnes's answer to Regards / Agnes:\n{reply}\n");
    assert!(!reply.contains("Error"), "{reply}");
    assert!(reply.contains("Chat on line 1: \"Regards,\""), "{reply}");
    assert!(reply.contains("Chat on line 2: \"Agnes\""), "{reply}");
    assert!(
        reply.contains("does not count as orders for the turn"),
        "{reply}"
    );
    assert!(on_file(&pool, game, agnes_seat).await.0.is_empty());

    // Agnes's orders with a sign-off: the orders stand, the sign-off is said to be chat.
    let agnes_ship = if agnes_seat == 1 {
        "Agamemnon"
    } else {
        "Dandolo"
    };
    send(
        &doors,
        AGNES,
        &agnes_address,
        &mail(
            agnes,
            "a-orders",
            &agnes_address,
            &format!("Hi all,\n{agnes_ship} MOVE F\nThanks!\nAgnes\n"),
        ),
    )
    .await;
    let reply = confirmation(&pool, AGNES, 2).await;
    assert!(
        reply.contains("Your orders for Lissa, as understood:"),
        "{reply}"
    );
    assert!(!reply.contains("Error"), "{reply}");
    for (line, text) in [(1, "Hi all,"), (3, "Thanks!"), (4, "Agnes")] {
        assert!(
            reply.contains(&format!("Chat on line {line}: \"{text}\"")),
            "{text}: {reply}"
        );
    }
    assert_eq!(
        on_file(&pool, game, agnes_seat).await.0,
        vec![format!("Hi all,\n{agnes_ship} MOVE F\nThanks!\nAgnes")]
    );

    // A RESIGN with a line of chat: a resignation, and only that.
    send(
        &doors,
        AGNES,
        &agnes_address,
        &mail(
            agnes,
            "a-resign",
            &agnes_address,
            "RESIGN\nSorry all, work has swallowed me.\n",
        ),
    )
    .await;
    let reply = confirmation(&pool, AGNES, 3).await;
    eprintln!("Agnes's answer to RESIGN with chat:\n{reply}\n");
    assert!(reply.contains("You have resigned"), "{reply}");
    assert!(!reply.contains("as understood"), "{reply}");
    assert!(!reply.contains("these orders stand"), "{reply}");
    assert!(
        reply.contains("Sorry all, work has swallowed me."),
        "the chat line is named: {reply}"
    );
    let status: String = sqlx::query_scalar(
        "SELECT status FROM players WHERE game_id = $1 AND engine_player_id = $2",
    )
    .bind(game)
    .bind(agnes_seat)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(status, "resigned");
    doors.stop().await;
}
