//! The turn report: one row per unit that activated, was hit or was destroyed, in the order
//! things happened, then one summary row per player (catalogue section 5, SKY-ADM-06).

use engine::{Report, ReportRow};

use crate::log::TurnLog;
use crate::state::{Place, State, Unit};
use crate::tables::Class;

/// `(31.5, 18.0) 90° e7 · Hull 28/35 · CMD 1/1 · Shaken, Speed −2`.
pub fn own_status(unit: &Unit, state: &State) -> String {
    let turn = state.turn;
    let mut parts = Vec::new();
    match unit.place {
        Place::InPlay => parts.push(format!(
            "{} {}° e{}",
            unit.at.display(),
            unit.heading.display(),
            unit.elevation
        )),
        Place::Aboard => parts.push(format!(
            "aboard {}",
            unit.carrier
                .and_then(|c| state.unit(c))
                .map(|c| c.name.clone())
                .unwrap_or_default()
        )),
        _ => {}
    }
    parts.push(format!("Hull {}/{}", unit.hull.max(0), unit.max_hull));
    if unit.is_ship() && unit.in_play() {
        parts.push(format!(
            "CMD {}/{}",
            unit.this_turn.cmd_spent.min(unit.cmd_max()),
            unit.cmd_left()
        ));
    }
    let words = unit.status_words(turn);
    if !words.is_empty() {
        parts.push(words.join(", "));
    }
    parts.join(" · ")
}

/// Builds the report from the state after the turn and the turn's log.
pub fn build(before: &State, after: &State, log: &TurnLog) -> Report {
    let mut rows = Vec::new();
    for row in &log.rows {
        let Some(unit) = row.unit.and_then(|id| after.unit(id)) else {
            continue;
        };
        let Some(side) = after.side(unit.side) else {
            continue;
        };
        let name = match unit.class {
            Class::Torpedo => format!("{}: {}", side.player.name, unit.name),
            _ => format!("{}: {}", side.player.name, unit.label()),
        };
        rows.push(ReportRow {
            name,
            coord: if row.coords.is_empty() {
                "—".into()
            } else {
                row.coords.join("; ")
            },
            result: if row.results.is_empty() {
                "—".into()
            } else {
                row.results.join("; ")
            },
            score: side.vp.display(),
            own_status: own_status(unit, after),
        });
    }
    for (index, side) in after.sides.iter().enumerate() {
        let tally = log.tally.get(index).copied().unwrap_or_default();
        let mine = |u: &&Unit| usize::from(u.side) == index;
        let ships_total = after
            .units
            .iter()
            .filter(mine)
            .filter(|u| u.is_ship())
            .count();
        let ships = after
            .units
            .iter()
            .filter(mine)
            .filter(|u| u.is_ship() && u.in_play())
            .count();
        let wings_flying = after
            .units
            .iter()
            .filter(mine)
            .filter(|u| u.class == Class::Wing && u.in_play())
            .count();
        let torpedoes = after
            .units
            .iter()
            .filter(mine)
            .filter(|u| u.class == Class::Torpedo && u.in_play())
            .count();
        let lost = after
            .units
            .iter()
            .filter(mine)
            .filter(|u| {
                u.class != Class::Torpedo
                    && !u.in_play()
                    && u.place != Place::Aboard
                    && before
                        .unit(u.id)
                        .is_some_and(|b| b.in_play() || b.place == Place::Aboard)
            })
            .count();
        rows.push(ReportRow {
            name: format!("{} ({})", side.player.name, side.name),
            coord: "—".into(),
            result: format!(
                "{} activation{}, {} attack{}, {} hit{}, {} damage dealt, {} critical{}; {} unit{} lost this turn",
                tally.activations,
                plural(tally.activations),
                tally.attacks,
                plural(tally.attacks),
                tally.hits,
                plural(tally.hits),
                tally.damage,
                tally.criticals,
                plural(tally.criticals),
                lost,
                plural(lost as u32)
            ),
            score: side.vp.display(),
            own_status: format!(
                // Wings still aboard are the side's secret (SKY-ADM-09): only those flying.
                "ships {ships}/{ships_total} in play, wings {wings_flying} flying, torpedoes {torpedoes}"
            ),
        });
    }
    let mut notes = log.notes.clone();
    if after.finished {
        let standings = crate::outcome::outcome(after);
        let words: Vec<String> = standings
            .standings
            .iter()
            .map(|s| format!("{}. {} {} VP", s.place, s.name, s.score.display()))
            .collect();
        notes.push(format!("Final standings: {}.", words.join("; ")));
    }
    Report {
        title: format!("Skyfleet — turn {}", before.turn),
        rows,
        press: Vec::new(),
        notes,
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}
