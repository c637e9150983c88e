//! Every ID of the catalogue (`SALVO-...`: rules, GM rulings, worked examples) is cited by a
//! test here or in the case table, or listed in docs/rules/salvo.md as not covered, with why.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `SALVO-GM-07` and its test-name spelling `salvo_gm_07`, from a text.
fn ids_in(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let upper = text.to_uppercase().replace('_', "-");
    let mut rest = upper.as_str();
    while let Some(at) = rest.find("SALVO-") {
        let tail = &rest[at + 6..];
        let kind: String = tail
            .chars()
            .take_while(|c| c.is_ascii_uppercase())
            .collect();
        let after = &tail[kind.len()..];
        if let Some(number) = after.strip_prefix('-') {
            let digits: String = number.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !kind.is_empty() && !digits.is_empty() {
                ids.insert(format!("SALVO-{kind}-{digits}"));
            }
        }
        rest = tail;
    }
    ids
}

fn files_under(folder: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, found);
        } else {
            found.push(path);
        }
    }
}

#[test]
fn every_catalogue_id_is_cited_by_a_test_or_a_written_ruling() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let catalogue_path = crate_dir.join("../../../shared/rules/salvo.md");
    let Ok(catalogue) = std::fs::read_to_string(&catalogue_path) else {
        eprintln!(
            "SKIPPED: the catalogue is not at {} (it lives outside the repository)",
            catalogue_path.display()
        );
        return;
    };
    let wanted = ids_in(&catalogue);
    assert!(
        wanted.len() >= 60,
        "only {} IDs found in the catalogue",
        wanted.len()
    );

    let mut cited = BTreeSet::new();
    let mut files = Vec::new();
    files_under(&crate_dir.join("tests"), &mut files);
    for file in &files {
        if let Ok(text) = std::fs::read_to_string(file) {
            // This file names no IDs of its own beyond the pattern.
            if file.ends_with("catalogue.rs") {
                continue;
            }
            cited.extend(ids_in(&text));
        }
    }
    // Unit tests: the `#[cfg(test)]` part of each source file.
    let mut sources = Vec::new();
    files_under(&crate_dir.join("src"), &mut sources);
    for file in &sources {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Some(at) = text.find("#[cfg(test)]")
        {
            cited.extend(ids_in(&text[at..]));
        }
    }
    // Rulings written down as not covered by a test, with the reason.
    let docs =
        std::fs::read_to_string(crate_dir.join("../../docs/rules/salvo.md")).unwrap_or_default();
    let uncovered_section = docs
        .split("\n## ")
        .find(|section| section.starts_with("Not covered by a test"))
        .unwrap_or("");
    let written = ids_in(uncovered_section);

    let missing: Vec<&String> = wanted
        .iter()
        .filter(|id| !cited.contains(*id) && !written.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "catalogue IDs cited by no test and no written ruling: {missing:?}"
    );
}
