//! One judge (issue 28, item 1), run on every set of every case
//! ([`rulecases::CaseTable::unkept`]) and of the phrasings corpus (`tests/confirmed.rs`): every
//! action the confirmation promised ("understood") must be carried out: each shot fired at its
//! square in the player's row of the report (BARMY-07, BARMY-GM-07). Only the turn's own events
//! may stop one: the player leaving with this turn. (Press is printed under the table by
//! `games` from the stored press, not by the engine, and is checked there.)

use engine::{ParsedOrders, Report};

/// What the confirmation promised that the report does not show done.
pub(crate) fn unkept(
    name: &str,
    parsed: &ParsedOrders<barmy::Orders>,
    report: &Report,
    leaving: bool,
) -> Vec<String> {
    if leaving {
        return Vec::new();
    }
    let mut failures = Vec::new();
    let row = report.rows.iter().find(|r| r.name == name);
    for promise in &parsed.understood {
        if let Some(square) = promise.strip_prefix("fire at ") {
            let Some(row) = row else {
                failures.push(format!(
                    "{name}: {promise:?} confirmed, but {name} has no row"
                ));
                continue;
            };
            let coords: Vec<&str> = row.coord.split(", ").collect();
            let results: Vec<&str> = row.result.split(", ").collect();
            let fired = coords
                .iter()
                .zip(&results)
                .any(|(coord, result)| *coord == square && *result != "—");
            if !fired {
                failures.push(format!(
                    "{name}: {promise:?} confirmed, but the report's row reads {:?} / {:?}",
                    row.coord, row.result
                ));
            }
        }
    }
    failures
}
