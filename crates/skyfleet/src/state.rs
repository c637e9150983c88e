//! The battle as it stands between turns: the rules in force, the terrain, the two sides and
//! every unit (ships, wings aboard or flying, torpedoes), with their damage and statuses.

use std::collections::{BTreeMap, BTreeSet};

use engine::{Player, PlayerId, Score};
use serde::{Deserialize, Serialize};

use crate::geometry::{Angle, Length, Point};
use crate::tables::{Class, ModuleKind, Mount, Stats, WeaponKind};
pub use crate::terrain::OverIsland;
use crate::terrain::Terrain;

/// A unit's number, stable for the whole game: its place in `State::units`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UnitId(pub u16);

impl UnitId {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// A table edge: where a side deploys (SKY-GM-01) and where Broken units flee (SKY-MOR-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Edge {
    North,
    East,
    South,
    West,
}

impl Edge {
    /// The heading that points straight at this edge.
    pub fn bearing(self) -> Angle {
        match self {
            Edge::North => Angle::NORTH,
            Edge::East => Angle::EAST,
            Edge::South => Angle::SOUTH,
            Edge::West => Angle::WEST,
        }
    }

    pub fn opposite(self) -> Edge {
        match self {
            Edge::North => Edge::South,
            Edge::East => Edge::West,
            Edge::South => Edge::North,
            Edge::West => Edge::East,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Edge::North => "north",
            Edge::East => "east",
            Edge::South => "south",
            Edge::West => "west",
        }
    }
}

/// The table's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSize {
    pub width: Length,
    pub height: Length,
}

impl Default for BoardSize {
    /// 72" × 48" (SKY-GM-01).
    fn default() -> Self {
        BoardSize {
            width: Length::inches(72),
            height: Length::inches(48),
        }
    }
}

impl BoardSize {
    /// Is a base of `radius` at `centre` wholly on the table?
    pub fn holds(&self, centre: Point, radius: Length) -> bool {
        centre.x.0 - radius.0 >= 0
            && centre.y.0 - radius.0 >= 0
            && centre.x.0 + radius.0 <= self.width.0
            && centre.y.0 + radius.0 <= self.height.0
    }

    /// Does a base of `radius` at `centre` touch or cross an edge?
    pub fn touches_edge(&self, centre: Point, radius: Length) -> bool {
        centre.x.0 - radius.0 <= 0
            || centre.y.0 - radius.0 <= 0
            || centre.x.0 + radius.0 >= self.width.0
            || centre.y.0 + radius.0 >= self.height.0
    }

    /// The distance from a point to an edge.
    pub fn distance_to(&self, point: Point, edge: Edge) -> Length {
        match edge {
            Edge::North => self.height - point.y,
            Edge::East => self.width - point.x,
            Edge::South => point.y,
            Edge::West => point.x,
        }
    }
}

/// The GM's rules in force for this battle (SKY-GM-01, -06, -08, -10, -28).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    pub board: BoardSize,
    /// The highest elevation (SKY-GM-06).
    pub max_elevation: u8,
    /// How far from level a Level weapon may shoot (SKY-GM-10).
    pub level_tolerance: u8,
    /// SKY-GM-28's switch.
    pub harmonise_missiles: bool,
    /// Inches of range added per level of height difference (SKY-GM-08).
    pub vertical_range_per_level: Length,
    /// The last turn (SKY-GM-01).
    pub turn_limit: u32,
    /// The depth of each side's deployment strip (SKY-GM-01).
    pub deployment_depth: Length,
    /// The torpedo token's base (SKY-GM-09).
    pub torpedo_diameter: Length,
    /// The GM's switches (the rulebook): what the setup chose, kept with the battle so that
    /// every turn resolves by them. Missing in states stored before they existed: defaults;
    /// written only when not the default, so a default battle's state reads as it always did.
    #[serde(default, skip_serializing_if = "is_default")]
    pub shot_over_island: OverIsland,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub torpedo_contact_in_movement: bool,
    #[serde(default, skip_serializing_if = "is_default")]
    pub damage_control: DamageControl,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub wing_morale: bool,
}

