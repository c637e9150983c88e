//! The text's tables as data: the five stat blocks and the torpedo, movement by class, the
//! four weapon tables, the modules, and the Critical and Super Critical tables.

use serde::{Deserialize, Serialize};

use crate::geometry::{Length, Turn};

/// A unit's class: the stat block it uses. The text lost the class names; these are the
/// catalogue's placeholders (SKY-GM-02), plus the torpedo token (SKY-TORP-01).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// SKY-STAT-A.
    Wing,
    /// SKY-STAT-B.
    Escort,
    /// SKY-STAT-C.
    Gunship,
    /// SKY-STAT-D.
    Command,
    /// SKY-STAT-E.
    Capital,
    /// SKY-TORP-01..03.
    Torpedo,
}

/// The size keyword, which sets movement (SKY-CLASS-01) and which weapon table fills a slot
/// (SKY-GM-04). "Heavy" in the movement table is the Large size (SKY-GM-29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Size {
    Ultralight,
    Light,
    Medium,
    Large,
}

/// Where a weapon slot sits, which sets its arc (SKY-ARC-01, SKY-GM-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mount {
    Forward,
    Port,
    Starboard,
    Aft,
    /// The Escort's turreted light slot: counts as Forward, fires 360° unless the weapon is
    /// Fixed (SKY-STAT-B, SKY-GM-10).
    Turret,
    /// A wing's hardpoint: fires all round, the wing turning freely (SKY-ADM-03).
    Hardpoint,
}

impl Mount {
    pub fn counts_as_forward(self) -> bool {
        matches!(self, Mount::Forward | Mount::Turret)
    }
}

/// One weapon slot of a stat block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotSpec {
    /// The name orders and setups use: `fwd`, `port1`, `turret`, `w2`.
    pub label: &'static str,
    pub mount: Mount,
    pub size: Size,
}

const fn slot(label: &'static str, mount: Mount, size: Size) -> SlotSpec {
    SlotSpec { label, mount, size }
}

/// A stat block (SKY-STAT-A..E, SKY-TORP-01..03) with movement from SKY-CLASS-01.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub hull: i32,
    /// Hit on this or more (`None` for the torpedo, which never shoots).
    pub skill: u8,
    pub morale: u8,
    pub cmd: u8,
    pub dc: u8,
    pub size: Option<Size>,
    /// Movement per activation (SKY-CLASS-01).
    pub movement: Length,
    /// The largest single pivot (SKY-CLASS-01).
    pub pivot: Turn,
    /// Lift(x): inches per elevation gained (SKY-KW-LIFT).
    pub lift: Option<i64>,
    /// Drop(x): inches gained per elevation lost (SKY-KW-LIFT).
    pub drop: Option<i64>,
    /// Stall(x) (SKY-KW-STALL).
    pub stall: Option<u8>,
    /// Inertia(x) in inches (SKY-KW-INERTIA).
    pub inertia: Length,
    pub fragile: bool,
    pub evasive: bool,
    pub weapon_slots: &'static [SlotSpec],
    pub utility_slots: u8,
    /// Default base diameter (SKY-GM-09).
    pub base_diameter: Length,
}

const WING_SLOTS: [SlotSpec; 3] = [
    slot("w1", Mount::Hardpoint, Size::Ultralight),
    slot("w2", Mount::Hardpoint, Size::Ultralight),
    slot("w3", Mount::Hardpoint, Size::Ultralight),
];
const ESCORT_SLOTS: [SlotSpec; 1] = [slot("turret", Mount::Turret, Size::Light)];
const GUNSHIP_SLOTS: [SlotSpec; 3] = [
    slot("fwd", Mount::Forward, Size::Medium),
    slot("port", Mount::Port, Size::Medium),
    slot("stbd", Mount::Starboard, Size::Medium),
];
const COMMAND_SLOTS: [SlotSpec; 2] = [
    slot("fwd", Mount::Forward, Size::Medium),
    slot("aft", Mount::Aft, Size::Medium),
];
const CAPITAL_SLOTS: [SlotSpec; 6] = [
    slot("fwd", Mount::Forward, Size::Large),
    slot("port1", Mount::Port, Size::Large),
    slot("port2", Mount::Port, Size::Large),
    slot("stbd1", Mount::Starboard, Size::Large),
    slot("stbd2", Mount::Starboard, Size::Large),
    slot("aft", Mount::Aft, Size::Large),
];

