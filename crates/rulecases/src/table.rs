//! The case table: `tests/cases/*.json`, each file one case or an array of cases, each case
//! naming the rule IDs it checks. Files whose names start with `_` hold shared data, not cases.
//!
//! Every case is run, and every failing one is reported by file, case name and rule IDs; a
//! case that does not parse, names no rule, or names an ID the project does not list is a
//! failure too. `RULECASES_ONLY=<part of a file name>` runs only the matching files (and says
//! so), for working on one case.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Rules;
use crate::coverage::known_ids;

/// The environment variable that narrows a run to matching case files.
pub const ONLY_VAR: &str = "RULECASES_ONLY";

/// What every case has: a name and the rule IDs it checks.
pub trait RuleCase: DeserializeOwned {
    fn name(&self) -> &str;
    fn rules(&self) -> &[String];
}

/// What a passing table held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub cases: usize,
}

/// The case files, sorted: every `.json` in `dir` not starting with `_`.
pub fn case_files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read the case table {}: {e}", dir.display()));
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
    paths
}

/// Reads one case file: a case, or an array of cases.
pub fn read_cases<C: RuleCase>(path: &Path) -> Result<Vec<C>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let cases = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    cases
        .into_iter()
        .enumerate()
        .map(|(index, case)| {
            serde_json::from_value(case).map_err(|e| format!("case {}: {e}", index + 1))
        })
        .collect()
}

/// The text of a caught panic.
pub fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

/// Runs the engine's case table: every case through `run`, which returns the case's failures
/// (or panics, e.g. on a failed `assert!`, which counts as one). Fails listing every failing
/// case; otherwise returns how many files and cases held.
pub fn run<C: RuleCase>(rules: &Rules, run: impl Fn(&C) -> Vec<String>) -> Summary {
    let dir = rules.cases_dir();
    let known = known_ids(rules).unwrap_or_else(|e| panic!("{e}"));
    let mut paths = case_files(&dir);
    assert!(!paths.is_empty(), "no case files in {}", dir.display());
    if let Ok(only) = std::env::var(ONLY_VAR) {
        paths.retain(|p| p.to_string_lossy().contains(&only));
        eprintln!(
            "{ONLY_VAR}={only}: running {} case file(s) only",
            paths.len()
        );
    }
    let mut failures: Vec<String> = Vec::new();
    let mut summary = Summary { files: 0, cases: 0 };
    for path in &paths {
        summary.files += 1;
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let cases: Vec<C> = match read_cases(path) {
            Ok(cases) => cases,
            Err(e) => {
                failures.push(format!("{file}: {e}"));
                continue;
            }
        };
        if cases.is_empty() {
            failures.push(format!("{file}: holds no case"));
        }
        for case in &cases {
            summary.cases += 1;
            let mut problems = Vec::new();
            if case.name().trim().is_empty() {
                problems.push("the case has no name".to_string());
            }
            if case.rules().is_empty() {
                problems.push(format!(
                    "the case names no rule ID ({}-…) it checks",
                    rules.prefix
                ));
            }
            for id in case.rules() {
                if !known.contains(id) {
                    problems.push(format!(
                        "{id} is neither in {} nor an engine ruling in {}",
                        rules.ids_path().display(),
                        rules.docs_path().display()
                    ));
                }
            }
            match catch_unwind(AssertUnwindSafe(|| run(case))) {
                Ok(found) => problems.extend(found),
                Err(panic) => {
                    let text = panic_text(panic.as_ref());
                    let hint = if text.contains("scripted dice") {
                        "\n(the engine drew more dice than the case scripts, or a die outside its range)"
                    } else {
                        ""
                    };
                    problems.push(format!("panicked: {text}{hint}"));
                }
            }
            if !problems.is_empty() {
                failures.push(format!(
                    "{file} — {} [{}]:\n{}",
                    case.name(),
                    case.rules().join(", "),
                    problems.join("\n")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s) in {} case(s) of {} file(s) in {}:\n\n{}",
        failures.len(),
        summary.cases,
        summary.files,
        dir.display(),
        failures.join("\n\n")
    );
    eprintln!("{} cases in {} files held", summary.cases, summary.files);
    summary
}
