#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The rule tests (`crates/rulecases`): one test per case of `tests/cases/` and the catalogue's
//! coverage. A skyfleet case gives the setup (with no terrain unless it says: the standard
//! terrain is for real games), the turn the battle is at, and each unit's and side's state
//! before play as JSON; besides the shared expectations it checks each unit's state after a
//! turn. Scores are the sides' VP as the report shows them.

use std::collections::BTreeMap;
use std::process::ExitCode;

use engine::{Engine, Player, PlayerId, Report, TurnDice};
use rulecases::case::After;
use rulecases::json::{self, Arrays};
use rulecases::{CaseTable, Rules};
use serde::Deserialize;
use serde_json::Value;
use skyfleet::{Setup, Skyfleet, State};

struct Table;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Start {
    setup: Option<Value>,
    /// The turn the battle is at when the case starts.
    turn: Option<u32>,
    /// Per unit name, JSON merged into that unit's state before the first turn.
    #[serde(default)]
    before: BTreeMap<String, Value>,
    /// Per player name, JSON merged into that side's state (standing orders, VP).
    #[serde(default)]
    sides: BTreeMap<String, Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// Per unit name, a JSON subset its state must match after the turn.
    #[serde(default)]
    units: BTreeMap<String, Value>,
}

impl CaseTable for Table {
    type Engine = Skyfleet;
    type Start = Start;
    type Expect = Expect;

    const RULES: Rules = Rules {
        engine: "skyfleet",
        prefix: "SKY",
        crate_dir: env!("CARGO_MANIFEST_DIR"),
    };
    const GM_RULINGS_ANSWERED: Option<usize> = Some(32);
    const WARNINGS_SHOW_EXAMPLES: bool = true;

    fn start(start: &Start, players: &[Player]) -> Result<State, String> {
        let mut setup = start.setup.clone().unwrap_or_else(|| serde_json::json!({}));
        if setup.get("terrain").is_none() {
            setup["terrain"] = serde_json::json!({});
        }
        let setup: Setup = serde_json::from_value(setup).map_err(|e| format!("setup: {e}"))?;
        let state = Skyfleet::new_game(&setup, players, &mut TurnDice::scripted([], []))
            .map_err(|e| e.to_string())?;
        let mut json = serde_json::to_value(&state).map_err(|e| e.to_string())?;
        if let Some(turn) = start.turn {
            json["turn"] = turn.into();
        }
        json::patch_named(&mut json["units"], "unit", &start.before, Arrays::Whole)?;
        for (name, patch) in &start.sides {
            let side = json["sides"]
                .as_array_mut()
                .and_then(|sides| {
                    sides
                        .iter_mut()
                        .find(|s| s["player"]["name"] == name.as_str())
                })
                .ok_or_else(|| format!("no side for {name}"))?;
            json::merge(side, patch, Arrays::Whole);
        }
        serde_json::from_value(json).map_err(|e| e.to_string())
    }

    fn score(state: &State, player: PlayerId) -> Option<String> {
        state
            .sides
            .iter()
            .find(|side| side.player.id == player)
            .map(|side| side.vp.display())
    }

    fn check(wanted: &Expect, after: &After<'_, Self>) -> Vec<String> {
        let json = serde_json::to_value(after.state).unwrap();
        json::named_matches(&json["units"], "unit", &wanted.units, Arrays::Whole)
    }

    fn report_text(report: &Report) -> String {
        report.to_text_width(200)
    }

    fn check_docs_setup(state: &State) -> Vec<String> {
        if state.units.len() >= 4 {
            Vec::new()
        } else {
            vec![format!("{} units, wanted 4 or more", state.units.len())]
        }
    }
}

fn main() -> ExitCode {
    rulecases::main::<Table>()
}
