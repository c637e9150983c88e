//! Barmy Battleships (rules text 001, catalogue `BARMY-`): every subscriber of the zine has one
//! battleship on a shared board, fires two shots a turn, and scores a point per hit, shared
//! between everyone who hit that square that turn.

use std::collections::BTreeMap;

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Resolution, Score, SetupError, TurnDice,
    TurnError, TurnInput, View, Viewer,
};
use serde::{Deserialize, Serialize};

pub mod board;
mod orders;
mod resolve;
mod view;

pub use board::{Grid, SHIP_LENGTH, Square};
pub use orders::{Orders, Shot, Target};

/// The engine.
pub struct Barmy;

/// The GM's settings for one game (BARMY-GM-01, BARMY-GM-10, BARMY-GM-14).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Setup {
    /// Columns, lettered A–Z then AA–ZZ (at most 702). The text's board is 19 (BARMY-03).
    pub width: u16,
    /// Rows, numbered from 1 (at most 999). The text's board is 19 (BARMY-03).
    pub height: u16,
    /// The last turn, if the GM sets one; otherwise the game ends when at most one ship is
    /// afloat (BARMY-GM-10).
    pub final_turn: Option<u32>,
    /// Append the share to shared hits, `hit John Smith (1/2)` (catalogue section 5).
    pub show_shares: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            width: 19,
            height: 19,
            final_turn: None,
            show_shares: false,
        }
    }
}

impl Setup {
    pub fn grid(&self) -> Grid {
        Grid {
            width: self.width,
            height: self.height,
        }
    }

    fn check(&self) -> Result<(), SetupError> {
        if !(4..=board::MAX_COLUMNS).contains(&self.width) {
            return Err(SetupError::Settings(format!(
                "the board is {} columns wide; it must be 4 to {} (lettered A to ZZ)",
                self.width,
                board::MAX_COLUMNS
            )));
        }
        if !(4..=board::MAX_ROWS).contains(&self.height) {
            return Err(SetupError::Settings(format!(
                "the board is {} rows high; it must be 4 to {}",
                self.height,
                board::MAX_ROWS
            )));
        }
        if self.final_turn == Some(0) {
            return Err(SetupError::Settings(
                "the final turn must be 1 or later".into(),
            ));
        }
        Ok(())
    }
}

/// One player and their battleship.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Captain {
    pub id: PlayerId,
    pub name: String,
    /// The four squares, in line order (BARMY-04).
    pub ship: [Square; SHIP_LENGTH],
    /// What has struck each of the four squares, if anything.
    pub damage: [Option<Damage>; SHIP_LENGTH],
    pub score: Score,
    /// The first turn this player fires in: 1, or the turn after they joined (BARMY-GM-11).
    pub first_turn: u32,
    pub fate: Fate,
}

/// What struck a square of a ship, and in which turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "turn")]
pub enum Damage {
    /// A scoring shot: public.
    Shot(u32),
    /// An NMR penalty (BARMY-17, BARMY-GM-06): hidden until the ship sinks.
    Penalty(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "turn")]
pub enum Fate {
    Afloat,
    /// Sunk in this turn (BARMY-11).
    Sunk(u32),
    /// Removed from the game by the GM before this turn, ship and all (BARMY-GM-11).
    Left(u32),
}

impl Captain {
    pub fn hits_taken(&self) -> usize {
        self.damage.iter().flatten().count()
    }

    pub fn is_afloat(&self) -> bool {
        self.fate == Fate::Afloat
    }

    /// `no hits`, `1 hit`, `3 hits` or `sunk!` (BARMY-20).
    pub fn own_status(&self) -> String {
        match (self.fate, self.hits_taken()) {
            (Fate::Sunk(_), _) => "sunk!".into(),
            (Fate::Left(_), _) => "left the game".into(),
            (Fate::Afloat, 0) => "no hits".into(),
            (Fate::Afloat, 1) => "1 hit".into(),
            (Fate::Afloat, 2) => "2 hits".into(),
            (Fate::Afloat, 3) => "3 hits".into(),
            (Fate::Afloat, n) => format!("{n} hits"),
        }
    }
}

/// A game in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub setup: Setup,
    /// The turn that resolves next.
    pub turn: u32,
    /// In the GM's roster order (the order players were given, then joiners).
    pub captains: Vec<Captain>,
    /// Every on-board square anyone has fired at: the public record of shots.
    pub shots: std::collections::BTreeSet<Square>,
    pub finished: bool,
}

