//! "Your game has started" (issue 18): a game made with a roster mails each of its players, in
//! the transaction that makes it, their seat, the public roster, the open turn and deadline,
//! their own position and their personal reply address; nobody else is mailed.

use engine::{PlayerId, Viewer};
use games::EngineKind;
use reqwest::StatusCode;
use serde_json::Value;
use server::inbox;
use server::outbox::{self, Relay};
use store::PgPool;

use crate::helpers::{TestApp, trafalgar};
use crate::outbox::{SmtpSink, free_port};
use crate::rosters::{SIX, game_id, standard_form, subscriber_id, zine_of_six};

/// The mail domain of [`TestApp`]'s state.
const APP_DOMAIN: &str = "localhost";

/// The outbox's rows: recipient, subject, body and Reply-To, in order.
async fn queued(pool: &PgPool) -> Vec<(String, String, String, Option<String>)> {
    let rows: Vec<(String, String, String, Value)> = sqlx::query_as(
        "SELECT to_address, subject, body_text, headers FROM outbound_messages ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(to, subject, body, headers)| {
            let reply_to = headers["Reply-To"].as_str().map(str::to_owned);
            (to, subject, body, reply_to)
        })
        .collect()
}

/// The roster part of the new-game form: each named subscriber in a seat, the others out.
async fn roster_fields(pool: &PgPool, seats: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut form = vec![("roster".to_owned(), "chosen".to_owned())];
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

/// The position part of a start mail: the lines between "Your position in GAME:" and the
/// blank line before the order help.
fn position_in(body: &str, game: &str) -> String {
    let after = body
        .split(&format!("Your position in {game}:\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("no position in {body}"));
    after.split("\n\n").next().unwrap().to_owned()
}

#[tokio::test]
async fn a_skyfleet_duel_of_two_from_six_mails_its_two_players_their_own_fleet_and_reply_address() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let mut form = standard_form(EngineKind::Skyfleet, "Over Dover");
    form.extend(roster_fields(pool, &[("Lucas", "0"), ("Collingwood", "1")]).await);
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let game = game_id(pool, "Over Dover").await;

    // Exactly the two players are mailed, once each.
    let mails = queued(pool).await;
    let to: Vec<&str> = mails.iter().map(|(to, ..)| to.as_str()).collect();
    assert_eq!(
        to,
        vec![
            "collingwood@royal-sovereign.example",
            "lucas@redoutable.example"
        ],
        "{mails:#?}"
    );

    let state_json: Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    let state = EngineKind::Skyfleet.parse_state(&state_json).unwrap();
    let fleet = |index: usize| {
        state_json["sides"][index]["name"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (lucas_fleet, collingwood_fleet) = (fleet(0), fleet(1));
    let tokens: Vec<(String, i64, String)> = sqlx::query_as(
        "SELECT display_name, engine_player_id, reply_token FROM players WHERE game_id = $1 ORDER BY engine_player_id",
    )
    .bind(game)
    .fetch_all(pool)
    .await
    .unwrap();
    let gm_view = state.view(Viewer::Gm).lines.join("\n");
    for ((to, subject, body, reply_to), (name, engine_id, token), own, other) in [
        (&mails[0], &tokens[0], &collingwood_fleet, &lucas_fleet),
        (&mails[1], &tokens[1], &lucas_fleet, &collingwood_fleet),
    ] {
        assert!(to.contains(&name.to_lowercase()), "{to} {name}");
        assert_eq!(subject, &format!("Over Dover has started: you play {own}"));
        assert!(
            body.starts_with(&format!("Dear {name},\n\nOver Dover has started")),
            "{body}"
        );
        assert!(body.contains("\nRules: Skyfleet: airship fleets"), "{body}");
        assert!(
            body.contains(&format!(
                "\nThe rules page: http://{}/rules/skyfleet\n",
                app.address
            )),
            "{body}"
        );
        assert!(body.contains(&format!("Your seat: {own}\n")), "{body}");
        let opponent = if name == "Lucas" {
            "Collingwood"
        } else {
            "Lucas"
        };
        assert!(
            body.contains(&format!("The other players: {opponent} ({other})\n")),
            "{body}"
        );
        assert!(
            body.contains("Turn 1 is open; its deadline is Monday 28 October 1805, 12:00 UTC."),
            "{body}"
        );
        // Their own position, exactly the engine's view for their seat, and not the GM's
        // (which shows what the player may not see).
        let own_view = state
            .view(Viewer::Player(PlayerId(u64::try_from(*engine_id).unwrap())))
            .lines
            .join("\n");
        assert_eq!(position_in(body, "Over Dover"), own_view);
        assert_ne!(own_view, gm_view, "the GM sees more than a player");
        assert!(body.contains("Skyfleet orders: one per line"), "{body}");
        // Nobody's address, nobody else's token.
        assert!(!body.contains('@'), "{body}");
        for (_, _, other_token) in &tokens {
            assert!(!body.contains(other_token.as_str()), "{body}");
        }
        assert_eq!(
            reply_to.as_deref(),
            Some(server::letters::reply_address(token, APP_DOMAIN).as_str())
        );
    }
    // Lucas's mail shows his standing orders and not Collingwood's: a player's view holds one
    // "Standing orders" line, their own, where the GM's holds both.
    assert_eq!(gm_view.matches("Standing orders").count(), 2);
    assert_eq!(mails[1].2.matches("Standing orders").count(), 1);
    println!(
        "The start mail Lucas receives:\n{}\n{}",
        mails[1].1, mails[1].2
    );

    // Through a real SMTP peer: the two mails arrive, with the reply address.
    let sink = SmtpSink::start(free_port());
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port),
        "Admiralty <orders@localhost>",
    )
    .unwrap();
    let done = outbox::deliver_due(pool, &relay, trafalgar() + chrono::Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(done.failed, 0);
    let deliveries = sink.deliveries();
    assert_eq!(deliveries.len(), 2, "{deliveries:?}");
    let (_, raw) = deliveries
        .iter()
        .find(|(to, _)| to == "lucas@redoutable.example")
        .unwrap();
    let received = mail::parse(raw.as_bytes()).unwrap();
    let lucas_address = server::letters::reply_address(&tokens[1].2, APP_DOMAIN);
    assert_eq!(
        received.subject.as_deref(),
        Some(format!("Over Dover has started: you play {lucas_fleet}").as_str())
    );
    assert_eq!(received.reply_to[0].address, lucas_address);
    assert_eq!(
        position_in(&received.body.replace("\r\n", "\n"), "Over Dover"),
        position_in(&mails[1].2, "Over Dover")
    );
    drop(sink);

    // Lucas answers the mail with orders: they are taken for the duel's turn 1.
    let ship = state_json["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["side"] == 0 && u["class"] != "torpedo" && u["class"] != "wing")
        .and_then(|u| u["name"].as_str())
        .unwrap()
        .to_owned();
    let raw = format!(
        "From: Lucas <lucas@redoutable.example>\r\nTo: <{lucas_address}>\r\nMessage-ID: <lucas-1@redoutable.example>\r\n\
         Subject: Re: Over Dover has started\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nACTIVATE {ship}\r\nHOLD\r\n"
    );
    inbox::ingest(pool, raw.as_bytes(), "smtp", trafalgar(), APP_DOMAIN)
        .await
        .unwrap();
    let stored: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM orders o JOIN players p ON p.id = o.player_id \
         WHERE p.game_id = $1 AND p.display_name = 'Lucas'",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(stored, 1, "{:#?}", queued(pool).await.last());
    let answer = queued(pool).await.pop().unwrap();
    assert_eq!(answer.0, "lucas@redoutable.example");
    assert!(answer.2.contains("as understood"), "{}", answer.2);

    // A Barmy game seats every subscriber (BARMY-02), and each of the six is told so.
    let barmy = standard_form(EngineKind::Barmy, "Trafalgar");
    let pairs: Vec<(&str, &str)> = barmy
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let response = gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let barmy_mails: Vec<_> = queued(pool)
        .await
        .into_iter()
        .filter(|(_, subject, ..)| subject == "Trafalgar has started: you play in it")
        .collect();
    assert_eq!(barmy_mails.len(), 6, "{barmy_mails:#?}");
    let (_, _, body, reply_to) = barmy_mails
        .iter()
        .find(|(to, ..)| to == "hardy@victory.example")
        .unwrap();
    assert!(
        body.contains("The other players: Nelson, Collingwood, Villeneuve, Gravina, Lucas\n"),
        "{body}"
    );
    assert!(!body.contains("Your seat"), "{body}");
    assert!(reply_to.as_deref().unwrap().starts_with("orders+"));
    app.stop().await;
}

#[tokio::test]
async fn a_sign_up_opened_in_a_time_zone_starts_its_game_there_and_mails_each_captain_their_side() {
    use crate::console::hidden_csrf;

    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let mut gm = zine_of_six(&app).await;
    let mut form = standard_form(EngineKind::Ironclad, "Lissa");
    form.retain(|(key, _)| key != "zone");
    form.extend([
        ("zone".to_owned(), "Europe/London".to_owned()),
        ("start".to_owned(), "signup".to_owned()),
        ("signup_seats".to_owned(), "4".to_owned()),
        ("seating".to_owned(), "order".to_owned()),
    ]);
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    // Without the console's token the form opens nothing.
    let forged: Vec<(&str, &str)> = [("csrf", "0")].into_iter().chain(pairs.clone()).collect();
    let response = gm.post("/gm/zines/gazette/games/new", &forged).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let openings: i64 = sqlx::query_scalar("SELECT count(*) FROM openings")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(openings, 0);
    // A zone that is none is refused in words, and opens nothing.
    let mut bad = pairs.clone();
    bad.retain(|(key, _)| *key != "zone");
    bad.push(("zone", "Europe/Atlantis"));
    let response = gm.submit("/gm/zines/gazette/games/new", &bad).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = response.text().await.unwrap();
    assert!(
        page.contains("&#34;Europe/Atlantis&#34; is not a time zone"),
        "{page}"
    );

    let response = gm.submit("/gm/zines/gazette/games/new", &pairs).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (opening, zone): (i64, String) = sqlx::query_as("SELECT id, time_zone FROM openings")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(zone, "Europe/London");
    let page = gm.get_text(&format!("/gm/signups/{opening}")).await;
    assert!(
        page.contains("<dd id=\"signup-zone\">Europe/London</dd>"),
        "{page}"
    );

    // Four captains sign up on their pages; the fourth fills the game, which starts.
    for (email, _) in SIX.iter().take(4) {
        let mut player = crate::players::logged_in(&app, email).await;
        let me = player.get_text("/me").await;
        let csrf = hidden_csrf(&me);
        let response = player
            .post(&format!("/me/signups/{opening}"), &[("csrf", &csrf)])
            .await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
    }
    let game = game_id(pool, "Lissa").await;
    let schedule: Value = sqlx::query_scalar("SELECT schedule FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(schedule["zone"], "Europe/London", "{schedule}");
    let deadline: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT deadline FROM turns WHERE game_id = $1 AND number = 1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
    let in_london = server::letters::deadline(deadline, chrono_tz::Europe::London);
    assert_ne!(
        in_london,
        server::letters::deadline(deadline, chrono_tz::Tz::UTC)
    );

    // In order of sign-up the seats go round the two sides: Nelson and Hardy share the first,
    // Collingwood and Villeneuve the second. Each is mailed their side and fellow captain.
    let state: Value = sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(pool)
        .await
        .unwrap();
    let side = |index: usize| state["sides"][index]["name"].as_str().unwrap().to_owned();
    let started: Vec<_> = queued(pool)
        .await
        .into_iter()
        .filter(|(_, subject, ..)| subject.starts_with("Lissa has started"))
        .collect();
    assert_eq!(started.len(), 4, "{started:#?}");
    let nelson = started
        .iter()
        .find(|(to, ..)| to == "nelson@victory.example")
        .unwrap();
    let body = &nelson.2;
    assert_eq!(nelson.1, format!("Lissa has started: you play {}", side(0)));
    assert!(
        body.contains(&format!("Your fellow captains on {}: Hardy\n", side(0))),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "The other players: Collingwood ({}), Villeneuve ({})\n",
            side(1),
            side(1)
        )),
        "{body}"
    );
    assert!(
        body.contains(&format!("Turn 1 is open; its deadline is {in_london}.")),
        "{in_london}\n{body}"
    );
    let villeneuve = started
        .iter()
        .find(|(to, ..)| to == "villeneuve@bucentaure.example")
        .unwrap();
    assert!(
        villeneuve.2.contains(&format!(
            "Your fellow captains on {}: Collingwood\n",
            side(1)
        )),
        "{}",
        villeneuve.2
    );
    println!("The start mail Nelson receives:\n{}\n{body}", nelson.1);
    app.stop().await;
}
