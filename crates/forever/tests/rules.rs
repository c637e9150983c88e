#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The rule tests (`crates/rulecases`): one test per case of `tests/cases/` and the catalogue's
//! coverage. A forever case sets up a battle (ships named from the shared design library
//! `tests/cases/_designs.json` or the case's own designs), the roll-off, and the state before
//! play as JSON; besides the shared expectations it checks each ship's state and the whole
//! state after a turn. Bearings draw from the script without being logged, so only the
//! "all scripted dice used" check counts the dice.

use std::collections::BTreeMap;
use std::process::ExitCode;

use engine::{Engine, Player, PlayerId, TurnDice};
use forever::{Forever, State};
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
    /// Designs by class name (added to the shared library).
    #[serde(default)]
    designs: BTreeMap<String, Vec<String>>,
    /// The setup; a fleet's ship may name a `class` from the library instead of a `design`.
    #[serde(default)]
    setup: Value,
    /// The roll-off dice (FOREVER-PLAY-1); Alice 6, Bob 1 unless given.
    #[serde(default = "alice_first")]
    roll_off: Vec<u32>,
    /// JSON merged into the state before the first turn (`round: 1` skips the opening turn).
    #[serde(default)]
    state: Value,
    /// Per ship name, JSON merged into that ship's state before the first turn.
    #[serde(default)]
    before: BTreeMap<String, Value>,
}

fn alice_first() -> Vec<u32> {
    vec![6, 1]
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    /// Per ship name, a JSON subset its state must match after the turn.
    #[serde(default)]
    ships: BTreeMap<String, Value>,
    /// A JSON subset the whole state must match.
    #[serde(default)]
    state: Value,
}

/// The shared design library, by class name.
fn library() -> Result<BTreeMap<String, Vec<String>>, String> {
    let path = Table::RULES.cases_dir().join("_designs.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Replaces `class` in fleets with the design from the library, renamed to the ship's name.
fn expand_classes(
    setup: &mut Value,
    library: &BTreeMap<String, Vec<String>>,
) -> Result<(), String> {
    let fleets = setup.get_mut("fleets").and_then(Value::as_array_mut);
    for fleet in fleets.into_iter().flatten() {
        let ships = fleet.get_mut("ships").and_then(Value::as_array_mut);
        for ship in ships.into_iter().flatten() {
            let Some(class) = ship.get("class").and_then(Value::as_str).map(String::from) else {
                continue;
            };
            let lines = library
                .get(&class)
                .ok_or_else(|| format!("no design class {class}"))?;
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
    Ok(())
}

impl CaseTable for Table {
    type Engine = Forever;
    type Start = Start;
    type Expect = Expect;

    const RULES: Rules = Rules {
        engine: "forever",
        prefix: "FOREVER",
        crate_dir: env!("CARGO_MANIFEST_DIR"),
    };
    const LOGS_EVERY_ROLL: bool = false;

    fn start(start: &Start, players: &[Player]) -> Result<State, String> {
        let mut designs = library()?;
        designs.extend(start.designs.clone());
        let mut setup = if start.setup.is_null() {
            serde_json::json!({})
        } else {
            start.setup.clone()
        };
        expand_classes(&mut setup, &designs)?;
        let setup: forever::Setup =
            serde_json::from_value(setup).map_err(|e| format!("setup: {e}"))?;
        let state = Forever::new_game(
            &setup,
            players,
            &mut TurnDice::scripted(start.roll_off.clone(), []),
        )
        .map_err(|e| e.to_string())?;
        let mut json = serde_json::to_value(&state).map_err(|e| e.to_string())?;
        if !start.state.is_null() {
            json::merge(&mut json, &start.state, Arrays::ByIndex);
        }
        json::patch_named(&mut json["ships"], "ship", &start.before, Arrays::ByIndex)?;
        serde_json::from_value(json).map_err(|e| e.to_string())
    }

    fn unkept(promise: &Promise<'_, Self>) -> Vec<String> {
        unkept::not_done(
            promise.before,
            promise.after,
            promise.report,
            promise.player,
            &promise.parsed.orders,
            &promise.parsed.warnings,
        )
    }

    fn score(state: &State, player: PlayerId) -> Option<String> {
        state.seat(player).map(|seat| seat.score.to_string())
    }

    fn check(wanted: &Expect, after: &After<'_, Self>) -> Vec<String> {
        let json = serde_json::to_value(after.state).unwrap();
        let mut failures =
            json::named_matches(&json["ships"], "ship", &wanted.ships, Arrays::ByIndex);
        if !wanted.state.is_null()
            && let Some(difference) = json::difference(&wanted.state, &json, Arrays::ByIndex)
        {
            failures.push(format!("the state: {difference}"));
        }
        failures
    }
}

fn main() -> ExitCode {
    rulecases::main::<Table>()
}
