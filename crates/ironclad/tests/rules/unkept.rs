//! One judge (issue 28 item 1), run on every set of every case ([`rulecases::CaseTable::unkept`]):
//! each armament and move the confirmation promised ("understood") must be carried out or
//! reported as stopped by something that happened in the turn: a volley in the ship's Co-ord
//! column, or the armament's "held fire" when a magazine blew up at the start of the turn; a
//! move in her Result (cut down, stopped, steered home); or the ship sunk or escaped in the
//! turn, or her player gone.

use engine::{Player, Report};
use ironclad::{Manoeuvre, Orders, State};

/// What the turn did not do of what `orders` confirmed for `player`.
pub(crate) fn not_done(
    after: &State,
    report: &Report,
    player: &Player,
    orders: &Orders,
) -> Vec<String> {
    let mut missing = Vec::new();
    let exploded = report
        .rows
        .iter()
        .any(|r| r.result.contains("fire reaches the magazine"));
    for (id, ship_orders) in &orders.ships {
        let Some(ship) = after.ship(*id) else {
            continue;
        };
        if !ship.afloat() {
            continue; // sunk or gone in the turn: everything after that is stopped by it
        }
        let row = report
            .rows
            .iter()
            .find(|r| r.name == format!("{}: {}", player.name, ship.name));
        let (coord, result) = row.map_or((String::new(), String::new()), |r| {
            (r.coord.clone(), r.result.clone())
        });
        for (letter, ordered) in [
            ('M', !ship_orders.main.is_empty()),
            ('P', !ship_orders.port.is_empty()),
            ('S', !ship_orders.starboard.is_empty()),
            (
                'T',
                ship_orders
                    .torpedo
                    .as_ref()
                    .is_some_and(|t| !t.targets.is_empty()),
            ),
        ] {
            let fired = coord.contains(&format!("{letter}→"));
            // Fire comes before movement, from the positions the orders were checked
            // against: only a magazine blowing up at the start of the turn (IRON-GM-13) can
            // make an armament hold that the check let through.
            let held = result.contains(&format!("{letter} held fire:")) && exploded;
            if ordered && !fired && !held {
                missing.push(format!(
                    "{}'s {letter} fire is neither done nor said held: {coord:?} / {result:?}",
                    ship.name
                ));
            }
        }
        let moves = ship_orders.movement.is_some_and(|m| m != Manoeuvre::Hold);
        let said = ["move ", "breaking off", "rammed", "stopped"]
            .iter()
            .any(|w| result.contains(w));
        if moves && !said {
            missing.push(format!(
                "{}'s move is neither made nor said stopped: {result:?}",
                ship.name
            ));
        }
    }
    missing
}
