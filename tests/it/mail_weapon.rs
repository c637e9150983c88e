//! Mail as a weapon (issue 17, items 7 to 10): what a forger or a player can make Admiralty
//! send or print. A forged From: earns a few lines, within a mailbox's budget however the
//! address is spelled, a domain's and everyone's; Admiralty's own addresses and mail systems'
//! are never answered; workers answering at once never exceed a budget; TELL relays and press
//! have limits of their own, said in the confirmation. Each test counts against the default
//! limits (the table in docs/configuration.md).

use std::time::Duration as StdDuration;

use chrono::Duration;
use server::inbox;
use server::turns::{self, GmAction, StateCache};
use store::PgPool;
use store::games::GameId;
use store::testing::TestDatabase;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, barmy_game, count, outbound, reply_address_of};

/// The documented defaults these tests count against (the table in docs/configuration.md,
/// `server::config::Limits::DEFAULT`): a default changed without its documentation fails them.
const REFUSALS_PER_HOUR: i64 = 3;
const REFUSALS_PER_DOMAIN_PER_HOUR: i64 = 30;
const REFUSALS_IN_ALL_PER_HOUR: i64 = 300;
const TELLS_PER_HOUR: i64 = 20;
const TELLS_RECEIVED_PER_HOUR: i64 = 30;
const TELL_MAX_CHARS: usize = 3000;
const PRESS_CHARS_PER_TURN: i64 = 3000;
const PRESS_ENTRIES_PER_TURN: i64 = 10;

/// A forgery: From `from`, to Admiralty's plain address, no reply token, a line of orders.
fn forged(id: &str, from: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: orders@{DOMAIN}\r\nMessage-ID: <{id}@attacker.example>\r\n\
         Subject: hi\r\n\r\nFIRE B7\r\n"
    )
    .into_bytes()
}

/// A message from the player at `address`, to their reply address `to`.
fn from_player(id: &str, address: &str, to: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {address}\r\nTo: Admiralty <{to}>\r\nMessage-ID: <{id}@example.org>\r\n\
         Subject: Re: turn 1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
    .into_bytes()
}

async fn ingest(pool: &PgPool, raw: &[u8]) {
    inbox::ingest(pool, raw, "smtp", trafalgar(), DOMAIN)
        .await
        .unwrap();
}

async fn store_all(pool: &PgPool, messages: &[Vec<u8>]) {
    for raw in messages {
        inbox::store(pool, raw, &[], "smtp", trafalgar())
            .await
            .unwrap();
    }
}

async fn process(pool: &PgPool) -> usize {
    inbox::process_pending(pool, &StateCache::default(), trafalgar(), DOMAIN)
        .await
        .unwrap()
}

/// Mail queued to addresses at `domain` (any letter case).
async fn sent_to_domain(pool: &PgPool, domain: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM outbound_messages WHERE lower(to_address) LIKE $1")
        .bind(format!("%@{domain}"))
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_forged_sender_gets_a_few_lines_not_the_help() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    crate::inbox::game(pool).await;
    let raw = forged("small", "Victim <victim@victim.example>");
    ingest(pool, &raw).await;
    let mails = outbound(pool).await;
    assert_eq!(mails.len(), 1, "{mails:?}");
    let body = &mails[0].1;
    assert!(
        body.contains("could not tell which game and player"),
        "{body}"
    );
    assert!(body.contains("PASSWORD <your password>"), "{body}");
    // No HELP: not its text, not its list of commands.
    assert!(!body.contains(mail::HELP.trim()), "{body}");
    assert!(!body.contains("UNSUBSCRIBE"), "{body}");
    assert!(
        body.len() < 2 * raw.len() + 200,
        "{} bytes of refusal for a {}-byte forgery:\n{body}",
        body.len(),
        raw.len()
    );
    db.drop_database().await;
}

