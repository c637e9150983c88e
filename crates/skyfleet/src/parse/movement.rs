//! MOVE inside a unit's block: forward inches, one pivot, climbs and dives, TOWARD a unit or
//! a point, Dive Brakes (SKY-GM-11). Whether the move is legal is checked once the block is
//! read, by the move check beside movement ([`crate::movement::check_move`]).

use crate::geometry::{Length, Turn, parse_degrees, parse_inches};
use crate::orders::{Aim, Step};
use crate::state::{State, Unit};
use crate::tables::Class;

use super::{FILLER, Parser, number};

/// One word of a MOVE order, read: the step it adds (none for HOLD and Dive Brakes), whether
/// it asks for Dive Brakes, and how many words it took.
struct StepRead {
    step: Option<Step>,
    brakes: bool,
    used: usize,
}

impl StepRead {
    fn step(step: Step, used: usize) -> Self {
        StepRead {
            step: Some(step),
            brakes: false,
            used,
        }
    }

    fn none(brakes: bool, used: usize) -> Self {
        StepRead {
            step: None,
            brakes,
            used,
        }
    }
}

impl Parser<'_> {
    pub(super) fn movement(
        &mut self,
        line: usize,
        raw: &str,
        index: usize,
        unit: &Unit,
        words: &[String],
    ) {
        let (steps, brakes) = match self.steps_of(words) {
            Ok(read) => read,
            Err(problem) => {
                let example = self.example(line, &move_example(unit, false));
                self.error(
                    line,
                    raw,
                    problem,
                    format!("steps F inches, P degrees, CLIMB n, DIVE n: {example}"),
                );
                return;
            }
        };
        let described = describe_steps(self.state, &steps, brakes);
        self.set(index, |a| {
            a.steps = steps;
            a.dive_brakes = brakes;
        });
        let understood = format!("{} moves {described}", unit.name);
        // A second MOVE replaces the first: only the one that stands is understood.
        self.forget_move(index);
        if let Some(block) = self.blocks.get_mut(index) {
            block.move_line = Some((line, raw.to_string()));
            block.move_understood = Some(understood.clone());
        }
        self.understood.push(understood);
    }

    /// Takes the block's move out of what was understood (replaced, held or refused).
    pub(super) fn forget_move(&mut self, index: usize) {
        let understood = self
            .blocks
            .get_mut(index)
            .and_then(|b| b.move_understood.take());
        if let Some(at) = understood.and_then(|u| self.understood.iter().position(|x| *x == u)) {
            self.understood.remove(at);
        }
    }

    /// The steps a MOVE order writes, and whether it asks for Dive Brakes; or the problem.
    /// Filler words are skipped where a step or its number is read, never inside a name
    /// after TOWARD ("TOWARD The Ram", SKY-GM-14).
    fn steps_of(&self, words: &[String]) -> Result<(Vec<Step>, bool), String> {
        let words: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| *w != ",")
            .collect();
        let mut steps = Vec::new();
        let mut brakes = false;
        let mut at = 0;
        while let Some(word) = words.get(at) {
            if FILLER.contains(word) {
                at += 1;
                continue;
            }
            let read = self.step_at(&words, at)?;
            steps.extend(read.step);
            brakes |= read.brakes;
            at += read.used;
        }
        Ok((steps, brakes))
    }

    /// Reads the step whose word is at `at`, with its number or its aim.
    fn step_at(&self, words: &[&str], at: usize) -> Result<StepRead, String> {
        let word = words.get(at).copied().unwrap_or("");
        let skipped = words
            .get(at + 1..)
            .unwrap_or(&[])
            .iter()
            .take_while(|w| FILLER.contains(*w))
            .count();
        let next = words.get(at + 1 + skipped).copied();
        let (kind, glued) = split_glued(word);
        let is_glued = glued.is_some();
        let (argument, width) = match glued {
            Some(value) => (Some(value), 1),
            None => (next.map(str::to_string), 2 + skipped),
        };
        let argument = argument.as_deref();
        Ok(match kind.as_str() {
            "hold" | "none" | "nothing" | "stay" => StepRead::none(false, 1),
            "divebrakes" | "brakes" | "brake" => StepRead::none(true, 1),
            "dive" if next == Some("brakes") => StepRead::none(true, 2 + skipped),
            "f" | "fwd" | "forward" | "forwards" | "ahead" | "straight" => {
                match argument.and_then(parse_inches) {
                    Some(distance) if distance >= Length::ZERO => {
                        StepRead::step(Step::Forward(distance), width)
                    }
                    _ => return Err(format!("{kind} needs a distance in inches")),
                }
            }
            // `turn right 45`, `pivot to port 45`: the side after the pivot word.
            "p" | "pivot" | "turn" | "rotate"
                if !is_glued
                    && is_side(next)
                    && words
                        .get(at + 2 + skipped)
                        .is_some_and(|w| parse_degrees(w).is_some()) =>
            {
                let side = next.unwrap_or("");
                let degrees = words.get(at + 2 + skipped).copied();
                StepRead::step(pivot_step(side, degrees)?, 3 + skipped)
            }
            "p" | "pivot" | "turn" | "rotate" | "l" | "left" | "port" | "r" | "right"
            | "starboard" | "stbd" => StepRead::step(pivot_step(&kind, argument)?, width),
            // Units written after a number: `F 3 inches`, `P +45 degrees`.
            "inches" | "inch" | "in" | "degrees" | "degree" | "deg" | "°" => {
                StepRead::none(false, 1)
            }
            "climb" | "up" | "rise" | "ascend" | "c" => match levels(argument) {
                Some(n) => StepRead::step(Step::Climb(n), width),
                None => return Err("CLIMB needs a number of levels".into()),
            },
            "dive" | "down" | "descend" | "drop" | "d" => match levels(argument) {
                Some(n) => StepRead::step(Step::Dive(n), width),
                None => return Err("DIVE needs a number of levels".into()),
            },
            "toward" | "towards" | "face" | "facing" => {
                let rest: Vec<String> = words
                    .get(at + 1..)
                    .unwrap_or(&[])
                    .iter()
                    .map(|w| w.to_string())
                    .collect();
                match self.aim(&rest) {
                    Some((aim, used)) => StepRead::step(Step::Toward(aim), 1 + used),
                    None => return Err("TOWARD needs a unit's name or a point x,y".into()),
                }
            }
            other => return Err(format!("\"{other}\" is not a movement step")),
        })
    }
}