fn yes() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// How damage-control successes are spent (SKY-DCR-02, SKY-DCR-03, SKY-GM-22): the GM's switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DamageControl {
    /// A pool spent down the priority list, 1 or 2 successes an effect, effects repeatable
    /// (SKY-GM-22, the catalogue's ruling).
    #[default]
    Pool,
    /// One effect a roll, by tier: 1 success buys one 1-success effect, 2 or more one effect
    /// of either tier; further successes buy nothing.
    Tiers,
}

/// Who activates first when a side wins initiative (SKY-INIT-01, SKY-GM-15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitiativeChoice {
    #[default]
    First,
    Second,
}

/// Which way a torpedo turned away by Countermeasures pivots (SKY-GM-18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PivotChoice {
    /// Away from the defender (clockwise if the torpedo points straight at it).
    #[default]
    Away,
    Left,
    Right,
}

/// A side's standing orders: reactions that fire when their trigger happens, and preferences
/// that hold until changed (SKY-GM-15, SKY-GM-17, SKY-GM-25). Hidden from the other side.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Standing {
    pub initiative: InitiativeChoice,
    /// Ships that buy Brace the first time they are attacked in a turn.
    pub brace: BTreeSet<UnitId>,
    /// Ships that use their Chaff Launcher against the first missile attack of a turn.
    pub chaff: BTreeSet<UnitId>,
    /// Ships that use Acoustic Decoys against torpedoes within 12".
    pub countermeasures: BTreeMap<UnitId, PivotChoice>,
    /// Critical Table results that Reinforced Bulkheads re-roll (default: 8 only).
    pub reroll_crit: BTreeSet<u8>,
}

impl Standing {
    pub fn new() -> Self {
        Standing {
            reroll_crit: BTreeSet::from([8]),
            ..Standing::default()
        }
    }
}

/// One side of the battle: a player and their fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    pub player: Player,
    /// The fleet's name.
    pub name: String,
    pub edge: Edge,
    /// Victory points (SKY-GM-30).
    pub vp: Score,
    pub standing: Standing,
    /// The player has left: the side holds from now on (SKY-ADM-07).
    #[serde(default)]
    pub left: bool,
}

/// Where a unit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// A wing still in its carrier's hangar (SKY-GM-19).
    Aboard,
    InPlay,
    Destroyed,
    /// Forced below elevation 1 (SKY-GM-06).
    Crashed,
    /// A Broken unit that left by an edge (SKY-GM-23).
    Exited,
}

/// Morale state (SKY-MOR-05, -06).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Morale {
    #[default]
    Steady,
    Shaken,
    Broken,
}

/// A fitted weapon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weapon {
    /// The slot's label: `fwd`, `port1`, `turret`, `w2`.
    pub slot: String,
    pub mount: Mount,
    pub kind: WeaponKind,
    /// Weapon Jam (SKY-CRIT-2).
    #[serde(default)]
    pub jammed: bool,
}

/// A fitted module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    pub kind: ModuleKind,
    /// Utility Failure (SKY-CRIT-6).
    #[serde(default)]
    pub failed: bool,
}

/// Damage effects and morale (SKY-CRIT-*, SKY-SCRIT-*, SKY-MOR-*).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Status {
    /// Speed Loss stacks: −2" each (SKY-CRIT-3, SKY-FLOOR-01).
    pub speed_loss: u8,
    pub rudder_loss: bool,
    /// Crew Casualties stacks: −1 Morale each (SKY-CRIT-5).
    pub crew_casualties: u8,
    /// The turn the unit may not activate in (SKY-CRIT-7, SKY-GM-21).
    pub panic_turn: Option<u32>,
    pub bridge_hit: bool,
    /// Armored Bridge has soaked its Bridge Hit (SKY-MOD-5).
    pub armored_bridge_spent: bool,
    pub drifting: bool,
    pub weapons_down: bool,
    pub utilities_down: bool,
    pub on_fire: bool,
    pub morale: Morale,
    /// The 50% and 25% morale thresholds already checked (SKY-GM-23: once per game each).
    pub checked_half: bool,
    pub checked_quarter: bool,
}

