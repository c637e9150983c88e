//! Rosters (issue 18): a zine of six runs a skyfleet battle of two, an ironclad game of two
//! sides of two captains, and a Barmy game of all six, at once; the GM picks the players and
//! their seats on the new-game form, and bad rosters are refused in words with nothing made.

use engine::settings::SettingKind;
use games::EngineKind;
use reqwest::StatusCode;
use serde_json::Value;
use store::PgPool;

use crate::console::{Browser, PASSWORD, add_gm};
use crate::helpers::TestApp;

pub(crate) const SIX: [(&str, &str); 6] = [
    ("nelson@victory.example", "Nelson"),
    ("collingwood@royal-sovereign.example", "Collingwood"),
    ("hardy@victory.example", "Hardy"),
    ("villeneuve@bucentaure.example", "Villeneuve"),
    ("gravina@principe.example", "Gravina"),
    ("lucas@redoutable.example", "Lucas"),
];

/// A GM logged in, with a zine `gazette` of the six subscribers above.
pub(crate) async fn zine_of_six(app: &TestApp) -> Browser {
    add_gm(&app.db.pool, "nelson").await;
    let mut gm = Browser::new(app);
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    gm.submit("/gm/zines", &[("slug", "gazette"), ("name", "Gazette")])
        .await;
    for (email, name) in SIX {
        let response = gm
            .submit(
                "/gm/zines/gazette/subscribers",
                &[("email", email), ("name", name)],
            )
            .await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
    }
    gm
}

/// The new-game form's fields for `engine`'s standard setup, as the form shows them.
pub(crate) fn standard_form(engine: EngineKind, name: &str) -> Vec<(String, String)> {
    let mut form = vec![
        ("engine".to_owned(), engine.name().to_owned()),
        ("name".to_owned(), name.to_owned()),
        ("deadline".to_owned(), "1805-10-28T12:00".to_owned()),
        ("schedule".to_owned(), "every_days".to_owned()),
        ("days".to_owned(), "7".to_owned()),
    ];
    // The fields the engine describes (`Engine::settings`), each at its default, as the form
    // shows them; the rest of the default setup as the form's JSON fields.
    let settings = engine.settings();
    for setting in &settings {
        let text = match &setting.kind {
            SettingKind::Number { default, .. } => default.to_string(),
            SettingKind::OptionalNumber { default, .. } => {
                default.map(|n| n.to_string()).unwrap_or_default()
            }
            SettingKind::Switch { default: false } => continue,
            SettingKind::Switch { default: true } => "on".to_owned(),
            SettingKind::Choice { default, .. } => (*default).to_owned(),
            SettingKind::Several { default, .. } => {
                for value in *default {
                    form.push((format!("setup.{}", setting.path), (*value).to_owned()));
                }
                continue;
            }
        };
        form.push((format!("setup.{}", setting.path), text));
    }
    let Value::Object(setup) = engine.default_setup().to_json().unwrap() else {
        panic!("a setup is an object");
    };
    for (key, value) in setup {
        let described = settings
            .iter()
            .any(|s| s.path.split('.').next() == Some(key.as_str()));
        if described {
            continue;
        }
        form.push((format!("setup.{key}"), value.to_string()));
    }
    form
}

