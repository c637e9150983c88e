#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The rule tests (`crates/rulecases`): one test per case of `tests/cases/` and the catalogue's
//! coverage. An ironclad case gives the setup, the turn the battle is at and each ship's state
//! before play (damage, criticals and flags already in force, as JSON over her state); besides
//! the shared expectations it checks each ship's state after a turn.

use std::collections::BTreeMap;
use std::process::ExitCode;

use engine::{Engine, Player, PlayerId, TurnDice};
use ironclad::{Ironclad, Setup, State};
use rulecases::case::{After, Promise};
use rulecases::json::{self, Arrays};
use rulecases::{CaseTable, Rules};
use serde::Deserialize;
use serde_json::Value;

#[path = "rules/unkept.rs"]
mod unkept;

pub(crate) struct Table;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Start {
    #[serde(default)]
    setup: Setup,
    /// The turn the battle is at when the case starts.
    turn: Option<u32>,
    /// Per ship name, JSON merged into that ship's state before the first turn.
    #[serde(default)]
    before: BTreeMap<String, Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    /// Per ship name, a JSON subset her state must match after the turn.
    #[serde(default)]
    ships: BTreeMap<String, Value>,
}

impl CaseTable for Table {
    type Engine = Ironclad;
    type Start = Start;
    type Expect = Expect;

    const RULES: Rules = Rules {
        engine: "ironclad",
        prefix: "IRON",
        crate_dir: env!("CARGO_MANIFEST_DIR"),
    };
    const GM_RULINGS_ANSWERED: Option<usize> = Some(20);

    /// A player who leaves before the turn resolves gets the NMR treatment (IRON-GM-18): her
    /// orders are stopped by that.
    fn unkept(promise: &Promise<'_, Self>) -> Vec<String> {
        if promise.leaves() {
            return Vec::new();
        }
        unkept::not_done(
            promise.after,
            promise.report,
            promise.player,
            &promise.parsed.orders,
        )
    }

    /// Odd places command for the first side.
    fn start(start: &Start, players: &[Player]) -> Result<State, String> {
        let state = Ironclad::new_game(&start.setup, players, &mut TurnDice::scripted([], []))
            .map_err(|e| e.to_string())?;
        let mut json = serde_json::to_value(&state).map_err(|e| e.to_string())?;
        if let Some(turn) = start.turn {
            json["turn"] = turn.into();
        }
        json::patch_named(&mut json["ships"], "ship", &start.before, Arrays::Whole)?;
        serde_json::from_value(json).map_err(|e| e.to_string())
    }

    fn score(state: &State, player: PlayerId) -> Option<String> {
        state.commander(player).map(|c| c.score.to_string())
    }

    fn check(wanted: &Expect, after: &After<'_, Self>) -> Vec<String> {
        let json = serde_json::to_value(after.state).unwrap();
        json::named_matches(&json["ships"], "ship", &wanted.ships, Arrays::Whole)
    }

    /// The example's third ship has a ram.
    fn check_docs_setup(state: &State) -> Vec<String> {
        let mut failures = Vec::new();
        if state.ships.len() != 3 {
            failures.push(format!("{} ships, wanted 3", state.ships.len()));
        }
        if !state.ships.get(2).is_some_and(|ship| ship.ram) {
            failures.push("the third ship has no ram".into());
        }
        failures
    }
}

fn main() -> ExitCode {
    rulecases::main::<Table>()
}
