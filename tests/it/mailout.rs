#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! Mail that the big providers take (issue 29, items 1 to 3): DKIM signatures on real outgoing
//! mail, checked by an independent verifier (Python's dkimpy, installed by ./scripts/test,
//! with the public key `gm dkim generate` printed served by its `dnsfunc` hook), for RSA and
//! Ed25519 keys; the one-click unsubscribe of RFC 8058 by POST alone, never by GET, never with
//! a forged token; the mailto form through the inbox; `gm dns` without DNS and against a stub.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use games::EngineKind;
use reqwest::StatusCode;
use server::dkim::DkimKey;
use server::letters::MailSite;
use server::outbox::{self, Relay};
use server::turns::{Creation, GameSpec, Roster, Schedule};
use store::games::GameId;
use store::outbox::{NewOutbound, enqueue_many, insert_shared_body};
use store::{PgPool, ZineSlug, zines};

use crate::helpers::{Counter, TestApp, trafalgar};
use crate::outbox::{SmtpSink, free_port};
use crate::players::subscribe;

const DOMAIN: &str = "zine.example.org";
const SITE: MailSite<'static> = MailSite {
    domain: DOMAIN,
    base_url: "https://zine.example.org",
};

/// dkimpy's verdict on each message file named on the command line, the DKIM records read from
/// the JSON file first (name → TXT text), served by `dnsfunc`: nothing asks DNS.
const VERIFIER: &str = r#"
import json, sys
import dkim

records = json.load(open(sys.argv[1]))

def dnsfunc(name, timeout=5):
    if isinstance(name, bytes):
        name = name.decode()
    return records.get(name.rstrip(".").lower(), "").encode()

for path in sys.argv[2:]:
    data = open(path, "rb").read()
    ok = dkim.verify(data, dnsfunc=dnsfunc)
    print(("pass " if ok else "fail ") + path)
"#;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("admiralty-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `gm dkim generate`: the key file and the printed record's name and value.
fn generate(dir: &Path, selector: &str, algorithm: &str) -> (PathBuf, String, String) {
    let key = dir.join(format!("{selector}.pem"));
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_gm"))
            .args(["dkim", "generate", "--selector", selector, "--out"])
            .arg(&key)
            .args(["--algorithm", algorithm])
            .env("ADMIRALTY_MAIL_DOMAIN", DOMAIN)
            .env_remove("ADMIRALTY_DKIM_DOMAIN")
            .output()
            .unwrap()
    };
    let output = run();
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8(output.stdout).unwrap();
    let line = printed.trim();
    let (name, strings) = line.split_once(" IN TXT ").unwrap();
    assert_eq!(name, format!("{selector}._domainkey.{DOMAIN}"));
    // The value in quoted strings of at most 255 bytes, which DNS joins again.
    let parts: Vec<&str> = strings
        .split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s)
        .collect();
    assert!(parts.iter().all(|p| p.len() <= 255), "{line}");
    let value = parts.concat();
    assert!(
        value.starts_with(&format!("v=DKIM1; k={algorithm}; p=")),
        "{value}"
    );
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // Never over an existing key.
    let before = std::fs::read(&key).unwrap();
    let again = run();
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("never overwritten"),
        "{again:?}"
    );
    assert_eq!(std::fs::read(&key).unwrap(), before);
    (key, name.to_owned(), value)
}

/// A zine of two subscribers and a Barmy game of both, started with its start mails (mail to
/// many: they carry the list headers).
async fn zine_with_game(pool: &PgPool) -> GameId {
    let zine = zines::insert(
        pool,
        &ZineSlug::parse("gazette").unwrap(),
        "The Gazette",
        trafalgar(),
    )
    .await
    .unwrap();
    subscribe(pool, zine.id, "nelson@victory.example", "Horatio Nelson").await;
    subscribe(pool, zine.id, "hardy@victory.example", "Thomas Hardy").await;
    let setup = EngineKind::Barmy.default_setup();
    let spec = GameSpec {
        zine: zine.id,
        name: "Trafalgar",
        setup: &setup,
        first_deadline: Some(trafalgar() + chrono::Duration::days(1)),
        schedule: Schedule::EveryDays(1),
    };
    server::turns::create_game_with(
        pool,
        trafalgar(),
        &spec,
        &Roster::EveryActiveSubscriber,
        &mut Counter(3),
        &Creation {
            actor: "gm",
            zone: chrono_tz::UTC,
            mail: Some(SITE),
        },
    )
    .await
    .unwrap()
}

