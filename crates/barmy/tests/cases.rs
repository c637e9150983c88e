#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The table of rule cases: each file in `tests/cases/` sets up a board, plays turns from
//! order texts and scripted sealed dice, and states what the report and scores must be. Each
//! case names the rule IDs it checks.

use std::collections::BTreeMap;
use std::path::Path;

use barmy::{Barmy, Setup, Square, State};
use engine::{Engine, Player, PlayerId, TurnDice, TurnInput, Viewer};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rules: Vec<String>,
    #[serde(default)]
    setup: Setup,
    /// Players in roster order: name and ship squares, e.g. "E13 F13 G13 H13". Ids are 1, 2, ...
    ships: Vec<(String, String)>,
    turns: Vec<TurnCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnCase {
    /// Order text per player name. A player missing here sent nothing (NMR).
    #[serde(default)]
    orders: BTreeMap<String, String>,
    /// Sealed dice values (indices for penalty squares and placements).
    #[serde(default)]
    sealed: Vec<u32>,
    #[serde(default)]
    joining: Vec<String>,
    #[serde(default)]
    leaving: Vec<String>,
    #[serde(default)]
    expect: Expect,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// Rows that must appear exactly: [Name, Co-ord, Result, Score, Own Status].
    #[serde(default)]
    rows: Vec<[String; 5]>,
    /// When set, the report has exactly this many rows.
    row_count: Option<usize>,
    /// Exact scores as fractions, per name.
    #[serde(default)]
    scores: BTreeMap<String, String>,
    /// Substrings of the errors each player's orders must produce (empty: no errors).
    #[serde(default)]
    errors: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    warnings: BTreeMap<String, Vec<String>>,
    /// Press each player's orders carried.
    #[serde(default)]
    press: BTreeMap<String, Vec<String>>,
    finished: Option<bool>,
    #[serde(default)]
    winners: Vec<String>,
    /// Substrings of the report's notes.
    #[serde(default)]
    notes: Vec<String>,
    /// Squares of a ship hit so far, per name, e.g. "M17 M18".
    #[serde(default)]
    damaged: BTreeMap<String, String>,
}

fn squares(text: &str) -> Vec<Square> {
    text.split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect()
}

