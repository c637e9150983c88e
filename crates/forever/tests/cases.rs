#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The table of rule cases: each file in `tests/cases/` sets up a battle (ships named from the
//! shared design library `tests/cases/_designs.json` or the case's own), plays turns from
//! order texts and scripted dice, and states what the report, the state and the outcome must
//! be. Each case names the rule IDs it checks.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use engine::{Engine, Player, PlayerId, TurnDice, TurnInput};
use forever::{Forever, State};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rules: Vec<String>,
    /// Designs by class name (added to the shared library).
    #[serde(default)]
    designs: BTreeMap<String, Vec<String>>,
    /// The setup; a fleet's ship may name a `class` from the library instead of a `design`.
    #[serde(default)]
    setup: Value,
    /// Players in roster order (ids 1, 2, ...).
    #[serde(default = "two_players")]
    players: Vec<String>,
    /// The roll-off dice (FOREVER-PLAY-1); Alice 6, Bob 1 unless given.
    #[serde(default = "alice_first")]
    roll_off: Vec<u32>,
    /// JSON merged into the state before the first turn (`round: 1` skips the opening turn).
    #[serde(default)]
    state: Value,
    /// Per ship name, JSON merged into that ship's state before the first turn.
    #[serde(default)]
    before: BTreeMap<String, Value>,
    turns: Vec<TurnCase>,
}

fn two_players() -> Vec<String> {
    vec!["Alice".into(), "Bob".into()]
}

fn alice_first() -> Vec<u32> {
    vec![6, 1]
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnCase {
    /// Order text per player name. A player missing here sent nothing (NMR).
    #[serde(default)]
    orders: BTreeMap<String, String>,
    /// The open dice, bearings included, in the order the engine must draw them; all must be
    /// used.
    #[serde(default)]
    dice: Vec<u32>,
    #[serde(default)]
    leaving: Vec<String>,
    #[serde(default)]
    expect: Expect,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// Substrings of each player's order errors, one per error, in order (none: no errors).
    #[serde(default)]
    errors: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    warnings: BTreeMap<String, Vec<String>>,
    /// Substrings that must each appear in some `understood` line.
    #[serde(default)]
    understood: BTreeMap<String, Vec<String>>,
    /// Report rows, matched by name.
    #[serde(default)]
    rows: Vec<RowExpect>,
    row_count: Option<usize>,
    /// Per ship name, a JSON subset its state must match after the turn.
    #[serde(default)]
    ships: BTreeMap<String, Value>,
    /// A JSON subset the whole state must match.
    #[serde(default)]
    state: Value,
    /// Running scores per player name, as shown.
    #[serde(default)]
    scores: BTreeMap<String, String>,
    /// Substrings of the report's notes.
    #[serde(default)]
    notes: Vec<String>,
    finished: Option<bool>,
    winners: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowExpect {
    name: String,
    coord: Option<String>,
    result: Option<String>,
    #[serde(default)]
    result_has: Vec<String>,
    #[serde(default)]
    result_lacks: Vec<String>,
    score: Option<String>,
    own_status: Option<String>,
    #[serde(default)]
    own_status_has: Vec<String>,
}

/// Does `actual` contain everything in `wanted`? Objects by key; arrays index by index (a
/// shorter wanted array checks a prefix; `null` skips an item); everything else equal. Numbers
/// compare by value (12 and 12.0 are the same length).
fn subset(wanted: &Value, actual: &Value) -> bool {
    match (wanted, actual) {
        (Value::Object(w), Value::Object(a)) => w.iter().all(|(k, v)| match a.get(k) {
            Some(av) => subset(v, av),
            None => v.is_null() || v == &Value::Bool(false),
        }),
        (Value::Array(w), Value::Array(a)) => {
            w.len() <= a.len()
                && w.iter()
                    .zip(a)
                    .all(|(wv, av)| wv.is_null() || subset(wv, av))
        }
        (Value::Number(w), Value::Number(a)) => w.as_f64() == a.as_f64(),
        _ => wanted == actual,
    }
}

/// Merges `patch` into `target`: objects by key, arrays index by index (`null` keeps).
fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                match t.get_mut(k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Value::Array(t), Value::Array(p)) => {
            for (index, v) in p.iter().enumerate() {
                if v.is_null() {
                    continue;
                }
                match t.get_mut(index) {
                    Some(slot) => merge(slot, v),
                    None => t.push(v.clone()),
                }
            }
        }
        (slot, value) => *slot = value.clone(),
    }
}