#[tokio::test]
async fn one_mailbox_however_spelled_gets_one_budget_of_refusals() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    crate::inbox::game(pool).await;
    let spellings = [
        "victim@victim.example",
        "victim+1@victim.example",
        "victim+2@victim.example",
        "\"victim\"@victim.example",
        "VICTIM@victim.example",
        "Victim@VICTIM.EXAMPLE",
        "\"Victim+3\"@Victim.Example",
        "<victim@victim.example.>",
    ];
    for (n, spelling) in spellings.iter().enumerate() {
        for k in 0..4 {
            ingest(pool, &forged(&format!("s{n}-{k}"), spelling)).await;
        }
    }
    assert_eq!(
        sent_to_domain(pool, "victim.example").await,
        REFUSALS_PER_HOUR
    );
    // Gmail, whose owner documents that dots do not matter: one mailbox too.
    for (n, spelling) in [
        "victim@gmail.com",
        "v.i.c.t.i.m@gmail.com",
        "Vic.Tim+x@googlemail.com",
    ]
    .iter()
    .enumerate()
    {
        for k in 0..3 {
            ingest(pool, &forged(&format!("g{n}-{k}"), spelling)).await;
        }
    }
    let gmail: i64 = count(
        pool,
        "SELECT count(*) FROM outbound_messages WHERE lower(to_address) LIKE '%@g%mail.com'",
    )
    .await;
    assert_eq!(gmail, REFUSALS_PER_HOUR);
    // Every message was processed; each refusal not sent is audited with its limit.
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM inbound_messages WHERE status <> 'processed'"
        )
        .await,
        0
    );
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'inbound.reply_suppressed' \
             AND details->>'limit' = 'ADMIRALTY_REFUSALS_PER_HOUR'"
        )
        .await,
        (32 - REFUSALS_PER_HOUR) + (9 - REFUSALS_PER_HOUR)
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_domain_and_the_whole_world_get_one_budget_of_refusals_each() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    crate::inbox::game(pool).await;
    // Many mailboxes of one domain, one forgery each.
    let one_domain: Vec<Vec<u8>> = (0..REFUSALS_PER_DOMAIN_PER_HOUR + 20)
        .map(|n| forged(&format!("d{n}"), &format!("user{n}@domain.example")))
        .collect();
    store_all(pool, &one_domain).await;
    process(pool).await;
    assert_eq!(
        sent_to_domain(pool, "domain.example").await,
        REFUSALS_PER_DOMAIN_PER_HOUR
    );
    // Many domains, one forgery each: everyone together has a budget too.
    let everywhere: Vec<Vec<u8>> = (0..REFUSALS_IN_ALL_PER_HOUR)
        .map(|n| forged(&format!("w{n}"), &format!("user@domain{n}.example")))
        .collect();
    store_all(pool, &everywhere).await;
    process(pool).await;
    assert_eq!(
        count(pool, "SELECT count(*) FROM outbound_messages").await,
        REFUSALS_IN_ALL_PER_HOUR
    );
    db.drop_database().await;
}

#[tokio::test]
async fn admiraltys_own_addresses_and_mail_systems_are_never_answered() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    crate::inbox::game(pool).await;
    let upper = DOMAIN.to_uppercase();
    let own = [
        format!("orders@{DOMAIN}"),
        format!("Admiralty <orders+abcdefghijklmnop@{DOMAIN}>"),
        format!("ORDERS@{upper}"),
        format!("\"orders\"@{DOMAIN}."),
        "\"postmaster\"@elsewhere.example".to_owned(),
        "Mailer-Daemon+x@elsewhere.example".to_owned(),
        "no-reply@elsewhere.example".to_owned(),
    ];
    for (n, from) in own.iter().enumerate() {
        ingest(pool, &forged(&format!("own{n}"), from)).await;
    }
    assert!(outbound(pool).await.is_empty());
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM inbound_messages WHERE status = 'dropped' AND error IS NOT NULL"
        )
        .await,
        own.len() as i64
    );
    db.drop_database().await;
}

#[tokio::test]
async fn a_player_subscribed_at_admiraltys_own_address_gets_no_confirmation() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let own = format!("orders+gm@{DOMAIN}");
    let game = barmy_game(
        pool,
        ("own", "Own"),
        "Own Barmy",
        &[(own.as_str(), "Admiral Loop"), ("john@example.org", "John")],
        3,
    )
    .await;
    let to = reply_address_of(pool, game, 1).await;
    ingest(pool, &from_player("loop-1", &own, &to, "G13, K19\r\n")).await;
    assert_eq!(count(pool, "SELECT count(*) FROM orders").await, 1);
    assert!(outbound(pool).await.is_empty());
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'inbound.reply_suppressed'"
        )
        .await,
        1
    );
    db.drop_database().await;
}

