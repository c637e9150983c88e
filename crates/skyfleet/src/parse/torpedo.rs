//! A torpedo's program for the Torpedo Step: `TORPEDO #n` with at most one pivot, after its
//! Inertia, and climbs or dives (SKY-TORP-01 to SKY-TORP-04). The pivot's limit and the
//! Inertia are read from the torpedo's line of the class table.

use crate::geometry::{Turn, parse_degrees, parse_inches};
use crate::orders::TorpedoOrder;
use crate::state::Unit;
use crate::tables::Class;

use super::movement::split_glued;
use super::{Parser, number};

impl Parser<'_> {
    /// A program for one of this player's torpedoes in play, with its class's pivot and
    /// Inertia (SKY-CLASS-01, SKY-TORP-04); `None` when it has none.
    fn torpedo_example(&self) -> String {
        let stats = Class::Torpedo.stats();
        let own = self.state.units.iter().find(|u| {
            u.side == self.side && u.in_play() && u.class == Class::Torpedo && u.torpedo.is_some()
        });
        match own.and_then(|u| u.torpedo.as_ref()) {
            Some(torpedo) => format!(
                "a torpedo's number, then PIVOT (at most {}°), AFTER inches, CLIMB or DIVE: `TORPEDO #{} PIVOT +{} AFTER {}`",
                stats.pivot.size_display(),
                torpedo.number,
                stats.pivot.size_display(),
                stats.inertia.display()
            ),
            None => "you have no torpedo in play: CMD LAUNCHTORPEDO launches one".into(),
        }
    }

    pub(super) fn torpedo(&mut self, line: usize, raw: &str, words: &[String]) {
        let rest = words.get(1..).unwrap_or(&[]);
        let Some(token) = self.torpedo_token(line, raw, rest) else {
            return;
        };
        let mut order = TorpedoOrder {
            torpedo: token.id,
            pivot: None,
            climb: 0,
            dive: 0,
        };
        let args: Vec<&str> = rest
            .get(1..)
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .collect();
        let mut index = 0;
        while let Some(word) = args.get(index) {
            let (kind, glued) = split_glued(word);
            let next = args.get(index + 1).map(|w| w.to_string());
            let (argument, width) = match glued {
                Some(value) => (Some(value), 1),
                None => (next, 2),
            };
            match self.torpedo_word(line, raw, &kind, argument.as_deref(), &mut order) {
                Ok(true) => index += width,
                Ok(false) => index += 1,
                Err(problem) => {
                    let example = self.torpedo_example();
                    self.error(line, raw, problem, example);
                    return;
                }
            }
        }
        self.understood.push(format!(
            "{} {} in the Torpedo Step",
            token.name,
            program_words(&order)
        ));
        self.orders.torpedoes.retain(|t| t.torpedo != token.id);
        self.orders.torpedoes.push(order);
    }

    /// The torpedo `#n` names, if it is one of this player's in play; `None` once the line is
    /// refused.
    fn torpedo_token(&mut self, line: usize, raw: &str, rest: &[String]) -> Option<Unit> {
        let number_word = rest.first().map(|w| w.trim_start_matches('#').to_string());
        let Some(wanted) = number_word.as_deref().and_then(number) else {
            let example = self.torpedo_example();
            self.error(line, raw, "which torpedo? give its number", example);
            return None;
        };
        let found = self.state.units.iter().find(|u| {
            u.torpedo.as_ref().is_some_and(|t| t.number == wanted) && u.class == Class::Torpedo
        });
        let Some(token) = found.cloned() else {
            let example = self.torpedo_example();
            self.error(line, raw, format!("there is no Torpedo #{wanted}"), example);
            return None;
        };
        if token.side != self.side || !token.in_play() {
            let example = self.torpedo_example();
            self.error(
                line,
                raw,
                format!("{} is not one of your torpedoes in play", token.name),
                example,
            );
            return None;
        }
        Some(token)
    }

    /// One word of a torpedo's program into `order`: whether it took its argument, or the
    /// problem.
    fn torpedo_word(
        &mut self,
        line: usize,
        raw: &str,
        kind: &str,
        argument: Option<&str>,
        order: &mut TorpedoOrder,
    ) -> Result<bool, String> {
        let stats = Class::Torpedo.stats();
        match kind {
            "p" | "pivot" | "turn" | "left" | "l" | "right" | "r" => {
                let Some(half) = argument.and_then(parse_degrees) else {
                    return Err(format!(
                        "PIVOT needs degrees: +{} or -{}",
                        stats.pivot.size_display(),
                        stats.pivot.size_display()
                    ));
                };
                let half = match kind {
                    "left" | "l" => -half.abs(),
                    "right" | "r" => half.abs(),
                    _ => half,
                };
                if half.abs() > stats.pivot.magnitude() {
                    return Err(format!(
                        "a torpedo pivots at most {}° (SKY-CLASS-01)",
                        stats.pivot.size_display()
                    ));
                }
                order.pivot = Some((
                    Turn(half),
                    order.pivot.map(|p| p.1).unwrap_or(stats.inertia),
                ));
            }
            "after" => {
                let Some(distance) = argument.and_then(parse_inches) else {
                    return Err("AFTER needs inches".into());
                };
                if distance < stats.inertia {
                    let inertia = stats.inertia.display();
                    self.warn(
                        line,
                        raw,
                        format!(
                            "a torpedo pivots only after its Inertia of {inertia}\": taken as {inertia}"
                        ),
                        "a distance of at least the Inertia",
                    );
                }
                let turn = order.pivot.map(|p| p.0).unwrap_or(Turn(0));
                order.pivot = Some((turn, distance.max(stats.inertia)));
            }
            "climb" | "up" => {
                let Some(n) = argument.and_then(number).filter(|n| *n <= 12) else {
                    return Err("CLIMB needs a number of levels".into());
                };
                order.climb = n as u8;
            }
            "dive" | "down" => {
                let Some(n) = argument.and_then(number).filter(|n| *n <= 12) else {
                    return Err("DIVE needs a number of levels".into());
                };
                order.dive = n as u8;
            }
            "straight" | "ahead" | "none" => return Ok(false),
            other => return Err(format!("\"{other}\" is not a torpedo order")),
        }
        Ok(true)
    }
}

/// A torpedo's program in words: climbs, dives and its pivot, or that it runs straight.
fn program_words(order: &TorpedoOrder) -> String {
    let mut words = Vec::new();
    if order.climb > 0 {
        words.push(format!("climbs {}", order.climb));
    }
    if order.dive > 0 {
        words.push(format!("dives {}", order.dive));
    }
    if let Some((turn, after)) = order.pivot {
        words.push(format!(
            "pivots {} after {}\"",
            turn.display(),
            after.display()
        ));
    }
    if words.is_empty() {
        words.push("runs straight".into());
    }
    words.join(", ")
}