impl Class {
    pub const ALL: [Class; 6] = [
        Class::Wing,
        Class::Escort,
        Class::Gunship,
        Class::Command,
        Class::Capital,
        Class::Torpedo,
    ];

    /// The stat block.
    pub fn stats(self) -> Stats {
        match self {
            // SKY-STAT-A: Ultralight, Inertia 0, Fragile, Evasive; no DC; three UL weapons.
            Class::Wing => Stats {
                hull: 10,
                skill: 3,
                morale: 6,
                cmd: 0,
                dc: 0,
                size: Some(Size::Ultralight),
                movement: Length::inches(15),
                pivot: Turn::degrees(360),
                lift: None,
                drop: None,
                stall: None,
                inertia: Length::ZERO,
                fragile: true,
                evasive: true,
                weapon_slots: &WING_SLOTS,
                utility_slots: 0,
                base_diameter: Length::inches(1),
            },
            // SKY-STAT-B.
            Class::Escort => Stats {
                hull: 15,
                skill: 3,
                morale: 5,
                cmd: 1,
                dc: 1,
                size: Some(Size::Light),
                movement: Length::inches(10),
                pivot: Turn::degrees(90),
                lift: Some(2),
                drop: Some(1),
                stall: Some(9),
                inertia: Length::inches(2),
                fragile: false,
                evasive: false,
                weapon_slots: &ESCORT_SLOTS,
                utility_slots: 1,
                base_diameter: Length(150),
            },
            // SKY-STAT-C.
            Class::Gunship => Stats {
                hull: 35,
                skill: 4,
                morale: 6,
                cmd: 2,
                dc: 2,
                size: Some(Size::Medium),
                movement: Length::inches(7),
                pivot: Turn::degrees(45),
                lift: Some(3),
                drop: Some(1),
                stall: Some(8),
                inertia: Length::inches(3),
                fragile: false,
                evasive: false,
                weapon_slots: &GUNSHIP_SLOTS,
                utility_slots: 2,
                base_diameter: Length::inches(2),
            },
            // SKY-STAT-D.
            Class::Command => Stats {
                hull: 55,
                skill: 4,
                morale: 7,
                cmd: 4,
                dc: 3,
                size: Some(Size::Medium),
                movement: Length::inches(7),
                pivot: Turn::degrees(45),
                lift: Some(3),
                drop: Some(1),
                stall: Some(7),
                inertia: Length::inches(4),
                fragile: false,
                evasive: false,
                weapon_slots: &COMMAND_SLOTS,
                utility_slots: 4,
                base_diameter: Length::inches(2),
            },
            // SKY-STAT-E; "Heavy" movement is the Large class (SKY-GM-29).
            Class::Capital => Stats {
                hull: 80,
                skill: 3,
                morale: 8,
                cmd: 5,
                dc: 4,
                size: Some(Size::Large),
                movement: Length::inches(5),
                pivot: Turn(45),
                lift: Some(4),
                drop: Some(1),
                stall: Some(6),
                inertia: Length::inches(4),
                fragile: false,
                evasive: false,
                weapon_slots: &CAPITAL_SLOTS,
                utility_slots: 3,
                base_diameter: Length::inches(3),
            },
            // SKY-TORP-01..03: 12", 22.5°, Hull 4, Lift(1), Drop(1), Inertia(5), Fragile,
            // Evasive.
            Class::Torpedo => Stats {
                hull: 4,
                skill: 6,
                morale: 0,
                cmd: 0,
                dc: 0,
                size: None,
                movement: Length::inches(12),
                pivot: Turn(45),
                lift: Some(1),
                drop: Some(1),
                stall: None,
                inertia: Length::inches(5),
                fragile: true,
                evasive: true,
                weapon_slots: &[],
                utility_slots: 0,
                base_diameter: Length(50),
            },
        }
    }

