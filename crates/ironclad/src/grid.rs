//! The square-grid sea: areas, the eight headings, range, firing arcs and line of sight.
//!
//! Everything here is integer arithmetic (IRON-GM-02, IRON-GM-04), so every build and every
//! platform gives the same answer for the same position.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The most columns a board may have: one letter each, `A` to `Z` (notation borrowed from barmy).
pub const MAX_COLUMNS: u8 = 26;
/// The most rows a board may have: row numbers of at most two digits.
pub const MAX_ROWS: u8 = 99;

/// One grid area, written column letter then row number (`E5`); rows grow southward, so
/// north is toward row 1 (catalogue conventions). Only buildable with a column and row inside
/// the largest possible board; whether it is on *this* board is [`Board::contains`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Area {
    // Row first so that sorting areas reads like a book.
    row: u8,
    column: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AreaError {
    #[error("an area is a column letter A-Z then a row number 1-99, such as E5; not {0:?}")]
    Malformed(String),
}

impl Area {
    /// The area at 0-based `column` and `row`, if both fit the largest board.
    pub fn new(column: u8, row: u8) -> Option<Self> {
        (column < MAX_COLUMNS && row < MAX_ROWS).then_some(Self { row, column })
    }

    /// The area at 0-based `column` and `row`, pulled inside the largest board if need be:
    /// for positions written in code.
    pub const fn clamped(column: u8, row: u8) -> Self {
        let column = if column < MAX_COLUMNS {
            column
        } else {
            MAX_COLUMNS - 1
        };
        let row = if row < MAX_ROWS { row } else { MAX_ROWS - 1 };
        Self { row, column }
    }

    /// Reads `E5`, `e5`, `E 5` or `E05`.
    pub fn parse(text: &str) -> Result<Self, AreaError> {
        let bad = || AreaError::Malformed(text.to_owned());
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut chars = compact.chars();
        let letter = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
        if !letter.is_ascii_uppercase() {
            return Err(bad());
        }
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 3 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        let number: u8 = digits.parse().map_err(|_| bad())?;
        let column = (letter as u8).wrapping_sub(b'A');
        Area::new(column, number.checked_sub(1).ok_or_else(bad)?).ok_or_else(bad)
    }

    /// 0-based column, west to east.
    pub fn column(self) -> u8 {
        self.column
    }

    /// 0-based row, north to south.
    pub fn row(self) -> u8 {
        self.row
    }

    /// The offset `(dx, dy)` from `self` to `other`, y growing southward.
    pub fn offset_to(self, other: Area) -> Offset {
        Offset {
            dx: i32::from(other.column) - i32::from(self.column),
            dy: i32::from(other.row) - i32::from(self.row),
        }
    }

    /// Range in grid areas: the Chebyshev distance, so a diagonal step counts one like any
    /// other (IRON-GM-04, IRON-MOV-06).
    pub fn range_to(self, other: Area) -> u32 {
        let offset = self.offset_to(other);
        offset.dx.unsigned_abs().max(offset.dy.unsigned_abs())
    }

    /// The neighbouring area in `heading`'s direction, if it exists on the largest board.
    pub fn step(self, heading: Heading) -> Option<Area> {
        let (hx, hy) = heading.vector();
        let column = u8::try_from(i32::from(self.column) + hx).ok()?;
        let row = u8::try_from(i32::from(self.row) + hy).ok()?;
        Area::new(column, row)
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            char::from(b'A' + self.column),
            u32::from(self.row) + 1
        )
    }
}

impl fmt::Debug for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Area({self})")
    }
}

impl From<Area> for String {
    fn from(area: Area) -> Self {
        area.to_string()
    }
}

impl TryFrom<String> for Area {
    type Error = AreaError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Area::parse(&text)
    }
}

/// An offset between two areas, y growing southward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offset {
    pub dx: i32,
    pub dy: i32,
}

/// The eight directions a ship may face: orthogonal and diagonal (IRON-GUN-04).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Heading {
    N,
    NE,
    E,
    SE,
    S,
    SW,
    W,
    NW,
}