/// Waits until `at_least` lock requests of this database are waiting.
async fn until_waiting(pool: &PgPool, at_least: i64) {
    let mut waiting = 0;
    for _ in 0..3000 {
        waiting = sqlx::query_scalar(
            "SELECT count(*) FROM pg_locks WHERE NOT granted \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if waiting >= at_least {
            return;
        }
        tokio::time::sleep(StdDuration::from_millis(10)).await;
    }
    panic!("only {waiting} lock requests waiting, not {at_least}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_answering_at_once_never_exceed_a_mailboxs_budget() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    crate::inbox::game(pool).await;
    // Three batches' worth of forgeries from one address.
    let flood: Vec<Vec<u8>> = (0..96)
        .map(|n| forged(&format!("race{n}"), "race@race.example"))
        .collect();
    store_all(pool, &flood).await;
    // Hold the outbox so that three workers reach it together, each with a batch of its own,
    // before any of them has committed what it queued.
    let mut holder = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE outbound_messages IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *holder)
        .await
        .unwrap();
    let workers_pool = store::connect(&db.url, 8).await.unwrap();
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let pool = workers_pool.clone();
            tokio::spawn(async move {
                inbox::process_pending(&pool, &StateCache::default(), trafalgar(), DOMAIN).await
            })
        })
        .collect();
    until_waiting(pool, 3).await;
    holder.rollback().await.unwrap();
    let mut processed = 0;
    for worker in workers {
        processed += worker.await.unwrap().unwrap();
    }
    assert_eq!(processed, 96);
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE to_address = 'race@race.example'"
        )
        .await,
        REFUSALS_PER_HOUR
    );
    db.drop_database().await;
}

/// A game of five players: Fred, John and three more.
async fn five_players(pool: &PgPool) -> GameId {
    barmy_game(
        pool,
        ("tells", "Tells"),
        "Tell Barmy",
        &[
            ("fred@example.org", "Fred Bloggs"),
            ("john@example.org", "John Smith"),
            ("anne@example.org", "Anne Bonny"),
            ("mary@example.org", "Mary Read"),
            ("jack@example.org", "Jack Rackham"),
        ],
        3,
    )
    .await
}

/// `n` TELL lines to `to`, numbered from `first`: each message's text differs (a message with
/// the same text as one already processed is a re-sent copy, whose TELLs are not relayed again).
fn tells(to: &str, first: usize, n: usize) -> String {
    (first..first + n)
        .map(|k| format!("TELL {to}: parley {k}?\r\n\r\n"))
        .collect()
}

#[tokio::test]
async fn tell_relays_are_limited_per_sender_and_per_recipient_and_said_so() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = five_players(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    // Fred tells John 30 times, in three messages.
    for m in 0..3 {
        let raw = from_player(
            &format!("fred-tell-{m}"),
            "fred@example.org",
            &fred,
            &tells("John Smith", 10 * m, 10),
        );
        ingest(pool, &raw).await;
    }
    let to_john = "SELECT count(*) FROM outbound_messages WHERE to_address = 'john@example.org'";
    assert_eq!(count(pool, to_john).await, TELLS_PER_HOUR);
    let last: String = sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE to_address = 'fred@example.org' \
         ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(
        last.contains("your message to John Smith was NOT relayed"),
        "{last}"
    );
    assert!(
        last.contains("at most 20 private messages an hour"),
        "{last}"
    );
    // Others tell John too: he gets no more than his own budget, and they are told why.
    for (n, engine_id, address) in [(0, 3, "anne@example.org"), (1, 4, "mary@example.org")] {
        let to = reply_address_of(pool, game, engine_id).await;
        let raw = from_player(
            &format!("other-tell-{n}"),
            address,
            &to,
            &tells("John Smith", 0, 8),
        );
        ingest(pool, &raw).await;
    }
    assert_eq!(count(pool, to_john).await, TELLS_RECEIVED_PER_HOUR);
    let mary: String = sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE to_address = 'mary@example.org'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(
        mary.contains("John Smith has been sent the 30 private messages an hour"),
        "{mary}"
    );
    // Each relay not sent is audited.
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM audit_log WHERE action = 'tell.suppressed'"
        )
        .await,
        30 + 16 - TELLS_RECEIVED_PER_HOUR
    );
    // Jack may still tell Anne, but not at any length.
    let jack = reply_address_of(pool, game, 5).await;
    ingest(
        pool,
        &from_player(
            "jack-1",
            "jack@example.org",
            &jack,
            &tells("Anne Bonny", 0, 1),
        ),
    )
    .await;
    let long = format!("TELL Anne Bonny: {}\r\n", "a".repeat(TELL_MAX_CHARS + 1));
    ingest(
        pool,
        &from_player("jack-2", "jack@example.org", &jack, &long),
    )
    .await;
    let reply = last_to(pool, "jack@example.org").await;
    assert!(
        reply.contains("NOT relayed: it has 3001 characters"),
        "{reply}"
    );
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE to_address = 'anne@example.org' \
             AND starts_with(idempotency_key, 'tell:')"
        )
        .await,
        1
    );
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_relaying_at_once_never_exceed_a_recipients_budget() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = five_players(pool).await;
    // Three players each fill a batch of their own with TELLs to John: the batches share no
    // sender, so nothing but the budgets keeps them apart.
    let mut messages = Vec::new();
    for (engine_id, address) in [
        (3, "anne@example.org"),
        (4, "mary@example.org"),
        (5, "jack@example.org"),
    ] {
        let to = reply_address_of(pool, game, engine_id).await;
        for n in 0..32 {
            let id = format!("{engine_id}-tell-{n}");
            messages.push(from_player(&id, address, &to, &tells("John Smith", n, 1)));
        }
    }
    store_all(pool, &messages).await;
    let mut holder = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE outbound_messages IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *holder)
        .await
        .unwrap();
    let workers_pool = store::connect(&db.url, 8).await.unwrap();
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let pool = workers_pool.clone();
            tokio::spawn(async move {
                inbox::process_pending(&pool, &StateCache::default(), trafalgar(), DOMAIN).await
            })
        })
        .collect();
    until_waiting(pool, 3).await;
    holder.rollback().await.unwrap();
    for worker in workers {
        worker.await.unwrap().unwrap();
    }
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM outbound_messages WHERE to_address = 'john@example.org'"
        )
        .await,
        TELLS_RECEIVED_PER_HOUR
    );
    db.drop_database().await;
}

