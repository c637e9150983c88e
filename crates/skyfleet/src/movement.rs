//! Moving a ship or a wing in its activation: the budget (class movement, Full Ahead, Speed
//! Loss, Lift and Drop), one pivot after Inertia, Hard Around, islands and the table edge,
//! overlaps, Broken units fleeing, and the path a wing flew over (SKY-GM-11, SKY-KW-LIFT,
//! SKY-KW-INERTIA, SKY-CMD-06, SKY-CMD-07, SKY-MOR-06, SKY-KW-FLYOVER).

use std::collections::BTreeSet;

use crate::battle::Battle;
use crate::geometry::{Angle, Length, Point, Turn, bearing, within};
use crate::orders::{Aim, PivotSpec, Step};
use crate::state::{Edge, Morale, Place, State, Unit, UnitId};
use crate::tables::Class;

/// How finely a move is walked: islands, edges and contacts are checked every quarter inch.
pub const SAMPLE: Length = Length(25);

/// Where a unit is and which way it faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pose {
    pub at: Point,
    pub heading: Angle,
    pub elevation: u8,
}

/// What a move asks for.
#[derive(Debug, Clone, Default)]
pub struct MovePlan {
    pub steps: Vec<Step>,
    pub full_ahead: bool,
    pub dive_brakes: bool,
    pub hard_around: Option<PivotSpec>,
}

/// What a move did.
#[derive(Debug, Clone, Default)]
pub struct Moved {
    /// Units whose base the mover's centre passed over (SKY-GM-26).
    pub flown_over: BTreeSet<UnitId>,
}

/// Where an aim point is.
pub fn aim_point(state: &State, aim: Aim, from: Pose) -> Option<Angle> {
    match aim {
        Aim::Unit(id) => state.unit(id).and_then(|u| bearing(from.at, u.at)),
        Aim::Point(point) => bearing(from.at, point),
        Aim::Bearing(angle) => Some(angle),
    }
}

/// The turn toward `wanted`, rounded to the class's step (22.5° for ships and torpedoes,
/// 0.5° for wings) and limited to its pivot (SKY-GM-11).
pub fn turn_toward(class: Class, heading: Angle, wanted: Angle) -> Turn {
    let mut turn = heading.turn_to(wanted).0;
    if class != Class::Wing {
        // Round to the nearest 22.5° (45 half-degrees), ties away from zero.
        let steps = (turn.abs() + 22) / 45;
        turn = turn.signum() * steps * 45;
    }
    let limit = class.stats().pivot.0;
    Turn(turn.clamp(-limit, limit))
}

/// The edge a Broken unit flees to: the nearest from its base centre; ties go to its own
/// deployment edge, then north, east, south, west (SKY-GM-11(e)).
pub fn flight_edge(state: &State, unit: &Unit) -> Edge {
    let own = state.side(unit.side).map(|s| s.edge).unwrap_or(Edge::West);
    let board = state.rules.board;
    let mut best = own;
    let mut best_distance = board.distance_to(unit.at, own);
    for edge in [Edge::North, Edge::East, Edge::South, Edge::West] {
        let distance = board.distance_to(unit.at, edge);
        if distance < best_distance {
            best = edge;
            best_distance = distance;
        }
    }
    best
}

/// The steps a Broken unit takes: pivot toward the nearest edge as soon and as far as it
/// may, and move its full speed (SKY-MOR-06, SKY-GM-11(e)).
pub fn flight_plan(state: &State, unit: &Unit) -> Vec<Step> {
    let edge = flight_edge(state, unit);
    let speed = unit.speed(false);
    let inertia = unit.stats().inertia;
    let toward = Step::Toward(Aim::Bearing(edge.bearing()));
    if unit.heading == edge.bearing() || unit.status.rudder_loss {
        return vec![Step::Forward(speed)];
    }
    if inertia == Length::ZERO {
        vec![toward, Step::Forward(speed)]
    } else if speed >= inertia {
        vec![
            Step::Forward(inertia),
            toward,
            Step::Forward(speed - inertia),
        ]
    } else {
        vec![Step::Forward(speed), toward]
    }
}

/// Does a base at this pose overlap another unit at the same elevation (SKY-GM-11(g))?
/// Torpedoes do not count: they only meet ships in the Torpedo Step.
fn overlaps(state: &State, mover: UnitId, radius: Length, pose: Pose) -> Option<String> {
    state
        .units
        .iter()
        .find(|u| {
            u.in_play()
                && u.id != mover
                && u.class != Class::Torpedo
                && u.elevation == pose.elevation
                && within(u.at, pose.at, u.radius + radius - Length(1))
        })
        .map(|u| u.name.clone())
}

