//! The turn report (catalogue section 5): one row per ship in play at the start of the turn,
//! then rows for demeters and jettisoned bodies that did anything, in player order then id.
//! Co-ord is what each shot aimed at; Result what happened, dice shown; Score the player's
//! running score (FOREVER-GM-43); Own Status the ship's end-of-turn state.

use engine::{Report, ReportRow};

use crate::battle::{RowKey, RowLog, TurnLog};
use crate::design::{Hull, Item, ModuleSpec};
use crate::fixed::show_hundredths;
use crate::state::{Phase, Ship, State};

fn joined(entries: &[String]) -> String {
    if entries.is_empty() {
        "—".to_string()
    } else {
        entries.join("; ")
    }
}

/// The report of a resolved turn.
pub fn build(before: &State, after: &State, log: &TurnLog) -> Report {
    let title = match before.phase {
        Phase::Building => format!(
            "Battleships Forever — turn {} (fleets and deployment)",
            before.turn
        ),
        _ => format!(
            "Battleships Forever — turn {} (round {})",
            before.turn,
            before.round + 1
        ),
    };
    let mut rows = Vec::new();
    let empty = RowLog::default();
    let hulls = if log.hulls.len() == after.ships.len() {
        log.hulls.clone()
    } else {
        after.hulls().unwrap_or_default()
    };
    if before.phase == Phase::Building {
        for seat in &after.seats {
            let status = if after.phase != Phase::Building {
                format!(
                    "{} ships on the table",
                    after
                        .ships
                        .iter()
                        .filter(|s| s.owner == seat.player.id)
                        .count()
                )
            } else if seat.ready {
                "fleet accepted".to_string()
            } else {
                "building".to_string()
            };
            rows.push(ReportRow {
                name: seat.player.name.clone(),
                coord: "—".into(),
                result: "—".into(),
                score: seat.score.to_string(),
                own_status: status,
            });
        }
    }
    for seat in &after.seats {
        let player = seat.player.id;
        let score = seat.score.to_string();
        for (ship, hull) in after.ships.iter().zip(&hulls) {
            if ship.owner != player {
                continue;
            }
            let key = RowKey::Ship(ship.id);
            let entry = log.rows.get(&key);
            if !log.ships_at_start.contains(&ship.id) && entry.is_none() {
                continue;
            }
            let entry = entry.unwrap_or(&empty);
            rows.push(ReportRow {
                name: format!("{}: {}", seat.player.name, ship.name),
                coord: joined(&entry.coord),
                result: joined(&entry.result),
                score: score.clone(),
                own_status: ship_status(ship, hull, after),
            });
        }
        for (key, entry) in &log.rows {
            let (name, status) = match key {
                RowKey::Demeter(name) => {
                    let owner = before
                        .demeters
                        .iter()
                        .chain(&after.demeters)
                        .find(|d| d.name == *name)
                        .map(|d| d.owner)
                        .or_else(|| {
                            // Launched and lost within the turn: the ship's owner.
                            let ship = name.split('/').next().unwrap_or("");
                            after
                                .ship_index(ship)
                                .and_then(|i| after.ships.get(i))
                                .map(|s| s.owner)
                        });
                    if owner != Some(player) {
                        continue;
                    }
                    let status = after.demeters.iter().find(|d| d.name == *name).map_or_else(
                        || "gone".to_string(),
                        |d| {
                            format!(
                                "{}, HP {}, until its ship's turn {}",
                                d.at.show(),
                                d.hp,
                                d.expires_after
                            )
                        },
                    );
                    (name.clone(), status)
                }
                RowKey::Body(id) => {
                    let body = before
                        .bodies
                        .iter()
                        .chain(&after.bodies)
                        .find(|b| b.id == *id);
                    let Some(body) = body else { continue };
                    if body.owner != player {
                        continue;
                    }
                    let status = after.bodies.iter().find(|b| b.id == *id).map_or_else(
                        || "gone".to_string(),
                        |b| {
                            let live: Vec<String> = b
                                .sections
                                .iter()
                                .filter(|s| !s.destroyed)
                                .map(|s| format!("{} {} HP", s.name, s.hp))
                                .collect();
                            format!("jettisoned at {}: {}", b.centre().show(), live.join(", "))
                        },
                    );
                    (body.label(), status)
                }
                RowKey::Ship(_) => continue,
            };
            rows.push(ReportRow {
                name: format!("{}: {name}", seat.player.name),
                coord: joined(&entry.coord),
                result: joined(&entry.result),
                score: score.clone(),
                own_status: status,
            });
        }
    }
    Report {
        title,
        rows,
        press: Vec::new(),
        notes: log.notes.clone(),
    }
}

