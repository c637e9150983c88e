//! The turn report: one row per ship on the board when the turn began, grouped by side
//! (catalogue section 5). Every result shows its dice, so anyone can check it.

use engine::{Report, ReportRow};

use crate::fire::{CriticalRoll, Group, Volley};
use crate::movement::{Change, Move, Ram, RamFate, Stop};
use crate::orders::Manoeuvre;
use crate::outcome::{Verdict, verdict};
use crate::state::{Fate, STARTING_FP, Ship, ShipId, State};
use crate::tables::FireCheck;
use crate::turn::TurnLog;

/// Builds the public report of a resolved turn from the state before, the state after and the
/// log.
pub fn build(before: &State, after: &State, log: &TurnLog) -> Report {
    let mut rows = Vec::new();
    for side in 0..before.sides.len() {
        for id in &log.present {
            let Some(ship) = after.ship(*id).filter(|s| s.side == side) else {
                continue;
            };
            rows.push(row(before, after, log, ship));
        }
    }
    let mut notes = Vec::new();
    notes.push(initiative_note(after, log));
    for id in &log.sunk_by_fire {
        if let Some(ship) = after.ship(*id) {
            notes.push(format!(
                "{} sinks in the fire steps (IRON-DMG-03).",
                ship.name
            ));
        }
    }
    if after.finished {
        notes.push(match verdict(after) {
            Some(Verdict::Won { side, reason }) => format!(
                "The battle is over: {} wins ({reason}).",
                after.side_name(side)
            ),
            Some(Verdict::Draw { reason }) => {
                format!("The battle is over: a draw ({reason}).")
            }
            None => "The battle is over.".into(),
        });
    }
    Report {
        title: format!("Ironclad, turn {}", log.turn),
        rows,
        press: Vec::new(),
        notes,
    }
}

fn initiative_note(state: &State, log: &TurnLog) -> String {
    let rounds: Vec<String> = log
        .initiative
        .iter()
        .map(|(a, b)| {
            format!(
                "{} d6 [{a}], {} d6 [{b}]",
                state.side_name(0),
                state.side_name(1)
            )
        })
        .collect();
    format!(
        "Initiative: {}: {} moves first (IRON-SEQ-05).",
        rounds.join("; tie, again: "),
        state.side_name(log.first_side)
    )
}

fn name_of(state: &State, id: ShipId) -> &str {
    state.ship(id).map(|s| s.name.as_str()).unwrap_or("?")
}

/// `3 dice [6,1,1]`, or `1 die [4]`: a ram's throw in words.
fn dice_thrown(dice: &[u32]) -> String {
    let count = dice.len();
    let noun = if count == 1 { "die" } else { "dice" };
    format!("{count} {noun} {}", faces(dice))
}

fn faces(dice: &[u32]) -> String {
    let mut text = String::with_capacity(2 + 2 * dice.len());
    text.push('[');
    for (index, face) in dice.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        // A die's face is a single digit for every die the engine throws (D6).
        if let Some(digit) = char::from_digit(*face, 10) {
            text.push(digit);
        } else {
            text.push_str(&face.to_string());
        }
    }
    text.push(']');
    text
}

