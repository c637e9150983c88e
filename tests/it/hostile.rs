//! Hostile mail through the whole service: each message is given to `server::inbox::ingest`
//! (the pipeline every door uses) on a real game, with a real player's reply token where it
//! matters, and must get a clear outcome — a reply in the outbox saying what was wrong or what
//! was done, or a dropped row with its reason (audited for loops and bulk) — with no panic, no
//! failed processing, and the raw message kept byte for byte in `inbound_messages`. The replies
//! are then delivered through lettre to a real SMTP server, and every header of every delivered
//! message must be one line of Admiralty's own making.

use chrono::Duration;
use server::inbox;
use server::outbox::{self, Relay};
use server::turns;
use store::PgPool;
use store::games::GameId;
use store::testing::TestDatabase;

use crate::helpers::trafalgar;
use crate::inbox::{DOMAIN, barmy_game, reply_address_of};
use crate::outbox::{SmtpSink, free_port};

/// Players' display names that must come out inert wherever they are shown.
const SCRIPT_NAME: &str = "Eve <script>alert('x')</script>";
const SQL_NAME: &str = "Robert'); DROP TABLE players;--";

async fn game(pool: &PgPool) -> GameId {
    barmy_game(
        pool,
        ("hostile", "Hostile"),
        "Hostile Barmy",
        &[
            ("fred@example.org", "Fred Bloggs"),
            ("eve@example.org", SCRIPT_NAME),
            ("bobby@example.org", SQL_NAME),
        ],
        11,
    )
    .await
}

/// A plain message from Fred to `to`, with `extra` header lines (CRLF-terminated) and `body`.
fn plain(id: &str, to: &str, extra: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Fred Bloggs <fred@example.org>\r\nTo: Admiralty <{to}>\r\nReturn-Path: <fred@example.org>\r\n\
         Message-ID: <{id}@example.org>\r\nSubject: Re: Hostile Barmy, turn 1\r\n{extra}\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
    .into_bytes()
}

/// What became of one message.
#[derive(Debug)]
struct Outcome {
    status: String,
    reason: Option<String>,
    /// Replies queued for it: (to_address, subject, body_text, headers).
    replies: Vec<(String, String, String, serde_json::Value)>,
}

