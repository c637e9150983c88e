#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Every ID of the catalogue (rules `FOREVER-…`, rulings `FOREVER-GM-nn`, examples
//! `FOREVER-EX-nn`) is cited by a test, or listed in `docs/rules/forever.md` under "Not tested"
//! with the reason; and every engine ruling (`FOREVER-ADM-nn`) in the docs is cited by a test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The IDs the catalogue defines: each bold `**FOREVER-…` at the start of an entry.
fn catalogue_ids(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (start, _) in text.match_indices("**FOREVER-") {
        let rest = &text[start + 2..];
        let id: String = rest
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let id = id.trim_end_matches('-').to_string();
        if id.len() > "FOREVER-".len() {
            found.insert(id);
        }
    }
    found
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "json") {
            out.push(path);
        }
    }
}

/// The tests' text, with test names like `forever_mod_def_4` read as `FOREVER-MOD-DEF-4`, and
/// the test modules of the source files.
fn tests_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("tests"), &mut paths);
    let mut text = String::new();
    for path in paths {
        let body = std::fs::read_to_string(&path).unwrap();
        text.push_str(&body);
        text.push('\n');
        text.push_str(&body.to_uppercase().replace('_', "-"));
        text.push('\n');
    }
    let mut sources = Vec::new();
    files(&root.join("src"), &mut sources);
    for path in sources {
        let body = std::fs::read_to_string(&path).unwrap();
        if let Some(index) = body.find("#[cfg(test)]") {
            let tests = &body[index..];
            text.push_str(tests);
            text.push_str(&tests.to_uppercase().replace('_', "-"));
        }
    }
    text
}

/// Is `id` in `text` as a whole ID (not the start of a longer one: `FOREVER-WPN-1` is not
/// cited by `FOREVER-WPN-10`, nor `FOREVER-WPN-GUN` by `FOREVER-WPN-GUN-1`; a test name such as
/// `forever_ex_02_ship_that_can_move` does cite `FOREVER-EX-02`)?
fn cites(text: &str, id: &str) -> bool {
    text.match_indices(id).any(|(start, _)| {
        let rest = &text[start + id.len()..];
        let longer = rest.starts_with(|c: char| c.is_ascii_alphanumeric())
            || (rest.starts_with('-') && rest[1..].starts_with(|c: char| c.is_ascii_digit()));
        !longer
    })
}

#[test]
fn every_catalogue_id_is_cited_by_a_test_or_a_written_ruling() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let catalogue_path = root.join("../../../shared/rules/forever.md");
    let Ok(catalogue) = std::fs::read_to_string(&catalogue_path) else {
        eprintln!(
            "SKIPPED: the catalogue is not at {}; cannot check ID coverage",
            catalogue_path.display()
        );
        return;
    };
    let ids = catalogue_ids(&catalogue);
    assert!(
        ids.len() >= 230,
        "only {} IDs found in the catalogue",
        ids.len()
    );
    let docs =
        std::fs::read_to_string(root.join("../../docs/rules/forever.md")).unwrap_or_default();
    let not_tested = docs.split("## Not tested").nth(1).unwrap_or("");
    let tests = tests_text();
    let missing: Vec<&String> = ids
        .iter()
        .filter(|id| !cites(&tests, id) && !cites(not_tested, id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} catalogue IDs are cited by no test and not listed as untested in docs/rules/forever.md:\n{}",
        missing.len(),
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_engine_ruling_is_cited_by_a_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../../docs/rules/forever.md")).unwrap();
    let tests = tests_text();
    let mut rulings = BTreeSet::new();
    for (start, _) in docs.match_indices("FOREVER-ADM-") {
        let digits: String = docs[start + 12..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if !digits.is_empty() {
            rulings.insert(format!("FOREVER-ADM-{digits}"));
        }
    }
    assert!(!rulings.is_empty());
    let missing: Vec<&String> = rulings.iter().filter(|id| !cites(&tests, id)).collect();
    assert!(
        missing.is_empty(),
        "engine rulings with no test: {missing:?}"
    );
}

#[test]
fn the_catalogue_reader_finds_whole_ids() {
    let ids = catalogue_ids(
        "1. **FOREVER-MOD-DL-10** — x\n**FOREVER-GM-24/25 Energy** **FOREVER-DEF-PARENT** — y",
    );
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        vec!["FOREVER-DEF-PARENT", "FOREVER-GM-24", "FOREVER-MOD-DL-10"]
    );
    assert!(cites("see FOREVER-WPN-1.", "FOREVER-WPN-1"));
    assert!(!cites("see FOREVER-WPN-10", "FOREVER-WPN-1"));
    assert!(!cites("FOREVER-WPN-GUN-1", "FOREVER-WPN-GUN"));
    assert!(cites("FOREVER-EX-02-SHIP-THAT-CAN-MOVE", "FOREVER-EX-02"));
}
