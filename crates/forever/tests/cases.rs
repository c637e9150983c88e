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

use std::collections::BTreeMap;

use engine::{Engine, Player, PlayerId, TurnDice, TurnInput};
use forever::{Forever, State};
use rulecases::Rules;
use rulecases::expect::{self, RowExpect};
use rulecases::json::{self, Arrays};
use rulecases::table::RuleCase;
use serde::Deserialize;
use serde_json::Value;

const RULES: Rules = Rules {
    engine: "forever",
    prefix: "FOREVER",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
};

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

fn run(case: &Case, library: &BTreeMap<String, Vec<String>>) -> Vec<String> {
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
        json::merge(&mut json, &case.state, Arrays::ByIndex);
    }
    for (name, patch) in &case.before {
        let ship = json::named_mut(&mut json["ships"], "name", name)
            .unwrap_or_else(|| panic!("{}: no ship {name}", case.name));
        json::merge(ship, patch, Arrays::ByIndex);
    }
    state = serde_json::from_value(json).unwrap_or_else(|e| panic!("{}: {e}", case.name));

    for (number, turn) in case.turns.iter().enumerate() {
        let at = format!("{} turn {}", case.name, number + 1);
        let mut input = TurnInput {
            leaving: turn.leaving.iter().map(|name| ids[name]).collect(),
            excused: Vec::new(),
            ..TurnInput::default()
        };
        for (name, text) in &turn.orders {
            let id = *ids
                .get(name)
                .unwrap_or_else(|| panic!("{at}: unknown player {name}"));
            let parsed = Forever::parse_orders(&state, id, text);
            let mut failures = expect::issues(
                "errors",
                &parsed.errors,
                turn.expect.errors.get(name).map_or(&[], Vec::as_slice),
            );
            failures.extend(expect::issues(
                "warnings",
                &parsed.warnings,
                turn.expect.warnings.get(name).map_or(&[], Vec::as_slice),
            ));
            for error in &parsed.errors {
                if error.expected.is_empty() {
                    failures.push(format!("every error shows an example: {error:?}"));
                }
            }
            for want in turn.expect.understood.get(name).into_iter().flatten() {
                if !parsed.understood.iter().any(|u| u.contains(want.as_str())) {
                    failures.push(format!(
                        "understood {:#?}, lacking {want:?}",
                        parsed.understood
                    ));
                }
            }
            expect::assert_none(&format!("{at}: {name}'s orders"), &failures, "");
            input.orders.insert(id, parsed.orders);
        }
        // Bearings draw from the script too, so only the sentinel check counts them.
        let mut dice = rulecases::dice::scripted(&turn.dice, &[]);
        let resolution =
            Forever::resolve(&state, &input, &mut dice).unwrap_or_else(|e| panic!("{at}: {e}"));
        let report = &resolution.report;
        let text = report.to_text();
        let mut failures = Vec::new();
        if let Err(e) = rulecases::dice::all_used(&mut dice) {
            failures.push(e);
        }
        failures.extend(expect::rows(report, &turn.expect.rows));
        if let Some(count) = turn.expect.row_count
            && report.rows.len() != count
        {
            failures.push(format!("{} rows, wanted {count}", report.rows.len()));
        }
        failures.extend(expect::notes(report, &turn.expect.notes));
        state = resolution.state;
        let json = serde_json::to_value(&state).unwrap();
        for (name, wanted) in &turn.expect.ships {
            match json::named(&json["ships"], "name", name) {
                None => failures.push(format!("no ship {name}")),
                Some(actual) => {
                    if let Some(difference) = json::difference(wanted, actual, Arrays::ByIndex) {
                        failures.push(format!("{name}: {difference}\n{name} is {actual:#}"));
                    }
                }
            }
        }
        if !turn.expect.state.is_null()
            && let Some(difference) = json::difference(&turn.expect.state, &json, Arrays::ByIndex)
        {
            failures.push(format!("the state: {difference}"));
        }
        for (name, score) in &turn.expect.scores {
            let got = state.seat(ids[name]).unwrap().score.to_string();
            if &got != score {
                failures.push(format!("{name}'s score is {got}, wanted {score}"));
            }
        }
        let outcome = Forever::outcome(&state);
        if let Some(finished) = turn.expect.finished
            && outcome.finished != finished
        {
            failures.push(format!(
                "finished is {}, wanted {finished}",
                outcome.finished
            ));
        }
        if let Some(winners) = &turn.expect.winners {
            let wanted: Vec<PlayerId> = winners.iter().map(|n| ids[n]).collect();
            if outcome.winners != wanted {
                failures.push(format!(
                    "the winners are {:?}, wanted {wanted:?}",
                    outcome.winners
                ));
            }
        }
        expect::assert_none(&at, &failures, &text);
    }
    Vec::new()
}

impl RuleCase for Case {
    fn name(&self) -> &str {
        &self.name
    }
    fn rules(&self) -> &[String] {
        &self.rules
    }
}

#[test]
fn every_case_in_the_table_holds() {
    let library_path = RULES.cases_dir().join("_designs.json");
    let library: BTreeMap<String, Vec<String>> =
        serde_json::from_str(&std::fs::read_to_string(&library_path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", library_path.display()));
    rulecases::table::run(&RULES, |case: &Case| run(case, &library));
}
