//! The game state: seats, ships and what has broken off them, demeters, meteors, flux lines.
//!
//! Everything serialises to readable JSON; a ship stores its design as text and its damage and
//! module states, while derived figures (HP limits, mass, speed) are recomputed from the design
//! (FOREVER-GM-11).

use std::collections::BTreeMap;

use engine::{Player, PlayerId};
use serde::{Deserialize, Serialize};

use crate::design::{Design, Hull, Item, ModuleSpec, Points};
use crate::fixed::Degrees;
use crate::geometry::{Point, Polygon};
use crate::setup::{Setup, ShipSetup, rock_polygon};

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Players send designs and deployments (FOREVER-GEN-2, FOREVER-GM-44).
    Building,
    Battle,
    Over,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatStatus {
    Playing,
    Resigned,
    /// No core left in play (FOREVER-GM-43).
    WipedOut,
}

/// What a standing deflector order protects (FOREVER-GM-20).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protect {
    Any,
    Sections(Vec<String>),
}

/// One player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub player: Player,
    /// Points of enemy parts destroyed (FOREVER-GM-43).
    pub score: Points,
    pub status: SeatStatus,
    /// Own player-turns played so far (FOREVER-GM-48).
    pub turns_taken: u32,
    /// Standing deflector orders, `Ship.item` → what it protects. Hidden from other players.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub standing: BTreeMap<String, Protect>,
    /// A fleet accepted while building, not yet on the table. Hidden from other players.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<ShipSetup>,
    /// Building: has this player's fleet been accepted?
    #[serde(default)]
    pub ready: bool,
}

impl Seat {
    pub fn new(player: Player) -> Self {
        Seat {
            player,
            score: Points::ZERO,
            status: SeatStatus::Playing,
            turns_taken: 0,
            standing: BTreeMap::new(),
            pending: Vec::new(),
            ready: false,
        }
    }
}

/// What became of a part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartStatus {
    Attached,
    Destroyed,
    /// Broken off: now a section of the jettisoned body with this id (FOREVER-JET-1).
    Jettisoned(u32),
}

/// A part's damage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartState {
    pub hp: i64,
    pub status: PartStatus,
    /// Invulnerable for the rest of this player-turn (FOREVER-MOD-DEF-3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deflected: bool,
}

/// A weapon's or module's state.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ItemState {
    /// Destroyed by an EMP or with its section (FOREVER-MOD-EMP-3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub destroyed: bool,
    /// Uses left before a recharge (FOREVER-DEF-RECHARGE): deflector, EMP, targeting computer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charges: Option<u32>,
    /// Energy left (FOREVER-DEF-ENERGY): flux projector, nano matrix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<i64>,
}

/// What a tow hitch holds (FOREVER-MOD-TOW-2, FOREVER-GM-42).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TowTarget {
    Ship(u32),
    Body(u32),
}

/// A ship in play (or destroyed: kept for the record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ship {
    pub id: u32,
    pub name: String,
    pub owner: PlayerId,
    pub design: Design,
    /// The core's centre on the table.
    pub at: Point,
    /// Rotation anticlockwise from the design's +x.
    pub facing: Degrees,
    /// Swivel angles by part index (FOREVER-SWV-2).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub swivels: BTreeMap<usize, Degrees>,
    pub parts: Vec<PartState>,
    pub items: Vec<ItemState>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub destroyed: bool,
    /// Disabled through the owner's player-turn of this number (FOREVER-GM-37).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_through: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub towing: Option<TowTarget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub towed_by: Option<u32>,
    /// Demeters launched so far, for their names.
    #[serde(default)]
    pub launched: u32,
}

impl Ship {
    /// A new, undamaged ship from a checked design.
    pub fn new(id: u32, name: &str, owner: PlayerId, design: Design, hull: &Hull) -> Self {
        Ship {
            id,
            name: name.to_string(),
            owner,
            design,
            at: Point::ORIGIN,
            facing: Degrees::ZERO,
            swivels: BTreeMap::new(),
            parts: hull
                .parts
                .iter()
                .map(|p| PartState {
                    hp: p.max_hp,
                    status: PartStatus::Attached,
                    deflected: false,
                })
                .collect(),
            items: hull
                .items
                .iter()
                .map(|slot| match slot.item {
                    Item::Module(module) => ItemState {
                        destroyed: false,
                        charges: module.recharge_on().map(|_| module.charges()),
                        energy: module.energy().map(|(max, _)| max),
                    },
                    Item::Weapon(_) => ItemState::default(),
                })
                .collect(),
            destroyed: false,
            disabled_through: None,
            towing: None,
            towed_by: None,
            launched: 0,
        }
    }