/// Whether Brace is in force this turn (SKY-CMD-04, SKY-GM-17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Brace {
    #[default]
    None,
    /// Bought, waiting for the first damaging enemy attack.
    Ready,
    /// Used up this turn.
    Spent,
}

/// The named CMD actions (SKY-CMD-03..09, SKY-MOD-7, SKY-MOD-10, SKY-GM-19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionName {
    EmergencyRepairs,
    Brace,
    TargetLock,
    FullAhead,
    HardAround,
    Rally,
    LaunchTorpedo,
    LaunchWing,
    CompressedGas,
    /// Chaff is a reaction but a named action too: once per turn (SKY-GM-17).
    Chaff,
}

impl ActionName {
    pub fn name(self) -> &'static str {
        match self {
            ActionName::EmergencyRepairs => "Emergency Repairs",
            ActionName::Brace => "Brace",
            ActionName::TargetLock => "Target Lock",
            ActionName::FullAhead => "Full Ahead",
            ActionName::HardAround => "Hard Around",
            ActionName::Rally => "Rally",
            ActionName::LaunchTorpedo => "Launch Torpedo",
            ActionName::LaunchWing => "Launch Wing",
            ActionName::CompressedGas => "Compressed Gas",
            ActionName::Chaff => "Chaff",
        }
    }
}

/// What a unit has done and bought in the current turn; cleared at the start of each turn.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnRecord {
    /// CMD points spent from this ship's pool (SKY-CMD-01).
    pub cmd_spent: u8,
    /// Named actions this ship has benefited from (SKY-CMD-02).
    pub actions: BTreeSet<ActionName>,
    pub brace: Brace,
}

/// A torpedo token's bookkeeping (SKY-TORP-01, SKY-GM-16).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorpedoInfo {
    /// The torpedo's number in the game: `Torpedo #3`.
    pub number: u32,
    pub launcher: UnitId,
    pub launched_turn: u32,
    /// Torpedo Steps it has moved in.
    #[serde(default)]
    pub steps_moved: u32,
}

/// A ship, a wing or a torpedo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: UnitId,
    pub name: String,
    /// 0 or 1: the index into `State::sides`.
    pub side: u8,
    pub class: Class,
    /// Points cost (hull and fittings), what destroying it is worth (SKY-GM-30).
    pub cost: u32,
    pub at: Point,
    pub heading: Angle,
    pub elevation: u8,
    /// Base radius (SKY-GM-09).
    pub radius: Length,
    pub hull: i32,
    pub max_hull: i32,
    pub place: Place,
    #[serde(default)]
    pub weapons: Vec<Weapon>,
    #[serde(default)]
    pub modules: Vec<Module>,
    #[serde(default)]
    pub status: Status,
    #[serde(default)]
    pub this_turn: TurnRecord,
    /// A wing's carrier (SKY-GM-19).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<UnitId>,
    /// The turn a wing was launched in: it first activates the turn after (SKY-GM-19).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launched_turn: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torpedo: Option<TorpedoInfo>,
}

impl Unit {
    pub fn stats(&self) -> Stats {
        self.class.stats()
    }

    pub fn in_play(&self) -> bool {
        self.place == Place::InPlay
    }

    pub fn is_ship(&self) -> bool {
        self.class.is_ship()
    }

    pub fn is_ultralight(&self) -> bool {
        self.class.is_ultralight()
    }

    /// Ships and wings activate; torpedoes move in the Torpedo Step (SKY-ACT-01, -TSTEP-01).
    pub fn activates(&self) -> bool {
        self.class != Class::Torpedo
    }

    /// A fitted module that works: not failed, utilities not down (SKY-CRIT-6, SKY-SCRIT-6).
    pub fn has_working(&self, kind: ModuleKind) -> bool {
        !self.status.utilities_down && self.modules.iter().any(|m| m.kind == kind && !m.failed)
    }

    /// How many of a module work.
    pub fn working_count(&self, kind: ModuleKind) -> usize {
        if self.status.utilities_down {
            return 0;
        }
        self.modules
            .iter()
            .filter(|m| m.kind == kind && !m.failed)
            .count()
    }

