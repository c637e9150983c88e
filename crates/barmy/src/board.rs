//! The grid, squares and battleships (BARMY-03..06).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The most columns a board may have: A–Z, then AA–ZZ like a spreadsheet, so that a large
/// zine's every subscriber fits (this overrules BARMY-GM-14's limit of 26; see docs/rules/barmy.md).
pub const MAX_COLUMNS: u16 = 26 + 26 * 26;
/// The most rows a board may have: row numbers of up to three digits.
pub const MAX_ROWS: u16 = 999;
/// A battleship covers four squares in a line (BARMY-04).
pub const SHIP_LENGTH: usize = 4;

/// A square: column `x` (0 = A) along the top, row `y` (0 = row 1) down the side (BARMY-03).
/// Written `G13` (or `AB7` beyond column Z). Whether it lies on a given board is the board's
/// question, not the square's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Square {
    pub x: u16,
    pub y: u16,
}

impl Square {
    pub fn new(x: u16, y: u16) -> Self {
        Self { x, y }
    }

    /// A, B, … Z, AA, AB, … ZZ (bijective base 26, as spreadsheets letter columns).
    pub fn column_label(x: u16) -> String {
        let letter = |n: u16| char::from(b'A' + (n % 26) as u8);
        if x < 26 {
            letter(x).to_string()
        } else {
            let rest = x - 26;
            format!("{}{}", letter((rest / 26).min(25)), letter(rest % 26))
        }
    }

    /// The inverse of `column_label`, for one or two letters.
    fn column_from_letters(letters: &str) -> Option<u16> {
        let value = |c: char| {
            c.is_ascii_alphabetic()
                .then(|| u16::from(c.to_ascii_uppercase() as u8 - b'A'))
        };
        let mut chars = letters.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(only), None, None) => value(only),
            (Some(first), Some(second), None) => Some(26 + value(first)? * 26 + value(second)?),
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            Square::column_label(self.x),
            u32::from(self.y) + 1
        )
    }
}

impl From<Square> for String {
    fn from(square: Square) -> Self {
        square.to_string()
    }
}

/// Why some text is not a square at all (as opposed to a square off this board).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotASquare;

impl FromStr for Square {
    type Err = NotASquare;
    /// `G13`, `g13`, `G07`, `AB7`: one or two letters then a row number from 1. Any such
    /// square parses here; the board decides whether it is on it.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let split = text
            .find(|c: char| !c.is_ascii_alphabetic())
            .ok_or(NotASquare)?;
        let (letters, digits) = (
            text.get(..split).ok_or(NotASquare)?,
            text.get(split..).ok_or(NotASquare)?,
        );
        if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NotASquare);
        }
        let x = Square::column_from_letters(letters).ok_or(NotASquare)?;
        let row: u16 = digits.parse().map_err(|_| NotASquare)?;
        let y = row.checked_sub(1).ok_or(NotASquare)?;
        Ok(Square { x, y })
    }
}

impl TryFrom<String> for Square {
    type Error = String;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
            .map_err(|_| format!("{text:?} is not a square such as G13"))
    }
}

/// The steps of a ship's four directions, E, S, SE, NE: the order in which new ships' spots
/// are listed and drawn from (BARMY-05, BARMY-GM-04). Changing it would move every ship.
pub(crate) const DIRECTIONS: [(i16, i16); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The board's size, a GM setting (BARMY-03, BARMY-GM-01).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    pub width: u16,
    pub height: u16,
}

impl Grid {
    pub fn contains(&self, square: Square) -> bool {
        square.x < self.width && square.y < self.height
    }

    pub fn last_column(&self) -> String {
        Square::column_label(self.width.saturating_sub(1))
    }

    /// "columns A–S, rows 1–19", for error messages.
    pub fn describe(&self) -> String {
        format!("columns A–{}, rows 1–{}", self.last_column(), self.height)
    }

    /// Where a square sits in a vector laid out row by row, like `occupancy`.
    pub(crate) fn index(&self, square: Square) -> usize {
        usize::from(square.y) * usize::from(self.width) + usize::from(square.x)
    }

    /// The four squares from `start` in steps of (`dx`, `dy`), if they all lie on the board.
    pub(crate) fn line_from(
        &self,
        start: Square,
        dx: i16,
        dy: i16,
    ) -> Option<[Square; SHIP_LENGTH]> {
        let mut ship = [start; SHIP_LENGTH];
        for (step, square) in (0i16..).zip(ship.iter_mut()) {
            let x = u16::try_from(i32::from(start.x) + i32::from(dx * step)).ok()?;
            let y = u16::try_from(i32::from(start.y) + i32::from(dy * step)).ok()?;
            *square = Square::new(x, y);
            if !self.contains(*square) {
                return None;
            }
        }
        Some(ship)
    }

    /// Which squares are taken by the given ships.
    pub fn occupancy<'a>(
        &self,
        ships: impl IntoIterator<Item = &'a [Square; SHIP_LENGTH]>,
    ) -> Vec<bool> {
        let mut occupied = vec![false; usize::from(self.width) * usize::from(self.height)];
        for ship in ships {
            for square in ship {
                if let Some(cell) = occupied.get_mut(self.index(*square)) {
                    *cell = true;
                }
            }
        }
        occupied
    }

    /// Is this a straight, gap-free line of four squares on the board (BARMY-04/05)?
    pub fn is_ship(&self, squares: &[Square; SHIP_LENGTH]) -> bool {
        let [first, second, ..] = *squares;
        let dx = i32::from(second.x) - i32::from(first.x);
        let dy = i32::from(second.y) - i32::from(first.y);
        if dx.abs() > 1 || dy.abs() > 1 || (dx, dy) == (0, 0) {
            return false;
        }
        // |dx|, |dy| <= 1 here, so the casts cannot truncate.
        self.line_from(first, dx as i16, dy as i16).as_ref() == Some(squares)
    }
}

