//! One player's orders for one turn, as the parser understood them (SKY-GM-14, SKY-GM-17).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::geometry::{Angle, Length, Point, Turn};
use crate::state::{ActionName, InitiativeChoice, PivotChoice, UnitId};

/// A player's orders for a turn. Units left out of `activations` hold (SKY-GM-14).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Orders {
    /// Changes the standing initiative choice (SKY-GM-15).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initiative: Option<InitiativeChoice>,
    /// Turn 1 only: where ships deploy, unseen by the enemy (SKY-GM-01).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deploy: Vec<Deploy>,
    /// The activation list, in order (SKY-GM-14).
    pub activations: Vec<Activation>,
    /// Programs for this turn's Torpedo Step (SKY-GM-16).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub torpedoes: Vec<TorpedoOrder>,
    /// Changes to standing orders, in the order written (SKY-GM-17, SKY-GM-25).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub standing: Vec<StandingChange>,
}

/// `DEPLOY <ship> AT x,y HEADING d ELEV n` (SKY-GM-01).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deploy {
    pub unit: UnitId,
    pub at: Point,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<Angle>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elevation: Option<u8>,
}

/// One unit's activation (SKY-ACT-01, SKY-GM-11, SKY-GM-14).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activation {
    pub unit: UnitId,
    /// Movement steps in order; empty: stay put.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// Decline the inches a dive would give (SKY-MOD-8).
    #[serde(default)]
    pub dive_brakes: bool,
    #[serde(default)]
    pub actions: Vec<CmdOrder>,
    #[serde(default)]
    pub fire: Vec<FireOrder>,
    /// Weapons without a FIRE order stay silent.
    #[serde(default)]
    pub hold_fire: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dc_priority: Option<Vec<DcChoice>>,
}

impl Activation {
    /// `HOLD`: no move, every weapon at the nearest legal target, default DC (SKY-GM-14).
    pub fn hold(unit: UnitId) -> Self {
        Activation {
            unit,
            steps: Vec::new(),
            dive_brakes: false,
            actions: Vec::new(),
            fire: Vec::new(),
            hold_fire: false,
            dc_priority: None,
        }
    }
}

/// One movement step (SKY-GM-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Forward(Length),
    Pivot(Turn),
    /// Pivot to face a unit or a point, as far as the class allows.
    Toward(Aim),
    Climb(u8),
    Dive(u8),
}

/// What a `TOWARD` pivot faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aim {
    Unit(UnitId),
    Point(Point),
    Bearing(Angle),
}

/// A CMD action and, optionally, the ship that pays for it (SKY-CMD-01).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdOrder {
    pub action: CmdAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<UnitId>,
}

/// The CMD actions table (SKY-CMD-03..09) and the module actions (SKY-MOD-7, SKY-MOD-10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmdAction {
    EmergencyRepairs(Skip),
    Brace,
    /// The weapons (slot labels) that gain +1.
    TargetLock(Vec<String>),
    FullAhead,
    /// The extra pivot at the end of movement.
    HardAround(PivotSpec),
    Rally(UnitId),
    LaunchTorpedo,
    /// A particular wing, or the first still aboard.
    LaunchWing(Option<UnitId>),
    CompressedGas,
}

impl CmdAction {
    /// The named action it is, once per ship per turn (SKY-CMD-02).
    pub fn action_name(&self) -> ActionName {
        match self {
            CmdAction::EmergencyRepairs(_) => ActionName::EmergencyRepairs,
            CmdAction::Brace => ActionName::Brace,
            CmdAction::TargetLock(_) => ActionName::TargetLock,
            CmdAction::FullAhead => ActionName::FullAhead,
            CmdAction::HardAround(_) => ActionName::HardAround,
            CmdAction::Rally(_) => ActionName::Rally,
            CmdAction::LaunchTorpedo => ActionName::LaunchTorpedo,
            CmdAction::LaunchWing(_) => ActionName::LaunchWing,
            CmdAction::CompressedGas => ActionName::CompressedGas,
        }
    }
}