/// Replaces `class` in fleets with the design from the library, renamed to the ship's name.
fn expand_classes(setup: &mut Value, library: &BTreeMap<String, Vec<String>>) {
    let Some(fleets) = setup.get_mut("fleets").and_then(Value::as_array_mut) else {
        return;
    };
    for fleet in fleets {
        let Some(ships) = fleet.get_mut("ships").and_then(Value::as_array_mut) else {
            continue;
        };
        for ship in ships {
            let Some(class) = ship.get("class").and_then(Value::as_str).map(String::from) else {
                continue;
            };
            let lines = library
                .get(&class)
                .unwrap_or_else(|| panic!("no design class {class}"));
            let name = ship
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or(&class)
                .to_string();
            let lines: Vec<String> = lines
                .iter()
                .map(|l| {
                    if l.starts_with("SHIP ") {
                        format!("SHIP {name}")
                    } else {
                        l.clone()
                    }
                })
                .collect();
            let object = ship.as_object_mut().unwrap();
            object.remove("class");
            object.remove("name");
            object.insert("design".into(), serde_json::json!(lines));
        }
    }
}

fn issues_match(at: &str, kind: &str, name: &str, got: &[String], wanted: &[String]) {
    assert_eq!(got.len(), wanted.len(), "{at}: {name}'s {kind}: {got:#?}");
    for (issue, want) in got.iter().zip(wanted) {
        assert!(
            issue.contains(want.as_str()),
            "{at}: {name}: {issue:?} lacks {want:?}"
        );
    }
}

