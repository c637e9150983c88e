//! `gm game-new` and `gm signup …` (issue 18): the real `gm` binary makes a game with its
//! roster and runs a sign-up, through the service functions the console uses; refusals print
//! the console's words and exit non-zero, with nothing made.

use std::process::{Command, Output};

use serde_json::Value;
use store::PgPool;

use crate::helpers::TestApp;
use crate::rosters::{game_id, players_of, subscriber_id, zine_of_six};

const DOMAIN: &str = "zine.example.org";

/// `gm` on the test's database, at the test clock's time, with the mail domain given.
fn gm(app: &TestApp, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gm"));
    for var in [
        "ADMIRALTY_LOG",
        "ADMIRALTY_BASE_URL",
        "ADMIRALTY_MAIL_DOMAIN",
    ] {
        command.env_remove(var);
    }
    command
        .args(args)
        .env("DATABASE_URL", &app.db.url)
        .env("ADMIRALTY_NOW", crate::helpers::trafalgar().to_rfc3339())
        .env("ADMIRALTY_MAIL_DOMAIN", DOMAIN)
        .env("ADMIRALTY_BASE_URL", "https://admiralty.example.org")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// The refusal's words, after checking that gm failed.
fn refused(output: &Output) -> String {
    assert!(!output.status.success(), "{output:?}");
    String::from_utf8(output.stderr.clone()).unwrap()
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

#[tokio::test]
async fn gm_game_new_makes_a_skyfleet_duel_with_its_roster_and_refuses_bad_ones_in_words() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let _gm = zine_of_six(&app).await;
    let lucas = subscriber_id(pool, "Lucas").await.to_string();
    let hardy = subscriber_id(pool, "Hardy").await.to_string();
    let collingwood = subscriber_id(pool, "Collingwood").await.to_string();
    let new_game = |seats: &[String]| {
        let mut args: Vec<String> = [
            "game-new",
            "--zine",
            "gazette",
            "--name",
            "Over Dover",
            "--engine",
            "skyfleet",
            "--deadline",
            "1805-10-28 12:00",
        ]
        .map(str::to_owned)
        .to_vec();
        for seat in seats {
            args.push("--seat".into());
            args.push(seat.clone());
        }
        args
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gm(&app, &args)
    };

    for (seats, expected) in [
        (
            vec![
                format!("{lucas}=Green Fleet"),
                format!("{collingwood}=Blue Fleet"),
            ],
            "\"Green Fleet\" is not a seat of this game: its seats are Red Fleet, Blue Fleet",
        ),
        (
            vec![
                format!("{lucas}=Red Fleet"),
                format!("{hardy}=red fleet"),
                format!("{collingwood}=Blue Fleet"),
            ],
            "The game could not be created: the game cannot start: Red Fleet takes at most 1 player, not 2.",
        ),
        (
            vec![format!("{lucas}=Red Fleet")],
            "The game could not be created: the game cannot start: Blue Fleet has no player.",
        ),
        (
            vec![
                "999999=Red Fleet".into(),
                format!("{collingwood}=Blue Fleet"),
            ],
            "subscriber 999999 is not an active subscriber of this zine",
        ),
        (vec!["Lucas=Red Fleet".into()], "write SUBSCRIBER=SEAT"),
        (
            vec![lucas.clone(), format!("{collingwood}=Blue Fleet")],
            "which seat? write",
        ),
    ] {
        let words = refused(&run(new_game(&seats)));
        assert!(words.contains(expected), "{expected}\n{words}");
    }
    let mut zoned = new_game(&[]);
    zoned.extend(["--zone".into(), "Mars/Olympus".into()]);
    let words = refused(&run(zoned));
    assert!(
        words.contains("\"Mars/Olympus\" is not a time zone: use a name such as Europe/London."),
        "{words}"
    );
    let words = refused(&gm(
        &app,
        &[
            "game-new",
            "--zine",
            "gazette",
            "--name",
            "Trafalgar",
            "--engine",
            "barmy",
            "--seat",
            &lucas,
        ],
    ));
    assert!(
        words.contains("in Barmy every subscriber plays (BARMY-02): there is no roster to choose"),
        "{words}"
    );
    assert_eq!(count(pool, "SELECT count(*) FROM games").await, 0);
    assert_eq!(
        count(pool, "SELECT count(*) FROM outbound_messages").await,
        0
    );

    // The duel: Lucas commands the red fleet, Collingwood the blue; the id is printed.
    let printed = stdout(&run(new_game(&[
        format!("{lucas}=red fleet"),
        format!("{collingwood}=Blue Fleet"),
    ])));
    let game = game_id(pool, "Over Dover").await;
    assert_eq!(printed.trim(), game.to_string());
    assert_eq!(
        players_of(pool, "Over Dover").await,
        vec![
            ("Lucas".into(), 1, Some(0)),
            ("Collingwood".into(), 2, Some(1))
        ]
    );
    let actor: String =
        sqlx::query_scalar("SELECT actor FROM audit_log WHERE action = 'game.create'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(actor, "cli");
    // The two players are mailed, from their reply addresses at the domain given.
    let mails: Vec<(String, String, Value)> =
        sqlx::query_as("SELECT to_address, body_text, headers FROM outbound_messages ORDER BY id")
            .fetch_all(pool)
            .await
            .unwrap();
    assert_eq!(mails.len(), 2, "{mails:#?}");
    let lucas_mail = mails
        .iter()
        .find(|(to, ..)| to == "lucas@redoutable.example")
        .unwrap();
    assert!(
        lucas_mail
            .1
            .contains("The rules page: https://admiralty.example.org/rules/skyfleet\n"),
        "{}",
        lucas_mail.1
    );
    assert!(
        lucas_mail.1.contains("Your seat: Red Fleet\n"),
        "{}",
        lucas_mail.1
    );
    assert!(
        lucas_mail.2["Reply-To"]
            .as_str()
            .unwrap()
            .ends_with(&format!("@{DOMAIN}")),
        "{:?}",
        lucas_mail.2
    );
    // The same name again is refused, as on the console.
    let words = refused(&run(new_game(&[
        format!("{hardy}=Red Fleet"),
        format!("{collingwood}=Blue Fleet"),
    ])));
    assert!(words.contains("There is already"), "{words}");
    // And the roster prints as before.
    let roster = stdout(&gm(&app, &["game", &game.to_string(), "roster"]));
    assert!(
        roster.contains("Lucas\tRed Fleet\tfrom turn 1\tactive"),
        "{roster}"
    );
    app.stop().await;
}

#[tokio::test]
async fn gm_signup_opens_lists_and_starts_a_sign_up_seated_by_the_gm_in_its_time_zone() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let _gm = zine_of_six(&app).await;
    let open = |seats: &str| {
        gm(
            &app,
            &[
                "signup",
                "open",
                "--zine",
                "gazette",
                "--name",
                "Lissa",
                "--engine",
                "ironclad",
                "--seats",
                seats,
                "--seating",
                "gm",
                "--zone",
                "Europe/London",
            ],
        )
    };
    let words = refused(&open("9"));
    assert!(
        words.contains(
            "The game could not be opened for sign-up: the game has room for at most 6 players."
        ),
        "{words}"
    );
    let words = refused(&gm(
        &app,
        &[
            "signup",
            "open",
            "--zine",
            "gazette",
            "--name",
            "Lissa",
            "--engine",
            "ironclad",
            "--seats",
            "4",
            "--seating",
            "dice",
        ],
    ));
    assert!(words.contains("order, random, gm"), "{words}");
    assert_eq!(count(pool, "SELECT count(*) FROM openings").await, 0);
    let opening = stdout(&open("4")).trim().to_owned();
    let zone: String = sqlx::query_scalar("SELECT time_zone FROM openings")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(zone, "Europe/London");

    // Four sign up (as on their player pages).
    let zine: store::zines::ZineId = sqlx::query_scalar("SELECT id FROM zines")
        .fetch_one(pool)
        .await
        .unwrap();
    let names = ["Nelson", "Collingwood", "Hardy", "Villeneuve"];
    for name in names {
        let subscriber =
            crate::helpers::id::<store::subscribers::SubscriberId>(subscriber_id(pool, name).await);
        server::rosters::signups::join(
            pool,
            crate::helpers::trafalgar(),
            zine,
            subscriber,
            "Lissa",
            server::letters::MailSite {
                domain: DOMAIN,
                base_url: "https://admiralty.example.org",
            },
        )
        .await
        .unwrap();
    }
    let listed = stdout(&gm(&app, &["signup", "list", "--zine", "gazette"]));
    assert!(
        listed.contains(&format!(
            "{opening}\tLissa\tironclad\t4 seats\t4 signed up\topen\n"
        )),
        "{listed}"
    );

    // The GM seats them: without seats, or with a side nobody takes, nothing starts.
    let words = refused(&gm(&app, &["signup", "start", &opening]));
    assert!(
        words.contains("Not started: the GM seats the players of Lissa: give each their seat"),
        "{words}"
    );
    let id = |name: &str| {
        let name = name.to_owned();
        async move { subscriber_id(pool, &name).await.to_string() }
    };
    let (nelson, collingwood, hardy, villeneuve) = (
        id("Nelson").await,
        id("Collingwood").await,
        id("Hardy").await,
        id("Villeneuve").await,
    );
    let state_sides: Vec<String> = {
        let setup = games::EngineKind::Ironclad.default_setup();
        let plan = setup.seat_plan();
        (0..2)
            .map(|seat| plan.seat_name(seat).unwrap().to_owned())
            .collect()
    };
    let (first, second) = (&state_sides[0], &state_sides[1]);
    let seat = |who: &str, side: &str| format!("{who}={side}");
    let words = refused(&gm(
        &app,
        &[
            "signup",
            "start",
            &opening,
            "--seat",
            &seat(&nelson, first),
            "--seat",
            &seat(&hardy, first),
        ],
    ));
    assert!(words.contains("Not started:"), "{words}");
    assert!(words.contains("has no player"), "{words}");
    assert_eq!(count(pool, "SELECT count(*) FROM games").await, 0);

    let printed = stdout(&gm(
        &app,
        &[
            "signup",
            "start",
            &opening,
            "--seat",
            &seat(&nelson, first),
            "--seat",
            &seat(&hardy, first),
            "--seat",
            &seat(&collingwood, second),
            "--seat",
            &seat(&villeneuve, second),
        ],
    ));
    let game = game_id(pool, "Lissa").await;
    assert_eq!(printed.trim(), game.to_string());
    let schedule: Value = sqlx::query_scalar("SELECT schedule FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(schedule["zone"], "Europe/London");
    let started = count(
        pool,
        "SELECT count(*) FROM outbound_messages WHERE subject LIKE 'Lissa has started%'",
    )
    .await;
    assert_eq!(started, 4);
    let listed = stdout(&gm(&app, &["signup", "list", "--zine", "gazette"]));
    assert!(
        listed.contains(&format!(
            "{opening}\tLissa\tironclad\t4 seats\t4 signed up\tstarted (game {game})"
        )),
        "{listed}"
    );
    let words = refused(&gm(&app, &["signup", "start", &opening]));
    assert!(
        words.contains("Not started: Lissa is not open for sign-up"),
        "{words}"
    );

    // Where the seats are drawn (in order, or at random with the committed seed), the GM
    // cannot give them instead.
    let jutland = stdout(&gm(
        &app,
        &[
            "signup",
            "open",
            "--zine",
            "gazette",
            "--name",
            "Jutland",
            "--engine",
            "skyfleet",
            "--seats",
            "2",
            "--seating",
            "random",
        ],
    ))
    .trim()
    .to_owned();
    let words = refused(&gm(
        &app,
        &[
            "signup",
            "start",
            &jutland,
            "--seat",
            &seat(&nelson, "Red Fleet"),
        ],
    ));
    assert!(
        words.contains("Not started: the seats of Jutland are given at random, with the committed dice, not by the GM"),
        "{words}"
    );
    let words = refused(&gm(&app, &["signup", "start", "999999"]));
    assert!(words.contains("there is no sign-up 999999"), "{words}");
    app.stop().await;
}
