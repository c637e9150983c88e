//! The golden corpus: every `tests/corpus/NAME.eml` is read with `mail::read(raw, "orders")`
//! and the result compared with `NAME.json` (mail-parser's own golden-test style). The JSON's
//! `about` field says what the message is and is not compared.
//!
//! After a deliberate change, `MAIL_CORPUS_BLESS=1 cargo test -p mail --test corpus` rewrites
//! the expected files (keeping each `about`); review the diff before committing it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code"
)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// What is compared: the facts the server acts on.
fn summary(raw: &[u8]) -> Value {
    let reading = match mail::read(raw, "orders") {
        Ok(reading) => reading,
        Err(error) => return json!({ "error": error.to_string() }),
    };
    let mail = &reading.mail;
    json!({
        "message_id": mail.message_id,
        "from": mail.from,
        "subject": mail.subject,
        "token": reading.token,
        "delivery": reading.delivery,
        "body_source": mail.body_source,
        "truncated": mail.truncated.any(),
        "repaired": mail.repaired,
        "attachments_ignored": mail.attachments,
        "removed": reading.text.removed,
        "commands": reading.commands.commands,
        "orders": reading.commands.orders,
        "problems": reading.commands.problems,
    })
}

#[test]
fn corpus() {
    let bless = std::env::var_os("MAIL_CORPUS_BLESS").is_some();
    let mut names: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "eml"))
        .collect();
    names.sort();
    assert!(names.len() >= 30, "the corpus has {} messages", names.len());

    let mut failures = Vec::new();
    for eml in &names {
        let raw = fs::read(eml).unwrap();
        let mut actual = summary(&raw);
        let expected_path = eml.with_extension("json");
        let expected: Option<Value> = fs::read_to_string(&expected_path)
            .ok()
            .map(|text| serde_json::from_str(&text).unwrap());
        let about = expected
            .as_ref()
            .and_then(|e| e.get("about").cloned())
            .unwrap_or_else(|| json!("TODO: say what this message is"));
        let mut expected_body = expected.clone().unwrap_or(Value::Null);
        if let Value::Object(map) = &mut expected_body {
            map.remove("about");
        }
        if actual != expected_body {
            if bless {
                let mut with_about = serde_json::Map::new();
                with_about.insert("about".to_owned(), about);
                if let Value::Object(map) = &mut actual {
                    with_about.append(map);
                }
                let text = serde_json::to_string_pretty(&Value::Object(with_about)).unwrap();
                fs::write(&expected_path, text + "\n").unwrap();
            } else {
                failures.push(format!(
                    "{}:\nexpected {}\nactual   {}",
                    eml.display(),
                    serde_json::to_string_pretty(&expected_body).unwrap(),
                    serde_json::to_string_pretty(&actual).unwrap()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The doors key a stored message by `message_id`, which reads the headers only: it must find
/// what the whole parse finds.
#[test]
fn the_header_only_message_id_is_the_whole_parse_s() {
    let mut checked = 0;
    for entry in fs::read_dir(corpus_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "eml") {
            continue;
        }
        let raw = fs::read(&path).unwrap();
        let whole = mail::parse(&raw).ok().and_then(|m| m.message_id);
        assert_eq!(mail::inbound::message_id(&raw), whole, "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} corpus messages");
}

/// Every message also reads the same from LF and CRLF line ends (a Maildir file and an SMTP
/// stream), apart from what the line ends themselves change: the size of an attachment that
/// is not base64.
#[test]
fn line_ends_do_not_matter() {
    for entry in fs::read_dir(corpus_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "eml") {
            continue;
        }
        let raw = fs::read(&path).unwrap();
        let lf: Vec<u8> = String::from_utf8_lossy(&raw)
            .replace("\r\n", "\n")
            .into_bytes();
        let crlf = String::from_utf8_lossy(&lf)
            .replace('\n', "\r\n")
            .into_bytes();
        let without_sizes = |mut summary: Value| {
            if let Some(Value::Array(attachments)) = summary.get_mut("attachments_ignored") {
                for attachment in attachments {
                    if let Value::Object(map) = attachment {
                        map.remove("size");
                    }
                }
            }
            summary
        };
        let a = without_sizes(summary(&lf));
        let b = without_sizes(summary(&crlf));
        assert_eq!(a, b, "{}", path.display());
    }
}
