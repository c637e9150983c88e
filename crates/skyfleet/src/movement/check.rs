//! The order check of a move: a dry run of the turn's own move planner on the state as it
//! stands, so that a move the turn would refuse is refused when the orders are read.

use crate::geometry::{Length, Turn};
use crate::orders::Step;
use crate::state::{State, Unit};

use super::{MovePlan, MoveProblem, Walk, Walked, plan_move};

/// Is the move legal for this unit as things stand (SKY-GM-11, SKY-KW-LIFT,
/// SKY-KW-INERTIA, SKY-EX-08)? A dry run of the turn's own move planner
/// ([`plan_move`]) on the current state, as written: what the planner finds wrong is
/// refused, the first problem reported. Islands, the table's edge and other units are left to
/// the turn, which checks the move again when it happens.
pub fn check_move(
    state: &State,
    unit: &Unit,
    steps: &[Step],
    full_ahead: bool,
    dive_brakes: bool,
) -> Result<(), String> {
    if steps.is_empty() {
        return Ok(());
    }
    let plan = MovePlan {
        steps: steps.to_vec(),
        full_ahead,
        dive_brakes,
        hard_around: None,
    };
    let walked = plan_move(state, unit, &plan, Walk::AsWritten);
    // Of an order with several problems, the most telling is reported: the unit's own state
    // first, then the pivots in the order written, then the budget, then elevation.
    match walked
        .problems
        .iter()
        .filter_map(|problem| refusal(state, unit, &walked, problem))
        .min_by_key(|(rank, _)| *rank)
    {
        Some((_, problem)) => Err(problem),
        None => Ok(()),
    }
}

/// How telling a problem is (lower first), and how the order check words it; `None` for the
/// turn's business, never met on a walk as written.
fn refusal(
    state: &State,
    unit: &Unit,
    walked: &Walked,
    problem: &MoveProblem,
) -> Option<(u8, String)> {
    Some(match problem {
        MoveProblem::Drifting => (
            0,
            format!(
                "{} is Drifting and cannot move or turn (SKY-SCRIT-4)",
                unit.name
            ),
        ),
        MoveProblem::NoDiveBrakes => (
            0,
            format!("{} has no working Dive Brakes (SKY-MOD-8)", unit.name),
        ),
        MoveProblem::RudderLoss { .. } => (
            1,
            format!(
                "{} has lost its rudder and cannot turn (SKY-CRIT-4)",
                unit.name
            ),
        ),
        MoveProblem::SecondPivot { .. } => (
            1,
            "one pivot a move; CMD HARDAROUND adds one more at the end (SKY-GM-11)".into(),
        ),
        MoveProblem::Pivot { rule, .. } => (1, rule.explain(unit.class)),
        MoveProblem::Inertia {
            turn,
            toward,
            forward,
            ..
        } => (1, inertia_refusal(unit, *turn, *toward, *forward)),
        MoveProblem::OverBudget { .. } | MoveProblem::ClimbOverBudget { .. } => (
            2,
            format!(
                "that move needs {}\" but {} has {}\" (SKY-GM-11: forward inches plus Lift per level climbed, within speed plus Drop per level dived)",
                walked.asked.display(),
                unit.name,
                walked.budget.display()
            ),
        ),
        MoveProblem::AboveCeiling { .. } => (
            3,
            format!(
                "that would climb above elevation {} (SKY-GM-06)",
                state.rules.max_elevation
            ),
        ),
        MoveProblem::Crash { .. } => (
            3,
            "that would dive below elevation 1 and crash (SKY-GM-06)".into(),
        ),
        // The turn's business: never met on a walk as written, and no Hard Around here.
        MoveProblem::Island { .. }
        | MoveProblem::IslandInBand { .. }
        | MoveProblem::TableEdge { .. }
        | MoveProblem::HardAroundRudderLoss
        | MoveProblem::HardAround { .. }
        | MoveProblem::CutBack { .. } => return None,
    })
}

/// A pivot (or a TOWARD) written before the unit has moved its Inertia (SKY-KW-INERTIA).
fn inertia_refusal(unit: &Unit, turn: Turn, toward: bool, forward: Length) -> String {
    let turn = if toward {
        "TOWARD".into()
    } else {
        turn.display()
    };
    format!(
        "{} must move {}\" (Inertia) before it pivots; P{turn} comes after only {}\" (SKY-KW-INERTIA)",
        unit.name,
        unit.stats().inertia.display(),
        forward.display()
    )
}
