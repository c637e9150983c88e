#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The rule tests (`crates/rulecases`): one test per case of `tests/cases/` and the catalogue's
//! coverage. A Barmy case gives each player's ship (the players are the ships' captains, in
//! order) and the board's setup; besides the shared expectations it checks the squares of each
//! ship hit so far. Barmy throws no open dice: a turn scripts only sealed ones (BARMY-ADM-03).

use std::collections::BTreeMap;
use std::process::ExitCode;

use barmy::{Barmy, Setup, Square, State};
use engine::{Engine, Player, PlayerId, Viewer};
use rulecases::case::{After, Promise};
use rulecases::{CaseTable, Rules};
use serde::Deserialize;

#[path = "rules/unkept.rs"]
mod unkept;

struct Table;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Start {
    #[serde(default)]
    setup: Setup,
    /// Each captain's name and ship squares, e.g. "E13 F13 G13 H13", in roster order.
    ships: Vec<(String, String)>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expect {
    /// Squares of a ship hit so far, per name, e.g. "M17 M18".
    #[serde(default)]
    damaged: BTreeMap<String, String>,
}

fn squares(text: &str) -> Result<Vec<Square>, String> {
    text.split_whitespace()
        .map(|s| s.parse().map_err(|e| format!("{s}: {e:?}")))
        .collect()
}

impl CaseTable for Table {
    type Engine = Barmy;
    type Start = Start;
    type Expect = Expect;

    const RULES: Rules = Rules {
        engine: "barmy",
        prefix: "BARMY",
        crate_dir: env!("CARGO_MANIFEST_DIR"),
    };
    const GM_RULINGS_ANSWERED: Option<usize> = Some(14);

    fn players(start: &Start) -> Vec<String> {
        start.ships.iter().map(|(name, _)| name.clone()).collect()
    }

    fn start(start: &Start, players: &[Player]) -> Result<State, String> {
        if players.len() != start.ships.len() {
            return Err("one ship per player".into());
        }
        let ships = players
            .iter()
            .zip(&start.ships)
            .map(|(player, (name, ship))| {
                if &player.name != name {
                    return Err(format!("the ships are in the players' order: {name}"));
                }
                let ship: [Square; 4] = squares(ship)?
                    .try_into()
                    .map_err(|_| format!("{name}'s ship is not four squares"))?;
                Ok((player.clone(), ship))
            })
            .collect::<Result<_, String>>()?;
        State::with_ships(start.setup.clone(), ships).map_err(|e| e.to_string())
    }

    fn unkept(promise: &Promise<'_, Self>) -> Vec<String> {
        unkept::unkept(
            &promise.player.name,
            promise.parsed,
            promise.report,
            promise.leaves(),
        )
    }

    fn score(state: &State, player: PlayerId) -> Option<String> {
        state.captain(player).map(|c| String::from(c.score.clone()))
    }

    fn check(wanted: &Expect, after: &After<'_, Self>) -> Vec<String> {
        let mut failures = Vec::new();
        for (name, hit) in &wanted.damaged {
            let captain = match after.id(name).map(|id| after.state.captain(id)) {
                Ok(Some(captain)) => captain,
                Ok(None) => {
                    failures.push(format!("{name} has no ship"));
                    continue;
                }
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let got: Vec<Square> = captain
                .ship
                .iter()
                .zip(captain.damage)
                .filter(|(_, d)| d.is_some())
                .map(|(s, _)| *s)
                .collect();
            match squares(hit) {
                Ok(want) if got == want => {}
                Ok(want) => failures.push(format!(
                    "{name}'s damaged squares are {got:?}, wanted {want:?}"
                )),
                Err(e) => failures.push(e),
            }
        }
        // The public view never shows an unhit square of a ship still afloat.
        let public = serde_json::to_string(&Barmy::view(after.state, Viewer::Public)).unwrap();
        if public.contains("own_ship") {
            failures.push("the public view shows a ship".into());
        }
        failures
    }
}

fn main() -> ExitCode {
    rulecases::main::<Table>()
}
