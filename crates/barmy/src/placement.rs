//! Choosing where a new battleship goes, fast enough for a zine's one big game (BARMY-GM-04).
//!
//! The rule draws uniformly among the free placements in a fixed order (direction, then row,
//! then column). Listing them all for every ship costs the whole board per ship, and a board
//! sized for N players has O(N) squares, so starting a game cost O(N²): minutes for 10,000
//! subscribers. Here every placement keeps its index in that same order, a Fenwick tree counts
//! the free ones, and the k-th free placement is found in O(log board). The dice see the same
//! count and the k-th is the same placement, so every published turn replays unchanged.

use crate::board::{DIRECTIONS, Grid, SHIP_LENGTH, Square};

/// The free placements of a board, in the order of BARMY-GM-04, kept up to date ship by ship.
#[derive(Debug, Clone)]
pub(crate) struct FreePlacements {
    grid: Grid,
    /// Squares on the board: the size of one direction's block of indices.
    area: usize,
    /// By canonical index (direction, row, column): on the board and clear of every ship.
    free: Vec<bool>,
    /// A Fenwick tree over `free`, 1-based: `tree[i]` counts the free indices in
    /// `i - lowbit(i) .. i`.
    tree: Vec<u32>,
    count: usize,
    /// The largest power of two not above `free.len()`: where the search for the k-th begins.
    top: usize,
}

impl FreePlacements {
    /// Every placement on `grid` that covers no occupied square (`occupied` is indexed like
    /// `Grid::occupancy`; a square missing from it counts as taken). O(board).
    pub(crate) fn new(grid: Grid, occupied: &[bool]) -> Self {
        let (width, height) = (usize::from(grid.width), usize::from(grid.height));
        let area = width * height;
        let mut free = Vec::with_capacity(DIRECTIONS.len() * area);
        for (dx, dy) in DIRECTIONS {
            for y in 0..grid.height {
                for x in 0..grid.width {
                    free.push(
                        grid.line_from(Square::new(x, y), dx, dy)
                            .is_some_and(|ship| {
                                ship.iter()
                                    .all(|s| !occupied.get(grid.index(*s)).copied().unwrap_or(true))
                            }),
                    );
                }
            }
        }
        // The linear build: each node passes its total up to its parent once.
        let mut tree = vec![0u32; free.len() + 1];
        for i in 1..tree.len() {
            let own = u32::from(free.get(i - 1).copied().unwrap_or(false));
            let Some(node) = tree.get_mut(i) else { break };
            *node += own;
            let total = *node;
            if let Some(parent) = tree.get_mut(i + lowbit(i)) {
                *parent += total;
            }
        }
        let count = free.iter().filter(|f| **f).count();
        let top = if free.is_empty() {
            0
        } else {
            1 << free.len().ilog2()
        };
        Self {
            grid,
            area,
            free,
            tree,
            count,
            top,
        }
    }

    /// How many placements are free: the number the dice pick among.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// The `k`-th free placement (from 0) in the canonical order, as the full list would give
    /// at position `k`. `None` when `k` is not below `count()`.
    pub(crate) fn nth(&self, k: usize) -> Option<[Square; SHIP_LENGTH]> {
        // Descend the tree for the longest prefix holding at most k free placements: the one
        // just after it is the k-th.
        let mut rest = u32::try_from(k).ok()?;
        let mut prefix = 0;
        let mut step = self.top;
        while step > 0 {
            if let Some(&below) = self.tree.get(prefix + step)
                && below <= rest
            {
                prefix += step;
                rest -= below;
            }
            step /= 2;
        }
        if !self.free.get(prefix).copied().unwrap_or(false) {
            return None;
        }
        self.placement(prefix)
    }

    /// Marks as taken every placement that covers a square of `ship`: at most four directions
    /// times four positions along the line per square. O(log board).
    pub(crate) fn occupy(&mut self, ship: &[Square; SHIP_LENGTH]) {
        let grid = self.grid;
        for square in ship.iter().filter(|s| grid.contains(**s)) {
            for (direction, (dx, dy)) in DIRECTIONS.iter().enumerate() {
                for step in 0..SHIP_LENGTH as i32 {
                    let x = i32::from(square.x) - i32::from(*dx) * step;
                    let y = i32::from(square.y) - i32::from(*dy) * step;
                    if let (Ok(x), Ok(y)) = (u16::try_from(x), u16::try_from(y))
                        && grid.contains(Square::new(x, y))
                    {
                        let start = grid.index(Square::new(x, y));
                        self.take(direction * self.area + start);
                    }
                }
            }
        }
    }

    /// Is this ship's placement free: on the board, in a line, and clear of every ship? A
    /// ship given from either end is the same placement. O(1).
    pub(crate) fn is_free(&self, ship: &[Square; SHIP_LENGTH]) -> bool {
        self.index_of(ship)
            .is_some_and(|index| self.free.get(index).copied().unwrap_or(false))
    }

    /// The canonical index of a ship's placement (direction, row, column), if it is one.
    fn index_of(&self, ship: &[Square; SHIP_LENGTH]) -> Option<usize> {
        if !self.grid.is_ship(ship) {
            return None;
        }
        let [first, second, .., last] = *ship;
        let dx = i32::from(second.x) - i32::from(first.x);
        let dy = i32::from(second.y) - i32::from(first.y);
        DIRECTIONS
            .iter()
            .enumerate()
            .find_map(|(direction, (ex, ey))| {
                let (ex, ey) = (i32::from(*ex), i32::from(*ey));
                let start = if (dx, dy) == (ex, ey) {
                    first
                } else if (dx, dy) == (-ex, -ey) {
                    last
                } else {
                    return None;
                };
                Some(direction * self.area + self.grid.index(start))
            })
    }

    fn take(&mut self, index: usize) {
        match self.free.get_mut(index) {
            Some(free) if *free => *free = false,
            _ => return,
        }
        self.count -= 1;
        let mut i = index + 1;
        while let Some(node) = self.tree.get_mut(i) {
            *node -= 1;
            i += lowbit(i);
        }
    }

    /// The placement at a canonical index, inverting `direction * area + y * width + x`.
    fn placement(&self, index: usize) -> Option<[Square; SHIP_LENGTH]> {
        let direction = index.checked_div(self.area)?;
        let within = index.checked_rem(self.area)?;
        let width = usize::from(self.grid.width);
        let y = u16::try_from(within.checked_div(width)?).ok()?;
        let x = u16::try_from(within.checked_rem(width)?).ok()?;
        let (dx, dy) = *DIRECTIONS.get(direction)?;
        self.grid.line_from(Square::new(x, y), dx, dy)
    }
}

/// The lowest set bit: the span a Fenwick node covers.
fn lowbit(i: usize) -> usize {
    i & i.wrapping_neg()
}
