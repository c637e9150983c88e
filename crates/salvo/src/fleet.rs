//! Ships, their placement and their damage (SALVO-CL-02, SALVO-CL-03, SALVO-GM-18).

use std::collections::BTreeMap;
use std::fmt;

use engine::{Dice, PlayerId};
use serde::{Deserialize, Serialize};

use crate::board::{SIDE, SQUARES, Square};

/// The five ships of every fleet (SALVO-CL-02), in placement order (SALVO-GM-18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShipKind {
    Carrier,
    Battleship,
    Cruiser,
    Submarine,
    Destroyer,
}

impl ShipKind {
    /// Placement order (SALVO-GM-18) and the order a fleet lists its ships in.
    pub const ALL: [ShipKind; 5] = [
        ShipKind::Carrier,
        ShipKind::Battleship,
        ShipKind::Cruiser,
        ShipKind::Submarine,
        ShipKind::Destroyer,
    ];

    /// Squares long (SALVO-CL-02).
    pub fn length(self) -> u8 {
        match self {
            ShipKind::Carrier => 5,
            ShipKind::Battleship => 4,
            ShipKind::Cruiser | ShipKind::Submarine => 3,
            ShipKind::Destroyer => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ShipKind::Carrier => "Carrier",
            ShipKind::Battleship => "Battleship",
            ShipKind::Cruiser => "Cruiser",
            ShipKind::Submarine => "Submarine",
            ShipKind::Destroyer => "Destroyer",
        }
    }

    /// "Smallest" for SCUBA: full length, then the fixed tie order Destroyer < Submarine <
    /// Cruiser < Battleship < Carrier (SALVO-GM-05).
    pub fn smallness(self) -> (u8, u8) {
        let tie = match self {
            ShipKind::Destroyer => 0,
            ShipKind::Submarine => 1,
            ShipKind::Cruiser => 2,
            ShipKind::Battleship => 3,
            ShipKind::Carrier => 4,
        };
        (self.length(), tie)
    }

    /// The letter an owner's grid shows for the ship.
    pub fn letter(self) -> char {
        match self {
            ShipKind::Carrier => 'A',
            ShipKind::Battleship => 'B',
            ShipKind::Cruiser => 'C',
            ShipKind::Submarine => 'S',
            ShipKind::Destroyer => 'D',
        }
    }
}

impl fmt::Display for ShipKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a ship lies (SALVO-CL-03: never diagonally).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    /// Along a row, from its left end (H).
    Horizontal,
    /// Down a column, from its top end (V).
    Vertical,
}

impl Orientation {
    pub fn letter(self) -> char {
        match self {
            Orientation::Horizontal => 'H',
            Orientation::Vertical => 'V',
        }
    }
}

/// Where one ship lies: its top or left end and how it lies (SALVO-GM-18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub ship: ShipKind,
    /// The top or left end.
    pub bow: Square,
    pub orientation: Orientation,
}

/// Why a ship or a fleet cannot be placed as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    #[error(
        "the {ship} is {length} squares long and runs off the board from {bow} ({orientation} goes {direction})"
    )]
    OffBoard {
        ship: ShipKind,
        length: u8,
        bow: Square,
        orientation: &'static str,
        direction: &'static str,
    },
    #[error("the {ship} would overlap the {other} at {square}")]
    Overlap {
        ship: ShipKind,
        other: ShipKind,
        square: Square,
    },
    #[error("the {0} is placed twice")]
    Twice(ShipKind),
    #[error("the placement is incomplete: {missing} still to place")]
    Incomplete { missing: String },
}

impl Placement {
    /// The ship's squares, bow first; an error if it would leave the board (SALVO-CL-01).
    pub fn squares(&self) -> Result<Vec<Square>, PlacementError> {
        (0..self.ship.length())
            .map(|i| self.square_at(i))
            .collect::<Option<Vec<_>>>()
            .ok_or(PlacementError::OffBoard {
                ship: self.ship,
                length: self.ship.length(),
                bow: self.bow,
                orientation: match self.orientation {
                    Orientation::Horizontal => "horizontal",
                    Orientation::Vertical => "vertical",
                },
                direction: match self.orientation {
                    Orientation::Horizontal => "right",
                    Orientation::Vertical => "down",
                },
            })
    }