impl Battle<'_> {
    /// Moves a unit through its plan, cutting it short where the rules say, and reports it.
    pub fn move_unit(&mut self, id: UnitId, plan: &MovePlan) -> Moved {
        let mut moved = Moved::default();
        let Some(unit) = self.unit(id).cloned() else {
            return moved;
        };
        if !unit.in_play() {
            return moved;
        }
        if unit.status.drifting {
            if !plan.steps.is_empty() || plan.hard_around.is_some() {
                self.log
                    .result(id, "Drifting: cannot move or turn (SKY-SCRIT-4)");
            }
            return moved;
        }
        let broken = unit.status.morale == Morale::Broken;
        let stats = unit.stats();
        let is_wing = unit.class == Class::Wing;
        let speed = unit.speed(plan.full_ahead && !broken);
        // SKY-GM-11(a): the budget is speed plus Drop(x) per level dived (unless Dive Brakes
        // decline it, SKY-MOD-8); wings neither pay nor gain (SKY-GM-11(h)).
        let dived: i64 = plan
            .steps
            .iter()
            .map(|s| match s {
                Step::Dive(n) => i64::from(*n),
                _ => 0,
            })
            .sum();
        let gain = if is_wing || plan.dive_brakes {
            0
        } else {
            dived * stats.drop.unwrap_or(0) * 100
        };
        let budget = Length(speed.hundredths() + gain);
        let mut spent = Length::ZERO;
        let mut forward = Length::ZERO;
        let mut pivots = 0;
        let mut pose = Pose {
            at: unit.at,
            heading: unit.heading,
            elevation: unit.elevation,
        };
        let mut path = vec![pose];
        let mut done: Vec<String> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let mut exited = false;
        let board = self.state.rules.board;
        let max_elevation = self.state.rules.max_elevation;
        'steps: for step in &plan.steps {
            match step {
                Step::Forward(distance) => {
                    let room = Length((budget - spent).hundredths().max(0));
                    let allowed = (*distance).min(room);
                    if allowed < *distance {
                        notes.push(format!(
                            "F{} cut to {} (movement {}\")",
                            distance.display(),
                            allowed.display(),
                            budget.display()
                        ));
                    }
                    let start = pose;
                    let mut covered = Length::ZERO;
                    let mut blocked = None;
                    while covered < allowed {
                        let next = (covered + SAMPLE).min(allowed);
                        let at = start.at.advance(start.heading, next);
                        if let Some(island) =
                            self.state
                                .terrain
                                .island_in_the_way(at, unit.radius, pose.elevation)
                        {
                            blocked = Some(format!("stopped by island {island}"));
                            break;
                        }
                        if broken && board.touches_edge(at, unit.radius) {
                            pose.at = at;
                            covered = next;
                            path.push(pose);
                            exited = true;
                            break;
                        }
                        if !board.holds(at, unit.radius) {
                            blocked = Some("stopped at the table edge".into());
                            break;
                        }
                        pose.at = at;
                        covered = next;
                        path.push(pose);
                    }
                    spent = spent + covered;
                    forward = forward + covered;
                    if covered > Length::ZERO {
                        done.push(format!("F{}", covered.display()));
                    }
                    if exited {
                        break 'steps;
                    }
                    if let Some(why) = blocked {
                        notes.push(why);
                        break 'steps;
                    }
                }
                Step::Pivot(_) | Step::Toward(_) => {
                    let turn = match step {
                        Step::Pivot(turn) => *turn,
                        Step::Toward(aim) => match aim_point(&self.state, *aim, pose) {
                            Some(wanted) => turn_toward(unit.class, pose.heading, wanted),
                            None => Turn(0),
                        },
                        _ => Turn(0),
                    };
                    if unit.status.rudder_loss {
                        notes.push("Rudder Loss: cannot turn".into());
                        continue;
                    }
                    if pivots >= 1 {
                        notes.push(format!(
                            "second pivot {} refused (one a move)",
                            turn.display()
                        ));
                        continue;
                    }
                    if turn.magnitude() > stats.pivot.magnitude() {
                        notes.push(format!(
                            "pivot {} refused (at most {})",
                            turn.display(),
                            stats.pivot.size_display()
                        ));
                        continue;
                    }
                    // SKY-KW-INERTIA, SKY-GM-11(b).
                    let full_move = spent >= budget;
                    let inertia_met =
                        forward >= stats.inertia || (speed < stats.inertia && full_move);
                    if !inertia_met {
                        notes.push(format!(
                            "pivot {} refused (Inertia {}\" not yet moved)",
                            turn.display(),
                            stats.inertia.display()
                        ));
                        continue;
                    }
                    pivots += 1;
                    pose.heading = pose.heading.turned(turn);
                    path.push(pose);
                    done.push(format!("P{}", turn.display()));
                }
                Step::Climb(levels) => {
                    let cost = if is_wing {
                        Length::ZERO
                    } else {
                        Length(i64::from(*levels) * stats.lift.unwrap_or(0) * 100)
                    };
                    if spent + cost > budget {
                        notes.push(format!("CLIMB {levels} refused (not enough movement)"));
                        continue;
                    }
                    let target = (u32::from(pose.elevation) + u32::from(*levels))
                        .min(u32::from(max_elevation)) as u8;
                    if let Some(island) =
                        self.state
                            .terrain
                            .island_in_the_way(pose.at, unit.radius, target)
                    {
                        notes.push(format!("CLIMB {levels} refused: island {island}"));
                        break 'steps;
                    }
                    spent = spent + cost;
                    pose.elevation = target;
                    path.push(pose);
                    done.push(format!("CLIMB {levels}"));
                }
                Step::Dive(levels) => {
                    let target = i32::from(pose.elevation) - i32::from(*levels);
                    if target < 1 {
                        self.log.result(id, "dived below elevation 1 (SKY-GM-06)");
                        self.destroy(id, Place::Crashed);
                        self.report_fates();
                        return moved;
                    }
                    if let Some(island) =
                        self.state
                            .terrain
                            .island_in_the_way(pose.at, unit.radius, target as u8)
                    {
                        notes.push(format!("DIVE {levels} refused: island {island}"));
                        break 'steps;
                    }
                    pose.elevation = target as u8;
                    path.push(pose);
                    done.push(format!("DIVE {levels}"));
                }
            }
        }
        // SKY-CMD-07, SKY-GM-11(c): the extra pivot at the very end, free of Inertia.
        if let Some(spec) = plan.hard_around.filter(|_| !broken && !exited) {
            let turn = match spec {
                PivotSpec::By(turn) => turn,
                PivotSpec::Toward(aim) => match aim_point(&self.state, aim, pose) {
                    Some(wanted) => turn_toward(unit.class, pose.heading, wanted),
                    None => Turn(0),
                },
            };
            if unit.status.rudder_loss {
                notes.push("Hard Around: Rudder Loss, cannot turn".into());
            } else if turn.magnitude() > stats.pivot.magnitude() {
                notes.push(format!(
                    "Hard Around {} refused (at most {})",
                    turn.display(),
                    stats.pivot.size_display()
                ));
            } else {
                pose.heading = pose.heading.turned(turn);
                path.push(pose);
                done.push(format!("Hard Around P{}", turn.display()));
            }
        }
        // SKY-GM-11(g): a move that ends in an illegal overlap is cut back.
        if !exited {
            let mut cut = None;
            while let Some(last) = path.last().copied() {
                match overlaps(&self.state, id, unit.radius, last) {
                    Some(other) if path.len() > 1 => {
                        cut = Some(other);
                        path.pop();
                    }
                    _ => break,
                }
            }
            if let Some(other) = cut {
                notes.push(format!("cut back to avoid {other}"));
            }
            pose = path.last().copied().unwrap_or(pose);
        }
        // SKY-GM-26: what the wing's base centre passed over.
        if is_wing {
            for sample in &path {
                for other in self.state.in_play() {
                    if other.id != id
                        && other.class != Class::Torpedo
                        && within(sample.at, other.at, other.radius)
                    {
                        moved.flown_over.insert(other.id);
                    }
                }
            }
        }
        if let Some(unit) = self.unit_mut(id) {
            unit.at = pose.at;
            unit.heading = pose.heading;
            unit.elevation = pose.elevation;
        }
        let mut text = if done.is_empty() {
            "held position".to_string()
        } else {
            format!(
                "{}{} → {} {}° e{}",
                if broken { "Broken, fled: " } else { "moved " },
                done.join(" "),
                pose.at.display(),
                pose.heading.display(),
                pose.elevation
            )
        };
        for note in notes {
            text.push_str("; ");
            text.push_str(&note);
        }
        self.log.result(id, text);
        if exited {
            self.destroy(id, Place::Exited);
            self.report_fates();
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_toward_round_to_the_class_step_and_stop_at_the_pivot() {
        // A Gunship (45°) wanting 70° right turns 45°; an Escort (90°) 67.5° rounds to 67.5.
        assert_eq!(
            turn_toward(Class::Gunship, Angle::NORTH, Angle::degrees(70)),
            Turn::degrees(45)
        );
        assert_eq!(
            turn_toward(Class::Escort, Angle::NORTH, Angle::from_half_degrees(135)),
            Turn(135)
        );
        assert_eq!(
            turn_toward(Class::Escort, Angle::NORTH, Angle::degrees(80)),
            Turn::degrees(90)
        );
        assert_eq!(
            turn_toward(Class::Capital, Angle::EAST, Angle::NORTH),
            Turn(-45)
        );
        // A wing turns to the half-degree.
        assert_eq!(
            turn_toward(Class::Wing, Angle::NORTH, Angle::from_half_degrees(53)),
            Turn(53)
        );
    }
}
