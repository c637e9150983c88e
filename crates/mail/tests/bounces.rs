//! The bounce corpus: every `tests/bounces/NAME.eml` is read with `mail::bounce::read` and the
//! report compared with `NAME.json` (the corpus harness's style). `postfix_dsn_captured.eml`
//! was written by Debian's Postfix 3.7 itself (a private instance refusing one domain with
//! `error:`); the others are written after each MTA's documented format.
//!
//! After a deliberate change, `MAIL_CORPUS_BLESS=1 cargo test -p mail --test bounces` rewrites
//! the expected files; review the diff before committing it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code"
)]

use std::fs;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bounces")
}

#[test]
fn bounce_corpus() {
    let bless = std::env::var_os("MAIL_CORPUS_BLESS").is_some();
    let mut names: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "eml"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "the corpus has {} messages", names.len());
    let mut failures = Vec::new();
    for eml in &names {
        let raw = fs::read(eml).unwrap();
        let got = serde_json::to_value(mail::bounce::read(&raw)).unwrap();
        let json = eml.with_extension("json");
        if bless {
            fs::write(&json, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
            continue;
        }
        let want: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&json).unwrap_or_default())
                .unwrap_or_default();
        if got != want {
            failures.push(format!(
                "{}:\n  got  {}\n  want {}",
                eml.display(),
                got,
                want
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reader is about recipients: a report names the right ones, hard or soft.
#[test]
fn the_captured_postfix_dsn_names_its_failed_recipient() {
    let raw = fs::read(corpus_dir().join("postfix_dsn_captured.eml")).unwrap();
    let Some(mail::bounce::Report::Bounce { recipients, .. }) = mail::bounce::read(&raw) else {
        panic!("not read as a bounce");
    };
    assert_eq!(recipients.len(), 1);
    assert_eq!(recipients[0].final_recipient, "fred@refused.example");
    assert_eq!(recipients[0].status.as_deref(), Some("5.1.1"));
    assert_eq!(recipients[0].severity, mail::bounce::Severity::Hard);
}
