#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The table of rule cases: each file in `tests/cases/` sets up a battle, plays turns from
//! order texts and scripted dice, and states what the report, the ships and the outcome must
//! be. Each case names the rule IDs it checks.

use std::collections::BTreeMap;

use engine::{Engine, Player, PlayerId, TurnDice, TurnInput};
use ironclad::{Ironclad, Setup, State};
use rulecases::Rules;
use rulecases::expect::{self, RowExpect};
use rulecases::json::{self, Arrays};
use rulecases::table::RuleCase;
use serde::Deserialize;
use serde_json::Value;

const RULES: Rules = Rules {
    engine: "ironclad",
    prefix: "IRON",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rules: Vec<String>,
    #[serde(default)]
    setup: Setup,
    /// Players in roster order (ids 1, 2, ...): odd places command for the first side.
    #[serde(default = "two_players")]
    players: Vec<String>,
    /// The turn the battle is at when the case starts.
    turn: Option<u32>,
    /// Per ship name, JSON merged into that ship's state before the first turn: damage,
    /// criticals and flags already in force.
    #[serde(default)]
    before: BTreeMap<String, Value>,
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
    #[serde(default)]
    press: BTreeMap<String, Vec<String>>,
    /// Report rows, matched by name; each given column must be equal.
    #[serde(default)]
    rows: Vec<RowExpect>,
    row_count: Option<usize>,
    /// Per ship name, a JSON subset her state must match after the turn.
    #[serde(default)]
    ships: BTreeMap<String, Value>,
    /// Running scores per player name.
    #[serde(default)]
    scores: BTreeMap<String, u32>,
    /// Substrings of the report's notes.
    #[serde(default)]
    notes: Vec<String>,
    finished: Option<bool>,
    winners: Option<Vec<String>>,
    /// The turn the state stands at afterwards.
    next_turn: Option<u32>,
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
    let mut state: State =
        Ironclad::new_game(&case.setup, &players, &mut TurnDice::scripted([], []))
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    // Damage and effects already in force, written as JSON over the ship's state.
    let mut json = serde_json::to_value(&state).unwrap();
    if let Some(turn) = case.turn {
        json["turn"] = turn.into();
    }
    for (name, patch) in &case.before {
        let ship = json::named_mut(&mut json["ships"], "name", name)
            .unwrap_or_else(|| panic!("{}: no ship {name}", case.name));
        json::merge(ship, patch, Arrays::Whole);
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
            let parsed = Ironclad::parse_orders(&state, id, text);
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
            Ironclad::resolve(&state, &input, &mut dice).unwrap_or_else(|e| panic!("{at}: {e}"));
        let report = &resolution.report;
        let text = report.to_text();
        let mut failures = Vec::new();
        // Every die drawn is a logged roll (no picks), and exactly the scripted ones are drawn.
        if dice.open.rolls().len() != turn.dice.len() {
            failures.push(format!(
                "{} dice scripted, {} rolled: {:?}",
                turn.dice.len(),
                dice.open.rolls().len(),
                dice.open.rolls()
            ));
        }
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
                    if let Some(difference) = json::difference(wanted, actual, Arrays::Whole) {
                        failures.push(format!("{name}: {difference}\n{name} is {actual:#}"));
                    }
                }
            }
        }
        for (name, score) in &turn.expect.scores {
            let got = state.commander(ids[name]).unwrap().score;
            if got != *score {
                failures.push(format!("{name}'s score is {got}, wanted {score}"));
            }
        }
        if let Some(next) = turn.expect.next_turn
            && Ironclad::turn(&state) != next
        {
            failures.push(format!(
                "the next turn is {}, wanted {next}",
                Ironclad::turn(&state)
            ));
        }
        let outcome = Ironclad::outcome(&state);
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
    rulecases::table::run(&RULES, run);
}
