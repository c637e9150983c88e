//! Fleet building: the GM's setup as written (unchecked JSON), its validation against the stat
//! blocks, slot sizes and the points limit with one error per breach, and the battle it starts.

use std::collections::{BTreeMap, BTreeSet};

use engine::{Player, Score, SetupError};
use serde::{Deserialize, Serialize};

use crate::geometry::{Angle, Length, Point, within};
use crate::state::{
    BoardSize, DamageControl, Edge, Module, OverIsland, Place, Rules, Side, Standing, State,
    Status, TurnRecord, Unit, UnitId, Weapon,
};
use crate::tables::{Class, ModuleKind, Mount, Size, WeaponKind, squash};
use crate::terrain::{Area, Band, Island, Shape, Terrain};

/// The GM's settings for one battle. Every field has a default, so a setup names only what
/// differs from the standard game (SKY-GM-01).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Setup {
    pub board: BoardSize,
    /// SKY-GM-06 (default 12).
    pub max_elevation: u8,
    /// The points limit per side (SKY-GM-03, default 500).
    pub budget: u32,
    /// Hull costs by class (SKY-GM-03, default 2 × Hull).
    pub hull_costs: HullCosts,
    /// Base diameters by class (SKY-GM-09).
    pub base_diameters: BaseDiameters,
    /// SKY-GM-10 (default 1).
    pub level_tolerance: u8,
    /// A slot may take a smaller (not Ultralight) weapon (SKY-GM-04's option).
    pub allow_downsize: bool,
    /// SKY-GM-28's switch.
    pub harmonise_missiles: bool,
    /// SKY-GM-08's option (default 0).
    pub vertical_range_per_level: Length,
    /// SKY-GM-01 (default 6).
    pub turn_limit: u32,
    /// SKY-GM-01 (default 12").
    pub deployment_depth: Length,
    pub terrain: Terrain,
    /// Exactly two: the first for the first player of the roster.
    pub sides: Vec<SideSetup>,
    /// The GM's switch for a shot passing over or under an island (SKY-ISL-04, SKY-EX-10):
    /// `clear` (default) or `near_miss`.
    pub shot_over_island: OverIsland,
    /// A ship that moves into a torpedo's base at its elevation is hit by it, as in the
    /// Torpedo Step (SKY-TORP-05; default true, the text's "on contact").
    pub torpedo_contact_in_movement: bool,
    /// Damage-control successes as a `pool` (default, SKY-GM-22) or in `tiers` (SKY-DCR-02/03).
    pub damage_control: DamageControl,
    /// Wings take morale checks (default true, SKY-GM-23).
    pub wing_morale: bool,
}

/// Hull costs (SKY-GM-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HullCosts {
    pub wing: u32,
    pub escort: u32,
    pub gunship: u32,
    pub command: u32,
    pub capital: u32,
}

impl Default for HullCosts {
    /// 2 × Hull: Wing 20, Escort 30, Gunship 70, Command 110, Capital 160 (SKY-GM-03).
    fn default() -> Self {
        HullCosts {
            wing: 20,
            escort: 30,
            gunship: 70,
            command: 110,
            capital: 160,
        }
    }
}

impl HullCosts {
    pub fn of(&self, class: Class) -> u32 {
        match class {
            Class::Wing => self.wing,
            Class::Escort => self.escort,
            Class::Gunship => self.gunship,
            Class::Command => self.command,
            Class::Capital => self.capital,
            Class::Torpedo => 0,
        }
    }
}

/// Base diameters (SKY-GM-09).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BaseDiameters {
    pub wing: Length,
    pub torpedo: Length,
    pub escort: Length,
    pub gunship: Length,
    pub command: Length,
    pub capital: Length,
}

impl Default for BaseDiameters {
    fn default() -> Self {
        BaseDiameters {
            wing: Class::Wing.stats().base_diameter,
            torpedo: Class::Torpedo.stats().base_diameter,
            escort: Class::Escort.stats().base_diameter,
            gunship: Class::Gunship.stats().base_diameter,
            command: Class::Command.stats().base_diameter,
            capital: Class::Capital.stats().base_diameter,
        }
    }
}

impl BaseDiameters {
    pub fn radius(&self, class: Class) -> Length {
        let diameter = match class {
            Class::Wing => self.wing,
            Class::Torpedo => self.torpedo,
            Class::Escort => self.escort,
            Class::Gunship => self.gunship,
            Class::Command => self.command,
            Class::Capital => self.capital,
        };
        Length(diameter.hundredths() / 2)
    }
}

/// One side as the GM writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideSetup {
    pub name: String,
    /// The deployment edge: west for the first side, east for the second unless given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<Edge>,
    pub fleet: Vec<ShipSetup>,
}

