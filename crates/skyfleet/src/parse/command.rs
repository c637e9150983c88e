//! CMD actions inside a unit's block (SKY-CMD-01 to SKY-CMD-08): which action, who pays,
//! each action's own words, once per ship per turn, and whether the CMD is there.

use crate::command::{COMMAND_REACH, unable};
use crate::geometry::{Turn, parse_degrees};
use crate::movement::pivot_rule;
use crate::orders::{CmdAction, CmdOrder, DcChoice, PivotSpec, Skip};
use crate::state::{ActionName, Morale, Place, Unit, UnitId};
use crate::tables::squash;

use super::{CmdRead, Parser, is, ordinal};

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
        let Some((words, payer)) = self.cmd_payer(line, raw, unit, rest) else {
            return;
        };
        // The list names this battle's ships and this unit's weapons.
        let lock_slot = unit
            .weapons
            .iter()
            .find(|w| !w.kind.stats().torpedo)
            .map(|w| w.slot.clone())
            .unwrap_or_else(|| "fwd".into());
        let list = &format!(
            "a CMD action: FULLAHEAD, HARDAROUND P -{}, TARGETLOCK {lock_slot}, RALLY {}, BRACE, EMERGENCY SKIP MOVE or SHOOT, LAUNCHTORPEDO, LAUNCHWING, COMPRESSEDGAS",
            unit.stats().pivot.size_display(),
            self.example_ship
        );
        if !unit.is_ship() {
            self.error(
                line,
                raw,
                format!(
                    "{} is a wing: wings have no CMD and receive no CMD actions (SKY-GM-19)",
                    unit.name
                ),
                self.example(line, "FIRE ALL AT NEAREST"),
            );
            return;
        }
        if words.is_empty() {
            let expected = self.cmd_expected(line, unit, list);
            self.error(line, raw, "which CMD action?", expected);
            return;
        }
        let Some((action, used)) = action_word(words) else {
            let expected = self.cmd_expected(line, unit, list);
            self.error(
                line,
                raw,
                format!("\"{}\" is not an order or a CMD action", words.join(" ")),
                expected,
            );
            return;
        };
        let args: Vec<String> = words.get(used..).unwrap_or(&[]).to_vec();
        let Some((cmd, name, beneficiary)) = self.cmd_action(line, raw, unit, action, &args) else {
            return;
        };
        if let Some(unable) = unable(unit, &cmd) {
            let shoot = CmdAction::EmergencyRepairs(Skip::Shoot);
            let expected = if cmd == CmdAction::EmergencyRepairs(Skip::Move)
                && crate::command::unable(unit, &shoot).is_none()
            {
                format!(
                    "give up shooting instead: {}",
                    self.example(line, "CMD EMERGENCY SKIP SHOOT")
                )
            } else {
                self.mend_expected(line, unit, name, unable.mend)
            };
            self.error(line, raw, unable.why, expected);
            return;
        }
        let written = format!("CMD {}", words.join(" ").to_uppercase());
        if !self.once_per_turn(line, raw, unit, beneficiary, name)
            || !self.affordable(line, raw, unit, payer, beneficiary, &written)
        {
            return;
        }
        let understood = self.cmd_understood(unit, &cmd, name, payer);
        let order = CmdOrder { action: cmd, payer };
        if let Some(block) = self.blocks.get_mut(index) {
            block.cmds.push(CmdRead {
                line,
                raw: raw.to_string(),
                order: order.clone(),
                understood,
                bare: written.clone(),
            });
        }
        self.set(index, |a| a.actions.push(order));
    }

    /// `FROM <ship>` names the payer (SKY-CMD-01): the words before it, and the payer if
    /// named; `None` once the line is refused.
    fn cmd_payer<'w>(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        rest: &'w [String],
    ) -> Option<(&'w [String], Option<UnitId>)> {
        let Some(at) = rest.iter().position(|w| w == "from") else {
            return Some((rest, None));
        };
        let payer_words = rest.get(at + 1..).unwrap_or(&[]);
        let before = rest.get(..at).unwrap_or(&[]);
        match self.take_unit(payer_words) {
            Some((id, _)) if self.own(id) && self.unit(id).is_some_and(Unit::is_ship) => {
                Some((before, Some(id)))
            }
            _ => {
                // The same action, paid as SKY-ADM-11 says when no one is named: offered for
                // an action without words of its own that this ship may take and pay for.
                let simple = action_word(before).and_then(|(word, used)| {
                    let action = match word {
                        "fullahead" => CmdAction::FullAhead,
                        "brace" => CmdAction::Brace,
                        "gas" => CmdAction::CompressedGas,
                        "launchtorpedo" => CmdAction::LaunchTorpedo,
                        _ => return None,
                    };
                    let planned = self.planned.get(&unit.id).copied().unwrap_or(0);
                    // (A one-word action counts the two words it looked at.)
                    (used >= before.len()
                        && unit.is_ship()
                        && unable(unit, &action).is_none()
                        && !self.named.contains(&(unit.id, action.action_name()))
                        && planned < u32::from(unit.cmd_max()))
                    .then_some(())
                });
                let expected = if simple.is_none() {
                    "one of your ships after FROM, which pays the CMD".to_string()
                } else {
                    format!(
                        "one of your ships after FROM to pay, or leave FROM out: {}",
                        self.example(line, &format!("CMD {}", before.join(" ").to_uppercase()))
                    )
                };
                self.error(
                    line,
                    raw,
                    "FROM needs one of your ships, which pays the CMD",
                    expected,
                );
                None
            }
        }
    }

    /// What to write instead of a CMD line that names no action: the list, and one action
    /// this ship may still take and pay for here.
    fn cmd_expected(&self, line: usize, unit: &Unit, list: &str) -> String {
        match self.cmd_suggestion(unit) {
            Some(order) => format!("{list}; e.g. {}", self.example(line, &order)),
            None => list.to_string(),
        }
    }

    /// A CMD action the ship may still take and pay for at this point of the orders: Brace,
    /// else Full Ahead.
    fn cmd_suggestion(&self, unit: &Unit) -> Option<String> {
        let pool = u32::from(unit.cmd_max());
        let planned = self.planned.get(&unit.id).copied().unwrap_or(0);
        if planned >= pool {
            return None;
        }
        [
            (CmdAction::Brace, ActionName::Brace, "CMD BRACE"),
            (CmdAction::FullAhead, ActionName::FullAhead, "CMD FULLAHEAD"),
        ]
        .into_iter()
        .find(|(action, name, _)| {
            !self.named.contains(&(unit.id, *name)) && unable(unit, action).is_none()
        })
        .map(|(_, _, order)| order.to_string())
    }

    /// What to write instead of an action the ship cannot take: the damage control that
    /// would mend it for the turns after, if any.
    fn mend_expected(
        &self,
        line: usize,
        unit: &Unit,
        name: ActionName,
        mend: Option<DcChoice>,
    ) -> String {
        match mend {
            Some(mend) => format!(
                "no {} for {} this turn; damage control can {} at the end of its activation: {}",
                name.name(),
                unit.name,
                mend.name(),
                self.example(line, &format!("DC PRIORITY {}", mend.word()))
            ),
            None => format!("no {} for {} this turn", name.name(), unit.name),
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
            "rally" => self.rally(line, raw, unit, args),
            "launchtorpedo" => self.launch_torpedo(line, raw, unit),
            "launchwing" => self.launch_wing(line, raw, unit, args),
            _ => None,
        }
    }

    fn compressed_gas(&mut self, _line: usize, _raw: &str, unit: &Unit) -> Option<Action> {
        // Whether the module works is the judge's (`command::unable`).
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
            // Whichever the ship can give up (SKY-CMD-03).
            let order = [Skip::Shoot, Skip::Move]
                .into_iter()
                .find(|skip| unable(unit, &CmdAction::EmergencyRepairs(*skip)).is_none())
                .map(|skip| match skip {
                    Skip::Shoot => "CMD EMERGENCY SKIP SHOOT",
                    Skip::Move => "CMD EMERGENCY SKIP MOVE",
                });
            let expected = match order {
                Some(order) => format!("SKIP MOVE or SKIP SHOOT: {}", self.example(line, order)),
                None => format!(
                    "SKIP MOVE or SKIP SHOOT, but {} has neither to give up",
                    unit.name
                ),
            };
            self.error(
                line,
                raw,
                "Emergency Repairs gives up moving or shooting: say which",
                expected,
            );
            return None;
        };
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
        // What the ship's status forbids first: no pivot written would make it possible.
        let any = CmdAction::HardAround(PivotSpec::By(Turn(0)));
        if let Some(unable) = unable(unit, &any) {
            let expected = self.mend_expected(line, unit, ActionName::HardAround, unable.mend);
            self.error(line, raw, unable.why, expected);
            return None;
        }
        let pivot = unit.stats().pivot;
        let example = self.example(line, &format!("CMD HARDAROUND P -{}", pivot.size_display()));
        let Some(spec) = self.hard_around_spec(args) else {
            self.error(
                line,
                raw,
                "HARDAROUND needs an angle or TOWARD a unit",
                format!("a pivot of at most {}°: {example}", pivot.size_display()),
            );
            return None;
        };
        if let PivotSpec::By(turn) = spec
            && let Err(rule) = pivot_rule(unit.class, turn)
        {
            self.error(line, raw, rule.explain(unit.class), example);
            return None;
        }
        Some((CmdAction::HardAround(spec), ActionName::HardAround, unit.id))
    }

    /// HARDAROUND's pivot: an angle (LEFT makes it to port), or TOWARD a unit or a point.
    fn hard_around_spec(&self, args: &[String]) -> Option<PivotSpec> {
        let args: Vec<String> = args
            .iter()
            .filter(|w| {
                !matches!(
                    w.as_str(),
                    "p" | "pivot" | "by" | "turn" | "degrees" | "deg"
                )
            })
            .cloned()
            .collect();
        if let Some(half) = args.first().and_then(|w| parse_degrees(w)) {
            let half = if args.iter().any(|w| w == "left" || w == "l" || w == "port") {
                -half.abs()
            } else {
                half
            };
            return Some(PivotSpec::By(Turn(half)));
        }
        if is(
            args.first(),
            &["left", "l", "right", "r", "port", "starboard", "stbd"],
        ) {
            let half = args.get(1).and_then(|w| parse_degrees(w))?;
            let half = if is(args.first(), &["left", "l", "port"]) {
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

    /// A ship this unit may Rally now, for an example: a Shaken friend, else a steady one,
    /// within reach as things stand; never a Broken one.
    fn rally_example(&self, unit: &Unit) -> Option<String> {
        let mine = |u: &&Unit| {
            u.side == self.side
                && u.is_ship()
                && u.in_play()
                && u.status.morale != Morale::Broken
                && !self.named.contains(&(u.id, ActionName::Rally))
                && crate::fire::bases_within(unit, u, COMMAND_REACH)
        };
        self.state
            .units
            .iter()
            .filter(mine)
            .min_by_key(|u| (u.status.morale != Morale::Shaken, u.id != unit.id, u.id))
            .map(|u| format!("CMD RALLY {}", u.name))
    }

    fn rally(&mut self, line: usize, raw: &str, unit: &Unit, args: &[String]) -> Option<Action> {
        let expected = match self.rally_example(unit) {
            Some(order) => format!(
                "a friendly ship within 12\": {}",
                self.example(line, &order)
            ),
            None => "a friendly ship within 12\" that is Shaken".to_string(),
        };
        let Some((target, _)) = self.take_unit(args) else {
            self.error(line, raw, "RALLY needs a friendly ship's name", expected);
            return None;
        };
        let ship = self.unit(target)?;
        if ship.side != self.side || !ship.is_ship() {
            let problem = format!("{} is not one of your ships", ship.name);
            self.error(line, raw, problem, expected);
            return None;
        }
        match ship.status.morale {
            Morale::Broken => {
                // SKY-ADM-04: Rally removes Shaken only; damage control clears Broken.
                let name = ship.name.clone();
                let fix = if target == unit.id {
                    format!(": {}", self.example(line, "DC PRIORITY BROKEN"))
                } else {
                    format!(", in {name}'s own orders: `{name}: DC PRIORITY BROKEN`")
                };
                self.error(
                    line,
                    raw,
                    format!(
                        "{name} is Broken, and Rally removes only Shaken (SKY-CMD-08, SKY-ADM-04)"
                    ),
                    format!("damage control's two successes clear Broken (SKY-DCR-03){fix}"),
                );
                return None;
            }
            Morale::Steady => {
                let problem = format!(
                    "{} is not Shaken now (SKY-CMD-08): the Rally is made and paid for only if it is Shaken when {} activates",
                    ship.name, unit.name
                );
                self.warn(line, raw, problem, "a Rally for a Shaken ship");
            }
            Morale::Shaken => {}
        }
        Some((CmdAction::Rally(target), ActionName::Rally, target))
    }

    fn launch_torpedo(&mut self, _line: usize, _raw: &str, unit: &Unit) -> Option<Action> {
        // Whether it has a working launcher is the judge's (`command::unable`).
        Some((CmdAction::LaunchTorpedo, ActionName::LaunchTorpedo, unit.id))
    }

    fn launch_wing(
        &mut self,
        line: usize,
        raw: &str,
        unit: &Unit,
        args: &[String],
    ) -> Option<Action> {
        if let Some(unable) = unable(unit, &CmdAction::LaunchWing(None)) {
            let expected = self.mend_expected(line, unit, ActionName::LaunchWing, unable.mend);
            self.error(line, raw, unable.why, expected);
            return None;
        }
        let aboard: Vec<UnitId> = self
            .state
            .units
            .iter()
            .filter(|u| u.carrier == Some(unit.id) && u.place == Place::Aboard)
            .map(|u| u.id)
            .collect();
        if aboard.is_empty() {
            self.error(
                line,
                raw,
                format!("{} has no wing aboard (SKY-MOD-10)", unit.name),
                "a ship with a Hangar and a wing still aboard",
            );
            return None;
        }
        let words: Vec<String> = args
            .iter()
            .filter(|w| !matches!(w.as_str(), "wing" | "the"))
            .cloned()
            .collect();
        let wanted = if words.is_empty() {
            None
        } else {
            match self.take_unit(&words) {
                Some((id, _)) if aboard.contains(&id) => Some(id),
                _ => {
                    let names: Vec<String> = aboard.iter().map(|id| self.name(*id)).collect();
                    let first = names.first().cloned().unwrap_or_default();
                    self.error(
                        line,
                        raw,
                        format!("no such wing aboard {}", unit.name),
                        format!(
                            "one of {}: {}",
                            names.join(", "),
                            self.example(line, &format!("CMD LAUNCHWING {first}"))
                        ),
                    );
                    return None;
                }
            }
        };
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
        unit: &Unit,
        beneficiary: UnitId,
        name: ActionName,
    ) -> bool {
        if self.named.insert((beneficiary, name)) {
            return true;
        }
        let expected = match self.cmd_suggestion(unit) {
            Some(order) => format!(
                "one of each CMD action per ship, e.g. {}",
                self.example(line, &order)
            ),
            None => "one of each CMD action per ship".to_string(),
        };
        self.error(
            line,
            raw,
            format!("{} already has {} this turn: each named action once per ship per turn (SKY-CMD-02)", self.name(beneficiary), name.name()),
            expected,
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
        written: &str,
    ) -> bool {
        let paying = payer.unwrap_or(unit.id);
        let planned = self.planned.get(&paying).copied().unwrap_or(0) + 1;
        let pool = self
            .unit(paying)
            .map(|u| u32::from(u.cmd_max()))
            .unwrap_or(0);
        if planned <= pool {
            self.planned.insert(paying, planned);
            return true;
        }
        // Friends within 12" of the beneficiary with CMD not yet planned away.
        let helper = self.unit(beneficiary).and_then(|b| {
            self.state
                .units
                .iter()
                .filter(|p| {
                    p.id != paying
                        && p.side == self.side
                        && p.is_ship()
                        && p.in_play()
                        && crate::fire::bases_within(p, b, COMMAND_REACH)
                        && self.planned.get(&p.id).copied().unwrap_or(0) < u32::from(p.cmd_max())
                })
                .min_by_key(|p| (crate::geometry::distance_squared(p.at, b.at), p.id))
                .map(|p| p.name.clone())
        });
        let bare = written
            .split(" FROM ")
            .next()
            .unwrap_or(written)
            .to_string();
        if payer.is_some() || helper.is_none() {
            let expected = match &helper {
                Some(helper) => format!(
                    "fewer CMD actions, or another ship within 12\" pays: {}",
                    self.example(line, &format!("{bare} FROM {helper}"))
                ),
                None => "fewer CMD actions: no ship within 12\" has CMD left".to_string(),
            };
            self.error(
                line,
                raw,
                format!(
                    "{} has only {pool} CMD this turn and this would be its {} point (SKY-CMD-01)",
                    self.name(paying),
                    ordinal(planned as usize)
                ),
                expected,
            );
            return false;
        }
        let helper = helper.unwrap_or_default();
        if let Some(id) = self
            .state
            .units
            .iter()
            .find(|u| u.name == helper)
            .map(|u| u.id)
        {
            *self.planned.entry(id).or_insert(0) += 1;
        }
        self.warn(
            line,
            raw,
            format!("{} has only {pool} CMD: this point will come from a friendly ship within 12\" if one has CMD left", self.name(paying)),
            format!("{bare} FROM {helper}"),
        );
        true
    }

    /// The action as understood, with who pays; returns it.
    fn cmd_understood(
        &mut self,
        unit: &Unit,
        cmd: &CmdAction,
        name: ActionName,
        payer: Option<UnitId>,
    ) -> String {
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
        let text = format!("{}: {}{detail} (1 CMD{from})", unit.name, name.name());
        self.understood.push(text.clone());
        text
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
