//! Command points and damage control: paying for the named CMD actions once per ship per
//! turn from any friendly ship within 12", launching torpedoes and wings, and the DC roll at
//! the end of a ship's activation (SKY-CMD-01..09, SKY-MOD-3, -7, -10, SKY-DCR-01..03,
//! SKY-GM-19, SKY-GM-21, SKY-GM-22).

use crate::battle::Battle;
use crate::fire::bases_within;
use crate::geometry::{Length, Turn};
use crate::orders::{Activation, CmdAction, DcChoice, Skip};
use crate::state::{
    ActionName, Brace, DamageControl, Morale, Place, State, Status, TorpedoInfo, TurnRecord, Unit,
    UnitId,
};
use crate::tables::{Class, ModuleKind};

/// How far CMD reaches (SKY-CMD-01).
pub const COMMAND_REACH: Length = Length::inches(12);

/// The friendly ships that could pay for an action on `beneficiary`: in play, within 12"
/// (base edges), with CMD left; `preferred` first, then the nearest (SKY-CMD-01, SKY-GM-19).
pub fn payers(units: &[Unit], beneficiary: &Unit, preferred: UnitId) -> Vec<UnitId> {
    let mut candidates: Vec<(i32, i128, UnitId)> = units
        .iter()
        .filter(|u| {
            u.in_play()
                && u.is_ship()
                && u.side == beneficiary.side
                && u.cmd_left() > 0
                && bases_within(u, beneficiary, COMMAND_REACH)
        })
        .map(|u| {
            let rank = if u.id == preferred { 0 } else { 1 };
            (
                rank,
                crate::geometry::distance_squared(u.at, beneficiary.at),
                u.id,
            )
        })
        .collect();
    candidates.sort();
    candidates.into_iter().map(|(_, _, id)| id).collect()
}

/// Why a ship cannot take an action, and the damage control that would mend it (for a later
/// turn), if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unable {
    pub why: String,
    pub mend: Option<DcChoice>,
}

impl Unable {
    fn new(why: String, mend: Option<DcChoice>) -> Option<Self> {
        Some(Unable { why, mend })
    }
}

/// What stops `unit` from taking `action`, read from its status alone: the one judge the
/// order check and the turn both ask, so that an action refused at writing is the action the
/// turn would refuse, and one the turn refuses is never paid for (SKY-CMD-01..09, SKY-CRIT-2,
/// -3, -4, -6, SKY-SCRIT-4, -5, -6, SKY-MOR-06, SKY-ADM-22). Where the ship stands (reach,
/// islands) is judged apart, since it changes during the turn.
pub fn unable(unit: &Unit, action: &CmdAction) -> Option<Unable> {
    let name = &unit.name;
    let status = &unit.status;
    let moving = matches!(
        action,
        CmdAction::FullAhead | CmdAction::HardAround(_) | CmdAction::EmergencyRepairs(Skip::Move)
    );
    match action {
        _ if moving && status.drifting => Unable::new(
            format!("{name} is Drifting and can no longer move or turn (SKY-SCRIT-4)"),
            None,
        ),
        _ if moving && status.morale == Morale::Broken => Unable::new(
            format!(
                "{name} is Broken and flees at full speed toward the nearest edge whatever is written (SKY-MOR-06)"
            ),
            Some(DcChoice::Broken),
        ),
        CmdAction::HardAround(_) if status.rudder_loss => Unable::new(
            format!("{name} has lost its rudder and cannot turn (SKY-CRIT-4)"),
            Some(DcChoice::RudderLoss),
        ),
        CmdAction::EmergencyRepairs(Skip::Move) if unit.speed(false) == Length::ZERO => {
            Unable::new(
                format!("{name} has no speed left (SKY-CRIT-3): it has no move to give up"),
                Some(DcChoice::SpeedLoss),
            )
        }
        CmdAction::EmergencyRepairs(Skip::Shoot)
            if !unit
                .weapons
                .iter()
                .any(|w| !w.kind.stats().torpedo && unit.weapon_works(w)) =>
        {
            Unable::new(
                format!(
                    "{name} has no weapon that can fire (SKY-CRIT-2, SKY-SCRIT-5): it has no shooting to give up"
                ),
                weapons_mend(unit),
            )
        }
        CmdAction::TargetLock(slots) => {
            let weapon = slots
                .first()
                .and_then(|slot| unit.weapons.iter().find(|w| &w.slot == slot));
            match weapon {
                None => Unable::new(
                    "Target Lock needs one of the ship's weapons (SKY-CMD-05)".into(),
                    None,
                ),
                Some(w) if status.weapons_down => Unable::new(
                    format!(
                        "{name}'s weapons are down (SKY-SCRIT-5): the {} cannot fire, so it cannot be locked",
                        w.kind.name()
                    ),
                    Some(DcChoice::WeaponsDown),
                ),
                Some(w) if w.jammed => Unable::new(
                    format!(
                        "{name}'s {} is jammed (SKY-CRIT-2): it cannot fire, so it cannot be locked",
                        w.kind.name()
                    ),
                    Some(DcChoice::WeaponJam),
                ),
                Some(_) => None,
            }
        }
        CmdAction::LaunchTorpedo => {
            let fitted = unit.weapons.iter().any(|w| w.kind.stats().torpedo);
            let works = unit
                .weapons
                .iter()
                .any(|w| w.kind.stats().torpedo && unit.weapon_works(w));
            match (fitted, works) {
                (false, _) => {
                    Unable::new(format!("{name} has no Torpedo Launcher (SKY-CMD-09)"), None)
                }
                (true, false) if status.weapons_down => Unable::new(
                    format!(
                        "{name}'s weapons are down (SKY-SCRIT-5): its Torpedo Launcher cannot launch"
                    ),
                    Some(DcChoice::WeaponsDown),
                ),
                (true, false) => Unable::new(
                    format!("{name}'s Torpedo Launcher is jammed (SKY-CRIT-2)"),
                    Some(DcChoice::WeaponJam),
                ),
                (true, true) => None,
            }
        }
        CmdAction::LaunchWing(_) => module_unable(unit, ModuleKind::Hangar, "SKY-MOD-10"),
        CmdAction::CompressedGas => module_unable(unit, ModuleKind::CompressedGas, "SKY-MOD-7"),
        _ => None,
    }
}

