//! One player's written orders for one PBEM turn: designs and deployments while building; then
//! per ship two movement phases (a waypoint and a facing each), the shooting phase's actions in
//! the order written, and standing reactions for the enemy's turn (FOREVER-GM-02).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::design::Design;
use crate::fixed::Degrees;
use crate::geometry::Point;
use crate::state::Protect;

/// Where a move goes: a waypoint on the table, or an offset from where the ship is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Destination {
    To(Point),
    By(Point),
}

/// A new facing: absolute, or a turn from the present one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Facing {
    To(Degrees),
    By(i64),
}

/// One movement phase of one ship (FOREVER-MOVE1-*, FOREVER-MOVE2-*, FOREVER-GM-30).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Move {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go: Option<Destination>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facing: Option<Facing>,
    /// Swivel joints (by the outer section's name) set to an angle from the design.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub swivels: Vec<(String, i64)>,
    /// Take this ship or jettisoned body in tow at the end of the phase (FOREVER-GM-42).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tow: Option<String>,
}

/// Movement orders for one ship.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ShipMoves {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<Move>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<Move>,
    /// Let go of whatever is in tow, at the start of the first movement phase.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub release: bool,
}

/// What a shot is aimed at (FOREVER-GM-12): a section (its centre when the shot is resolved),
/// a demeter, or a point on the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aim {
    Section { ship: String, section: String },
    Demeter(String),
    Point(Point),
}

impl Orders {
    /// Notes that `ship` has a line for movement 1 (`first`) or 2, in the order written.
    pub fn written_move(&mut self, ship: &str, first: bool) {
        let list = if first {
            &mut self.first_moves_written
        } else {
            &mut self.second_moves_written
        };
        if !list.iter().any(|s| s.eq_ignore_ascii_case(ship)) {
            list.push(ship.to_string());
        }
    }
}

impl Aim {
    pub fn show(&self) -> String {
        match self {
            Aim::Section { ship, section } => format!("{ship}.{section}"),
            Aim::Demeter(name) => name.clone(),
            Aim::Point(point) => point.show(),
        }
    }
}

/// Which way a laser sweeps, seen from the gun (FOREVER-GM-15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Left,
    Right,
}

/// A laser's sweep: side and step in hundredths (½" to 1").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sweep {
    pub side: Side,
    /// In inches (stored as hundredths).
    #[serde(with = "crate::fixed::as_inches")]
    pub step: i64,
}

impl Default for Sweep {
    fn default() -> Self {
        Sweep {
            side: Side::Right,
            step: 100,
        }
    }
}

/// A shooting-phase action, resolved in the order written (FOREVER-SHOOT-1, FOREVER-GM-50).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// One weapon fires.
    Fire {
        ship: String,
        weapon: String,
        aim: Aim,
        /// A torpedo's declared range, in inches (FOREVER-WPN-TORP-8).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "crate::fixed::option_inches"
        )]
        range: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sweep: Option<Sweep>,
    },
    /// Identical weapons fire together (FOREVER-BAT-1).
    Battery {
        ship: String,
        weapons: Vec<String>,
        aim: Aim,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "crate::fixed::option_inches"
        )]
        range: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sweep: Option<Sweep>,
    },
    /// An EMP fires (FOREVER-MOD-EMP-*, FOREVER-GM-22).
    Emp {
        ship: String,
        module: String,
        aim: Aim,
    },
    /// A nano matrix heals (FOREVER-MOD-NANO-*, FOREVER-GM-29).
    Heal {
        ship: String,
        module: String,
        target_ship: String,
        target_section: String,
        amount: i64,
    },
    /// A demeter launcher launches (FOREVER-MOD-DL-*, FOREVER-GM-26).
    Launch {
        ship: String,
        module: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        go: Option<Destination>,
    },
    /// A targeting computer is attached to a weapon's shot (FOREVER-GM-27).
    Computer {
        ship: String,
        module: String,
        weapon: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback: Option<Aim>,
    },
    /// A flux projector draws its line at the start of the phase (FOREVER-GM-23).
    Flux {
        ship: String,
        module: String,
        bearing: Degrees,
        length: i64,
    },
}

/// One demeter's orders (FOREVER-GM-26).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DemeterOrders {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<Destination>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fire: Option<Aim>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<Destination>,
}

/// A ship to place (FOREVER-GM-44).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deploy {
    pub ship: String,
    pub at: Point,
    #[serde(default)]
    pub facing: Degrees,
}

/// A standing reaction for the enemy's turns (FOREVER-GM-20).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deflect {
    pub ship: String,
    pub module: String,
    /// `None` cancels the standing order.
    pub protect: Option<Protect>,
}

/// Everything one player ordered for one PBEM turn.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Orders {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub designs: Vec<Design>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deploys: Vec<Deploy>,
    /// Movement by ship name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub moves: BTreeMap<String, ShipMoves>,
    /// Ships in the order their movement 1 lines were written (FOREVER-MOVE1-1, setup
    /// `move_order`). Orders stored before it existed have none: the ships then move by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_moves_written: Vec<String>,
    /// The same for movement 2 (FOREVER-MOVE2-1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub second_moves_written: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub demeters: BTreeMap<String, DemeterOrders>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deflect: Vec<Deflect>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resign: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offer_draw: bool,
}
