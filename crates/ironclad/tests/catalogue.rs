#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Every ID in the catalogue (rules `IRON-…`, rulings `IRON-GM-nn`, examples `IRON-EX-nn`) is
//! cited by a test here, or listed in `docs/rules/ironclad.md` as overruled or not applicable;
//! and every engine ruling (`IRON-ADM-nn`) in the docs is cited by a test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `IRON-XXX-nn` IDs in `text`.
fn ids(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (start, _) in text.match_indices("IRON-") {
        let rest = &text[start + 5..];
        let letters: String = rest.chars().take_while(char::is_ascii_uppercase).collect();
        let after = &rest[letters.len()..];
        if letters.is_empty() || !after.starts_with('-') {
            continue;
        }
        let digits: String = after[1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if !digits.is_empty() {
            found.insert(format!("IRON-{letters}-{digits}"));
        }
    }
    found
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "json") {
            out.push(path);
        }
    }
}

/// The tests' text, with test names like `iron_gun_10` read as `IRON-GUN-10`.
fn tests_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("tests"), &mut paths);
    let mut text = String::new();
    for path in paths {
        let body = std::fs::read_to_string(&path).unwrap();
        text.push_str(&body);
        text.push_str(&body.to_uppercase().replace('_', "-"));
    }
    // Unit tests inside the source files count too, but only their test modules.
    let mut sources = Vec::new();
    files(&root.join("src"), &mut sources);
    for path in sources {
        let body = std::fs::read_to_string(&path).unwrap();
        if let Some(index) = body.find("#[cfg(test)]") {
            text.push_str(&body[index..]);
        }
    }
    text
}

#[test]
fn every_catalogue_id_is_cited_by_a_test_or_a_written_ruling() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let catalogue_path = root.join("../../../shared/rules/ironclad.md");
    let Ok(catalogue) = std::fs::read_to_string(&catalogue_path) else {
        eprintln!(
            "SKIPPED: the catalogue is not at {}; cannot check ID coverage",
            catalogue_path.display()
        );
        return;
    };
    let wanted = ids(&catalogue);
    assert!(
        wanted.len() >= 56 + 20 + 9,
        "only {} IDs found",
        wanted.len()
    );
    let tests = ids(&tests_text());
    let docs =
        std::fs::read_to_string(root.join("../../docs/rules/ironclad.md")).unwrap_or_default();
    let excused: BTreeSet<String> = docs
        .lines()
        .filter(|l| {
            let lower = l.to_lowercase();
            lower.contains("overruled") || lower.contains("not applicable")
        })
        .flat_map(ids)
        .collect();
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|id| !tests.contains(*id) && !excused.contains(*id))
        .collect();
    assert!(missing.is_empty(), "not cited by any test: {missing:?}");
}

#[test]
fn every_engine_ruling_is_documented_and_tested() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../../docs/rules/ironclad.md")).unwrap();
    let rulings: BTreeSet<String> = ids(&docs)
        .into_iter()
        .filter(|id| id.starts_with("IRON-ADM-"))
        .collect();
    assert!(!rulings.is_empty());
    let tests = ids(&tests_text());
    let untested: Vec<&String> = rulings.iter().filter(|id| !tests.contains(*id)).collect();
    assert!(
        untested.is_empty(),
        "engine rulings without a test: {untested:?}"
    );
    // And every ruling the code cites is written down.
    let mut sources = Vec::new();
    let mut code = String::new();
    files(&root.join("src"), &mut sources);
    for path in sources {
        code.push_str(&std::fs::read_to_string(path).unwrap());
    }
    let cited: BTreeSet<String> = ids(&code)
        .into_iter()
        .filter(|id| id.starts_with("IRON-ADM-"))
        .collect();
    let undocumented: Vec<&String> = cited.iter().filter(|id| !rulings.contains(*id)).collect();
    assert!(
        undocumented.is_empty(),
        "cited in code but not in the docs: {undocumented:?}"
    );
}

#[test]
fn the_setup_example_in_the_docs_starts_a_battle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../../docs/rules/ironclad.md")).unwrap();
    let start = docs.find("```json\n").unwrap() + "```json\n".len();
    let end = start + docs[start..].find("```").unwrap();
    let setup: ironclad::Setup = serde_json::from_str(&docs[start..end]).unwrap();
    let players = [1, 2].map(|id| engine::Player {
        id: engine::PlayerId(id),
        name: format!("P{id}"),
    });
    let state = setup.start(&players).unwrap();
    assert_eq!(state.ships.len(), 3);
    assert!(state.ships[2].ram);
}