/// Which way a 45° turn goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnSide {
    /// To port: anticlockwise.
    Port,
    /// To starboard: clockwise.
    Starboard,
}

impl TurnSide {
    /// `L` or `R`, as in the move path `F, T45R`.
    pub fn letter(self) -> char {
        match self {
            TurnSide::Port => 'L',
            TurnSide::Starboard => 'R',
        }
    }
}

impl Heading {
    /// Clockwise from north.
    pub const ALL: [Heading; 8] = [
        Heading::N,
        Heading::NE,
        Heading::E,
        Heading::SE,
        Heading::S,
        Heading::SW,
        Heading::W,
        Heading::NW,
    ];

    fn index(self) -> u8 {
        match self {
            Heading::N => 0,
            Heading::NE => 1,
            Heading::E => 2,
            Heading::SE => 3,
            Heading::S => 4,
            Heading::SW => 5,
            Heading::W => 6,
            Heading::NW => 7,
        }
    }

    fn from_index(index: u8) -> Heading {
        match index % 8 {
            0 => Heading::N,
            1 => Heading::NE,
            2 => Heading::E,
            3 => Heading::SE,
            4 => Heading::S,
            5 => Heading::SW,
            6 => Heading::W,
            _ => Heading::NW,
        }
    }

    /// The heading vector `(hx, hy)`, each in −1..=1, y growing southward (IRON-GM-02).
    pub fn vector(self) -> (i32, i32) {
        match self {
            Heading::N => (0, -1),
            Heading::NE => (1, -1),
            Heading::E => (1, 0),
            Heading::SE => (1, 1),
            Heading::S => (0, 1),
            Heading::SW => (-1, 1),
            Heading::W => (-1, 0),
            Heading::NW => (-1, -1),
        }
    }

    /// The heading after one 45° turn (IRON-MOV-03).
    pub fn turned(self, side: TurnSide) -> Heading {
        match side {
            TurnSide::Starboard => Heading::from_index(self.index() + 1),
            TurnSide::Port => Heading::from_index(self.index() + 7),
        }
    }

    /// How many 45° turns to `side` bring this heading to `target`.
    pub fn turns_to(self, target: Heading, side: TurnSide) -> u8 {
        let clockwise = (target.index() + 8 - self.index()) % 8;
        match side {
            TurnSide::Starboard => clockwise,
            TurnSide::Port => (8 - clockwise) % 8,
        }
    }

    /// Reads `N`, `ne`, `North-East`, `northeast`...
    pub fn parse(text: &str) -> Option<Heading> {
        let compact: String = text
            .chars()
            .filter(|c| c.is_ascii_alphabetic())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let heading = match compact.as_str() {
            "n" | "north" => Heading::N,
            "ne" | "northeast" => Heading::NE,
            "e" | "east" => Heading::E,
            "se" | "southeast" => Heading::SE,
            "s" | "south" => Heading::S,
            "sw" | "southwest" => Heading::SW,
            "w" | "west" => Heading::W,
            "nw" | "northwest" => Heading::NW,
            _ => return None,
        };
        Some(heading)
    }
}

impl fmt::Display for Heading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A board edge: each side's home edge, the way to safety (IRON-GM-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Edge {
    North,
    East,
    South,
    West,
}