/// Ingests `raw` and checks what every message must get: no error, the raw bytes kept, and a
/// reply or a dropped row with its reason.
async fn ingest(pool: &PgPool, raw: &[u8]) -> Outcome {
    let before: i64 = sqlx::query_scalar("SELECT coalesce(max(id), 0) FROM outbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    // Many of these messages prove no sender: room for all their refusals.
    let mut settings = inbox::Settings::from(DOMAIN);
    settings.limits.refusals_per_hour = 1000;
    settings.limits.refusals_per_domain_per_hour = 1000;
    settings.limits.refusals_in_all_per_hour = 1000;
    let ingested = inbox::ingest(pool, raw, "smtp", trafalgar(), settings)
        .await
        .unwrap_or_else(|e| panic!("ingest failed: {e}"));
    let inbox::Ingested::Stored(id) = ingested else {
        panic!("a new message was taken as a duplicate: {ingested:?}");
    };
    let (kept, status, reason): (Vec<u8>, String, Option<String>) =
        sqlx::query_as("SELECT raw, status, error FROM inbound_messages WHERE id = $1")
            .bind(id)
            .fetch_one(pool)
            .await
            .unwrap();
    assert!(kept == raw, "the raw message was not kept byte for byte");
    let replies: Vec<(String, String, String, serde_json::Value)> = sqlx::query_as(
        "SELECT to_address, subject, body_text, headers FROM outbound_messages WHERE id > $1 ORDER BY id",
    )
    .bind(before)
    .fetch_all(pool)
    .await
    .unwrap();
    eprintln!(
        "{} bytes: {status} {reason:?} -> {:?}",
        raw.len(),
        replies
            .iter()
            .map(|r| (r.0.get(..40).unwrap_or(&r.0), r.2.len()))
            .collect::<Vec<_>>()
    );
    match status.as_str() {
        "processed" => assert_eq!(replies.len(), 1, "a processed message gets one reply"),
        "dropped" => {
            assert!(replies.is_empty(), "a dropped message was answered");
            assert!(
                reason.as_deref().is_some_and(|r| !r.trim().is_empty()),
                "a drop without a reason"
            );
        }
        other => panic!("processing ended {other:?}: {reason:?}"),
    }
    Outcome {
        status,
        reason,
        replies,
    }
}

impl Outcome {
    fn reply(&self) -> &str {
        assert_eq!(self.status, "processed", "no reply: {:?}", self.reason);
        &self.replies[0].2
    }
}

async fn drops_audited(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'inbound.drop'")
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn current_orders(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("SELECT raw_text FROM orders WHERE superseded_at IS NULL ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

/// Every header line of a delivered message: ASCII, one line each, names Admiralty writes.
fn check_delivered_headers(message: &str) {
    const OURS: &[&str] = &[
        "from",
        "to",
        "reply-to",
        "subject",
        "date",
        "message-id",
        "in-reply-to",
        "references",
        "auto-submitted",
        "x-loop",
        "x-auto-response-suppress",
        "mime-version",
        "content-type",
        "content-transfer-encoding",
        // added by the receiving SMTP server (aiosmtpd's Mailbox handler)
        "x-peer",
        "x-mailfrom",
        "x-rcptto",
    ];
    let head = message
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .replace('\r', "");
    let mut names = Vec::new();
    for line in head.lines() {
        assert!(line.is_ascii(), "a header line that is not ASCII: {line:?}");
        assert!(line.len() <= 998, "a header line of {} bytes", line.len());
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let (name, _) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("a header line without a name: {line:?}\n{head}"));
        let name = name.to_ascii_lowercase();
        assert!(
            OURS.contains(&name.as_str()),
            "a header Admiralty does not write: {line:?}\n{head}"
        );
        assert!(!names.contains(&name), "header {name} twice:\n{head}");
        names.push(name);
    }
    assert!(names.contains(&"to".to_owned()), "{head}");
}

#[tokio::test]
async fn every_hostile_message_gets_a_clear_outcome_and_safe_replies() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    let eve = reply_address_of(pool, game, 2).await;

    // Truncated MIME: the connection dropped inside a base64 part of a multipart.
    let truncated = format!(
        "From: Fred <fred@example.org>\r\nTo: {fred}\r\nMessage-ID: <cut@example.org>\r\n\
         Subject: orders\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n\
         --b1\r\nContent-Type: text/plain\r\n\r\nG13, K19\r\n\r\n--b1\r\n\
         Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJcfs"
    );
    let out = ingest(pool, truncated.as_bytes()).await;
    assert!(out.reply().contains("fire at G13"), "{}", out.reply());

    // Broken multipart boundaries: the parts use another boundary than the one declared.
    let broken = format!(
        "From: Fred <fred@example.org>\r\nTo: {fred}\r\nMessage-ID: <broken@example.org>\r\n\
         Subject: orders\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"declared\"\r\n\r\n\
         --actual\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nS13, G11\r\n--actual\r\n\
         Content-Type: text/html\r\n\r\n<p>S13, G11</p>\r\n--actual--\r\n"
    );
    let out = ingest(pool, broken.as_bytes()).await;
    assert!(out.reply().contains("fire at S13"), "{}", out.reply());
    // Only delimiters, no part at all.
    let empty_parts = format!(
        "From: Fred <fred@example.org>\r\nTo: {fred}\r\nMessage-ID: <noparts@example.org>\r\n\
         Content-Type: multipart/mixed; boundary=\"x\"\r\n\r\n--x\r\n--x--\r\n--x\r\n"
    );
    let out = ingest(pool, empty_parts.as_bytes()).await;
    assert_eq!(out.status, "processed", "{out:?}");

    // NUL bytes in headers and body.
    let nul = plain(
        "nul",
        &fred,
        "X-Note: a\0b\r\n",
        "G13,\0 K19\r\nPRESS nul\0here\r\n",
    );
    let out = ingest(pool, &nul).await;
    assert!(!out.reply().contains('\0'));

    // Invalid UTF-8 in every header, the token's address aside.
    let mut to = b"\xfe\xfe <".to_vec();
    to.extend_from_slice(fred.as_bytes());
    to.push(b'>');
    let headers: [(&[u8], &[u8]); 11] = [
        (b"From", b"Fr\xffed \xc3\x28 <fred@example.org>"),
        (b"To", &to),
        (b"Cc", b"\xe2\x82 <cc@example.org>"),
        (b"Reply-To", b"\xf0\x28\x8c\x28 <fred@example.org>"),
        (b"Subject", b"Re: \xc0\xaf turn \xed\xa0\x80 1"),
        (b"Message-ID", b"<\xff\xfe@example.org>"),
        (b"In-Reply-To", b"<\xc3@example.org>"),
        (b"References", b"<\xa0\xa1@example.org> <ok@example.org>"),
        (b"Date", b"Mon, 3 \xff 2025"),
        (b"Content-Type", b"text/plain; charset=\xff\xfe"),
        (b"X-\xff\xfe", b"\xff"),
    ];
    let mut bad_utf8 = Vec::new();
    for (name, value) in headers {
        bad_utf8.extend_from_slice(name);
        bad_utf8.extend_from_slice(b": ");
        bad_utf8.extend_from_slice(value);
        bad_utf8.extend_from_slice(b"\r\n");
    }
    bad_utf8.extend_from_slice(b"\r\nG13, K19\r\nPRESS \xff\xfe caf\xe9\r\n");
    let out = ingest(pool, &bad_utf8).await;
    assert!(out.reply().contains("fire at G13"), "{}", out.reply());

    // Header injection: CR/LF in display names and subjects (raw, RFC 2047-encoded, folded)
    // and in the Message-ID that the reply's In-Reply-To is made from.
    let injected = format!(
        "From: =?utf-8?q?Fred=0D=0ABcc=3A_victim=40example=2Enet?= <fred@example.org>\r\n\
         To: \"Admiralty\r\n Bcc: victim@example.net\" <{fred}>\r\n\
         Subject: =?utf-8?b?{}?=\r\n\
         Message-ID: <inject@example.org>\r\n\
         In-Reply-To: <x@example.org>\r\n Bcc: victim2@example.net\r\n\r\nG13, K19\r\n",
        base64("Re: turn 1\r\nBcc: victim3@example.net\r\nX-Evil: 1")
    );
    let out = ingest(pool, injected.as_bytes()).await;
    assert_eq!(out.status, "processed");
    assert_eq!(out.replies[0].0, "fred@example.org");
    for (key, value) in out.replies[0].3.as_object().unwrap() {
        let value = value.as_str().unwrap_or_default();
        assert!(
            !value.contains(['\r', '\n']),
            "queued header {key} is not one line: {value:?}"
        );
    }
    // A Message-ID that is itself an injection attempt, without a token: the refusal goes back
    // to the sender with single-line headers.
    let injected_id = b"From: Mallory <mallory@example.net>\r\nTo: orders@zine.example.org\r\n\
         Message-ID: =?utf-8?q?<a=0D=0ABcc:_victim@example.net>?=\r\nSubject: hi\r\n\r\nG13, K19\r\n";
    let out = ingest(pool, injected_id).await;
    assert!(out.reply().contains("could not tell which game and player"));

    // HTML and JavaScript in press and in the sender's name.
    let html = plain(
        "html-press",
        &eve,
        "",
        "A1, A2\r\nPRESS <script>alert(document.cookie)</script><img src=x onerror=alert(1)>\r\n",
    );
    let out = ingest(pool, &html).await;
    assert!(out.reply().contains("Press accepted"), "{}", out.reply());
    let html_name = format!(
        "From: \"<b onmouseover=alert(1)>Fred</b>\" <fred@example.org>\r\nTo: {fred}\r\n\
         Message-ID: <html-name@example.org>\r\nContent-Type: text/html\r\n\r\n\
         <html><body><script>alert(1)</script><p>G13, K19</p><style>p{{x:y}}</style></body></html>"
    );
    let out = ingest(pool, html_name.as_bytes()).await;
    assert!(out.reply().contains("fire at G13"), "{}", out.reply());
    assert!(!out.reply().contains("<script>"), "{}", out.reply());

    // SQL-looking text everywhere a player writes.
    let sql = plain(
        "sql'); DROP TABLE inbound_messages;--",
        &fred,
        "X-Sql: ' OR 1=1 --\r\n",
        "G13, K19 '); DELETE FROM orders; --\r\nPRESS Robert'); DROP TABLE games;--\r\n",
    );
    let out = ingest(pool, &sql).await;
    assert!(out.reply().contains("Press accepted"), "{}", out.reply());
    let press: Vec<String> = sqlx::query_scalar("SELECT text FROM press ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    assert!(
        press.iter().any(|p| p == "Robert'); DROP TABLE games;--"),
        "{press:?}"
    );
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(games, 1);

    // Homoglyphs: a Cyrillic "о" in the local part is not Admiralty's address, so nothing is
    // accepted; a homoglyph in the domain does not matter (the token is what authenticates).
    let token = fred.trim_start_matches("orders+");
    let cyrillic_local = plain(
        "homo-local",
        &format!("\u{43e}rders+{token}"),
        "",
        "A3, A4\r\n",
    );
    let out = ingest(pool, &cyrillic_local).await;
    assert!(out.reply().contains("could not tell which game and player"));
    let cyrillic_token: String = token
        .replacen('a', "\u{430}", 1)
        .replacen('e', "\u{435}", 1)
        .replacen('o', "\u{43e}", 1);
    let out = ingest(
        pool,
        &plain(
            "homo-token",
            &format!("orders+{cyrillic_token}"),
            "",
            "A3, A4\r\n",
        ),
    )
    .await;
    if cyrillic_token != token {
        assert!(out.reply().contains("could not tell which game and player"));
    }
    let homoglyph_from = format!(
        "From: Fred <fred@ex\u{430}mple.org>\r\nTo: {fred}\r\nMessage-ID: <homo-from@example.org>\r\n\r\nHELP\r\n"
    );
    let out = ingest(pool, homoglyph_from.as_bytes()).await;
    // The token authenticates: the confirmation goes to the player's own address.
    assert_eq!(out.replies[0].0, "fred@example.org");

    // Overlong addresses: a 5,000-character sender, a 300-character token.
    let long_from = format!(
        "From: {}@example.org\r\nTo: {fred}\r\nMessage-ID: <long-from@example.org>\r\n\r\nHELP\r\n",
        "f".repeat(5000)
    );
    // No one's mailbox (RFC 5321 limits it to 254 octets): there is no sender to answer.
    let out = ingest(pool, long_from.as_bytes()).await;
    assert_eq!(out.status, "dropped");
    assert_eq!(out.reason.as_deref(), Some("no From address"));
    let long_token = plain(
        "long-token",
        &format!("orders+{}", "k".repeat(300)),
        "",
        "HELP\r\n",
    );
    let out = ingest(pool, &long_token).await;
    assert!(out.reply().contains("could not tell which game and player"));
    let long_sender = format!(
        "From: {}@example.org\r\nTo: orders@{DOMAIN}\r\nMessage-ID: <long-sender@example.org>\r\n\r\nHELP\r\n",
        "x".repeat(5000)
    );
    assert_eq!(ingest(pool, long_sender.as_bytes()).await.status, "dropped");

    // A sender address with no domain cannot be answered.
    let no_at = b"From: fred\r\nTo: orders@zine.example.org\r\nMessage-ID: <no-at@example.org>\r\n\r\nHELP\r\n";
    assert_eq!(ingest(pool, no_at).await.status, "dropped");

    // A message that made mail-parser panic (found by fuzzing): dropped with its reason, and
    // the queue goes on.
    let panicky = include_bytes!("../../crates/mail/tests/corpus/malformed_parser_panic.eml");
    let out = ingest(pool, panicky).await;
    assert_eq!(out.status, "dropped");
    assert!(
        out.reason
            .as_deref()
            .is_some_and(|r| r.contains("MIME structure")),
        "{out:?}"
    );
    let after = plain("after-panic", &fred, "", "HELP\r\n");
    assert_eq!(ingest(pool, &after).await.status, "processed");

    // Not a message at all.
    let out = ingest(pool, b"\0\0\0\xff\xfe binary junk with no header").await;
    assert_eq!(out.status, "dropped");

    // Loops and bulk: dropped, and audited.
    let audited = drops_audited(pool).await;
    for (id, header) in [
        ("loop", "X-Loop: admiralty\r\n"),
        ("bulk", "Precedence: bulk\r\n"),
        ("list", "List-Id: <fleet.lists.example.org>\r\n"),
        ("auto", "Auto-Submitted: auto-replied\r\n"),
    ] {
        let out = ingest(pool, &plain(id, &fred, header, "G13, K19\r\n")).await;
        assert_eq!(out.status, "dropped", "{id}: {out:?}");
    }
    assert_eq!(drops_audited(pool).await, audited + 4);

    // Every reply, delivered through lettre to a real SMTP server: one-line headers only.
    let sink = SmtpSink::start(free_port());
    let relay = Relay::new(
        &format!("smtp://127.0.0.1:{}", sink.port),
        "Admiralty <orders@zine.example.org>",
    )
    .unwrap();
    let delivered = outbox::deliver_due(pool, &relay, trafalgar() + Duration::minutes(1))
        .await
        .unwrap();
    let queued: i64 = sqlx::query_scalar("SELECT count(*) FROM outbound_messages")
        .fetch_one(pool)
        .await
        .unwrap();
    let received = sink.received();
    assert_eq!(received.len(), delivered.sent, "{delivered:?}");
    assert_eq!(
        i64::try_from(delivered.sent + delivered.failed).unwrap(),
        queued,
        "{delivered:?}"
    );
    for message in &received {
        check_delivered_headers(message);
        let recipient = message
            .lines()
            .find_map(|l| l.strip_prefix("X-RcptTo: "))
            .unwrap_or_default();
        assert!(!recipient.contains("victim"), "{message}");
    }
    // Nothing went to a recipient an attacker named.
    let recipients: Vec<String> = sqlx::query_scalar("SELECT to_address FROM outbound_messages")
        .fetch_all(pool)
        .await
        .unwrap();
    assert!(
        recipients.iter().all(|r| !r.contains("victim")),
        "{recipients:?}"
    );
    db.drop_database().await;
}

/// Press and names with HTML in them reach the published report as text, never as markup.
#[tokio::test]
async fn html_in_press_and_names_is_inert_in_the_published_report() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let eve = reply_address_of(pool, game, 2).await;
    let bobby = reply_address_of(pool, game, 3).await;
    let html = plain(
        "report-html",
        &eve,
        "",
        "A1, A2\r\nPRESS <script>alert(1)</script> & <b>bold</b>\r\n",
    );
    assert_eq!(ingest(pool, &html).await.status, "processed");
    let sql = plain(
        "report-sql",
        &bobby,
        "",
        "A3, A4\r\nPRESS '); DROP TABLE published_reports;--\r\n",
    );
    assert_eq!(ingest(pool, &sql).await.status, "processed");
    let resolved = turns::resolve_due(pool, trafalgar() + Duration::days(3), DOMAIN)
        .await
        .unwrap();
    assert_eq!(resolved.len(), 1);
    let (text, html): (String, String) = sqlx::query_as("SELECT text, html FROM published_reports")
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(text.contains("<script>alert(1)</script>"), "{text}");
    assert!(
        text.contains("'); DROP TABLE published_reports;--"),
        "{text}"
    );
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<b>"), "{html}");
    assert!(html.contains("&#60;script&#62;alert(1)"), "{html}");
    db.drop_database().await;
}

/// A 50 MB message is kept whole and answered, without reading all of it.
#[tokio::test]
async fn a_fifty_megabyte_message_is_kept_and_answered() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    let mut raw = format!(
        "From: Fred <fred@example.org>\r\nTo: {fred}\r\nMessage-ID: <big@example.org>\r\n\
         Subject: my orders, and a film of my fleet\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"big\"\r\n\r\n\
         --big\r\nContent-Type: text/plain\r\n\r\nG13, K19\r\n--big\r\n\
         Content-Type: video/mp4; name=\"fleet.mp4\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    )
    .into_bytes();
    let line = b"QWRtaXJhbHR5IHNhaWxzIGF0IGRhd24uIEFkbWlyYWx0eSBzYWlscyBhdCBkYXduLiBBZG1pcmFs\r\n";
    while raw.len() < 50 * 1024 * 1024 {
        raw.extend_from_slice(line);
    }
    raw.extend_from_slice(b"--big--\r\n");
    let out = ingest(pool, &raw).await;
    let reply = out.reply();
    assert!(reply.contains("fire at G13"), "{reply}");
    assert!(reply.contains("only its beginning was read"), "{reply}");
    assert_eq!(current_orders(pool).await, ["G13, K19"]);
    db.drop_database().await;
}

/// A million lines of orders, or of HELP: kept, read as far as the limits allow, and answered
/// with a reply of bounded size that says what was ignored.
#[tokio::test]
async fn a_million_lines_are_kept_and_answered_briefly() {
    let db = TestDatabase::migrated().await;
    let pool = &db.pool;
    let game = game(pool).await;
    let fred = reply_address_of(pool, game, 1).await;
    for (id, line) in [("million-orders", "A1"), ("million-help", "HELP")] {
        let mut body = String::from("G13, K19\r\n");
        for _ in 1..1_000_000 {
            body.push_str(line);
            body.push_str("\r\n");
        }
        let raw = plain(id, &fred, "", &body);
        let out = ingest(pool, &raw).await;
        let reply = out.reply();
        let start = &reply[..reply.len().min(2000)];
        assert!(reply.contains("fire at G13"), "{start}");
        assert!(reply.contains("were ignored"), "{start}");
        assert!(reply.contains("only its beginning was read"), "{start}");
        if id == "million-help" {
            assert_eq!(reply.matches(mail::HELP).count(), 1, "the help sent once");
        }
        // Was 16 MB for the orders (every line came back with an error); each HELP line added
        // a copy of the help text.
        assert!(
            reply.len() < 512 * 1024,
            "{id}: a reply of {} bytes",
            reply.len()
        );
    }
    db.drop_database().await;
}

/// Standard base64 for building test messages (RFC 2047 `b` words).
fn base64(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