/// What damage control would give a ship back its weapons: Weapons Down first, else a jam.
fn weapons_mend(unit: &Unit) -> Option<DcChoice> {
    if unit.status.weapons_down {
        Some(DcChoice::WeaponsDown)
    } else if unit.weapons.iter().any(|w| w.jammed) {
        Some(DcChoice::WeaponJam)
    } else {
        None
    }
}

/// A module an action needs: not fitted, failed, or all utilities down.
fn module_unable(unit: &Unit, kind: ModuleKind, rule: &str) -> Option<Unable> {
    let name = &unit.name;
    let module = kind.name();
    if !unit.modules.iter().any(|m| m.kind == kind) {
        Unable::new(format!("{name} has no {module} ({rule})"), None)
    } else if unit.status.utilities_down {
        Unable::new(
            format!("{name}'s utilities are down (SKY-SCRIT-6): its {module} does not work"),
            Some(DcChoice::UtilitiesDown),
        )
    } else if !unit.has_working(kind) {
        Unable::new(
            format!("{name}'s {module} has failed (SKY-CRIT-6)"),
            Some(DcChoice::UtilityFailure),
        )
    } else {
        None
    }
}

/// Where Compressed Gas takes the ship: +2 elevation at once, up to the ceiling, never into
/// an island; refused at the ceiling, where it would buy nothing (SKY-MOD-7, SKY-GM-06,
/// SKY-ADM-21, SKY-ADM-22). The order check asks it with the ship where its activation will
/// find it, the turn with the ship where it is.
pub fn gas_rise(state: &State, unit: &Unit) -> Result<u8, String> {
    if let Some(unable) = unable(unit, &CmdAction::CompressedGas) {
        return Err(unable.why);
    }
    let ceiling = state.rules.max_elevation;
    if unit.elevation >= ceiling {
        return Err(format!(
            "{} is at the ceiling, elevation {ceiling} (SKY-GM-06): Compressed Gas would lift it nowhere",
            unit.name
        ));
    }
    let target = unit.elevation.saturating_add(2).min(ceiling);
    if let Some(island) =
        state
            .terrain
            .island_on_the_way_up_or_down(unit.at, unit.radius, unit.elevation, target)
    {
        return Err(format!("it would rise into island {island} (SKY-ADM-21)"));
    }
    Ok(target)
}