/// A turn report to 100 readers as one circular (one Message-ID, the body stored once), with a
/// subject long enough to be folded, and not all ASCII.
async fn queue_circular(pool: &PgPool) {
    let mut tx = pool.begin().await.unwrap();
    let body = insert_shared_body(
        &mut *tx,
        "Name | Co-ord | Result | Score | Own Status\nNelson | C3 | Hit | 3 | OK\n",
        None,
        trafalgar(),
    )
    .await
    .unwrap();
    let subject = format!(
        "The Gazette: Trafalgar, turn 1 report — {}",
        "the fleet engages off Cape Trafalgar at noon, Villeneuve’s line breaks ".repeat(3)
    );
    let headers = store::outbox::Headers::default();
    let copies: Vec<(String, String)> = (0..100)
        .map(|i| (format!("report:1:{i}"), format!("reader{i}@example.org")))
        .collect();
    let rows: Vec<NewOutbound> = copies
        .iter()
        .map(|(key, to)| NewOutbound {
            message_id: "<report.1@zine.example.org>",
            idempotency_key: key,
            to_address: to,
            subject: &subject,
            body_text: "",
            body_html: None,
            headers: &headers,
        })
        .collect();
    enqueue_many(&mut tx, &rows, Some(body), trafalgar())
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// Runs dkimpy on each message: its verdict per message, in order.
fn verify(dir: &Path, records: &[(String, String)], messages: &[Vec<u8>]) -> Vec<bool> {
    let script = dir.join("verify.py");
    std::fs::write(&script, VERIFIER).unwrap();
    let table: serde_json::Map<String, serde_json::Value> = records
        .iter()
        .map(|(name, value)| (name.to_lowercase(), value.clone().into()))
        .collect();
    let json = dir.join("records.json");
    std::fs::write(&json, serde_json::to_string(&table).unwrap()).unwrap();
    let mut files = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let file = dir.join(format!("message-{i}.eml"));
        std::fs::write(&file, message).unwrap();
        files.push(file);
    }
    let output = Command::new("python3")
        .arg(&script)
        .arg(&json)
        .args(&files)
        .output()
        .expect("python3 is needed");
    assert!(
        output.status.success(),
        "dkimpy is needed (./scripts/test installs it): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let verdicts = String::from_utf8(output.stdout).unwrap();
    let verdicts: Vec<bool> = verdicts.lines().map(|l| l.starts_with("pass ")).collect();
    assert_eq!(verdicts.len(), messages.len());
    verdicts
}

/// The header block of a received message, unfolded, lower-cased names.
fn header_block(message: &str) -> String {
    let head = message.split("\n\n").next().unwrap_or_default();
    head.replace("\r\n", "\n")
        .replace("\n ", " ")
        .replace("\n\t", " ")
}

#[tokio::test]
async fn mail_signed_with_rsa_and_ed25519_keys_verifies_with_dkimpy() {
    let dir = temp_dir("dkim");
    for (selector, algorithm) in [("rsa1", "rsa"), ("ed1", "ed25519")] {
        let (key_file, name, value) = generate(&dir, selector, algorithm);
        let key = DkimKey::load(&key_file, selector, DOMAIN).unwrap();
        let db = store::testing::TestDatabase::migrated().await;
        let pool = &db.pool;
        zine_with_game(pool).await;
        queue_circular(pool).await;
        let sink = SmtpSink::start(free_port());
        let relay = Relay::new(
            &format!("smtp://127.0.0.1:{}", sink.port()),
            "Admiralty <orders@zine.example.org>",
        )
        .unwrap()
        .with_dkim(Some(Arc::new(key)));
        let done = outbox::deliver_due(pool, &relay, trafalgar() + chrono::Duration::minutes(1))
            .await
            .unwrap();
        // Two start mails and the circular's 100 copies, in three transactions.
        assert_eq!((done.sent, done.failed, done.transactions), (102, 0, 3));
        let received = sink.received();
        assert_eq!(received.len(), 3, "one message per transaction");
        let heads: Vec<String> = received.iter().map(|m| header_block(m)).collect();
        let circular = heads
            .iter()
            .position(|h| h.contains("Message-ID: <report.1@zine.example.org>"))
            .unwrap();
        // The circular was signed once, for all its 100 readers, and its long subject folded.
        assert_eq!(heads[circular].matches("DKIM-Signature:").count(), 1);
        assert!(received[circular].matches("@example.org").count() >= 100);
        // Its long subject was folded by the builder: a continuation line follows it.
        let lines: Vec<&str> = received[circular].lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with("Subject: "))
            .unwrap();
        assert!(lines[at + 1].starts_with(' '), "{}", received[circular]);
        let (subject_line, continued) = (lines[at].to_owned(), lines[at + 1].to_owned());
        for (i, head) in heads.iter().enumerate() {
            assert!(head.contains(&format!("s={selector};")), "{head}");
            assert!(head.contains("d=zine.example.org;"), "{head}");
            if i == circular {
                // No list header (h= names them all the same: one added later breaks it).
                assert!(!head.contains("\nList-Unsubscribe:"), "{head}");
                continue;
            }
            // The start mails carry the one-click headers, and they are signed.
            assert!(head.contains("List-Unsubscribe: <https://zine.example.org/unsubscribe/"));
            assert!(head.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"));
            assert!(head.contains("List-Id: \"The Gazette\" <gazette.list.zine.example.org>"));
            let h = head
                .split("DKIM-Signature:")
                .nth(1)
                .and_then(|s| s.split(" h=").nth(1))
                .and_then(|s| s.split(';').next())
                .unwrap()
                .replace(' ', "")
                .to_lowercase();
            for signed in [
                "from",
                "to",
                "subject",
                "date",
                "message-id",
                "list-unsubscribe",
                "list-unsubscribe-post",
                "list-id",
            ] {
                assert!(h.split(':').any(|s| s == signed), "{signed} not in h={h}");
            }
        }
        let messages: Vec<Vec<u8>> = received.iter().map(|m| m.clone().into_bytes()).collect();
        let records = [(name.clone(), value.clone())];
        assert_eq!(
            verify(&dir, &records, &messages),
            vec![true; 3],
            "{algorithm}"
        );
        // Unfolded on the way (as a relay may rewrite a header): still verifies, as the
        // signature's relaxed canonicalization unfolds it too.
        let unfolded = received[circular].replacen(
            &format!("{subject_line}\n{continued}"),
            &format!("{subject_line}{continued}"),
            1,
        );
        assert_ne!(unfolded, received[circular]);
        assert_eq!(verify(&dir, &records, &[unfolded.into_bytes()]), vec![true]);
        // The verifier is no rubber stamp: a changed subject, or another key, fails.
        let tampered = received[circular].replacen("turn 1 report", "turn 2 report", 1);
        let other_key = format!("v=DKIM1; k={algorithm}; p=");
        assert_eq!(
            verify(&dir, &records, &[tampered.into_bytes()]),
            vec![false]
        );
        assert_eq!(
            verify(&dir, &[(name.clone(), other_key)], &messages[..1]),
            vec![false]
        );
        drop(sink);
        db.drop_database().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one-click address in the start mail queued to `email`, and their subscriber row's id.
async fn one_click_path(pool: &PgPool, email: &str) -> (String, i64) {
    let (url, subscriber): (String, i64) = sqlx::query_as(
        "SELECT o.headers->'List'->>'unsubscribe_url', s.id FROM outbound_messages o \
         JOIN subscribers s ON s.email = o.to_address \
         WHERE o.to_address = $1 AND o.idempotency_key LIKE 'started:%'",
    )
    .bind(email)
    .fetch_one(pool)
    .await
    .unwrap();
    let path = url.strip_prefix(SITE.base_url).unwrap().to_owned();
    (path, subscriber)
}

async fn status_of(pool: &PgPool, subscriber: i64) -> String {
    sqlx::query_scalar("SELECT status::text FROM subscribers WHERE id = $1")
        .bind(subscriber)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn one_click_audits(pool: &PgPool) -> Vec<(String, serde_json::Value)> {
    sqlx::query_as(
        "SELECT action, details FROM audit_log WHERE actor = 'list-unsubscribe' ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_one_click_post_alone_unsubscribes_a_get_or_a_forged_token_never() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let game = zine_with_game(pool).await;
    let (path, nelson) = one_click_path(pool, "nelson@victory.example").await;
    assert!(path.starts_with("/unsubscribe/"), "{path}");

    // A GET (a mail scanner following the link) shows the button and changes nothing.
    let page = app.get(&path).await;
    assert_eq!(page.status(), StatusCode::OK);
    let text = page.text().await.unwrap();
    assert!(text.contains("id=\"unsubscribe-ask\""), "{text}");
    assert!(text.contains("The Gazette"), "{text}");
    assert_eq!(status_of(pool, nelson).await, "active");

    let post = |path: String, body: &'static str| {
        // No cookie, no CSRF token, no once key: the URL and the body only.
        app.http
            .post(app.url(&path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
    };
    // A token altered by one character, or cut short: refused, nothing changes.
    let last = path.chars().last().unwrap();
    let altered = format!(
        "{}{}",
        &path[..path.len() - 1],
        if last == '0' { '1' } else { '0' }
    );
    for forged in [altered, path[..path.len() - 2].to_owned()] {
        let answer = post(forged, "List-Unsubscribe=One-Click").await.unwrap();
        assert_eq!(answer.status(), StatusCode::NOT_FOUND);
    }
    // Without RFC 8058's body: refused.
    let answer = post(path.clone(), "").await.unwrap();
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    assert_eq!(status_of(pool, nelson).await, "active");
    assert!(one_click_audits(pool).await.is_empty());

    // The one-click POST: unsubscribed at once, audited, a short page.
    let answer = post(path.clone(), "List-Unsubscribe=One-Click")
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    assert!(
        answer
            .text()
            .await
            .unwrap()
            .contains("id=\"unsubscribe-done\"")
    );
    assert_eq!(status_of(pool, nelson).await, "unsubscribed");
    let audits = one_click_audits(pool).await;
    assert_eq!(audits.len(), 1, "{audits:?}");
    assert_eq!(audits[0].0, "subscriber.unsubscribe");
    assert_eq!(audits[0].1["subscriber"], serde_json::json!(nelson));
    assert_eq!(audits[0].1["left_games"], serde_json::json!([game]));
    let seat: String = sqlx::query_scalar(
        "SELECT p.status::text FROM players p WHERE p.game_id = $1 AND p.subscriber_id = $2",
    )
    .bind(game)
    .bind(nelson)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(seat, "resigned");

    // Sent again (a provider retrying): 200, nothing more done.
    let again = post(path.clone(), "List-Unsubscribe=One-Click")
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    assert!(
        again
            .text()
            .await
            .unwrap()
            .contains("id=\"unsubscribe-gone\"")
    );
    assert_eq!(one_click_audits(pool).await.len(), 1);
    app.stop().await;
}

#[tokio::test]
async fn the_mailto_unsubscribes_through_the_inbox_and_personal_mail_has_no_list_headers() {
    let db = store::testing::TestDatabase::migrated().await;
    let pool = &db.pool;
    zine_with_game(pool).await;
    let (mailto, hardy): (String, i64) = sqlx::query_as(
        "SELECT o.headers->'List'->>'unsubscribe_mailto', s.id FROM outbound_messages o \
         JOIN subscribers s ON s.email = o.to_address \
         WHERE o.to_address = 'hardy@victory.example' AND o.idempotency_key LIKE 'started:%'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    let address = mailto
        .strip_prefix("mailto:")
        .and_then(|m| m.strip_suffix("?subject=unsubscribe"))
        .unwrap();
    assert!(address.starts_with("orders+"), "{mailto}");
    // What a mail program sends for the mailto: an empty message, Subject unsubscribe.
    let raw = format!(
        "From: Thomas Hardy <hardy@victory.example>\r\nTo: {address}\r\n\
         Subject: unsubscribe\r\nMessage-ID: <leave-1@victory.example>\r\n\
         Date: Mon, 21 Oct 1805 12:00:00 +0000\r\n\r\n"
    );
    server::inbox::ingest(pool, raw.as_bytes(), "pipe", trafalgar(), DOMAIN)
        .await
        .unwrap();
    assert_eq!(status_of(pool, hardy).await, "unsubscribed");
    // The answer is personal mail: no list headers (nor on any other personal letter queued).
    let personal: Vec<(String, serde_json::Value)> = sqlx::query_as(
        "SELECT idempotency_key, headers FROM outbound_messages \
         WHERE idempotency_key NOT LIKE 'started:%'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(
        personal.iter().any(|(key, _)| key.starts_with("reply:")),
        "{personal:?}"
    );
    for (key, headers) in &personal {
        assert!(headers.get("List").is_none(), "{key}: {headers}");
    }
    db.drop_database().await;
}

/// dnslib's zone resolver serving `zone` on a loopback UDP port; killed on drop.
struct DnsStub {
    child: std::process::Child,
    port: u16,
}

impl DnsStub {
    fn start(dir: &Path, zone: &str) -> DnsStub {
        let file = dir.join("zone.txt");
        std::fs::write(&file, zone).unwrap();
        let port = free_udp_port();
        let mut child = Command::new("python3")
            .args([
                "-m",
                "dnslib.zoneresolver",
                "--address",
                "127.0.0.1",
                "--port",
            ])
            .arg(port.to_string())
            .arg("--zone")
            .arg(&file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 with dnslib is needed: ./scripts/test installs it");
        // Ready when it answers.
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(std::time::Duration::from_millis(200)))
            .unwrap();
        // A query for `.` NS: any answer will do.
        let query = [0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1];
        let mut buffer = [0u8; 512];
        for _ in 0..100 {
            socket.send_to(&query, ("127.0.0.1", port)).unwrap();
            if socket.recv_from(&mut buffer).is_ok() {
                return DnsStub { child, port };
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("dnslib's zone resolver did not start: is dnslib installed?");
    }
}

impl Drop for DnsStub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_udp_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `gm dns` with the key file and a resolver at `port`: its exit code and output.
fn gm_dns(key: &Path, port: u16) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gm"))
        .arg("dns")
        .env("ADMIRALTY_MAIL_DOMAIN", DOMAIN)
        .env("ADMIRALTY_BASE_URL", "https://mail.example.org")
        .env("ADMIRALTY_SMTP_URL", "smtp://relay.example.net:587")
        .env("ADMIRALTY_DKIM_KEY", key)
        .env("ADMIRALTY_DKIM_SELECTOR", "s1")
        .env("ADMIRALTY_DNS_RESOLVER", format!("127.0.0.1:{port}"))
        .env("ADMIRALTY_DNS_TIMEOUT_SECONDS", "1")
        .env_remove("ADMIRALTY_DKIM_DOMAIN")
        .env_remove("ADMIRALTY_MX_HOST")
        .env_remove("ADMIRALTY_DMARC_RUA")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code(), text)
}

/// The status `gm dns` gave one kind of record.
fn status_line<'a>(output: &'a str, kind: &str) -> &'a str {
    output
        .lines()
        .find(|l| l.starts_with(&format!("{kind} ")) && !l.contains(" IN "))
        .unwrap_or_else(|| panic!("no {kind} line in\n{output}"))
}

#[test]
fn gm_dns_prints_the_records_and_finds_the_missing_and_wrong_ones() {
    let dir = temp_dir("dns");
    let (key, name, value) = generate(&dir, "s1", "ed25519");
    let (_, _, other) = generate(&dir, "s9", "ed25519");
    let quoted = |value: &str| format!("\"{value}\"");

    // No DNS at all (a port where nothing answers): printed, not checked, exit 75.
    let (code, out) = gm_dns(&key, free_udp_port());
    assert_eq!(code, Some(75), "{out}");
    assert!(
        out.contains(&format!("{name} IN TXT {}", quoted(&value))),
        "{out}"
    );
    assert!(out.contains("zine.example.org IN TXT \"v=spf1 mx a:relay.example.net ~all\""));
    assert!(out.contains(
        "_dmarc.zine.example.org IN TXT \"v=DMARC1; p=none; rua=mailto:dmarc-reports@zine.example.org\""
    ));
    assert!(
        out.contains("zine.example.org IN MX 10 mail.example.org."),
        "{out}"
    );
    assert!(out.contains("could not check"), "{out}");

    // A zone with the SPF and MX right, another key published, no DMARC: exit 1.
    let zone = format!(
        "zine.example.org. 60 IN TXT \"v=spf1 mx a:relay.example.net ~all\"\n\
         {name}. 60 IN TXT {}\n\
         zine.example.org. 60 IN MX 10 mail.example.org.\n",
        quoted(&other)
    );
    let stub = DnsStub::start(&dir, &zone);
    let (code, out) = gm_dns(&key, stub.port);
    assert_eq!(code, Some(1), "{out}");
    assert!(status_line(&out, "SPF").contains(" ok "), "{out}");
    assert!(status_line(&out, "DKIM").contains(" wrong "), "{out}");
    assert!(status_line(&out, "DMARC").contains(" missing "), "{out}");
    assert!(status_line(&out, "MX").contains(" ok "), "{out}");
    drop(stub);

    // Published as printed, the key in two strings as DNS holds a long one: exit 0.
    let (head, tail) = value.split_at(20);
    let zone = format!(
        "zine.example.org. 60 IN TXT \"v=spf1 mx a:relay.example.net ~all\"\n\
         {name}. 60 IN TXT \"{head}\" \"{tail}\"\n\
         _dmarc.zine.example.org. 60 IN TXT \"v=DMARC1; p=none; rua=mailto:dmarc-reports@zine.example.org\"\n\
         zine.example.org. 60 IN MX 10 mail.example.org.\n"
    );
    let stub = DnsStub::start(&dir, &zone);
    let (code, out) = gm_dns(&key, stub.port);
    assert_eq!(code, Some(0), "{out}");
    for kind in ["SPF", "DKIM", "DMARC", "MX"] {
        assert!(status_line(&out, kind).contains(" ok "), "{out}");
    }
    drop(stub);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gm_serve_refuses_a_bad_dkim_key_before_it_starts() {
    let dir = temp_dir("badkey");
    let key = dir.join("bad.pem");
    std::fs::write(
        &key,
        "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_gm"))
        .arg("serve")
        .env("ADMIRALTY_DKIM_KEY", &key)
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
        .env("ADMIRALTY_BIND", "127.0.0.1:0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("reading the DKIM key (ADMIRALTY_DKIM_KEY)"),
        "{err}"
    );
    assert!(
        err.contains("is neither an Ed25519 key nor an RSA key"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
