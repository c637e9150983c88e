//! The 10×10 ocean and the shapes attacks take on it.
//!
//! Letters are ROWS (A at the top, J at the bottom) and numbers are COLUMNS (1 on the left,
//! 10 on the right), as in classic Battleship (SALVO-CL-01); the torpedo example proves it
//! (SALVO-TORP-05: from F10 "to the left" to F7). This is the opposite of barmy.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Rows and columns on a side (SALVO-CL-01).
pub const SIDE: u8 = 10;
/// Squares on the board.
pub const SQUARES: usize = 100;

const ROW_LETTERS: [char; 10] = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'];

/// A square of the ocean, on the board by construction (SALVO-CL-01). Orders by reading
/// order: A1, A2, ... A10, B1, ... J10 (the order SALVO-GM-10 grows blasts in).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Square {
    row: u8,
    col: u8,
}

/// Why a piece of text is not a square of the board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SquareError {
    #[error("'{0}' is not a square: write a row letter A–J then a column number 1–10, like D4")]
    NotASquare(String),
    #[error("{0} is off the board: rows run A to J")]
    RowOffBoard(String),
    #[error("{0} is off the board: columns run 1 to 10")]
    ColumnOffBoard(String),
    /// `10J`: the number written before the letter (SALVO-CL-01: the row letter comes first).
    #[error("{}", number_first(.written, .fixed, *.on_board))]
    NumberFirst {
        written: String,
        /// The square read letter first (`J10`).
        fixed: String,
        on_board: bool,
    },
}

fn number_first(written: &str, fixed: &str, on_board: bool) -> String {
    if on_board {
        format!(
            "'{written}' has the number first: a square is the row letter, then the column number, so write {fixed}"
        )
    } else {
        format!(
            "'{written}' has the number first, and {fixed} would be off the board too: a square is a row letter A–J, then a column number 1–10, like D4"
        )
    }
}

impl SquareError {
    /// `10J` read as written the wrong way round, with the square it would be letter first.
    pub fn number_first(digits: &str, letter: &str) -> Self {
        let fixed = format!("{}{digits}", letter.to_uppercase());
        let on_board = Square::parse(&fixed).is_ok();
        SquareError::NumberFirst {
            written: format!("{digits}{}", letter.to_uppercase()),
            fixed,
            on_board,
        }
    }
}

impl Square {
    /// The square at 0-based `row` (A = 0) and `col` (1 = 0), if that is on the board.
    pub fn new(row: u8, col: u8) -> Option<Self> {
        (row < SIDE && col < SIDE).then_some(Self { row, col })
    }

    /// 0-based row: A is 0.
    pub fn row(self) -> u8 {
        self.row
    }

    /// 0-based column: 1 is 0.
    pub fn col(self) -> u8 {
        self.col
    }

    /// 0..100 in reading order, for bitsets.
    pub fn index(self) -> usize {
        usize::from(self.row) * usize::from(SIDE) + usize::from(self.col)
    }

