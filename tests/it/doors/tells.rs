//! Private messages stay private messages (issue 27, item 3): a reply to a relayed TELL goes
//! back to its sender as a TELL, never into orders, whatever form the reply takes — through
//! the real SMTP listener of `gm serve`, and read as the other player gets it, from a real
//! SMTP server (aiosmtpd) the outbox delivers to.

use std::time::{Duration, Instant};

use store::PgPool;
use store::games::GameId;
use store::testing::TestDatabase;
use tokio::io::AsyncWriteExt;

use super::{Doors, smtp_reply, smtp_say};
use crate::inbox::{DOMAIN, game, reply_address_of};
use crate::outbox::{SmtpSink, free_port};

const NOW: &str = "1805-10-21T11:45:00Z";
const FRED: &str = "fred@example.org";
const JOHN: &str = "john@example.org";

/// Delivers `raw` to `rcpt` through the SMTP listener, as a client's mail server does.
pub(super) async fn send(doors: &Doors, from: &str, rcpt: &str, raw: &str) {
    let mut client = doors.smtp_connect().await;
    assert!(smtp_reply(&mut client).await.starts_with("220"));
    for command in [
        "EHLO client.example".to_owned(),
        format!("MAIL FROM:<{from}>"),
        format!("RCPT TO:<{rcpt}>"),
    ] {
        let said = smtp_say(&mut client, &command).await;
        assert!(said.starts_with("250"), "{command}: {said}");
    }
    assert!(smtp_say(&mut client, "DATA").await.starts_with("354"));
    let data = raw.replace("\r\n", "\n").replace('\n', "\r\n");
    client.write_all(data.as_bytes()).await.unwrap();
    let said = smtp_say(&mut client, "\r\n.").await;
    assert!(said.starts_with("250"), "{said}");
    let _ = smtp_say(&mut client, "QUIT").await;
}

/// A message from `who` (Fred or John) to `to`, with more headers and a plain-text body.
fn mail(who: (&str, &str), id: &str, to: &str, extra: &str, body: &str) -> String {
    let (name, address) = who;
    format!(
        "From: {name} <{address}>\nTo: <{to}>\nMessage-ID: <{id}@example.org>\n\
         Subject: Re: Mailed Barmy: a private message\n{extra}\
         Content-Type: text/plain; charset=utf-8\n\n{body}"
    )
}

/// A delivered mail, parsed as the recipient's program reads it.
struct Got {
    raw: String,
    mail: mail::InboundMail,
}

/// The relayed private messages `to` has got so far, oldest first.
fn relayed_to(sink: &SmtpSink, to: &str) -> Vec<Got> {
    let mut got: Vec<Got> = sink
        .deliveries()
        .into_iter()
        .filter(|(rcpt, _)| rcpt == to)
        .map(|(_, raw)| Got {
            mail: mail::inbound::parse(raw.as_bytes()).unwrap(),
            raw,
        })
        .filter(|got| {
            got.mail
                .subject
                .as_deref()
                .is_some_and(|s| s.contains("a private message from"))
        })
        .collect();
    got.sort_by_key(|got| got.mail.message_id.clone());
    got
}

