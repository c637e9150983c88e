//! Expectations the engines' cases share. Each check returns the failures it found (empty: all
//! held), so a runner can report them all or stop at the first.

use engine::{LineIssue, Report};
use serde::Deserialize;

/// One report row, found by name; each column given must be equal, and the substrings given
/// must be in (or out of) their column.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowExpect {
    pub name: String,
    pub coord: Option<String>,
    pub result: Option<String>,
    /// Substrings of the Result column.
    #[serde(default)]
    pub result_has: Vec<String>,
    /// Substrings the Result column must not have.
    #[serde(default)]
    pub result_lacks: Vec<String>,
    pub score: Option<String>,
    pub own_status: Option<String>,
    /// Substrings of the Own Status column.
    #[serde(default)]
    pub own_status_has: Vec<String>,
}

impl RowExpect {
    /// What differs between this expectation and the report.
    pub fn check(&self, report: &Report) -> Vec<String> {
        let Some(row) = report.rows.iter().find(|r| r.name == self.name) else {
            let names: Vec<&str> = report.rows.iter().map(|r| r.name.as_str()).collect();
            return vec![format!("no row named {:?}; rows: {names:?}", self.name)];
        };
        let mut failures = Vec::new();
        for (column, wanted, got) in [
            ("Co-ord", &self.coord, &row.coord),
            ("Result", &self.result, &row.result),
            ("Score", &self.score, &row.score),
            ("Own Status", &self.own_status, &row.own_status),
        ] {
            if let Some(wanted) = wanted
                && wanted != got
            {
                failures.push(format!(
                    "row {}: {column} expected\n  {wanted}\ngot\n  {got}",
                    self.name
                ));
            }
        }
        for (column, got, parts, present) in [
            ("Result", &row.result, &self.result_has, true),
            ("Result", &row.result, &self.result_lacks, false),
            ("Own Status", &row.own_status, &self.own_status_has, true),
        ] {
            for part in parts {
                if got.contains(part.as_str()) != present {
                    let verb = if present { "lacks" } else { "has" };
                    failures.push(format!(
                        "row {}: {column} {verb} {part:?}: {got:?}",
                        self.name
                    ));
                }
            }
        }
        failures
    }
}

/// Every row expectation against the report.
pub fn rows(report: &Report, wanted: &[RowExpect]) -> Vec<String> {
    wanted.iter().flat_map(|w| w.check(report)).collect()
}

/// Each wanted note is a substring of some note of the report.
pub fn notes(report: &Report, wanted: &[String]) -> Vec<String> {
    wanted
        .iter()
        .filter(|note| !report.notes.iter().any(|n| n.contains(note.as_str())))
        .map(|note| format!("no note has {note:?}; notes: {:#?}", report.notes))
        .collect()
}

/// The issues (errors or warnings) of one player's orders: as many as wanted, each containing
/// the wanted text in order; every one with a line number from 1.
pub fn issues(kind: &str, got: &[LineIssue], wanted: &[String]) -> Vec<String> {
    let problems: Vec<&str> = got.iter().map(|i| i.problem.as_str()).collect();
    let mut failures = Vec::new();
    if problems.len() != wanted.len() {
        failures.push(format!(
            "{} {kind} wanted, {} found: {problems:#?}",
            wanted.len(),
            problems.len()
        ));
    }
    for (problem, want) in problems.iter().zip(wanted) {
        if !problem.contains(want.as_str()) {
            failures.push(format!("{kind}: {problem:?} lacks {want:?}"));
        }
    }
    for issue in got {
        if issue.line == 0 {
            failures.push(format!("{kind}: line numbers start at 1: {issue:?}"));
        }
    }
    failures
}

/// Fails the test with every failure, each prefixed by where it happened.
pub fn assert_none(at: &str, failures: &[String], context: &str) {
    assert!(
        failures.is_empty(),
        "{at}:\n{}\n{context}",
        failures.join("\n")
    );
}
