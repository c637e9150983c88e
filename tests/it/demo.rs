//! The demo zine's game: a Barmy Battleships game with turn 1 published and turn 2 open.

use std::collections::BTreeSet;

use engine::{PlayerId, TurnDice, TurnInput, TurnSeed};
use server::demo::{self, SeedOutcome};
use store::testing::TestDatabase;

use crate::helpers::trafalgar;

const SECRET: [u8; 32] = [7; 32];

/// number, status, seed commitment, revealed seed, revealed sealed seed
type TurnRow = (i32, String, String, Option<String>, Option<String>);

#[tokio::test]
async fn the_demo_game_has_a_published_turn_that_replays_and_hides_the_ships() {
    let db = TestDatabase::migrated().await;
    let SeedOutcome::Seeded {
        game, subscribers, ..
    } = demo::seed_if_empty(&db.pool, trafalgar(), SECRET)
        .await
        .unwrap()
    else {
        panic!("nothing seeded");
    };

    // Every demo subscriber plays (BARMY-02).
    let players: i64 = sqlx::query_scalar("SELECT count(*) FROM players WHERE game_id = $1")
        .bind(game)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(players as usize, subscribers);

    let turns: Vec<TurnRow> = sqlx::query_as(
        "SELECT number, status, seed_commitment, revealed_seed, revealed_sealed_seed FROM turns \
         WHERE game_id = $1 ORDER BY number",
    )
    .bind(game)
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert_eq!(turns.len(), 2);
    let (number, status, commitment, revealed, sealed) = &turns[0];
    assert_eq!((*number, status.as_str()), (1, "published"));
    // The revealed seed is the one committed to; the sealed seed stays hidden mid-game.
    let seed = TurnSeed::parse_hex(revealed.as_deref().unwrap()).unwrap();
    assert!(seed.matches(commitment));
    assert!(sealed.is_none());
    assert_eq!(
        (turns[1].0, turns[1].1.as_str(), turns[1].3.is_none()),
        (2, "open", true)
    );

    // The published report is the Barmy table with the press under it.
    let (text, html): (String, String) = sqlx::query_as(
        "SELECT r.text, r.html FROM published_reports r JOIN turns t ON t.id = r.turn_id WHERE t.game_id = $1",
    )
    .bind(game)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    for expected in [
        "Name",
        "Co-ord",
        "Result",
        "Score",
        "Own Status",
        "Horatio Nelson",
        "hit Pierre Villeneuve",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from\n{text}");
    }
    assert!(
        text.contains("Horatio Nelson: \"Fair winds to all, and a broadside for my neighbour!\""),
        "{text}"
    );
    assert!(html.contains("<table"));

    // Replaying turn 1 from the stored state, orders and revealed seeds gives the same bytes.
    let (state_before, state_now): (serde_json::Value, serde_json::Value) = sqlx::query_as(
        "SELECT t.state_before, g.state FROM turns t JOIN games g ON g.id = t.game_id WHERE t.game_id = $1 AND t.number = 1",
    )
    .bind(game)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    let orders: Vec<(i64, serde_json::Value)> = sqlx::query_as(
        "SELECT p.engine_player_id, o.parsed FROM orders o JOIN players p ON p.id = o.player_id \
         JOIN turns t ON t.id = o.turn_id WHERE t.game_id = $1 AND t.number = 1 AND o.superseded_at IS NULL",
    )
    .bind(game)
    .fetch_all(&db.pool)
    .await
    .unwrap();
    let mut input = TurnInput::default();
    for (player, parsed) in orders {
        let parsed = games::EngineKind::Barmy
            .parse_stored_orders(&parsed)
            .unwrap();
        input.orders.insert(PlayerId(player as u64), parsed);
    }
    let press: Vec<(i64, String)> = sqlx::query_as(
        "SELECT p.engine_player_id, x.text FROM press x JOIN players p ON p.id = x.player_id ORDER BY x.id",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    let press: Vec<games::PressItem> = press
        .into_iter()
        .map(|(player, text)| games::PressItem {
            player: PlayerId(player as u64),
            text,
        })
        .collect();
    let secret = engine::GameSecret::from_bytes(SECRET);
    let replay = games::EngineKind::Barmy
        .parse_state(&state_before)
        .unwrap()
        .resolve(
            input,
            &press,
            &mut TurnDice::from_seeds(&seed, &secret.sealed_seed(1)),
        )
        .unwrap();
    assert_eq!(replay.report.to_text(), text);
    assert_eq!(replay.state.to_json().unwrap(), state_now);

    // No square of a ship afloat appears in the report unless a player ordered a shot there.
    let state: barmy::State = serde_json::from_value(state_now).unwrap();
    let ordered: BTreeSet<String> = text
        .lines()
        .filter_map(|line| line.split(" | ").nth(1))
        .flat_map(|coord| coord.split(", ").map(str::trim).map(str::to_owned))
        .collect();
    for captain in state.captains.iter().filter(|c| c.is_afloat()) {
        for (square, damage) in captain.ship.iter().zip(captain.damage) {
            if damage.is_none() && !ordered.contains(&square.to_string()) {
                let label = format!(" {square} ");
                assert!(
                    !format!(" {text} ")
                        .replace([',', '|', '\n'], " ")
                        .contains(&label),
                    "{square} leaked"
                );
            }
        }
    }
    assert!(!text.contains(&hex::encode(SECRET)));
    assert!(!text.contains(&secret.sealed_seed(1).to_hex()));
    db.drop_database().await;
}

#[tokio::test]
async fn readers_see_the_published_report_and_nothing_hidden() {
    let app = crate::helpers::TestApp::spawn().await;
    let SeedOutcome::Seeded { game, .. } = demo::seed_if_empty(&app.db.pool, trafalgar(), SECRET)
        .await
        .unwrap()
    else {
        panic!("nothing seeded");
    };
    let home = app.get("/").await.text().await.unwrap();
    assert!(home.contains("href=\"/zines/demo\""), "{home}");
    let response = app.get("/zines/demo").await;
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    let page = response.text().await.unwrap();
    assert!(page.contains("Barmy Battleships (demo), turn 1"), "{page}");
    assert!(page.contains("<th scope=\"col\">Own Status</th>"), "{page}");
    assert!(page.contains("Fair winds to all"), "{page}");
    let secret = engine::GameSecret::from_bytes(SECRET);
    // Turn 1's seed is public now; turn 2's seed and every sealed seed are not.
    assert!(page.contains(&secret.turn_seed(1).to_hex()));
    for hidden in [
        secret.turn_seed(2).to_hex(),
        secret.sealed_seed(1).to_hex(),
        secret.sealed_seed(0).to_hex(),
        hex::encode(SECRET),
    ] {
        assert!(!page.contains(&hidden), "a hidden seed is on the page");
    }
    // No unhit square of a ship afloat is on the page (the squares fired at are, as ordered).
    let state: serde_json::Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    let state: barmy::State = serde_json::from_value(state).unwrap();
    let text: String = sqlx::query_scalar("SELECT text FROM published_reports")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    let ordered: BTreeSet<String> = text
        .lines()
        .filter_map(|line| line.split(" | ").nth(1))
        .flat_map(|coord| coord.split(", ").map(str::trim).map(str::to_owned))
        .collect();
    let words: BTreeSet<String> = page
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_owned)
        .collect();
    for captain in state.captains.iter().filter(|c| c.is_afloat()) {
        for (square, damage) in captain.ship.iter().zip(captain.damage) {
            let label = square.to_string();
            if damage.is_none() && !ordered.contains(&label) {
                assert!(
                    !words.contains(&label),
                    "{label} of an afloat ship is on the page"
                );
            }
        }
    }
    assert_eq!(
        app.get("/zines/no-such-zine").await.status(),
        reqwest::StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get("/zines/..%2Fetc").await.status(),
        reqwest::StatusCode::NOT_FOUND
    );
    app.stop().await;
}