    /// The display name, a GM placeholder (SKY-GM-02).
    pub fn display(self) -> &'static str {
        match self {
            Class::Wing => "Wing",
            Class::Escort => "Escort",
            Class::Gunship => "Gunship",
            Class::Command => "Command Ship",
            Class::Capital => "Capital Ship",
            Class::Torpedo => "Torpedo",
        }
    }

    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            Class::Wing => "wing",
            Class::Escort => "escort",
            Class::Gunship => "gunship",
            Class::Command => "command",
            Class::Capital => "capital",
            Class::Torpedo => "torpedo",
        }
    }

    pub fn is_ship(self) -> bool {
        matches!(
            self,
            Class::Escort | Class::Gunship | Class::Command | Class::Capital
        )
    }

    /// Ultralight units: wings (SKY-STAT-A).
    pub fn is_ultralight(self) -> bool {
        self == Class::Wing
    }

    /// Parses a class key or display name, case-insensitively.
    pub fn parse(text: &str) -> Option<Class> {
        let key = squash(text);
        Class::ALL.into_iter().find(|class| {
            squash(class.key()) == key
                || squash(class.display()) == key
                || (key == "commandship" && *class == Class::Command)
                || (key == "capitalship" && *class == Class::Capital)
        })
    }

    /// The weapon slot of this class with the given label.
    pub fn slot(self, label: &str) -> Option<SlotSpec> {
        let label = squash(label);
        let slots = self.stats().weapon_slots;
        slots
            .iter()
            .find(|s| s.label == label)
            .or_else(|| {
                // "port" on a Capital means port1, and so on; "forward"/"front" mean fwd.
                let alias = match label.as_str() {
                    "forward" | "front" | "bow" => "fwd",
                    "starboard" => "stbd",
                    "stern" | "rear" => "aft",
                    other => other,
                };
                slots
                    .iter()
                    .find(|s| s.label == alias || s.label.strip_suffix('1') == Some(alias))
            })
            .copied()
    }
}

/// Lower-case letters and digits only: how names are compared.
pub fn squash(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The weapons of the four tables (SKY-WPN-UL-1..XL-5, sizes per SKY-GM-04).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeaponKind {
    MachineGuns,
    Bombs,
    Rockets,
    Flak,
    Lance,
    Cannon,
    Missile,
    FlakCannon,
    HeavyLance,
    NavalBattery,
    HeavyMissile,
    /// In both the Medium and the Large table, with the same stats (SKY-WPN-M-5, SKY-WPN-XL-5).
    TorpedoLauncher,
    MegaFlakArray,
    SiegeLance,
    DreadnoughtBattery,
    SiegeMissileRack,
}

/// One row of a weapon table with its keywords (SKY-WPN-00, SKY-GM-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeaponStats {
    pub name: &'static str,
    /// The tables it appears in.
    pub sizes: &'static [Size],
    /// `None`: unlimited (the Torpedo Launcher).
    pub range: Option<Length>,
    /// A flat number of hit dice (SKY-WPN-00).
    pub dice: u8,
    pub cost: u32,
    /// Flak: ignores Evasive and height (SKY-KW-EVASIVE, SKY-HGT-02).
    pub flak: bool,
    /// Piercing(x) (SKY-KW-PIERCING).
    pub piercing: i32,
    /// Fixed: fires only into its slot's arc (SKY-GM-10).
    pub fixed: bool,
    /// Forward: only in a Forward slot (SKY-GM-10).
    pub forward_only: bool,
    /// Level: only targets within the level tolerance (SKY-GM-10).
    pub level: bool,
    /// Battery: 1s on the hit roll re-rolled once (SKY-KW-BATTERY).
    pub battery: bool,
    /// Impact: two damage dice per hit, keep the higher (SKY-KW-IMPACT).
    pub impact: bool,
    /// VLS: fires 360° (SKY-KW-VLS).
    pub vls: bool,
    /// Turreted: fires 360° unless Fixed (SKY-GM-10).
    pub turreted: bool,
    /// Torpedo: never a normal attack; used by Launch Torpedo (SKY-GM-10, SKY-CMD-09).
    pub torpedo: bool,
    /// "No vs Ultralights" / "Cannot target Ultralights".
    pub no_ultralights: bool,
    /// The lowest natural damage die that is a Critical (`None`: cannot Crit).
    pub critical_from: Option<u32>,
    /// Rockets cannot Flyover (SKY-WPN-UL-3).
    pub no_flyover: bool,
    /// Missile, Heavy Missile and Siege Missile Rack: what Chaff answers (SKY-GM-17).
    pub missile: bool,
}

