//! Invariants over arbitrary input: reading never panics, kept lines are the lines as written,
//! and no text put into an outbound message can add a header.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code"
)]

use std::time::{Duration, Instant, UNIX_EPOCH};

use mail::address::MailboxKey;
use mail::outbound::{AutoSubmitted, Outgoing};
use mail::{Mailbox, commands, inbound, quotes};
use proptest::prelude::*;

/// Pieces of real messages, so random sequences reach the MIME, charset, HTML and quote code.
const FRAGMENTS: &[&str] = &[
    "From: Fred <fred@example.com>\r\n",
    "To: orders+k7qw2xzp4m9rtb3nfh5cgd6yae@example.org\r\n",
    "Subject: =?utf-8?q?Re=3A_=C3=A9?=\r\n",
    "Subject: =?iso-8859-1?b?6Q==?=\r\n",
    "Content-Type: multipart/mixed; boundary=b\r\n",
    "Content-Type: multipart/alternative; boundary=\"b\"\r\n",
    "Content-Type: text/plain; charset=windows-1252; format=flowed; delsp=yes\r\n",
    "Content-Type: text/html; charset=utf-8\r\n",
    "Content-Type: message/rfc822\r\n",
    "Content-Transfer-Encoding: base64\r\n",
    "Content-Transfer-Encoding: quoted-printable\r\n",
    "Content-Disposition: attachment; filename=\"a.pdf\"\r\n",
    "Return-Path: <>\r\n",
    "Auto-Submitted: auto-replied\r\n",
    "\r\n",
    "\n",
    "--b\r\n",
    "--b--\r\n",
    "RklSRSBCNw==\r\n",
    "=E9=\r\n",
    "=C3=\r\n",
    "<div>",
    "</div>",
    "<blockquote>",
    "<p class=MsoNormal>",
    "<!--",
    "<style>",
    "&#x1F6A2;",
    "&nbsp;",
    "&",
    "<",
    "> ",
    "On Mon, 3 Mar 2025, Admiralty <orders@example.org> wrote:\n",
    "-- \n",
    "Sent from my iPhone\n",
    "-----Original Message-----\n",
    "From: x\nSent: y\nTo: z\n",
    "PRESS hello \n",
    "TELL Fred: hi\n",
    "PASSWORD secret\n",
    "GAME g\n",
    "FIRE B7\n",
    "Thanks,\nFred\n",
    "\u{0}",
    "\u{feff}",
    "é",
    "🚢",
];

fn message_like() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => proptest::sample::select(FRAGMENTS).prop_map(|f| f.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..16),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    // PROPTEST_CASES=100000 for a longer hunt.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512)
    ))]

    #[test]
    fn arbitrary_bytes_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = mail::read(&raw, "orders");
    }

    /// However a mailbox's address is spelled, the limits count it as one.
    #[test]
    fn every_spelling_of_a_mailbox_has_one_key(
        local in "[a-zA-Z0-9][a-zA-Z0-9._-]{0,20}",
        domain in "[a-zA-Z0-9-]{1,12}\\.[a-zA-Z]{2,6}",
        tag in "[a-zA-Z0-9+._-]{0,10}",
    ) {
        let plain = MailboxKey::parse(&format!("{local}@{domain}")).unwrap();
        for spelling in [
            format!("{}@{}", local.to_uppercase(), domain.to_uppercase()),
            format!("{local}+{tag}@{domain}"),
            format!("\"{local}\"@{domain}"),
            format!("\"{local}+{tag}\"@{domain}."),
            format!("<{local}@{domain}>"),
        ] {
            let key = MailboxKey::parse(&spelling);
            prop_assert_eq!(key.as_ref(), Some(&plain), "{}", spelling);
        }
    }

    #[test]
    fn any_address_text_is_read_without_panic(address in "\\PC{0,80}") {
        if let Some(key) = MailboxKey::parse(&address) {
            prop_assert_eq!(format!("{}@{}", key.local(), key.domain()), key.as_str());
        }
    }

    #[test]
    fn message_like_bytes_never_panic(raw in message_like()) {
        if let Ok(reading) = mail::read(&raw, "orders") {
            // Whatever was read, the kept lines are numbered in order.
            let numbers: Vec<usize> = reading.text.lines.iter().map(|l| l.number).collect();
            prop_assert!(numbers.windows(2).all(|w| w[0] < w[1]));
            // PASSWORD lines are redacted in the kept text.
            for line in &reading.text.lines {
                prop_assert_eq!(commands::redact(&line.text), line.text.as_str());
            }
        }
    }

    #[test]
    fn kept_lines_are_the_lines_as_written(body in proptest::collection::vec(
        proptest::sample::select(FRAGMENTS), 0..40).prop_map(|p| p.concat()),
    ) {
        let original = quotes::number_lines(&body);
        let stripped = quotes::strip(&body);
        for line in &stripped.lines {
            prop_assert_eq!(&original[line.number - 1].text, &line.text);
        }
        for removal in &stripped.removed {
            prop_assert!(removal.first <= removal.last);
            prop_assert!(stripped.lines.iter().all(|l| l.number < removal.first || l.number > removal.last));
        }
        let parsed = commands::parse(&stripped.lines);
        for order in &parsed.orders {
            prop_assert_eq!(original[order.line - 1].text.trim_end(), order.text.as_str());
        }
    }

    #[test]
    fn text_never_adds_a_header(
        subject in any::<String>(),
        to_name in any::<String>(),
        from_name in "[\\PC\r\n\t]{0,40}",
        text in any::<String>(),
        html in proptest::option::of(any::<String>()),
    ) {
        let mail = Outgoing {
            from: Mailbox { address: "orders@example.org".into(), name: Some(from_name) },
            to: Mailbox { address: "fred@example.com".into(), name: Some(to_name) },
            reply_to: Some(Mailbox {
                address: "orders+k7qw2xzp4m9rtb3nfh5cgd6yae@example.org".into(),
                name: None,
            }),
            subject: subject.clone(),
            text,
            html,
            message_id: "q-1@example.org".into(),
            date: UNIX_EPOCH + Duration::from_secs(1_741_000_000),
            in_reply_to: Some(subject.clone()),
            references: vec![subject.clone()],
            auto_submitted: AutoSubmitted::AutoReplied,
            list: None,
        };
        let raw = mail::build(&mail).unwrap();
        let text = String::from_utf8(raw.clone()).unwrap();
        let head = text.split("\r\n\r\n").next().unwrap();
        let mut names: Vec<String> = head
            .split("\r\n")
            .filter(|line| !line.starts_with([' ', '\t']))
            .map(|line| line.split(':').next().unwrap().to_owned())
            .collect();
        names.sort();
        let mut allowed = vec![
            "Auto-Submitted", "Content-Transfer-Encoding", "Content-Type", "Date", "From",
            "MIME-Version", "Message-ID", "Reply-To", "Subject", "To", "X-Auto-Response-Suppress",
            "X-Loop", "In-Reply-To", "References",
        ];
        allowed.sort_unstable();
        for name in &names {
            prop_assert!(allowed.contains(&name.as_str()), "extra header {:?} in\n{}", name, head);
        }
        prop_assert_eq!(names.iter().filter(|n| *n == "To").count(), 1);
        // Every header line ends in CRLF: no bare CR or LF inside the head.
        prop_assert!(!head.replace("\r\n", "").contains(['\r', '\n']));
        // And it reads back as what was meant.
        let back = inbound::parse(&raw).unwrap();
        prop_assert_eq!(back.message_id.as_deref(), Some("q-1@example.org"));
        prop_assert_eq!(back.to.first().map(|m| m.address.as_str()), Some("fred@example.com"));
    }

    #[test]
    fn tokens_round_trip(token in "[a-z0-9]{16,48}") {
        let token = mail::parse_token(&token).unwrap();
        let address = mail::reply_address("orders", &token, "example.org");
        prop_assert_eq!(mail::reply_token([address.as_str()], "orders"), Some(token));
    }
}

