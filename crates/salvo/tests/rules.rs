//! The rule tests (`crates/rulecases`): one test per case of `tests/cases/` and the catalogue's
//! coverage. A salvo case gives the setup, each player's fleet (PLACE lines) and the position
//! before play (squares hit, ships sunk or captured, extras' uses left, the turn); besides the
//! shared expectations it checks the squares hit on each ocean, the squares each player has
//! called, each ship's status, each fleet as its owner sees it and the uses left.

use std::collections::BTreeMap;
use std::process::ExitCode;

use engine::{Engine, GameSecret, Player};
use rulecases::case::{After, Promise};
use rulecases::{CaseTable, Rules};
use salvo::{FleetOrder, Salvo, Setup, ShipKind, ShipStatus, Special, Square, State};
use serde::Deserialize;

#[path = "rules/unkept.rs"]
mod unkept;

struct Table;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Start {
    setup: Option<serde_json::Value>,
    /// PLACE lines per player, applied before play.
    #[serde(default)]
    fleets: BTreeMap<String, String>,
    #[serde(default)]
    before: Before,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Before {
    #[serde(default)]
    hit: BTreeMap<String, Vec<Square>>,
    #[serde(default)]
    sunk: BTreeMap<String, Vec<ShipKind>>,
    /// owner -> ship -> captor
    #[serde(default)]
    captured: BTreeMap<String, BTreeMap<ShipKind, String>>,
    #[serde(default)]
    uses: BTreeMap<String, BTreeMap<Special, u8>>,
    turn: Option<u32>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// The exact set of hit squares on a player's ocean after the turn.
    #[serde(default)]
    hits: BTreeMap<String, Vec<Square>>,
    /// attacker -> target -> exact squares called so far.
    #[serde(default)]
    calls: BTreeMap<String, BTreeMap<String, Vec<Square>>>,
    /// owner -> ship -> "afloat" | "sunk" | "captured by <name>".
    #[serde(default)]
    ships: BTreeMap<String, BTreeMap<ShipKind, String>>,
    /// owner -> ship spans as the owner's view describes them ("Carrier A1-A5").
    #[serde(default)]
    fleet: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    uses: BTreeMap<String, BTreeMap<Special, u8>>,
}

fn ship_word(state: &State, status: ShipStatus) -> String {
    match status {
        ShipStatus::Afloat => "afloat".into(),
        ShipStatus::Sunk { .. } => "sunk".into(),
        ShipStatus::Captured { by, .. } => format!("captured by {}", state.name_of(by)),
    }
}

impl CaseTable for Table {
    type Engine = Salvo;
    type Start = Start;
    type Expect = Expect;

    const RULES: Rules = Rules {
        engine: "salvo",
        prefix: "SALVO",
        crate_dir: env!("CARGO_MANIFEST_DIR"),
    };
    const GM_RULINGS_ANSWERED: Option<usize> = Some(18);

    fn players(_: &Start) -> Vec<String> {
        vec!["Ann".into(), "Bob".into()]
    }

    fn start(start: &Start, players: &[Player]) -> Result<State, String> {
        let setup: Setup = match &start.setup {
            Some(value) => {
                serde_json::from_value(value.clone()).map_err(|e| format!("setup: {e}"))?
            }
            None => Setup::default(),
        };
        let id = |name: &str| {
            players
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.id)
                .ok_or_else(|| format!("no player {name} in the case"))
        };
        let mut dice = GameSecret::from_bytes([7; 32]).turn_dice(0);
        let mut state = Salvo::new_game(&setup, players, &mut dice).map_err(|e| e.to_string())?;
        for (name, text) in &start.fleets {
            let player = id(name)?;
            let parsed = Salvo::parse_orders(&state, player, text);
            if !parsed.errors.is_empty() {
                return Err(format!("fleet of {name}: {:?}", parsed.errors));
            }
            match parsed.orders.fleet {
                Some(FleetOrder::Placed(plan)) => {
                    state.set_fleet(player, &plan);
                }
                other => return Err(format!("fleet of {name} is not a placement: {other:?}")),
            }
        }
        let before = &start.before;
        for (name, squares) in &before.hit {
            state.hit_squares(id(name)?, squares);
        }
        for (name, ships) in &before.sunk {
            let player = id(name)?;
            for ship in ships {
                state.sink_ship(player, *ship);
            }
        }
        for (name, ships) in &before.captured {
            let player = id(name)?;
            for (ship, captor) in ships {
                state.capture_ship(player, *ship, id(captor)?);
            }
        }
        for (name, uses) in &before.uses {
            let player = id(name)?;
            for (special, left) in uses {
                state.set_uses_left(player, *special, *left);
            }
        }
        if let Some(turn) = before.turn {
            state.set_turn(turn);
        }
        Ok(state)
    }

