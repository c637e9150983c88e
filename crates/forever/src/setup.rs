//! The GM's settings: the table, terrain, and fleets either given by the GM or built by the
//! players by mail (FOREVER-GEN-2, FOREVER-PLAY-1/2,
//! FOREVER-GM-03/13/39/40/41/43/44/45).

use serde::{Deserialize, Serialize};

use crate::design::Design;
use crate::fixed::{Degrees, Inches};
use crate::geometry::{Point, Polygon};

/// How a PBEM turn maps onto the text's player-turns (FOREVER-GM-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnMode {
    /// One PBEM turn is a whole round: every player's player-turn in seat order.
    #[default]
    Round,
    /// One PBEM turn is one player-turn.
    Alternate,
}

/// How fleets are placed (FOREVER-GM-44).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeployMode {
    /// Every player places every ship at once, unseen.
    #[default]
    Blind,
    /// One ship per player per deployment turn, first player first.
    Alternate,
}

/// In which order a player's own ships carry out their moves within a movement phase
/// (FOREVER-MOVE1-1, FOREVER-MOVE2-1): the text lets a player move ships one at a time as they
/// choose; by mail the choice is the order of the lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveOrder {
    /// In the order the movement lines are written; ships without a line after, by id.
    #[default]
    Written,
    /// By ship id (the order the ships were placed), whatever the mail's order.
    ById,
}

/// How far a missile's blast reaches (FOREVER-WPN-MSL-5, FOREVER-GM-16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissileRadius {
    /// The weapon's damage stat as bought, in inches (the catalogue's FOREVER-GM-16).
    #[default]
    Bought,
    /// The base damage every weapon starts with: 1".
    Base,
}

/// Who goes first (FOREVER-PLAY-1, FOREVER-GM-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FirstPlayer {
    /// The roll-off's order holds for the whole game.
    #[default]
    Fixed,
    /// The order turns by one seat every round: the first player of a round goes last in the
    /// next.
    Alternating,
}

/// Whether a ship may ram with its core (FOREVER-RAM-2, FOREVER-GM-33).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoreRamming {
    /// An ordered move whose first contact would be the mover's core is refused.
    #[default]
    Refused,
    /// The core rams like any other section.
    Allowed,
}

/// When drifting bodies and meteor showers move (FOREVER-JET-4, FOREVER-TER-2,
/// FOREVER-GM-34/40).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftTiming {
    /// Once a round, at its start.
    #[default]
    PerRound,
    /// At the start of every player-turn.
    PerPlayerTurn,
}

/// Where a battery's lateral offsets are measured (FOREVER-BAT-1, FOREVER-GM-38): the text says
/// the later shots "hit" an inch or more to either side, which can be read at the marker the
/// first gun's scatter places, or where the shots land.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatteryOffsets {
    /// Each shot's line runs from its own gun through the marker shifted by its offset (the
    /// catalogue's FOREVER-GM-38).
    #[default]
    Marker,
    /// Each shot's line runs from its own gun through the point where the first gun's line
    /// first meets something within range (the marker if nothing), shifted by its offset: the
    /// offsets are the spread where the shots land.
    Impact,
}

/// A big rock: a convex polygon on the table (FOREVER-TER-1, FOREVER-GM-39).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rock {
    pub name: String,
    pub corners: Vec<Point>,
}

/// A black hole: a point on the table (FOREVER-TER-3, FOREVER-GM-41).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlackHole {
    pub name: String,
    pub at: Point,
}

/// One ship the GM places before the game: a design, where and how it faces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShipSetup {
    pub design: Design,
    /// Another name for this copy of the design (the design's own name if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The core's centre on the table, in inches.
    pub at: Point,
    #[serde(default)]
    pub facing: Degrees,
}

/// One player's fleet, given by the GM.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FleetSetup {
    pub ships: Vec<ShipSetup>,
}

fn default_points() -> u32 {
    200
}

fn default_table() -> [Inches; 2] {
    [Inches::whole(72), Inches::whole(48)]
}

fn default_meteor_faces() -> u32 {
    2
}