/// One ship of a fleet list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShipSetup {
    pub name: String,
    /// A class key (SKY-GM-02): escort, gunship, command, capital.
    pub class: String,
    /// Slot label to weapon name: `{"fwd": "Heavy Lance", "port": "Naval Battery"}`.
    #[serde(default)]
    pub weapons: BTreeMap<String, String>,
    /// Module names, one per utility slot used.
    #[serde(default)]
    pub utilities: Vec<String>,
    /// Wings, one per Hangar (SKY-STAT-A, SKY-MOD-10).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wings: Vec<WingSetup>,
    /// Where it deploys; spread along the side's strip when left out (SKY-GM-01).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Point>,
    /// Facing the enemy edge when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<Angle>,
    /// 4 when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elevation: Option<u8>,
}

/// A wing in a carrier's hangar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WingSetup {
    pub name: String,
    /// Up to three Ultralight weapons (SKY-STAT-A).
    pub weapons: Vec<String>,
}

/// One breach of the fleet-building rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FleetError {
    #[error("the battle needs exactly two sides, not {0}")]
    SideCount(usize),
    #[error("side {side:?} has no ships")]
    NoShips { side: String },
    #[error("a unit of side {side:?} has no name")]
    NoName { side: String },
    #[error("two units are called {name:?}: every unit needs its own name")]
    DuplicateName { name: String },
    #[error("{ship}: {class:?} is not a ship class (escort, gunship, command, capital)")]
    UnknownClass { ship: String, class: String },
    #[error(
        "{ship}: wings are not listed as ships; put them under a carrier's \"wings\" (SKY-STAT-A)"
    )]
    WingAsShip { ship: String },
    #[error("{ship}: a {class} has no slot {slot:?} (its slots: {slots})")]
    UnknownSlot {
        ship: String,
        class: &'static str,
        slot: String,
        slots: String,
    },
    #[error("{ship}: two weapons for slot {slot}")]
    SlotTwice { ship: String, slot: String },
    #[error("{ship}: {weapon:?} is not a weapon of the tables")]
    UnknownWeapon { ship: String, weapon: String },
    #[error(
        "{ship}: the {weapon} is a {weapon_size} weapon; slot {slot} takes {slot_size} weapons (SKY-GM-04)"
    )]
    WrongSize {
        ship: String,
        slot: String,
        weapon: &'static str,
        weapon_size: String,
        slot_size: &'static str,
    },
    #[error(
        "{ship}: the {weapon} is Forward and must go in a forward slot, not {slot} (SKY-GM-10)"
    )]
    NotForward {
        ship: String,
        slot: String,
        weapon: &'static str,
    },
    #[error("{ship}: {module:?} is not a module")]
    UnknownModule { ship: String, module: String },
    #[error("{ship}: {count} utilities but a {class} has {slots} utility slots")]
    TooManyUtilities {
        ship: String,
        class: &'static str,
        count: usize,
        slots: u8,
    },
    #[error("{ship}: the {module} is fitted twice; only Hangars may repeat (SKY-ADM-02)")]
    ModuleTwice { ship: String, module: &'static str },
    #[error(
        "{ship}: {wings} wings but {hangars} Hangar(s): each wing needs a Hangar slot (SKY-STAT-A)"
    )]
    WingsWithoutHangars {
        ship: String,
        wings: usize,
        hangars: usize,
    },
    #[error("wing {wing}: {count} weapons; a wing carries at most 3 (SKY-STAT-A)")]
    TooManyWingWeapons { wing: String, count: usize },
    #[error("wing {wing}: the {weapon} is not an Ultralight weapon (SKY-STAT-A)")]
    WingWeaponSize { wing: String, weapon: &'static str },
    #[error("side {side:?} costs {cost} points, over the limit of {budget} by {over}")]
    OverBudget {
        side: String,
        cost: u32,
        budget: u32,
        over: u32,
    },
    #[error("{ship}: elevation {elevation} is outside 1 to {max} (SKY-GM-06)")]
    BadElevation {
        ship: String,
        elevation: u8,
        max: u8,
    },
    #[error("{ship}: {at} is not wholly on the {width}\" × {height}\" table")]
    OffTable {
        ship: String,
        at: String,
        width: String,
        height: String,
    },
    #[error(
        "{ship}: {at} is outside side {side:?}'s deployment strip ({depth}\" from the {edge} edge)"
    )]
    OutsideZone {
        ship: String,
        side: String,
        at: String,
        depth: String,
        edge: &'static str,
    },
    #[error("{ship}: deployed inside island {island} at its elevation (SKY-ISL-01)")]
    InIsland { ship: String, island: String },
    #[error("{ship} and {other} overlap at the same elevation (SKY-GM-11)")]
    Overlap { ship: String, other: String },
    /// A setting other than the fleets: `setting` as [`Skyfleet::settings`](crate::Skyfleet)
    /// names it, or `terrain`.
    #[error("the rules are not valid: {problem}")]
    Rules {
        setting: &'static str,
        problem: String,
    },
}

impl FleetError {
    /// The setting of the setup it is about: a rule's own, or else the sides and their fleets.
    pub fn setting(&self) -> &'static str {
        match self {
            FleetError::Rules { setting, .. } => setting,
            _ => "sides",
        }
    }
}

/// What a fleet costs, unit by unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FleetCost {
    pub side: String,
    /// Unit name and points (hull and fittings), wings after their carrier.
    pub units: Vec<(String, u32)>,
    pub total: u32,
}