/// A side to pivot to: `left`, `right`, `port`, `starboard`.
fn is_side(word: Option<&str>) -> bool {
    matches!(
        word,
        Some("l" | "left" | "port" | "r" | "right" | "starboard" | "stbd")
    )
}

/// A pivot step: LEFT (or PORT) turns to port, RIGHT to starboard, P by the sign written.
fn pivot_step(kind: &str, argument: Option<&str>) -> Result<Step, String> {
    let Some(half) = argument.and_then(parse_degrees) else {
        return Err(format!("{kind} needs degrees, such as +45 or -22.5"));
    };
    let signed = match kind {
        "l" | "left" | "port" => -half.abs(),
        "r" | "right" | "starboard" | "stbd" => half.abs(),
        _ => half,
    };
    Ok(Step::Pivot(Turn(signed)))
}

/// A number of levels to climb or dive.
fn levels(argument: Option<&str>) -> Option<u8> {
    argument
        .and_then(number)
        .filter(|n| *n <= 255)
        .map(|n| n as u8)
}

/// A move this unit may make as it stands, for the example of a refused one: within its
/// speed (with Full Ahead if ordered), its pivot after its Inertia, and none with Rudder Loss;
/// `HOLD` when it cannot move at all (SKY-GM-11, SKY-CRIT-3, -4, SKY-SCRIT-4).
pub(super) fn move_example(unit: &Unit, full_ahead: bool) -> String {
    let speed = unit.speed(full_ahead);
    if unit.status.drifting || speed <= Length::ZERO {
        return "HOLD".into();
    }
    let inertia = unit.stats().inertia;
    // Wings turn all round; a quarter turn reads better as an example.
    let pivot = unit
        .stats()
        .pivot
        .min_magnitude(Turn::degrees(90))
        .size_display();
    if unit.status.rudder_loss || speed < inertia || unit.class == Class::Torpedo {
        return format!("MOVE F {}", speed.display());
    }
    // Half the move before the pivot, at least the Inertia, and the rest after it.
    let before = Length((speed.hundredths() / 2).max(inertia.hundredths()));
    let after = speed - before;
    if after <= Length::ZERO {
        return format!("MOVE F {} P +{pivot}", before.display());
    }
    format!(
        "MOVE F {} P +{pivot} F {}",
        before.display(),
        after.display()
    )
}

/// A movement step word, possibly glued to its number (`f3`, `p+45`).
pub(super) fn step_word(word: &str) -> bool {
    let (kind, _) = split_glued(word);
    matches!(
        kind.as_str(),
        "f" | "fwd"
            | "forward"
            | "ahead"
            | "p"
            | "pivot"
            | "turn"
            | "climb"
            | "dive"
            | "up"
            | "down"
            | "left"
            | "right"
            | "toward"
            | "towards"
    )
}

/// `f3` → (`f`, `3`); `p+45` → (`p`, `+45`); `forward` → (`forward`, none).
pub(super) fn split_glued(word: &str) -> (String, Option<String>) {
    let split = word
        .char_indices()
        .find(|(_, c)| c.is_ascii_digit() || *c == '+' || *c == '-' || *c == '.')
        .map(|(i, _)| i);
    match split {
        Some(at) if at > 0 => (
            word.get(..at).unwrap_or("").to_string(),
            word.get(at..).map(str::to_string),
        ),
        _ => (word.to_string(), None),
    }
}

fn describe_steps(state: &State, steps: &[Step], brakes: bool) -> String {
    if steps.is_empty() {
        return "nowhere (holds position)".into();
    }
    let mut words: Vec<String> = steps
        .iter()
        .map(|step| match step {
            Step::Forward(d) => format!("F{}", d.display()),
            Step::Pivot(t) => format!("P{}", t.display()),
            Step::Toward(Aim::Unit(id)) => format!(
                "TOWARD {}",
                state.unit(*id).map(|u| u.name.clone()).unwrap_or_default()
            ),
            Step::Toward(Aim::Point(p)) => format!("TOWARD {}", p.display()),
            Step::Toward(Aim::Bearing(a)) => format!("TOWARD {}°", a.display()),
            Step::Climb(n) => format!("CLIMB {n}"),
            Step::Dive(n) => format!("DIVE {n}"),
        })
        .collect();
    if brakes {
        words.push("with Dive Brakes".into());
    }
    words.join(" ")
}