    /// Reads `D4`, `d4`, `D-4`, `D 4` or `j10`: one row letter, then the column number.
    pub fn parse(text: &str) -> Result<Self, SquareError> {
        let cleaned: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect();
        let mut chars = cleaned.chars();
        let not_a_square = || SquareError::NotASquare(text.trim().to_string());
        let letter = chars
            .next()
            .filter(char::is_ascii_alphabetic)
            .ok_or_else(not_a_square)?
            .to_ascii_uppercase();
        let digits: String = chars.collect();
        if digits.is_empty() || digits.len() > 3 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(not_a_square());
        }
        let number: u8 = digits.parse().map_err(|_| not_a_square())?;
        let shown = format!("{letter}{number}");
        let row = ROW_LETTERS
            .iter()
            .position(|l| *l == letter)
            .ok_or(SquareError::RowOffBoard(shown.clone()))?;
        if !(1..=SIDE).contains(&number) {
            return Err(SquareError::ColumnOffBoard(shown));
        }
        // row < 10, so the cast cannot truncate.
        Self::new(row as u8, number - 1).ok_or(SquareError::NotASquare(shown))
    }

    /// The square `rows` down and `cols` right of this one, if on the board.
    pub fn offset(self, rows: i8, cols: i8) -> Option<Self> {
        let row = i16::from(self.row) + i16::from(rows);
        let col = i16::from(self.col) + i16::from(cols);
        let row = u8::try_from(row).ok()?;
        let col = u8::try_from(col).ok()?;
        Self::new(row, col)
    }

    /// The next square in a compass direction.
    pub fn step(self, heading: Heading) -> Option<Self> {
        let (rows, cols) = heading.delta();
        self.offset(rows, cols)
    }

    /// Every square in reading order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SIDE).flat_map(|row| (0..SIDE).map(move |col| Square { row, col }))
    }

    /// Whether the two squares touch along a side or at a corner (SALVO-EXP-03).
    pub fn touches(self, other: Square) -> bool {
        self != other && self.row.abs_diff(other.row) <= 1 && self.col.abs_diff(other.col) <= 1
    }

    /// The up-to-8 squares touching this one, in reading order.
    pub fn neighbours(self) -> impl Iterator<Item = Square> {
        NEIGHBOUR_OFFSETS
            .into_iter()
            .filter_map(move |(rows, cols)| self.offset(rows, cols))
    }

    /// The edges of the board this square lies on, as the directions that point INTO the
    /// board from it (SALVO-GM-07): A3 gives [South], A1 gives [South, East].
    pub fn inward_headings(self) -> Vec<Heading> {
        let mut headings = Vec::with_capacity(2);
        if self.row == 0 {
            headings.push(Heading::South);
        }
        if self.row == SIDE - 1 {
            headings.push(Heading::North);
        }
        if self.col == 0 {
            headings.push(Heading::East);
        }
        if self.col == SIDE - 1 {
            headings.push(Heading::West);
        }
        headings
    }
}

const NEIGHBOUR_OFFSETS: [(i8, i8); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

const COLUMN_NUMBERS: [&str; 10] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];

impl Square {
    /// Appends the square's name to `text` without the formatting machinery: reports name
    /// every square an attack touches, so this is the hot path of a turn's report.
    pub fn push_name(self, text: &mut String) {
        text.push(row_letter(self.row));
        text.push_str(COLUMN_NUMBERS.get(usize::from(self.col)).unwrap_or(&"?"));
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut name = String::with_capacity(3);
        self.push_name(&mut name);
        f.write_str(&name)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<Square> for String {
    fn from(square: Square) -> Self {
        square.to_string()
    }
}

impl TryFrom<String> for Square {
    type Error = SquareError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text)
    }
}

/// The letter of a 0-based row, for grid pictures.
pub fn row_letter(row: u8) -> char {
    ROW_LETTERS.get(usize::from(row)).copied().unwrap_or('?')
}

/// A compass direction on the defender's grid: North is toward row A, West toward column 1
/// (SALVO-GM-07).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Heading {
    North,
    South,
    East,
    West,
}

impl Heading {
    fn delta(self) -> (i8, i8) {
        match self {
            Heading::North => (-1, 0),
            Heading::South => (1, 0),
            Heading::East => (0, 1),
            Heading::West => (0, -1),
        }
    }

    /// `N`, `S`, `E` or `W`, as reports show it.
    pub fn letter(self) -> char {
        match self {
            Heading::North => 'N',
            Heading::South => 'S',
            Heading::East => 'E',
            Heading::West => 'W',
        }
    }
}

impl fmt::Display for Heading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Heading::North => "north",
            Heading::South => "south",
            Heading::East => "east",
            Heading::West => "west",
        })
    }
}

/// The squares of the tactical nuke centred on `centre`, in reading order, clipped at the
/// board's edge (SALVO-GM-13): the 13-square diamond |dr| + |dc| <= 2 (SALVO-NUKE-04), or the
/// full 5×5 block in Condition Bravo (SALVO-NUKE-08).
pub fn nuke_pattern(centre: Square, bravo: bool) -> Vec<Square> {
    let mut squares = Vec::with_capacity(25);
    for rows in -2i8..=2 {
        for cols in -2i8..=2 {
            if bravo || rows.abs() + cols.abs() <= 2 {
                squares.extend(centre.offset(rows, cols));
            }
        }
    }
    squares
}

