//! DEPLOY on turn 1: where a ship starts, its heading and elevation, checked against the
//! deployment zone and the terrain (SKY-GM-01).

use crate::fleet::deployment_problem;
use crate::geometry::{Angle, Point, parse_degrees, parse_inches};
use crate::orders::Deploy;
use crate::state::{Unit, UnitId};

use super::{FILLER, Parser, number};

/// What a DEPLOY order says, each part optional until checked.
#[derive(Default)]
struct Placing {
    at: Option<Point>,
    heading: Option<Angle>,
    elevation: Option<u8>,
}

impl Parser<'_> {
    pub(super) fn deploy(&mut self, line: usize, raw: &str, rest: &[String]) {
        // Where the ship stands now is inside its strip (the setup is checked so).
        let example = self
            .before
            .units
            .iter()
            .find(|u| u.name == self.example_ship)
            .map(|u| {
                format!(
                    "a place inside your strip: `DEPLOY {} AT {},{} HEADING {} ELEV {}`",
                    u.name,
                    u.at.x.display(),
                    u.at.y.display(),
                    u.heading.display(),
                    u.elevation
                )
            })
            .unwrap_or_else(|| "a place inside your strip: DEPLOY, a ship, AT x,y".into());
        let Some((id, used)) = self.deploy_ship(line, raw, rest, &example) else {
            return;
        };
        let words: Vec<&str> = rest
            .get(used..)
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .filter(|w| !FILLER.contains(w))
            .collect();
        let mut placing = Placing::default();
        let mut index = 0;
        while words.get(index).is_some() {
            match deploy_word(&words, index, &mut placing) {
                Ok(used) => index += used,
                Err(problem) => {
                    self.error(line, raw, problem, example);
                    return;
                }
            }
        }
        let Some(at) = placing.at else {
            self.error(line, raw, "say where: AT x,y", example);
            return;
        };
        self.place(line, raw, id, at, &placing);
    }

    /// The ship a DEPLOY order names, and how many words its name took; `None` once the line
    /// is refused.
    fn deploy_ship(
        &mut self,
        line: usize,
        raw: &str,
        rest: &[String],
        example: &str,
    ) -> Option<(UnitId, usize)> {
        if self.state.turn != 1 {
            self.error(
                line,
                raw,
                "deployment is over: DEPLOY is for turn 1 only",
                "this turn's orders: MOVE, FIRE, CMD",
            );
            return None;
        }
        let Some((id, used)) = self.take_unit(rest) else {
            self.error(line, raw, "which ship? name one of yours", example);
            return None;
        };
        if !self.own(id) || !self.unit(id).is_some_and(Unit::is_ship) {
            self.error(
                line,
                raw,
                format!("{} is not one of your ships", self.name(id)),
                example,
            );
            return None;
        }
        Some((id, used))
    }

    /// Checks the placing against the deployment zone and records it.
    fn place(&mut self, line: usize, raw: &str, id: UnitId, at: Point, placing: &Placing) {
        // Deployment comes before the turn's Stall.
        let Some(unit) = self.before.unit(id) else {
            return;
        };
        let mut placed = unit.clone();
        placed.at = at;
        placed.heading = placing.heading.unwrap_or(unit.heading);
        placed.elevation = placing.elevation.unwrap_or(unit.elevation);
        let Some(side) = self.state.side(self.side) else {
            return;
        };
        if let Some(problem) = deployment_problem(
            &self.state.rules,
            &self.state.terrain,
            side.edge,
            &side.name,
            &placed,
        ) {
            // Where the ship stands now is inside its strip.
            let example = format!(
                "a place inside your strip, such as where {} stands now: `DEPLOY {} AT {},{}`",
                unit.name,
                unit.name,
                unit.at.x.display(),
                unit.at.y.display()
            );
            self.error(line, raw, problem.to_string(), example);
            return;
        }
        self.orders.deploy.retain(|d| d.unit != id);
        self.orders.deploy.push(Deploy {
            unit: id,
            at,
            heading: placing.heading,
            elevation: placing.elevation,
        });
        self.understood.push(format!(
            "{} deploys at {} {}° e{}",
            placed.name,
            at.display(),
            placed.heading.display(),
            placed.elevation
        ));
    }
}

/// Reads the DEPLOY word at `index` (AT x,y, HEADING, ELEV, bare co-ordinates, `e4`) into
/// `placing`: how many words it took, or the problem.
fn deploy_word(words: &[&str], index: usize, placing: &mut Placing) -> Result<usize, String> {
    let word = words.get(index).copied().unwrap_or("");
    match word {
        "at" => {
            let x = words.get(index + 1).and_then(|w| parse_inches(w));
            let y = words.get(index + 2).and_then(|w| parse_inches(w));
            match (x, y) {
                (Some(x), Some(y)) => placing.at = Some(Point::new(x, y)),
                _ => return Err("AT needs two numbers, x and y in inches".into()),
            }
            Ok(3)
        }
        "heading" | "hdg" | "facing" | "face" | "bearing" => {
            match words.get(index + 1).and_then(|w| parse_degrees(w)) {
                Some(half) => placing.heading = Some(Angle::from_half_degrees(i64::from(half))),
                None => return Err("HEADING needs degrees, such as 90".into()),
            }
            Ok(2)
        }
        "elev" | "elevation" | "e" | "height" | "alt" | "altitude" | "level" => {
            match words.get(index + 1).and_then(|w| number(w)) {
                Some(n) if n <= 255 => placing.elevation = Some(n as u8),
                _ => return Err("ELEV needs a whole number, such as 4".into()),
            }
            Ok(2)
        }
        other => {
            // "DEPLOY Valiant 6, 24": the co-ordinates without AT.
            if placing.at.is_none()
                && let (Some(x), Some(y)) = (
                    parse_inches(other),
                    words.get(index + 1).and_then(|w| parse_inches(w)),
                )
            {
                placing.at = Some(Point::new(x, y));
                return Ok(2);
            }
            if let Some(n) = other
                .strip_prefix('e')
                .and_then(number)
                .filter(|n| *n <= 255)
            {
                placing.elevation = Some(n as u8);
                return Ok(1);
            }
            Err(format!("\"{other}\" is not part of a DEPLOY order"))
        }
    }
}