/// The press of the subscriber at `email`: entries and characters.
async fn press_of(pool: &PgPool, email: &str) -> (i64, i64) {
    sqlx::query_as(
        "SELECT count(*), coalesce(sum(char_length(x.text)), 0)::bigint FROM press x \
         JOIN players p ON p.id = x.player_id JOIN subscribers s ON s.id = p.subscriber_id \
         WHERE s.email = $1",
    )
    .bind(email)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// The last mail queued to `email`.
async fn last_to(pool: &PgPool, email: &str) -> String {
    sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE to_address = $1 ORDER BY id DESC LIMIT 1",
    )
    .bind(email)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn press_is_limited_per_player_and_turn_by_mail_and_in_orders_and_the_report_keeps_it() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = crate::inbox::game(pool).await;
    // John's one enormous press: cut to the turn's room, and said so.
    let john = reply_address_of(pool, game, 2).await;
    let huge = "Rule Britannia ".repeat(14_000);
    let raw = from_player(
        "press-huge",
        "john@example.org",
        &john,
        &format!("PRESS {huge}\r\n"),
    );
    ingest(pool, &raw).await;
    let (entries, chars) = press_of(pool, "john@example.org").await;
    assert_eq!(entries, 1);
    assert!(chars <= PRESS_CHARS_PER_TURN, "{chars} characters kept");
    let reply = last_to(pool, "john@example.org").await;
    let start = &reply[..reply.len().min(600)];
    assert!(reply.contains("CUT to"), "{start}");
    assert!(
        reply.contains("at most 3000 characters of press, in at most 10 entries"),
        "{start}"
    );
    assert!(reply.len() < 4000, "the whole press was echoed back");
    // Fred's many entries, by PRESS lines and in orders: no more than the turn allows. (Only
    // the first message has orders: new orders withdraw the press sent before them.)
    let fred = reply_address_of(pool, game, 1).await;
    for m in 0..4 {
        let mut body = if m == 0 {
            format!("G13, K19 Orders with press {m}\r\n\r\n")
        } else {
            String::new()
        };
        for k in 0..4 {
            body.push_str(&format!("PRESS Bulletin {m}.{k}\r\n\r\n"));
        }
        let raw = from_player(&format!("press-many-{m}"), "fred@example.org", &fred, &body);
        ingest(pool, &raw).await;
    }
    let (entries, chars) = press_of(pool, "fred@example.org").await;
    assert_eq!(entries, PRESS_ENTRIES_PER_TURN);
    assert!(chars <= PRESS_CHARS_PER_TURN, "{chars} characters");
    let reply = last_to(pool, "fred@example.org").await;
    assert!(reply.contains("NOT accepted"), "{reply}");
    assert!(reply.contains("the 10 press entries a player"), "{reply}");
    // The report prints no more than that.
    turns::gm_action(
        pool,
        trafalgar() + Duration::minutes(5),
        game,
        GmAction::ResolveNow,
        "gm",
        DOMAIN,
    )
    .await
    .unwrap();
    let report: String = sqlx::query_scalar("SELECT text FROM published_reports")
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(
        report.matches("Rule Britannia").count() <= PRESS_CHARS_PER_TURN as usize / 15,
        "the report printed more press than the limit"
    );
    let freds = report.matches("Bulletin").count() + report.matches("Orders with press").count();
    assert_eq!(freds as i64, PRESS_ENTRIES_PER_TURN, "{report}");
    assert!(
        report.len() < 3 * PRESS_CHARS_PER_TURN as usize + 4000,
        "a {}-byte report",
        report.len()
    );
    db.drop_database().await;
}