    pub fn attached(&self, part: usize) -> bool {
        !self.destroyed
            && self
                .parts
                .get(part)
                .is_some_and(|p| p.status == PartStatus::Attached)
    }

    /// Can this item be used: not destroyed, on a part still attached (FOREVER-JET-5)?
    pub fn item_usable(&self, hull: &Hull, item: usize) -> bool {
        hull.items
            .get(item)
            .is_some_and(|slot| self.attached(slot.part))
            && self.items.get(item).is_some_and(|s| !s.destroyed)
    }

    /// Live thrust (FOREVER-GM-11: lost thrusters no longer count).
    pub fn thrust(&self, hull: &Hull) -> i64 {
        hull.items
            .iter()
            .enumerate()
            .filter(|(index, _)| self.item_usable(hull, *index))
            .map(|(_, slot)| match slot.item {
                Item::Module(module) => module.thrust(),
                Item::Weapon(_) => 0,
            })
            .sum()
    }

    /// Mass of the parts still attached, in sixteenths (FOREVER-GM-11).
    pub fn mass16(&self, hull: &Hull) -> i64 {
        hull.parts
            .iter()
            .enumerate()
            .filter(|(index, _)| self.attached(*index))
            .map(|(_, part)| part.mass16)
            .sum()
    }

    /// Speed in hundredths (FOREVER-MOD-THR-5/6).
    pub fn speed(&self, hull: &Hull) -> i64 {
        crate::design::hull::speed(self.thrust(hull), self.mass16(hull))
    }

    /// Non-core sections still attached.
    pub fn sections_left(&self) -> usize {
        self.parts
            .iter()
            .skip(1)
            .filter(|p| p.status == PartStatus::Attached)
            .count()
    }

    /// Where a ship-local point is on the table: through every swivel joint from `part` in to
    /// the core, deepest first, then the ship's rotation and position (FOREVER-SWV-4).
    pub fn to_world(&self, hull: &Hull, part: usize, local: Point) -> Point {
        let mut point = local;
        let mut current = Some(part);
        while let Some(index) = current {
            let Some(spec) = hull.parts.get(index) else {
                break;
            };
            if let (Some(pivot), Some(angle)) = (spec.swivel, self.swivels.get(&index))
                && *angle != Degrees::ZERO
            {
                point = point.rotated_about(pivot, *angle);
            }
            current = spec.parent;
        }
        self.at + point.rotated(self.facing)
    }

    /// The part's rectangle on the table.
    pub fn part_polygon(&self, hull: &Hull, part: usize) -> Option<Polygon> {
        let [x0, y0, x1, y1] = hull.parts.get(part)?.rect;
        Some(Polygon {
            corners: [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
                .into_iter()
                .map(|(x, y)| self.to_world(hull, part, Point::new(x, y)))
                .collect(),
        })
    }

    /// Every attached part's rectangle, `None` for parts gone.
    /// The part a swivel of `part` to `angle` would leave more than a quarter covered by the
    /// ship's other parts, if any (FOREVER-GM-32). The order check and the movement phase
    /// both ask this, so a swivel the turn would refuse is refused when written.
    pub fn swivel_overcovers(&self, hull: &Hull, part: usize, angle: i64) -> Option<usize> {
        let mut trial = self.clone();
        trial.swivels.insert(part, Degrees::new(angle));
        let shapes: Vec<(usize, Polygon)> = trial
            .polygons(hull)
            .into_iter()
            .enumerate()
            .filter_map(|(index, shape)| shape.map(|s| (index, s)))
            .collect();
        shapes.iter().find_map(|(index, shape)| {
            let covered: i128 = shapes
                .iter()
                .filter(|(other, _)| other != index)
                .map(|(_, other)| shape.overlap_area2(other))
                .sum();
            (4 * covered > shape.area2()).then_some(*index)
        })
    }

    pub fn polygons(&self, hull: &Hull) -> Vec<Option<Polygon>> {
        (0..hull.parts.len())
            .map(|part| {
                if self.attached(part) {
                    self.part_polygon(hull, part)
                } else {
                    None
                }
            })
            .collect()
    }

    pub fn is_disabled(&self, own_turn: u32) -> bool {
        self.disabled_through
            .is_some_and(|through| own_turn <= through)
    }
}

/// One section of a jettisoned body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodySection {
    /// The part's name on its old ship.
    pub name: String,
    pub part: usize,
    pub hp: i64,
    pub base_hp: i64,
    pub mass16: i64,
    pub shape: Polygon,
    /// What destroying it (or its leaving the table) scores: its price and its items still
    /// whole (FOREVER-GM-43).
    pub value: Points,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub destroyed: bool,
}

