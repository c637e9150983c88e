//! Moving a ship or a wing in its activation: the budget (class movement, Full Ahead, Speed
//! Loss, Lift and Drop), one pivot after Inertia, Hard Around, islands and the table edge,
//! overlaps, Broken units fleeing, and the path a wing flew over (SKY-GM-11, SKY-KW-LIFT,
//! SKY-KW-INERTIA, SKY-CMD-06, SKY-CMD-07, SKY-MOR-06, SKY-KW-FLYOVER).

use std::collections::BTreeSet;

use crate::battle::Battle;
use crate::geometry::{Angle, Length, Point, Turn, bearing, within};
use crate::orders::{Aim, PivotSpec, Step};
use crate::state::{Edge, Morale, Place, State, Unit, UnitId};
use crate::tables::{Class, ModuleKind};

mod check;

pub use check::check_move;

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
        // A wing still aboard has no place of its own to face (SKY-ADM-09).
        Aim::Unit(id) => state
            .unit(id)
            .filter(|u| u.place != Place::Aboard)
            .and_then(|u| bearing(from.at, u.at)),
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

/// What a move meets besides the rules of movement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// The move as it happens in the unit's activation: islands and the table's edge stop it,
    /// another base at its elevation cuts it back, and a Broken unit flees off the table.
    AsItHappens,
    /// The move as written, on an open table and with the unit in good heart: only the rules
    /// of movement apply. The order check runs this on the current state.
    AsWritten,
}

/// A pivot that no move of this unit may make (SKY-CLASS-01, SKY-GM-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PivotRule {
    /// Larger than the class's pivot.
    TooLarge,
    /// Not a multiple of 22.5° for a ship (wings turn to the half-degree).
    OffStep,
}

impl PivotRule {
    /// The rule as an order check explains it.
    pub fn explain(self, class: Class) -> String {
        match self {
            PivotRule::TooLarge => format!(
                "a {} pivots at most {}° (SKY-CLASS-01)",
                class.display(),
                class.stats().pivot.size_display()
            ),
            PivotRule::OffStep => "ships turn in steps of 22.5° (SKY-GM-11)".into(),
        }
    }
}

/// Whether a unit of this class may pivot by `turn` at all (SKY-CLASS-01, SKY-GM-11).
pub fn pivot_rule(class: Class, turn: Turn) -> Result<(), PivotRule> {
    if turn.magnitude() > class.stats().pivot.magnitude() {
        Err(PivotRule::TooLarge)
    } else if class != Class::Wing && turn.0 % 45 != 0 {
        Err(PivotRule::OffStep)
    } else {
        Ok(())
    }
}

/// Something in a move not done as written, in the order met. `step` is the index of the
/// step in the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveProblem {
    /// A Drifting unit cannot move or turn (SKY-SCRIT-4).
    Drifting,
    /// Dive Brakes ordered without working Dive Brakes (SKY-MOD-8); the Drop is declined all
    /// the same.
    NoDiveBrakes,
    /// A forward step cut to the movement left (SKY-GM-11).
    OverBudget {
        step: usize,
        ordered: Length,
        allowed: Length,
    },
    /// A climb the movement left cannot pay for (SKY-KW-LIFT): not made.
    ClimbOverBudget { step: usize, levels: u8 },
    /// A pivot with Rudder Loss (SKY-CRIT-4): not made.
    RudderLoss { step: usize },
    /// A second pivot in a move (SKY-GM-11): not made.
    SecondPivot { step: usize, turn: Turn },
    /// A pivot the class may never make: not made.
    Pivot {
        step: usize,
        turn: Turn,
        rule: PivotRule,
    },
    /// A pivot before Inertia is met (SKY-KW-INERTIA): not made. `toward` for a TOWARD step.
    Inertia {
        step: usize,
        turn: Turn,
        toward: bool,
        forward: Length,
    },
    /// A climb above the ceiling (SKY-GM-06): it stops there.
    AboveCeiling { step: usize },
    /// A dive below elevation 1 (SKY-GM-06): the unit crashes.
    Crash { step: usize },
    /// An island in the unit's band stops a forward step (SKY-ISL-01).
    Island { step: usize, island: String },
    /// A climb or dive into an island's band where the unit is: not made, the move ends.
    IslandInBand {
        step: usize,
        change: String,
        island: String,
    },
    /// The table's edge stops a forward step.
    TableEdge { step: usize },
    /// Hard Around with Rudder Loss (SKY-CMD-07, SKY-CRIT-4): not made.
    HardAroundRudderLoss,
    /// A Hard Around pivot the class may never make: not made.
    HardAround { turn: Turn, rule: PivotRule },
    /// The move ended on another base at the same elevation and was cut back (SKY-GM-11(g)).
    CutBack { other: String },
}

