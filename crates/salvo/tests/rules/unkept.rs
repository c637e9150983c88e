//! One judge (issue 28, item 1), run on every set of every case
//! ([`rulecases::CaseTable::unkept`]) and of the phrasings corpus (`tests/suite/confirmed.rs`):
//! the attack and fleet the confirmation promised must be carried out: never `order void` (SALVO-ADM-12: stored orders
//! are checked again at the deadline, but orders checked against the same state must not
//! fail that check), every confirmed shot's square in the player's row of the report, and a
//! confirmed placement never "ignored". Only a player leaving with the turn may stop them, or
//! an attack on them (void, with the reason in the report).

use engine::{ParsedOrders, Report};
use salvo::{Attack, FleetOrder, Orders};

/// What the confirmation promised that the report does not show done.
/// `left`: the players leaving with the turn, whose going may void an attack on them.
pub(crate) fn unkept(
    name: &str,
    parsed: &ParsedOrders<Orders>,
    report: &Report,
    left: &[String],
) -> Vec<String> {
    let mut failures = Vec::new();
    let row = report
        .rows
        .iter()
        .find(|r| r.name == name || r.name.starts_with(&format!("{name} → ")));
    let attack = &parsed.orders.attack;
    if *attack != Attack::Pass {
        match row {
            None => failures.push(format!("{name}: {attack:?} confirmed, but no row")),
            Some(row)
                if row.result.contains("order void")
                    && !left
                        .iter()
                        .any(|l| row.result.contains(&format!("{l} is out"))) =>
            {
                failures.push(format!(
                    "{name}: {:?} confirmed, but the turn reads {:?}",
                    parsed.understood, row.result
                ));
            }
            Some(row) if row.result.contains("order void") => {}
            Some(row) => {
                if let Attack::Fire { shots } = attack {
                    for shot in shots {
                        let square = shot.square.to_string();
                        let named = row
                            .result
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|w| w == square);
                        if !named {
                            failures.push(format!(
                                "{name}: a shot at {square} confirmed, but the row reads {:?}",
                                row.result
                            ));
                        }
                    }
                }
            }
        }
    }
    if matches!(parsed.orders.fleet, Some(FleetOrder::Placed(_)))
        && report
            .notes
            .iter()
            .any(|n| n.starts_with(&format!("{name}'s placement was ignored")))
    {
        failures.push(format!("{name}: a placement confirmed, but ignored"));
    }
    failures
}