impl State {
    /// A game whose battleships stand where the GM says, for fixtures and offline rulings.
    /// Checks each ship is a line of four on the board and that no two share a square.
    pub fn with_ships(
        setup: Setup,
        ships: Vec<(Player, [Square; SHIP_LENGTH])>,
    ) -> Result<State, SetupError> {
        setup.check()?;
        let grid = setup.grid();
        let mut captains: Vec<Captain> = Vec::with_capacity(ships.len());
        for (player, ship) in ships {
            if !grid.is_ship(&ship) {
                return Err(SetupError::Players(format!(
                    "{}'s ship {} is not four squares in a line on the board",
                    player.name,
                    ship.map(|s| s.to_string()).join("-")
                )));
            }
            if captains
                .iter()
                .any(|c| c.ship.iter().any(|s| ship.contains(s)))
            {
                return Err(SetupError::Players(format!(
                    "{}'s ship overlaps another ship",
                    player.name
                )));
            }
            check_new_player(&captains, &player)?;
            captains.push(Captain::new(player, ship, 1));
        }
        Ok(State {
            setup,
            turn: 1,
            captains,
            shots: Default::default(),
            finished: false,
        })
    }

    pub fn captain(&self, id: PlayerId) -> Option<&Captain> {
        self.captains.iter().find(|c| c.id == id)
    }

    /// Places a new player's ship uniformly among the free placements, with the sealed dice
    /// (BARMY-GM-04). `None` when the board has no room left.
    fn place(&mut self, player: Player, first_turn: u32, dice: &mut engine::Dice) -> Option<()> {
        let grid = self.setup.grid();
        let occupied = grid.occupancy(
            self.captains
                .iter()
                .filter(|c| !matches!(c.fate, Fate::Left(_)))
                .map(|c| &c.ship),
        );
        let placements = grid.free_placements(&occupied);
        if placements.is_empty() {
            return None;
        }
        let ship = *placements.get(dice.pick(placements.len()))?;
        self.captains.push(Captain::new(player, ship, first_turn));
        Some(())
    }
}

impl Captain {
    fn new(player: Player, ship: [Square; SHIP_LENGTH], first_turn: u32) -> Self {
        Self {
            id: player.id,
            name: engine::report::one_line(&player.name),
            ship,
            damage: [None; SHIP_LENGTH],
            score: Score::ZERO,
            first_turn,
            fate: Fate::Afloat,
        }
    }
}

fn check_new_player(captains: &[Captain], player: &Player) -> Result<(), SetupError> {
    if captains.iter().any(|c| c.id == player.id) {
        return Err(SetupError::Players(format!(
            "player {} is listed twice",
            player.id.0
        )));
    }
    if engine::report::one_line(&player.name).is_empty() {
        return Err(SetupError::Players(format!(
            "player {} has no name",
            player.id.0
        )));
    }
    Ok(())
}

impl Engine for Barmy {
    const NAME: &'static str = "barmy";
    const TITLE: &'static str = "Barmy Battleships";

    type Setup = Setup;
    type State = State;
    type Orders = Orders;

    /// Every player gets a ship placed at random, in ascending id order (BARMY-02, BARMY-GM-04).
    fn new_game(
        setup: &Setup,
        players: &[Player],
        dice: &mut TurnDice,
    ) -> Result<State, SetupError> {
        setup.check()?;
        let mut sorted: Vec<&Player> = players.iter().collect();
        sorted.sort_by_key(|p| p.id);
        let mut state = State::with_ships(setup.clone(), Vec::new())?;
        for player in sorted {
            check_new_player(&state.captains, player)?;
            state
                .place(player.clone(), 1, &mut dice.sealed)
                .ok_or_else(|| {
                    SetupError::Players(format!(
                        "no room for {}'s ship on a {}x{} board with {} players: enlarge the board",
                        player.name,
                        setup.width,
                        setup.height,
                        players.len()
                    ))
                })?;
        }
        // Roster order is the order the GM gave, not the placement order.
        let position = |id: PlayerId| {
            players
                .iter()
                .position(|p| p.id == id)
                .unwrap_or(usize::MAX)
        };
        state.captains.sort_by_key(|c| position(c.id));
        Ok(state)
    }

    fn parse_orders(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
        orders::parse(state, player, text)
    }

    fn resolve(
        state: &State,
        input: &TurnInput<Orders>,
        dice: &mut TurnDice,
    ) -> Result<Resolution<State>, TurnError> {
        resolve::resolve(state, input, dice)
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    fn outcome(state: &State) -> Outcome {
        view::outcome(state)
    }

    fn turn(state: &State) -> u32 {
        state.turn
    }

    /// The player's own ship and score only: the standings and every shot are in the report,
    /// and a zine's every subscriber plays (BARMY-02), so a view of them all per player would
    /// make a turn's mail grow with the square of the zine.
    fn private_lines(state: &State, player: PlayerId) -> Vec<String> {
        view::private_lines(state, player)
    }

    fn roster(state: &State) -> Vec<Player> {
        state
            .captains
            .iter()
            .map(|c| Player {
                id: c.id,
                name: c.name.clone(),
            })
            .collect()
    }

    fn order_help(state: &State) -> String {
        orders::help(&state.setup.grid())
    }
}

/// How many shots each player fires a turn (BARMY-07).
pub const SHOTS_PER_TURN: usize = 2;

/// Each player's score, for tests and tools.
pub fn scores(state: &State) -> BTreeMap<PlayerId, Score> {
    state.captains.iter().map(|c| (c.id, c.score)).collect()
}
