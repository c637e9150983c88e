//! The state of a battle between turns: the ships, their damage and their commanders.

use std::fmt;

use engine::{Player, PlayerId};
use serde::{Deserialize, Serialize};

use crate::grid::{Arc, Area, Board, Edge, Heading};
use crate::tables::DiceTable;

/// Every ship starts with 12 Flotation Points (IRON-FP-01).
pub const STARTING_FP: u8 = 12;
/// At or below 6 FP a ship must break off (IRON-FP-01, IRON-DMG-02).
pub const CRITICAL_POINT: u8 = 6;
/// How long a bridge hit stops the ship firing and turning (IRON-GUN-11, IRON-GM-11).
pub const BRIDGE_TURNS: u32 = 3;

/// A ship's number: its place in the setup's roster, from 1. Dice are thrown in this order
/// (catalogue section 2, RNG consumption order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ShipId(pub u16);

impl fmt::Display for ShipId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The GM's settings that stay fixed for the whole battle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    /// The sea (IRON-GM-15).
    pub board: Board,
    /// Dice by weapon, range and arc (IRON-GM-01).
    pub dice_table: DiceTable,
    /// Lets a slowed ship pivot 45° in place instead of moving (IRON-GM-07).
    pub allow_pivot_when_slowed: bool,
    /// Areas that block sight and movement (IRON-GM-04, IRON-ADM-03).
    pub terrain: Vec<Area>,
    /// The turn after which the battle ends regardless (IRON-GM-15).
    pub turn_limit: Option<u32>,
    /// Who moves first within a side (IRON-GM-08). States stored before the switch read as
    /// the default, and a default is not written, so they stay byte for byte as they were.
    #[serde(default, skip_serializing_if = "MoveOrder::is_default")]
    pub move_order: MoveOrder,
    /// A move over a limit already in force when written (IRON-GM-07).
    #[serde(default, skip_serializing_if = "OverLimitMoves::is_default")]
    pub over_limit_moves: OverLimitMoves,
    /// Whether a broken-off ship may fire (IRON-DMG-02, IRON-GM-10).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub broken_off_ships_fire: bool,
}

fn yes() -> bool {
    true
}

fn is_yes(value: &bool) -> bool {
    *value
}

/// The order ships move in within a side (IRON-GM-08).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveOrder {
    /// The players' `ORDER` lines, then ship number: the catalogue's ruling.
    #[default]
    OrderLines,
    /// Ship number only; `ORDER` lines are refused.
    ShipId,
    /// A ship leaving an area moves before one entering it; otherwise as `OrderLines`.
    LeavingFirst,
}

impl MoveOrder {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// What becomes of a move that breaks a limit already in force when it is written
/// (IRON-GM-07).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverLimitMoves {
    /// Refused with the reason: the catalogue's order check.
    #[default]
    Refused,
    /// Accepted and cut down to `F`, as at resolution.
    CutDown,
}

impl OverLimitMoves {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// One side of the battle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    pub name: String,
    /// The edge its broken-off ships steer for (IRON-GM-10).
    pub home_edge: Edge,
}

/// A player and the side they command ships for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commander {
    pub player: Player,
    /// Index into [`State::sides`].
    pub side: usize,
    /// Enemy FP removed by this player's ships (catalogue section 5, Score).
    pub score: u32,
    /// Left the game: their ships get the NMR treatment from then on (IRON-GM-18).
    pub left: bool,
}

/// A main turret (IRON-GM-03).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turret {
    pub name: String,
    /// The arcs it can bear in.
    pub bears: Vec<Arc>,
    pub destroyed: bool,
}

impl Turret {
    pub fn bears_on(&self, arc: Arc) -> bool {
        !self.destroyed && self.bears.contains(&arc)
    }
}

/// The secondary guns on one side (IRON-GUN-06, IRON-GUN-07, IRON-GM-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Battery {
    /// Guns in the battery; each throws the table's dice.
    pub guns: u8,
    pub destroyed: bool,
}

