//! The zine's issue (docs/issues.md): what it prints, who gets it by mail, letters by mail and
//! their moderation, the rhythm, and the golden plain-text issue.

use chrono::Duration;
use schedule::Schedule;
use server::issues::{self, IssueError};
use server::outbox::{self, Relay};
use server::turns::{GmAction, gm_action};
use store::PgPool;
use store::games::GameId;
use store::testing::TestDatabase;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, game, message, reply_address_of};
use crate::outbox::{SmtpSink, free_port};

pub(crate) const BASE: &str = "https://admiralty.example.org";

pub(crate) async fn ingest(pool: &PgPool, id: &str, game: GameId, engine_id: i64, body: &str) {
    let to = reply_address_of(pool, game, engine_id).await;
    let raw = message(id, &to, "", body);
    server::inbox::ingest(pool, &raw, "pipe", trafalgar(), DOMAIN)
        .await
        .unwrap();
}

async fn letter_ids(pool: &PgPool) -> Vec<(store::issues::LetterId, String)> {
    sqlx::query_as("SELECT id, text FROM zine_letters ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

/// (key prefix, to) of every queued mail of this kind.
pub(crate) async fn queued(pool: &PgPool, kind: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT to_address FROM outbound_messages WHERE idempotency_key LIKE $1 ORDER BY to_address",
    )
    .bind(format!("{kind}:%"))
    .fetch_all(pool)
    .await
    .unwrap()
}

/// The "Mailed" zine (Fred and John play "Mailed Barmy"), issues by hand, a turn with press
/// resolved, a letter from each player (Fred's approved, John's turned down), John choosing
/// per-game reports by mail.
pub(crate) async fn a_zine_with_a_turn_and_letters(pool: &PgPool) -> (store::zines::Zine, GameId) {
    let game = game(pool).await;
    let zine = issues::find_zine(pool, "mailed").await.unwrap();
    issues::set_rhythm(pool, trafalgar(), &zine, Some(Schedule::Manual), "nelson")
        .await
        .unwrap();
    ingest(
        pool,
        "fred-1",
        game,
        1,
        "G13, K19\r\nPRESS Steady, lads.\r\n\r\nLETTER Sir, <script>alert(1)</script> the dice\r\nare *rigged*.\r\n",
    )
    .await;
    ingest(
        pool,
        "john-1",
        game,
        2,
        "A1, B2\r\nLETTER This one the GM will not print.\r\n\r\nRECEIVE REPORTS\r\n",
    )
    .await;
    let letters = letter_ids(pool).await;
    assert_eq!(letters.len(), 2, "{letters:?}");
    issues::moderate_letter(pool, trafalgar(), &zine, letters[0].0, true, "nelson")
        .await
        .unwrap();
    issues::moderate_letter(pool, trafalgar(), &zine, letters[1].0, false, "nelson")
        .await
        .unwrap();
    issues::set_editorial(
        pool,
        trafalgar(),
        &zine,
        "Welcome to **issue one**. <b>Bold</b> claims\nabout <img src=x onerror=alert(2)> the fleet.",
        "nelson",
    )
    .await
    .unwrap();
    gm_action(
        pool,
        trafalgar() + Duration::hours(1),
        game,
        GmAction::ResolveNow,
        "nelson",
        DOMAIN,
    )
    .await
    .unwrap();
    (zine, game)
}

#[tokio::test]
async fn an_issue_prints_the_reports_since_the_last_issue_the_editorial_and_approved_letters_only()
{
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (zine, _game) = a_zine_with_a_turn_and_letters(pool).await;
    // The turn's report went by mail only to John, who chose reports; Fred, who chose nothing,
    // gets the zine's default, the issue. Both got their own position.
    assert_eq!(queued(pool, "report").await, ["john@example.org"]);
    assert_eq!(
        queued(pool, "position").await,
        ["fred@example.org", "john@example.org"]
    );

    let published = issues::publish_now(
        pool,
        trafalgar() + Duration::hours(2),
        &zine,
        Some(DOMAIN),
        BASE,
        "nelson",
    )
    .await
    .unwrap();
    assert_eq!(published.number, 1);
    assert_eq!(published.mails_queued, 1);
    assert_eq!(queued(pool, "issue").await, ["fred@example.org"]);

    let issue = store::issues::by_number(pool, zine.id, 1)
        .await
        .unwrap()
        .unwrap();
    let text = issue.text.unwrap();
    let html = issue.html.unwrap();
    assert!(text.contains("MAILED BARMY (Barmy Battleships)"), "{text}");
    assert!(
        text.contains("Fred Bloggs | G13, K19 | miss, miss"),
        "{text}"
    );
    assert!(text.contains("Steady, lads."), "{text}");
    assert!(text.contains("are *rigged*."), "{text}");
    assert!(text.contains("-- Fred Bloggs"), "{text}");
    assert!(!text.contains("will not print"), "{text}");
    assert!(text.contains("Welcome to **issue one**."), "{text}");
    assert!(text.contains("Next deadline: "), "{text}");
    assert!(text.contains("GAMES OPEN FOR SIGN-UP"), "{text}");
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "a line over 80 columns: {line:?}"
        );
    }
    // Letters and editorial are Markdown with raw HTML shown as text, never markup.
    assert!(html.contains("<strong>issue one</strong>"), "{html}");
    assert!(html.contains("<em>rigged</em>"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<img src=x"), "{html}");
    assert!(!html.contains("<b>"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
    // Nothing hidden: no ship position, only what the public report shows.
    let public_report: String = sqlx::query_scalar("SELECT text FROM published_reports")
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(text.contains(public_report.trim_end()));
    assert!(!text.contains("Your fleet"), "{text}");

    // The next issue does not print the same report or letter again.
    let second = issues::publish_now(
        pool,
        trafalgar() + Duration::hours(3),
        &zine,
        Some(DOMAIN),
        BASE,
        "nelson",
    )
    .await
    .unwrap();
    assert_eq!(second.number, 2);
    let again = store::issues::by_number(pool, zine.id, 2)
        .await
        .unwrap()
        .unwrap()
        .text
        .unwrap();
    // A game with nothing new is one line, not a section of its own (issue 27).
    assert!(
        again.contains("NO TURN RESOLVED SINCE THE LAST ISSUE\n"),
        "{again}"
    );
    assert!(
        // The turn resolved before its deadline of the 23rd: the next keeps the schedule's
        // slots, a week after that deadline (issue 27).
        again.contains(
            "\nMailed Barmy (Barmy Battleships): next deadline Wednesday 30 October 1805"
        ),
        "{again}"
    );
    assert!(
        !again.contains("MAILED BARMY (Barmy Battleships)"),
        "{again}"
    );
    assert!(!again.contains("Steady, lads."), "{again}");
    assert!(!again.contains("rigged"), "{again}");

    // Golden: the first issue, byte for byte (ISSUE_GOLDEN_BLESS=1 rewrites it after a
    // deliberate change).
    let golden =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/it/golden/issue-1.txt");
    if std::env::var_os("ISSUE_GOLDEN_BLESS").is_some() {
        std::fs::write(&golden, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap();
    assert_eq!(
        text,
        expected,
        "the issue differs from {}",
        golden.display()
    );
    db.drop_database().await;
}

#[tokio::test]
async fn letters_and_mail_choices_by_mail_are_answered_and_need_a_proven_sender() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    // A From: header alone proves nothing: no letter is stored.
    let raw = message(
        "forged",
        &format!("orders@{DOMAIN}"),
        "",
        "LETTER I am Fred, honest.\r\n",
    );
    server::inbox::ingest(pool, &raw, "pipe", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert!(letter_ids(pool).await.is_empty());
    // A letter with no text is refused with the reason.
    ingest(pool, "empty", game, 1, "LETTER\r\n").await;
    assert!(letter_ids(pool).await.is_empty());
    let answers: Vec<String> = sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE to_address = 'fred@example.org' ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(
        answers
            .iter()
            .any(|a| a.contains("LETTER needs the text of the letter")),
        "{answers:?}"
    );
    ingest(
        pool,
        "real",
        game,
        1,
        "LETTER Sir,\r\nmore ships!\r\n\r\nRECEIVE REPORTS\r\n",
    )
    .await;
    assert_eq!(letter_ids(pool).await[0].1, "Sir,\nmore ships!");
    let choice: Option<String> =
        sqlx::query_scalar("SELECT mail_choice FROM subscribers WHERE email = 'fred@example.org'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(choice.as_deref(), Some("reports"));
    db.drop_database().await;
}

#[tokio::test]
async fn a_zine_without_issues_cannot_publish_one_and_its_subscribers_keep_per_game_reports() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let zine = issues::find_zine(pool, "mailed").await.unwrap();
    let refused = issues::publish_now(pool, trafalgar(), &zine, Some(DOMAIN), BASE, "nelson").await;
    assert!(
        matches!(refused, Err(IssueError::NoIssues(_))),
        "{refused:?}"
    );
    gm_action(
        pool,
        trafalgar(),
        game,
        GmAction::ResolveNow,
        "nelson",
        DOMAIN,
    )
    .await
    .unwrap();
    assert_eq!(
        queued(pool, "report").await,
        ["fred@example.org", "john@example.org"]
    );
    db.drop_database().await;
}

#[tokio::test]
async fn the_rhythm_publishes_an_issue_when_due_and_skips_one_with_nothing_new() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let zine = issues::find_zine(pool, "mailed").await.unwrap();
    let next = issues::set_rhythm(
        pool,
        trafalgar(),
        &zine,
        Some("every 7 days".parse().unwrap()),
        "nelson",
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(next, trafalgar() + Duration::days(7));
    // Not due yet.
    let early = issues::publish_due(pool, next - Duration::minutes(1), DOMAIN, BASE)
        .await
        .unwrap();
    assert!(early.is_empty());
    gm_action(
        pool,
        trafalgar(),
        game,
        GmAction::ResolveNow,
        "nelson",
        DOMAIN,
    )
    .await
    .unwrap();
    let due = issues::publish_due(pool, next, DOMAIN, BASE).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].number, 1);
    assert_eq!(due[0].mails_queued, 2);
    // A second worker at the same moment finds nothing to do.
    assert!(
        issues::publish_due(pool, next, DOMAIN, BASE)
            .await
            .unwrap()
            .is_empty()
    );
    // A week later nothing new happened: no issue, the rhythm moves on.
    let quiet = issues::publish_due(pool, next + Duration::days(7), DOMAIN, BASE)
        .await
        .unwrap();
    assert!(quiet.is_empty());
    let settings = issues::settings(pool, zine.id).await.unwrap();
    assert_eq!(settings.next_issue_at, Some(next + Duration::days(14)));
    db.drop_database().await;
}

#[tokio::test]
async fn a_real_smtp_peer_receives_one_issue_per_subscriber_who_chose_it_and_no_per_game_report() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let (zine, _game) = a_zine_with_a_turn_and_letters(pool).await;
    issues::publish_now(
        pool,
        trafalgar() + Duration::hours(2),
        &zine,
        Some(DOMAIN),
        BASE,
        "nelson",
    )
    .await
    .unwrap();
    let sink = SmtpSink::start(free_port());
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port),
        "Admiralty <orders@zine.example.org>",
    )
    .unwrap();
    let done = outbox::deliver_due(pool, &relay, trafalgar() + Duration::hours(3))
        .await
        .unwrap();
    assert_eq!(done.failed, 0);
    let deliveries = sink.deliveries();
    let subjects = |who: &str| -> Vec<String> {
        deliveries
            .iter()
            .filter(|(to, _)| to == who)
            .filter_map(|(_, m)| {
                m.lines()
                    .find_map(|l| l.strip_prefix("Subject: ").map(str::to_owned))
            })
            .collect()
    };
    let fred = subjects("fred@example.org");
    let issue_count = fred.iter().filter(|s| s.contains("issue 1")).count();
    assert_eq!(issue_count, 1, "{fred:?}");
    assert!(
        !fred.iter().any(|s| s.contains("turn 1 report")),
        "{fred:?}"
    );
    assert!(fred.iter().any(|s| s.contains("your position")), "{fred:?}");
    let john = subjects("john@example.org");
    assert!(!john.iter().any(|s| s.contains("issue 1")), "{john:?}");
    assert_eq!(
        john.iter().filter(|s| s.contains("turn 1 report")).count(),
        1,
        "{john:?}"
    );
    let (_, issue) = deliveries
        .iter()
        .find(|(to, m)| to == "fred@example.org" && m.contains("issue 1"))
        .unwrap();
    assert!(issue.contains("multipart/alternative"), "{issue}");
    assert!(issue.contains("text/html"), "{issue}");
    assert!(
        issue.contains(&format!("<issue.{}.1@{DOMAIN}>", zine.id)),
        "{issue}"
    );
    drop(sink);
    db.drop_database().await;
}