fn row(before: &State, after: &State, log: &TurnLog, ship: &Ship) -> ReportRow {
    let mut coord = Vec::new();
    let mut result = Vec::new();
    let owner = after.commander(ship.player);

    if let Some(roll) = log.fire_rolls.iter().find(|r| r.ship == ship.id) {
        let what = match roll.result {
            FireCheck::Extinguished => "fire put out",
            FireCheck::Burning => "still burning",
            FireCheck::MagazineExplodes => "fire reaches the magazine: she blows up",
        };
        result.push(format!("fire check d6 [{}]: {what}", roll.face));
    }
    // A broken-off ship is steered home whatever her orders: only her fire was held.
    let steered = log
        .moves
        .iter()
        .any(|m| m.ship == ship.id && matches!(m.change, Some(Change::BrokenOff { .. })));
    let held = if steered || !ship.afloat() {
        "held fire"
    } else {
        "held fire and position"
    };
    if owner.is_some_and(|c| log.nmr.contains(&c.player.id)) {
        result.push(format!("no orders (NMR): {held}"));
    } else if log.unordered.contains(&ship.id) {
        // The reasons went to her player only: they may touch hidden facts (IRON-ADM-05).
        if log.refused.contains(&ship.id) {
            result.push(format!(
                "her orders were refused when written (her player was told why): {held}"
            ));
        } else {
            result.push(format!("no orders for her: {held}"));
        }
    }
    for volley in log.volleys.iter().filter(|v| v.firer == ship.id) {
        coord.push(format!(
            "{}→{} {}",
            volley.group.letter(),
            volley.target_area,
            name_of(after, volley.target)
        ));
        result.push(volley_text(after, volley));
    }
    for held in log.held.iter().filter(|h| h.ship == ship.id) {
        result.push(format!(
            "{} held fire: {}",
            held.group.letter(),
            held.problem
        ));
    }
    if log.broke_off.contains(&ship.id) {
        result.push("at her Critical Point: breaks off for home (IRON-DMG-02)".into());
    }
    // Movement in the order it happened: her own move, and rams by others before or after it.
    // A plain HOLD says nothing the Own Status column does not.
    let plain_hold =
        |m: &Move| m.carried == Manoeuvre::Hold && m.change.is_none() && m.stop.is_none();
    for record in &log.moves {
        if record.ship == ship.id && !plain_hold(record) {
            if let Some(ram) = &record.ram {
                coord.push(format!("RAM {} {}", ram.at, name_of(after, ram.rammed)));
            }
            result.push(move_text(after, record));
        }
        if let Some(ram) = record.ram.as_ref().filter(|r| r.rammed == ship.id) {
            result.push(format!(
                "rammed {} by {} from {}: {} throws {} → {} FP",
                ram.kind.name(),
                name_of(after, ram.rammer),
                ram.from,
                ship.name,
                dice_thrown(&ram.rammed_dice),
                ram.rammed_lost
            ));
            if let Some(fate) = ram_fate_text(ram.rammed_fate) {
                result.push(fate.into());
            }
        }
    }
    let fp_before = before.ship(ship.id).map(|b| b.fp).unwrap_or(ship.fp);
    if fp_before > ship.fp {
        result.push(format!("lost {} FP this turn", fp_before - ship.fp));
    }

    ReportRow {
        name: format!("{}: {}", after.player_name(ship.player), ship.name),
        coord: if coord.is_empty() {
            "—".into()
        } else {
            coord.join("; ")
        },
        result: if result.is_empty() {
            "—".into()
        } else {
            result.join("; ")
        },
        score: owner.map(|c| c.score.to_string()).unwrap_or_default(),
        own_status: own_status(after, ship),
    }
}

/// `M 6d [6,5,4,3,2,1] crit [3: port sec lost] → 3 FP` (catalogue section 5).
fn volley_text(state: &State, volley: &Volley) -> String {
    let mut text = format!("{}", volley.group.letter());
    if let Some(tube) = volley
        .solution
        .tube
        .filter(|_| volley.group == Group::Torpedo)
    {
        text.push_str(&format!(" ({} tube)", tube.name()));
    }
    text.push_str(&format!(" {}d {}", volley.dice.len(), faces(&volley.dice)));
    if !volley.criticals.is_empty() {
        let parts: Vec<String> = volley
            .criticals
            .iter()
            .zip(
                volley
                    .applied
                    .iter()
                    .map(Some)
                    .chain(std::iter::repeat(None)),
            )
            .map(|(roll, applied)| {
                let face = match roll {
                    CriticalRoll::Gun { face, .. } | CriticalRoll::Torpedo { face, .. } => *face,
                };
                match applied {
                    Some(effect) => format!("{face}: {effect}"),
                    None => face.to_string(),
                }
            })
            .collect();
        text.push_str(&format!(" crit [{}]", parts.join(", ")));
    }
    text.push_str(&format!(
        " → {} {} FP",
        name_of(state, volley.target),
        volley.fp
    ));
    text
}

