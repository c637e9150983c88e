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

use barmy::{Barmy, Setup, Square, State};
use engine::{Engine, Player, PlayerId, TurnInput, Viewer};
use rulecases::Rules;
use rulecases::table::RuleCase;
use serde::Deserialize;

const RULES: Rules = Rules {
    engine: "barmy",
    prefix: "BARMY",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
};

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

fn run(case: &Case) -> Vec<String> {
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
            let mut failures = rulecases::expect::issues(
                "errors",
                &parsed.errors,
                turn.expect.errors.get(name).map_or(&[], Vec::as_slice),
            );
            failures.extend(rulecases::expect::issues(
                "warnings",
                &parsed.warnings,
                turn.expect.warnings.get(name).map_or(&[], Vec::as_slice),
            ));
            rulecases::expect::assert_none(&format!("{at}: {name}'s orders"), &failures, "");
            if let Some(press) = turn.expect.press.get(name) {
                assert_eq!(&parsed.press, press, "{at}: {name}'s press");
            }
            input.orders.insert(id, parsed.orders);
        }
        let mut dice = rulecases::dice::scripted(&[], &turn.sealed);
        let resolution =
            Barmy::resolve(&state, &input, &mut dice).unwrap_or_else(|e| panic!("{at}: {e}"));
        let report = &resolution.report;
        // BARMY-ADM-03: Barmy throws no open dice (its script is empty) and draws exactly the
        // sealed ones the case scripts.
        if let Err(e) = rulecases::dice::all_used(&mut dice) {
            panic!("{at}: {e}\n{}", report.to_text());
        }
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
            .map(|c| (c.id, String::from(c.score.clone())))
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
    let summary = rulecases::table::run(&RULES, run);
    assert!(summary.files >= 10, "the case table is missing");
}