    fn square_at(&self, i: u8) -> Option<Square> {
        let step = i8::try_from(i).ok()?;
        match self.orientation {
            Orientation::Horizontal => self.bow.offset(0, step),
            Orientation::Vertical => self.bow.offset(step, 0),
        }
    }

    /// `Carrier A1-A5`, as a ship's owner sees it.
    pub fn describe(&self) -> String {
        let last = self.square_at(self.ship.length().saturating_sub(1));
        match last {
            Some(last) => format!("{} {}-{}", self.ship, self.bow, last),
            None => format!("{} {} {}", self.ship, self.bow, self.orientation.letter()),
        }
    }
}

/// A complete, legal placement of the whole fleet: one of each ship, on the board, no overlap
/// (SALVO-CL-02, SALVO-CL-03, SALVO-GM-18). Only `try_from` builds one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Placement>", into = "Vec<Placement>")]
pub struct FleetPlan(Vec<Placement>);

impl FleetPlan {
    pub fn placements(&self) -> &[Placement] {
        &self.0
    }

    /// Checks ships one at a time against those before them: the first problem found.
    pub fn check_partial(placements: &[Placement]) -> Result<(), PlacementError> {
        let mut occupied: [Option<ShipKind>; SQUARES] = [None; SQUARES];
        let mut seen = Vec::with_capacity(5);
        for placement in placements {
            if seen.contains(&placement.ship) {
                return Err(PlacementError::Twice(placement.ship));
            }
            seen.push(placement.ship);
            let squares = placement.squares()?;
            for square in &squares {
                if let Some(Some(other)) = occupied.get(square.index()) {
                    return Err(PlacementError::Overlap {
                        ship: placement.ship,
                        other: *other,
                        square: *square,
                    });
                }
            }
            for square in squares {
                if let Some(slot) = occupied.get_mut(square.index()) {
                    *slot = Some(placement.ship);
                }
            }
        }
        Ok(())
    }
}

impl TryFrom<Vec<Placement>> for FleetPlan {
    type Error = PlacementError;
    fn try_from(mut placements: Vec<Placement>) -> Result<Self, Self::Error> {
        Self::check_partial(&placements)?;
        let missing: Vec<&str> = ShipKind::ALL
            .iter()
            .filter(|kind| !placements.iter().any(|p| p.ship == **kind))
            .map(|kind| kind.name())
            .collect();
        if !missing.is_empty() {
            return Err(PlacementError::Incomplete {
                missing: missing.join(", "),
            });
        }
        placements.sort_by_key(|p| p.ship);
        Ok(Self(placements))
    }
}

impl From<FleetPlan> for Vec<Placement> {
    fn from(plan: FleetPlan) -> Self {
        plan.0
    }
}

/// Who hit a square and when. Set once, never changed: a square is never counted hit twice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HitRecord {
    pub turn: u32,
    /// Every attacker whose attack newly hit it that turn (SALVO-GM-16); empty for a backfire
    /// (SALVO-EXP-04), which scores for no one.
    pub by: Vec<PlayerId>,
}

/// A ship's fate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShipStatus {
    Afloat,
    Sunk {
        turn: u32,
    },
    /// Held by SCUBA commandos (SALVO-SCUBA-04, SALVO-GM-06).
    Captured {
        by: PlayerId,
        turn: u32,
    },
}

/// One ship at sea: where it lies, which squares are hit, and whether it is afloat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ship {
    placement: Placement,
    damage: BTreeMap<Square, HitRecord>,
    status: ShipStatus,
}

impl Ship {
    fn new(placement: Placement) -> Self {
        Self {
            placement,
            damage: BTreeMap::new(),
            status: ShipStatus::Afloat,
        }
    }

    pub fn kind(&self) -> ShipKind {
        self.placement.ship
    }

    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    pub fn status(&self) -> ShipStatus {
        self.status
    }

    /// Afloat means neither sunk nor captured; a damaged ship is afloat (SALVO-GM-05).
    pub fn is_afloat(&self) -> bool {
        self.status == ShipStatus::Afloat
    }

    pub fn is_sunk(&self) -> bool {
        matches!(self.status, ShipStatus::Sunk { .. })
    }

    pub fn captor(&self) -> Option<PlayerId> {
        match self.status {
            ShipStatus::Captured { by, .. } => Some(by),
            _ => None,
        }
    }