fn move_text(state: &State, record: &Move) -> String {
    let mut text = String::new();
    match record.change {
        Some(Change::BrokenOff { home }) => text.push_str(&format!(
            "breaking off: steered {} for the {} edge",
            record.carried,
            home.name()
        )),
        Some(change) => {
            let ordered = record.ordered.map(|m| m.path()).unwrap_or("HOLD");
            let why = match change {
                Change::Slowed => "1 area a turn".to_string(),
                Change::HoldsCourse { until } => format!("holds course to turn {until}"),
                Change::PivotNotAllowed => "no pivot allowed".to_string(),
                Change::BrokenOff { .. } => String::new(),
            };
            text.push_str(&format!("move {ordered} cut to {} ({why})", record.carried));
        }
        None => text.push_str(&format!("move {}", record.carried)),
    }
    if let Some(ram) = &record.ram {
        text.push_str(&format!("; {}", ram_text(state, ram)));
        return text;
    }
    match record.stop {
        Some(Stop::Edge { edge }) => {
            text.push_str(&format!("; stopped at the {} edge", edge.name()))
        }
        Some(Stop::Terrain { area }) => {
            text.push_str(&format!("; stopped short of terrain at {area}"))
        }
        Some(Stop::ShipInTheWay { ship }) => text.push_str(&format!(
            "; stopped short of {} (no ram when breaking off)",
            name_of(state, ship)
        )),
        Some(Stop::Rammed { .. }) | None => {}
    }
    match record.escaped {
        Some(edge) => text.push_str(&format!("; escaped off the {} edge", edge.name())),
        None => text.push_str(&format!(" → {} {}", record.end, record.heading)),
    }
    text
}

fn ram_fate_text(fate: RamFate) -> Option<&'static str> {
    match fate {
        RamFate::BrokeOff => {
            Some("at her Critical Point: breaks off for home from her next move (IRON-GM-10)")
        }
        RamFate::Sunk => Some("sunk by the ram (IRON-GM-09)"),
        RamFate::Fighting | RamFate::Unchanged => None,
    }
}

fn ram_text(state: &State, ram: &Ram) -> String {
    let fate = ram_fate_text(ram.rammer_fate)
        .map(|text| format!("; {text}"))
        .unwrap_or_default();
    // Each ship's dice are her own damage (IRON-GM-09(b)): name whose they are.
    format!(
        "rammed {} {} at {} ({}): {} throws {} → {} FP, {} throws {} → {} FP; stays at {}",
        name_of(state, ram.rammed),
        ram.kind.name(),
        ram.at,
        if ram.rammer_has_ram {
            "ram fitted"
        } else {
            "no ram"
        },
        name_of(state, ram.rammed),
        dice_thrown(&ram.rammed_dice),
        ram.rammed_lost,
        name_of(state, ram.rammer),
        dice_thrown(&ram.rammer_dice),
        ram.rammer_lost,
        ram.from
    ) + &fate
}

/// `G5 N · 8/12 · fire · port sec lost · ...` (catalogue section 5). Torpedoes left are not
/// shown: the report is public (IRON-ADM-05).
pub fn own_status(state: &State, ship: &Ship) -> String {
    let mut parts = Vec::new();
    match ship.fate {
        Fate::Afloat => parts.push(format!("{} {}", ship.area, ship.heading)),
        Fate::Sunk { .. } => parts.push(format!("sunk at {}", ship.area)),
        Fate::Escaped { edge, .. } => parts.push(format!("escaped off the {} edge", edge.name())),
    }
    parts.push(format!("{}/{STARTING_FP}", ship.fp));
    if !ship.afloat() {
        return parts.join(" · ");
    }
    parts.extend(flags(state, ship));
    parts.join(" · ")
}

/// The lasting effects on a ship, as the report and the view show them.
pub fn flags(state: &State, ship: &Ship) -> Vec<String> {
    let mut flags = Vec::new();
    if ship.fire.is_some() {
        flags.push("fire".to_string());
    }
    for turret in ship.turrets.iter().filter(|t| t.destroyed) {
        flags.push(format!("turret {} lost", turret.name));
    }
    if ship.port_battery.destroyed {
        flags.push("port sec lost".into());
    }
    if ship.starboard_battery.destroyed {
        flags.push("stbd sec lost".into());
    }
    if ship.engines_damaged {
        flags.push("engines damaged".into());
    }
    if ship.flooded {
        flags.push("flooded".into());
    }
    let turn = state.turn;
    if let Some(until) = ship.bridge_silent_until().filter(|until| *until >= turn) {
        flags.push(format!("bridge hit: no fire to turn {until}"));
    }
    if let Some(until) = ship.holds_course_until(turn) {
        flags.push(format!("holds course to turn {until}"));
    }
    if ship.ram {
        flags.push("ram".into());
    }
    if ship.broken_off {
        flags.push("broken off".into());
    }
    flags
}