const UL: &[Size] = &[Size::Ultralight];
const LIGHT: &[Size] = &[Size::Light];
const MEDIUM: &[Size] = &[Size::Medium];
const LARGE: &[Size] = &[Size::Large];
const MEDIUM_OR_LARGE: &[Size] = &[Size::Medium, Size::Large];

const PLAIN: WeaponStats = WeaponStats {
    name: "",
    sizes: UL,
    range: None,
    dice: 1,
    cost: 0,
    flak: false,
    piercing: 0,
    fixed: false,
    forward_only: false,
    level: false,
    battery: false,
    impact: false,
    vls: false,
    turreted: false,
    torpedo: false,
    no_ultralights: false,
    critical_from: Some(6),
    no_flyover: false,
    missile: false,
};

impl WeaponKind {
    pub const ALL: [WeaponKind; 16] = [
        WeaponKind::MachineGuns,
        WeaponKind::Bombs,
        WeaponKind::Rockets,
        WeaponKind::Flak,
        WeaponKind::Lance,
        WeaponKind::Cannon,
        WeaponKind::Missile,
        WeaponKind::FlakCannon,
        WeaponKind::HeavyLance,
        WeaponKind::NavalBattery,
        WeaponKind::HeavyMissile,
        WeaponKind::TorpedoLauncher,
        WeaponKind::MegaFlakArray,
        WeaponKind::SiegeLance,
        WeaponKind::DreadnoughtBattery,
        WeaponKind::SiegeMissileRack,
    ];

