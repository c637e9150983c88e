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

use engine::{Engine, Player, PlayerId, TurnDice, TurnInput};
use rulecases::Rules;
use rulecases::expect::{self, RowExpect};
use rulecases::json::{self, Arrays};
use rulecases::table::RuleCase;
use serde::Deserialize;
use serde_json::Value;
use skyfleet::{Setup, Skyfleet, State};

const RULES: Rules = Rules {
    engine: "skyfleet",
    prefix: "SKY",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
};

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

pub fn start(case_setup: Option<&Value>, players: &[Player]) -> State {
    let mut json = case_setup.cloned().unwrap_or_else(|| serde_json::json!({}));
    if json.get("terrain").is_none() {
        json["terrain"] = serde_json::json!({});
    }
    let setup: Setup = serde_json::from_value(json).unwrap_or_else(|e| panic!("setup: {e}"));
    Skyfleet::new_game(&setup, players, &mut TurnDice::scripted([], []))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn run(case: &Case) -> Vec<String> {
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
        let unit = json::named_mut(&mut json["units"], "name", name)
            .unwrap_or_else(|| panic!("{}: no unit {name}", case.name));
        json::merge(unit, patch, Arrays::Whole);
    }
    for (name, patch) in &case.sides {
        let sides = json["sides"].as_array_mut().unwrap();
        let side = sides
            .iter_mut()
            .find(|s| s["player"]["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{}: no side for {name}", case.name));
        json::merge(side, patch, Arrays::Whole);
    }
    let mut state: State =
        serde_json::from_value(json).unwrap_or_else(|e| panic!("{}: {e}", case.name));

    for (number, turn) in case.turns.iter().enumerate() {
        let at = format!("{} turn {}", case.name, number + 1);
        let mut input = TurnInput {
            leaving: turn.leaving.iter().map(|name| ids[name]).collect(),
            excused: Vec::new(),
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
            for issue in parsed.errors.iter().chain(&parsed.warnings) {
                if issue.expected.is_empty() {
                    failures.push(format!("every issue shows an example: {issue:?}"));
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
            if let Some(press) = turn.expect.press.get(name)
                && &parsed.press != press
            {
                failures.push(format!("press {:?}, wanted {press:?}", parsed.press));
            }
            expect::assert_none(&format!("{at}: {name}'s orders"), &failures, "");
            input.orders.insert(id, parsed.orders);
        }
        let mut dice = rulecases::dice::scripted(&turn.dice, &[]);
        let resolution =
            Skyfleet::resolve(&state, &input, &mut dice).unwrap_or_else(|e| panic!("{at}: {e}"));
        let report = &resolution.report;
        let text = report.to_text_width(200);
        let mut failures = Vec::new();
        // The logged rolls and the picks the case declares make up the script, and exactly the
        // scripted dice are drawn.
        if dice.open.rolls().len() + turn.picks != turn.dice.len() {
            failures.push(format!(
                "{} dice scripted, {} rolled and {} picks declared: {:?}",
                turn.dice.len(),
                dice.open.rolls().len(),
                turn.picks,
                dice.open.rolls()
            ));
        }
        if let Err(e) = rulecases::dice::all_used(&mut dice) {
            failures.push(e);
        }
        failures.extend(expect::rows(report, &turn.expect.rows));
        for name in &turn.expect.no_rows {
            if report.rows.iter().any(|r| &r.name == name) {
                failures.push(format!("unexpected row {name}"));
            }
        }
        if let Some(count) = turn.expect.row_count
            && report.rows.len() != count
        {
            failures.push(format!("{} rows, wanted {count}", report.rows.len()));
        }
        if let Some(order) = &turn.expect.row_order {
            let names: Vec<&String> = report.rows.iter().map(|r| &r.name).collect();
            let wanted: Vec<&String> = order.iter().collect();
            if names != wanted {
                failures.push(format!("row order {names:?}, wanted {wanted:?}"));
            }
        }
        failures.extend(expect::notes(report, &turn.expect.notes));
        state = resolution.state;
        let json = serde_json::to_value(&state).unwrap();
        for (name, wanted) in &turn.expect.units {
            match json::named(&json["units"], "name", name) {
                None => failures.push(format!("no unit {name}")),
                Some(actual) => {
                    if let Some(difference) = json::difference(wanted, actual, Arrays::Whole) {
                        failures.push(format!("{name}: {difference}\n{name} is {actual:#}"));
                    }
                }
            }
        }
        for (name, score) in &turn.expect.scores {
            let side = state.sides.iter().find(|s| &s.player.name == name).unwrap();
            if &side.vp.display() != score {
                failures.push(format!(
                    "{name}'s VP is {}, wanted {score}",
                    side.vp.display()
                ));
            }
        }
        if let Some(next) = turn.expect.next_turn
            && Skyfleet::turn(&state) != next
        {
            failures.push(format!(
                "the next turn is {}, wanted {next}",
                Skyfleet::turn(&state)
            ));
        }
        let outcome = Skyfleet::outcome(&state);
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
        if std::env::var_os("SKYFLEET_SHOW").is_some() {
            eprintln!("== {at}\n{text}");
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
    rulecases::table::run(&RULES, run);
}
