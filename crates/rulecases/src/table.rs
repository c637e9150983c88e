//! The case table: `tests/cases/*.json`, each file one case or an array of cases, each case
//! naming the rule IDs it checks. Files whose names start with `_` hold shared data, not cases.
//!
//! Every case is a test of its own, named after its file (`cases::02_simple_hit`; a case of a
//! file of several adds its place and the start of its name, `cases::classic::05_hit_miss`),
//! so that one failing case fails alone and says which file and rule IDs it is. A case that
//! does not parse, names no rule, or names an ID the project does not list fails too.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Failed, Trial};
use serde_json::Value;

use crate::case::{Case, CaseTable};
use crate::coverage::known_ids;

/// The case files, sorted: every `.json` in `dir` not starting with `_`.
pub fn case_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the case table {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter(|path| {
            !path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// The cases of one file, as JSON: a case, or an array of cases.
pub fn read_cases(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let cases = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    if cases.is_empty() {
        return Err("it holds no case".into());
    }
    Ok(cases)
}

/// The text of a caught panic.
pub fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

/// A test's name part from free text: lower case, words joined by `_`, at most `words` words.
fn slug(text: &str, words: usize) -> String {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(words)
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("_")
}

/// One test per case of the table. A file that cannot be read is one failing test.
pub fn trials<T: CaseTable>() -> Vec<Trial> {
    let rules = T::RULES;
    let dir = rules.cases_dir();
    let paths = match case_files(&dir) {
        Ok(paths) if paths.is_empty() => {
            let e = format!("no case files in {}", dir.display());
            return vec![Trial::test("cases", move || Err(e.into()))];
        }
        Ok(paths) => paths,
        Err(e) => return vec![Trial::test("cases", move || Err(e.into()))],
    };
    let known = Arc::new(known_ids(&rules));
    let mut trials = Vec::new();
    for path in paths {
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = file.trim_end_matches(".json").to_string();
        let cases = match read_cases(&path) {
            Ok(cases) => cases,
            Err(e) => {
                let e = format!("{file}: {e}");
                trials.push(Trial::test(format!("cases::{stem}"), move || Err(e.into())));
                continue;
            }
        };
        let several = cases.len() > 1;
        for (number, case) in (1..).zip(cases) {
            let name = if several {
                let title = case.get("name").and_then(Value::as_str).unwrap_or_default();
                match slug(title, 5) {
                    words if words.is_empty() => format!("cases::{stem}::{number:02}"),
                    words => format!("cases::{stem}::{number:02}_{words}"),
                }
            } else {
                format!("cases::{stem}")
            };
            let file = if several {
                format!("{file} (case {number})")
            } else {
                file.clone()
            };
            let known = Arc::clone(&known);
            trials.push(Trial::test(name, move || {
                run_case::<T>(&file, case, &known).map_err(Failed::from)
            }));
        }
    }
    trials
}

/// Reads and plays one case. A failure names the file, the case and its rule IDs first.
fn run_case<T: CaseTable>(
    file: &str,
    case: Value,
    known: &Result<BTreeSet<String>, String>,
) -> Result<(), String> {
    // The header names the case and its rules even when the case cannot be read.
    let header = {
        let name = case
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("(no name)");
        let rules: Vec<&str> = case
            .get("rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        format!("{file} — {name} [{}]", rules.join(", "))
    };
    let case = Case::<T>::from_value(case).map_err(|e| format!("{header}:\n{e}"))?;
    let mut problems = Vec::new();
    if case.name.trim().is_empty() {
        problems.push("the case has no name".to_string());
    }
    if case.rules.is_empty() {
        problems.push(format!(
            "the case names no rule ID ({}-…) it checks",
            T::RULES.prefix
        ));
    }
    match known {
        Err(e) => problems.push(e.clone()),
        Ok(known) => {
            for id in case.rules.iter().filter(|id| !known.contains(*id)) {
                problems.push(format!(
                    "{id} is neither in {} nor an engine ruling in {}",
                    T::RULES.ids_path().display(),
                    T::RULES.docs_path().display()
                ));
            }
        }
    }
    match catch_unwind(AssertUnwindSafe(|| case.play())) {
        Ok(failures) => problems.extend(failures),
        Err(panic) => problems.push(format!("panicked: {}", panic_text(panic.as_ref()))),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{header}:\n{}", problems.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_short_lower_case_words() {
        assert_eq!(
            slug("hit, miss and 'you sank my Destroyer'", 5),
            "hit_miss_and_you_sank"
        );
        assert_eq!(slug("", 5), "");
    }
}
