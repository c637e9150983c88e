//! One player's orders for one turn, as the engine keeps them (parsed from email text by
//! [`crate::parse`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::grid::TurnSide;
use crate::state::{ShipId, TubeMount};

/// A player's orders: one entry per ship they gave orders to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Orders {
    pub ships: BTreeMap<ShipId, ShipOrders>,
    /// The order in which this player's ships move within the side (IRON-GM-08).
    pub move_order: Vec<ShipId>,
    /// Ships with an order line that was refused when written: the report says so rather than
    /// "no orders" (the reasons went to the player alone, IRON-ADM-05).
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub refused: BTreeSet<ShipId>,
}

/// What one ship is told to do. Each weapon group takes a target and optional fallbacks, the
/// first one that can be engaged at resolution being fired on (IRON-GM-06); an empty list holds
/// fire.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShipOrders {
    /// Main armament: one target a turn (IRON-GUN-05).
    pub main: Vec<ShipId>,
    /// Port secondary: one target a turn (IRON-GUN-06).
    pub port: Vec<ShipId>,
    /// Starboard secondary: one target a turn (IRON-GUN-07).
    pub starboard: Vec<ShipId>,
    /// At most one torpedo a turn (IRON-TORP-03).
    pub torpedo: Option<TorpedoOrder>,
    /// The move; none means `HOLD` (IRON-GM-18).
    pub movement: Option<Manoeuvre>,
    /// Which way to turn for home if she must break off and either way is as short
    /// (IRON-GM-10(b)).
    pub withdraw: Option<TurnSide>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorpedoOrder {
    pub targets: Vec<ShipId>,
    /// The tube to use; any tube that bears when left out.
    #[serde(default)]
    pub tube: Option<TubeMount>,
}

/// The legal moves (IRON-MOV-01, IRON-MOV-03, IRON-GM-07), written as paths: `F` is one area
/// forward, `T45L`/`T45R` a 45° turn to port or starboard costing one area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Manoeuvre {
    /// No movement.
    #[serde(rename = "HOLD")]
    Hold,
    /// One area forward.
    #[serde(rename = "F")]
    Ahead,
    /// Two areas forward.
    #[serde(rename = "F, F")]
    AheadTwice,
    /// One area forward, then 45° to port (the turn costs the second area).
    #[serde(rename = "F, T45L")]
    AheadThenPort,
    /// One area forward, then 45° to starboard.
    #[serde(rename = "F, T45R")]
    AheadThenStarboard,
    /// A 45° pivot in place: only for a slowed ship under `allow_pivot_when_slowed`.
    #[serde(rename = "T45L")]
    PivotPort,
    #[serde(rename = "T45R")]
    PivotStarboard,
}

impl Manoeuvre {
    /// Areas of movement used, a turn counting one (IRON-MOV-03).
    pub fn cost(self) -> u8 {
        match self {
            Manoeuvre::Hold => 0,
            Manoeuvre::Ahead | Manoeuvre::PivotPort | Manoeuvre::PivotStarboard => 1,
            Manoeuvre::AheadTwice | Manoeuvre::AheadThenPort | Manoeuvre::AheadThenStarboard => 2,
        }
    }

    /// The 45° turn it makes, if any.
    pub fn turn(self) -> Option<TurnSide> {
        match self {
            Manoeuvre::AheadThenPort | Manoeuvre::PivotPort => Some(TurnSide::Port),
            Manoeuvre::AheadThenStarboard | Manoeuvre::PivotStarboard => Some(TurnSide::Starboard),
            _ => None,
        }
    }

    /// Forward steps before the turn.
    pub fn forward_steps(self) -> u8 {
        match self {
            Manoeuvre::Hold | Manoeuvre::PivotPort | Manoeuvre::PivotStarboard => 0,
            Manoeuvre::Ahead | Manoeuvre::AheadThenPort | Manoeuvre::AheadThenStarboard => 1,
            Manoeuvre::AheadTwice => 2,
        }
    }

    pub fn is_pivot(self) -> bool {
        matches!(self, Manoeuvre::PivotPort | Manoeuvre::PivotStarboard)
    }

    /// Forward one area then turn to `side`.
    pub fn ahead_then(side: TurnSide) -> Manoeuvre {
        match side {
            TurnSide::Port => Manoeuvre::AheadThenPort,
            TurnSide::Starboard => Manoeuvre::AheadThenStarboard,
        }
    }

    pub fn pivot(side: TurnSide) -> Manoeuvre {
        match side {
            TurnSide::Port => Manoeuvre::PivotPort,
            TurnSide::Starboard => Manoeuvre::PivotStarboard,
        }
    }

    /// The path as written in orders and reports: `HOLD`, `F`, `F, F`, `F, T45R`, `T45L`.
    pub fn path(self) -> &'static str {
        match self {
            Manoeuvre::Hold => "HOLD",
            Manoeuvre::Ahead => "F",
            Manoeuvre::AheadTwice => "F, F",
            Manoeuvre::AheadThenPort => "F, T45L",
            Manoeuvre::AheadThenStarboard => "F, T45R",
            Manoeuvre::PivotPort => "T45L",
            Manoeuvre::PivotStarboard => "T45R",
        }
    }
}

impl fmt::Display for Manoeuvre {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.path())
    }
}