impl Edge {
    /// Does `heading` have a component toward this edge (IRON-GM-10(a))?
    pub fn is_homeward(self, heading: Heading) -> bool {
        let (hx, hy) = heading.vector();
        match self {
            Edge::North => hy < 0,
            Edge::South => hy > 0,
            Edge::East => hx > 0,
            Edge::West => hx < 0,
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

/// Where a target lies as seen from a ship: 90° sectors centred on bow, beams and stern,
/// with the 45° boundaries falling in the beam arcs (IRON-GM-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arc {
    Forward,
    Port,
    Starboard,
    Aft,
}

impl Arc {
    /// Fore and aft arcs are one table row, the two beams another (the diagram's grey and
    /// white squares, IRON-GUN-04).
    pub fn is_beam(self) -> bool {
        matches!(self, Arc::Port | Arc::Starboard)
    }

    pub fn name(self) -> &'static str {
        match self {
            Arc::Forward => "forward",
            Arc::Port => "port beam",
            Arc::Starboard => "starboard beam",
            Arc::Aft => "aft",
        }
    }
}

/// The two products of IRON-GM-02: `f` along the heading, `r` across it (positive to
/// starboard).
pub fn bearing_products(heading: Heading, offset: Offset) -> (i32, i32) {
    let (hx, hy) = heading.vector();
    let along = hx * offset.dx + hy * offset.dy;
    let across = hx * offset.dy - hy * offset.dx;
    (along, across)
}

/// The arc in which `offset` lies from a ship facing `heading` (IRON-GM-02); `None` for the
/// zero offset, which two ships never have (IRON-MOV-04).
pub fn arc_of(heading: Heading, offset: Offset) -> Option<Arc> {
    let (along, across) = bearing_products(heading, offset);
    if along > across.abs() {
        Some(Arc::Forward)
    } else if -along > across.abs() {
        Some(Arc::Aft)
    } else if across > 0 {
        Some(Arc::Starboard)
    } else if across < 0 {
        Some(Arc::Port)
    } else {
        None
    }
}

/// A board of `columns` × `rows` areas (IRON-GM-15: a game setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    pub columns: u8,
    pub rows: u8,
}

impl Default for Board {
    /// 16 columns by 12 rows (IRON-GM-15).
    fn default() -> Self {
        Board {
            columns: 16,
            rows: 12,
        }
    }
}

impl Board {
    pub fn contains(&self, area: Area) -> bool {
        area.column() < self.columns && area.row() < self.rows
    }

    /// The next area along `heading`, or the edge the step would cross.
    pub fn step(&self, area: Area, heading: Heading) -> Result<Area, Edge> {
        match area.step(heading) {
            Some(next) if self.contains(next) => Ok(next),
            _ => Err(self.edge_crossed(area, heading)),
        }
    }

    /// Which edge a step off the board leaves by; for a corner, the north or south edge.
    fn edge_crossed(&self, area: Area, heading: Heading) -> Edge {
        let (hx, hy) = heading.vector();
        let last_row = self.rows.saturating_sub(1);
        let last_column = self.columns.saturating_sub(1);
        if hy < 0 && area.row() == 0 {
            Edge::North
        } else if hy > 0 && area.row() >= last_row {
            Edge::South
        } else if hx > 0 && area.column() >= last_column {
            Edge::East
        } else {
            Edge::West
        }
    }

    /// Every area, row by row.
    pub fn areas(&self) -> impl Iterator<Item = Area> + '_ {
        (0..self.rows).flat_map(move |row| (0..self.columns).filter_map(move |c| Area::new(c, row)))
    }
}

/// An exact fraction with a positive denominator, for the line-of-sight crossing test.
#[derive(Debug, Clone, Copy)]
struct Fraction {
    numerator: i64,
    denominator: i64,
}

impl Fraction {
    fn new(numerator: i64, denominator: i64) -> Self {
        if denominator < 0 {
            Fraction {
                numerator: -numerator,
                denominator: -denominator,
            }
        } else {
            Fraction {
                numerator,
                denominator,
            }
        }
    }

    fn compare(self, other: Fraction) -> Ordering {
        (self.numerator * other.denominator).cmp(&(other.numerator * self.denominator))
    }

    fn max(self, other: Fraction) -> Fraction {
        if self.compare(other) == Ordering::Less {
            other
        } else {
            self
        }
    }

    fn min(self, other: Fraction) -> Fraction {
        if self.compare(other) == Ordering::Greater {
            other
        } else {
            self
        }
    }
}

