#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Every ID in the catalogue (rules `SKY-…`, rulings `SKY-GM-nn`, examples `SKY-EX-nn`) is
//! cited by a test here, or listed in `docs/rules/skyfleet.md` as overruled or not applicable;
//! and every engine ruling (`SKY-ADM-nn`) in the docs is cited by a test and every one the
//! code cites is written down.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `SKY-…` IDs in `text`: `SKY-` then dash-separated parts of capitals or digits, at least
/// two parts (`SKY-GM-01`, `SKY-WPN-UL-1`, `SKY-KW-LIFT`, `SKY-STAT-A`).
fn ids(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (start, _) in text.match_indices("SKY-") {
        let rest = &text[start + 4..];
        let body: String = rest
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let parts: Vec<&str> = body.split('-').filter(|p| !p.is_empty()).collect();
        if parts.len() >= 2 && !body.starts_with('-') {
            found.insert(format!("SKY-{}", parts.join("-")));
        }
    }
    found
}

/// Is `id` in `text` as a whole ID (not the start of a longer one: MOD-1 is not MOD-10)?
fn cites(text: &str, id: &str) -> bool {
    text.match_indices(id).any(|(start, _)| {
        let after = text[start + id.len()..].chars().next();
        !after.is_some_and(|c| c.is_ascii_alphanumeric())
    })
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

/// The tests' text, with test names like `sky_crit_3_…` read as `SKY-CRIT-3-…`.
fn tests_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("tests"), &mut paths);
    let mut text = String::new();
    for path in paths {
        if path.ends_with("catalogue.rs") {
            continue;
        }
        let body = std::fs::read_to_string(&path).unwrap();
        text.push_str(&body);
        text.push('\n');
        text.push_str(&body.to_uppercase().replace('_', "-"));
        text.push('\n');
    }
    // Unit tests inside the source files count too, but only their test modules.
    let mut sources = Vec::new();
    files(&root.join("src"), &mut sources);
    for path in sources {
        let body = std::fs::read_to_string(&path).unwrap();
        if let Some(index) = body.find("#[cfg(test)]") {
            let tests = &body[index..];
            text.push_str(tests);
            text.push('\n');
            text.push_str(&tests.to_uppercase().replace('_', "-"));
            text.push('\n');
        }
    }
    text
}

#[test]
fn every_catalogue_id_is_cited_by_a_test_or_a_written_ruling() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let catalogue_path = root.join("../../../shared/rules/skyfleet.md");
    let Ok(catalogue) = std::fs::read_to_string(&catalogue_path) else {
        eprintln!(
            "SKIPPED: the catalogue is not at {}; cannot check ID coverage",
            catalogue_path.display()
        );
        return;
    };
    let wanted = ids(&catalogue);
    assert!(
        wanted.len() >= 109 + 32 + 14,
        "only {} IDs found",
        wanted.len()
    );
    let tests = tests_text();
    let docs =
        std::fs::read_to_string(root.join("../../docs/rules/skyfleet.md")).unwrap_or_default();
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
        .filter(|id| !cites(&tests, id) && !excused.contains(*id))
        .collect();
    assert!(missing.is_empty(), "not cited by any test: {missing:?}");
}

#[test]
fn every_gm_ruling_is_answered_in_the_docs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../../docs/rules/skyfleet.md")).unwrap();
    for number in 1..=32 {
        let id = format!("SKY-GM-{number:02}");
        let answered = docs.lines().any(|line| {
            cites(line, &id) && {
                let lower = line.to_lowercase();
                lower.contains("followed")
                    || lower.contains("overruled")
                    || lower.contains("adapted")
            }
        });
        assert!(
            answered,
            "{id}: say followed, adapted or overruled in the docs"
        );
    }
}

#[test]
fn every_engine_ruling_is_documented_and_tested() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../../docs/rules/skyfleet.md")).unwrap();
    let rulings: BTreeSet<String> = ids(&docs)
        .into_iter()
        .filter(|id| id.starts_with("SKY-ADM-"))
        .collect();
    assert!(!rulings.is_empty());
    let tests = tests_text();
    let untested: Vec<&String> = rulings.iter().filter(|id| !cites(&tests, id)).collect();
    assert!(
        untested.is_empty(),
        "engine rulings without a test: {untested:?}"
    );
    let mut sources = Vec::new();
    let mut code = String::new();
    files(&root.join("src"), &mut sources);
    for path in sources {
        code.push_str(&std::fs::read_to_string(path).unwrap());
    }
    let cited: BTreeSet<String> = ids(&code)
        .into_iter()
        .filter(|id| id.starts_with("SKY-ADM-"))
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
    let docs = std::fs::read_to_string(root.join("../../docs/rules/skyfleet.md")).unwrap();
    let start = docs.find("```json\n").unwrap() + "```json\n".len();
    let end = start + docs[start..].find("```").unwrap();
    let setup: skyfleet::Setup = serde_json::from_str(&docs[start..end]).unwrap();
    let players = [1, 2].map(|id| engine::Player {
        id: engine::PlayerId(id),
        name: format!("P{id}"),
    });
    let state = setup.start(&players).unwrap();
    assert!(state.units.len() >= 4);
}

#[test]
fn id_extraction_reads_every_shape() {
    let found = ids("**SKY-WPN-UL-1** and SKY-KW-LIFT, SKY-STAT-A; SKY-GM-01/02 `SKY-…` SKY-GM-nn");
    let wanted: BTreeSet<String> = ["SKY-WPN-UL-1", "SKY-KW-LIFT", "SKY-STAT-A", "SKY-GM-01"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, wanted);
    assert!(cites("see SKY-MOD-10.", "SKY-MOD-10"));
    assert!(!cites("see SKY-MOD-10.", "SKY-MOD-1"));
}