/// Sections broken off a ship, drifting as one rigid body (FOREVER-JET-*, FOREVER-GM-34).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Body {
    pub id: u32,
    pub owner: PlayerId,
    /// The ship it came from.
    pub ship: String,
    pub sections: Vec<BodySection>,
    /// The drift direction (any length).
    pub heading: Point,
    /// Who caused the break-off: scores it if it leaves the table (FOREVER-GM-43).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit: Option<PlayerId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub towed_by: Option<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

impl Body {
    pub fn mass16(&self) -> i64 {
        self.sections
            .iter()
            .filter(|s| !s.destroyed)
            .map(|s| s.mass16)
            .sum()
    }

    pub fn label(&self) -> String {
        format!("{}/J{}", self.ship, self.id)
    }

    pub fn centre(&self) -> Point {
        let live: Vec<Point> = self
            .sections
            .iter()
            .filter(|s| !s.destroyed)
            .map(|s| s.shape.centre())
            .collect();
        Polygon { corners: live }.centre()
    }
}

/// A demeter: a ¼" drone with a small gun (FOREVER-MOD-DL-*, FOREVER-GM-26).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Demeter {
    /// `Ship/D1`.
    pub name: String,
    pub owner: PlayerId,
    pub ship: u32,
    pub at: Point,
    pub hp: i64,
    /// In inches (stored as hundredths).
    #[serde(with = "crate::fixed::as_inches")]
    pub speed: i64,
    /// Removed at the end of its owner's player-turn of this number.
    pub expires_after: u32,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

/// Half the side of a demeter, in hundredths (¼" square, FOREVER-MOD-DL-2).
pub const DEMETER_HALF: i64 = 12;

impl Demeter {
    pub fn polygon(&self) -> Polygon {
        Polygon::rect(
            self.at.x - DEMETER_HALF,
            self.at.y - DEMETER_HALF,
            self.at.x + DEMETER_HALF + 1,
            self.at.y + DEMETER_HALF + 1,
        )
    }
}

/// One meteor: 1" across, 3 HP, mass 30 (FOREVER-TER-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meteor {
    pub id: u32,
    pub at: Point,
    pub hp: i64,
}

/// Radius of a meteor in hundredths.
pub const METEOR_RADIUS: i64 = 50;
/// Mass of a meteor in sixteenths.
pub const METEOR_MASS16: i64 = 30 * 16;

impl Meteor {
    /// An octagon through points ½" from the centre (FOREVER-ADM-05).
    pub fn polygon(&self) -> Polygon {
        Polygon::octagon(self.at, METEOR_RADIUS)
    }
}

/// A shower's meteors, moving together (FOREVER-GM-40).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeteorGroup {
    pub id: u32,
    pub heading: Point,
    pub meteors: Vec<Meteor>,
}

/// A flux projector's line (FOREVER-MOD-FLUX-3, FOREVER-GM-23).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FluxLine {
    pub ship: u32,
    pub item: usize,
    pub owner: PlayerId,
    pub from: Point,
    pub to: Point,
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finish {
    pub reason: String,
    pub winners: Vec<PlayerId>,
}

/// The whole game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub setup: Setup,
    /// The PBEM turn that resolves next.
    pub turn: u32,
    /// Battle rounds completed.
    pub round: u32,
    pub phase: Phase,
    /// Roster order.
    pub seats: Vec<Seat>,
    /// Play order from the roll-off: the first player first (FOREVER-PLAY-1).
    pub seating: Vec<PlayerId>,
    /// The roll-off's dice per player, for the record.
    pub roll_off: Vec<(PlayerId, Vec<u32>)>,
    /// Alternate turns: the index into `seating` of the next player-turn.
    #[serde(default)]
    pub next_seat: usize,
    pub ships: Vec<Ship>,
    #[serde(default)]
    pub bodies: Vec<Body>,
    #[serde(default)]
    pub demeters: Vec<Demeter>,
    #[serde(default)]
    pub meteor_groups: Vec<MeteorGroup>,
    #[serde(default)]
    pub flux_lines: Vec<FluxLine>,
    /// The next id for a ship, body, meteor or group.
    pub next_id: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<Finish>,
}

impl State {
    /// The number the player's next player-turn will have: the one a ship's disablement is
    /// measured against when that turn resolves (FOREVER-DEF-DISABLED, FOREVER-GM-51).
    pub fn next_own_turn(&self, player: PlayerId) -> u32 {
        self.seat(player)
            .map_or(1, |s| s.turns_taken.saturating_add(1))
    }

