//! MAIN, PORT, STBD and TORP: an armament's target and its fallbacks, or NONE to hold fire.
//! The torpedo is a fire group here, with the tube it leaves from (IRON-GUN-05..07,
//! IRON-TORP-03).

use crate::fire::{self, Group, Solution};
use crate::orders::TorpedoOrder;
use crate::state::{Ship, ShipId, TubeMount};

use super::words::{
    ALTERNATIVE_WORDS, FILLER_WORDS, HOLD_FIRE_WORDS, Token, group_word, is_word, skip_fillers,
};
use super::{Issue, Parser, Slot, issue};

impl Parser<'_> {
    pub(super) fn fire(
        &mut self,
        line: usize,
        raw: &str,
        ship: &Ship,
        group: Group,
        args: &[Token],
    ) -> Result<(), Issue> {
        // The target is read as written (it may be "The Ram"); fillers go only if it is not a name.
        let mut args = args;
        let mut tube = None;
        if group == Group::Torpedo {
            let (found, rest) = take_tube(args);
            tube = found;
            args = rest;
        }
        let example = match group {
            Group::Main => format!("{} MAIN {}", ship.name, self.example_enemy),
            Group::Port => format!("{} PORT {}", ship.name, self.example_enemy),
            Group::Starboard => format!("{} STBD {}", ship.name, self.example_enemy),
            Group::Torpedo => format!("{} TORP {}", ship.name, self.example_enemy),
        };
        let stripped = skip_fillers(args);
        if stripped.is_empty() && self.named_ship(args).is_none() {
            return Err(issue(
                format!("name the {}'s target (or NONE to hold fire)", group.name()),
                example,
            ));
        }
        // `NONE`, `hold fire`, `cease fire`: a hold word, then only filler words.
        if is_word(stripped.first(), HOLD_FIRE_WORDS)
            && stripped
                .iter()
                .skip(1)
                .all(|t| is_word(Some(t), FILLER_WORDS))
            && self.named_ship(args).is_none()
        {
            return self.hold_fire(line, ship, group);
        }
        let alternatives = self.alternatives(args, group, &example)?;
        let (targets, descriptions) =
            self.solve_targets(ship, group, tube, alternatives, &example)?;
        if targets.is_empty() {
            return Err(issue(
                format!("name the {}'s target", group.name()),
                example,
            ));
        }
        self.fill(ship, Slot::Fire(group), line)?;
        self.record_fire(ship, group, tube, targets, &descriptions);
        if ship.broken_off {
            self.warn(
                line,
                raw,
                format!("{} has broken off: she may still fire at ships she passes (IRON-DMG-02, IRON-GM-10)", ship.name),
                String::new(),
            );
        }
        Ok(())
    }

    /// NONE: the armament holds fire this turn.
    fn hold_fire(&mut self, line: usize, ship: &Ship, group: Group) -> Result<(), Issue> {
        self.fill(ship, Slot::Fire(group), line)?;
        let orders = self.orders_for(ship.id);
        match group {
            Group::Main => orders.main.clear(),
            Group::Port => orders.port.clear(),
            Group::Starboard => orders.starboard.clear(),
            Group::Torpedo => orders.torpedo = None,
        }
        self.out
            .understood
            .push(format!("{}: {} holds fire", ship.name, group.name()));
        Ok(())
    }

    /// `A / B`: B is the fallback. Within each part a whole ship's name is taken first, so a
    /// name with "and" or "or" in it ("Pride and Joy") is not split; otherwise OR, ELSE and
    /// the like also separate fallbacks, and a list of targets is refused.
    fn alternatives<'t>(
        &self,
        args: &'t [Token],
        group: Group,
        example: &str,
    ) -> Result<Vec<&'t [Token]>, Issue> {
        let mut alternatives: Vec<&[Token]> = Vec::new();
        for part in args.split(|t| matches!(t, Token::Slash)) {
            if self.named_ship(part).is_some() {
                alternatives.push(part);
                continue;
            }
            if part.iter().any(|t| {
                matches!(t, Token::Comma | Token::Join) || matches!(t, Token::Word(w) if w == "and")
            }) {
                let what = if group == Group::Torpedo {
                    "one torpedo a turn (IRON-TORP-03)"
                } else {
                    "one target per armament a turn (IRON-GUN-05, IRON-GUN-06, IRON-GUN-07)"
                };
                return Err(issue(
                    format!(
                        "{what}; to name a fallback if the first cannot be engaged, separate them with /"
                    ),
                    format!("{example} / {}", self.second_enemy()),
                ));
            }
            alternatives.extend(part.split(|t| is_word(Some(t), ALTERNATIVE_WORDS)));
        }
        Ok(alternatives)
    }

    /// Each target in order of preference, with a fire solution as things stand: the ships and
    /// how each shot would be made.
    fn solve_targets(
        &self,
        ship: &Ship,
        group: Group,
        tube: Option<TubeMount>,
        alternatives: Vec<&[Token]>,
        example: &str,
    ) -> Result<(Vec<ShipId>, Vec<String>), Issue> {
        let mut targets = Vec::new();
        let mut descriptions = Vec::new();
        for alternative in alternatives {
            if skip_fillers(alternative).is_empty() && self.named_ship(alternative).is_none() {
                continue;
            }
            let target = self.target(alternative, example)?;
            let solution =
                fire::solve(self.state, ship, target, group, tube).map_err(|problem| {
                    issue(
                        format!(
                            "{}'s {} cannot fire at {}: {problem}",
                            ship.name,
                            group.name(),
                            target.name
                        ),
                        self.suggestion(ship, group)
                            .unwrap_or_else(|| format!("{} {} NONE", ship.name, group_word(group))),
                    )
                })?;
            descriptions.push(describe(target, &solution));
            targets.push(target.id);
        }
        Ok((targets, descriptions))
    }

    /// The armament's targets into the ship's orders, and as understood.
    fn record_fire(
        &mut self,
        ship: &Ship,
        group: Group,
        tube: Option<TubeMount>,
        targets: Vec<ShipId>,
        descriptions: &[String],
    ) {
        let orders = self.orders_for(ship.id);
        match group {
            Group::Main => orders.main = targets,
            Group::Port => orders.port = targets,
            Group::Starboard => orders.starboard = targets,
            Group::Torpedo => orders.torpedo = Some(TorpedoOrder { targets, tube }),
        }
        let fires = if group == Group::Torpedo {
            format!(
                "fires a torpedo{} ({} left after it)",
                tube.map(|t| format!(" from the {} tube", t.name()))
                    .unwrap_or_default(),
                ship.torpedoes_left.saturating_sub(1)
            )
        } else {
            format!("{} fires", group.name())
        };
        self.out.understood.push(format!(
            "{}: {fires} at {}",
            ship.name,
            descriptions.join(", else ")
        ));
    }

    /// A target this weapon could engage now, as a correct example.
    pub(super) fn suggestion(&self, ship: &Ship, group: Group) -> Option<String> {
        self.state
            .ships
            .iter()
            .find(|target| fire::solve(self.state, ship, target, group, None).is_ok())
            .map(|target| format!("{} {} {}", ship.name, group_word(group), target.name))
    }
}

