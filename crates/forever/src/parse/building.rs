//! Building a fleet before the battle: SHIP designs (with their CORE and SECTION lines),
//! DEPLOY, and the fleet checked as a whole against the game's limits.

use crate::design::{Design, Hull};
use crate::fixed::{Degrees, show_hundredths};
use crate::orders::Deploy;
use crate::state::Phase;

use super::{Cursor, Parser, Refusal};

impl Parser<'_> {
    pub(super) fn design(&mut self, block: &[(usize, String)]) {
        let Some((first_line, first_text)) = block.first().cloned() else {
            return;
        };
        if self.state.phase != Phase::Building {
            self.error(
                first_line,
                &first_text,
                "fleets are fixed once the battle has begun",
                "FIRE Lancer.S1 AT Anvil.S3",
            );
            return;
        }
        if self.state.seat(self.player).is_some_and(|s| s.ready) {
            self.error(
                first_line,
                &first_text,
                "your fleet has already been accepted",
                "DEPLOY Lancer AT 10, 24",
            );
            return;
        }
        let lines: Vec<(usize, &str)> = block.iter().map(|(n, l)| (*n, l.as_str())).collect();
        match Design::parse_lines(&lines) {
            Ok(design) => {
                match Hull::build(&design) {
                    (Some(hull), issues) if issues.is_empty() => {
                        let sections = hull.parts.len() - 1;
                        self.understood.push(format!(
                            "design {}: {} points, {sections} section{}, speed {}\"",
                            design.name,
                            hull.cost(),
                            if sections == 1 { "" } else { "s" },
                            show_hundredths(hull.speed())
                        ));
                    }
                    (_, issues) => {
                        self.design_failed = true;
                        for issue in issues {
                            self.error(
                                first_line,
                                &first_text,
                                format!("{}: {issue}", design.name),
                                "see ORDER HELP for the building rules",
                            );
                        }
                    }
                }
                self.design_lines
                    .push((design.name.clone(), first_line, first_text));
                self.orders.designs.push(design);
            }
            Err(issues) => {
                self.design_failed = true;
                for issue in issues {
                    let line = issue.line.unwrap_or(first_line);
                    let text = block
                        .iter()
                        .find(|(n, _)| *n == line)
                        .map_or(first_text.clone(), |(_, t)| t.clone());
                    let expected = design_example(block, line);
                    self.error(line, &text, issue.to_string(), &expected);
                }
            }
        }
    }

    pub(super) fn deploy(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        const EXAMPLE: &str = "DEPLOY Lancer AT 10, 24 FACING 0";
        let ship = cursor
            .next()
            .ok_or(("DEPLOY needs a ship's name".to_string(), EXAMPLE))?;
        if cursor.peek_is(&["AT", "TO"]) {
            cursor.next();
        }
        let at = cursor
            .point()
            .ok_or(("DEPLOY needs the core's position x, y".to_string(), EXAMPLE))?;
        let mut facing = Degrees::ZERO;
        if cursor.peek_is(&["FACING", "FACE", "ROT", "HEADING"]) {
            cursor.next();
            facing = Degrees::new(
                cursor
                    .number()
                    .ok_or(("FACING needs whole degrees".to_string(), EXAMPLE))?,
            );
        }
        if !cursor.done() {
            return Err((
                format!("{} is not understood here", cursor.peek().unwrap_or("")),
                EXAMPLE,
            ));
        }
        self.understood
            .push(format!("deploy {ship} at {} facing {facing}", at.show()));
        self.orders.deploys.push(Deploy { ship, at, facing });
        Ok(())
    }

    /// The fleet as a whole, once every design checks on its own: its problems on the
    /// designs' SHIP lines, or its size and cost.
    pub(super) fn check_fleet(&mut self) {
        if let Err(problems) = crate::turn::check_fleet(self.state, self.player, &self.orders) {
            for problem in problems {
                let (line, text) = self
                    .design_lines
                    .iter()
                    .find(|(name, _, _)| {
                        problem.starts_with(name.as_str()) || problem.contains(&format!(" {name} "))
                    })
                    .or_else(|| self.design_lines.first())
                    .map_or((1, String::new()), |(_, line, text)| (*line, text.clone()));
                // Fleet problems are fixed by adding or changing lines, not by one line in
                // the SHIP line's place: the form in words.
                self.error(
                    line,
                    &text,
                    problem,
                    "a fleet that checks: a DEPLOY line for each design (such as DEPLOY Lancer AT 10, 24 FACING 0), a name for each of its own, within the points limit",
                );
            }
        } else {
            let total: crate::design::Points = self
                .orders
                .designs
                .iter()
                .filter_map(|d| Hull::check(d).ok())
                .map(|h| h.cost())
                .sum();
            self.understood.push(format!(
                "fleet of {} ships, {total} of {} points",
                self.orders.designs.len(),
                self.state.setup.points_limit
            ));
        }
    }
}

/// The example for a refused line of a design: for a CORE line the plain `CORE` when that
/// line then reads (tried on the design with it in the line's place), otherwise the line's
/// form in words (a SECTION's fix depends on the shape the player has in mind).
fn design_example(block: &[(usize, String)], line: usize) -> String {
    let keyword = block
        .iter()
        .find(|(n, _)| *n == line)
        .and_then(|(_, text)| text.split_whitespace().next())
        .map(str::to_ascii_uppercase)
        .unwrap_or_default();
    match keyword.as_str() {
        "CORE" => {
            let tried: Vec<(usize, &str)> = block
                .iter()
                .map(|(n, text)| (*n, if *n == line { "CORE" } else { text.as_str() }))
                .collect();
            let reads = match Design::parse_lines(&tried) {
                Ok(_) => true,
                Err(issues) => issues.iter().all(|i| i.line != Some(line)),
            };
            if reads {
                "`CORE`, or with what the core carries: CORE HP+2 MOUNT GUN(damage 2)".to_string()
            } else {
                "one CORE line per design, such as CORE HP+2 MOUNT GUN(damage 2)".to_string()
            }
        }
        "SHIP" => "a design that starts SHIP and the ship's name, with one CORE line and its SECTION lines under it, such as SHIP Scout, CORE, SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN".to_string(),
        _ => "a line such as SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN".to_string(),
    }
}
