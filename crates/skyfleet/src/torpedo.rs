//! The Torpedo Step: Countermeasures first, then every torpedo moves 12", oldest first, and
//! hits the first ship at its own elevation that its path touches (SKY-TSTEP-01,
//! SKY-TORP-01..06, SKY-KW-CM, SKY-MOD-2, SKY-GM-16..18).

use crate::battle::Battle;
use crate::fire::bases_within;
use crate::geometry::{Length, Turn, bearing, distance_squared, within};
use crate::movement::SAMPLE;
use crate::orders::TorpedoOrder;
use crate::state::{PivotChoice, Place, UnitId};
use crate::tables::{Class, ModuleKind};

/// How far Countermeasures reach (SKY-GM-17).
const DECOY_REACH: Length = Length::inches(12);
/// How far a decoyed torpedo lunges on a 1 (SKY-KW-CM).
const LUNGE: Length = Length::inches(3);
/// The pivot a decoy causes on 4+ (SKY-KW-CM).
const DECOY_TURN: i32 = 45;

impl Battle<'_> {
    /// The whole Torpedo Step.
    pub fn torpedo_step(&mut self, programs: &[TorpedoOrder]) {
        self.countermeasures();
        let turn = self.turn();
        let first = self.first;
        let mut order: Vec<(u32, u8, u32, UnitId)> = self
            .state
            .units
            .iter()
            .filter(|u| u.in_play() && u.class == Class::Torpedo)
            .filter_map(|u| {
                let info = u.torpedo.as_ref()?;
                // SKY-GM-16: launched this turn, it first moves next turn.
                (info.launched_turn < turn).then_some((
                    info.launched_turn,
                    u8::from(u.side != first),
                    info.number,
                    u.id,
                ))
            })
            .collect();
        order.sort();
        for (_, _, _, id) in order {
            let program = programs.iter().find(|p| p.torpedo == id);
            self.move_torpedo(id, program);
        }
    }

    /// SKY-GM-17/18: each ship with standing Countermeasures and working Acoustic Decoys, in
    /// unit order, pays 1 CMD and rolls 1d6 against each enemy torpedo within 12", nearest
    /// first, while CMD lasts: 1, the torpedo lunges 3" at it; 4+, it pivots 22.5°.
    fn countermeasures(&mut self) {
        let defenders: Vec<(UnitId, PivotChoice)> = self
            .state
            .units
            .iter()
            .filter(|u| u.in_play() && u.is_ship() && u.has_working(ModuleKind::AcousticDecoys))
            .filter_map(|u| {
                let side = self.state.side(u.side)?;
                side.standing
                    .countermeasures
                    .get(&u.id)
                    .map(|choice| (u.id, *choice))
            })
            .collect();
        for (defender, choice) in defenders {
            let Some(ship) = self.unit(defender).cloned() else {
                continue;
            };
            let mut threats: Vec<(i128, UnitId)> = self
                .state
                .units
                .iter()
                .filter(|t| {
                    t.in_play()
                        && t.class == Class::Torpedo
                        && t.side != ship.side
                        && bases_within(&ship, t, DECOY_REACH)
                })
                .map(|t| (distance_squared(t.at, ship.at), t.id))
                .collect();
            threats.sort();
            for (_, torpedo) in threats {
                let Some(ship) = self.unit(defender).cloned() else {
                    break;
                };
                if ship.cmd_left() == 0 {
                    break;
                }
                if let Some(unit) = self.unit_mut(defender) {
                    unit.this_turn.cmd_spent += 1;
                }
                let roll = self.dice.d6();
                let Some(token) = self.unit(torpedo).cloned().filter(|t| t.in_play()) else {
                    continue;
                };
                let mut struck = None;
                let effect = match roll {
                    1 => {
                        // The lunge is a line of travel like any other: an island in the
                        // torpedo's band stops it there, and it is lost (SKY-ISL-01).
                        let toward = bearing(token.at, ship.at).unwrap_or(token.heading);
                        let mut at = token.at;
                        let mut covered = Length::ZERO;
                        while covered < LUNGE {
                            covered = (covered + SAMPLE).min(LUNGE);
                            let next = token.at.advance(toward, covered);
                            if let Some(island) = self.state.terrain.island_in_the_way(
                                next,
                                token.radius,
                                token.elevation,
                            ) {
                                struck = Some(island.to_string());
                                break;
                            }
                            at = next;
                        }
                        if let Some(unit) = self.unit_mut(torpedo) {
                            unit.at = at;
                        }
                        "it lunges 3\" toward us".to_string()
                    }
                    4..=6 => {
                        let turn = decoy_turn(&token, &ship, choice);
                        if let Some(unit) = self.unit_mut(torpedo) {
                            unit.heading = unit.heading.turned(turn);
                        }
                        format!("it pivots {}", turn.display())
                    }
                    _ => "no effect".to_string(),
                };
                self.log.result(
                    defender,
                    format!(
                        "Countermeasures (1 CMD) vs {}: 1d6 [{roll}], {effect}",
                        token.name
                    ),
                );
                if let Some(island) = struck {
                    self.torpedo_lost_on_island(torpedo, &island);
                }
            }
        }
    }

    /// Moves one torpedo its 12" (less 1" per level climbed, plus 1" per level dived), with
    /// at most one 22.5° pivot once past its Inertia (SKY-TORP-01, -03, -04).
    fn move_torpedo(&mut self, id: UnitId, program: Option<&TorpedoOrder>) {
        let Some(token) = self.unit(id).cloned() else {
            return;
        };
        let stats = token.stats();
        let first_step = token.torpedo.as_ref().is_some_and(|t| t.steps_moved == 0);
        let launcher = token.torpedo.as_ref().map(|t| t.launcher);
        let climb = program.map(|p| p.climb).unwrap_or(0);
        let dive = program.map(|p| p.dive).unwrap_or(0);
        let mut elevation = i32::from(token.elevation) + i32::from(climb) - i32::from(dive);
        elevation = elevation.min(i32::from(self.state.rules.max_elevation));
        let mut words = Vec::new();
        if climb > 0 {
            words.push(format!("CLIMB {climb}"));
        }
        if dive > 0 {
            words.push(format!("DIVE {dive}"));
        }
        if elevation < 1 {
            self.log.result(id, "dived below elevation 1: lost");
            if let Some(unit) = self.unit_mut(id) {
                unit.place = Place::Destroyed;
            }
            return;
        }
        let elevation = elevation as u8;
        // Climbs and dives come first, where it is: into an island's band over its footprint
        // is into the island (SKY-ISL-01, SKY-ISL-02).
        if let Some(island) = self
            .state
            .terrain
            .island_on_the_way_up_or_down(token.at, token.radius, token.elevation, elevation)
            .map(str::to_string)
        {
            if let Some(unit) = self.unit_mut(id) {
                unit.elevation = elevation;
            }
            self.log
                .result(id, format!("Torpedo Step: {}", words.join(" ")));
            self.torpedo_lost_on_island(id, &island);
            return;
        }
        let lift = stats.lift.unwrap_or(1) * 100;
        let drop = stats.drop.unwrap_or(1) * 100;
        let budget = Length(
            (stats.movement.hundredths() - i64::from(climb) * lift + i64::from(dive) * drop).max(0),
        );
        // SKY-TORP-04: the pivot comes after the Inertia distance, or at the end of the move
        // if Inertia is longer than the move.
        let pivot = program.and_then(|p| p.pivot).map(|(turn, after)| {
            let limit = stats.pivot.0;
            let turn = Turn(turn.0.clamp(-limit, limit));
            let at = after.max(stats.inertia).min(budget);
            (turn, at)
        });
        let mut at = token.at;
        let mut heading = token.heading;
        let mut leg_start = at;
        let mut leg_covered = Length::ZERO;
        let mut covered = Length::ZERO;
        let mut pivoted = false;
        let board = self.state.rules.board;
        let mut contact = None;
        let mut island = None;
        let mut left_table = false;
        while covered < budget || (pivot.is_some_and(|(_, p)| p == covered) && !pivoted) {
            if let Some((turn, when)) = pivot
                && !pivoted
                && covered >= when
            {
                heading = heading.turned(turn);
                pivoted = true;
                words.push(format!("P{} after {}\"", turn.display(), when.display()));
                leg_start = at;
                leg_covered = Length::ZERO;
                if covered >= budget {
                    break;
                }
            }
            let mut step = SAMPLE.min(budget - covered);
            if let Some((_, when)) = pivot
                && !pivoted
                && covered < when
            {
                step = step.min(when - covered);
            }
            leg_covered = leg_covered + step;
            covered = covered + step;
            at = leg_start.advance(heading, leg_covered);
            // SKY-ISL-01: islands are solid; a torpedo that meets one in its band goes no
            // further (and hits nothing behind it).
            if let Some(name) = self
                .state
                .terrain
                .island_in_the_way(at, token.radius, elevation)
            {
                island = Some(name.to_string());
                break;
            }
            // SKY-TORP-05, SKY-GM-16: the first ship at the same elevation its path
            // touches; wings and torpedoes are never hit; the launcher is safe on the
            // token's first step.
            let hit = self
                .state
                .units
                .iter()
                .filter(|u| {
                    u.in_play()
                        && u.is_ship()
                        && u.elevation == elevation
                        && !(first_step && Some(u.id) == launcher)
                        && within(at, u.at, u.radius + token.radius)
                })
                .min_by_key(|u| (distance_squared(at, u.at), u.id))
                .map(|u| u.id);
            if hit.is_some() {
                contact = hit;
                break;
            }
            if at.x.0 < 0 || at.y.0 < 0 || at.x > board.width || at.y > board.height {
                left_table = true;
                break;
            }
        }
        if let Some(unit) = self.unit_mut(id) {
            unit.at = at;
            unit.heading = heading;
            unit.elevation = elevation;
            if let Some(info) = unit.torpedo.as_mut() {
                info.steps_moved += 1;
            }
        }
        let moved = format!(
            "Torpedo Step: {}F{} → {} {}° e{elevation}",
            if words.is_empty() {
                String::new()
            } else {
                format!("{} ", words.join(" "))
            },
            covered.display(),
            at.display(),
            heading.display()
        );
        self.log.result(id, moved);
        if let Some(ship) = contact {
            self.torpedo_contact(id, ship);
        } else if let Some(island) = island {
            self.torpedo_lost_on_island(id, &island);
        } else if left_table {
            self.log.result(id, "left the table");
            if let Some(unit) = self.unit_mut(id) {
                unit.place = Place::Destroyed;
            }
        }
    }
}

