//! FIRE: shots at squares (one, or one per ship afloat in a salvo game), several FIRE lines
//! adding up, and what to write instead when there are too many or a square repeats
//! (SALVO-CL-04, SALVO-GM-01).

use engine::LineIssue;

use crate::board::Square;
use crate::legality::{OrderError, check_shots};
use crate::orders::Shot;

use super::Draft;
use super::args::Args;
use super::vocabulary::Command;

impl Draft<'_> {
    pub(super) fn read_fire(&mut self, line: usize, args: &Args) -> Result<(), OrderError> {
        args.no_extras(Command::Fire.what(), false, false)?;
        let squares = args.expand()?;
        if squares.is_empty() {
            return Err(OrderError::Missing("FIRE needs a square".into()));
        }
        let at = self.target(args.target)?;
        let shots: Vec<Shot> = squares
            .iter()
            .map(|square| Shot {
                at,
                square: *square,
            })
            .collect();
        if let Err(error) = check_shots(self.state, self.me, &self.shots, &shots) {
            self.suggestion = self.shots_suggestion(&error, &shots);
            return Err(error);
        }
        self.warn_called(line, &shots);
        self.understood.push(format!(
            "fire at {}{}",
            squares
                .iter()
                .map(Square::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            self.on_whom(at)
        ));
        self.shots.extend(shots);
        if self.first_shot_line.is_none() {
            self.first_shot_line = Some(line);
            self.first_attack_text = self.line_text.clone();
        }
        Ok(())
    }

    /// A warning for each shot at a square already called: it will be wasted.
    fn warn_called(&mut self, line: usize, shots: &[Shot]) {
        for shot in shots {
            let called = self
                .state
                .admiral(self.me)
                .and_then(|a| a.calls_on(shot.at))
                .is_some_and(|calls| calls.contains(&shot.square));
            if called {
                self.warnings.push(LineIssue {
                    line,
                    text: self.line_text.clone(),
                    problem: format!(
                        "you have already fired at {}{}: the shot will be wasted",
                        shot.square,
                        self.on_whom(shot.at)
                    ),
                    expected: "a square you have not called yet".into(),
                    if_it_stands: None,
                });
            }
        }
    }

    /// What to write instead of a FIRE line refused for its number of shots or a repeated
    /// square: the shots that fit, or leaving the line out (SALVO-CL-04, SALVO-GM-01).
    fn shots_suggestion(&self, error: &OrderError, shots: &[Shot]) -> Option<String> {
        let fire = |kept: &[Shot]| {
            let at = kept
                .first()
                .filter(|_| self.several_opponents())
                .map(|s| format!(" AT {}", self.state.name_of(s.at)))
                .unwrap_or_default();
            let squares: Vec<String> = kept.iter().map(|s| s.square.to_string()).collect();
            format!("`FIRE {}{at}`", squares.join(" "))
        };
        let earlier = self.first_shot_line;
        match error {
            OrderError::TooManyShots { allowed, .. } => {
                let room = allowed.saturating_sub(self.shots.len());
                match (room, earlier) {
                    (0, Some(line)) => Some(format!(
                        "leave this line out: line {line} already fires every shot you have this turn"
                    )),
                    (0, None) => None,
                    // The first squares that fit, each once and none fired at already: the
                    // example must itself be read (issue 28).
                    (room, _) => {
                        let mut kept: Vec<Shot> = Vec::new();
                        for shot in shots {
                            if kept.len() < room
                                && !self.shots.contains(shot)
                                && !kept.contains(shot)
                            {
                                kept.push(*shot);
                            }
                        }
                        (!kept.is_empty()).then(|| fire(&kept))
                    }
                }
            }
            OrderError::DuplicateShot(_) => {
                let mut kept: Vec<Shot> = Vec::new();
                for shot in shots {
                    if !self.shots.contains(shot) && !kept.contains(shot) {
                        kept.push(*shot);
                    }
                }
                if kept.is_empty() {
                    Some(match earlier {
                        Some(line) => format!(
                            "leave this line out: line {line} already fires at these squares"
                        ),
                        None => "each square once".to_string(),
                    })
                } else {
                    Some(fire(&kept))
                }
            }
            _ => None,
        }
    }
}