/// What Emergency Repairs gives up (SKY-CMD-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Skip {
    Move,
    Shoot,
}

/// A pivot given as an angle or as something to face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PivotSpec {
    By(Turn),
    Toward(Aim),
}

/// `FIRE <weapons> AT <target>[/<fallback>…]` (SKY-GM-14).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireOrder {
    /// Slot labels of the unit's weapons.
    pub weapons: Vec<String>,
    pub targets: Vec<Target>,
}

/// A target or a fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Unit(UnitId),
    /// The nearest legal target when the weapon fires.
    Nearest,
}

/// What DC successes may buy (SKY-DCR-02, -03, SKY-GM-21, -22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DcChoice {
    Broken,
    OnFire,
    WeaponsDown,
    UtilitiesDown,
    RudderLoss,
    SpeedLoss,
    WeaponJam,
    UtilityFailure,
    CrewCasualties,
    Panic,
    Repair,
}

impl DcChoice {
    /// SKY-GM-22's default order.
    pub const DEFAULT: [DcChoice; 7] = [
        DcChoice::Broken,
        DcChoice::OnFire,
        DcChoice::WeaponsDown,
        DcChoice::RudderLoss,
        DcChoice::SpeedLoss,
        DcChoice::WeaponJam,
        DcChoice::Repair,
    ];

    /// Successes it costs: 2 for Super Critical statuses and Broken, else 1 (SKY-DCR-02, -03).
    pub fn cost(self) -> u32 {
        match self {
            DcChoice::Broken
            | DcChoice::OnFire
            | DcChoice::WeaponsDown
            | DcChoice::UtilitiesDown => 2,
            _ => 1,
        }
    }

    /// The word a `DC PRIORITY` order takes for it.
    pub fn word(self) -> &'static str {
        match self {
            DcChoice::Broken => "BROKEN",
            DcChoice::OnFire => "ONFIRE",
            DcChoice::WeaponsDown => "WEAPONSDOWN",
            DcChoice::UtilitiesDown => "UTILITIESDOWN",
            DcChoice::RudderLoss => "RUDDER",
            DcChoice::SpeedLoss => "SPEED",
            DcChoice::WeaponJam => "JAM",
            DcChoice::UtilityFailure => "UTILITY",
            DcChoice::CrewCasualties => "CREW",
            DcChoice::Panic => "PANIC",
            DcChoice::Repair => "REPAIR",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DcChoice::Broken => "clear Broken",
            DcChoice::OnFire => "clear On Fire",
            DcChoice::WeaponsDown => "clear Weapons Down",
            DcChoice::UtilitiesDown => "clear Utilities Down",
            DcChoice::RudderLoss => "clear Rudder Loss",
            DcChoice::SpeedLoss => "clear Speed Loss",
            DcChoice::WeaponJam => "clear Weapon Jam",
            DcChoice::UtilityFailure => "clear Utility Failure",
            DcChoice::CrewCasualties => "clear Crew Casualties",
            DcChoice::Panic => "clear Panic",
            DcChoice::Repair => "repair",
        }
    }
}

/// A torpedo's program for the Torpedo Step (SKY-GM-16, SKY-TORP-04).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorpedoOrder {
    pub torpedo: UnitId,
    /// One pivot within the torpedo's pivot limit, after this many inches: at least its
    /// Inertia (both from the class table, `Class::Torpedo.stats()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pivot: Option<(Turn, Length)>,
    #[serde(default)]
    pub climb: u8,
    #[serde(default)]
    pub dive: u8,
}

/// A change to the side's standing orders (SKY-GM-15, SKY-GM-17, SKY-GM-25).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StandingChange {
    Brace(UnitId, bool),
    Chaff(UnitId, bool),
    /// `None`: stop using Countermeasures.
    Countermeasures(UnitId, Option<PivotChoice>),
    RerollCrit(BTreeSet<u8>),
    /// Drop every standing reaction (the initiative choice and re-roll set stay).
    Clear,
}