impl Battery {
    pub fn can_fire(&self) -> bool {
        self.guns > 0 && !self.destroyed
    }
}

/// Where a fixed torpedo tube points (IRON-TORP-02, IRON-GM-16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TubeMount {
    Bow,
    Stern,
    BeamPort,
    BeamStbd,
}

impl TubeMount {
    /// The arc the tube fires into.
    pub fn arc(self) -> Arc {
        match self {
            TubeMount::Bow => Arc::Forward,
            TubeMount::Stern => Arc::Aft,
            TubeMount::BeamPort => Arc::Port,
            TubeMount::BeamStbd => Arc::Starboard,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TubeMount::Bow => "bow",
            TubeMount::Stern => "stern",
            TubeMount::BeamPort => "port beam",
            TubeMount::BeamStbd => "starboard beam",
        }
    }
}

/// A fire started by a gunfire critical 2 (IRON-GUN-15, IRON-GM-13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Burning {
    /// The turn whose fire steps started it; the first check is at the start of the next.
    pub since_turn: u32,
    /// The player whose ship started it, credited if the magazine goes up.
    pub started_by: Option<PlayerId>,
}

/// Whether a ship is still in the battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Fate {
    Afloat,
    /// Sunk at 0 FP (IRON-DMG-03), in this turn.
    Sunk {
        turn: u32,
    },
    /// Left the board by a forced move (IRON-GM-10).
    Escaped {
        turn: u32,
        edge: Edge,
    },
}

/// One ship, its damage and its lasting effects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ship {
    pub id: ShipId,
    pub name: String,
    pub player: PlayerId,
    /// Index into [`State::sides`].
    pub side: usize,
    /// The ship type's name in the setup (IRON-GM-03).
    pub class: String,
    /// Fitted with a ram (IRON-RAM-03, IRON-RAM-07).
    pub ram: bool,
    pub area: Area,
    pub heading: Heading,
    /// Flotation Points left, 0..=12 (IRON-FP-01); they never rise (IRON-DMG-01).
    pub fp: u8,
    pub turrets: Vec<Turret>,
    pub port_battery: Battery,
    pub starboard_battery: Battery,
    pub tubes: Vec<TubeMount>,
    /// Torpedoes still aboard: hidden from the enemy (IRON-ADM-05).
    pub torpedoes_left: u8,
    pub fate: Fate,
    /// At or below the Critical Point: steered for home by the engine (IRON-DMG-02, IRON-GM-10).
    pub broken_off: bool,
    pub fire: Option<Burning>,
    /// The turn whose fire steps hit the bridge (IRON-GUN-11, IRON-GM-11).
    pub bridge_hit_turn: Option<u32>,
    /// The last turn whose movement must hold course after a rudder hit (IRON-TORP-05,
    /// IRON-GM-11).
    pub rudder_until: Option<u32>,
    /// Gunfire critical 4 (IRON-GUN-13).
    pub engines_damaged: bool,
    /// Torpedo critical 5 (IRON-TORP-06).
    pub flooded: bool,
}

impl Ship {
    pub fn afloat(&self) -> bool {
        self.fate == Fate::Afloat
    }

    /// Afloat and still fighting: the ships that decide the battle (IRON-GM-15).
    pub fn in_action(&self) -> bool {
        self.afloat() && !self.broken_off
    }

    /// Areas it may move this turn: 1 with engine damage or flooding, never less (IRON-GM-14).
    pub fn max_areas(&self) -> u8 {
        if self.slowed() { 1 } else { 2 }
    }

    pub fn slowed(&self) -> bool {
        self.engines_damaged || self.flooded
    }

    /// A bridge hit in turn t stops fire in turns t+1..=t+3 (IRON-GM-11).
    pub fn bridge_silences(&self, turn: u32) -> bool {
        self.bridge_hit_turn
            .is_some_and(|hit| turn > hit && turn <= hit.saturating_add(BRIDGE_TURNS))
    }

