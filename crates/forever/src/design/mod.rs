//! Ship designs: what a player writes (a [`Design`], in the text format of [`text`]), and what
//! the engine makes of it once checked and priced (a [`Hull`], in [`hull`]).
//!
//! A design is a tree of rectangles: the 2"×1" core and up to a few dozen sections, each with a
//! parent, a size and a position in ship-local inches, optionally a swivel joint to its parent,
//! and weapons and modules mounted on it (FOREVER-CORE-*, FOREVER-SEC-*, FOREVER-SWV-*,
//! FOREVER-WPN-*, FOREVER-MOD-*, FOREVER-GM-04..11).

use std::fmt;

use serde::{Deserialize, Serialize};

pub mod hull;
pub mod text;

pub use hull::{DesignIssue, Hull, ItemSlot, Part};

/// A cost in quarter points: the laser's ×1.75 makes quarters the finest unit a price can
/// have (FOREVER-GM-03, FOREVER-GM-10).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Points(pub i64);

impl Points {
    pub const ZERO: Points = Points(0);

    pub fn whole(points: i64) -> Self {
        Points(points * 4)
    }

    pub fn quarters(self) -> i64 {
        self.0
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0.saturating_add(other.0))
    }
}

impl std::ops::AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        self.0 = self.0.saturating_add(other.0);
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, |a, b| a + b)
    }
}

impl fmt::Display for Points {
    /// `63.5`, `22.5`, `1.75`, `7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let magnitude = self.0.unsigned_abs();
        let (whole, quarters) = (magnitude / 4, magnitude % 4);
        match quarters {
            0 => write!(f, "{sign}{whole}"),
            1 => write!(f, "{sign}{whole}.25"),
            2 => write!(f, "{sign}{whole}.5"),
            _ => write!(f, "{sign}{whole}.75"),
        }
    }
}

/// The weapon types (FOREVER-GM-54).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeaponKind {
    /// ×1 (FOREVER-WPN-GUN-1).
    Gun,
    /// ×1.75 + 0.75 per extra sweep (FOREVER-WPN-LASER-1/3).
    Laser,
    /// ×2 (FOREVER-WPN-MSL-1).
    Missile,
    /// ×1.5 (FOREVER-WPN-RAIL-1).
    Rail,
    /// ×1.5, basic payload (FOREVER-WPN-TORP-1, FOREVER-GM-19).
    Torpedo,
    /// ×3, missile payload with torpedo HP prices (FOREVER-WPN-TORP-6, FOREVER-GM-19).
    TorpedoMissile,
}

impl WeaponKind {
    pub fn keyword(self) -> &'static str {
        match self {
            WeaponKind::Gun => "GUN",
            WeaponKind::Laser => "LASER",
            WeaponKind::Missile => "MISSILE",
            WeaponKind::Rail => "RAIL",
            WeaponKind::Torpedo => "TORPEDO",
            WeaponKind::TorpedoMissile => "TORPEDO-MISSILE",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            WeaponKind::Gun => "gun",
            WeaponKind::Laser => "laser",
            WeaponKind::Missile => "missile",
            WeaponKind::Rail => "rail gun",
            WeaponKind::Torpedo => "torpedo",
            WeaponKind::TorpedoMissile => "torpedo-missile",
        }
    }

    /// Does it carry hit points that a defensive gunner can shoot away (FOREVER-WPN-MSL-2,
    /// FOREVER-WPN-TORP-2)?
    pub fn has_hp(self) -> bool {
        matches!(
            self,
            WeaponKind::Missile | WeaponKind::Torpedo | WeaponKind::TorpedoMissile
        )
    }

    pub fn is_torpedo(self) -> bool {
        matches!(self, WeaponKind::Torpedo | WeaponKind::TorpedoMissile)
    }

    pub fn explodes(self) -> bool {
        matches!(self, WeaponKind::Missile | WeaponKind::TorpedoMissile)
    }
}

/// A weapon: its type and the upgrades bought, in whole steps (FOREVER-WPN-2..8, FOREVER-GM-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WeaponSpec {
    pub kind: WeaponKind,
    /// +6" each (FOREVER-WPN-4).
    #[serde(default)]
    pub range_steps: u32,
    /// +1 damage each (FOREVER-WPN-6).
    #[serde(default)]
    pub damage_steps: u32,
    /// +5 accuracy each (FOREVER-WPN-8).
    #[serde(default)]
    pub accuracy_steps: u32,
    /// Lasers: +1 sweep each (FOREVER-WPN-LASER-3).
    #[serde(default)]
    pub sweep_steps: u32,
    /// Missiles and torpedoes: +1 HP each (FOREVER-WPN-MSL-3, FOREVER-WPN-TORP-3).
    #[serde(default)]
    pub hp_steps: u32,
}

