//! Postal players (issue 18): the GM enters orders received by post for a player; they are
//! stored with source `post`, audited with the GM's name and the day received, and the same
//! confirmation is shown to the GM and mailed to the player with their reply address.

use games::EngineKind;
use reqwest::StatusCode;

use crate::helpers::TestApp;
use crate::rosters::{standard_form, zine_of_six};

#[tokio::test]
async fn the_gm_enters_orders_received_by_post_and_the_player_gets_the_same_confirmation() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let form = standard_form(EngineKind::Barmy, "Trafalgar");
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let game: i64 = sqlx::query_scalar("SELECT id FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    let (hardy, token): (i64, String) = sqlx::query_as(
        "SELECT id, reply_token FROM players WHERE display_name = 'Hardy' AND game_id = $1",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("id=\"post-orders\""), "{page}");

    // Hardy is marked postal on his subscriber page, and unmarked; each change audited.
    let subscriber = crate::rosters::subscriber_id(pool, "Hardy").await;
    let postal_path = format!("/gm/subscribers/{subscriber}/postal");
    let response = gm.submit(&postal_path, &[("postal", "on")]).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let is_postal = || async {
        sqlx::query_scalar::<_, bool>("SELECT postal FROM subscribers WHERE id = $1")
            .bind(subscriber)
            .fetch_one(pool)
            .await
            .unwrap()
    };
    assert!(is_postal().await);
    let page = gm.get_text(&format!("/gm/subscribers/{subscriber}")).await;
    assert!(page.contains("id=\"postal\" checked"), "{page}");
    gm.submit(&postal_path, &[]).await;
    assert!(!is_postal().await);
    gm.submit(&postal_path, &[("postal", "on")]).await;
    let marks: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'subscriber.postal'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(marks, 3);
    let path = format!("/gm/games/{game}/post-orders");
    let hardy_id = hardy.to_string();

    // A day that is not a date changes nothing: the form comes back beside its field.
    let response = gm
        .submit(
            &path,
            &[
                ("player", &hardy_id),
                ("received_on", "last Tuesday"),
                ("orders", "A1 B2"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("id=\"post-received-error\"")
    );
    let orders: i64 = sqlx::query_scalar("SELECT count(*) FROM orders")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(orders, 0);

    let response = gm
        .submit(
            &path,
            &[
                ("player", &hardy_id),
                ("received_on", "1805-10-20"),
                ("orders", "A1 B2"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let page = response.text().await.unwrap();
    let shown = page
        .split("<pre id=\"post-confirmation\">")
        .nth(1)
        .unwrap()
        .split("</pre>")
        .next()
        .unwrap()
        .replace("&#39;", "'")
        .replace("&#34;", "\"");
    assert!(
        shown.contains(
            "Hardy's orders for Trafalgar, received by post on Sunday 20 October 1805, entered by the GM (nelson)"
        ),
        "{shown}"
    );
    let (source, raw): (String, String) =
        sqlx::query_as("SELECT source, raw_text FROM orders WHERE player_id = $1")
            .bind(hardy)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!((source.as_str(), raw.as_str()), ("post", "A1 B2"));
    let (actor, details): (String, serde_json::Value) =
        sqlx::query_as("SELECT actor, details FROM audit_log WHERE action = 'orders.post'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(actor, "gm:nelson");
    assert_eq!(details["received_on"], "1805-10-20");
    let (to, body, headers): (String, String, serde_json::Value) = sqlx::query_as(
        "SELECT to_address, body_text, headers FROM outbound_messages ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(to, "hardy@victory.example");
    assert_eq!(body, shown, "the player is mailed what the GM saw");
    assert!(
        headers["Reply-To"].as_str().unwrap().contains(&token),
        "{headers}"
    );
    // The GM's game page shows the orders as received by post.
    let page = gm.get_text(&format!("/gm/games/{game}")).await;
    assert!(page.contains("by post"), "{page}");

    // Press alone, from a letter: printed with the report, and Hardy's orders stay as they were.
    let response = gm
        .submit(
            &path,
            &[
                ("player", &hardy_id),
                ("received_on", "1805-10-21"),
                ("kind", "press"),
                ("orders", "England expects that every man will do his duty."),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let page = response
        .text()
        .await
        .unwrap()
        .replace("&#39;", "'")
        .replace("&#34;", "\"");
    assert!(
        page.contains("Hardy's press for Trafalgar, received by post on Monday 21 October 1805"),
        "{page}"
    );
    assert!(
        page.contains("Your orders for the turn are as they were"),
        "{page}"
    );
    let (source, raw): (String, String) = sqlx::query_as(
        "SELECT source, raw_text FROM orders WHERE player_id = $1 AND superseded_at IS NULL",
    )
    .bind(hardy)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!((source.as_str(), raw.as_str()), ("post", "A1 B2"));
    let (press_source, press): (String, String) =
        sqlx::query_as("SELECT source, text FROM press WHERE player_id = $1")
            .bind(hardy)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        (press_source.as_str(), press.as_str()),
        ("post", "England expects that every man will do his duty.")
    );
    let entered: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'press.post'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(entered, 1);
    let (to, subject): (String, String) = sqlx::query_as(
        "SELECT to_address, subject FROM outbound_messages ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(
        (to.as_str(), subject.as_str()),
        (
            "hardy@victory.example",
            "Trafalgar: your press received by post"
        )
    );

    // A day after today (the app's clock says 21 October) is refused in words; nothing changes.
    let response = gm
        .submit(
            &path,
            &[
                ("player", &hardy_id),
                ("received_on", "1805-10-22"),
                ("orders", "C3 D4"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused = response.text().await.unwrap();
    assert!(
        refused.contains("post cannot come from the future"),
        "{refused}"
    );
    // Orders that carry press: the confirmation says what became of it, and of the press
    // letter before them, which the new set replaces (as by mail).
    let response = gm
        .submit(
            &path,
            &[
                ("player", &hardy_id),
                ("received_on", "1805-10-21"),
                ("orders", "C3 D4\nPRESS Kiss me, Hardy."),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let page = response
        .text()
        .await
        .unwrap()
        .replace("&#39;", "'")
        .replace("&#34;", "\"");
    assert!(
        page.contains("your earlier press (1 entry) is withdrawn"),
        "{page}"
    );
    assert!(
        page.contains(
            "Press accepted for Trafalgar, to be published with the report: \"Kiss me, Hardy.\""
        ),
        "{page}"
    );
    // Another game's player (or none) is refused with the game's own name.
    let response = gm
        .submit(
            &path,
            &[
                ("player", "999999"),
                ("received_on", "1805-10-21"),
                ("orders", "C3 D4"),
            ],
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused = response.text().await.unwrap();
    assert!(
        refused.contains("Trafalgar has no such player"),
        "{refused}"
    );

    // A printable sheet for the post: Hardy's own position and nothing of anyone else's.
    let sheet = gm
        .get_text(&format!("/gm/games/{game}/print/{hardy}"))
        .await;
    let state: String = sqlx::query_scalar("SELECT state::text FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    let state = EngineKind::Barmy.parse_state_text(&state).unwrap();
    let engine_id = |name: &'static str| async move {
        let id: i64 = sqlx::query_scalar(
            "SELECT engine_player_id FROM players WHERE display_name = $1 AND game_id = $2",
        )
        .bind(name)
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
        engine::PlayerId(u64::try_from(id).unwrap())
    };
    let own = state
        .view(engine::Viewer::Player(engine_id("Hardy").await))
        .lines;
    let other = state
        .view(engine::Viewer::Player(engine_id("Nelson").await))
        .lines;
    let position = sheet
        .split("<pre class=\"print-position\">")
        .nth(1)
        .unwrap()
        .split("</pre>")
        .next()
        .unwrap();
    assert!(!own.is_empty());
    for line in &own {
        assert!(position.contains(line.as_str()), "{line}\n{position}");
    }
    assert!(
        other.iter().any(|l| !own.contains(l)),
        "the two views differ, so the check below means something"
    );
    for line in other.iter().filter(|l| !own.contains(l)) {
        assert!(!position.contains(line.as_str()), "Nelson's {line} leaked");
    }
    assert!(sheet.contains("No turn has been published yet."), "{sheet}");

    // Every postal player's sheet at once: Hardy is marked postal, Nelson is not.
    let post = gm.get_text(&format!("/gm/games/{game}/print-postal")).await;
    assert_eq!(post.matches("class=\"print-player\"").count(), 1, "{post}");
    assert!(
        post.contains("<strong class=\"print-player\">Hardy</strong>"),
        "{post}"
    );
    for line in other.iter().filter(|l| !own.contains(l)) {
        assert!(!post.contains(line.as_str()), "Nelson's {line} leaked");
    }
    app.stop().await;
}
