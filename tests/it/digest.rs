//! The GM hears what needs the GM (issue 27 item 8, docs/web-console.md "The GM's digest"):
//! notices recorded where things happen, one digest mail an hour at most with a link for each,
//! kinds the GM switched off never mailed; and the GM strikes a press entry of the open turn,
//! audited, its player told, never printed, and not once the report is out.

use chrono::Duration;
use reqwest::StatusCode;
use server::letters::MailSite;
use store::PgPool;
use store::games::GameId;

use crate::console::{Browser, hidden_csrf};
use crate::helpers::{TestApp, id, trafalgar};
use crate::inbox::DOMAIN;
use crate::offers::{mail, over_dover, resolve_now, subscriber};

const SITE: MailSite<'static> = MailSite {
    domain: DOMAIN,
    base_url: "https://zine.example.org",
};
const GM_ADDRESS: &str = "gm@victory.example";
const KINDS: [&str; 7] = [
    "signup_filled",
    "seat_wanted",
    "standby_seated",
    "letter_waiting",
    "mail_failed",
    "turn_failed",
    "subscriber_erased",
];

/// Every notice recorded, oldest first: (kind, summary, link).
pub(crate) async fn notices(pool: &PgPool) -> Vec<(String, String, String)> {
    sqlx::query_as("SELECT kind, summary, link FROM gm_notices ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

/// The notices of one kind: their summaries.
pub(crate) async fn notices_of(pool: &PgPool, kind: &str) -> Vec<String> {
    notices(pool)
        .await
        .into_iter()
        .filter(|(k, _, _)| k == kind)
        .map(|(_, summary, _)| summary)
        .collect()
}

/// The digests queued to the GM: (subject, body), oldest first.
async fn digests(pool: &PgPool) -> Vec<(String, String)> {
    sqlx::query_as(
        "SELECT subject, body_text FROM outbound_messages WHERE to_address = $1 ORDER BY id",
    )
    .bind(GM_ADDRESS)
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn save_settings(gm: &mut Browser, email: &str, on: &[&str]) -> reqwest::Response {
    let csrf = hidden_csrf(&gm.get_text("/gm/settings").await);
    let mut form = vec![("csrf", csrf.as_str()), ("email", email)];
    form.extend(on.iter().map(|kind| ("on", *kind)));
    gm.post("/gm/settings", &form).await
}

async fn reply_address(pool: &PgPool, game: GameId, name: &str) -> String {
    let token: String = sqlx::query_scalar(
        "SELECT reply_token FROM players WHERE game_id = $1 AND display_name = $2",
    )
    .bind(game)
    .bind(name)
    .fetch_one(pool)
    .await
    .unwrap();
    server::letters::reply_address(&token, DOMAIN)
}

async fn send_due(pool: &PgPool, minutes: i64) -> usize {
    server::digest::send_due(pool, trafalgar() + Duration::minutes(minutes), SITE)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_gm_gets_one_digest_an_hour_linking_each_notice_and_kinds_switched_off_are_not_mailed()
{
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (mut gm, game) = over_dover(&app).await;
    let game: GameId = id(game);

    // The settings page: no address yet, every kind on.
    let page = gm.get_text("/gm/settings").await;
    assert!(page.contains("id=\"digest-form\""), "{page}");
    assert_eq!(page.matches(" checked").count(), KINDS.len(), "{page}");
    // A bad address is refused beside the field, with what was typed kept; nothing is saved.
    let bad = save_settings(&mut gm, "gm at victory", &KINDS).await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let bad = bad.text().await.unwrap();
    assert!(bad.contains("id=\"email-error\""), "{bad}");
    assert!(bad.contains("value=\"gm at victory\""), "{bad}");
    let saved: Option<String> = sqlx::query_scalar("SELECT email FROM gm_accounts")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(saved, None);
    let good = save_settings(&mut gm, GM_ADDRESS, &KINDS).await;
    assert_eq!(
        good.headers()["location"].to_str().unwrap(),
        "/gm/settings?done=settings-saved"
    );

    // Nothing has happened: no digest.
    assert_eq!(send_due(pool, 0).await, 0);

    // Lucas resigns by mail: the seat wants a player, and the GM is told at once.
    let lucas = reply_address(pool, game, "Lucas").await;
    mail(pool, "lucas-resigns", &lucas, "RESIGN\r\n").await;
    assert_eq!(
        notices_of(pool, "seat_wanted").await,
        ["Lucas left Over Dover (resigned): the seat wants a player."]
    );
    assert_eq!(send_due(pool, 1).await, 1);
    let sent = digests(pool).await;
    assert_eq!(sent.len(), 1);
    let (subject, body) = &sent[0];
    assert_eq!(subject, "Admiralty: 1 thing needs the GM");
    assert!(
        body.contains("Resignations and seats that want a player (1)"),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "https://zine.example.org/gm/games/{game}#standby-heading"
        )),
        "{body}"
    );
    println!("--- the GM's digest, as queued ---\nSubject: {subject}\n\n{body}");

    // Two more things within the hour: no second mail until the hour is up; then one.
    let collingwood = subscriber(pool, "Collingwood").await;
    server::issues::submit_letter_on_web(
        pool,
        collingwood,
        "Sir, the Gazette prints too little of the weather.",
        trafalgar() + Duration::minutes(10),
    )
    .await
    .unwrap();
    assert_eq!(send_due(pool, 30).await, 0);
    assert_eq!(send_due(pool, 60).await, 0, "59 minutes after the last");
    assert_eq!(send_due(pool, 61).await, 1);
    let sent = digests(pool).await;
    assert_eq!(sent.len(), 2);
    let body = &sent[1].1;
    assert!(body.contains("Letters to the editor waiting (1)"), "{body}");
    assert!(
        body.contains("A letter to the editor of Gazette from Collingwood waits for you."),
        "{body}"
    );
    assert!(
        body.contains("https://zine.example.org/gm/zines/gazette/issues#letters"),
        "{body}"
    );
    assert!(
        !body.contains("Lucas"),
        "each notice is mailed once: {body}"
    );

    // Letters switched off: a letter is not mailed, now or when they are switched on again.
    let without_letters: Vec<&str> = KINDS
        .iter()
        .copied()
        .filter(|kind| *kind != "letter_waiting")
        .collect();
    save_settings(&mut gm, GM_ADDRESS, &without_letters).await;
    let page = gm.get_text("/gm/settings").await;
    assert!(
        !page.contains("value=\"letter_waiting\" id=\"kind-letter_waiting\" checked"),
        "{page}"
    );
    server::issues::submit_letter_on_web(
        pool,
        collingwood,
        "Sir, and of the tides.",
        trafalgar() + Duration::minutes(70),
    )
    .await
    .unwrap();
    assert_eq!(notices_of(pool, "letter_waiting").await.len(), 2);
    assert_eq!(send_due(pool, 180).await, 0);
    assert_eq!(digests(pool).await.len(), 2);
    let passed_over: i64 =
        sqlx::query_scalar("SELECT count(*) FROM gm_notice_deliveries WHERE NOT mailed")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(passed_over, 1);
    save_settings(&mut gm, GM_ADDRESS, &KINDS).await;
    assert_eq!(send_due(pool, 240).await, 0);
    assert_eq!(digests(pool).await.len(), 2);
    app.stop().await;
}

async fn press_of(pool: &PgPool, name: &str) -> Vec<(i64, String)> {
    sqlx::query_as(
        "SELECT x.id, x.text FROM press x JOIN players p ON p.id = x.player_id \
         WHERE p.display_name = $1 ORDER BY x.id",
    )
    .bind(name)
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn strikes_audited(pool: &PgPool) -> Vec<serde_json::Value> {
    sqlx::query_scalar("SELECT details FROM audit_log WHERE action = 'press.strike' ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_gm_strikes_press_before_the_report_and_it_is_not_printed_but_cannot_after() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (mut gm, game_raw) = over_dover(&app).await;
    let game: GameId = id(game_raw);
    let lucas = reply_address(pool, game, "Lucas").await;
    let collingwood = reply_address(pool, game, "Collingwood").await;
    mail(
        pool,
        "lucas-press",
        &lucas,
        "FIRE B7\r\nPRESS Boney's admirals are all cowards.\r\n",
    )
    .await;
    mail(
        pool,
        "collingwood-press",
        &collingwood,
        "FIRE C3\r\nPRESS Steady, lads.\r\n",
    )
    .await;
    let [(struck, _)] = press_of(pool, "Lucas").await[..] else {
        panic!("Lucas has one press entry");
    };
    let [(kept, _)] = press_of(pool, "Collingwood").await[..] else {
        panic!("Collingwood has one press entry");
    };

    // The game's page offers a Strike for each pending entry, through a page of its own.
    let desk = gm.get_text(&format!("/gm/games/{game}")).await;
    let strike_path = format!("/gm/games/{game}/press/{struck}/strike");
    assert!(desk.contains(&format!("href=\"{strike_path}\"")), "{desk}");
    let asked = gm.get_text(&strike_path).await;
    assert!(asked.contains("Strike Lucas's press?"), "{asked}");
    assert!(asked.contains("Boney&#39;s admirals"), "{asked}");
    let csrf = hidden_csrf(&asked);
    // Without the confirmation page's field: sent there, nothing struck.
    let unconfirmed = gm
        .post(
            &strike_path,
            &[("csrf", csrf.as_str()), ("reason", "Abuse")],
        )
        .await;
    assert_eq!(
        unconfirmed.headers()["location"].to_str().unwrap(),
        strike_path
    );
    // Without a reason: the page again, the error beside the field.
    let no_reason = gm
        .post(
            &strike_path,
            &[
                ("csrf", csrf.as_str()),
                ("confirm", "yes"),
                ("reason", "  "),
            ],
        )
        .await;
    assert_eq!(no_reason.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let no_reason = no_reason.text().await.unwrap();
    assert!(no_reason.contains("id=\"reason-error\""), "{no_reason}");
    assert_eq!(press_of(pool, "Lucas").await.len(), 1);
    assert!(strikes_audited(pool).await.is_empty());

    let done = gm
        .post(
            &strike_path,
            &[
                ("csrf", csrf.as_str()),
                ("confirm", "yes"),
                ("reason", "Insults to the other side are not printed."),
            ],
        )
        .await;
    assert_eq!(
        done.headers()["location"].to_str().unwrap(),
        format!("/gm/games/{game}?done=press-struck")
    );
    assert!(press_of(pool, "Lucas").await.is_empty());
    let audited = strikes_audited(pool).await;
    assert_eq!(audited.len(), 1);
    assert_eq!(audited[0]["text"], "Boney's admirals are all cowards.");
    assert_eq!(
        audited[0]["reason"],
        "Insults to the other side are not printed."
    );
    let actor: String =
        sqlx::query_scalar("SELECT actor FROM audit_log WHERE action = 'press.strike'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(actor, "gm:nelson");
    let (subject, body, reply_to) =
        crate::offers::last_mail_to(pool, "lucas@redoutable.example").await;
    assert_eq!(subject, "Over Dover, turn 1: your press was struck");
    assert!(body.contains("Boney's admirals are all cowards."), "{body}");
    assert!(
        body.contains("The GM's reason: Insults to the other side are not printed."),
        "{body}"
    );
    // The test app's mail domain is `localhost`: the same reply token.
    let lucas_here = lucas.replace(DOMAIN, "localhost");
    assert_eq!(reply_to.as_deref(), Some(lucas_here.as_str()));
    println!("--- the player's mail, as queued ---\nSubject: {subject}\n\n{body}");
    // Struck once: the same form again finds nothing to strike.
    let again = gm
        .post(
            &strike_path,
            &[
                ("csrf", csrf.as_str()),
                ("confirm", "yes"),
                ("reason", "Again"),
            ],
        )
        .await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(strikes_audited(pool).await.len(), 1);

    // The report prints Collingwood's press, not the struck entry.
    resolve_now(pool, game, 1).await;
    let report: String = sqlx::query_scalar(
        "SELECT r.text FROM published_reports r JOIN turns t ON t.id = r.turn_id \
         WHERE t.game_id = $1 AND t.number = 1",
    )
    .bind(game)
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(report.contains("Steady, lads."), "{report}");
    assert!(!report.contains("cowards"), "{report}");

    // Once the report is out its press is on the record: refused in words, nothing changed.
    let late_path = format!("/gm/games/{game}/press/{kept}/strike");
    let late = gm.get(&late_path).await;
    assert_eq!(late.status(), StatusCode::CONFLICT);
    let late = late.text().await.unwrap();
    assert!(late.contains("id=\"refusal\""), "{late}");
    assert!(
        late.contains("its press is on the record and can no longer be struck"),
        "{late}"
    );
    assert!(!late.contains("id=\"strike-form\""), "{late}");
    let forced = gm
        .post(
            &late_path,
            &[
                ("csrf", csrf.as_str()),
                ("confirm", "yes"),
                ("reason", "Late"),
            ],
        )
        .await;
    assert_eq!(forced.status(), StatusCode::CONFLICT);
    assert_eq!(press_of(pool, "Collingwood").await.len(), 1);
    assert_eq!(strikes_audited(pool).await.len(), 1);
    app.stop().await;
}