impl WeaponSpec {
    pub fn basic(kind: WeaponKind) -> Self {
        WeaponSpec {
            kind,
            range_steps: 0,
            damage_steps: 0,
            accuracy_steps: 0,
            sweep_steps: 0,
            hp_steps: 0,
        }
    }

    /// Range in hundredths: 12" + 6" a step (FOREVER-WPN-3/4).
    pub fn range(&self) -> i64 {
        (12 + 6 * i64::from(self.range_steps)) * 100
    }

    /// Damage: 1 + 1 a step (FOREVER-WPN-5/6).
    pub fn damage(&self) -> i64 {
        1 + i64::from(self.damage_steps)
    }

    /// Accuracy in inches: 10 + 5 a step (FOREVER-WPN-7/8).
    pub fn accuracy(&self) -> i64 {
        10 + 5 * i64::from(self.accuracy_steps)
    }

    /// Laser sweep: 1 + 1 a step (FOREVER-WPN-LASER-2).
    pub fn sweep(&self) -> i64 {
        1 + i64::from(self.sweep_steps)
    }

    /// Missile or torpedo HP: 1 + 1 a step (FOREVER-WPN-MSL-2, FOREVER-WPN-TORP-2).
    pub fn hp(&self) -> i64 {
        1 + i64::from(self.hp_steps)
    }

    /// The cost before the type modifier, in whole points (FOREVER-WPN-2..8, FOREVER-GM-10).
    pub fn base_cost(&self) -> i64 {
        let hp_price = match self.kind {
            WeaponKind::Missile => 1,
            WeaponKind::Torpedo | WeaponKind::TorpedoMissile => 2,
            _ => 0,
        };
        1 + i64::from(self.range_steps)
            + 2 * i64::from(self.damage_steps)
            + i64::from(self.accuracy_steps)
            + hp_price * i64::from(self.hp_steps)
    }

    /// The type modifier in quarters (FOREVER-WPN-9 and the per-type modifiers).
    pub fn modifier_quarters(&self) -> i64 {
        match self.kind {
            WeaponKind::Gun => 4,
            WeaponKind::Laser => 7 + 3 * i64::from(self.sweep_steps),
            WeaponKind::Missile => 8,
            WeaponKind::Rail | WeaponKind::Torpedo => 6,
            WeaponKind::TorpedoMissile => 12,
        }
    }

    /// The final cost (FOREVER-WPN-9, FOREVER-GM-10).
    pub fn cost(&self) -> Points {
        Points(self.base_cost() * self.modifier_quarters())
    }

    /// Same type and stats: may fire together as a battery (FOREVER-BAT-1, FOREVER-GM-38).
    pub fn same_stats(&self, other: &WeaponSpec) -> bool {
        self == other
    }

    /// `range 18, damage 4, accuracy 15`: the stats in plain words.
    pub fn describe(&self) -> String {
        let mut parts = vec![
            format!("range {}", self.range() / 100),
            format!("damage {}", self.damage()),
            format!("accuracy {}", self.accuracy()),
        ];
        if self.kind == WeaponKind::Laser {
            parts.push(format!("sweep {}", self.sweep()));
        }
        if self.kind.has_hp() {
            parts.push(format!("HP {}", self.hp()));
        }
        format!("{} ({})", self.kind.word(), parts.join(", "))
    }
}

