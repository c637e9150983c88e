//! Raw inbound mail through the whole parse, `mail::read` (MIME -> loop verdict -> token ->
//! quotes -> commands), then a reply built from what was read, as the service builds one.
//!
//! Properties besides "no panic":
//! - reading is deterministic (the same bytes read twice give the same reading);
//! - a robot's mail (bounce, auto-reply, list) carries no commands and no orders;
//! - every order line is a kept line of the message, with its original line number;
//! - no PASSWORD secret survives in the kept lines or the body;
//! - the reply addressed to the sender, with the sender's display name, a subject made from
//!   theirs and their Message-ID and References, has exactly the headers Admiralty writes, each
//!   on one line with no control character, ASCII but for an internationalised address in
//!   To: nothing from the inbound message can add or split a header.
#![no_main]

use std::time::{Duration, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use mail::Mailbox;
use mail::outbound::{AutoSubmitted, Outgoing};

/// The header fields `mail::outbound::build` writes for a plain-text reply.
const REPLY_HEADERS: &[&str] = &[
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
];

fuzz_target!(
    init: {
        // libFuzzer-sys aborts at any panic, even one caught: `mail` catches mail-parser's
        // panics on purpose (see `mail::inbound::parse`). With the default hook, a panic that
        // is not caught still ends the run as a crash.
        let _ = std::panic::take_hook();
    },
    |raw: &[u8]| {
    let Ok(reading) = mail::read(raw, "orders") else {
        return;
    };
    let again = mail::read(raw, "orders").expect("a message read once reads again");
    assert_eq!(
        serde_json::to_string(&reading).expect("a reading serialises"),
        serde_json::to_string(&again).expect("a reading serialises"),
        "reading is not deterministic"
    );

    if !reading.delivery.may_reply() {
        assert!(
            reading.commands.commands.is_empty() && reading.commands.orders.is_empty(),
            "a robot's mail was given commands"
        );
    }

    for order in &reading.commands.orders {
        let kept = reading
            .text
            .lines
            .iter()
            .find(|line| line.number == order.line)
            .unwrap_or_else(|| panic!("order line {} is not a kept line", order.line));
        assert_eq!(
            kept.text.trim_end(),
            order.text.trim_end(),
            "order line {} differs from the line as written",
            order.line
        );
    }

    for line in &reading.text.lines {
        assert!(
            matches!(
                mail::commands::redact(&line.text),
                std::borrow::Cow::Borrowed(_)
            ) || line.text == "PASSWORD [redacted]",
            "a PASSWORD line is kept unredacted"
        );
    }
    for line in reading.mail.body.split('\n') {
        assert!(
            matches!(mail::commands::redact(line), std::borrow::Cow::Borrowed(_))
                || line == "PASSWORD [redacted]",
            "a PASSWORD line is left in the body"
        );
    }

    check_reply(&reading);
    }
);

/// Builds the reply the service would send and checks its header block.
fn check_reply(reading: &mail::Reading) {
    let Some(from) = reading.mail.from.clone() else {
        return;
    };
    let reply = Outgoing {
        from: Mailbox {
            address: "orders@example.org".into(),
            name: Some("Admiralty".into()),
        },
        to: from.clone(),
        reply_to: Some(Mailbox {
            address: "orders+k7qw2xzp4m9rtb3nfh5cgd6yae@example.org".into(),
            name: Some("Admiralty".into()),
        }),
        subject: format!("Re: {}", reading.mail.subject.as_deref().unwrap_or("")),
        text: reading.mail.body.clone(),
        html: None,
        message_id: "<reply.fuzz@example.org>".into(),
        date: UNIX_EPOCH + Duration::from_secs(1_741_000_000),
        in_reply_to: reading.mail.message_id.clone(),
        references: reading.mail.references.clone(),
        auto_submitted: AutoSubmitted::AutoReplied,
        // A reply is personal mail: no list headers (issue 29).
        list: None,
    };
    // An address that lettre refuses is an error for the caller (the outbox marks it failed).
    let Ok(bytes) = mail::outbound::build(&reply) else {
        return;
    };
    let head_end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a built message has a header block");
    // The header block, each line with its CRLF.
    let head = bytes.get(..head_end + 2).unwrap_or_default();
    let mut names = Vec::new();
    for line in head.split_inclusive(|&b| b == b'\n') {
        let line = line
            .strip_suffix(b"\n")
            .unwrap_or_else(|| panic!("a header line without its line end: {line:?}"));
        let line = line
            .strip_suffix(b"\r")
            .unwrap_or_else(|| panic!("a header line ends in a bare LF: {line:?}"));
        assert!(!line.contains(&b'\r'), "a bare CR in a header: {line:?}");
        assert!(
            line.len() <= 998,
            "a header line longer than RFC 5322 allows"
        );
        let text = std::str::from_utf8(line)
            .unwrap_or_else(|_| panic!("a header line that is not UTF-8: {line:?}"));
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\t'),
            "a control character in a header: {text:?}"
        );
        // Names are RFC 2047-encoded; only an address as the sender wrote it may be UTF-8
        // (RFC 6532, an internationalised address), on the To line or its continuation.
        if line.starts_with(b" ") || line.starts_with(b"\t") {
            let field = names.last().map_or("", String::as_str);
            assert!(
                text.is_ascii() || field == "to",
                "a folded {field} line that is not ASCII: {text:?}"
            );
            continue; // folded continuation of the field above
        }
        let colon = line
            .iter()
            .position(|&b| b == b':')
            .unwrap_or_else(|| panic!("a header line without a field name: {line:?}"));
        let name = String::from_utf8_lossy(line.get(..colon).unwrap_or_default()).to_lowercase();
        assert!(
            REPLY_HEADERS.contains(&name.as_str()),
            "the reply has an unexpected header {name:?}"
        );
        assert!(
            text.is_ascii() || name == "to",
            "a header line that is not ASCII: {text:?}"
        );
        assert!(!names.contains(&name), "the reply repeats header {name:?}");
        names.push(name);
    }
    let parsed = mail::inbound::parse(&bytes).expect("the reply reads back");
    let to = parsed.to.first().expect("the reply has its recipient");
    assert_eq!(
        to.address.to_lowercase(),
        from.address.trim().to_lowercase(),
        "the reply's recipient changed"
    );
    assert_eq!(parsed.to.len(), 1, "the reply gained recipients");
    assert!(parsed.cc.is_empty(), "the reply gained Cc recipients");
}