impl Battle<'_> {
    /// A torpedo that meets an island in its band is stopped by it and lost: islands are solid
    /// (SKY-ISL-01), and a torpedo hits only ships (SKY-TORP-05, SKY-ADM-21).
    fn torpedo_lost_on_island(&mut self, id: UnitId, island: &str) {
        self.log.result(
            id,
            format!("struck island {island} and is lost (SKY-ISL-01)"),
        );
        if let Some(unit) = self.unit_mut(id) {
            unit.place = Place::Destroyed;
        }
    }
}

/// Which way a decoyed torpedo pivots (SKY-GM-18): the defender's choice; by default away
/// from the defender, clockwise when it points straight at or away from it.
fn decoy_turn(token: &crate::state::Unit, ship: &crate::state::Unit, choice: PivotChoice) -> Turn {
    match choice {
        PivotChoice::Left => Turn(-DECOY_TURN),
        PivotChoice::Right => Turn(DECOY_TURN),
        PivotChoice::Away => {
            let toward = bearing(token.at, ship.at).unwrap_or(token.heading);
            let relative = token.heading.turn_to(toward).0;
            if relative > 0 && relative < 360 {
                // The ship is to starboard: turn to port.
                Turn(-DECOY_TURN)
            } else {
                Turn(DECOY_TURN)
            }
        }
    }
}