impl Default for Setup {
    /// The standard game: 72" × 48", elevations 1–12, 500 points a side, six turns, two
    /// islands, a cloud bank and a storm, and two mirrored fleets of a Command Ship with a
    /// wing, a Gunship and an Escort (485 points each).
    fn default() -> Self {
        Setup {
            board: BoardSize::default(),
            max_elevation: 12,
            budget: 500,
            hull_costs: HullCosts::default(),
            base_diameters: BaseDiameters::default(),
            level_tolerance: 1,
            allow_downsize: false,
            harmonise_missiles: false,
            vertical_range_per_level: Length::ZERO,
            turn_limit: 6,
            deployment_depth: Length::inches(12),
            terrain: standard_terrain(),
            sides: vec![
                standard_side("Red Fleet", ["Resolute", "Valiant", "Swift", "Hawk"]),
                standard_side("Blue Fleet", ["Dominion", "Tempest", "Arrow", "Falcon"]),
            ],
            shot_over_island: OverIsland::Clear,
            torpedo_contact_in_movement: true,
            damage_control: DamageControl::Pool,
            wing_morale: true,
        }
    }
}

fn standard_terrain() -> Terrain {
    Terrain {
        islands: vec![
            Island {
                name: "Anvil Rock".into(),
                shape: Shape::Circle {
                    centre: Point::inches(36, 24),
                    radius: Length::inches(4),
                },
                band: Band::ISLAND,
            },
            Island {
                name: "The Teeth".into(),
                shape: Shape::Polygon(vec![
                    Point::inches(24, 38),
                    Point::inches(30, 36),
                    Point::inches(32, 42),
                    Point::inches(26, 44),
                ]),
                band: Band::ISLAND,
            },
        ],
        clouds: vec![Area {
            name: "Grey Veil".into(),
            shape: Shape::Polygon(vec![
                Point::inches(42, 6),
                Point::inches(52, 6),
                Point::inches(52, 14),
                Point::inches(42, 14),
            ]),
            band: None,
        }],
        storms: vec![Area {
            name: "Maelstrom".into(),
            shape: Shape::Circle {
                centre: Point::inches(50, 38),
                radius: Length::inches(4),
            },
            band: None,
        }],
    }
}

fn standard_side(name: &str, [command, gunship, escort, wing]: [&str; 4]) -> SideSetup {
    let weapons = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(slot, weapon)| (slot.to_string(), weapon.to_string()))
            .collect()
    };
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
    SideSetup {
        name: name.into(),
        edge: None,
        fleet: vec![
            ShipSetup {
                name: command.into(),
                class: "command".into(),
                weapons: weapons(&[("fwd", "Heavy Missile"), ("aft", "Flak Cannon")]),
                utilities: strings(&[
                    "Hangar",
                    "Signal Array",
                    "Acoustic Decoys",
                    "Chaff Launcher",
                ]),
                wings: vec![WingSetup {
                    name: wing.into(),
                    weapons: strings(&["Machine Guns", "Bombs", "Rockets"]),
                }],
                at: None,
                heading: None,
                elevation: None,
            },
            ShipSetup {
                name: gunship.into(),
                class: "gunship".into(),
                weapons: weapons(&[
                    ("fwd", "Heavy Lance"),
                    ("port", "Naval Battery"),
                    ("stbd", "Naval Battery"),
                ]),
                utilities: strings(&["Sonar"]),
                wings: vec![],
                at: None,
                heading: None,
                elevation: None,
            },
            ShipSetup {
                name: escort.into(),
                class: "escort".into(),
                weapons: weapons(&[("turret", "Flak")]),
                utilities: strings(&["Dive Brakes"]),
                wings: vec![],
                at: None,
                heading: None,
                elevation: None,
            },
        ],
    }
}

