#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The table of rule cases: each file in `tests/cases/` sets up a battle, plays turns from
//! order texts and scripted dice, and states what the report, the units and the outcome must
//! be. Each case names the catalogue IDs it checks.

use std::collections::BTreeMap;
use std::path::Path;

use engine::{Engine, Player, PlayerId, TurnDice, TurnInput};
use serde::Deserialize;
use serde_json::Value;
use skyfleet::{Setup, Skyfleet, State};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rules: Vec<String>,
    /// A setup; `terrain` is empty unless given (the standard terrain is for real games).
    #[serde(default)]
    setup: Option<Value>,
    #[serde(default = "two_players")]
    players: Vec<String>,
    /// The turn the battle is at when the case starts.
    turn: Option<u32>,
    /// Per unit name, JSON merged into that unit's state before the first turn.
    #[serde(default)]
    before: BTreeMap<String, Value>,
    /// Per player name, JSON merged into that side's state (standing orders, VP).
    #[serde(default)]
    sides: BTreeMap<String, Value>,
    turns: Vec<TurnCase>,
}

fn two_players() -> Vec<String> {
    vec!["Alice".into(), "Bob".into()]
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnCase {
    /// Order text per player name. A player missing here sent nothing (NMR).
    #[serde(default)]
    orders: BTreeMap<String, String>,
    /// The open dice, in the order the engine must draw them; all must be used.
    #[serde(default)]
    dice: Vec<u32>,
    /// How many of `dice` are random picks (indices), which the roll log does not show.
    #[serde(default)]
    picks: usize,
    #[serde(default)]
    leaving: Vec<String>,
    /// Players who ask to join with this turn.
    #[serde(default)]
    joining: Vec<String>,
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
    #[serde(default)]
    press: BTreeMap<String, Vec<String>>,
    /// Report rows, matched by name; each given column must be equal.
    #[serde(default)]
    rows: Vec<RowExpect>,
    /// Rows that must not be there.
    #[serde(default)]
    no_rows: Vec<String>,
    row_count: Option<usize>,
    /// The row names in order.
    row_order: Option<Vec<String>>,
    /// Per unit name, a JSON subset its state must match after the turn.
    #[serde(default)]
    units: BTreeMap<String, Value>,
    /// Running VP per player name, as the report shows it.
    #[serde(default)]
    scores: BTreeMap<String, String>,
    /// Substrings of the report's notes.
    #[serde(default)]
    notes: Vec<String>,
    finished: Option<bool>,
    winners: Option<Vec<String>>,
    next_turn: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowExpect {
    name: String,
    coord: Option<String>,
    result: Option<String>,
    /// Substrings of the Result column.
    #[serde(default)]
    result_has: Vec<String>,
    /// Substrings the Result column must not have.
    #[serde(default)]
    result_lacks: Vec<String>,
    score: Option<String>,
    own_status: Option<String>,
    #[serde(default)]
    own_status_has: Vec<String>,
}

/// Does `actual` contain everything in `wanted` (objects by key, arrays item by item, everything
/// else equal)?
fn subset(wanted: &Value, actual: &Value) -> bool {
    match (wanted, actual) {
        (Value::Object(w), Value::Object(a)) => w.iter().all(|(k, v)| {
            a.get(k).is_some_and(|av| subset(v, av)) || (v.is_null() && a.get(k).is_none())
        }),
        (Value::Array(w), Value::Array(a)) => {
            w.len() == a.len() && w.iter().zip(a).all(|(wv, av)| subset(wv, av))
        }
        _ => wanted == actual,
    }
}

fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                match t.get_mut(k) {
                    Some(slot) if v.is_object() && slot.is_object() => merge(slot, v),
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, value) => *slot = value.clone(),
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

pub fn start(case_setup: Option<&Value>, players: &[Player]) -> State {
    let mut json = case_setup.cloned().unwrap_or_else(|| serde_json::json!({}));
    if json.get("terrain").is_none() {
        json["terrain"] = serde_json::json!({});
    }
    let setup: Setup = serde_json::from_value(json).unwrap_or_else(|e| panic!("setup: {e}"));
    Skyfleet::new_game(&setup, players, &mut TurnDice::scripted([], []))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn run(path: &Path) -> Vec<String> {
    let case: Case = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        !case.rules.is_empty(),
        "{}: cite the rules it checks",
        case.name
    );
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
    let state = start(case.setup.as_ref(), &players);
    let mut json = serde_json::to_value(&state).unwrap();
    if let Some(turn) = case.turn {
        json["turn"] = turn.into();
    }
    for (name, patch) in &case.before {
        let units = json["units"].as_array_mut().unwrap();
        let unit = units
            .iter_mut()
            .find(|u| u["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{}: no unit {name}", case.name));
        merge(unit, patch);
    }
    for (name, patch) in &case.sides {
        let sides = json["sides"].as_array_mut().unwrap();
        let side = sides
            .iter_mut()
            .find(|s| s["player"]["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{}: no side for {name}", case.name));
        merge(side, patch);
    }
    let mut state: State =
        serde_json::from_value(json).unwrap_or_else(|e| panic!("{}: {e}", case.name));

    for (number, turn) in case.turns.iter().enumerate() {
        let at = format!("{} turn {}", case.name, number + 1);
        let mut input = TurnInput {
            leaving: turn.leaving.iter().map(|name| ids[name]).collect(),
            joining: turn
                .joining
                .iter()
                .enumerate()
                .map(|(index, name)| Player {
                    id: PlayerId(100 + index as u64),
                    name: name.clone(),
                })
                .collect(),
            ..TurnInput::default()
        };
        for (name, text) in &turn.orders {
            let id = *ids
                .get(name)
                .unwrap_or_else(|| panic!("{at}: unknown player {name}"));
            let parsed = Skyfleet::parse_orders(&state, id, text);
            let errors: Vec<String> = parsed.errors.iter().map(|e| e.problem.clone()).collect();
            let wanted = turn.expect.errors.get(name).cloned().unwrap_or_default();
            issues_match(&at, "errors", name, &errors, &wanted);
            for issue in parsed.errors.iter().chain(&parsed.warnings) {
                assert!(issue.line > 0, "{at}: line numbers start at 1");
                assert!(
                    !issue.expected.is_empty(),
                    "{at}: every issue shows an example"
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
            if let Some(press) = turn.expect.press.get(name) {
                assert_eq!(&parsed.press, press, "{at}: {name}'s press");
            }
            input.orders.insert(id, parsed.orders);
        }
        let mut dice = TurnDice::scripted(turn.dice.clone(), []);
        let resolution =
            Skyfleet::resolve(&state, &input, &mut dice).unwrap_or_else(|e| panic!("{at}: {e}"));
        let report = &resolution.report;
        let text = report.to_text_width(200);
        assert_eq!(
            dice.open.rolls().len() + turn.picks,
            turn.dice.len(),
            "{at}: the script has dice left over\n{text}"
        );
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
        for name in &turn.expect.no_rows {
            assert!(
                !report.rows.iter().any(|r| &r.name == name),
                "{at}: unexpected row {name}\n{text}"
            );
        }
        if let Some(count) = turn.expect.row_count {
            assert_eq!(report.rows.len(), count, "{at}\n{text}");
        }
        if let Some(order) = &turn.expect.row_order {
            let names: Vec<&String> = report.rows.iter().map(|r| &r.name).collect();
            let wanted: Vec<&String> = order.iter().collect();
            assert_eq!(names, wanted, "{at}: row order\n{text}");
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
        for (name, wanted) in &turn.expect.units {
            let actual = json["units"]
                .as_array()
                .unwrap()
                .iter()
                .find(|u| u["name"] == name.as_str())
                .unwrap_or_else(|| panic!("{at}: no unit {name}"));
            assert!(
                subset(wanted, actual),
                "{at}: {name} is {actual:#}, wanted {wanted:#}\n{text}"
            );
        }
        for (name, score) in &turn.expect.scores {
            let side = state.sides.iter().find(|s| &s.player.name == name).unwrap();
            assert_eq!(&side.vp.display(), score, "{at}: {name}'s VP\n{text}");
        }
        if let Some(next) = turn.expect.next_turn {
            assert_eq!(Skyfleet::turn(&state), next, "{at}: next turn");
        }
        let outcome = Skyfleet::outcome(&state);
        if let Some(finished) = turn.expect.finished {
            assert_eq!(outcome.finished, finished, "{at}: finished?\n{text}");
        }
        if let Some(winners) = &turn.expect.winners {
            let wanted: Vec<PlayerId> = winners.iter().map(|n| ids[n]).collect();
            assert_eq!(outcome.winners, wanted, "{at}: winners\n{text}");
        }
        if std::env::var_os("SKYFLEET_SHOW").is_some() {
            eprintln!("== {at}\n{text}");
        }
    }
    case.rules
}

#[test]
fn every_case_in_the_table_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter(|path| {
            std::env::var("SKYFLEET_CASE")
                .map(|only| path.to_string_lossy().contains(&only))
                .unwrap_or(true)
        })
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut failures = Vec::new();
    for path in &paths {
        let outcome = std::panic::catch_unwind(|| run(path));
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