    /// Sonar (SKY-MOD-9).
    pub fn has_sonar(&self) -> bool {
        self.has_working(ModuleKind::Sonar)
    }

    /// Full CMD this turn: class CMD, +1 with a Signal Array, 0 after a Bridge Hit
    /// (SKY-MOD-4, SKY-SCRIT-3, SKY-FLOOR-02).
    pub fn cmd_max(&self) -> u8 {
        if self.status.bridge_hit || !self.is_ship() {
            return 0;
        }
        let signal = u8::from(self.has_working(ModuleKind::SignalArray));
        self.stats().cmd.saturating_add(signal)
    }

    /// CMD not yet spent this turn.
    pub fn cmd_left(&self) -> u8 {
        self.cmd_max().saturating_sub(self.this_turn.cmd_spent)
    }

    /// Movement this activation: class movement, +2" for Full Ahead, −2" per Speed Loss,
    /// never below 0 (SKY-CMD-06, SKY-CRIT-3, SKY-FLOOR-01, SKY-FLOOR-02).
    pub fn speed(&self, full_ahead: bool) -> Length {
        let base = self.stats().movement.hundredths();
        let bonus = if full_ahead { 200 } else { 0 };
        let loss = 200 * i64::from(self.status.speed_loss);
        Length((base + bonus - loss).max(0))
    }

    /// Morale less Crew Casualties, never below 0 (SKY-CRIT-5).
    pub fn morale(&self) -> u8 {
        self.stats()
            .morale
            .saturating_sub(self.status.crew_casualties)
    }

    /// DC dice: the DC stat, +1 with a DC Center (SKY-DCR-01, SKY-MOD-3).
    pub fn dc_dice(&self) -> u8 {
        let centre = u8::from(self.has_working(ModuleKind::DcCenter));
        if self.stats().dc == 0 {
            return 0;
        }
        self.stats().dc.saturating_add(centre)
    }

    /// A weapon that can fire: not jammed, weapons not down (SKY-CRIT-2, SKY-SCRIT-5).
    pub fn weapon_works(&self, weapon: &Weapon) -> bool {
        !weapon.jammed && !self.status.weapons_down
    }

    pub fn is_shaken(&self) -> bool {
        self.status.morale != Morale::Steady
    }

    /// The statuses for Own Status: `Shaken`, `Jam: Lance`, `Speed −2`, …
    pub fn status_words(&self, turn: u32) -> Vec<String> {
        let mut words = Vec::new();
        let status = &self.status;
        match status.morale {
            Morale::Steady => {}
            Morale::Shaken => words.push("Shaken".to_string()),
            Morale::Broken => words.push("Broken".to_string()),
        }
        for weapon in self.weapons.iter().filter(|w| w.jammed) {
            words.push(format!("Jam: {}", weapon.kind.name()));
        }
        if status.speed_loss > 0 {
            words.push(format!("Speed −{}", 2 * u32::from(status.speed_loss)));
        }
        if status.rudder_loss {
            words.push("Rudder Loss".into());
        }
        if status.crew_casualties > 0 {
            words.push(format!("Morale −{}", status.crew_casualties));
        }
        for module in self.modules.iter().filter(|m| m.failed) {
            words.push(format!("Failed: {}", module.kind.name()));
        }
        if status.panic_turn.is_some_and(|t| t > turn) {
            words.push("Panic".into());
        }
        if status.bridge_hit {
            words.push("Bridge Hit".into());
        }
        if status.drifting {
            words.push("Drifting".into());
        }
        if status.weapons_down {
            words.push("Weapons Down".into());
        }
        if status.utilities_down {
            words.push("Utilities Down".into());
        }
        if status.on_fire {
            words.push("On Fire".into());
        }
        match self.place {
            Place::Aboard => words.push("Aboard".into()),
            Place::InPlay => {}
            Place::Destroyed if self.class == Class::Torpedo => words.push("Removed".into()),
            Place::Destroyed => words.push("Destroyed".into()),
            Place::Crashed => words.push("Crashed".into()),
            Place::Exited => words.push("Exited".into()),
        }
        words
    }