fn run(path: &Path, library: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let case: Case = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        !case.rules.is_empty(),
        "{}: cite the rules it checks",
        case.name
    );
    let mut designs = library.clone();
    designs.extend(case.designs.clone());
    let players: Vec<Player> = case
        .players
        .iter()
        .enumerate()
        .map(|(index, name)| Player {
            id: PlayerId(index as u64 + 1),
            name: name.clone(),
        })
        .collect();
    let ids: BTreeMap<String, PlayerId> = players.iter().map(|p| (p.name.clone(), p.id)).collect();
    let mut setup = if case.setup.is_null() {
        serde_json::json!({})
    } else {
        case.setup.clone()
    };
    expand_classes(&mut setup, &designs);
    let setup: forever::Setup =
        serde_json::from_value(setup).unwrap_or_else(|e| panic!("{}: setup: {e}", case.name));
    let mut state: State = Forever::new_game(
        &setup,
        &players,
        &mut TurnDice::scripted(case.roll_off.clone(), []),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let mut json = serde_json::to_value(&state).unwrap();
    if !case.state.is_null() {
        merge(&mut json, &case.state);
    }
    for (name, patch) in &case.before {
        let ships = json["ships"].as_array_mut().unwrap();
        let ship = ships
            .iter_mut()
            .find(|s| s["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{}: no ship {name}", case.name));
        merge(ship, patch);
    }
    state = serde_json::from_value(json).unwrap_or_else(|e| panic!("{}: {e}", case.name));

    for (number, turn) in case.turns.iter().enumerate() {
        let at = format!("{} turn {}", case.name, number + 1);
        let mut input = TurnInput {
            leaving: turn.leaving.iter().map(|name| ids[name]).collect(),
            ..TurnInput::default()
        };
        for (name, text) in &turn.orders {
            let id = *ids
                .get(name)
                .unwrap_or_else(|| panic!("{at}: unknown player {name}"));
            let parsed = Forever::parse_orders(&state, id, text);
            let errors: Vec<String> = parsed.errors.iter().map(|e| e.problem.clone()).collect();
            let wanted = turn.expect.errors.get(name).cloned().unwrap_or_default();
            issues_match(&at, "errors", name, &errors, &wanted);
            for error in &parsed.errors {
                assert!(error.line > 0, "{at}: line numbers start at 1");
                assert!(
                    !error.expected.is_empty(),
                    "{at}: every error shows an example"
                );
            }
            let warnings: Vec<String> = parsed.warnings.iter().map(|e| e.problem.clone()).collect();
            let wanted = turn.expect.warnings.get(name).cloned().unwrap_or_default();
            issues_match(&at, "warnings", name, &warnings, &wanted);
            for want in turn.expect.understood.get(name).into_iter().flatten() {
                assert!(
                    parsed.understood.iter().any(|u| u.contains(want.as_str())),
                    "{at}: {name} understood {:#?}, lacking {want:?}",
                    parsed.understood
                );
            }
            input.orders.insert(id, parsed.orders);
        }
        let mut dice = TurnDice::scripted(turn.dice.iter().copied().chain(common::SENTINEL), []);
        let resolution =
            Forever::resolve(&state, &input, &mut dice).unwrap_or_else(|e| panic!("{at}: {e}"));
        let report = &resolution.report;
        let text = report.to_text();
        common::assert_all_dice_used(&mut dice, report);
        for want in &turn.expect.rows {
            let row = report
                .rows
                .iter()
                .find(|r| r.name == want.name)
                .unwrap_or_else(|| panic!("{at}: no row for {}:\n{text}", want.name));
            let check = |column: &str, got: &str, wanted: &Option<String>| {
                if let Some(wanted) = wanted {
                    assert_eq!(got, wanted, "{at}: {} {column}\n{text}", want.name);
                }
            };
            check("Co-ord", &row.coord, &want.coord);
            check("Result", &row.result, &want.result);
            check("Score", &row.score, &want.score);
            check("Own Status", &row.own_status, &want.own_status);
            for part in &want.result_has {
                assert!(
                    row.result.contains(part.as_str()),
                    "{at}: {} Result lacks {part:?}: {:?}",
                    want.name,
                    row.result
                );
            }
            for part in &want.result_lacks {
                assert!(
                    !row.result.contains(part.as_str()),
                    "{at}: {} Result has {part:?}: {:?}",
                    want.name,
                    row.result
                );
            }
            for part in &want.own_status_has {
                assert!(
                    row.own_status.contains(part.as_str()),
                    "{at}: {} Own Status lacks {part:?}: {:?}",
                    want.name,
                    row.own_status
                );
            }
        }
        if let Some(count) = turn.expect.row_count {
            assert_eq!(report.rows.len(), count, "{at}\n{text}");
        }
        for note in &turn.expect.notes {
            assert!(
                report.notes.iter().any(|n| n.contains(note.as_str())),
                "{at}: notes lack {note:?}: {:#?}",
                report.notes
            );
        }
        state = resolution.state;
        let json = serde_json::to_value(&state).unwrap();
        for (name, wanted) in &turn.expect.ships {
            let actual = json["ships"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name.as_str())
                .unwrap_or_else(|| panic!("{at}: no ship {name}"));
            assert!(
                subset(wanted, actual),
                "{at}: {name} is {actual:#}, wanted {wanted:#}\n{text}"
            );
        }
        if !turn.expect.state.is_null() {
            assert!(
                subset(&turn.expect.state, &json),
                "{at}: the state is {json:#}, wanted {:#}\n{text}",
                turn.expect.state
            );
        }
        for (name, score) in &turn.expect.scores {
            let got = state.seat(ids[name]).unwrap().score.to_string();
            assert_eq!(&got, score, "{at}: {name}'s score\n{text}");
        }
        let outcome = Forever::outcome(&state);
        if let Some(finished) = turn.expect.finished {
            assert_eq!(outcome.finished, finished, "{at}: finished?\n{text}");
        }
        if let Some(winners) = &turn.expect.winners {
            let wanted: Vec<PlayerId> = winners.iter().map(|n| ids[n]).collect();
            assert_eq!(outcome.winners, wanted, "{at}: winners\n{text}");
        }
    }
    case.rules
}

#[test]
fn every_case_in_the_table_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let library: BTreeMap<String, Vec<String>> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("_designs.json")).unwrap()).unwrap();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter(|path| !path.file_name().unwrap().to_string_lossy().starts_with('_'))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut failures = Vec::new();
    for path in &paths {
        let outcome = std::panic::catch_unwind(|| run(path, &library));
        if let Err(panic) = outcome {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{}: {message}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