/// The bomber flight's 3×3 block around `centre`, in reading order, clipped at the edge
/// (SALVO-BOMB-03, SALVO-GM-13).
pub fn bomber_pattern(centre: Square) -> Vec<Square> {
    let mut squares = Vec::with_capacity(9);
    for rows in -1i8..=1 {
        for cols in -1i8..=1 {
            squares.extend(centre.offset(rows, cols));
        }
    }
    squares
}

/// Every square a torpedo crosses from `start` (inclusive) to the far edge (SALVO-TORP-04).
pub fn torpedo_run(start: Square, heading: Heading) -> Vec<Square> {
    let mut path = Vec::with_capacity(usize::from(SIDE));
    let mut at = Some(start);
    while let Some(square) = at {
        path.push(square);
        at = square.step(heading);
    }
    path
}

/// The experimental weapon's blast of `size` squares from the player's ordered list
/// (SALVO-GM-10): the list's first `size` squares, and if the list is shorter, rings grown
/// breadth-first, each ring taken in reading order, until the blast has `size` squares or
/// covers the board.
pub fn grow_blast(listed: &[Square], size: usize) -> Vec<Square> {
    let mut blast: Vec<Square> = listed.iter().copied().take(size).collect();
    let mut in_blast = [false; SQUARES];
    for square in &blast {
        if let Some(slot) = in_blast.get_mut(square.index()) {
            *slot = true;
        }
    }
    while blast.len() < size {
        let mut in_ring = [false; SQUARES];
        for square in &blast {
            for neighbour in square.neighbours() {
                if !in_blast.get(neighbour.index()).copied().unwrap_or(true)
                    && let Some(slot) = in_ring.get_mut(neighbour.index())
                {
                    *slot = true;
                }
            }
        }
        let ring: Vec<Square> = Square::all()
            .filter(|square| in_ring.get(square.index()).copied().unwrap_or(false))
            .collect();
        if ring.is_empty() {
            break;
        }
        for square in ring {
            if blast.len() >= size {
                break;
            }
            if let Some(slot) = in_blast.get_mut(square.index()) {
                *slot = true;
            }
            blast.push(square);
        }
    }
    blast
}

