//! Expectations the engines' cases share. Each check returns the failures it found (empty: all
//! held), so a runner can report them all.

use engine::{LineIssue, Report};
use serde::Deserialize;
use serde_json::Value;

/// One report row, found by name; each column given must be equal, and the substrings given
/// must be in (or out of) their column. A case writes it as an object, or as the five columns
/// `[Name, Co-ord, Result, Score, Own Status]` when every one must be equal.
#[derive(Debug, Default, Deserialize)]
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
    /// Reads a row as a case writes it: an object, or the five columns.
    pub fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        if value.is_array() {
            let [name, coord, result, score, own_status]: [String; 5] =
                serde_json::from_value(value)?;
            Ok(Self {
                name,
                coord: Some(coord),
                result: Some(result),
                score: Some(score),
                own_status: Some(own_status),
                ..Self::default()
            })
        } else {
            serde_json::from_value(value)
        }
    }

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

/// The rows that must not be there (`absent`), the number of rows and their names in order.
pub fn row_names(
    report: &Report,
    absent: &[String],
    count: Option<usize>,
    order: Option<&[String]>,
) -> Vec<String> {
    let names: Vec<&str> = report.rows.iter().map(|r| r.name.as_str()).collect();
    let mut failures: Vec<String> = absent
        .iter()
        .filter(|name| names.contains(&name.as_str()))
        .map(|name| format!("unexpected row {name}"))
        .collect();
    if let Some(count) = count
        && names.len() != count
    {
        failures.push(format!("{} rows, wanted {count}: {names:?}", names.len()));
    }
    if let Some(order) = order
        && names != order.iter().map(String::as_str).collect::<Vec<_>>()
    {
        failures.push(format!("row order {names:?}, wanted {order:?}"));
    }
    failures
}

/// Each wanted note is a substring of some note of the report.
pub fn notes(report: &Report, wanted: &[String]) -> Vec<String> {
    wanted
        .iter()
        .filter(|note| !report.notes.iter().any(|n| n.contains(note.as_str())))
        .map(|note| format!("no note has {note:?}; notes: {:#?}", report.notes))
        .collect()
}

/// One wanted error or warning of a player's orders: a substring of its problem, or
/// `{"line", "problem_has", "expected_has"}` (the line number and a substring of the example
/// of what the line should be, each checked when given).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueExpect {
    pub line: Option<usize>,
    pub problem_has: String,
    pub expected_has: Option<String>,
}

impl IssueExpect {
    /// Reads an issue as a case writes it: a string, or an object.
    pub fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        match value {
            Value::String(problem_has) => Ok(Self {
                line: None,
                problem_has,
                expected_has: None,
            }),
            other => serde_json::from_value(other),
        }
    }

    /// What differs between this expectation and the issue.
    fn check(&self, issue: &LineIssue) -> Vec<String> {
        let mut failures = Vec::new();
        if !issue.problem.contains(self.problem_has.as_str()) {
            failures.push(format!("{:?} lacks {:?}", issue.problem, self.problem_has));
        }
        if let Some(line) = self.line
            && issue.line != line
        {
            failures.push(format!(
                "{:?} is on line {}, wanted {line}",
                issue.problem, issue.line
            ));
        }
        if let Some(example) = &self.expected_has
            && !issue.expected.contains(example.as_str())
        {
            failures.push(format!(
                "{:?}: the example {:?} lacks {example:?}",
                issue.problem, issue.expected
            ));
        }
        failures
    }
}

/// The issues (errors or warnings) of one player's orders: as many as wanted, in order, each
/// as wanted; every one with a line number from 1 and, if `examples`, an example of what the
/// line should be.
pub fn issues(
    kind: &str,
    got: &[LineIssue],
    wanted: &[IssueExpect],
    examples: bool,
) -> Vec<String> {
    let mut failures = Vec::new();
    if got.len() != wanted.len() {
        failures.push(format!(
            "{} {kind} wanted, {} found: {got:#?}",
            wanted.len(),
            got.len()
        ));
    }
    for (issue, want) in got.iter().zip(wanted) {
        failures.extend(
            want.check(issue)
                .into_iter()
                .map(|failure| format!("{kind}: {failure}")),
        );
    }
    for issue in got {
        if issue.line == 0 {
            failures.push(format!("{kind}: line numbers start at 1: {issue:?}"));
        }
        if examples && issue.expected.trim().is_empty() {
            failures.push(format!("{kind}: every issue shows an example: {issue:?}"));
        }
    }
    failures
}