    /// The ship's squares, bow first. A fleet only holds ships that fit the board.
    pub fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        (0..self.kind().length()).filter_map(|i| self.placement.square_at(i))
    }

    pub fn occupies(&self, square: Square) -> bool {
        self.squares().any(|s| s == square)
    }

    pub fn is_hit(&self, square: Square) -> bool {
        self.damage.contains_key(&square)
    }

    pub fn damage(&self) -> &BTreeMap<Square, HitRecord> {
        &self.damage
    }

    /// Squares not yet hit.
    pub fn intact_squares(&self) -> usize {
        self.squares().filter(|s| !self.is_hit(*s)).count()
    }

    pub fn all_hit(&self) -> bool {
        self.squares().all(|s| self.is_hit(s))
    }

    /// Marks a square hit; a square already hit keeps its first record, except that another
    /// attacker hitting it anew in the same turn shares the credit (SALVO-GM-16).
    /// Returns whether the square was un-hit before this turn.
    pub(crate) fn hit(&mut self, square: Square, turn: u32, by: Option<PlayerId>) -> bool {
        match self.damage.get_mut(&square) {
            Some(record) if record.turn == turn => {
                if let Some(attacker) = by
                    && !record.by.contains(&attacker)
                {
                    record.by.push(attacker);
                    record.by.sort();
                }
                true
            }
            Some(_) => false,
            None => {
                self.damage.insert(
                    square,
                    HitRecord {
                        turn,
                        by: by.into_iter().collect(),
                    },
                );
                true
            }
        }
    }

    pub(crate) fn set_status(&mut self, status: ShipStatus) {
        self.status = status;
    }

    /// `B7-B9`, as a backfire reveals it (SALVO-EXP-04).
    pub fn span(&self) -> String {
        let first = self.squares().next();
        let last = self.squares().last();
        match (first, last) {
            (Some(first), Some(last)) => format!("{first}-{last}"),
            _ => String::new(),
        }
    }
}

/// A player's five ships, one of each kind, on the board, never overlapping (SALVO-CL-02,
/// SALVO-CL-03). Deserialising checks all of that, so a fleet in hand is sound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Ship>", into = "Vec<Ship>")]
pub struct Fleet(Vec<Ship>);

impl TryFrom<Vec<Ship>> for Fleet {
    type Error = PlacementError;
    fn try_from(ships: Vec<Ship>) -> Result<Self, Self::Error> {
        let placements: Vec<Placement> = ships.iter().map(|s| s.placement).collect();
        FleetPlan::try_from(placements)?;
        let mut ships = ships;
        ships.sort_by_key(Ship::kind);
        Ok(Self(ships))
    }
}

impl From<Fleet> for Vec<Ship> {
    fn from(fleet: Fleet) -> Self {
        fleet.0
    }
}

impl Fleet {
    /// A fresh, undamaged fleet as planned.
    pub fn from_plan(plan: &FleetPlan) -> Self {
        Self(plan.placements().iter().copied().map(Ship::new).collect())
    }

    /// Places the fleet at random, uniformly over the legal spots for each ship in turn, in
    /// the order Carrier, Battleship, Cruiser, Submarine, Destroyer (SALVO-GM-18). Spots are
    /// listed horizontal first, then vertical, each by its bow in reading order; one `pick`
    /// per ship from the given (sealed) dice.
    pub fn random(dice: &mut Dice) -> Self {
        let mut occupied = [false; SQUARES];
        let mut ships = Vec::with_capacity(5);
        for kind in ShipKind::ALL {
            let mut spots = Vec::with_capacity(200);
            for orientation in [Orientation::Horizontal, Orientation::Vertical] {
                for bow in Square::all() {
                    let placement = Placement {
                        ship: kind,
                        bow,
                        orientation,
                    };
                    let Ok(squares) = placement.squares() else {
                        continue;
                    };
                    let free = squares
                        .iter()
                        .all(|s| !occupied.get(s.index()).copied().unwrap_or(true));
                    if free {
                        spots.push((placement, squares));
                    }
                }
            }
            // 17 squares of ships on 100 always leave room: `spots` is never empty.
            let choice = dice.pick(spots.len().max(1));
            if let Some((placement, squares)) = spots.into_iter().nth(choice) {
                for square in squares {
                    if let Some(slot) = occupied.get_mut(square.index()) {
                        *slot = true;
                    }
                }
                ships.push(Ship::new(placement));
            }
        }
        Self(ships)
    }

