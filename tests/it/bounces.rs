//! Bounces (issue 29 item 4) with real peers: Debian's Postfix is the relay Admiralty sends
//! through, run privately (its own config and queue directories under a temporary directory,
//! loopback ports) and told to refuse one domain (`transport_maps` with `error:`), so that
//! Postfix itself writes the DSN to the signed return path and delivers it to Admiralty's SMTP
//! listener. And, through the pipe door: a vacation reply, a forged tag, an ARF complaint.
//! `./scripts/test` installs Postfix (scripts/lib/postfix.sh).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use chrono::Duration;
use reqwest::StatusCode;
use server::outbox::{self, Relay};
use server::smtp::{self, SmtpSettings};
use server::{Clock, inbox};
use store::PgPool;
use store::outbox::{Headers, NewOutbound};
use tokio::net::TcpListener;
use tokio::sync::Notify;

use crate::console::{Browser, PASSWORD, add_gm};
use crate::helpers::TestApp;
use crate::outbox::free_port;

const DOMAIN: &str = "zine.example";
const REFUSED: &str = "fred@refused.example";

/// A private Postfix instance; stopped (and its directory removed) when dropped.
struct Postfix {
    dir: PathBuf,
    port: u16,
}

impl Postfix {
    /// Listens on a free loopback port; refuses `refused.example` (error:), throws away
    /// `ok.example` (discard:), and delivers `zine.example` to `admiralty_port`.
    fn start(admiralty_port: u16) -> Postfix {
        let dir = std::env::temp_dir().join(format!("admiralty-postfix-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let conf = dir.join("conf");
        std::fs::create_dir_all(&conf).unwrap();
        // Postfix makes what is inside them (owned as it wants) but not the directories.
        std::fs::create_dir_all(dir.join("queue")).unwrap();
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let owned = Command::new("chown")
            .arg("postfix")
            .arg(dir.join("data"))
            .status();
        assert!(
            owned.is_ok_and(|s| s.success()),
            "chown postfix (the test runs as root)"
        );
        let port = free_port();
        let d = dir.display();
        std::fs::write(
            conf.join("main.cf"),
            format!(
                "compatibility_level = 3.6\n\
                 queue_directory = {d}/queue\ndata_directory = {d}/data\n\
                 meta_directory = /etc/postfix\nmail_owner = postfix\nsetgid_group = postdrop\n\
                 myhostname = relay.test\nmydomain = relay.test\nmyorigin = relay.test\n\
                 mydestination =\ninet_interfaces = 127.0.0.1\ninet_protocols = ipv4\n\
                 mynetworks = 127.0.0.0/8\nsmtputf8_enable = no\n\
                 maillog_file = {d}/maillog\nmaillog_file_prefixes = {d}\n\
                 transport_maps = texthash:{d}/conf/transport\n\
                 smtpd_reject_unlisted_recipient = no\nsmtp_dns_support_level = disabled\n\
                 queue_run_delay = 1s\nminimal_backoff_time = 1s\nmaximal_backoff_time = 2s\n"
            ),
        )
        .unwrap();
        std::fs::write(
            conf.join("transport"),
            format!(
                "refused.example error:5.1.1 mailbox unavailable\n\
                 ok.example discard:\n{DOMAIN} smtp:[127.0.0.1]:{admiralty_port}\n"
            ),
        )
        .unwrap();
        let master = std::fs::read_to_string("/usr/share/postfix/master.cf.dist")
            .expect("Debian's postfix package is needed (scripts/lib/postfix.sh installs it)");
        let master = master.replace(
            "smtp      inet  n       -       y       -       -       smtpd",
            &format!("127.0.0.1:{port} inet n - n - - smtpd"),
        );
        std::fs::write(conf.join("master.cf"), master).unwrap();
        let status = Command::new("postfix")
            .args(["-c", &conf.display().to_string(), "start"])
            .status()
            .expect("running postfix");
        assert!(status.success(), "postfix did not start: see {d}/maillog");
        let postfix = Postfix { dir, port };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < StdDuration::from_secs(20),
                "postfix never listened"
            );
            std::thread::sleep(StdDuration::from_millis(50));
        }
        postfix
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("maillog")).unwrap_or_default()
    }
}