#[tokio::test]
async fn press_from_the_web_form_is_limited_too_even_when_sent_all_at_once() {
    use crate::console::hidden_csrf;
    use crate::players::{NELSON, VILLENEUVE, fleet, logged_in};
    use reqwest::StatusCode;
    use reqwest::header::{COOKIE, LOCATION};

    let fleet = fleet().await;
    let app = &fleet.app;
    let pool = &app.db.pool;
    let page_path = format!("/me/games/{}", fleet.barmy);
    let mut nelson = logged_in(app, NELSON).await;
    let page = nelson.get_text(&page_path).await;
    assert!(
        page.contains("at most 3000 characters of press, in at most 10 entries"),
        "the form does not state the limits"
    );
    // Twelve forms of 400 characters each, all at once.
    let csrf = hidden_csrf(&page);
    let cookie = nelson
        .cookies
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ");
    let posts: Vec<_> = (0..12)
        .map(|n| {
            let request = nelson
                .http
                .post(format!("{}{page_path}/press", nelson.base))
                .header(COOKIE, cookie.clone())
                .form(&[
                    ("csrf", csrf.clone()),
                    ("press", format!("{n:02} {}", "x".repeat(397))),
                ]);
            tokio::spawn(async move { request.send().await.unwrap().status() })
        })
        .collect();
    for post in posts {
        let status = post.await.unwrap();
        assert!(
            status == StatusCode::SEE_OTHER || status == StatusCode::UNPROCESSABLE_ENTITY,
            "{status}"
        );
    }
    let (entries, chars) = press_of(pool, NELSON).await;
    assert!(entries <= PRESS_ENTRIES_PER_TURN, "{entries} entries");
    assert!(chars <= PRESS_CHARS_PER_TURN, "{chars} characters");
    // Once the room is used, the form says so and keeps nothing.
    let refused = nelson
        .post(
            &format!("{page_path}/press"),
            &[("csrf", &csrf), ("press", "One more word.")],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let text = refused.text().await.unwrap();
    assert!(text.contains("Your press was not accepted"), "{text}");
    assert_eq!(press_of(pool, NELSON).await, (entries, chars));
    // A press longer than the room is cut, and the page says so.
    let mut villeneuve = logged_in(app, VILLENEUVE).await;
    let page = villeneuve.get_text(&page_path).await;
    let long = "Vive l'Empereur ! ".repeat(300);
    let cut = villeneuve
        .post(
            &format!("{page_path}/press"),
            &[("csrf", &hidden_csrf(&page)), ("press", &long)],
        )
        .await;
    assert_eq!(cut.status(), StatusCode::SEE_OTHER);
    let location = cut.headers()[LOCATION].to_str().unwrap().to_owned();
    assert!(location.ends_with("?done=press-cut"), "{location}");
    let page = villeneuve.get_text(&location).await;
    assert!(page.contains("so it was cut"), "no notice of the cut");
    let (entries, chars) = press_of(pool, VILLENEUVE).await;
    assert_eq!(entries, 1);
    assert!(
        (PRESS_CHARS_PER_TURN - 20..=PRESS_CHARS_PER_TURN).contains(&chars),
        "{chars} characters kept"
    );
    let room = format!(
        "You have {} characters and 9 entries left this turn.",
        PRESS_CHARS_PER_TURN - chars
    );
    assert!(page.contains(&room), "{room}");
    app_stop(fleet).await;
}

async fn app_stop(fleet: crate::players::Fleet) {
    fleet.app.stop().await;
}