/// `(x, y) @θ°, speed 5.53", core 10/10, sections 3/3, S3 DEF ready, disabled` (section 5).
pub fn ship_status(ship: &Ship, hull: &Hull, state: &State) -> String {
    if ship.destroyed {
        // A fleet withdrawn when its admiral resigned or left still has its core: it was not
        // destroyed (FOREVER-ADM-07).
        let core_whole = ship
            .parts
            .first()
            .is_some_and(|p| p.status == crate::state::PartStatus::Attached);
        return if core_whole {
            "withdrawn: its admiral resigned (FOREVER-ADM-07)".to_string()
        } else {
            "destroyed".to_string()
        };
    }
    let mut parts = vec![
        format!("{} @{}", ship.at.show(), ship.facing),
        format!("speed {}\"", show_hundredths(ship.speed(hull))),
        format!(
            "core {}/{}",
            ship.parts.first().map_or(0, |p| p.hp),
            hull.parts.first().map_or(0, |p| p.max_hp)
        ),
        format!(
            "sections {}/{}",
            ship.sections_left(),
            hull.parts.len().saturating_sub(1)
        ),
    ];
    for (index, slot) in hull.items.iter().enumerate() {
        let Some(item_state) = ship.items.get(index) else {
            continue;
        };
        if !ship.attached(slot.part) {
            continue;
        }
        if item_state.destroyed {
            parts.push(format!("{} {} destroyed", slot.name, slot.item.word()));
            continue;
        }
        let Item::Module(module) = slot.item else {
            continue;
        };
        let short = match module {
            ModuleSpec::Deflector { .. } => "DEF",
            ModuleSpec::Emp { .. } => "EMP",
            ModuleSpec::TargetingComputer => "TC",
            ModuleSpec::FluxProjector { .. } => "FLUX",
            ModuleSpec::NanoMatrix { .. } => "NANO",
            _ => continue,
        };
        if let Some(charges) = item_state.charges {
            let readiness = match (charges, module.charges()) {
                (0, _) => "spent".to_string(),
                (c, max) if c >= max => "ready".to_string(),
                (c, max) => format!("{c}/{max}"),
            };
            parts.push(format!("{} {short} {readiness}", slot.name));
        }
        if let (Some(energy), Some((max, _))) = (item_state.energy, module.energy()) {
            parts.push(format!("{} {short} {energy}/{max}", slot.name));
        }
    }
    let own_turn = state.seat(ship.owner).map_or(0, |s| s.turns_taken);
    if ship.is_disabled(own_turn + 1) {
        parts.push("disabled".to_string());
    }
    if let Some(target) = ship.towing {
        let name = match target {
            crate::state::TowTarget::Ship(id) => state
                .ships
                .iter()
                .find(|s| s.id == id)
                .map_or("?".into(), |s| s.name.clone()),
            crate::state::TowTarget::Body(id) => state
                .bodies
                .iter()
                .find(|b| b.id == id)
                .map_or("?".into(), |b| b.label()),
        };
        parts.push(format!("towing {name}"));
    }
    if ship.towed_by.is_some() {
        parts.push("in tow".to_string());
    }
    parts.join(", ")
}