/// The enumeration that placement used before `FreePlacements`, kept as the reference the fast
/// structure must match placement for placement (BARMY-GM-04).
#[cfg(test)]
pub(crate) mod reference {
    use super::{Grid, SHIP_LENGTH, Square};

    /// Every legal spot for a new battleship, in a fixed order: directions E, S, SE, NE, then
    /// rows, then columns (BARMY-05, BARMY-GM-04). `occupied` is indexed like the grid.
    pub(crate) fn free_placements(grid: &Grid, occupied: &[bool]) -> Vec<[Square; SHIP_LENGTH]> {
        // Its own copy of the order, as it stood: the fast structure must not merely agree
        // with whatever `board::DIRECTIONS` says.
        const DIRECTIONS: [(i16, i16); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
        let mut placements = Vec::new();
        for (dx, dy) in DIRECTIONS {
            for y in 0..grid.height {
                for x in 0..grid.width {
                    if let Some(ship) = grid.line_from(Square::new(x, y), dx, dy)
                        && ship
                            .iter()
                            .all(|s| !occupied.get(grid.index(*s)).copied().unwrap_or(true))
                    {
                        placements.push(ship);
                    }
                }
            }
        }
        placements
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::FreePlacements;

    #[test]
    fn squares_read_and_write_like_the_text() {
        // BARMY-03: letters along the top (x), numbers down the side (y).
        let g13: Square = "G13".parse().unwrap();
        assert_eq!(g13, Square::new(6, 12));
        assert_eq!(g13.to_string(), "G13");
        assert_eq!("g07".parse::<Square>().unwrap().to_string(), "G7");
        assert_eq!("Z99".parse::<Square>().unwrap(), Square::new(25, 98));
        for bad in [
            "", "G", "13", "G0", "GGG1", "G1000", "G-1", "Ä1", "G 1", "G1G",
        ] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn columns_beyond_z_continue_like_a_spreadsheet() {
        // Large zines need boards wider than 26 columns (overrules BARMY-GM-14's cap).
        assert_eq!(Square::column_label(25), "Z");
        assert_eq!(Square::column_label(26), "AA");
        assert_eq!(Square::column_label(27), "AB");
        assert_eq!(Square::column_label(51), "AZ");
        assert_eq!(Square::column_label(52), "BA");
        assert_eq!(Square::column_label(MAX_COLUMNS - 1), "ZZ");
        for x in 0..MAX_COLUMNS {
            let square = Square::new(x, 6);
            assert_eq!(square.to_string().parse::<Square>().unwrap(), square);
        }
        assert_eq!("ab7".parse::<Square>().unwrap(), Square::new(27, 6));
    }

    #[test]
    fn a_19_by_19_board_has_1120_placements() {
        // BARMY-GM-04: 16·19 + 16·19 + 16·16 + 16·16.
        let grid = Grid {
            width: 19,
            height: 19,
        };
        let empty = grid.occupancy([]);
        assert_eq!(reference::free_placements(&grid, &empty).len(), 1120);
        assert_eq!(FreePlacements::new(grid, &empty).count(), 1120);
    }

    #[test]
    fn ships_are_straight_lines_in_four_directions() {
        // BARMY-05: vertical, horizontal or diagonal.
        let grid = Grid {
            width: 19,
            height: 19,
        };
        let ship = |text: [&str; 4]| text.map(|s| s.parse::<Square>().unwrap());
        assert!(grid.is_ship(&ship(["E13", "F13", "G13", "H13"])));
        assert!(
            !grid.is_ship(&ship(["M17", "M18", "M19", "M20"])),
            "row 20 is off a 19x19 board"
        );
        assert!(grid.is_ship(&ship(["M16", "M17", "M18", "M19"])));
        assert!(grid.is_ship(&ship(["B2", "C3", "D4", "E5"])));
        assert!(grid.is_ship(&ship(["B5", "C4", "D3", "E2"])));
        assert!(!grid.is_ship(&ship(["B2", "C3", "D4", "F6"])));
        assert!(!grid.is_ship(&ship(["B2", "B2", "B2", "B2"])));
    }

    #[test]
    fn diagonal_ships_may_cross_without_sharing_a_square() {
        // BARMY-GM-05 and BARMY-06: an X of two diagonals shares no square, so both fit.
        let grid = Grid {
            width: 19,
            height: 19,
        };
        let first = ["B2", "C3", "D4", "E5"].map(|s| s.parse::<Square>().unwrap());
        let occupied = grid.occupancy([&first]);
        let crossing = ["B5", "C4", "D3", "E2"].map(|s| s.parse::<Square>().unwrap());
        let overlapping = ["A1", "B2", "C3", "D4"].map(|s| s.parse::<Square>().unwrap());
        let listed = reference::free_placements(&grid, &occupied);
        assert!(listed.contains(&crossing));
        assert!(!listed.contains(&overlapping));
        let free = FreePlacements::new(grid, &occupied);
        let fast: Vec<_> = (0..free.count()).filter_map(|k| free.nth(k)).collect();
        assert_eq!(fast, listed);
    }
}