/// Whether the activation's weapon in `slot` fires at all: not given up for Emergency
/// Repairs, and ordered to fire or left to fire at the nearest (no HOLD FIRE). A Target Lock
/// on one that does not is an action that cannot happen (SKY-CMD-05, SKY-ADM-10, SKY-ADM-22).
pub fn fires(activation: &Activation, slot: &str) -> bool {
    let skips = activation
        .actions
        .iter()
        .any(|a| a.action == CmdAction::EmergencyRepairs(Skip::Shoot));
    !skips
        && (!activation.hold_fire
            || activation
                .fire
                .iter()
                .any(|f| f.weapons.iter().any(|w| w == slot)))
}

impl Battle<'_> {
    /// Pays 1 CMD for a named action on `beneficiary`: from `payer` if named, otherwise from
    /// `preferred` or the nearest friendly ship in reach. Err says why not.
    pub fn pay(
        &mut self,
        beneficiary: UnitId,
        action: ActionName,
        payer: Option<UnitId>,
        preferred: UnitId,
    ) -> Result<UnitId, String> {
        let Some(unit) = self.unit(beneficiary) else {
            return Err("no such ship".into());
        };
        if !unit.is_ship() {
            return Err(format!(
                "{} cannot receive CMD actions (SKY-GM-19)",
                unit.name
            ));
        }
        if unit.this_turn.actions.contains(&action) {
            return Err(format!(
                "{} has had {} this turn already (SKY-CMD-02)",
                unit.name,
                action.name()
            ));
        }
        let who = match payer {
            Some(payer) => {
                let Some(paying) = self.unit(payer) else {
                    return Err("no such paying ship".into());
                };
                if !payer_can_pay(paying, unit) {
                    return Err(format!(
                        "{} cannot pay: it needs CMD left and to be a friendly ship within 12\" (SKY-CMD-01)",
                        paying.name
                    ));
                }
                payer
            }
            None => match payers(&self.state.units, unit, preferred).first() {
                Some(payer) => *payer,
                None => {
                    return Err(format!(
                        "no CMD left within 12\" of {} (SKY-CMD-01)",
                        unit.name
                    ));
                }
            },
        };
        if let Some(paying) = self.unit_mut(who) {
            paying.this_turn.cmd_spent = paying.this_turn.cmd_spent.saturating_add(1);
        }
        if let Some(unit) = self.unit_mut(beneficiary) {
            unit.this_turn.actions.insert(action);
        }
        Ok(who)
    }

    /// `1 CMD` when the activating ship paid, `1 CMD from Resolute` when another did.
    pub fn paid_text(&self, activating: UnitId, payer: UnitId) -> String {
        if payer == activating {
            "1 CMD".into()
        } else {
            format!("1 CMD from {}", self.name(payer))
        }
    }

    /// Brace (SKY-CMD-04).
    pub fn brace(&mut self, id: UnitId) {
        if let Some(unit) = self.unit_mut(id) {
            unit.this_turn.brace = Brace::Ready;
        }
    }

    /// Rally: Shaken to steady; a Broken ship is not helped (SKY-CMD-08, SKY-ADM-04).
    pub fn rally_check(&self, rallier: UnitId, target: UnitId) -> Result<(), String> {
        let (Some(from), Some(unit)) = (self.unit(rallier), self.unit(target)) else {
            return Err("no such ship".into());
        };
        if !unit.in_play() || !unit.is_ship() || unit.side != from.side {
            return Err(format!("{} is not a friendly ship in play", unit.name));
        }
        if !bases_within(from, unit, COMMAND_REACH) {
            return Err(format!("{} is more than 12\" away", unit.name));
        }
        match unit.status.morale {
            Morale::Shaken => Ok(()),
            Morale::Steady => Err(format!("{} is not Shaken", unit.name)),
            Morale::Broken => Err(format!(
                "{} is Broken: only damage control clears that (SKY-ADM-04)",
                unit.name
            )),
        }
    }

    pub fn rally(&mut self, target: UnitId) {
        if let Some(unit) = self.unit_mut(target)
            && unit.status.morale == Morale::Shaken
        {
            unit.status.morale = Morale::Steady;
        }
    }

    /// Compressed Gas: +2 elevation at once, up to the ceiling, never into an island
    /// (SKY-MOD-7).
    pub fn gas_check(&self, id: UnitId) -> Result<u8, String> {
        let Some(unit) = self.unit(id) else {
            return Err("no such ship".into());
        };
        gas_rise(&self.state, unit)
    }

    /// Places a torpedo token touching the launcher's bow, facing forward, at its elevation;
    /// it first moves in the next turn's Torpedo Step (SKY-CMD-09, SKY-TORP-01, SKY-GM-16).
    pub fn launch_torpedo(&mut self, launcher: UnitId) -> Option<UnitId> {
        let ship = self.unit(launcher)?.clone();
        let radius = Length(self.state.rules.torpedo_diameter.hundredths() / 2);
        let number = self.state.torpedoes_launched + 1;
        self.state.torpedoes_launched = number;
        let id = UnitId(u16::try_from(self.state.units.len()).ok()?);
        let stats = Class::Torpedo.stats();
        self.state.units.push(Unit {
            id,
            name: format!("Torpedo #{number}"),
            side: ship.side,
            class: Class::Torpedo,
            cost: 0,
            at: ship.at.advance(ship.heading, ship.radius + radius),
            heading: ship.heading,
            elevation: ship.elevation,
            radius,
            hull: stats.hull,
            max_hull: stats.hull,
            place: Place::InPlay,
            weapons: Vec::new(),
            modules: Vec::new(),
            status: Status::default(),
            this_turn: TurnRecord::default(),
            carrier: None,
            launched_turn: Some(self.turn()),
            torpedo: Some(TorpedoInfo {
                number,
                launcher,
                launched_turn: self.turn(),
                steps_moved: 0,
            }),
        });
        Some(id)
    }

    /// Launch Wing's requirement: a working Hangar and a wing aboard (SKY-MOD-10, SKY-GM-19).
    pub fn wing_to_launch(
        &self,
        carrier: UnitId,
        wanted: Option<UnitId>,
    ) -> Result<UnitId, String> {
        let Some(ship) = self.unit(carrier) else {
            return Err("no such ship".into());
        };
        if !ship.has_working(ModuleKind::Hangar) {
            return Err(format!("{} has no working Hangar", ship.name));
        }
        self.state
            .units
            .iter()
            .find(|u| {
                u.carrier == Some(carrier)
                    && u.place == Place::Aboard
                    && wanted.is_none_or(|w| w == u.id)
            })
            .map(|u| u.id)
            .ok_or_else(|| format!("no such wing aboard {}", ship.name))
    }

    /// Places a launched wing touching the carrier, at its elevation: astern if clear, else
    /// to port, starboard or ahead (SKY-GM-19, SKY-ADM-05).
    pub fn place_wing(&mut self, carrier: UnitId, wing: UnitId) -> Result<(), String> {
        let (Some(ship), Some(flyer)) = (self.unit(carrier).cloned(), self.unit(wing).cloned())
        else {
            return Err("no such unit".into());
        };
        for turn in [360, -180, 180, 0] {
            let direction = ship.heading.turned(Turn(turn));
            let at = ship.at.advance(direction, ship.radius + flyer.radius);
            let clear = self.state.rules.board.holds(at, flyer.radius)
                && self
                    .state
                    .terrain
                    .island_in_the_way(at, flyer.radius, ship.elevation)
                    .is_none()
                && !self.state.units.iter().any(|u| {
                    u.in_play()
                        && u.id != carrier
                        && u.class != Class::Torpedo
                        && u.elevation == ship.elevation
                        && crate::geometry::within(u.at, at, u.radius + flyer.radius - Length(1))
                });
            if clear {
                let turn_now = self.turn();
                if let Some(unit) = self.unit_mut(wing) {
                    unit.place = Place::InPlay;
                    unit.at = at;
                    unit.heading = ship.heading;
                    unit.elevation = ship.elevation;
                    unit.launched_turn = Some(turn_now);
                }
                return Ok(());
            }
        }
        Err("no clear place beside the carrier".into())
    }

    /// Damage control at the end of a ship's activation: DC dice (+1 DC Center, +2 Emergency
    /// Repairs), 5+ succeeds, DC Center re-rolls each 1 once; successes bought in priority
    /// order (SKY-DC-01, SKY-DCR-01..03, SKY-MOD-3, SKY-CMD-03, SKY-GM-22). No dice are
    /// thrown when there is nothing to mend (SKY-ADM-08).
    pub fn damage_control(&mut self, id: UnitId, emergency: bool, priority: &[DcChoice]) {
        let Some(unit) = self.unit(id).cloned() else {
            return;
        };
        if !unit.in_play() || !unit.is_ship() || unit.dc_dice() == 0 {
            return;
        }
        let turn = self.turn();
        if !priority.iter().any(|c| applicable(&unit, *c, turn)) {
            return;
        }
        let count = u32::from(unit.dc_dice()) + if emergency { 2 } else { 0 };
        let centre = unit.has_working(ModuleKind::DcCenter);
        // All the DC dice, then the DC Center's re-roll of each 1 (catalogue RNG order).
        let first: Vec<u32> = (0..count).map(|_| self.dice.d6()).collect();
        let mut shown = Vec::new();
        let mut successes = 0;
        for face in first {
            let value = if centre && face == 1 {
                let again = self.dice.d6();
                shown.push(format!("1→{again}"));
                again
            } else {
                shown.push(face.to_string());
                face
            };
            if value >= 5 {
                successes += 1;
            }
        }
        let mut bought = Vec::new();
        let mut left = successes;
        let tiers = self.state.rules.damage_control == DamageControl::Tiers;
        if tiers {
            // The GM's switch (SKY-DCR-02/03): one effect a roll, 1 success for a 1-success
            // effect, 2 or more for either; the rest buy nothing.
            left = left.min(2);
        }
        while let Some(choice) = self.unit(id).and_then(|unit| {
            priority
                .iter()
                .copied()
                .find(|c| c.cost() <= left && applicable(unit, *c, turn))
        }) {
            left -= choice.cost();
            bought.push(self.mend(id, choice));
            if tiers {
                break;
            }
        }
        let mut text = format!(
            "DC {count}d [{}] → {successes} success{}",
            shown.join(","),
            if successes == 1 { "" } else { "es" }
        );
        if !bought.is_empty() {
            text.push_str(": ");
            text.push_str(&bought.join(", "));
        }
        self.log.result(id, text);
    }

    /// One DC purchase; returns the words for the report.
    fn mend(&mut self, id: UnitId, choice: DcChoice) -> String {
        if choice == DcChoice::Repair {
            let roll = self.dice.d3();
            let Some(unit) = self.unit_mut(id) else {
                return String::new();
            };
            // Repairs never pass starting Hull.
            let before = unit.hull;
            unit.hull = (unit.hull + roll as i32).min(unit.max_hull);
            return format!("repair 1d3 [{roll}] +{}", unit.hull - before);
        }
        let Some(unit) = self.unit_mut(id) else {
            return String::new();
        };
        let status = &mut unit.status;
        match choice {
            DcChoice::Broken => status.morale = Morale::Shaken,
            DcChoice::OnFire => status.on_fire = false,
            DcChoice::WeaponsDown => status.weapons_down = false,
            DcChoice::UtilitiesDown => status.utilities_down = false,
            DcChoice::RudderLoss => status.rudder_loss = false,
            DcChoice::SpeedLoss => status.speed_loss = status.speed_loss.saturating_sub(1),
            DcChoice::CrewCasualties => {
                status.crew_casualties = status.crew_casualties.saturating_sub(1);
            }
            DcChoice::Panic => status.panic_turn = None,
            DcChoice::WeaponJam => {
                if let Some(weapon) = unit.weapons.iter_mut().find(|w| w.jammed) {
                    weapon.jammed = false;
                }
            }
            DcChoice::UtilityFailure => {
                if let Some(module) = unit.modules.iter_mut().find(|m| m.failed) {
                    module.failed = false;
                }
            }
            DcChoice::Repair => {}
        }
        choice.name().to_string()
    }
}