impl MoveProblem {
    /// The note the turn report adds after the move, if any.
    pub fn note(&self, unit: &Unit, budget: Length) -> Option<String> {
        let stats = unit.stats();
        Some(match self {
            MoveProblem::Drifting => "Drifting: cannot move or turn (SKY-SCRIT-4)".into(),
            MoveProblem::NoDiveBrakes | MoveProblem::AboveCeiling { .. } => return None,
            MoveProblem::OverBudget {
                ordered, allowed, ..
            } => format!(
                "F{} cut to {} (movement {}\")",
                ordered.display(),
                allowed.display(),
                budget.display()
            ),
            MoveProblem::ClimbOverBudget { levels, .. } => {
                format!("CLIMB {levels} refused (not enough movement)")
            }
            MoveProblem::RudderLoss { .. } => "Rudder Loss: cannot turn".into(),
            MoveProblem::SecondPivot { turn, .. } => {
                format!("second pivot {} refused (one a move)", turn.display())
            }
            MoveProblem::Pivot {
                turn,
                rule: PivotRule::TooLarge,
                ..
            } => format!(
                "pivot {} refused (at most {})",
                turn.display(),
                stats.pivot.size_display()
            ),
            MoveProblem::Pivot {
                turn,
                rule: PivotRule::OffStep,
                ..
            } => format!(
                "pivot {} refused (ships turn in steps of 22.5°)",
                turn.display()
            ),
            MoveProblem::Inertia { turn, .. } => format!(
                "pivot {} refused (Inertia {}\" not yet moved)",
                turn.display(),
                stats.inertia.display()
            ),
            MoveProblem::Crash { .. } => "dived below elevation 1 (SKY-GM-06)".into(),
            MoveProblem::Island { island, .. } => format!("stopped by island {island}"),
            MoveProblem::IslandInBand { change, island, .. } => {
                format!("{change} refused: island {island}")
            }
            MoveProblem::TableEdge { .. } => "stopped at the table edge".into(),
            MoveProblem::HardAroundRudderLoss => "Hard Around: Rudder Loss, cannot turn".into(),
            MoveProblem::HardAround {
                turn,
                rule: PivotRule::TooLarge,
            } => format!(
                "Hard Around {} refused (at most {})",
                turn.display(),
                stats.pivot.size_display()
            ),
            MoveProblem::HardAround {
                turn,
                rule: PivotRule::OffStep,
            } => format!(
                "Hard Around {} refused (ships turn in steps of 22.5°)",
                turn.display()
            ),
            MoveProblem::CutBack { other } => format!("cut back to avoid {other}"),
        })
    }
}

/// How a move ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveEnd {
    /// On the table, where [`Walked::pose`] says.
    OnTable,
    /// Drifting: it did not move at all (SKY-SCRIT-4).
    Drifting,
    /// A Broken unit left the table (SKY-MOR-06).
    Exited,
    /// It dived below elevation 1 and crashed (SKY-GM-06).
    Crashed,
}

/// A move worked out step by step, before anything is changed.
#[derive(Debug, Clone)]
pub struct Walked {
    /// Where the unit ends.
    pub pose: Pose,
    /// The steps made, as the report shows them (`F3`, `P+45`, `CLIMB 1`).
    pub done: Vec<String>,
    /// What was not done as written, in the order met.
    pub problems: Vec<MoveProblem>,
    pub end: MoveEnd,
    /// The unit was Broken and fled (SKY-MOR-06).
    pub broken: bool,
    /// The movement it had: speed, plus Drop per level dived unless Dive Brakes decline it.
    pub budget: Length,
    /// What the plan as written asks: forward inches plus Lift per level climbed.
    pub asked: Length,
    /// Units whose base a wing's centre passed over (SKY-GM-26).
    pub flown_over: BTreeSet<UnitId>,
    /// Torpedoes a ship's base touched on its way, at their elevation, in the order met: each
    /// hits it (SKY-TORP-05), under the GM's switch `torpedo_contact_in_movement`.
    pub torpedoes: Vec<UnitId>,
}