#[test]
fn outbound_reads_back_as_sent() {
    let mail = Outgoing {
        from: Mailbox {
            address: "orders@example.org".into(),
            name: Some("Admiralty".into()),
        },
        to: Mailbox {
            address: "chloe.martin@example.com".into(),
            name: Some("Chloé Martin".into()),
        },
        reply_to: None,
        subject: "automne-salvo : tour 3 — vos ordres".into(),
        text: "Vos ordres :\nFIRE B7 → un tir sur B7\n".into(),
        html: Some("<p>Vos ordres&nbsp;: FIRE B7</p>".into()),
        message_id: "<c-9@example.org>".into(),
        date: UNIX_EPOCH + Duration::from_secs(1_741_000_000),
        in_reply_to: None,
        references: Vec::new(),
        auto_submitted: AutoSubmitted::AutoGenerated,
        list: None,
    };
    let raw = mail::build(&mail).unwrap();
    let back = inbound::parse(&raw).unwrap();
    assert_eq!(
        back.subject.as_deref(),
        Some("automne-salvo : tour 3 — vos ordres")
    );
    assert_eq!(
        back.to.first().and_then(|m| m.name.as_deref()),
        Some("Chloé Martin")
    );
    assert_eq!(
        back.body.trim_end(),
        "Vos ordres :\nFIRE B7 → un tir sur B7"
    );
    assert_eq!(back.header("Auto-Submitted"), Some("auto-generated"));
    // Our own mail, returned by a robot, is never answered.
    assert!(!mail::classify(&back).may_reply());
}

#[test]
fn huge_and_deep_inputs_are_capped_and_fast() {
    let started = Instant::now();
    let mut raw = b"From: a@example.com\r\nContent-Type: text/html\r\n\r\n".to_vec();
    raw.extend(std::iter::repeat_n(b"<blockquote><div>".as_slice(), 300_000).flatten());
    raw.extend_from_slice(b"FIRE B7");
    let mail = inbound::parse(&raw).unwrap();
    assert!(mail.truncated.message);
    let mut raw = b"From: a@example.com\r\n\r\n".to_vec();
    raw.extend(std::iter::repeat_n(b"<<<<&&&& ".as_slice(), 100_000).flatten());
    let _ = mail::read(&raw, "orders").unwrap();
    let mut raw = b"From: a@example.com\r\nContent-Type: text/html\r\n\r\n".to_vec();
    raw.extend(std::iter::repeat_n(b"<p>a</p><br>&amp;".as_slice(), 150_000).flatten());
    let reading = mail::read(&raw, "orders").unwrap();
    assert!(reading.mail.truncated.any());
    // Debug build, shared machine: generous, but a quadratic pass would take minutes.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