    /// The last turn in which a bridge hit stops the ship firing.
    pub fn bridge_silent_until(&self) -> Option<u32> {
        self.bridge_hit_turn
            .map(|hit| hit.saturating_add(BRIDGE_TURNS))
    }

    /// The last turn whose movement a bridge hit keeps on course: t..=t+2 (IRON-GM-11).
    fn bridge_course_until(&self) -> Option<u32> {
        self.bridge_hit_turn
            .map(|hit| hit.saturating_add(BRIDGE_TURNS - 1))
    }

    /// Must it hold course in turn `turn`'s movement, and until when (IRON-GUN-11,
    /// IRON-TORP-05, IRON-GM-11)?
    pub fn holds_course_until(&self, turn: u32) -> Option<u32> {
        let bridge = self
            .bridge_course_until()
            .filter(|until| self.bridge_hit_turn.is_some_and(|hit| turn >= hit) && turn <= *until);
        let rudder = self.rudder_until.filter(|until| turn <= *until);
        bridge.max(rudder)
    }

    pub fn turret_named(&self, name: &str) -> Option<&Turret> {
        self.turrets.iter().find(|t| t.name == name)
    }
}

/// The whole battle between turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The turn that resolves next, from 1.
    pub turn: u32,
    pub rules: Rules,
    /// Exactly two sides.
    pub sides: Vec<Side>,
    /// In the GM's roster order: the report's order of players.
    pub commanders: Vec<Commander>,
    /// In ship-ID order.
    pub ships: Vec<Ship>,
    pub finished: bool,
}

impl State {
    pub fn ship(&self, id: ShipId) -> Option<&Ship> {
        self.ships.iter().find(|s| s.id == id)
    }

    pub fn ship_mut(&mut self, id: ShipId) -> Option<&mut Ship> {
        self.ships.iter_mut().find(|s| s.id == id)
    }

    pub fn commander(&self, player: PlayerId) -> Option<&Commander> {
        self.commanders.iter().find(|c| c.player.id == player)
    }

    pub fn player_name(&self, player: PlayerId) -> &str {
        self.commander(player)
            .map(|c| c.player.name.as_str())
            .unwrap_or("?")
    }

    pub fn side_name(&self, side: usize) -> &str {
        self.sides.get(side).map(|s| s.name.as_str()).unwrap_or("?")
    }

    /// The afloat ship in `area`, if any.
    pub fn ship_at(&self, area: Area) -> Option<&Ship> {
        self.ships.iter().find(|s| s.afloat() && s.area == area)
    }

    /// Checks what a stored state must satisfy before a turn resolves from it.
    pub fn check(&self) -> Result<(), String> {
        if self.sides.len() != 2 {
            return Err(format!("{} sides, not 2", self.sides.len()));
        }
        let board = self.rules.board;
        let mut afloat: Vec<(Area, &str)> = Vec::with_capacity(self.ships.len());
        for ship in &self.ships {
            if ship.side >= self.sides.len() {
                return Err(format!("{} is on side {}", ship.name, ship.side));
            }
            if self.commander(ship.player).is_none() {
                return Err(format!("{} has no commander", ship.name));
            }
            if ship.fp > STARTING_FP {
                return Err(format!("{} has {} FP", ship.name, ship.fp));
            }
            if ship.afloat() {
                if !board.contains(ship.area) {
                    return Err(format!("{} is off the board at {}", ship.name, ship.area));
                }
                if let Some((_, other)) = afloat.iter().find(|(area, _)| *area == ship.area) {
                    return Err(format!("{} and {} share {}", other, ship.name, ship.area));
                }
                afloat.push((ship.area, &ship.name));
            }
        }
        let mut ids: Vec<ShipId> = self.ships.iter().map(|s| s.id).collect();
        ids.dedup();
        if ids.len() != self.ships.len() || ids.windows(2).any(|w| w.first() >= w.get(1)) {
            return Err("ship IDs must be unique and in order".into());
        }
        Ok(())
    }
}