/// Waits until `to` has got `count` relayed private messages; returns the one not in `seen`.
async fn next_relayed(sink: &SmtpSink, to: &str, seen: &mut Vec<String>) -> Got {
    let started = Instant::now();
    loop {
        for got in relayed_to(sink, to) {
            let id = got.mail.message_id.clone().unwrap_or_default();
            if !seen.contains(&id) {
                seen.push(id);
                return got;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "no new private message reached {to}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The confirmations `to` has been sent (queued), newest last.
async fn confirmations(pool: &PgPool, to: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT body_text FROM outbound_messages WHERE idempotency_key LIKE 'reply:%' \
         AND to_address = $1 ORDER BY id",
    )
    .bind(to)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// Waits until `to` has `count` confirmations; returns the newest.
pub(super) async fn confirmation(pool: &PgPool, to: &str, count: usize) -> String {
    let started = Instant::now();
    loop {
        let all = confirmations(pool, to).await;
        if all.len() >= count {
            return all[count - 1].clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{to} has {} confirmations, not {count}",
            all.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The player's current orders and press on file, as written.
pub(super) async fn on_file(
    pool: &PgPool,
    game: GameId,
    engine_id: i64,
) -> (Vec<String>, Vec<String>) {
    let orders = sqlx::query_scalar(
        "SELECT o.raw_text FROM orders o JOIN players p ON p.id = o.player_id \
         WHERE p.game_id = $1 AND p.engine_player_id = $2 AND o.superseded_at IS NULL",
    )
    .bind(game)
    .bind(engine_id)
    .fetch_all(pool)
    .await
    .unwrap();
    let press = sqlx::query_scalar(
        "SELECT pr.text FROM press pr JOIN players p ON p.id = pr.player_id \
         WHERE p.game_id = $1 AND p.engine_player_id = $2 \
         ORDER BY pr.id",
    )
    .bind(game)
    .bind(engine_id)
    .fetch_all(pool)
    .await
    .unwrap();
    (orders, press)
}

/// The text a relayed private message carries between its first line and the instructions.
fn relayed_text(got: &Got) -> String {
    let body = got.mail.body.replace("\r\n", "\n");
    let after = body.split_once("relayed by Admiralty:\n\n").unwrap().1;
    after.split_once("\n\nTo answer").unwrap().0.to_owned()
}

/// The relay address a mail's Reply-To names.
fn reply_to(got: &Got) -> String {
    got.mail.reply_to.first().unwrap().address.clone()
}

#[tokio::test]
async fn a_reply_to_a_relayed_tell_goes_back_as_a_tell_in_every_form_clients_send() {
    let db = TestDatabase::migrated().await;
    let game = game(&db.pool).await;
    let fred_address = reply_address_of(&db.pool, game, 1).await;
    let john_address = reply_address_of(&db.pool, game, 2).await;
    let sink = SmtpSink::start(free_port());
    let smtp_url = format!("smtp://127.0.0.1:{}", sink.port());
    let doors = Doors::start_on(
        db,
        &[
            ("ADMIRALTY_MAIL_DOMAIN", DOMAIN),
            ("ADMIRALTY_NOW", NOW),
            ("ADMIRALTY_SMTP_URL", &smtp_url),
            // John answers seven times below: the seventh is over this budget.
            ("ADMIRALTY_TELLS_PER_HOUR", "6"),
        ],
    )
    .await;
    let pool = doors.db.pool.clone();
    let fred = ("Fred Bloggs", FRED);
    let john = ("John Smith", JOHN);

    // John has orders and press on file.
    let orders = "G13, K19\n\nPRESS Steady, lads.\n";
    send(
        &doors,
        JOHN,
        &john_address,
        &mail(john, "j-orders", &john_address, "", orders),
    )
    .await;
    confirmation(&pool, JOHN, 1).await;
    let john_on_file = on_file(&pool, game, 2).await;
    assert_eq!(
        john_on_file.1,
        vec!["Steady, lads.".to_owned()],
        "{john_on_file:?}"
    );

    // Fred tells John.
    let tell = "TELL John Smith: Shall we share the Channel, John?\n";
    send(
        &doors,
        FRED,
        &fred_address,
        &mail(fred, "f-tell", &fred_address, "", tell),
    )
    .await;
    let mut seen_by_john = Vec::new();
    let relayed = next_relayed(&sink, JOHN, &mut seen_by_john).await;
    assert_eq!(relayed_text(&relayed), "Shall we share the Channel, John?");
    let relay_address = reply_to(&relayed);
    assert!(relay_address.starts_with("orders+"), "{relay_address}");
    assert_ne!(
        relay_address, john_address,
        "a relay address, not John's orders address"
    );
    assert!(
        !relayed.raw.contains(FRED),
        "Fred's address is not shown:\n{}",
        relayed.raw
    );
    let relayed_id = relayed.mail.message_id.clone().unwrap();

    let quoted_original = "> A private message from Fred Bloggs in Mailed Barmy, relayed by Admiralty:\n\
                           >\n> Shall we share the Channel, John?\n";
    // Each form of reply real programs send, and the text Fred must get.
    let in_reply_to = format!("In-Reply-To: <{relayed_id}>\nReferences: <{relayed_id}>\n");
    let html = format!(
        "From: John Smith <{JOHN}>\nTo: <{relay_address}>\nMessage-ID: <j-html@example.org>\n\
         Subject: Re: a private message\n{in_reply_to}MIME-Version: 1.0\n\
         Content-Type: text/html; charset=utf-8\n\n\
         <html><body><div dir=\"ltr\">Until turn 6, then.</div><br>\
         <div class=\"gmail_quote\"><div dir=\"ltr\" class=\"gmail_attr\">On Mon, 1 Dec 2026 at 10:00, \
         Admiralty &lt;orders@{DOMAIN}&gt; wrote:<br></div>\
         <blockquote class=\"gmail_quote\">Shall we share the Channel, John?</blockquote></div>\
         </body></html>\n"
    );
    let forms: Vec<(&str, String, &str)> = vec![
        (
            "quoted original with \"> \", answered below it",
            mail(
                john,
                "j-quoted",
                &relay_address,
                &in_reply_to,
                &format!("{quoted_original}\nAgreed, Fred. Deal.\n"),
            ),
            "Agreed, Fred. Deal.",
        ),
        (
            "top-posted above \"On ... wrote:\"",
            mail(
                john,
                "j-top",
                &relay_address,
                &in_reply_to,
                &format!(
                    "Agreed. The Channel is yours north of K.\n\nAnd keep clear of G13.\n\n\
                           On Mon, 1 Dec 2026 at 10:00, Admiralty <orders@{DOMAIN}> wrote:\n{quoted_original}"
                ),
            ),
            "Agreed. The Channel is yours north of K.\n\nAnd keep clear of G13.",
        ),
        (
            "Outlook's -----Original Message----- block",
            mail(
                john,
                "j-outlook",
                &relay_address,
                &in_reply_to,
                &format!(
                    "Fine by me.\n\n-----Original Message-----\nFrom: Admiralty <orders@{DOMAIN}>\n\
                           Sent: Monday, December 1, 2026 10:00 AM\nTo: John Smith <{JOHN}>\n\
                           Subject: Mailed Barmy: a private message from Fred Bloggs\n\n\
                           Shall we share the Channel, John?\n"
                ),
            ),
            "Fine by me.",
        ),
        ("HTML only, Gmail's quote", html, "Until turn 6, then."),
        (
            "to the relay address without In-Reply-To",
            mail(
                john,
                "j-bare",
                &relay_address,
                "",
                "No headers, still for you, Fred.\n",
            ),
            "No headers, still for you, Fred.",
        ),
        (
            "to John's own orders address with In-Reply-To",
            mail(
                john,
                "j-own",
                &john_address,
                &in_reply_to,
                &format!("Through my own address: agreed.\n\n{quoted_original}"),
            ),
            "Through my own address: agreed.",
        ),
    ];
    let mut seen_by_fred = Vec::new();
    let mut johns_confirmations = 1;
    let mut printed = None;
    for (form, raw, expected) in &forms {
        let to = if raw.contains(&format!("To: <{john_address}>")) {
            &john_address
        } else {
            &relay_address
        };
        send(&doors, JOHN, to, raw).await;
        let got = next_relayed(&sink, FRED, &mut seen_by_fred).await;
        assert_eq!(relayed_text(&got), *expected, "{form}:\n{}", got.mail.body);
        assert!(
            !got.raw.contains(JOHN),
            "{form}: John's address is shown:\n{}",
            got.raw
        );
        assert!(
            got.mail
                .subject
                .as_deref()
                .unwrap()
                .contains("from John Smith"),
            "{form}"
        );
        let fred_relay = reply_to(&got);
        assert_ne!(
            fred_relay, fred_address,
            "{form}: Fred's answer goes to a relay address"
        );
        johns_confirmations += 1;
        let confirmed = confirmation(&pool, JOHN, johns_confirmations).await;
        assert!(
            confirmed.contains("is not read as orders"),
            "{form}:\n{confirmed}"
        );
        assert!(
            confirmed.contains("relayed to Fred Bloggs"),
            "{form}:\n{confirmed}"
        );
        assert_eq!(
            on_file(&pool, game, 2).await,
            john_on_file,
            "{form}: John's orders and press stand"
        );
        printed.get_or_insert(got.raw);
    }
    std::fs::write("/tmp/tell/relayed-to-fred.eml", printed.unwrap()).ok();

    // Fred answers John's answer: the conversation goes on, both ways.
    let fred_relay = reply_to(&relayed_to(&sink, FRED)[0]);
    let answer = mail(
        fred,
        "f-answer",
        &fred_relay,
        "",
        "Splendid. Until turn 6.\n\n> Fine by me.\n",
    );
    send(&doors, FRED, &fred_relay, &answer).await;
    let got = next_relayed(&sink, JOHN, &mut seen_by_john).await;
    assert_eq!(relayed_text(&got), "Splendid. Until turn 6.");
    assert_eq!(
        reply_to(&got),
        relay_address,
        "one relay address for John's side"
    );
    assert!(!got.raw.contains(FRED));

    // A reply is a TELL: it counts against John's TELL budget (6 an hour, all spent).
    let over = mail(john, "j-over", &relay_address, "", "One more thing.\n");
    send(&doors, JOHN, &relay_address, &over).await;
    johns_confirmations += 1;
    let confirmed = confirmation(&pool, JOHN, johns_confirmations).await;
    assert!(confirmed.contains("was NOT relayed"), "{confirmed}");

    // From: alone proves nothing: a reply to Admiralty's plain address with In-Reply-To is
    // refused like orders would be, and relays nothing.
    let forged = mail(
        john,
        "j-forged",
        &format!("orders@{DOMAIN}"),
        &in_reply_to,
        "Forged agreement.\n",
    );
    send(&doors, JOHN, &format!("orders@{DOMAIN}"), &forged).await;
    johns_confirmations += 1;
    let refused = confirmation(&pool, JOHN, johns_confirmations).await;
    assert!(!refused.contains("relayed"), "{refused}");

    // Fred resigns: John's reply gets a clear answer with his text, and is not lost as orders.
    send(
        &doors,
        FRED,
        &fred_address,
        &mail(fred, "f-resign", &fred_address, "", "RESIGN\n"),
    )
    .await;
    let late = mail(
        john,
        "j-late",
        &relay_address,
        &in_reply_to,
        "Are you still there, Fred?\n",
    );
    send(&doors, JOHN, &relay_address, &late).await;
    johns_confirmations += 1;
    let answer = confirmation(&pool, JOHN, johns_confirmations).await;
    assert!(
        answer.contains("was NOT relayed: Fred Bloggs has left Mailed Barmy"),
        "{answer}"
    );
    assert!(answer.contains("| Are you still there, Fred?"), "{answer}");
    assert_eq!(on_file(&pool, game, 2).await, john_on_file);

    // The game ends: the same.
    sqlx::query("UPDATE games SET status = 'finished' WHERE id = $1")
        .bind(game)
        .execute(&pool)
        .await
        .unwrap();
    let ended = mail(john, "j-ended", &relay_address, "", "Good game, Fred.\n");
    send(&doors, JOHN, &relay_address, &ended).await;
    johns_confirmations += 1;
    let answer = confirmation(&pool, JOHN, johns_confirmations).await;
    assert!(
        answer.contains("was NOT relayed: Mailed Barmy is over"),
        "{answer}"
    );
    assert!(answer.contains("| Good game, Fred."), "{answer}");
    std::fs::write("/tmp/tell/john-after-the-end.txt", &answer).ok();

    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(
        relayed_to(&sink, FRED).len(),
        forms.len(),
        "nothing more reached Fred"
    );
    doors.stop().await;
}