/// Does the straight segment between the centres of `from` and `to` cross the open interior of
/// `square`? Touching a corner or running along an edge does not (IRON-GM-04).
pub fn crosses_interior(from: Area, to: Area, square: Area) -> bool {
    // Doubled co-ordinates put every centre and every corner on integers.
    let start = (
        2 * i64::from(from.column()) + 1,
        2 * i64::from(from.row()) + 1,
    );
    let delta = (
        2 * (i64::from(to.column()) - i64::from(from.column())),
        2 * (i64::from(to.row()) - i64::from(from.row())),
    );
    let low = (2 * i64::from(square.column()), 2 * i64::from(square.row()));
    // The segment is t in [0, 1]; each axis narrows it to the open interval inside the square.
    let mut enter = Fraction::new(0, 1);
    let mut leave = Fraction::new(1, 1);
    for (origin, step, lo) in [(start.0, delta.0, low.0), (start.1, delta.1, low.1)] {
        let hi = lo + 2;
        if step == 0 {
            if origin <= lo || origin >= hi {
                return false;
            }
            continue;
        }
        let a = Fraction::new(lo - origin, step);
        let b = Fraction::new(hi - origin, step);
        let (first, second) = if a.compare(b) == Ordering::Less {
            (a, b)
        } else {
            (b, a)
        };
        enter = enter.max(first);
        leave = leave.min(second);
    }
    enter.compare(leave) == Ordering::Less
}