    /// Whether a ship will still be disabled in her owner's next player-turn: then she takes
    /// no shooting-phase action, nor do her demeters (FOREVER-DEF-DISABLED). The order check
    /// and the resolution ask this same question.
    pub fn disabled_for_next_turn(&self, ship: usize) -> bool {
        self.ships
            .get(ship)
            .is_some_and(|s| s.is_disabled(self.next_own_turn(s.owner)))
    }

    pub fn seat(&self, player: PlayerId) -> Option<&Seat> {
        self.seats.iter().find(|s| s.player.id == player)
    }

    pub fn seat_mut(&mut self, player: PlayerId) -> Option<&mut Seat> {
        self.seats.iter_mut().find(|s| s.player.id == player)
    }

    pub fn player_name(&self, player: PlayerId) -> String {
        self.seat(player)
            .map_or_else(|| format!("player {}", player.0), |s| s.player.name.clone())
    }

    pub fn ship_index(&self, name: &str) -> Option<usize> {
        self.ships
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The hull of every ship, in ship order. Designs in the state were checked when the ships
    /// were built, so this cannot fail on a state the engine wrote; a hand-edited state whose
    /// design no longer checks is reported, not panicked on.
    pub fn hulls(&self) -> Result<Vec<Hull>, String> {
        self.ships
            .iter()
            .map(|ship| {
                Hull::check(&ship.design).map_err(|issues| {
                    format!(
                        "{}'s design does not check: {}",
                        ship.name,
                        issues.first().map(ToString::to_string).unwrap_or_default()
                    )
                })
            })
            .collect()
    }

    /// The seat index in play order of a player.
    pub fn seat_order(&self, player: PlayerId) -> Option<usize> {
        self.seating.iter().position(|p| *p == player)
    }

    /// The deployment sector of a player: a vertical strip of the table, the first player's at
    /// the low-x end (FOREVER-PLAY-2, FOREVER-GM-44).
    pub fn deployment_strip(&self, player: PlayerId) -> Option<(i64, i64)> {
        let index = i64::try_from(self.seat_order(player)?).ok()?;
        let count = i64::try_from(self.seating.len()).ok()?.max(1);
        let width = self.setup.width();
        Some((width * index / count, width * (index + 1) / count))
    }

    /// Ships off the table or overlapping each other or a rock.
    pub fn placement_problems(&self) -> Vec<String> {
        let Ok(hulls) = self.hulls() else {
            return vec!["a design does not check".into()];
        };
        let table = Polygon::rect(0, 0, self.setup.width(), self.setup.height());
        let rocks: Vec<(String, Polygon)> = self
            .setup
            .rocks
            .iter()
            .map(|r| (r.name.clone(), rock_polygon(r)))
            .collect();
        let mut problems = Vec::new();
        let shapes: Vec<Vec<Polygon>> = self
            .ships
            .iter()
            .zip(&hulls)
            .map(|(ship, hull)| ship.polygons(hull).into_iter().flatten().collect())
            .collect();
        for (index, (ship, polygons)) in self.ships.iter().zip(&shapes).enumerate() {
            if polygons
                .iter()
                .any(|p| p.corners.iter().any(|c| !table.contains(*c)))
            {
                problems.push(format!("{} is not wholly on the table", ship.name));
            }
            for (name, rock) in &rocks {
                if polygons.iter().any(|p| p.overlaps(rock)) {
                    problems.push(format!("{} overlaps the rock {name}", ship.name));
                }
            }
            for (other, other_polygons) in self.ships.iter().zip(&shapes).skip(index + 1) {
                if polygons
                    .iter()
                    .any(|p| other_polygons.iter().any(|q| p.overlaps(q)))
                {
                    problems.push(format!("{} overlaps {}", ship.name, other.name));
                }
            }
        }
        problems
    }

    /// The players still playing, in play order.
    pub fn active_players(&self) -> Vec<PlayerId> {
        self.seating
            .iter()
            .copied()
            .filter(|p| {
                self.seat(*p)
                    .is_some_and(|s| s.status == SeatStatus::Playing)
            })
            .collect()
    }

    /// Is this module of that kind (for finding deflectors and the like)?
    pub fn module_kind(hull: &Hull, item: usize) -> Option<ModuleSpec> {
        match hull.items.get(item)?.item {
            Item::Module(module) => Some(module),
            Item::Weapon(_) => None,
        }
    }
}