/// Finds `tube bow`, `bow tube` or `from the stern tube` among a torpedo order's words.
fn take_tube(tokens: &[Token]) -> (Option<TubeMount>, &[Token]) {
    let mount = |token: Option<&Token>| match token {
        Some(Token::Word(w)) => match w.as_str() {
            "bow" | "fore" | "bows" => Some(TubeMount::Bow),
            "stern" | "aft" => Some(TubeMount::Stern),
            "port" | "portbeam" => Some(TubeMount::BeamPort),
            "starboard" | "stbd" | "starboardbeam" => Some(TubeMount::BeamStbd),
            _ => None,
        },
        _ => None,
    };
    // Written before the target: `[from] [the] <mount> [beam] tube <target>`.
    let start = match tokens.first() {
        Some(Token::Word(w)) if w == "from" => tokens.get(1..).unwrap_or(&[]),
        _ => tokens,
    };
    let start = skip_fillers(start);
    if let Some(found) = mount(start.first()) {
        let mut rest = start.get(1..).unwrap_or(&[]);
        if is_word(rest.first(), &["beam"]) {
            rest = rest.get(1..).unwrap_or(&[]);
        }
        if is_word(rest.first(), &["tube"]) {
            return (Some(found), rest.get(1..).unwrap_or(&[]));
        }
    }
    // Written after: `<target> [from] [the] [tube] <mount> [beam] [tube]`, or `tube <mount>` first.
    let position = tokens
        .iter()
        .position(|t| is_word(Some(t), &["tube", "from"]));
    if let Some(index) = position {
        let mut after = tokens.get(index + 1..).unwrap_or(&[]);
        after = skip_fillers(after);
        if is_word(after.first(), &["tube"]) {
            after = after.get(1..).unwrap_or(&[]);
        }
        if let Some(found) = mount(after.first()) {
            let head = tokens.get(..index).unwrap_or(&[]);
            let mut tail = after.get(1..).unwrap_or(&[]);
            while is_word(tail.first(), &["beam", "tube"]) {
                tail = tail.get(1..).unwrap_or(&[]);
            }
            if head.is_empty() {
                return (Some(found), tail);
            }
            if tail.is_empty() {
                return (Some(found), head);
            }
        }
    }
    (None, tokens)
}

fn describe(target: &Ship, solution: &Solution) -> String {
    let arc = match solution.arc {
        crate::grid::Arc::Forward => "ahead",
        crate::grid::Arc::Aft => "astern",
        crate::grid::Arc::Port => "port beam",
        crate::grid::Arc::Starboard => "starboard beam",
    };
    let dice = if solution.dice == 1 { "die" } else { "dice" };
    format!(
        "{} ({}, range {}, {arc}, {} {dice})",
        target.name, target.area, solution.range, solution.dice
    )
}