#[tokio::test]
async fn published_issues_are_on_the_web_as_html_text_print_and_atom_and_the_draft_only_in_the_gm_preview()
 {
    let app = crate::helpers::TestApp::spawn().await;
    let pool = app.db.pool.clone();
    let (zine, _game) = a_zine_with_a_turn_and_letters(&pool).await;
    issues::publish_now(
        &pool,
        trafalgar() + Duration::hours(2),
        &zine,
        Some(DOMAIN),
        "",
        "nelson",
    )
    .await
    .unwrap();
    // The next draft's editorial, not public yet.
    issues::set_editorial(
        &pool,
        trafalgar(),
        &zine,
        "A secret scoop for issue two.",
        "nelson",
    )
    .await
    .unwrap();

    let page = app.get("/zines/mailed/issues/1").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Mailed, issue 1"), "{html}");
    assert!(html.contains("Steady, lads."), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("secret scoop"), "{html}");
    let text = app.get("/zines/mailed/issues/1.txt").await;
    assert_eq!(text.status(), 200);
    let stored = store::issues::by_number(&pool, zine.id, 1)
        .await
        .unwrap()
        .unwrap()
        .text
        .unwrap();
    assert_eq!(text.text().await.unwrap(), stored);
    let print = app.get("/zines/mailed/issues/1/print").await;
    assert_eq!(print.status(), 200);
    let print = print.text().await.unwrap();
    assert!(print.contains("href=\"/static/admiralty.css\""), "{print}");
    let style_sheet = app.get("/static/admiralty.css").await.text().await.unwrap();
    assert!(style_sheet.contains("break-before: page"), "{style_sheet}");
    assert!(style_sheet.contains("grayscale(1)"), "{style_sheet}");
    let feed = app
        .get("/zines/mailed/issues.atom")
        .await
        .text()
        .await
        .unwrap();
    assert!(feed.contains("/zines/mailed/issues/1</id>"), "{feed}");
    let zine_page = app.get("/zines/mailed").await.text().await.unwrap();
    assert!(
        zine_page.contains("/zines/mailed/issues/1\">Issue 1</a>"),
        "{zine_page}"
    );

    // The draft (issue 2) is nobody's page but the GM's preview.
    assert_eq!(app.get("/zines/mailed/issues/2").await.status(), 404);
    assert_eq!(app.get("/zines/mailed/issues/2.txt").await.status(), 404);
    assert_eq!(app.get("/zines/mailed/issues/2/print").await.status(), 404);
    let mut reader = crate::console::Browser::new(&app);
    let refused = reader.get("/gm/zines/mailed/issues/preview").await;
    assert!(refused.status().is_redirection(), "{}", refused.status());
    assert!(!refused.text().await.unwrap().contains("secret scoop"));
    crate::console::add_gm(&pool, "nelson").await;
    let mut gm = crate::console::Browser::new(&app);
    gm.login("nelson", crate::console::PASSWORD).await;
    let preview = gm.get("/gm/zines/mailed/issues/preview").await;
    assert_eq!(preview.status(), 200);
    let preview = preview.text().await.unwrap();
    assert!(preview.contains("secret scoop"), "{preview}");
    assert!(preview.contains("issue 2"), "{preview}");
    assert!(preview.contains("not published"), "{preview}");
    app.stop().await;
}