fn payer_can_pay(payer: &Unit, beneficiary: &Unit) -> bool {
    payer.in_play()
        && payer.is_ship()
        && payer.side == beneficiary.side
        && payer.cmd_left() > 0
        && bases_within(payer, beneficiary, COMMAND_REACH)
}

/// Whether a DC choice would do anything now (SKY-GM-21: Bridge Hit and Drifting never).
pub fn applicable(unit: &Unit, choice: DcChoice, turn: u32) -> bool {
    let status = &unit.status;
    match choice {
        DcChoice::Broken => status.morale == Morale::Broken,
        DcChoice::OnFire => status.on_fire,
        DcChoice::WeaponsDown => status.weapons_down,
        DcChoice::UtilitiesDown => status.utilities_down,
        DcChoice::RudderLoss => status.rudder_loss,
        DcChoice::SpeedLoss => status.speed_loss > 0,
        DcChoice::WeaponJam => unit.weapons.iter().any(|w| w.jammed),
        DcChoice::UtilityFailure => unit.modules.iter().any(|m| m.failed),
        DcChoice::CrewCasualties => status.crew_casualties > 0,
        DcChoice::Panic => status.panic_turn.is_some_and(|t| t > turn),
        DcChoice::Repair => unit.hull < unit.max_hull,
    }
}