    pub fn stats(self) -> WeaponStats {
        let inches = |n| Some(Length::inches(n));
        match self {
            // SKY-WPN-UL-1: cannot Crit; a natural 6 just does 6.
            WeaponKind::MachineGuns => WeaponStats {
                name: "Machine Guns",
                range: inches(6),
                cost: 5,
                critical_from: None,
                ..PLAIN
            },
            // SKY-WPN-UL-2: not vs Ultralights; Critical on a natural 5+.
            WeaponKind::Bombs => WeaponStats {
                name: "Bombs",
                range: inches(1),
                cost: 10,
                no_ultralights: true,
                critical_from: Some(5),
                ..PLAIN
            },
            // SKY-WPN-UL-3: cannot Flyover.
            WeaponKind::Rockets => WeaponStats {
                name: "Rockets",
                range: inches(3),
                dice: 2,
                cost: 15,
                no_flyover: true,
                ..PLAIN
            },
            // SKY-WPN-L-1.
            WeaponKind::Flak => WeaponStats {
                name: "Flak",
                sizes: LIGHT,
                range: inches(8),
                dice: 3,
                cost: 10,
                flak: true,
                ..PLAIN
            },
            // SKY-WPN-L-2.
            WeaponKind::Lance => WeaponStats {
                name: "Lance",
                sizes: LIGHT,
                range: inches(15),
                cost: 15,
                piercing: 1,
                fixed: true,
                forward_only: true,
                ..PLAIN
            },
            // SKY-WPN-L-3.
            WeaponKind::Cannon => WeaponStats {
                name: "Cannon",
                sizes: LIGHT,
                range: inches(12),
                dice: 2,
                cost: 10,
                level: true,
                battery: true,
                ..PLAIN
            },
            // SKY-WPN-L-4.
            WeaponKind::Missile => WeaponStats {
                name: "Missile",
                sizes: LIGHT,
                range: inches(20),
                cost: 15,
                fixed: true,
                forward_only: true,
                impact: true,
                no_ultralights: true,
                missile: true,
                ..PLAIN
            },
            // SKY-WPN-M-1.
            WeaponKind::FlakCannon => WeaponStats {
                name: "Flak Cannon",
                sizes: MEDIUM,
                range: inches(12),
                dice: 5,
                cost: 25,
                flak: true,
                turreted: true,
                ..PLAIN
            },
            // SKY-WPN-M-2.
            WeaponKind::HeavyLance => WeaponStats {
                name: "Heavy Lance",
                sizes: MEDIUM,
                range: inches(22),
                dice: 2,
                cost: 35,
                piercing: 3,
                fixed: true,
                forward_only: true,
                ..PLAIN
            },
            // SKY-WPN-M-3.
            WeaponKind::NavalBattery => WeaponStats {
                name: "Naval Battery",
                sizes: MEDIUM,
                range: inches(18),
                dice: 4,
                cost: 25,
                level: true,
                battery: true,
                ..PLAIN
            },
            // SKY-WPN-M-4; may target wings unless the GM harmonises missiles (SKY-GM-28).
            WeaponKind::HeavyMissile => WeaponStats {
                name: "Heavy Missile",
                sizes: MEDIUM,
                range: inches(28),
                dice: 2,
                cost: 35,
                impact: true,
                fixed: true,
                forward_only: true,
                missile: true,
                ..PLAIN
            },
            // SKY-WPN-M-5 and SKY-WPN-XL-5.
            WeaponKind::TorpedoLauncher => WeaponStats {
                name: "Torpedo Launcher",
                sizes: MEDIUM_OR_LARGE,
                range: None,
                cost: 60,
                fixed: true,
                forward_only: true,
                torpedo: true,
                no_ultralights: true,
                ..PLAIN
            },
            // SKY-WPN-XL-1.
            WeaponKind::MegaFlakArray => WeaponStats {
                name: "Mega-Flak Array",
                sizes: LARGE,
                range: inches(15),
                dice: 8,
                cost: 45,
                flak: true,
                turreted: true,
                ..PLAIN
            },
            // SKY-WPN-XL-2.
            WeaponKind::SiegeLance => WeaponStats {
                name: "Siege Lance",
                sizes: LARGE,
                range: inches(30),
                dice: 3,
                cost: 60,
                piercing: 5,
                fixed: true,
                forward_only: true,
                ..PLAIN
            },
            // SKY-WPN-XL-3.
            WeaponKind::DreadnoughtBattery => WeaponStats {
                name: "Dreadnought Battery",
                sizes: LARGE,
                range: inches(24),
                dice: 6,
                cost: 50,
                level: true,
                battery: true,
                ..PLAIN
            },
            // SKY-WPN-XL-4: Fixed but VLS, so 360° (SKY-GM-10).
            WeaponKind::SiegeMissileRack => WeaponStats {
                name: "Siege Missile Rack",
                sizes: LARGE,
                range: inches(36),
                dice: 2,
                cost: 60,
                impact: true,
                fixed: true,
                vls: true,
                no_ultralights: true,
                missile: true,
                ..PLAIN
            },
        }
    }

    pub fn name(self) -> &'static str {
        self.stats().name
    }

    /// Parses a weapon's name or key, case- and punctuation-insensitively.
    pub fn parse(text: &str) -> Option<WeaponKind> {
        let key = squash(text);
        let aliases: &[(&str, WeaponKind)] = &[
            ("mg", WeaponKind::MachineGuns),
            ("mgs", WeaponKind::MachineGuns),
            ("machinegun", WeaponKind::MachineGuns),
            ("bomb", WeaponKind::Bombs),
            ("rocket", WeaponKind::Rockets),
            ("missiles", WeaponKind::Missile),
            ("cannons", WeaponKind::Cannon),
            ("megaflak", WeaponKind::MegaFlakArray),
            ("torpedo", WeaponKind::TorpedoLauncher),
            ("torpedolaunchers", WeaponKind::TorpedoLauncher),
            ("siegemissile", WeaponKind::SiegeMissileRack),
            ("siegemissiles", WeaponKind::SiegeMissileRack),
        ];
        WeaponKind::ALL
            .into_iter()
            .find(|w| squash(w.name()) == key)
            .or_else(|| {
                aliases
                    .iter()
                    .find(|(alias, _)| *alias == key)
                    .map(|(_, w)| *w)
            })
    }

    /// Whether the weapon may target an Ultralight (SKY-WPN-UL-2, -L-4, -M-5, -XL-4; SKY-GM-28's
    /// switch adds the Heavy Missile).
    pub fn may_target_ultralights(self, harmonise_missiles: bool) -> bool {
        let stats = self.stats();
        !(stats.no_ultralights || (harmonise_missiles && self == WeaponKind::HeavyMissile))
    }
}