pub(crate) async fn subscriber_id(pool: &PgPool, name: &str) -> i64 {
    sqlx::query_scalar("SELECT id FROM subscribers WHERE display_name = $1")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The form with a roster: each named subscriber in the seat given, the others out.
async fn with_roster(
    pool: &PgPool,
    mut form: Vec<(String, String)>,
    seats: &[(&str, &str)],
) -> Vec<(String, String)> {
    form.push(("roster".into(), "chosen".into()));
    for (_, name) in SIX {
        let seat = seats
            .iter()
            .find(|(who, _)| *who == name)
            .map_or("", |(_, seat)| seat);
        form.push((
            format!("roster.{}", subscriber_id(pool, name).await),
            seat.to_owned(),
        ));
    }
    form
}

async fn create(gm: &mut Browser, form: &[(String, String)]) -> reqwest::Response {
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    gm.submit("/gm/zines/gazette/games/new", &pairs).await
}

/// The players of a game: name, engine id and seat, in engine id order.
pub(crate) async fn players_of(pool: &PgPool, game: &str) -> Vec<(String, i64, Option<i32>)> {
    sqlx::query_as(
        "SELECT p.display_name, p.engine_player_id, p.seat FROM players p JOIN games g ON g.id = p.game_id \
         WHERE g.name = $1 ORDER BY p.engine_player_id",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .unwrap()
}

pub(crate) async fn game_id(pool: &PgPool, game: &str) -> i64 {
    sqlx::query_scalar("SELECT id FROM games WHERE name = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_zine_of_six_runs_a_skyfleet_duel_an_ironclad_two_against_two_and_barmy_for_all() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;

    // The skyfleet form offers the two fleets and suggests the first two subscribers.
    let page = gm
        .get_text("/gm/zines/gazette/games/new?engine=skyfleet")
        .await;
    assert!(page.contains("id=\"roster\""), "{page}");
    assert!(page.contains("Every seat needs a player."), "{page}");
    let nelson = subscriber_id(pool, "Nelson").await;
    let lucas = subscriber_id(pool, "Lucas").await;
    assert!(page.contains(&format!(
        "name=\"roster.{nelson}\">\n      <option value=\"\">does not play</option>\n      <option value=\"0\" selected>"
    )));
    assert!(page.contains(&format!(
        "name=\"roster.{lucas}\">\n      <option value=\"\" selected>does not play</option>"
    )));

    // Bad rosters are refused in words and make nothing.
    let skyfleet = standard_form(EngineKind::Skyfleet, "Over Dover");
    for (seats, expected) in [
        (
            vec![("Collingwood", "0"), ("Hardy", "0"), ("Lucas", "1")],
            "takes at most 1 player, not 2",
        ),
        (vec![("Collingwood", "0")], "has no player"),
        (vec![], "Players: choose who plays"),
        (vec![("Collingwood", "0"), ("Hardy", "7")], "seat 8"),
    ] {
        let form = with_roster(pool, skyfleet.clone(), &seats).await;
        let response = create(&mut gm, &form).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let page = response.text().await.unwrap();
        assert!(page.contains(expected), "{expected}\n{page}");
    }
    let response = create(
        &mut gm,
        &[
            skyfleet.clone(),
            vec![
                ("roster".into(), "chosen".into()),
                ("roster.999999".into(), "0".into()),
                (format!("roster.{lucas}"), "1".into()),
            ],
        ]
        .concat(),
    )
    .await;
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("subscriber 999999 is not an active subscriber of this zine")
    );
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(games, 0);

    // Three games at once from the same six subscribers.
    let form = with_roster(pool, skyfleet, &[("Lucas", "0"), ("Collingwood", "1")]).await;
    assert_eq!(create(&mut gm, &form).await.status(), StatusCode::SEE_OTHER);
    let ironclad = standard_form(EngineKind::Ironclad, "Lissa");
    let form = with_roster(
        pool,
        ironclad,
        &[
            ("Nelson", "0"),
            ("Hardy", "0"),
            ("Villeneuve", "1"),
            ("Gravina", "1"),
        ],
    )
    .await;
    let response = create(&mut gm, &form).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let barmy = standard_form(EngineKind::Barmy, "Trafalgar");
    let response = create(&mut gm, &barmy).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);

    assert_eq!(
        players_of(pool, "Over Dover").await,
        vec![
            ("Collingwood".into(), 1, Some(1)),
            ("Lucas".into(), 2, Some(0))
        ]
    );
    assert_eq!(
        players_of(pool, "Lissa").await,
        vec![
            ("Nelson".into(), 1, Some(0)),
            ("Hardy".into(), 2, Some(0)),
            ("Villeneuve".into(), 3, Some(1)),
            ("Gravina".into(), 4, Some(1)),
        ]
    );
    assert_eq!(players_of(pool, "Trafalgar").await.len(), 6);

    // The engines' states seat them so: Lucas commands skyfleet's first fleet, and each
    // ironclad side's ships go round its two captains.
    let state = |game: &'static str| async move {
        sqlx::query_scalar::<_, Value>("SELECT state FROM games WHERE name = $1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap()
    };
    let dover = state("Over Dover").await;
    assert_eq!(dover["sides"][0]["player"]["name"], "Lucas");
    assert_eq!(dover["sides"][1]["player"]["name"], "Collingwood");
    let lissa = state("Lissa").await;
    let sides: Vec<(String, u64)> = lissa["commanders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["player"]["name"].as_str().unwrap().to_owned(),
                c["side"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sides,
        vec![
            ("Nelson".into(), 0),
            ("Hardy".into(), 0),
            ("Villeneuve".into(), 1),
            ("Gravina".into(), 1)
        ]
    );
    let owners: Vec<u64> = lissa["ships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["player"].as_u64().unwrap())
        .collect();
    assert_eq!(owners, vec![1, 2, 1, 3, 4, 3]);

    // The roster on the GM's page and the public one: names and seats, nothing else.
    let lissa_id = game_id(pool, "Lissa").await;
    let page = gm.get_text(&format!("/gm/games/{lissa_id}")).await;
    let roster = page.split("id=\"roster\"").nth(1).unwrap();
    assert!(roster.contains("<td>Hardy</td><td>"), "{roster}");
    let public = app
        .get(&format!("/zines/gazette/games/{lissa_id}"))
        .await
        .text()
        .await
        .unwrap();
    let section = public
        .split("id=\"roster\"")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    let side = lissa["sides"][1]["name"].as_str().unwrap();
    assert!(section.contains(&format!("Gravina · {side}")), "{section}");
    assert!(!section.contains("Lucas"), "{section}");
    assert!(!section.contains('@'), "no address: {section}");
    // The same roster from the command line.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gm"))
        .args(["game", &lissa_id.to_string(), "roster"])
        .env("DATABASE_URL", &app.db.url)
        .env_remove("ADMIRALTY_LOG")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    let side0 = lissa["sides"][0]["name"].as_str().unwrap();
    assert!(
        printed.contains(&format!("Hardy\t{side0}\tfrom turn 1\tactive")),
        "{printed}"
    );
    assert!(printed.contains("4 player(s)"), "{printed}");
    let trafalgar = game_id(pool, "Trafalgar").await;
    let public = app
        .get(&format!("/zines/gazette/games/{trafalgar}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(public.contains("Every subscriber of the zine plays (BARMY-02)"));

    // Each player is reached on their own games only: Lucas has orders to give in the duel and
    // in Barmy, not in Lissa.
    let games_of_lucas: Vec<String> = sqlx::query_scalar(
        "SELECT g.name FROM players p JOIN games g ON g.id = p.game_id JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE s.display_name = 'Lucas' ORDER BY g.name",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(games_of_lucas, vec!["Over Dover", "Trafalgar"]);
    app.stop().await;
}