/// A checked weapon list, or the breaches.
fn fit_weapons(
    setup: &Setup,
    ship: &str,
    class: Class,
    wanted: &BTreeMap<String, String>,
    errors: &mut Vec<FleetError>,
) -> Vec<Weapon> {
    let slots = class.stats().weapon_slots;
    let mut fitted: Vec<(usize, Weapon)> = Vec::new();
    for (label, weapon_name) in wanted {
        let Some(slot) = class.slot(label) else {
            errors.push(FleetError::UnknownSlot {
                ship: ship.into(),
                class: class.display(),
                slot: label.clone(),
                slots: slots.iter().map(|s| s.label).collect::<Vec<_>>().join(", "),
            });
            continue;
        };
        let Some(kind) = WeaponKind::parse(weapon_name) else {
            errors.push(FleetError::UnknownWeapon {
                ship: ship.into(),
                weapon: weapon_name.clone(),
            });
            continue;
        };
        let stats = kind.stats();
        let fits = stats.sizes.contains(&slot.size)
            || (setup.allow_downsize
                && stats
                    .sizes
                    .iter()
                    .any(|s| *s != Size::Ultralight && *s < slot.size));
        if !fits {
            errors.push(FleetError::WrongSize {
                ship: ship.into(),
                slot: slot.label.into(),
                weapon: stats.name,
                weapon_size: stats
                    .sizes
                    .iter()
                    .map(|s| size_name(*s))
                    .collect::<Vec<_>>()
                    .join(" or "),
                slot_size: size_name(slot.size),
            });
            continue;
        }
        if stats.forward_only && !slot.mount.counts_as_forward() {
            errors.push(FleetError::NotForward {
                ship: ship.into(),
                slot: slot.label.into(),
                weapon: stats.name,
            });
            continue;
        }
        let index = slots
            .iter()
            .position(|s| s.label == slot.label)
            .unwrap_or(usize::MAX);
        if fitted.iter().any(|(i, _)| *i == index) {
            errors.push(FleetError::SlotTwice {
                ship: ship.into(),
                slot: slot.label.into(),
            });
            continue;
        }
        fitted.push((
            index,
            Weapon {
                slot: slot.label.into(),
                mount: slot.mount,
                kind,
                jammed: false,
            },
        ));
    }
    // Weapons fire in the stat block's slot order.
    fitted.sort_by_key(|(index, _)| *index);
    fitted.into_iter().map(|(_, weapon)| weapon).collect()
}

fn size_name(size: Size) -> &'static str {
    match size {
        Size::Ultralight => "Ultralight",
        Size::Light => "Light",
        Size::Medium => "Medium",
        Size::Large => "Large",
    }
}

fn wing_weapons(wing: &WingSetup, errors: &mut Vec<FleetError>) -> Vec<Weapon> {
    if wing.weapons.len() > 3 {
        errors.push(FleetError::TooManyWingWeapons {
            wing: wing.name.clone(),
            count: wing.weapons.len(),
        });
    }
    let mut out = Vec::new();
    for (index, name) in wing.weapons.iter().take(3).enumerate() {
        let Some(kind) = WeaponKind::parse(name) else {
            errors.push(FleetError::UnknownWeapon {
                ship: wing.name.clone(),
                weapon: name.clone(),
            });
            continue;
        };
        if !kind.stats().sizes.contains(&Size::Ultralight) {
            errors.push(FleetError::WingWeaponSize {
                wing: wing.name.clone(),
                weapon: kind.name(),
            });
            continue;
        }
        out.push(Weapon {
            slot: format!("w{}", index + 1),
            mount: Mount::Hardpoint,
            kind,
            jammed: false,
        });
    }
    out
}