/// A switch left at its default is not written, so a stored setup (and so a state) reads and
/// writes back as it did before the switch existed.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// The GM's settings (FOREVER-GM-02/13/43/44/45 and section 3 of the catalogue).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Each fleet's points (FOREVER-GEN-2).
    #[serde(default = "default_points")]
    pub points_limit: u32,
    /// Width and height in inches (FOREVER-GM-45).
    #[serde(default = "default_table")]
    pub table: [Inches; 2],
    #[serde(default)]
    pub turn_mode: TurnMode,
    #[serde(default)]
    pub deploy_mode: DeployMode,
    #[serde(default)]
    pub rocks: Vec<Rock>,
    #[serde(default)]
    pub black_holes: Vec<BlackHole>,
    /// Meteor showers on (FOREVER-TER-2, FOREVER-GM-40).
    #[serde(default)]
    pub meteors: bool,
    /// How many faces of the meteor check's D6 are "hit" (nothing happens): the catalogue's
    /// `meteor_hit_chance` × 6, default 2 (FOREVER-GM-13).
    #[serde(default = "default_meteor_faces")]
    pub meteor_hit_faces: u32,
    /// The game ends after this many rounds (FOREVER-GM-43).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_limit: Option<u32>,
    /// The GM's switches (the rulebook): each listed by `Forever::rulings`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub move_order: MoveOrder,
    #[serde(default, skip_serializing_if = "is_default")]
    pub missile_radius: MissileRadius,
    #[serde(default, skip_serializing_if = "is_default")]
    pub first_player: FirstPlayer,
    #[serde(default, skip_serializing_if = "is_default")]
    pub core_ramming: CoreRamming,
    #[serde(default, skip_serializing_if = "is_default")]
    pub drift: DriftTiming,
    #[serde(default, skip_serializing_if = "is_default")]
    pub battery_offsets: BatteryOffsets,
    /// Fleets in roster order, placed by the GM. Empty: the players build and deploy by mail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fleets: Vec<FleetSetup>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            points_limit: default_points(),
            table: default_table(),
            turn_mode: TurnMode::Round,
            deploy_mode: DeployMode::Blind,
            rocks: Vec::new(),
            black_holes: Vec::new(),
            meteors: false,
            meteor_hit_faces: default_meteor_faces(),
            turn_limit: None,
            move_order: MoveOrder::Written,
            missile_radius: MissileRadius::Bought,
            first_player: FirstPlayer::Fixed,
            core_ramming: CoreRamming::Refused,
            drift: DriftTiming::PerRound,
            battery_offsets: BatteryOffsets::Marker,
            fleets: Vec::new(),
        }
    }
}

impl Setup {
    pub fn width(&self) -> i64 {
        self.table[0].0
    }

    pub fn height(&self) -> i64 {
        self.table[1].0
    }
}

/// The rock's polygon.
pub fn rock_polygon(rock: &Rock) -> Polygon {
    Polygon::new(rock.corners.clone())
}

/// The GM's switches in words, each with its rule ID, always all of them (the rulebook).
pub fn rulings(setup: &Setup) -> Vec<engine::Ruling> {
    let ruling = |rule: &str, text: &str| engine::Ruling {
        rule: rule.to_string(),
        text: text.to_string(),
    };
    vec![
        ruling(
            "FOREVER-MOVE1-1",
            match setup.move_order {
                MoveOrder::Written => {
                    "A player's ships move one at a time in the order their movement lines are written (ships without a line afterwards, by id), so a column can advance in formation."
                }
                MoveOrder::ById => {
                    "A player's ships move one at a time by ship id (the order they were placed), whatever the order of the lines."
                }
            },
        ),
        ruling(
            "FOREVER-WPN-MSL-5",
            match setup.missile_radius {
                MissileRadius::Bought => {
                    "A missile's blast reaches as many inches as the damage bought for it; each section in reach takes the damage ÷ (2 × its distance), at least ½\"."
                }
                MissileRadius::Base => {
                    "A missile's blast reaches 1\" (the base damage of every weapon), whatever damage was bought; each section in reach takes the damage ÷ (2 × its distance), at least ½\"."
                }
            },
        ),
        ruling(
            "FOREVER-PLAY-1",
            match setup.first_player {
                FirstPlayer::Fixed => {
                    "The roll-off decides who goes first, and that order holds for the whole game."
                }
                FirstPlayer::Alternating => {
                    "The roll-off decides who goes first in the first round; after that the order turns by one seat every round."
                }
            },
        ),
        ruling(
            "FOREVER-RAM-2",
            match setup.core_ramming {
                CoreRamming::Refused => {
                    "A ship may not ram with its core: an ordered move whose first contact would be its core is refused and the ship stays put."
                }
                CoreRamming::Allowed => {
                    "A ship may ram with its core, which takes and deals ramming damage like any other section."
                }
            },
        ),
        ruling(
            "FOREVER-GM-38",
            match setup.battery_offsets {
                BatteryOffsets::Marker => {
                    "A battery's shots run from their own guns through the first gun's marker, the later ones shifted to either side of it (+1\", −1\", then further out) at the marker."
                }
                BatteryOffsets::Impact => {
                    "A battery's shots run from their own guns through the point where the first gun's line first meets something (the marker if nothing), the later ones shifted to either side of it (+1\", −1\", then further out) there, where they land."
                }
            },
        ),
        ruling(
            "FOREVER-JET-4",
            match setup.drift {
                DriftTiming::PerRound => {
                    "Jettisoned sections drift and meteor showers move once a round, at its start."
                }
                DriftTiming::PerPlayerTurn => {
                    "Jettisoned sections drift and meteor showers move at the start of every player-turn."
                }
            },
        ),
    ]
}