/// The modules (FOREVER-GM-54), each with the upgrades bought.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "module")]
pub enum ModuleSpec {
    /// Cost 3 (FOREVER-MOD-TOW-1).
    TowHitch,
    /// Cost 5 + 1 per 2 extra thrust; thrust 10 (FOREVER-MOD-THR-1/3/4).
    Thruster {
        #[serde(default)]
        thrust_steps: u32,
    },
    /// Cost 20, +15 for recharge on 1–4, +15 for two uses (FOREVER-MOD-DEF-1/5/6).
    Deflector {
        #[serde(default)]
        fast_recharge: bool,
        #[serde(default)]
        double: bool,
    },
    /// Cost 1 + 1 per extra shot (FOREVER-MOD-DGN-1/5).
    DefensiveGunner {
        #[serde(default)]
        extra_shots: u32,
    },
    /// Cost 5, +1 per 6" range, +1 per 5 accuracy, +20 for recharge 1–4 (FOREVER-MOD-EMP-*).
    Emp {
        #[serde(default)]
        range_steps: u32,
        #[serde(default)]
        accuracy_steps: u32,
        #[serde(default)]
        fast_recharge: bool,
    },
    /// Cost 20, +1 per energy, +10 per recharge die (FOREVER-MOD-FLUX-*).
    FluxProjector {
        #[serde(default)]
        extra_energy: u32,
        #[serde(default)]
        extra_dice: u32,
    },
    /// Cost 1 + 2 per extra demeter (FOREVER-MOD-DCU-*).
    DemeterControl {
        #[serde(default)]
        extra_control: u32,
    },
    /// Cost 2, +1 per 3" speed, +1 per HP, +2 per round (FOREVER-MOD-DL-*).
    DemeterLauncher {
        #[serde(default)]
        speed_steps: u32,
        #[serde(default)]
        extra_hp: u32,
        #[serde(default)]
        extra_rounds: u32,
    },
    /// Cost 10 (FOREVER-MOD-TC-1).
    TargetingComputer,
    /// Cost 25, +1 per inch, +3 per energy, +10 per recharge die (FOREVER-MOD-NANO-*).
    NanoMatrix {
        #[serde(default)]
        extra_range: u32,
        #[serde(default)]
        extra_energy: u32,
        #[serde(default)]
        extra_dice: u32,
    },
}

impl ModuleSpec {
    /// The price: module prices add up and take no modifier (FOREVER-GM-10).
    pub fn cost(&self) -> Points {
        let whole = match *self {
            ModuleSpec::TowHitch => 3,
            ModuleSpec::Thruster { thrust_steps } => 5 + i64::from(thrust_steps),
            ModuleSpec::Deflector {
                fast_recharge,
                double,
            } => 20 + 15 * i64::from(fast_recharge) + 15 * i64::from(double),
            ModuleSpec::DefensiveGunner { extra_shots } => 1 + i64::from(extra_shots),
            ModuleSpec::Emp {
                range_steps,
                accuracy_steps,
                fast_recharge,
            } => {
                5 + i64::from(range_steps)
                    + i64::from(accuracy_steps)
                    + 20 * i64::from(fast_recharge)
            }
            ModuleSpec::FluxProjector {
                extra_energy,
                extra_dice,
            } => 20 + i64::from(extra_energy) + 10 * i64::from(extra_dice),
            ModuleSpec::DemeterControl { extra_control } => 1 + 2 * i64::from(extra_control),
            ModuleSpec::DemeterLauncher {
                speed_steps,
                extra_hp,
                extra_rounds,
            } => 2 + i64::from(speed_steps) + i64::from(extra_hp) + 2 * i64::from(extra_rounds),
            ModuleSpec::TargetingComputer => 10,
            ModuleSpec::NanoMatrix {
                extra_range,
                extra_energy,
                extra_dice,
            } => {
                25 + i64::from(extra_range)
                    + 3 * i64::from(extra_energy)
                    + 10 * i64::from(extra_dice)
            }
        };
        Points::whole(whole)
    }