/// The modules (utilities) (SKY-MOD-1..10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    ChaffLauncher,
    AcousticDecoys,
    DcCenter,
    SignalArray,
    ArmoredBridge,
    ReinforcedBulkheads,
    CompressedGas,
    DiveBrakes,
    Sonar,
    Hangar,
}

impl ModuleKind {
    pub const ALL: [ModuleKind; 10] = [
        ModuleKind::ChaffLauncher,
        ModuleKind::AcousticDecoys,
        ModuleKind::DcCenter,
        ModuleKind::SignalArray,
        ModuleKind::ArmoredBridge,
        ModuleKind::ReinforcedBulkheads,
        ModuleKind::CompressedGas,
        ModuleKind::DiveBrakes,
        ModuleKind::Sonar,
        ModuleKind::Hangar,
    ];

    /// Points (SKY-MOD-1..10).
    pub fn cost(self) -> u32 {
        match self {
            ModuleKind::ChaffLauncher => 10,
            ModuleKind::AcousticDecoys => 15,
            ModuleKind::DcCenter => 20,
            ModuleKind::SignalArray => 10,
            ModuleKind::ArmoredBridge => 15,
            ModuleKind::ReinforcedBulkheads => 15,
            ModuleKind::CompressedGas => 10,
            ModuleKind::DiveBrakes => 10,
            ModuleKind::Sonar => 15,
            ModuleKind::Hangar => 10,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ModuleKind::ChaffLauncher => "Chaff Launcher",
            ModuleKind::AcousticDecoys => "Acoustic Decoys",
            ModuleKind::DcCenter => "DC Center",
            ModuleKind::SignalArray => "Signal Array",
            ModuleKind::ArmoredBridge => "Armored Bridge",
            ModuleKind::ReinforcedBulkheads => "Reinforced Bulkheads",
            ModuleKind::CompressedGas => "Compressed Gas",
            ModuleKind::DiveBrakes => "Dive Brakes",
            ModuleKind::Sonar => "Sonar",
            ModuleKind::Hangar => "Hangar",
        }
    }

    pub fn parse(text: &str) -> Option<ModuleKind> {
        let key = squash(text);
        let aliases: &[(&str, ModuleKind)] = &[
            ("chaff", ModuleKind::ChaffLauncher),
            ("decoys", ModuleKind::AcousticDecoys),
            ("dccentre", ModuleKind::DcCenter),
            ("damagecontrolcenter", ModuleKind::DcCenter),
            ("signal", ModuleKind::SignalArray),
            ("armouredbridge", ModuleKind::ArmoredBridge),
            ("bulkheads", ModuleKind::ReinforcedBulkheads),
            ("gas", ModuleKind::CompressedGas),
            ("divebrake", ModuleKind::DiveBrakes),
        ];
        ModuleKind::ALL
            .into_iter()
            .find(|m| squash(m.name()) == key)
            .or_else(|| {
                aliases
                    .iter()
                    .find(|(alias, _)| *alias == key)
                    .map(|(_, m)| *m)
            })
    }
}

/// The Critical Table (1d8) (SKY-CRIT-1..8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Critical {
    FlashFire,
    WeaponJam,
    SpeedLoss,
    RudderLoss,
    CrewCasualties,
    UtilityFailure,
    Panic,
    SuperCritical,
}

impl Critical {
    /// The row for a d8 roll.
    pub fn from_roll(roll: u32) -> Critical {
        match roll {
            1 => Critical::FlashFire,
            2 => Critical::WeaponJam,
            3 => Critical::SpeedLoss,
            4 => Critical::RudderLoss,
            5 => Critical::CrewCasualties,
            6 => Critical::UtilityFailure,
            7 => Critical::Panic,
            _ => Critical::SuperCritical,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Critical::FlashFire => "Flash Fire",
            Critical::WeaponJam => "Weapon Jam",
            Critical::SpeedLoss => "Speed Loss",
            Critical::RudderLoss => "Rudder Loss",
            Critical::CrewCasualties => "Crew Casualties",
            Critical::UtilityFailure => "Utility Failure",
            Critical::Panic => "Panic",
            Critical::SuperCritical => "Super Critical",
        }
    }
}