/// The first of `blockers` (in the order given) whose interior the line from `from` to `to`
/// crosses, if any (IRON-GUN-08, IRON-GM-04).
pub fn first_blocker<T: Copy>(
    from: Area,
    to: Area,
    blockers: impl IntoIterator<Item = (Area, T)>,
) -> Option<T> {
    blockers
        .into_iter()
        .filter(|(area, _)| *area != from && *area != to)
        .find(|(area, _)| crosses_interior(from, to, *area))
        .map(|(_, what)| what)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(text: &str) -> Area {
        Area::parse(text).unwrap()
    }

    #[test]
    fn areas_read_and_print_like_barmy() {
        assert_eq!(area("E5").to_string(), "E5");
        assert_eq!(area(" e 05 ").to_string(), "E5");
        assert_eq!(area("A1").column(), 0);
        assert_eq!(area("P12").row(), 11);
        for bad in ["", "5E", "E0", "E", "EE5", "E1000", "É5", "E-1", "E5x"] {
            assert!(Area::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn range_is_chebyshev_so_diagonals_cost_the_same() {
        // IRON-GM-04, IRON-MOV-06, IRON-GUN-03
        assert_eq!(area("E5").range_to(area("G3")), 2);
        assert_eq!(area("E5").range_to(area("E1")), 4);
        assert_eq!(area("A1").range_to(area("J2")), 9);
    }

    #[test]
    fn turning_goes_round_the_compass() {
        assert_eq!(Heading::N.turned(TurnSide::Starboard), Heading::NE);
        assert_eq!(Heading::N.turned(TurnSide::Port), Heading::NW);
        assert_eq!(Heading::NW.turned(TurnSide::Starboard), Heading::N);
        assert_eq!(Heading::N.turns_to(Heading::SE, TurnSide::Starboard), 3);
        assert_eq!(Heading::N.turns_to(Heading::SW, TurnSide::Port), 3);
        assert_eq!(Heading::NE.turns_to(Heading::SE, TurnSide::Starboard), 2);
        for heading in Heading::ALL {
            assert_eq!(heading.turns_to(heading, TurnSide::Port), 0);
        }
    }

    #[test]
    fn arcs_are_ninety_degree_sectors_with_boundaries_abeam() {
        // IRON-GM-02: the example offsets of IRON-EX-07.
        let east = Offset { dx: 2, dy: 0 };
        assert_eq!(arc_of(Heading::N, east), Some(Arc::Starboard));
        assert_eq!(
            arc_of(Heading::N, Offset { dx: 0, dy: -4 }),
            Some(Arc::Forward)
        );
        assert_eq!(arc_of(Heading::N, Offset { dx: 0, dy: 3 }), Some(Arc::Aft));
        assert_eq!(
            arc_of(Heading::N, Offset { dx: -1, dy: 0 }),
            Some(Arc::Port)
        );
        // The 45° boundaries count as beam.
        assert_eq!(
            arc_of(Heading::N, Offset { dx: 1, dy: -1 }),
            Some(Arc::Starboard)
        );
        assert_eq!(
            arc_of(Heading::N, Offset { dx: -2, dy: 2 }),
            Some(Arc::Port)
        );
        // Diagonal heading NE: dead ahead is NE, due east is the starboard boundary.
        assert_eq!(
            arc_of(Heading::NE, Offset { dx: 1, dy: -1 }),
            Some(Arc::Forward)
        );
        assert_eq!(
            arc_of(Heading::NE, Offset { dx: 1, dy: 0 }),
            Some(Arc::Starboard)
        );
        assert_eq!(
            arc_of(Heading::NE, Offset { dx: 0, dy: -1 }),
            Some(Arc::Port)
        );
        assert_eq!(
            arc_of(Heading::NE, Offset { dx: 3, dy: -2 }),
            Some(Arc::Forward)
        );
        assert_eq!(arc_of(Heading::N, Offset { dx: 0, dy: 0 }), None);
    }

    #[test]
    fn every_heading_sees_each_arc_as_a_quarter_of_a_ring() {
        // On the ring at range 2 (16 squares) each heading has 3 squares forward, 3 aft and
        // 5 on each beam: exact 90° sectors, the boundaries given to the beams.
        for heading in Heading::ALL {
            let mut counts = std::collections::BTreeMap::new();
            for dx in -2i32..=2 {
                for dy in -2i32..=2 {
                    if dx.abs().max(dy.abs()) == 2 {
                        *counts
                            .entry(arc_of(heading, Offset { dx, dy }).unwrap())
                            .or_insert(0) += 1;
                    }
                }
            }
            let forward = counts[&Arc::Forward];
            assert_eq!(forward, counts[&Arc::Aft], "{heading}");
            assert_eq!(counts[&Arc::Port], counts[&Arc::Starboard], "{heading}");
        }
    }

    #[test]
    fn line_of_sight_is_blocked_by_crossed_interiors_not_corners() {
        // IRON-GM-04, IRON-GUN-08
        assert!(crosses_interior(area("A1"), area("C1"), area("B1")));
        assert!(!crosses_interior(area("A1"), area("C1"), area("B2")));
        // A pure diagonal passes through corners only between diagonal neighbours.
        assert!(crosses_interior(area("A1"), area("C3"), area("B2")));
        assert!(!crosses_interior(area("A1"), area("C3"), area("B1")));
        assert!(!crosses_interior(area("A1"), area("C3"), area("A2")));
        // A knight's-move line crosses the two squares it passes between.
        assert!(crosses_interior(area("A1"), area("C2"), area("B1")));
        assert!(crosses_interior(area("A1"), area("C2"), area("B2")));
        assert!(!crosses_interior(area("A1"), area("C2"), area("A2")));
        assert_eq!(
            first_blocker(area("A1"), area("E1"), [(area("C1"), 7), (area("C2"), 8)]),
            Some(7)
        );
        assert_eq!(
            first_blocker(area("A1"), area("E1"), [(area("A1"), 1), (area("E1"), 2)]),
            None
        );
    }

    #[test]
    fn steps_off_the_board_name_their_edge() {
        let board = Board::default();
        assert_eq!(board.step(area("E1"), Heading::N), Err(Edge::North));
        assert_eq!(board.step(area("E12"), Heading::S), Err(Edge::South));
        assert_eq!(board.step(area("P5"), Heading::E), Err(Edge::East));
        assert_eq!(board.step(area("A5"), Heading::W), Err(Edge::West));
        assert_eq!(board.step(area("E5"), Heading::NE), Ok(area("F4")));
        assert_eq!(board.areas().count(), 16 * 12);
    }

    #[test]
    fn homeward_headings_have_a_component_toward_the_edge() {
        // IRON-GM-10(a)
        assert!(Edge::South.is_homeward(Heading::SE));
        assert!(Edge::South.is_homeward(Heading::S));
        assert!(!Edge::South.is_homeward(Heading::E));
        assert!(Edge::West.is_homeward(Heading::NW));
    }
}