    pub fn ships(&self) -> &[Ship] {
        &self.0
    }

    pub fn ship(&self, kind: ShipKind) -> Option<&Ship> {
        self.0.iter().find(|s| s.kind() == kind)
    }

    pub(crate) fn ship_mut(&mut self, kind: ShipKind) -> Option<&mut Ship> {
        self.0.iter_mut().find(|s| s.kind() == kind)
    }

    pub(crate) fn ships_mut(&mut self) -> impl Iterator<Item = &mut Ship> {
        self.0.iter_mut()
    }

    pub fn ship_at(&self, square: Square) -> Option<&Ship> {
        self.0.iter().find(|s| s.occupies(square))
    }

    pub fn afloat(&self) -> impl Iterator<Item = &Ship> {
        self.0.iter().filter(|s| s.is_afloat())
    }

    pub fn afloat_count(&self) -> usize {
        self.afloat().count()
    }

    pub fn is_afloat(&self, kind: ShipKind) -> bool {
        self.ship(kind).is_some_and(Ship::is_afloat)
    }

    /// The SCUBA target: the smallest ship afloat (SALVO-SCUBA-03, SALVO-GM-05).
    pub fn smallest_afloat(&self) -> Option<ShipKind> {
        self.afloat().map(Ship::kind).min_by_key(|k| k.smallness())
    }

    /// The ships a backfire may take: the Submarine if afloat, and the "next-largest" ship,
    /// the smallest afloat of length 3 or more that is not the Submarine; the Destroyer only
    /// when nothing else is left (SALVO-EXP-04, SALVO-GM-12). The first is the default.
    pub fn backfire_choices(&self) -> Vec<ShipKind> {
        let mut choices = Vec::with_capacity(2);
        if self.is_afloat(ShipKind::Submarine) {
            choices.push(ShipKind::Submarine);
        }
        if let Some(next) = [ShipKind::Cruiser, ShipKind::Battleship, ShipKind::Carrier]
            .into_iter()
            .find(|k| self.is_afloat(*k))
        {
            choices.push(next);
        }
        if choices.is_empty() && self.is_afloat(ShipKind::Destroyer) {
            choices.push(ShipKind::Destroyer);
        }
        choices
    }

    pub fn plan(&self) -> Vec<Placement> {
        self.0.iter().map(|s| s.placement).collect()
    }

    /// Where the ships lie on a 10×10 grid, for tests of placement.
    pub fn occupancy(&self) -> [[Option<ShipKind>; SIDE as usize]; SIDE as usize] {
        let mut grid = [[None; SIDE as usize]; SIDE as usize];
        for ship in &self.0 {
            for square in ship.squares() {
                if let Some(cell) = grid
                    .get_mut(usize::from(square.row()))
                    .and_then(|row| row.get_mut(usize::from(square.col())))
                {
                    *cell = Some(ship.kind());
                }
            }
        }
        grid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn place(ship: ShipKind, bow: &str, orientation: Orientation) -> Placement {
        Placement {
            ship,
            bow: sq(bow),
            orientation,
        }
    }

    fn standard() -> Vec<Placement> {
        use Orientation::*;
        vec![
            place(ShipKind::Carrier, "A1", Horizontal),
            place(ShipKind::Battleship, "C1", Horizontal),
            place(ShipKind::Cruiser, "E1", Horizontal),
            place(ShipKind::Submarine, "G1", Horizontal),
            place(ShipKind::Destroyer, "I1", Horizontal),
        ]
    }

    #[test]
    fn a_full_legal_plan_is_a_fleet_salvo_cl_02_cl_03() {
        let plan = FleetPlan::try_from(standard()).unwrap();
        let fleet = Fleet::from_plan(&plan);
        assert_eq!(fleet.ships().len(), 5);
        let lengths: Vec<u8> = fleet.ships().iter().map(|s| s.kind().length()).collect();
        assert_eq!(lengths, vec![5, 4, 3, 3, 2]);
        assert_eq!(
            fleet.ship(ShipKind::Carrier).unwrap().span(),
            "A1-A5".to_string()
        );
    }

    #[test]
    fn overlap_off_board_twice_and_incomplete_are_refused_salvo_gm_18() {
        let mut overlapping = standard();
        overlapping[1] = place(ShipKind::Battleship, "A2", Orientation::Vertical);
        assert!(matches!(
            FleetPlan::try_from(overlapping),
            Err(PlacementError::Overlap { square, .. }) if square == sq("A2")
        ));
        let mut off = standard();
        off[0] = place(ShipKind::Carrier, "A8", Orientation::Horizontal);
        let error = FleetPlan::try_from(off).unwrap_err();
        assert!(matches!(error, PlacementError::OffBoard { .. }));
        assert!(error.to_string().contains("runs off the board from A8"));
        let mut twice = standard();
        twice[4] = place(ShipKind::Submarine, "I1", Orientation::Horizontal);
        assert!(matches!(
            FleetPlan::try_from(twice),
            Err(PlacementError::Twice(ShipKind::Submarine))
        ));
        let short: Vec<Placement> = standard().into_iter().take(3).collect();
        let error = FleetPlan::try_from(short).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the placement is incomplete: Submarine, Destroyer still to place"
        );
    }

