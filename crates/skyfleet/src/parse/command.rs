//! CMD actions inside a unit's block (SKY-CMD-01 to SKY-CMD-08): which action, who pays,
//! each action's own words, once per ship per turn, and whether the CMD is there.

use crate::geometry::{Turn, parse_degrees};
use crate::movement::pivot_rule;
use crate::orders::{CmdAction, CmdOrder, PivotSpec, Skip};
use crate::state::{ActionName, Morale, Place, Unit, UnitId};
use crate::tables::{ModuleKind, squash};

use super::{Parser, is, ordinal};

/// What a CMD action turns into: the action, its name (for once per turn), and the ship it
/// is for.
type Action = (CmdAction, ActionName, UnitId);

impl Parser<'_> {
    pub(super) fn command(
        &mut self,
        line: usize,
        raw: &str,
        index: usize,
        unit: &Unit,
        rest: &[String],
    ) {
        // The hints name this battle's ships and this unit's weapons.
        let lock_slot = unit
            .weapons
            .iter()
            .find(|w| !w.kind.stats().torpedo)
            .map(|w| w.slot.clone())
            .unwrap_or_else(|| "fwd".into());
        let example = format!(
            "CMD FULLAHEAD | HARDAROUND P -45 | TARGETLOCK {lock_slot} | RALLY {} | BRACE | EMERGENCY SKIP MOVE | LAUNCHTORPEDO | LAUNCHWING | COMPRESSEDGAS",
            self.example_ship
        );
        let from_example = format!("CMD FULLAHEAD FROM {}", self.friend_of(unit));
        let Some((words, payer)) = self.cmd_payer(line, raw, rest, &from_example) else {
            return;
        };
        if words.is_empty() {
            self.error(line, raw, "which CMD action?", example.clone());
            return;
        }
        let Some((action, used)) = action_word(words) else {
            self.error(
                line,
                raw,
                format!("\"{}\" is not an order or a CMD action", words.join(" ")),
                example.clone(),
            );
            return;
        };
        let args: Vec<String> = words.get(used..).unwrap_or(&[]).to_vec();
        if !unit.is_ship() {
            self.error(
                line,
                raw,
                format!(
                    "{} is a wing: wings have no CMD and receive no CMD actions (SKY-GM-19)",
                    unit.name
                ),
                "FIRE ALL AT NEAREST",
            );
            return;
        }
        let Some((cmd, name, beneficiary)) = self.cmd_action(line, raw, unit, action, &args) else {
            return;
        };
        if !self.once_per_turn(line, raw, beneficiary, name)
            || !self.affordable(line, raw, unit, payer, beneficiary, &from_example)
        {
            return;
        }
        self.cmd_understood(unit, &cmd, name, payer);
        self.set(index, |a| a.actions.push(CmdOrder { action: cmd, payer }));
    }

    /// `FROM <ship>` names the payer (SKY-CMD-01): the words before it, and the payer if
    /// named; `None` once the line is refused.
    fn cmd_payer<'w>(
        &mut self,
        line: usize,
        raw: &str,
        rest: &'w [String],
        from_example: &str,
    ) -> Option<(&'w [String], Option<UnitId>)> {
        let Some(at) = rest.iter().position(|w| w == "from") else {
            return Some((rest, None));
        };
        let payer_words = rest.get(at + 1..).unwrap_or(&[]);
        match self.take_unit(payer_words) {
            Some((id, _)) if self.own(id) && self.unit(id).is_some_and(Unit::is_ship) => {
                Some((rest.get(..at).unwrap_or(&[]), Some(id)))
            }
            _ => {
                self.error(
                    line,
                    raw,
                    "FROM needs one of your ships, which pays the CMD",
                    from_example,
                );
                None
            }
        }
    }

    /// Each action's own words and conditions; `None` once the line is refused.
    fn cmd_action(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        action: &str,
        args: &[String],
    ) -> Option<Action> {
        match action {
            "fullahead" => Some((CmdAction::FullAhead, ActionName::FullAhead, unit.id)),
            "brace" => Some((CmdAction::Brace, ActionName::Brace, unit.id)),
            "gas" => self.compressed_gas(line, raw, unit),
            "emergency" => self.emergency_repairs(line, raw, unit, args),
            "hardaround" => self.hard_around(line, raw, unit, args),
            "targetlock" => self.target_lock(line, raw, unit, args),
            "rally" => self.rally(line, raw, args),
            "launchtorpedo" => self.launch_torpedo(line, raw, unit),
            "launchwing" => self.launch_wing(line, raw, unit, args),
            _ => None,
        }
    }

    fn compressed_gas(&mut self, line: usize, raw: &str, unit: &Unit) -> Option<Action> {
        if !unit.has_working(ModuleKind::CompressedGas) {
            self.error(
                line,
                raw,
                format!("{} has no working Compressed Gas", unit.name),
                "CMD FULLAHEAD",
            );
            return None;
        }
        Some((CmdAction::CompressedGas, ActionName::CompressedGas, unit.id))
    }

    fn emergency_repairs(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        args: &[String],
    ) -> Option<Action> {
        let skip = if args
            .iter()
            .any(|w| matches!(w.as_str(), "move" | "moving" | "movement"))
        {
            Skip::Move
        } else if args
            .iter()
            .any(|w| matches!(w.as_str(), "shoot" | "shooting" | "fire" | "firing"))
        {
            Skip::Shoot
        } else {
            self.error(
                line,
                raw,
                "Emergency Repairs gives up moving or shooting: say which",
                "CMD EMERGENCY SKIP SHOOT",
            );
            return None;
        };
        // SKY-MOR-06: a Broken ship must fly at full speed for the nearest edge, so it
        // has no move to give up (SKY-CMD-03).
        if skip == Skip::Move && unit.status.morale == Morale::Broken {
            self.error(
                line,
                raw,
                format!(
                    "{} is Broken and must move at full speed toward the nearest edge (SKY-MOR-06): it has no move to give up for Emergency Repairs (SKY-CMD-03)",
                    unit.name
                ),
                "CMD EMERGENCY SKIP SHOOT",
            );
            return None;
        }
        Some((
            CmdAction::EmergencyRepairs(skip),
            ActionName::EmergencyRepairs,
            unit.id,
        ))
    }

    fn hard_around(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        args: &[String],
    ) -> Option<Action> {
        let Some(spec) = self.hard_around_spec(args) else {
            self.error(
                line,
                raw,
                "HARDAROUND needs an angle or TOWARD a unit",
                "CMD HARDAROUND P -45",
            );
            return None;
        };
        if let PivotSpec::By(turn) = spec
            && let Err(rule) = pivot_rule(unit.class, turn)
        {
            self.error(line, raw, rule.explain(unit.class), "CMD HARDAROUND P -45");
            return None;
        }
        Some((CmdAction::HardAround(spec), ActionName::HardAround, unit.id))
    }

    /// HARDAROUND's pivot: an angle (LEFT makes it to port), or TOWARD a unit or a point.
    fn hard_around_spec(&self, args: &[String]) -> Option<PivotSpec> {
        let args: Vec<String> = args
            .iter()
            .filter(|w| !matches!(w.as_str(), "p" | "pivot" | "by"))
            .cloned()
            .collect();
        if let Some(half) = args.first().and_then(|w| parse_degrees(w)) {
            let half = if args.iter().any(|w| w == "left" || w == "l") {
                -half.abs()
            } else {
                half
            };
            return Some(PivotSpec::By(Turn(half)));
        }
        if is(args.first(), &["left", "l", "right", "r"]) {
            let half = args.get(1).and_then(|w| parse_degrees(w))?;
            let half = if is(args.first(), &["left", "l"]) {
                -half.abs()
            } else {
                half.abs()
            };
            return Some(PivotSpec::By(Turn(half)));
        }
        let aim_words: Vec<String> = args
            .iter()
            .filter(|w| !matches!(w.as_str(), "toward" | "towards" | "face"))
            .cloned()
            .collect();
        self.aim(&aim_words).map(|(aim, _)| PivotSpec::Toward(aim))
    }

    fn rally(&mut self, line: usize, raw: &str, args: &[String]) -> Option<Action> {
        let Some((target, _)) = self.take_unit(args) else {
            self.error(
                line,
                raw,
                "RALLY needs a friendly ship's name",
                format!("CMD RALLY {}", self.example_ship),
            );
            return None;
        };
        let ship = self.unit(target)?;
        if ship.side != self.side || !ship.is_ship() {
            let problem = format!("{} is not one of your ships", ship.name);
            self.error(
                line,
                raw,
                problem,
                format!("CMD RALLY {}", self.example_ship),
            );
            return None;
        }
        if ship.status.morale != Morale::Shaken {
            let (problem, expected) = (
                format!("{} is not Shaken now (SKY-CMD-08)", ship.name),
                format!("CMD RALLY {}", ship.name),
            );
            self.warn(line, raw, problem, expected);
        }
        Some((CmdAction::Rally(target), ActionName::Rally, target))
    }

    fn launch_torpedo(&mut self, line: usize, raw: &str, unit: &Unit) -> Option<Action> {
        let has = unit.weapons.iter().any(|w| w.kind.stats().torpedo);
        if !has {
            self.error(
                line,
                raw,
                format!("{} has no Torpedo Launcher", unit.name),
                "CMD FULLAHEAD",
            );
            return None;
        }
        Some((CmdAction::LaunchTorpedo, ActionName::LaunchTorpedo, unit.id))
    }

    fn launch_wing(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        args: &[String],
    ) -> Option<Action> {
        if !unit.modules.iter().any(|m| m.kind == ModuleKind::Hangar) {
            self.error(
                line,
                raw,
                format!("{} has no Hangar", unit.name),
                "CMD FULLAHEAD",
            );
            return None;
        }
        let aboard: Vec<UnitId> = self
            .state
            .units
            .iter()
            .filter(|u| u.carrier == Some(unit.id) && u.place == Place::Aboard)
            .map(|u| u.id)
            .collect();
        let wanted = if args.is_empty() {
            None
        } else {
            match self.take_unit(args) {
                Some((id, _)) if aboard.contains(&id) => Some(id),
                _ => {
                    self.error(
                        line,
                        raw,
                        format!("no such wing aboard {}", unit.name),
                        "CMD LAUNCHWING",
                    );
                    return None;
                }
            }
        };
        if aboard.is_empty() {
            self.error(
                line,
                raw,
                format!("{} has no wing aboard", unit.name),
                "CMD FULLAHEAD",
            );
            return None;
        }
        Some((
            CmdAction::LaunchWing(wanted),
            ActionName::LaunchWing,
            unit.id,
        ))
    }

    /// SKY-CMD-02: once per ship per named action per turn.
    fn once_per_turn(
        &mut self,
        line: usize,
        raw: &str,
        beneficiary: UnitId,
        name: ActionName,
    ) -> bool {
        if self.named.insert((beneficiary, name)) {
            return true;
        }
        self.error(
            line,
            raw,
            format!("{} already has {} this turn: each named action once per ship per turn (SKY-CMD-02)", self.name(beneficiary), name.name()),
            "one of each CMD action per ship",
        );
        false
    }

    /// SKY-CMD-01: affordability, checked again when it happens. Counts the point against
    /// its payer; false once the line is refused.
    fn affordable(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        payer: Option<UnitId>,
        beneficiary: UnitId,
        from_example: &str,
    ) -> bool {
        let paying = payer.unwrap_or(unit.id);
        let planned = self.planned.entry(paying).or_insert(0);
        *planned += 1;
        let planned = *planned;
        let pool = self
            .unit(paying)
            .map(|u| u32::from(u.cmd_max()))
            .unwrap_or(0);
        if planned <= pool {
            return true;
        }
        let helpers = self.unit(beneficiary).is_some_and(|b| {
            crate::command::payers(&self.state.units, b, paying)
                .iter()
                .any(|p| *p != paying)
        });
        if payer.is_some() || !helpers {
            self.error(
                line,
                raw,
                format!(
                    "{} has only {pool} CMD this turn and this would be its {} point (SKY-CMD-01)",
                    self.name(paying),
                    ordinal(planned as usize)
                ),
                "fewer CMD actions, or FROM another ship within 12\"",
            );
            return false;
        }
        self.warn(
            line,
            raw,
            format!("{} has only {pool} CMD: this point will come from a friendly ship within 12\" if one has CMD left", self.name(paying)),
            from_example,
        );
        true
    }

    /// The action as understood, with who pays.
    fn cmd_understood(
        &mut self,
        unit: &Unit,
        cmd: &CmdAction,
        name: ActionName,
        payer: Option<UnitId>,
    ) {
        let from = payer
            .map(|p| format!(", paid by {}", self.name(p)))
            .unwrap_or_default();
        let detail = match cmd {
            CmdAction::EmergencyRepairs(Skip::Move) => " (no move, +2 DC dice)".to_string(),
            CmdAction::EmergencyRepairs(Skip::Shoot) => " (no shooting, +2 DC dice)".to_string(),
            CmdAction::TargetLock(slots) => format!(" on {}", slots.join(", ")),
            CmdAction::Rally(id) => format!(" {}", self.name(*id)),
            CmdAction::HardAround(PivotSpec::By(turn)) => format!(" P{}", turn.display()),
            CmdAction::HardAround(PivotSpec::Toward(_)) => " toward its aim".to_string(),
            _ => String::new(),
        };
        self.understood.push(format!(
            "{}: {}{detail} (1 CMD{from})",
            unit.name,
            name.name()
        ));
    }
}

