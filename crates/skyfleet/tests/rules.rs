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

use engine::{Player, PlayerId, Report};
use rulecases::case::{After, Promise};
use rulecases::json::{self, Arrays};
use rulecases::{CaseTable, Rules};
use serde::Deserialize;
use serde_json::Value;
use skyfleet::{Skyfleet, State};

mod support;
#[path = "rules/unkept.rs"]
mod unkept;

use support::Start;

struct Table;

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
        support::start(start, players)
    }

    fn score(state: &State, player: PlayerId) -> Option<String> {
        state
            .sides
            .iter()
            .find(|side| side.player.id == player)
            .map(|side| side.vp.display())
    }

    /// A player who leaves has their side hold (SKY-ADM-07): their orders are not played.
    fn unkept(promise: &Promise<'_, Self>) -> Vec<String> {
        if promise.leaves() {
            return Vec::new();
        }
        unkept::unexplained(
            promise.before,
            promise.after,
            &promise.parsed.orders,
            promise.report,
        )
        .into_iter()
        .map(|problem| format!("{problem} (SKY-ADM-22)"))
        .collect()
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