/// Works out a unit's move through its plan: the one place the rules of movement are decided
/// (SKY-GM-11, SKY-KW-LIFT, SKY-KW-INERTIA, SKY-CMD-06, SKY-CMD-07, SKY-MOR-06, SKY-GM-06,
/// SKY-CRIT-4, SKY-SCRIT-4, SKY-MOD-8). The turn walks it [`Walk::AsItHappens`] and carries it
/// out; the order check walks it [`Walk::AsWritten`] on the current state and refuses the
/// orders it finds a problem in. Changes nothing.
pub fn plan_move(state: &State, unit: &Unit, plan: &MovePlan, walk: Walk) -> Walked {
    let broken = walk == Walk::AsItHappens && unit.status.morale == Morale::Broken;
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
    let asked = Length(
        plan.steps
            .iter()
            .map(|s| match s {
                Step::Forward(d) => d.hundredths(),
                Step::Climb(n) if !is_wing => i64::from(*n) * stats.lift.unwrap_or(0) * 100,
                _ => 0,
            })
            .sum(),
    );
    let mut pose = Pose {
        at: unit.at,
        heading: unit.heading,
        elevation: unit.elevation,
    };
    let mut walked = Walked {
        pose,
        done: Vec::new(),
        problems: Vec::new(),
        end: MoveEnd::OnTable,
        broken,
        budget,
        asked,
        flown_over: BTreeSet::new(),
        torpedoes: Vec::new(),
    };
    if unit.status.drifting {
        walked.end = MoveEnd::Drifting;
        if !plan.steps.is_empty() || plan.hard_around.is_some() {
            walked.problems.push(MoveProblem::Drifting);
        }
        return walked;
    }
    if plan.dive_brakes && !unit.has_working(ModuleKind::DiveBrakes) {
        walked.problems.push(MoveProblem::NoDiveBrakes);
    }
    let obstacles = walk == Walk::AsItHappens;
    let mut spent = Length::ZERO;
    let mut forward = Length::ZERO;
    let mut pivots = 0;
    let mut path = vec![pose];
    let mut exited = false;
    let board = state.rules.board;
    let max_elevation = state.rules.max_elevation;
    let problems = &mut walked.problems;
    let done = &mut walked.done;
    'steps: for (index, step) in plan.steps.iter().enumerate() {
        match step {
            Step::Forward(distance) => {
                let room = Length((budget - spent).hundredths().max(0));
                let allowed = (*distance).min(room);
                if allowed < *distance {
                    problems.push(MoveProblem::OverBudget {
                        step: index,
                        ordered: *distance,
                        allowed,
                    });
                }
                let start = pose;
                let mut covered = Length::ZERO;
                let mut blocked = None;
                while covered < allowed {
                    let next = (covered + SAMPLE).min(allowed);
                    let at = start.at.advance(start.heading, next);
                    if obstacles {
                        if let Some(island) =
                            state
                                .terrain
                                .island_in_the_way(at, unit.radius, pose.elevation)
                        {
                            blocked = Some(MoveProblem::Island {
                                step: index,
                                island: island.to_string(),
                            });
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
                            blocked = Some(MoveProblem::TableEdge { step: index });
                            break;
                        }
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
                    problems.push(why);
                    break 'steps;
                }
            }
            Step::Pivot(_) | Step::Toward(_) => {
                let turn = match step {
                    Step::Pivot(turn) => *turn,
                    Step::Toward(aim) => match aim_point(state, *aim, pose) {
                        Some(wanted) => turn_toward(unit.class, pose.heading, wanted),
                        None => Turn(0),
                    },
                    _ => Turn(0),
                };
                if unit.status.rudder_loss {
                    problems.push(MoveProblem::RudderLoss { step: index });
                    continue;
                }
                if pivots >= 1 {
                    problems.push(MoveProblem::SecondPivot { step: index, turn });
                    continue;
                }
                if let Err(rule) = pivot_rule(unit.class, turn) {
                    problems.push(MoveProblem::Pivot {
                        step: index,
                        turn,
                        rule,
                    });
                    continue;
                }
                // SKY-KW-INERTIA, SKY-GM-11(b).
                let full_move = spent >= budget;
                let inertia_met = forward >= stats.inertia || (speed < stats.inertia && full_move);
                if !inertia_met {
                    problems.push(MoveProblem::Inertia {
                        step: index,
                        turn,
                        toward: matches!(step, Step::Toward(_)),
                        forward,
                    });
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
                    problems.push(MoveProblem::ClimbOverBudget {
                        step: index,
                        levels: *levels,
                    });
                    continue;
                }
                let wanted = u32::from(pose.elevation) + u32::from(*levels);
                if wanted > u32::from(max_elevation) {
                    problems.push(MoveProblem::AboveCeiling { step: index });
                }
                let target = wanted.min(u32::from(max_elevation)) as u8;
                // Every level on the way up, not only the last (SKY-ISL-01).
                if obstacles
                    && let Some(island) = state.terrain.island_on_the_way_up_or_down(
                        pose.at,
                        unit.radius,
                        pose.elevation,
                        target,
                    )
                {
                    problems.push(MoveProblem::IslandInBand {
                        step: index,
                        change: format!("CLIMB {levels}"),
                        island: island.to_string(),
                    });
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
                    problems.push(MoveProblem::Crash { step: index });
                    if walk == Walk::AsItHappens {
                        walked.end = MoveEnd::Crashed;
                        return walked;
                    }
                    // As written, the rest of the move is still checked.
                    continue;
                }
                if obstacles
                    && let Some(island) = state.terrain.island_on_the_way_up_or_down(
                        pose.at,
                        unit.radius,
                        pose.elevation,
                        target as u8,
                    )
                {
                    problems.push(MoveProblem::IslandInBand {
                        step: index,
                        change: format!("DIVE {levels}"),
                        island: island.to_string(),
                    });
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
            PivotSpec::Toward(aim) => match aim_point(state, aim, pose) {
                Some(wanted) => turn_toward(unit.class, pose.heading, wanted),
                None => Turn(0),
            },
        };
        if unit.status.rudder_loss {
            problems.push(MoveProblem::HardAroundRudderLoss);
        } else if let Err(rule) = pivot_rule(unit.class, turn) {
            problems.push(MoveProblem::HardAround { turn, rule });
        } else {
            pose.heading = pose.heading.turned(turn);
            path.push(pose);
            done.push(format!("Hard Around P{}", turn.display()));
        }
    }
    // SKY-GM-11(g): a move that ends in an illegal overlap is cut back.
    if obstacles && !exited {
        let mut cut = None;
        while let Some(last) = path.last().copied() {
            match overlaps(state, unit.id, unit.radius, last) {
                Some(other) if path.len() > 1 => {
                    cut = Some(other);
                    path.pop();
                }
                _ => break,
            }
        }
        if let Some(other) = cut {
            problems.push(MoveProblem::CutBack { other });
        }
        pose = path.last().copied().unwrap_or(pose);
    }
    // SKY-TORP-05: a torpedo hits a ship whose base touches it, at its elevation, wherever
    // that happens; on the ship's move too unless the GM switches it off. As in the Torpedo
    // Step, the launcher is safe from its torpedo until the torpedo has run once (SKY-ADM-17).
    if obstacles && unit.is_ship() && state.rules.torpedo_contact_in_movement {
        for sample in &path {
            for token in state.in_play().filter(|t| t.class == Class::Torpedo) {
                let fresh = token
                    .torpedo
                    .as_ref()
                    .is_some_and(|t| t.launcher == unit.id && t.steps_moved == 0);
                if !fresh
                    && token.elevation == sample.elevation
                    && within(sample.at, token.at, unit.radius + token.radius)
                    && !walked.torpedoes.contains(&token.id)
                {
                    walked.torpedoes.push(token.id);
                }
            }
        }
    }
    // SKY-GM-26: what the wing's base centre passed over.
    if is_wing {
        for sample in &path {
            for other in state.in_play() {
                if other.id != unit.id
                    && other.class != Class::Torpedo
                    && within(sample.at, other.at, other.radius)
                {
                    walked.flown_over.insert(other.id);
                }
            }
        }
    }
    walked.pose = pose;
    if exited {
        walked.end = MoveEnd::Exited;
    }
    walked
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
        let walked = plan_move(&self.state, &unit, plan, Walk::AsItHappens);
        match walked.end {
            MoveEnd::Drifting => {
                if !walked.problems.is_empty() {
                    self.log
                        .result(id, "Drifting: cannot move or turn (SKY-SCRIT-4)");
                }
                return moved;
            }
            MoveEnd::Crashed => {
                self.log.result(id, "dived below elevation 1 (SKY-GM-06)");
                self.destroy(id, Place::Crashed);
                self.report_fates();
                return moved;
            }
            MoveEnd::OnTable | MoveEnd::Exited => {}
        }
        let pose = walked.pose;
        if let Some(unit) = self.unit_mut(id) {
            unit.at = pose.at;
            unit.heading = pose.heading;
            unit.elevation = pose.elevation;
        }
        let mut text = if walked.done.is_empty() {
            "held position".to_string()
        } else {
            format!(
                "{}{} → {} {}° e{}",
                if walked.broken {
                    "Broken, fled: "
                } else {
                    "moved "
                },
                walked.done.join(" "),
                pose.at.display(),
                pose.heading.display(),
                pose.elevation
            )
        };
        for note in walked
            .problems
            .iter()
            .filter_map(|p| p.note(&unit, walked.budget))
        {
            text.push_str("; ");
            text.push_str(&note);
        }
        self.log.result(id, text);
        // Torpedoes met on the way strike, in the order met, while the ship lasts (SKY-TORP-05).
        for torpedo in &walked.torpedoes {
            if !self.in_play(id) {
                break;
            }
            if self.in_play(*torpedo) {
                self.log
                    .result(*torpedo, format!("met by {}'s move", unit.name));
                self.torpedo_contact(*torpedo, id);
            }
        }
        if !self.in_play(id) {
            return moved;
        }
        if walked.end == MoveEnd::Exited {
            self.destroy(id, Place::Exited);
            self.report_fates();
        }
        moved.flown_over = walked.flown_over;
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