/// The CMD action the words start with, in one word or two ("FULL AHEAD"), and how many
/// words it took.
fn action_word(words: &[String]) -> Option<(&'static str, usize)> {
    let two = squash(&words.iter().take(2).cloned().collect::<Vec<_>>().concat());
    let one = squash(words.first()?);
    Some(match (one.as_str(), two.as_str()) {
        (_, "fullahead") => ("fullahead", 2),
        (_, "hardaround") => ("hardaround", 2),
        (_, "targetlock") => ("targetlock", 2),
        (_, "launchtorpedo" | "launchtorp" | "launchtorpedoes") => ("launchtorpedo", 2),
        (_, "launchwing") => ("launchwing", 2),
        (_, "compressedgas") => ("gas", 2),
        (_, "emergencyrepairs" | "emergencyrepair") => ("emergency", 2),
        ("fullahead" | "full", _) => ("fullahead", 1),
        ("hardaround", _) => ("hardaround", 1),
        ("targetlock" | "lock", _) => ("targetlock", 1),
        ("launchtorpedo", _) => ("launchtorpedo", 1),
        ("launchwing", _) => ("launchwing", 1),
        ("compressedgas" | "gas", _) => ("gas", 1),
        ("emergency" | "emergencyrepairs", _) => ("emergency", 1),
        ("brace", _) => ("brace", 1),
        ("rally", _) => ("rally", 1),
        _ => return None,
    })
}