/// The Super Critical Table (1d8) (SKY-SCRIT-1..8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SuperCritical {
    StructuralFailure,
    LiftFailure,
    BridgeHit,
    Drifting,
    WeaponsDown,
    UtilitiesDown,
    OnFire,
    CitadelBlowout,
}

impl SuperCritical {
    pub fn from_roll(roll: u32) -> SuperCritical {
        match roll {
            1 => SuperCritical::StructuralFailure,
            2 => SuperCritical::LiftFailure,
            3 => SuperCritical::BridgeHit,
            4 => SuperCritical::Drifting,
            5 => SuperCritical::WeaponsDown,
            6 => SuperCritical::UtilitiesDown,
            7 => SuperCritical::OnFire,
            _ => SuperCritical::CitadelBlowout,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SuperCritical::StructuralFailure => "Structural Failure",
            SuperCritical::LiftFailure => "Lift Failure",
            SuperCritical::BridgeHit => "Bridge Hit",
            SuperCritical::Drifting => "Drifting",
            SuperCritical::WeaponsDown => "Weapons Down",
            SuperCritical::UtilitiesDown => "Utilities Down",
            SuperCritical::OnFire => "On Fire",
            SuperCritical::CitadelBlowout => "Citadel Blowout",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sky_class_01_movement_and_pivot_by_class() {
        let rows = [
            (Class::Torpedo, 12, 45),
            (Class::Capital, 5, 45),
            (Class::Gunship, 7, 90),
            (Class::Command, 7, 90),
            (Class::Escort, 10, 180),
            (Class::Wing, 15, 720),
        ];
        for (class, inches, half_degrees) in rows {
            let stats = class.stats();
            assert_eq!(stats.movement, Length::inches(inches), "{class:?}");
            assert_eq!(stats.pivot, Turn(half_degrees), "{class:?}");
        }
    }

    #[test]
    fn class_names_parse_from_keys_and_placeholders() {
        assert_eq!(Class::parse("Command Ship"), Some(Class::Command));
        assert_eq!(Class::parse("CAPITAL"), Some(Class::Capital));
        assert_eq!(Class::parse("wing"), Some(Class::Wing));
        assert_eq!(Class::parse("battleship"), None);
        assert_eq!(Class::Capital.slot("port").map(|s| s.label), Some("port1"));
        assert_eq!(Class::Gunship.slot("Forward").map(|s| s.label), Some("fwd"));
        assert_eq!(Class::Escort.slot("fwd"), None);
    }

    #[test]
    fn weapon_and_module_names_parse() {
        for weapon in WeaponKind::ALL {
            assert_eq!(WeaponKind::parse(weapon.name()), Some(weapon));
        }
        assert_eq!(
            WeaponKind::parse("mega flak"),
            Some(WeaponKind::MegaFlakArray)
        );
        assert_eq!(WeaponKind::parse("MG"), Some(WeaponKind::MachineGuns));
        for module in ModuleKind::ALL {
            assert_eq!(ModuleKind::parse(module.name()), Some(module));
        }
        assert_eq!(ModuleKind::parse("dc centre"), Some(ModuleKind::DcCenter));
    }

    /// SKY-GM-28: the Heavy Missile may target wings unless the GM harmonises missiles.
    #[test]
    fn sky_gm_28_heavy_missile_may_target_wings_unless_harmonised() {
        assert!(WeaponKind::HeavyMissile.may_target_ultralights(false));
        assert!(!WeaponKind::HeavyMissile.may_target_ultralights(true));
        assert!(!WeaponKind::Missile.may_target_ultralights(false));
        assert!(!WeaponKind::SiegeMissileRack.may_target_ultralights(false));
        assert!(!WeaponKind::Bombs.may_target_ultralights(false));
        assert!(WeaponKind::MachineGuns.may_target_ultralights(true));
    }
}