impl Drop for Postfix {
    fn drop(&mut self) {
        let conf = self.dir.join("conf");
        let _ = Command::new("postfix")
            .args(["-c", &conf.display().to_string(), "stop"])
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Admiralty's listener and an inbox worker, as `gm serve` runs them; the listener's port.
async fn start_listener(pool: &PgPool, clock: Arc<dyn Clock>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let stored = Arc::new(Notify::new());
    tokio::spawn(smtp::run(
        listener,
        pool.clone(),
        clock.clone(),
        SmtpSettings::new(DOMAIN, 1_000_000),
        stored.clone(),
    ));
    tokio::spawn(inbox::worker(
        pool.clone(),
        server::turns::StateCache::default(),
        clock,
        DOMAIN.to_owned(),
        stored,
        StdDuration::from_millis(200),
    ));
    port
}

async fn zine_with(pool: &PgPool, addresses: &[String]) -> store::zines::Zine {
    let now = crate::helpers::trafalgar();
    let slug = store::ZineSlug::parse("gazette").unwrap();
    let zine = store::zines::insert(pool, &slug, "Gazette", now)
        .await
        .unwrap();
    for (n, address) in addresses.iter().enumerate() {
        let new = store::subscribers::NewSubscriber {
            zine_id: zine.id,
            email: store::EmailAddress::parse(address).unwrap(),
            display_name: store::DisplayName::parse(&format!("Reader {n}")).unwrap(),
        };
        store::subscribers::insert(pool, &new, now).await.unwrap();
    }
    zine
}

/// Queues one circular (one Message-ID, one shared body) to `addresses`, as a report's fan-out.
async fn queue_circular(
    pool: &PgPool,
    key: &str,
    addresses: &[String],
    now: chrono::DateTime<chrono::Utc>,
) {
    let mut tx = pool.begin().await.unwrap();
    let body = store::outbox::insert_shared_body(&mut *tx, "Turn 3 report.\n", None, now)
        .await
        .unwrap();
    let headers = Headers::default();
    let message_id = format!("<{key}@{DOMAIN}>");
    let keys: Vec<String> = (0..addresses.len()).map(|n| format!("{key}:{n}")).collect();
    let messages: Vec<NewOutbound<'_>> = addresses
        .iter()
        .zip(&keys)
        .map(|(to, k)| NewOutbound {
            message_id: &message_id,
            idempotency_key: k,
            to_address: to,
            subject: "Turn 3 report",
            body_text: "",
            body_html: None,
            headers: &headers,
        })
        .collect();
    store::outbox::enqueue_many(&mut tx, &messages, Some(body), now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

async fn queue_one(pool: &PgPool, key: &str, to: &str, now: chrono::DateTime<chrono::Utc>) {
    let message_id = format!("<{key}@{DOMAIN}>");
    let new = NewOutbound {
        message_id: &message_id,
        idempotency_key: key,
        to_address: to,
        subject: "Your position",
        body_text: "Your position.\n",
        body_html: None,
        headers: &Headers::default(),
    };
    store::outbox::enqueue(pool, &new, now).await.unwrap();
}

async fn scalar<T>(pool: &PgPool, sql: &'static str) -> T
where
    T: for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Send + Unpin,
{
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

/// Waits until `count` bounces were taken (their messages dropped by the inbox).
async fn until_taken(pool: &PgPool, count: i64, postfix: &Postfix) {
    let started = Instant::now();
    loop {
        let taken: i64 = scalar(
            pool,
            "SELECT count(*) FROM inbound_messages WHERE status <> 'new'",
        )
        .await;
        if taken >= count {
            return;
        }
        assert!(
            started.elapsed() < StdDuration::from_secs(60),
            "{taken} of {count} bounces came back; postfix's log:\n{}",
            postfix.log()
        );
        tokio::time::sleep(StdDuration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn postfix_bounces_suspend_the_address_and_the_console_shows_it() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let clock: Arc<dyn Clock> = app.clock.clone();
    let mut readers: Vec<String> = (0..99).map(|n| format!("reader{n}@ok.example")).collect();
    readers.push(REFUSED.to_owned());
    let zine = zine_with(pool, &readers).await;
    let postfix = Postfix::start(start_listener(pool, clock.clone()).await);
    let key = server::bounces::tag_key(pool, clock.now()).await.unwrap();
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", postfix.port),
        &format!("Admiralty <orders@{DOMAIN}>"),
    )
    .unwrap()
    .with_return_paths(key);

    // Day 1: a circular to 100 in one transaction, one of them refused: one DSN, naming him.
    queue_circular(pool, "report-1", &readers, clock.now()).await;
    let done = outbox::deliver_due(pool, &relay, clock.now())
        .await
        .unwrap();
    assert_eq!((done.sent, done.transactions), (100, 1), "{done:?}");
    until_taken(pool, 1, &postfix).await;
    let scored: Vec<(String, f64)> =
        sqlx::query_as("SELECT mailbox, score_hundredths::float8 / 100 FROM bounce_scores")
            .fetch_all(pool)
            .await
            .unwrap();
    assert_eq!(scored, vec![(REFUSED.to_owned(), 1.0)]);
    // Postfix wrote it to the signed return path of the transaction's first message.
    assert!(
        postfix.log().contains("from=<bounces+"),
        "{}",
        postfix.log()
    );

    // Days 2 to 5: his position mail bounces each day; the fifth suspends him.
    for day in 2..=5 {
        app.clock.advance(Duration::hours(25));
        queue_one(pool, &format!("position-{day}"), REFUSED, clock.now()).await;
        outbox::deliver_due(pool, &relay, clock.now())
            .await
            .unwrap();
        until_taken(pool, day, &postfix).await;
    }
    let (score, suspended): (f64, bool) = sqlx::query_as(
        "SELECT score_hundredths::float8 / 100, suspended_at IS NOT NULL FROM bounce_scores WHERE mailbox = $1",
    )
    .bind(REFUSED)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!((score, suspended), (5.0, true));
    // Never answered: nothing was queued in answer to a bounce.
    let answers: i64 = scalar(
        pool,
        "SELECT count(*) FROM outbound_messages WHERE subject LIKE 'Re:%'",
    )
    .await;
    assert_eq!(answers, 0);
    // The GM is told.
    let notices: i64 = scalar(
        pool,
        "SELECT count(*) FROM gm_notices WHERE summary LIKE '%suspended after bounces%'",
    )
    .await;
    assert_eq!(notices, 1);

    // No more mail to him: the outbox skips it.
    queue_one(pool, "position-6", REFUSED, clock.now()).await;
    let done = outbox::deliver_due(pool, &relay, clock.now())
        .await
        .unwrap();
    assert_eq!((done.sent, done.failed), (0, 1));
    let error: String = scalar(
        pool,
        "SELECT last_error FROM outbound_messages WHERE idempotency_key = 'position-6'",
    )
    .await;
    assert_eq!(error, server::bounces::SUSPENDED_ERROR);

    // The console shows it, on the zine's page and his; resuming resets the score.
    add_gm(pool, "nelson").await;
    let mut gm = Browser::new(&app);
    assert_eq!(
        gm.login("nelson", PASSWORD).await.status(),
        StatusCode::SEE_OTHER
    );
    let page = gm.get_text(&format!("/gm/zines/{}", zine.slug)).await;
    assert!(
        page.contains("id=\"bounces\"") && page.contains(REFUSED) && page.contains("suspended"),
        "{page}"
    );
    let id: i64 = sqlx::query_scalar("SELECT id FROM subscribers WHERE email = $1")
        .bind(REFUSED)
        .fetch_one(pool)
        .await
        .unwrap();
    let page = gm.get_text(&format!("/gm/subscribers/{id}")).await;
    assert!(
        page.contains("Delivery suspended") && page.contains("mailbox unavailable"),
        "{page}"
    );
    let response = gm
        .submit(&format!("/gm/subscribers/{id}/resume"), &[])
        .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let (score, suspended): (f64, bool) = sqlx::query_as(
        "SELECT score_hundredths::float8 / 100, suspended_at IS NOT NULL FROM bounce_scores WHERE mailbox = $1",
    )
    .bind(REFUSED)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!((score, suspended), (0.0, false));
    let resumed: i64 = scalar(
        pool,
        "SELECT count(*) FROM audit_log WHERE action = 'subscriber.bounce_resume'",
    )
    .await;
    assert_eq!(resumed, 1);
    drop(postfix);
    app.stop().await;
}

fn raw_file(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mail/tests/bounces");
    std::fs::read(dir.join(name)).unwrap()
}

#[tokio::test]
async fn vacation_replies_and_forged_tags_are_not_scored_and_a_complaint_unsubscribes() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let now = app.clock.now();
    zine_with(
        pool,
        &["fred@example.com".to_owned(), "sam@mail.example".to_owned()],
    )
    .await;
    queue_one(pool, "position-fred", "fred@example.com", now).await;
    queue_one(pool, "position-sam", "sam@mail.example", now).await;
    let key = server::bounces::tag_key(pool, now).await.unwrap();
    let id_of = |to: &'static str| async move {
        sqlx::query_scalar::<_, i64>("SELECT id FROM outbound_messages WHERE to_address = $1")
            .bind(to)
            .fetch_one(pool)
            .await
            .unwrap()
    };
    let fred = key.return_path(id_of("fred@example.com").await, DOMAIN);
    let sam = key.return_path(id_of("sam@mail.example").await, DOMAIN);

    // A vacation reply to a good return path: taken, not scored, not answered.
    let vacation = String::from_utf8(raw_file("vacation_to_return_path.eml"))
        .unwrap()
        .replace("bounces+7-0123456789abcdef0123@zine.example", &fred);
    inbox::ingest_with_envelope(
        pool,
        vacation.as_bytes(),
        std::slice::from_ref(&fred),
        "pipe",
        now,
        DOMAIN,
    )
    .await
    .unwrap();
    // A real DSN for fred, but with a forged tag: not scored.
    let forged_path = format!(
        "bounces+{}-00000000000000000000@{DOMAIN}",
        id_of("fred@example.com").await
    );
    let forged = String::from_utf8(raw_file("postfix_dsn_captured.eml"))
        .unwrap()
        .replace("bounces+7-0123456789abcdef0123@zine.example", &forged_path)
        .replace("fred@refused.example", "fred@example.com");
    inbox::ingest_with_envelope(
        pool,
        forged.as_bytes(),
        std::slice::from_ref(&forged_path),
        "pipe",
        now,
        DOMAIN,
    )
    .await
    .unwrap();
    let scored: i64 = scalar(pool, "SELECT count(*) FROM bounce_scores").await;
    assert_eq!(scored, 0, "a vacation reply or a forged tag was scored");
    let answers: i64 = scalar(pool, "SELECT count(*) FROM outbound_messages").await;
    assert_eq!(answers, 2, "a bounce was answered");
    let outcomes: Vec<String> =
        sqlx::query_scalar("SELECT coalesce(error, '') FROM inbound_messages ORDER BY id")
            .fetch_all(pool)
            .await
            .unwrap();
    assert!(outcomes[0].contains("no delivery report"), "{outcomes:?}");
    assert!(outcomes[1].contains("forged"), "{outcomes:?}");

    // The same DSN with the right tag scores.
    let real = forged.replace(&forged_path, &fred);
    inbox::ingest_with_envelope(
        pool,
        real.as_bytes(),
        std::slice::from_ref(&fred),
        "pipe",
        now,
        DOMAIN,
    )
    .await
    .unwrap();
    let score: f64 = scalar(
        pool,
        "SELECT score_hundredths::float8 / 100 FROM bounce_scores",
    )
    .await;
    assert_eq!(score, 1.0);

    // An ARF complaint about sam's message unsubscribes him, audited.
    let arf = String::from_utf8(raw_file("arf_complaint.eml"))
        .unwrap()
        .replace("bounces+42-00112233445566778899@zine.example", &sam);
    inbox::ingest_with_envelope(
        pool,
        arf.as_bytes(),
        &[format!("abuse@{DOMAIN}")],
        "pipe",
        now,
        DOMAIN,
    )
    .await
    .unwrap();
    let status: String = scalar(
        pool,
        "SELECT status FROM subscribers WHERE email = 'sam@mail.example'",
    )
    .await;
    assert_eq!(status, "unsubscribed");
    let audited: i64 = scalar(pool, "SELECT count(*) FROM audit_log WHERE action IN ('mail.complaint', 'subscriber.unsubscribe')").await;
    assert_eq!(audited, 2);
    app.stop().await;
}