    /// Whether the player of `side` may know of this unit: all but the other side's wings
    /// still aboard, which are that side's secret (SKY-ADM-09, SKY-GM-19).
    pub fn known_to(&self, side: u8) -> bool {
        self.side == side || self.place != Place::Aboard
    }

    /// The elevation Stall takes this unit to at the start of a turn, if it stalls: one level
    /// down when in play at or above its Stall(x) (SKY-KW-STALL, SKY-GM-31).
    pub fn stalls_to(&self) -> Option<u8> {
        let stall = self.stats().stall?;
        (self.in_play() && self.elevation >= stall).then(|| self.elevation.saturating_sub(1))
    }

    /// `Valiant (Gunship)`, `Torpedo #2`.
    pub fn label(&self) -> String {
        match self.class {
            Class::Torpedo => self.name.clone(),
            class => format!("{} ({})", self.name, class.display()),
        }
    }
}

/// The whole battle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The turn that resolves next.
    pub turn: u32,
    pub rules: Rules,
    pub terrain: Terrain,
    /// Exactly two.
    pub sides: Vec<Side>,
    pub units: Vec<Unit>,
    /// Torpedoes launched so far in the game.
    #[serde(default)]
    pub torpedoes_launched: u32,
    #[serde(default)]
    pub finished: bool,
}

impl State {
    pub fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.units.get(id.index())
    }

    pub fn unit_mut(&mut self, id: UnitId) -> Option<&mut Unit> {
        self.units.get_mut(id.index())
    }

    pub fn side(&self, index: u8) -> Option<&Side> {
        self.sides.get(usize::from(index))
    }

    pub fn side_mut(&mut self, index: u8) -> Option<&mut Side> {
        self.sides.get_mut(usize::from(index))
    }

    /// The side a player commands.
    pub fn side_of(&self, player: PlayerId) -> Option<u8> {
        self.sides
            .iter()
            .position(|s| s.player.id == player)
            .and_then(|index| u8::try_from(index).ok())
    }

    /// Units on the table.
    pub fn in_play(&self) -> impl Iterator<Item = &Unit> {
        self.units.iter().filter(|u| u.in_play())
    }

    /// Finds a unit by name: exact (case- and punctuation-insensitive), else a unique start.
    pub fn find_unit(&self, text: &str) -> Option<UnitId> {
        self.find_among(text, |_| true)
    }

    /// Finds a unit the player of `side` may know of by name, as [`State::find_unit`]: the
    /// other side's wings still aboard are not found, nor do they make a start ambiguous, so
    /// their names read exactly as made-up ones (SKY-ADM-09).
    pub fn find_unit_for(&self, side: u8, text: &str) -> Option<UnitId> {
        self.find_among(text, |u| u.known_to(side))
    }

    fn find_among(&self, text: &str, known: impl Fn(&Unit) -> bool) -> Option<UnitId> {
        let key = crate::tables::squash(text);
        if key.is_empty() {
            return None;
        }
        if let Some(unit) = self
            .units
            .iter()
            .filter(|u| known(u))
            .find(|u| crate::tables::squash(&u.name) == key)
        {
            return Some(unit.id);
        }
        let mut starts = self
            .units
            .iter()
            .filter(|u| known(u))
            .filter(|u| crate::tables::squash(&u.name).starts_with(&key));
        match (starts.next(), starts.next()) {
            (Some(unit), None) => Some(unit.id),
            _ => None,
        }
    }

    /// The battle as the turn's activations will find it, as far as it can be known before
    /// any dice: every unit at or above its Stall(x) one level lower (SKY-KW-STALL,
    /// SKY-GM-31). The order check and its previews work on this, as the turn does.
    pub fn after_stall(&self) -> State {
        let mut next = self.clone();
        for unit in &mut next.units {
            if let Some(elevation) = unit.stalls_to() {
                unit.elevation = elevation;
            }
        }
        next
    }

    /// Whether a side still has ships or wings in play (SKY-GM-01).
    pub fn side_has_forces(&self, side: u8) -> bool {
        self.units
            .iter()
            .any(|u| u.side == side && u.in_play() && u.class != Class::Torpedo)
    }
}
