//! What the case files' readers share: how a case's position is set up.

use std::collections::BTreeMap;

use engine::{Engine, Player, TurnDice};
use rulecases::json::{self, Arrays};
use serde::Deserialize;
use serde_json::Value;
use skyfleet::{Setup, Skyfleet, State};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    pub setup: Option<Value>,
    /// The turn the battle is at when the case starts.
    pub turn: Option<u32>,
    /// Per unit name, JSON merged into that unit's state before the first turn.
    #[serde(default)]
    pub before: BTreeMap<String, Value>,
    /// Per player name, JSON merged into that side's state (standing orders, VP).
    #[serde(default)]
    pub sides: BTreeMap<String, Value>,
}

/// The position a case starts from: its setup (no terrain unless it says), the turn, and
/// each unit's and side's state patched in.
pub fn start(start: &Start, players: &[Player]) -> Result<State, String> {
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