    #[test]
    fn random_fleets_are_legal_and_follow_the_dice_salvo_gm_18() {
        // Index 0 of each ship's list: horizontal, bow in reading order, skipping used squares.
        let fleet = Fleet::random(&mut Dice::scripted([0, 0, 0, 0, 0]));
        let spans: Vec<String> = fleet.ships().iter().map(Ship::span).collect();
        assert_eq!(spans, vec!["A1-A5", "A6-A9", "B1-B3", "B4-B6", "B7-B8"]);
        for seed in 0..50u8 {
            let secret = engine::GameSecret::from_bytes([seed; 32]);
            let fleet = Fleet::random(&mut secret.turn_dice(0).sealed);
            FleetPlan::try_from(fleet.plan()).unwrap();
        }
    }

    #[test]
    fn smallest_afloat_uses_the_tie_order_salvo_gm_05() {
        let mut fleet = Fleet::from_plan(&FleetPlan::try_from(standard()).unwrap());
        assert_eq!(fleet.smallest_afloat(), Some(ShipKind::Destroyer));
        fleet
            .ship_mut(ShipKind::Destroyer)
            .unwrap()
            .set_status(ShipStatus::Sunk { turn: 1 });
        assert_eq!(fleet.smallest_afloat(), Some(ShipKind::Submarine));
        fleet
            .ship_mut(ShipKind::Submarine)
            .unwrap()
            .set_status(ShipStatus::Captured {
                by: PlayerId(1),
                turn: 1,
            });
        assert_eq!(fleet.smallest_afloat(), Some(ShipKind::Cruiser));
    }

    #[test]
    fn backfire_takes_the_submarine_then_the_next_largest_salvo_gm_12() {
        let mut fleet = Fleet::from_plan(&FleetPlan::try_from(standard()).unwrap());
        assert_eq!(
            fleet.backfire_choices(),
            vec![ShipKind::Submarine, ShipKind::Cruiser]
        );
        for kind in [ShipKind::Submarine, ShipKind::Cruiser] {
            fleet
                .ship_mut(kind)
                .unwrap()
                .set_status(ShipStatus::Sunk { turn: 1 });
        }
        assert_eq!(fleet.backfire_choices(), vec![ShipKind::Battleship]);
        for kind in [ShipKind::Battleship, ShipKind::Carrier] {
            fleet
                .ship_mut(kind)
                .unwrap()
                .set_status(ShipStatus::Sunk { turn: 1 });
        }
        assert_eq!(fleet.backfire_choices(), vec![ShipKind::Destroyer]);
    }

    #[test]
    fn a_square_is_recorded_hit_once() {
        let mut fleet = Fleet::from_plan(&FleetPlan::try_from(standard()).unwrap());
        let ship = fleet.ship_mut(ShipKind::Destroyer).unwrap();
        assert!(ship.hit(sq("I1"), 3, Some(PlayerId(2))));
        assert!(ship.hit(sq("I1"), 3, Some(PlayerId(1))));
        assert!(!ship.hit(sq("I1"), 4, Some(PlayerId(3))));
        let record = ship.damage().get(&sq("I1")).unwrap();
        assert_eq!(record.turn, 3);
        assert_eq!(record.by, vec![PlayerId(1), PlayerId(2)]);
    }
}