    pub fn keyword(&self) -> &'static str {
        match self {
            ModuleSpec::TowHitch => "TOW",
            ModuleSpec::Thruster { .. } => "THRUSTER",
            ModuleSpec::Deflector { .. } => "DEFLECTOR",
            ModuleSpec::DefensiveGunner { .. } => "GUNNER",
            ModuleSpec::Emp { .. } => "EMP",
            ModuleSpec::FluxProjector { .. } => "FLUX",
            ModuleSpec::DemeterControl { .. } => "CONTROL",
            ModuleSpec::DemeterLauncher { .. } => "LAUNCHER",
            ModuleSpec::TargetingComputer => "COMPUTER",
            ModuleSpec::NanoMatrix { .. } => "NANO",
        }
    }

    pub fn word(&self) -> &'static str {
        match self {
            ModuleSpec::TowHitch => "tow hitch",
            ModuleSpec::Thruster { .. } => "thruster",
            ModuleSpec::Deflector { .. } => "deflector",
            ModuleSpec::DefensiveGunner { .. } => "defensive gunner",
            ModuleSpec::Emp { .. } => "EMP",
            ModuleSpec::FluxProjector { .. } => "flux projector",
            ModuleSpec::DemeterControl { .. } => "demeter control unit",
            ModuleSpec::DemeterLauncher { .. } => "demeter launcher",
            ModuleSpec::TargetingComputer => "targeting computer",
            ModuleSpec::NanoMatrix { .. } => "nano matrix",
        }
    }

    /// Thrust: 10 + 2 a step (FOREVER-MOD-THR-3/4); zero for anything else.
    pub fn thrust(&self) -> i64 {
        match self {
            ModuleSpec::Thruster { thrust_steps } => 10 + 2 * i64::from(*thrust_steps),
            _ => 0,
        }
    }

    /// Recharge faces: a D6 at most this recharges it (FOREVER-DEF-RECHARGE).
    pub fn recharge_on(&self) -> Option<u32> {
        match self {
            ModuleSpec::Deflector { fast_recharge, .. } | ModuleSpec::Emp { fast_recharge, .. } => {
                Some(if *fast_recharge { 4 } else { 2 })
            }
            ModuleSpec::TargetingComputer => Some(2),
            _ => None,
        }
    }

    /// Uses before a recharge is needed: 2 for a deflector with the duration upgrade.
    pub fn charges(&self) -> u32 {
        match self {
            ModuleSpec::Deflector { double: true, .. } => 2,
            _ => 1,
        }
    }

    /// Energy pool and recharge dice (FOREVER-DEF-ENERGY): flux 8 + bought, nano 6 + bought.
    pub fn energy(&self) -> Option<(i64, u32)> {
        match self {
            ModuleSpec::FluxProjector {
                extra_energy,
                extra_dice,
            } => Some((8 + i64::from(*extra_energy), 1 + extra_dice)),
            ModuleSpec::NanoMatrix {
                extra_energy,
                extra_dice,
                ..
            } => Some((6 + i64::from(*extra_energy), 1 + extra_dice)),
            _ => None,
        }
    }
}

/// A weapon or a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Item {
    Weapon(WeaponSpec),
    Module(ModuleSpec),
}

impl Item {
    pub fn cost(&self) -> Points {
        match self {
            Item::Weapon(weapon) => weapon.cost(),
            Item::Module(module) => module.cost(),
        }
    }

    pub fn word(&self) -> String {
        match self {
            Item::Weapon(weapon) => weapon.kind.word().to_string(),
            Item::Module(module) => module.word().to_string(),
        }
    }
}

/// One weapon or module on a section, with an optional name for orders.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Mount {
    pub item: Item,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The core as written: bought HP and what it holds (FOREVER-CORE-*).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CoreSpec {
    #[serde(default)]
    pub extra_hp: u32,
    #[serde(default)]
    pub mounts: Vec<Mount>,
    /// The size written on the CORE line, if any (it must be 2x1, FOREVER-CORE-5), in
    /// thousandths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<(i64, i64)>,
}

/// A section as written. Lengths are in thousandths of an inch, so that a ¾" section can be
/// centred at 1.375".
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SectionSpec {
    pub name: String,
    /// The parent's name, or `CORE`.
    pub parent: String,
    /// Width and height along local x and y before `rot`, in thousandths.
    pub size: (i64, i64),
    /// The centre in ship-local thousandths (the core spans x -1..1, y -0.5..0.5).
    pub at: (i64, i64),
    /// 0, 90, 180 or 270 (FOREVER-GM-04).
    #[serde(default)]
    pub rot: i64,
    #[serde(default)]
    pub extra_hp: u32,
    /// A swivel joint between this section and its parent (FOREVER-SWV-2).
    #[serde(default)]
    pub swivel: bool,
    #[serde(default)]
    pub mounts: Vec<Mount>,
}

impl SectionSpec {
    /// Width and height after the rotation, in thousandths.
    pub fn extent(&self) -> (i64, i64) {
        if self.rot.rem_euclid(180) == 90 {
            (self.size.1, self.size.0)
        } else {
            self.size
        }
    }
}

/// A ship design as its player wrote it. Stored and shown as its text (see [`text`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Design {
    pub name: String,
    pub core: CoreSpec,
    pub sections: Vec<SectionSpec>,
}

impl Serialize for Design {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_text())
    }
}

impl<'de> Deserialize<'de> for Design {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = DesignText::deserialize(deserializer)?.joined();
        Design::parse(&text).map_err(|issues| {
            let messages: Vec<String> = issues.iter().map(ToString::to_string).collect();
            serde::de::Error::custom(messages.join("; "))
        })
    }
}

/// A design's text in JSON: one string, or a list of lines (easier to write by hand).
#[derive(Deserialize)]
#[serde(untagged)]
enum DesignText {
    One(String),
    Lines(Vec<String>),
}

impl DesignText {
    fn joined(self) -> String {
        match self {
            DesignText::One(text) => text,
            DesignText::Lines(lines) => lines.join("\n"),
        }
    }
}
