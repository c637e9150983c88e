//! The postal player's sheet (issue 27): the game's order help and every report the player
//! has not had on paper, oldest first; the GM records the sheets posted, once.

use chrono::Duration;
use games::EngineKind;
use reqwest::StatusCode;
use server::turns::{GmAction, gm_action};
use store::games::GameId;

use crate::helpers::{TestApp, id, trafalgar};
use crate::inbox::DOMAIN;
use crate::rosters::{standard_form, zine_of_six};

async fn resolve(pool: &store::PgPool, game: GameId, hours: i64) {
    gm_action(
        pool,
        trafalgar() + Duration::hours(hours),
        game,
        GmAction::ResolveNow,
        "gm:nelson",
        DOMAIN,
    )
    .await
    .unwrap();
}

/// The `<h3>Turn N</h3>` headings of a sheet's reports.
fn report_turns(sheet: &str) -> Vec<&str> {
    sheet
        .split("<h3>")
        .skip(1)
        .filter_map(|rest| rest.split("</h3>").next())
        .collect()
}

#[tokio::test]
async fn a_postal_sheet_prints_the_order_help_and_every_report_not_yet_had_on_paper() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let form = standard_form(EngineKind::Barmy, "Trafalgar");
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let game_row: i64 = sqlx::query_scalar("SELECT id FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    let game: GameId = id(game_row);
    let hardy: i64 =
        sqlx::query_scalar("SELECT id FROM players WHERE display_name = 'Hardy' AND game_id = $1")
            .bind(game_row)
            .fetch_one(pool)
            .await
            .unwrap();
    let subscriber = crate::rosters::subscriber_id(pool, "Hardy").await;
    gm.submit(
        &format!("/gm/subscribers/{subscriber}/postal"),
        &[("postal", "on")],
    )
    .await;
    resolve(pool, game, 1).await;
    resolve(pool, game, 2).await;

    let sheet_path = format!("/gm/games/{game}/print/{hardy}");
    let sheet = gm.get_text(&sheet_path).await;
    // Both reports, oldest first, not only the latest.
    assert_eq!(report_turns(&sheet), ["Turn 1", "Turn 2"], "{sheet}");
    assert!(sheet.contains("Barmy Battleships — Turn 1"), "{sheet}");
    // The engine's order help.
    let state: String = sqlx::query_scalar("SELECT state::text FROM games WHERE id = $1")
        .bind(game_row)
        .fetch_one(pool)
        .await
        .unwrap();
    let help = EngineKind::Barmy
        .parse_state_text(&state)
        .unwrap()
        .order_help();
    let first_help_line = help.lines().find(|l| !l.trim().is_empty()).unwrap();
    assert!(sheet.contains("How to write your orders"), "{sheet}");
    assert!(
        sheet.contains(&crate::console::html(first_help_line)),
        "{first_help_line}\n{sheet}"
    );
    // The form that records the post carries what the sheet printed.
    assert!(sheet.contains("name=\"through\" value=\"2\""), "{sheet}");

    // Posted: the next sheet has nothing old; the same form again changes nothing.
    let posted = [("through", "2".to_owned()), ("player", hardy.to_string())];
    let posted: Vec<(&str, &str)> = posted.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for _ in 0..2 {
        let response = gm
            .submit(&format!("/gm/games/{game}/sheets-posted"), &posted)
            .await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
    }
    let audited: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'postal.sheets_posted'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(audited, 1);
    let sheet = gm.get_text(&sheet_path).await;
    assert!(report_turns(&sheet).is_empty(), "{sheet}");
    assert!(
        sheet.contains("None: you have had every report up to turn 2."),
        "{sheet}"
    );
    resolve(pool, game, 3).await;
    let sheet = gm.get_text(&sheet_path).await;
    assert_eq!(report_turns(&sheet), ["Turn 3"], "{sheet}");
    app.stop().await;
}