fn run(path: &Path) -> Vec<String> {
    let case: Case = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        !case.rules.is_empty(),
        "{}: cite the rules it checks",
        case.name
    );
    let mut ids: BTreeMap<String, PlayerId> = BTreeMap::new();
    let ships = case
        .ships
        .iter()
        .enumerate()
        .map(|(index, (name, ship))| {
            let id = PlayerId(index as u64 + 1);
            ids.insert(name.clone(), id);
            let ship: [Square; 4] = squares(ship).try_into().unwrap();
            (
                Player {
                    id,
                    name: name.clone(),
                },
                ship,
            )
        })
        .collect();
    let mut state: State = State::with_ships(case.setup.clone(), ships)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let mut next_id = case.ships.len() as u64 + 1;
    for (number, turn) in case.turns.iter().enumerate() {
        let at = format!("{} turn {}", case.name, number + 1);
        let mut input = TurnInput::default();
        for name in &turn.joining {
            let id = PlayerId(next_id);
            next_id += 1;
            ids.insert(name.clone(), id);
            input.joining.push(Player {
                id,
                name: name.clone(),
            });
        }
        input.leaving = turn.leaving.iter().map(|name| ids[name]).collect();
        for (name, text) in &turn.orders {
            let id = *ids
                .get(name)
                .unwrap_or_else(|| panic!("{at}: unknown player {name}"));
            let parsed = Barmy::parse_orders(&state, id, text);
            let errors: Vec<String> = parsed.errors.iter().map(|e| e.problem.clone()).collect();
            let wanted = turn.expect.errors.get(name).cloned().unwrap_or_default();
            assert_eq!(
                errors.len(),
                wanted.len(),
                "{at}: {name}'s errors: {errors:?}"
            );
            for (error, want) in errors.iter().zip(&wanted) {
                assert!(
                    error.contains(want.as_str()),
                    "{at}: {name}: {error:?} lacks {want:?}"
                );
            }
            let warnings: Vec<String> = parsed.warnings.iter().map(|e| e.problem.clone()).collect();
            let wanted = turn.expect.warnings.get(name).cloned().unwrap_or_default();
            assert_eq!(
                warnings.len(),
                wanted.len(),
                "{at}: {name}'s warnings: {warnings:?}"
            );
            for (warning, want) in warnings.iter().zip(&wanted) {
                assert!(
                    warning.contains(want.as_str()),
                    "{at}: {name}: {warning:?} lacks {want:?}"
                );
            }
            if let Some(press) = turn.expect.press.get(name) {
                assert_eq!(&parsed.press, press, "{at}: {name}'s press");
            }
            input.orders.insert(id, parsed.orders);
        }
        let mut dice = TurnDice::scripted([], turn.sealed.clone());
        let resolution =
            Barmy::resolve(&state, &input, &mut dice).unwrap_or_else(|e| panic!("{at}: {e}"));
        let report = &resolution.report;
        for want in &turn.expect.rows {
            let row = report
                .rows
                .iter()
                .find(|r| r.name == want[0])
                .unwrap_or_else(|| panic!("{at}: no row for {}:\n{}", want[0], report.to_text()));
            let got = [
                &row.name,
                &row.coord,
                &row.result,
                &row.score,
                &row.own_status,
            ]
            .map(|s| s.to_string());
            assert_eq!(&got, want, "{at}\n{}", report.to_text());
        }
        if let Some(count) = turn.expect.row_count {
            assert_eq!(report.rows.len(), count, "{at}\n{}", report.to_text());
        }
        state = resolution.state;
        let by_id: BTreeMap<PlayerId, String> = state
            .captains
            .iter()
            .map(|c| (c.id, String::from(c.score)))
            .collect();
        for (name, score) in &turn.expect.scores {
            assert_eq!(by_id.get(&ids[name]), Some(score), "{at}: {name}'s score");
        }
        for (name, hit) in &turn.expect.damaged {
            let captain = state.captain(ids[name]).unwrap();
            let got: Vec<Square> = captain
                .ship
                .iter()
                .zip(captain.damage)
                .filter(|(_, d)| d.is_some())
                .map(|(s, _)| *s)
                .collect();
            assert_eq!(got, squares(hit), "{at}: {name}'s damaged squares");
        }
        for note in &turn.expect.notes {
            assert!(
                report.notes.iter().any(|n| n.contains(note.as_str())),
                "{at}: no note {note:?} in {:?}",
                report.notes
            );
        }
        if let Some(finished) = turn.expect.finished {
            assert_eq!(state.finished, finished, "{at}: finished");
        }
        if !turn.expect.winners.is_empty() {
            let winners: Vec<PlayerId> = turn.expect.winners.iter().map(|name| ids[name]).collect();
            assert_eq!(Barmy::outcome(&state).winners, winners, "{at}: winners");
        }
        // The public view never shows an unhit square of a ship still afloat.
        let public = Barmy::view(&state, Viewer::Public);
        let json = serde_json::to_string(&public).unwrap();
        assert!(!json.contains("own_ship"), "{at}: public view shows a ship");
    }
    case.rules
}

#[test]
fn every_case_in_the_table_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "the case table is missing");
    for path in paths {
        run(&path);
    }
}

/// Every rule, ruling and example of the catalogue is cited by a case, a test, or the rulings
/// document (where a ruling is overruled).
#[test]
fn every_catalogue_id_is_covered() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let catalogue = root.join("../../../shared/rules/barmy.md");
    let Ok(catalogue) = std::fs::read_to_string(&catalogue) else {
        eprintln!(
            "SKIPPED: the catalogue {} is not beside this checkout",
            catalogue.display()
        );
        return;
    };
    // Citations count in test files and in the unit-test modules of the sources only.
    let mut cited = String::new();
    for dir in ["tests", "tests/cases", "src"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                let text = std::fs::read_to_string(&path).unwrap();
                match (dir, text.find("#[cfg(test)]")) {
                    ("src", Some(at)) => cited.push_str(&text[at..]),
                    ("src", None) => {}
                    _ => cited.push_str(&text),
                }
            }
        }
    }
    let rulings =
        std::fs::read_to_string(root.join("../../docs/rules/barmy.md")).unwrap_or_default();
    let mut missing = Vec::new();
    for id in catalogue_ids(&catalogue) {
        let in_tests = cited.contains(&format!("\"{id}\""))
            || cited.contains(&format!("{id}:"))
            || cited.contains(&format!("{id} "));
        let in_rulings = rulings.contains(&format!("{id} overruled"))
            || rulings.contains(&format!("{id} not applicable"));
        if !in_tests && !in_rulings {
            missing.push(id);
        }
    }
    assert!(
        missing.is_empty(),
        "catalogue IDs cited by no test: {missing:?}"
    );
}

fn catalogue_ids(text: &str) -> std::collections::BTreeSet<String> {
    let mut ids = std::collections::BTreeSet::new();
    for (at, _) in text.match_indices("BARMY-") {
        let id: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let id = id.trim_end_matches('-').to_string();
        if id.chars().last().is_some_and(|c| c.is_ascii_digit()) {
            ids.insert(id);
        }
    }
    ids
}