    /// A player leaving with the turn is not held to their orders.
    fn unkept(promise: &Promise<'_, Self>) -> Vec<String> {
        if promise.leaves() {
            return Vec::new();
        }
        unkept::unkept(
            &promise.player.name,
            promise.parsed,
            promise.report,
            promise.left,
        )
    }

    fn check(wanted: &Expect, after: &After<'_, Self>) -> Vec<String> {
        let state = after.state;
        let mut failures = Vec::new();
        let mut admiral = |name: &str| match after.id(name) {
            Ok(id) => state.admiral(id).map(|a| (id, a)),
            Err(e) => {
                failures.push(e);
                None
            }
        };
        let mut found = Vec::new();
        for (name, squares) in &wanted.hits {
            let mut got: Vec<Square> = admiral(name)
                .map(|(_, a)| {
                    a.fleet()
                        .ships()
                        .iter()
                        .flat_map(|s| s.damage().keys().copied())
                        .collect()
                })
                .unwrap_or_default();
            got.sort();
            let mut want = squares.clone();
            want.sort();
            if got != want {
                found.push(format!(
                    "{name}'s hit squares: expected {want:?}, got {got:?}"
                ));
            }
        }
        for (attacker, targets) in &wanted.calls {
            let from = admiral(attacker);
            for (target, squares) in targets {
                let got: Vec<Square> = admiral(target)
                    .and_then(|(target, _)| from.and_then(|(_, a)| a.calls_on(target)))
                    .map(|c| c.iter().copied().collect())
                    .unwrap_or_default();
                let mut want = squares.clone();
                want.sort();
                if got != want {
                    found.push(format!(
                        "{attacker}'s calls on {target}: expected {want:?}, got {got:?}"
                    ));
                }
            }
        }
        for (owner, ships) in &wanted.ships {
            let fleet = admiral(owner);
            for (kind, want) in ships {
                let got = fleet
                    .and_then(|(_, a)| a.fleet().ship(*kind))
                    .map(|s| ship_word(state, s.status()))
                    .unwrap_or_default();
                if &got != want {
                    found.push(format!("{owner}'s {kind}: expected {want}, got {got}"));
                }
            }
        }
        for (owner, spans) in &wanted.fleet {
            let got: Vec<String> = admiral(owner)
                .map(|(_, a)| {
                    a.fleet()
                        .ships()
                        .iter()
                        .map(|s| s.placement().describe())
                        .collect()
                })
                .unwrap_or_default();
            if &got != spans {
                found.push(format!("{owner}'s fleet: expected {spans:?}, got {got:?}"));
            }
        }
        for (owner, uses) in &wanted.uses {
            let fleet = admiral(owner);
            for (special, want) in uses {
                let got = fleet.map(|(_, a)| a.uses_left().of(*special));
                if got != Some(*want) {
                    found.push(format!(
                        "{owner}'s {special} uses left: expected {want}, got {got:?}"
                    ));
                }
            }
        }
        failures.extend(found);
        failures
    }
}

fn main() -> ExitCode {
    rulecases::main::<Table>()
}
