#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! Issue 20, fault 7: a game's setup form is made from the engine's own description of its
//! settings (`Engine::settings`): choices as selects, numbers with their limits, switches
//! (the house rules among them) as checkboxes, defaults filled in, a line of help and a link to
//! the rules page; every error is reported at once; what the GM chose is what the game gets.

use reqwest::StatusCode;
use serde_json::Value;

use crate::console::{Browser, PASSWORD, add_gm};
use crate::helpers::TestApp;

async fn gm_with_a_zine(app: &TestApp) -> Browser {
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(app);
    gm.login("nelson", PASSWORD).await;
    gm.submit("/gm/zines", &[("slug", "gazette"), ("name", "Gazette")])
        .await;
    for (email, name) in [
        ("nelson@victory.example", "Nelson"),
        ("villeneuve@bucentaure.example", "Villeneuve"),
    ] {
        gm.submit(
            "/gm/zines/gazette/subscribers",
            &[("email", email), ("name", name)],
        )
        .await;
    }
    gm
}

#[tokio::test]
async fn every_engines_form_has_real_fields_from_its_own_description() {
    let app = TestApp::spawn().await;
    let mut gm = gm_with_a_zine(&app).await;
    for engine in games::EngineKind::ALL {
        let form = gm
            .get_text(&format!("/gm/zines/gazette/games/new?engine={engine}"))
            .await;
        assert!(
            form.contains(&format!(r#"href="/rules/{engine}""#)),
            "{engine}: no link to the rules page"
        );
        for setting in engine.settings() {
            let name = format!(r#"name="setup.{}""#, setting.path);
            let at = form
                .find(&name)
                .unwrap_or_else(|| panic!("{engine}: no field for {}", setting.path));
            let input = &form[form[..at].rfind('<').unwrap()..];
            let input = &input[..input.find('>').unwrap()];
            match setting.kind {
                engine::settings::SettingKind::Number { min, max, default } => {
                    assert!(input.starts_with("<input type=\"number\""), "{input}");
                    assert!(input.contains(&format!(r#"value="{default}""#)), "{input}");
                    assert!(
                        input.contains(&format!(r#"min="{min}" max="{max}""#)),
                        "{input}"
                    );
                }
                engine::settings::SettingKind::Choice { default, .. } => {
                    assert!(input.starts_with("<select"), "{input}");
                    let select = &form[at..form[at..].find("</select>").unwrap() + at];
                    assert!(
                        select.contains(&format!(r#"<option value="{default}" selected>"#)),
                        "{select}"
                    );
                }
                engine::settings::SettingKind::Switch { default } => {
                    assert!(input.contains("type=\"checkbox\""), "{input}");
                    assert_eq!(input.contains(" checked"), default, "{input}");
                }
                _ => {}
            }
            // Its line of help is on the page (escaped as the page prints it).
            let help = setting
                .help
                .split('`')
                .next()
                .unwrap()
                .replace('\'', "&#39;");
            let help = help.replace('"', "&#34;");
            assert!(form.contains(&help), "{engine}.{}: no help", setting.path);
        }
        let rules = gm.get(&format!("/rules/{engine}")).await;
        assert_eq!(rules.status(), StatusCode::OK, "/rules/{engine}");
        let rules = rules.text().await.unwrap();
        assert!(
            rules.contains("<h2>"),
            "{engine}: the rules page has no sections"
        );
    }
    // A house-rule switch is a checkbox of its own, ticked as the text has it.
    let barmy = gm
        .get_text("/gm/zines/gazette/games/new?engine=barmy")
        .await;
    assert!(
        barmy.contains(r#"name="setup.press_only_is_nmr" id="setup-press_only_is_nmr" checked>"#),
        "{barmy}"
    );
    assert_eq!(gm.get("/rules/chess").await.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

#[tokio::test]
async fn every_bad_setting_is_named_at_once_and_the_chosen_ones_are_the_games() {
    let app = TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let mut gm = gm_with_a_zine(&app).await;
    let form = |dice: &'static str, nuke: &'static str, table: &'static str| {
        vec![
            ("engine", "salvo"),
            ("name", "The Nile"),
            ("deadline", "1805-10-28T12:00"),
            ("schedule", "every_days"),
            ("days", "7"),
            ("setup.dice_mode", dice),
            ("setup.shots", "salvo"),
            ("setup.specials_enabled", "nuke"),
            ("setup.specials_enabled", "torpedo"),
            ("setup.uses.nuke", nuke),
            ("setup.uses.scuba", "2"),
            ("setup.uses.torpedo", table),
            ("setup.uses.experimental", "2"),
            ("setup.uses.bomber", "2"),
            ("setup.misses", "counted"),
            ("setup.captured_weapons", "lost"),
            ("setup.score_breaks_ties", "on"),
        ]
    };
    let response = gm
        .submit("/gm/zines/gazette/games/new", &form("d100", "100", "x"))
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    for error in [
        "Dice: &#34;d100&#34; is not one of the choices.",
        "Tactical nuke uses: 100 is not from 0 to 99.",
        "Torpedo attack uses: a whole number from 0 to 99 is needed, not &#34;x&#34;.",
    ] {
        assert!(page.contains(error), "{error} not in {page}");
    }
    // What was typed is kept.
    assert!(
        page.contains(r#"<option value="counted" selected>"#),
        "{page}"
    );

    let response = gm
        .submit("/gm/zines/gazette/games/new", &form("3d6", "1", "2"))
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let setup: Value = sqlx::query_scalar("SELECT setup FROM games")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(setup["dice_mode"], "3d6");
    assert_eq!(setup["shots"], "salvo");
    assert_eq!(
        setup["specials_enabled"],
        serde_json::json!(["nuke", "torpedo"])
    );
    assert_eq!(setup["misses"], "counted");
    assert_eq!(setup["captured_weapons"], "lost");
    assert_eq!(setup["score_breaks_ties"], true);
    // Unticked switches are off.
    assert_eq!(setup["torpedo_bonus"], false);
    app.stop().await;
}