fn fit_modules(
    ship: &str,
    class: Class,
    wanted: &[String],
    errors: &mut Vec<FleetError>,
) -> Vec<Module> {
    let slots = class.stats().utility_slots;
    if wanted.len() > usize::from(slots) {
        errors.push(FleetError::TooManyUtilities {
            ship: ship.into(),
            class: class.display(),
            count: wanted.len(),
            slots,
        });
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for name in wanted {
        let Some(kind) = ModuleKind::parse(name) else {
            errors.push(FleetError::UnknownModule {
                ship: ship.into(),
                module: name.clone(),
            });
            continue;
        };
        if kind != ModuleKind::Hangar && !seen.insert(kind) {
            errors.push(FleetError::ModuleTwice {
                ship: ship.into(),
                module: kind.name(),
            });
            continue;
        }
        out.push(Module {
            kind,
            failed: false,
        });
    }
    out
}

impl Setup {
    /// The rules in force.
    pub fn rules(&self) -> Rules {
        Rules {
            board: self.board,
            max_elevation: self.max_elevation,
            level_tolerance: self.level_tolerance,
            harmonise_missiles: self.harmonise_missiles,
            vertical_range_per_level: self.vertical_range_per_level,
            turn_limit: self.turn_limit,
            deployment_depth: self.deployment_depth,
            torpedo_diameter: self.base_diameters.torpedo,
            shot_over_island: self.shot_over_island,
            torpedo_contact_in_movement: self.torpedo_contact_in_movement,
            damage_control: self.damage_control,
            wing_morale: self.wing_morale,
        }
    }

    fn edge_of(&self, index: usize) -> Edge {
        match self.sides.get(index).and_then(|s| s.edge) {
            Some(edge) => edge,
            None if index == 0 => Edge::West,
            None => Edge::East,
        }
    }

    /// What each fleet costs (SKY-GM-03, SKY-EX-12), whatever else is wrong with it.
    pub fn costs(&self) -> Vec<FleetCost> {
        let mut ignored = Vec::new();
        self.sides
            .iter()
            .map(|side| {
                let mut units = Vec::new();
                for ship in &side.fleet {
                    let Some(class) = Class::parse(&ship.class) else {
                        continue;
                    };
                    let weapons = fit_weapons(self, &ship.name, class, &ship.weapons, &mut ignored);
                    let modules = fit_modules(&ship.name, class, &ship.utilities, &mut ignored);
                    units.push((ship.name.clone(), self.unit_cost(class, &weapons, &modules)));
                    for wing in &ship.wings {
                        let weapons = wing_weapons(wing, &mut ignored);
                        units.push((
                            wing.name.clone(),
                            self.unit_cost(Class::Wing, &weapons, &[]),
                        ));
                    }
                }
                let total = units.iter().map(|(_, cost)| cost).sum();
                FleetCost {
                    side: side.name.clone(),
                    units,
                    total,
                }
            })
            .collect()
    }

    fn unit_cost(&self, class: Class, weapons: &[Weapon], modules: &[Module]) -> u32 {
        self.hull_costs.of(class)
            + weapons.iter().map(|w| w.kind.stats().cost).sum::<u32>()
            + modules.iter().map(|m| m.kind.cost()).sum::<u32>()
    }

    /// Every breach of the fleet-building rules, or the starting units (SKY-GM-02..04,
    /// SKY-STAT-A..E, SKY-MOD-10, SKY-GM-01, SKY-GM-19).
    pub fn build(&self) -> Result<Vec<Unit>, Vec<FleetError>> {
        let mut errors = Vec::new();
        if self.sides.len() != 2 {
            errors.push(FleetError::SideCount(self.sides.len()));
        }
        if self.max_elevation < 1 {
            errors.push(FleetError::Rules {
                setting: "max_elevation",
                problem: "max_elevation must be at least 1".into(),
            });
        }
        for (setting, length) in [
            ("board.width", self.board.width),
            ("board.height", self.board.height),
        ] {
            if length.hundredths() <= 0 {
                errors.push(FleetError::Rules {
                    setting,
                    problem: "the table needs a positive size".into(),
                });
            }
        }
        if self.turn_limit < 1 {
            errors.push(FleetError::Rules {
                setting: "turn_limit",
                problem: "turn_limit must be at least 1".into(),
            });
        }
        for problem in self.terrain.problems() {
            errors.push(FleetError::Rules {
                setting: "terrain",
                problem,
            });
        }
        let mut names = BTreeSet::new();
        let mut units: Vec<Unit> = Vec::new();
        for (side_index, side) in self.sides.iter().enumerate().take(2) {
            let side_number = side_index as u8;
            if side.fleet.is_empty() {
                errors.push(FleetError::NoShips {
                    side: side.name.clone(),
                });
            }
            let edge = self.edge_of(side_index);
            let unplaced = side.fleet.iter().filter(|s| s.at.is_none()).count();
            let mut placed_so_far = 0;
            let mut total = 0;
            for ship in &side.fleet {
                let mut check_name = |name: &str, errors: &mut Vec<FleetError>| {
                    if squash(name).is_empty() {
                        errors.push(FleetError::NoName {
                            side: side.name.clone(),
                        });
                    } else if !names.insert(squash(name)) {
                        errors.push(FleetError::DuplicateName { name: name.into() });
                    }
                };
                check_name(&ship.name, &mut errors);
                let class = match Class::parse(&ship.class) {
                    Some(Class::Wing) => {
                        errors.push(FleetError::WingAsShip {
                            ship: ship.name.clone(),
                        });
                        continue;
                    }
                    Some(class) if class.is_ship() => class,
                    _ => {
                        errors.push(FleetError::UnknownClass {
                            ship: ship.name.clone(),
                            class: ship.class.clone(),
                        });
                        continue;
                    }
                };
                let weapons = fit_weapons(self, &ship.name, class, &ship.weapons, &mut errors);
                let modules = fit_modules(&ship.name, class, &ship.utilities, &mut errors);
                let hangars = modules
                    .iter()
                    .filter(|m| m.kind == ModuleKind::Hangar)
                    .count();
                if ship.wings.len() > hangars {
                    errors.push(FleetError::WingsWithoutHangars {
                        ship: ship.name.clone(),
                        wings: ship.wings.len(),
                        hangars,
                    });
                }
                let at = match ship.at {
                    Some(at) => at,
                    None => {
                        placed_so_far += 1;
                        self.spread(edge, placed_so_far, unplaced)
                    }
                };
                let heading = ship.heading.unwrap_or(edge.opposite().bearing());
                let elevation = ship.elevation.unwrap_or(4);
                let cost = self.unit_cost(class, &weapons, &modules);
                total += cost;
                let stats = class.stats();
                let ship_id = UnitId(units.len() as u16);
                units.push(Unit {
                    id: ship_id,
                    name: ship.name.trim().to_string(),
                    side: side_number,
                    class,
                    cost,
                    at,
                    heading,
                    elevation,
                    radius: self.base_diameters.radius(class),
                    hull: stats.hull,
                    max_hull: stats.hull,
                    place: Place::InPlay,
                    weapons,
                    modules,
                    status: Status::default(),
                    this_turn: TurnRecord::default(),
                    carrier: None,
                    launched_turn: None,
                    torpedo: None,
                });
                for wing in &ship.wings {
                    check_name(&wing.name, &mut errors);
                    let weapons = wing_weapons(wing, &mut errors);
                    let cost = self.unit_cost(Class::Wing, &weapons, &[]);
                    total += cost;
                    units.push(Unit {
                        id: UnitId(units.len() as u16),
                        name: wing.name.trim().to_string(),
                        side: side_number,
                        class: Class::Wing,
                        cost,
                        at,
                        heading,
                        elevation,
                        radius: self.base_diameters.radius(Class::Wing),
                        hull: Class::Wing.stats().hull,
                        max_hull: Class::Wing.stats().hull,
                        place: Place::Aboard,
                        weapons,
                        modules: Vec::new(),
                        status: Status::default(),
                        this_turn: TurnRecord::default(),
                        carrier: Some(ship_id),
                        launched_turn: None,
                        torpedo: None,
                    });
                }
            }
            if total > self.budget {
                errors.push(FleetError::OverBudget {
                    side: side.name.clone(),
                    cost: total,
                    budget: self.budget,
                    over: total - self.budget,
                });
            }
        }
        errors.extend(self.placement_errors(&units));
        if errors.is_empty() {
            Ok(units)
        } else {
            Err(errors)
        }
    }

    /// The `n`th of `count` default places along a side's strip (SKY-GM-01).
    fn spread(&self, edge: Edge, n: usize, count: usize) -> Point {
        let half_depth = Length(self.deployment_depth.hundredths() / 2);
        let along = |extent: Length| Length(extent.hundredths() * n as i64 / (count as i64 + 1));
        let (width, height) = (self.board.width, self.board.height);
        match edge {
            Edge::West => Point::new(half_depth, along(height)),
            Edge::East => Point::new(width - half_depth, along(height)),
            Edge::South => Point::new(along(width), half_depth),
            Edge::North => Point::new(along(width), height - half_depth),
        }
    }

    /// Deployment breaches: elevation, table, strip, islands, overlaps (SKY-GM-01, -06, -11).
    pub fn placement_errors(&self, units: &[Unit]) -> Vec<FleetError> {
        let mut errors = Vec::new();
        let ships: Vec<&Unit> = units.iter().filter(|u| u.in_play()).collect();
        for (index, unit) in ships.iter().enumerate() {
            errors.extend(self.deployment_error(unit));
            for other in ships.iter().skip(index + 1) {
                if other.elevation == unit.elevation
                    && within(unit.at, other.at, unit.radius + other.radius - Length(1))
                {
                    errors.push(FleetError::Overlap {
                        ship: unit.name.clone(),
                        other: other.name.clone(),
                    });
                }
            }
        }
        errors
    }

    /// What is wrong with one unit's deployment, if anything.
    pub fn deployment_error(&self, unit: &Unit) -> Option<FleetError> {
        let side_index = usize::from(unit.side);
        let side_name = self
            .sides
            .get(side_index)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        deployment_problem(
            &self.rules(),
            &self.terrain,
            self.edge_of(side_index),
            &side_name,
            unit,
        )
    }

    /// Starts the battle: exactly two players, the first commanding the first side.
    pub fn start(&self, players: &[Player]) -> Result<State, SetupError> {
        if players.len() != 2 {
            return Err(SetupError::Players(format!(
                "a skyfleet battle is for exactly two players, not {}",
                players.len()
            )));
        }
        let units = self.build().map_err(|errors| {
            SetupError::Settings(
                errors
                    .iter()
                    .map(|error| engine::SetupProblem::of(error.setting(), error.to_string()))
                    .collect(),
            )
        })?;
        let sides = self
            .sides
            .iter()
            .zip(players)
            .enumerate()
            .map(|(index, (side, player))| Side {
                player: player.clone(),
                name: side.name.clone(),
                edge: self.edge_of(index),
                vp: Score::ZERO,
                standing: Standing::new(),
                left: false,
            })
            .collect();
        Ok(State {
            turn: 1,
            rules: self.rules(),
            terrain: self.terrain.clone(),
            sides,
            units,
            torpedoes_launched: 0,
            finished: false,
        })
    }
}

/// What is wrong with a unit's deployment: elevation, table, strip, island (SKY-GM-01, -06).
/// Used at setup and for turn 1's `DEPLOY` orders.
pub fn deployment_problem(
    rules: &Rules,
    terrain: &Terrain,
    edge: Edge,
    side_name: &str,
    unit: &Unit,
) -> Option<FleetError> {
    if unit.elevation < 1 || unit.elevation > rules.max_elevation {
        return Some(FleetError::BadElevation {
            ship: unit.name.clone(),
            elevation: unit.elevation,
            max: rules.max_elevation,
        });
    }
    if !rules.board.holds(unit.at, unit.radius) {
        return Some(FleetError::OffTable {
            ship: unit.name.clone(),
            at: unit.at.display(),
            width: rules.board.width.display(),
            height: rules.board.height.display(),
        });
    }
    if rules.board.distance_to(unit.at, edge) > rules.deployment_depth {
        return Some(FleetError::OutsideZone {
            ship: unit.name.clone(),
            side: side_name.into(),
            at: unit.at.display(),
            depth: rules.deployment_depth.display(),
            edge: edge.name(),
        });
    }
    if let Some(island) = terrain.island_in_the_way(unit.at, unit.radius, unit.elevation) {
        return Some(FleetError::InIsland {
            ship: unit.name.clone(),
            island: island.into(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ship(name: &str, class: &str, weapons: &[(&str, &str)], utilities: &[&str]) -> ShipSetup {
        ShipSetup {
            name: name.into(),
            class: class.into(),
            weapons: weapons
                .iter()
                .map(|(s, w)| (s.to_string(), w.to_string()))
                .collect(),
            utilities: utilities.iter().map(|s| s.to_string()).collect(),
            wings: vec![],
            at: None,
            heading: None,
            elevation: None,
        }
    }

    fn two_sides(first: Vec<ShipSetup>) -> Setup {
        Setup {
            sides: vec![
                SideSetup {
                    name: "A".into(),
                    edge: None,
                    fleet: first,
                },
                SideSetup {
                    name: "B".into(),
                    edge: None,
                    fleet: vec![ship("Picket", "escort", &[("turret", "flak")], &[])],
                },
            ],
            budget: 1000,
            ..Setup::default()
        }
    }

    #[test]
    fn the_standard_game_builds_within_its_budget() {
        let setup = Setup::default();
        let units = setup.build().unwrap();
        assert_eq!(units.len(), 8);
        let costs = setup.costs();
        assert_eq!(costs[0].total, 485);
        assert_eq!(costs[1].total, 485);
        assert!(costs[0].total <= setup.budget);
        // Default placement: spread along the west strip, facing east, elevation 4.
        assert_eq!(units[0].at, Point::inches(6, 12));
        assert_eq!(units[0].heading, Angle::EAST);
        assert_eq!(units[0].elevation, 4);
        assert_eq!(units[4].heading, Angle::WEST);
        assert_eq!(units[1].place, Place::Aboard);
    }

    /// SKY-EX-12: the fittings (hull excluded) cost 350, 110 and 30; with SKY-GM-03's hull
    /// defaults 510, 180 and 50, and the Capital alone is over the 500-point budget.
    #[test]
    fn sky_ex_12_fittings_costs_and_hull_defaults() {
        let mut capital = ship(
            "Leviathan",
            "capital",
            &[
                ("fwd", "Siege Lance"),
                ("port1", "Dreadnought Battery"),
                ("port2", "Dreadnought Battery"),
                ("stbd1", "Dreadnought Battery"),
                ("stbd2", "Dreadnought Battery"),
                ("aft", "Mega-Flak Array"),
            ],
            &["Signal Array", "DC Center", "Armored Bridge"],
        );
        capital.at = Some(Point::inches(6, 10));
        let mut gunship = ship(
            "Valiant",
            "gunship",
            &[
                ("fwd", "Heavy Lance"),
                ("port", "Naval Battery"),
                ("stbd", "Naval Battery"),
            ],
            &["Sonar", "Hangar"],
        );
        gunship.wings = vec![WingSetup {
            name: "Hawk".into(),
            weapons: vec!["MG".into(), "Bombs".into(), "Rockets".into()],
        }];
        gunship.at = Some(Point::inches(6, 30));
        let setup = two_sides(vec![capital, gunship]);
        let costs = setup.costs();
        // Hull excluded: 350, 110, 30; with SKY-GM-03's hulls: 510, 180, 50.
        assert_eq!(
            costs[0].units,
            vec![
                ("Leviathan".to_string(), 510),
                ("Valiant".to_string(), 180),
                ("Hawk".to_string(), 50)
            ]
        );
        // Hull excluded: price the same fleet with every hull free.
        let fittings_only = Setup {
            hull_costs: HullCosts {
                wing: 0,
                escort: 0,
                gunship: 0,
                command: 0,
                capital: 0,
            },
            ..setup.clone()
        };
        assert_eq!(
            fittings_only.costs()[0].units,
            vec![
                ("Leviathan".to_string(), 350),
                ("Valiant".to_string(), 110),
                ("Hawk".to_string(), 30)
            ]
        );
        setup.build().unwrap();
        // The Capital alone is over the default 500-point budget (SKY-GM-03).
        let tight = Setup {
            budget: 500,
            ..setup
        };
        let errors = tight.build().unwrap_err();
        assert_eq!(
            errors,
            vec![FleetError::OverBudget {
                side: "A".into(),
                cost: 740,
                budget: 500,
                over: 240
            }]
        );
        assert_eq!(
            errors[0].to_string(),
            "side \"A\" costs 740 points, over the limit of 500 by 240"
        );
    }

    #[test]
    fn sky_gm_04_slots_take_their_own_size_and_forward_weapons_go_forward() {
        let setup = two_sides(vec![
            ship(
                "Wrong",
                "gunship",
                &[
                    ("fwd", "Siege Lance"),
                    ("port", "Heavy Lance"),
                    ("stbd", "Catapult"),
                    ("keel", "Flak"),
                ],
                &["Sonar", "Sonar", "Warp Drive"],
            ),
            ship(
                "Small",
                "escort",
                &[("turret", "Lance")],
                &["Sonar", "Hangar"],
            ),
        ]);
        let errors: Vec<String> = setup
            .build()
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        let wanted = [
            "Wrong: the Siege Lance is a Large weapon; slot fwd takes Medium weapons (SKY-GM-04)",
            "Wrong: a Gunship has no slot \"keel\" (its slots: fwd, port, stbd)",
            "Wrong: the Heavy Lance is Forward and must go in a forward slot, not port (SKY-GM-10)",
            "Wrong: \"Catapult\" is not a weapon of the tables",
            "Wrong: the Sonar is fitted twice; only Hangars may repeat (SKY-ADM-02)",
            "Wrong: \"Warp Drive\" is not a module",
            "Small: 2 utilities but a Escort has 1 utility slots",
        ];
        for want in wanted {
            assert!(
                errors.iter().any(|e| e == want),
                "{want:?} not in {errors:#?}"
            );
        }
        // The Escort's turret counts as Forward (SKY-GM-10), so the Lance fits.
        assert!(
            !errors
                .iter()
                .any(|e| e.contains("Lance is Forward and must go in a forward slot, not turret"))
        );
    }

    #[test]
    fn sky_gm_04_allow_downsize_lets_a_smaller_weapon_in() {
        let mut setup = two_sides(vec![ship("Mixed", "gunship", &[("port", "Cannon")], &[])]);
        assert!(setup.build().is_err());
        setup.allow_downsize = true;
        setup.build().unwrap();
        let setup = Setup {
            allow_downsize: true,
            ..two_sides(vec![ship(
                "Mixed",
                "gunship",
                &[("port", "Machine Guns")],
                &[],
            )])
        };
        assert!(setup.build().is_err(), "Ultralight weapons stay on wings");
    }

    #[test]
    fn sky_stat_a_wings_need_hangars_and_ultralight_weapons() {
        let mut carrier = ship("Carrier", "command", &[], &["Hangar"]);
        carrier.wings = vec![
            WingSetup {
                name: "One".into(),
                weapons: vec!["MG".into(), "Flak".into()],
            },
            WingSetup {
                name: "Two".into(),
                weapons: vec!["MG".into(), "MG".into(), "MG".into(), "MG".into()],
            },
        ];
        let setup = two_sides(vec![carrier, ship("Lone", "wing", &[], &[])]);
        let errors: Vec<String> = setup
            .build()
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        for want in [
            "Carrier: 2 wings but 1 Hangar(s): each wing needs a Hangar slot (SKY-STAT-A)",
            "wing One: the Flak is not an Ultralight weapon (SKY-STAT-A)",
            "wing Two: 4 weapons; a wing carries at most 3 (SKY-STAT-A)",
            "Lone: wings are not listed as ships; put them under a carrier's \"wings\" (SKY-STAT-A)",
        ] {
            assert!(
                errors.iter().any(|e| e == want),
                "{want:?} not in {errors:#?}"
            );
        }
    }

    #[test]
    fn sky_gm_01_deployment_must_be_in_the_strip_on_the_table_and_clear() {
        let mut far = ship("Far", "escort", &[], &[]);
        far.at = Some(Point::inches(30, 10));
        let mut high = ship("High", "escort", &[], &[]);
        high.elevation = Some(13);
        let mut a = ship("Twin A", "gunship", &[], &[]);
        a.at = Some(Point::inches(6, 40));
        let mut b = ship("Twin B", "gunship", &[], &[]);
        b.at = Some(Point::inches(7, 40));
        let mut edge = ship("Edge", "escort", &[], &[]);
        edge.at = Some(Point::inches(0, 20));
        let setup = two_sides(vec![far, high, a, b, edge]);
        let errors: Vec<String> = setup
            .build()
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        for want in [
            "Far: (30.0, 10.0) is outside side \"A\"'s deployment strip (12\" from the west edge)",
            "High: elevation 13 is outside 1 to 12 (SKY-GM-06)",
            "Twin A and Twin B overlap at the same elevation (SKY-GM-11)",
            "Edge: (0.0, 20.0) is not wholly on the 72\" × 48\" table",
        ] {
            assert!(
                errors.iter().any(|e| e == want),
                "{want:?} not in {errors:#?}"
            );
        }
    }

    #[test]
    fn names_must_be_unique_and_sides_two() {
        let setup = two_sides(vec![ship("Picket", "escort", &[], &[])]);
        let errors = setup.build().unwrap_err();
        assert!(errors.contains(&FleetError::DuplicateName {
            name: "Picket".into()
        }));
        let one = Setup {
            sides: vec![],
            ..Setup::default()
        };
        assert!(one.build().unwrap_err().contains(&FleetError::SideCount(0)));
        assert!(Setup::default().start(&[]).is_err());
    }

    #[test]
    fn the_setup_round_trips_through_json() {
        let setup = Setup::default();
        let json = serde_json::to_string(&setup).unwrap();
        let back: Setup = serde_json::from_str(&json).unwrap();
        assert_eq!(back, setup);
        let sparse: Setup = serde_json::from_str("{}").unwrap();
        assert_eq!(sparse, setup);
    }
}