/// Squares in a straight line from `from` to `to` inclusive (a row or a column), for ranges
/// such as `B2-B4`; `None` if the two are not in one row or column.
pub fn line_between(from: Square, to: Square) -> Option<Vec<Square>> {
    if from.row != to.row && from.col != to.col {
        return None;
    }
    let rows = i8::try_from(i16::from(to.row) - i16::from(from.row)).ok()?;
    let cols = i8::try_from(i16::from(to.col) - i16::from(from.col)).ok()?;
    let steps = rows.abs().max(cols.abs());
    let (step_row, step_col) = (rows.signum(), cols.signum());
    (0..=steps)
        .map(|i| from.offset(step_row * i, step_col * i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(names: &str) -> Vec<Square> {
        names
            .split_whitespace()
            .map(|n| Square::parse(n).unwrap())
            .collect()
    }

    #[test]
    fn squares_read_and_print_letter_row_then_column() {
        let d4 = Square::parse("d4").unwrap();
        assert_eq!((d4.row(), d4.col()), (3, 3));
        assert_eq!(Square::parse(" J-10 ").unwrap().to_string(), "J10");
        assert!(matches!(
            Square::parse("K1"),
            Err(SquareError::RowOffBoard(_))
        ));
        assert!(matches!(
            Square::parse("A11"),
            Err(SquareError::ColumnOffBoard(_))
        ));
        assert!(matches!(
            Square::parse("A0"),
            Err(SquareError::ColumnOffBoard(_))
        ));
        assert!(Square::parse("4D").is_err());
        assert!(Square::parse("").is_err());
        assert!(Square::parse("A99999999999").is_err());
    }

    #[test]
    fn reading_order_is_row_then_column() {
        let all: Vec<String> = Square::all().map(|s| s.to_string()).collect();
        assert_eq!(all.first().unwrap(), "A1");
        assert_eq!(all.get(10).unwrap(), "B1");
        assert_eq!(all.last().unwrap(), "J10");
        let mut sorted = squares("B1 A10 A2");
        sorted.sort();
        assert_eq!(sorted, squares("A2 A10 B1"));
    }

    #[test]
    fn nuke_diamond_and_bravo_block_salvo_ex_01_ex_02() {
        // SALVO-NUKE-05 / SALVO-EX-01: the text's own list.
        assert_eq!(
            nuke_pattern(Square::parse("D4").unwrap(), false),
            squares("B4 C3 C4 C5 D2 D3 D4 D5 D6 E3 E4 E5 F4")
        );
        // SALVO-EX-02: the 5×5 block B2–F6; the bonus squares are the 12 outside the diamond.
        let bravo = nuke_pattern(Square::parse("D4").unwrap(), true);
        assert_eq!(bravo.len(), 25);
        let diamond = nuke_pattern(Square::parse("D4").unwrap(), false);
        let bonus: Vec<Square> = bravo
            .iter()
            .copied()
            .filter(|s| !diamond.contains(s))
            .collect();
        assert_eq!(bonus, squares("B2 B3 B5 B6 C2 C6 E2 E6 F2 F3 F5 F6"));
    }

    #[test]
    fn patterns_clip_at_the_edge_salvo_ex_03_gm_13() {
        let a1 = Square::parse("A1").unwrap();
        assert_eq!(nuke_pattern(a1, false), squares("A1 A2 A3 B1 B2 C1"));
        assert_eq!(
            nuke_pattern(a1, true),
            squares("A1 A2 A3 B1 B2 B3 C1 C2 C3")
        );
        assert_eq!(
            nuke_pattern(Square::parse("J10").unwrap(), false),
            squares("H10 I9 I10 J8 J9 J10")
        );
        assert_eq!(bomber_pattern(a1), squares("A1 A2 B1 B2"));
        assert_eq!(
            bomber_pattern(Square::parse("G6").unwrap()),
            squares("F5 F6 F7 G5 G6 G7 H5 H6 H7")
        );
    }

    #[test]
    fn torpedo_runs_to_the_far_edge() {
        let run = torpedo_run(Square::parse("F10").unwrap(), Heading::West);
        assert_eq!(run, squares("F10 F9 F8 F7 F6 F5 F4 F3 F2 F1"));
        let run = torpedo_run(Square::parse("A3").unwrap(), Heading::South);
        assert_eq!(run.len(), 10);
        assert_eq!(run.last().unwrap().to_string(), "J3");
    }

    #[test]
    fn inward_headings_of_edges_and_corners_salvo_gm_07() {
        let of = |s: &str| Square::parse(s).unwrap().inward_headings();
        assert_eq!(of("A3"), vec![Heading::South]);
        assert_eq!(of("B1"), vec![Heading::East]);
        assert_eq!(of("F10"), vec![Heading::West]);
        assert_eq!(of("J4"), vec![Heading::North]);
        assert_eq!(of("A1"), vec![Heading::South, Heading::East]);
        assert_eq!(of("J10"), vec![Heading::North, Heading::West]);
        assert!(of("E5").is_empty());
    }

    #[test]
    fn blast_growth_follows_rings_in_reading_order_salvo_ex_09() {
        let listed = squares("E5 E6");
        assert_eq!(grow_blast(&listed, 8), squares("E5 E6 D4 D5 D6 D7 E4 E7"));
        assert_eq!(grow_blast(&listed, 1), squares("E5"));
        assert_eq!(grow_blast(&listed, 1000).len(), SQUARES);
    }

    #[test]
    fn ranges_run_along_a_row_or_column() {
        let b = |s: &str| Square::parse(s).unwrap();
        assert_eq!(line_between(b("B2"), b("B4")).unwrap(), squares("B2 B3 B4"));
        assert_eq!(line_between(b("E3"), b("C3")).unwrap(), squares("E3 D3 C3"));
        assert!(line_between(b("A1"), b("B2")).is_none());
    }
}
