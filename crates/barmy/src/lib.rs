//! Barmy Battleships (rules text 001, catalogue `BARMY-`): every subscriber of the zine has one
//! battleship on a shared board, fires two shots a turn, and scores a point per hit, shared
//! between everyone who hit that square that turn.

use std::collections::BTreeMap;

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Resolution, Ruling, SetupError, TurnDice,
    TurnError, TurnInput, View, Viewer,
};
use serde::{Deserialize, Serialize};

use crate::placement::FreePlacements;

pub mod board;
mod orders;
mod placement;
mod points;
mod resolve;
mod rulings;
mod validate;
mod view;

pub use board::{Grid, SHIP_LENGTH, Square};
pub use orders::{Orders, Shot, Target};
pub use points::{NotPoints, Points};

/// The engine.
pub struct Barmy;

/// The GM's settings for one game (BARMY-GM-01, BARMY-GM-10, BARMY-GM-14), and the GM's
/// switches (docs/rules/barmy.md, "Switches"). A field left out takes its default, so stored
/// setups and requests written before a field existed still read; a switch at its default is
/// not written, so the JSON of a game that uses none is what it always was.
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
    /// Switch (BARMY-17, BARMY-GM-08): orders that fire no shot, press and all, are a missed
    /// turn (an NMR) as the text has it. Off: press alone answers the turn (the catalogue's
    /// BARMY-GM-08). Default on.
    #[serde(skip_serializing_if = "is_true")]
    pub press_only_is_nmr: bool,
    /// Switch (BARMY-07, BARMY-GM-08): an order naming one square is accepted with a warning
    /// (on, the default), or refused as an error that asks for a second square (off).
    #[serde(skip_serializing_if = "is_true")]
    pub one_shot_allowed: bool,
    /// Ships the GM places, for a tournament or a replay (BARMY-GM-04): each listed player's
    /// ship stands there; everyone else is placed at random, avoiding them, as always.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<Placement>,
}

/// A ship the GM places by hand: whose, and its four squares in a line (BARMY-04/05/06).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub player: PlayerId,
    pub ship: [Square; SHIP_LENGTH],
}

fn is_true(value: &bool) -> bool {
    *value
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            width: 19,
            height: 19,
            final_turn: None,
            show_shares: false,
            press_only_is_nmr: true,
            one_shot_allowed: true,
            placements: Vec::new(),
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
            return Err(SetupError::setting(
                "width",
                format!(
                    "the board is {} columns wide; it must be 4 to {} (lettered A to ZZ)",
                    self.width,
                    board::MAX_COLUMNS
                ),
            ));
        }
        if !(4..=board::MAX_ROWS).contains(&self.height) {
            return Err(SetupError::setting(
                "height",
                format!(
                    "the board is {} rows high; it must be 4 to {}",
                    self.height,
                    board::MAX_ROWS
                ),
            ));
        }
        if self.final_turn == Some(0) {
            return Err(SetupError::setting(
                "final_turn",
                "the final turn must be 1 or later",
            ));
        }
        validate::placements(self).map_err(|problem| SetupError::setting("placements", problem))
    }

    /// The GM's placement for this player, if the setup lists one.
    pub fn placement(&self, player: PlayerId) -> Option<&[Square; SHIP_LENGTH]> {
        self.placements
            .iter()
            .find(|p| p.player == player)
            .map(|p| &p.ship)
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
    /// Exact, of any size (BARMY-09, BARMY-GM-12).
    pub score: Points,
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

/// A game in progress. It can only be read whole and consistent (`validate`): ships four in a
/// line on the board and sharing no square, each player once, fates that agree with the damage.
/// A state edited by hand into nonsense is refused with what is wrong, not resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "validate::StateData")]
pub struct State {
    pub setup: Setup,
    /// The turn that resolves next.
    pub turn: u32,
    /// In the GM's roster order (the order players were given, then joiners).
    pub captains: Vec<Captain>,
    /// Every on-board square anyone has fired at: the public record of shots.
    pub shots: std::collections::BTreeSet<Square>,
    pub finished: bool,
    /// Where each player's captain is in `captains`, built on first use: reading one player's
    /// orders in a game of 10,000 must not walk the whole roster. Not part of the state.
    #[serde(skip)]
    positions: Positions,
    /// Captains by the first word of their name, lower case, built on first use: for telling a
    /// player that a refused line starts with another player's name. Not part of the state.
    #[serde(skip)]
    names: Names,
}

/// The roster's names by first word (see `State::names`).
#[derive(Debug, Clone, Default)]
struct Names(std::sync::OnceLock<std::collections::HashMap<String, Vec<usize>>>);

impl PartialEq for Names {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Names {}

/// A name's first word, lower case: letters and digits up to the first other character.
fn first_word(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The position of each player's captain in the roster, as it was when first asked for. A
/// state changed since (a joiner pushed) may have captains it lacks: every lookup checks the
/// captain it finds and falls back to a walk, so it is never wrong, only sometimes slower.
#[derive(Debug, Clone, Default)]
struct Positions(std::sync::OnceLock<std::collections::HashMap<PlayerId, usize>>);

/// A cache of the state, not part of it: any two are equal.
impl PartialEq for Positions {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Positions {}

impl State {
    /// A game whose battleships stand where the GM says, for fixtures and offline rulings.
    /// Checks each ship is a line of four on the board and that no two share a square.
    pub fn with_ships(
        setup: Setup,
        ships: Vec<(Player, [Square; SHIP_LENGTH])>,
    ) -> Result<State, SetupError> {
        setup.check()?;
        let captains: Vec<Captain> = ships
            .into_iter()
            .map(|(player, ship)| Captain::new(player, ship, 1))
            .collect();
        validate::StateData {
            setup,
            turn: 1,
            captains,
            shots: Default::default(),
            finished: false,
        }
        .try_into()
        .map_err(|error: validate::InvalidState| SetupError::Players(error.0))
    }

    /// The captain (not `except`) whose whole name starts `text`, the longest if several do.
    pub(crate) fn name_at_start(&self, text: &str, except: PlayerId) -> Option<&Captain> {
        let names = self.names.0.get_or_init(|| {
            let mut names: std::collections::HashMap<String, Vec<usize>> =
                std::collections::HashMap::new();
            for (index, captain) in self.captains.iter().enumerate() {
                let word = first_word(&captain.name);
                if !word.is_empty() {
                    names.entry(word).or_default().push(index);
                }
            }
            names
        });
        names
            .get(&first_word(text))?
            .iter()
            .filter_map(|index| self.captains.get(*index))
            .filter(|c| c.id != except && orders::strip_phrase(text, &c.name).is_some())
            .max_by_key(|c| c.name.len())
    }

    pub fn captain(&self, id: PlayerId) -> Option<&Captain> {
        let positions = self.positions.0.get_or_init(|| {
            self.captains
                .iter()
                .enumerate()
                .map(|(position, captain)| (captain.id, position))
                .collect()
        });
        positions
            .get(&id)
            .and_then(|position| self.captains.get(*position))
            .filter(|captain| captain.id == id)
            .or_else(|| self.captains.iter().find(|c| c.id == id))
    }

    /// The spots a new ship may take on this board as it stands (BARMY-GM-04): every ship
    /// holds its squares, afloat or sunk, except those of players who left (BARMY-GM-11).
    fn free_placements(&self) -> FreePlacements {
        let grid = self.setup.grid();
        let occupied = grid.occupancy(
            self.captains
                .iter()
                .filter(|c| !matches!(c.fate, Fate::Left(_)))
                .map(|c| &c.ship),
        );
        FreePlacements::new(grid, &occupied)
    }

    /// Places a new player's ship uniformly among the free placements, with the sealed dice
    /// (BARMY-GM-04). `None` when the board has no room left, and then no die is thrown.
    /// `free` is this state's `free_placements()`, kept up to date by placing only through here,
    /// so that many ships in a row cost one set-up, not one each.
    fn place(
        &mut self,
        free: &mut FreePlacements,
        player: Player,
        first_turn: u32,
        dice: &mut engine::Dice,
    ) -> Option<()> {
        if free.count() == 0 {
            return None;
        }
        let ship = free.nth(dice.pick(free.count()))?;
        free.occupy(&ship);
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
            score: Points::ZERO,
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

    /// Every subscriber plays, one captain each (BARMY-02): a game of one is a game.
    fn seats(_setup: &Setup) -> engine::SeatPlan {
        engine::SeatPlan::OnePerPlayer { min: 1, max: None }
    }

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
        let mut free = state.free_placements();
        let placed: std::collections::BTreeSet<PlayerId> =
            setup.placements.iter().map(|p| p.player).collect();
        if !placed.is_empty() {
            // The GM's ships stand first, and the random ones avoid them (BARMY-GM-04).
            if let Some(pair) = sorted
                .windows(2)
                .find(|pair| pair.first().map(|p| p.id) == pair.get(1).map(|p| p.id))
                && let Some(player) = pair.first()
            {
                return Err(SetupError::Players(format!(
                    "player {} is listed twice",
                    player.id.0
                )));
            }
            for placement in &setup.placements {
                let Some(player) = sorted
                    .binary_search_by_key(&placement.player, |p| p.id)
                    .ok()
                    .and_then(|at| sorted.get(at))
                else {
                    return Err(SetupError::Players(format!(
                        "the setup places a ship for player {}, who is not in the game",
                        placement.player.0
                    )));
                };
                check_new_player(&[], player)?;
                free.occupy(&placement.ship);
                state
                    .captains
                    .push(Captain::new((*player).clone(), placement.ship, 1));
            }
        }
        for player in sorted {
            if placed.contains(&player.id) {
                continue;
            }
            // Placed in ascending id order, a repeated id can only repeat the last one placed:
            // checking the whole roster each time would cost the square of a zine's players.
            let last = state.captains.last().map(std::slice::from_ref);
            check_new_player(last.unwrap_or_default(), player)?;
            state
                .place(&mut free, player.clone(), 1, &mut dice.sealed)
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
        // Roster order is the order the GM gave, not the placement order. Ids are unique by
        // now; a map, not a search of the list per comparison, keeps 10,000 players quick.
        let mut positions = BTreeMap::new();
        for (index, player) in players.iter().enumerate() {
            positions.entry(player.id).or_insert(index);
        }
        let position = |id: PlayerId| positions.get(&id).copied().unwrap_or(usize::MAX);
        state.captains.sort_by_key(|c| position(c.id));
        Ok(state)
    }

    fn parse_orders(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
        let mut parsed = orders::parse(state, player, text);
        engine::chat::set_aside(text, &mut parsed);
        parsed
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

    fn expects_orders(state: &State, player: PlayerId) -> bool {
        state.captain(player).is_some_and(Captain::is_afloat)
    }

    /// Every subscriber plays and no seat is handed over (BARMY-02); a miss costs a penalty
    /// hit instead (BARMY-17).
    fn missed_turns_limit() -> Option<u32> {
        None
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

    fn rename(state: &mut State, player: &Player) {
        if let Some(captain) = state.captains.iter_mut().find(|c| c.id == player.id) {
            captain.name.clone_from(&player.name);
        }
    }

    fn order_help(state: &State) -> String {
        orders::help(&state.setup)
    }

    /// A set that fires no shot is a missed turn (BARMY-17, BARMY-GM-13), unless press alone
    /// answers it (`press_only_is_nmr` off).
    fn answers_turn(state: &State, orders: &Orders) -> bool {
        orders.answer_the_turn(&state.setup)
    }

    /// Barmy's own rule decides alone: press without a shot may answer (BARMY-GM-13).
    fn answers(state: &State, parsed: &ParsedOrders<Orders>) -> bool {
        Self::answers_turn(state, &parsed.orders)
    }

    fn settings() -> Vec<engine::settings::Setting> {
        use engine::settings::{Setting, SettingKind};
        vec![
            Setting::number(
                "width",
                "Columns",
                (4, i64::from(board::MAX_COLUMNS), 19),
                "Lettered A–Z, then AA–ZZ; the text's board is 19 by 19. Size it to the players: about twice as many squares as ships' squares.",
            )
            .rule("BARMY-03"),
            Setting::number(
                "height",
                "Rows",
                (4, i64::from(board::MAX_ROWS), 19),
                "Numbered from 1; the text's board is 19 by 19.",
            )
            .rule("BARMY-03"),
            Setting {
                path: "final_turn",
                label: "Last turn",
                help: "The game stops after this turn; empty: it goes on until at most one ship is afloat.",
                rule: Some("BARMY-GM-10"),
                kind: SettingKind::OptionalNumber {
                    min: 1,
                    max: 10_000,
                    default: None,
                    none: "until at most one ship is afloat",
                },
            },
            Setting::switch(
                "show_shares",
                "Show shares of shared hits",
                false,
                "Write a hit shared by several players as `hit John Smith (1/3)`.",
            ),
            Setting::switch(
                "press_only_is_nmr",
                "Orders without a shot are a missed turn",
                true,
                "On: orders that fire no shot are a missed turn, press or not (the text). Off: press alone answers the turn.",
            )
            .rule("BARMY-17"),
            Setting::switch(
                "one_shot_allowed",
                "Accept an order naming one square",
                true,
                "On: a one-square order stands, with a warning that the second shot is not fired. Off: it is an error asking for a second square.",
            )
            .rule("BARMY-07"),
        ]
    }

    /// The GM's switches, each in words with its rule ID (docs/rules/barmy.md, "Switches").
    fn rulings(setup: &Setup) -> Vec<Ruling> {
        rulings::rulings(setup)
    }
}

/// How many shots each player fires a turn (BARMY-07).
pub const SHOTS_PER_TURN: usize = 2;

/// Each player's score, for tests and tools.
pub fn scores(state: &State) -> BTreeMap<PlayerId, Points> {
    state
        .captains
        .iter()
        .map(|c| (c.id, c.score.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    //! `FreePlacements` must place every ship exactly where the full list did, or published
    //! turns would stop replaying (BARMY-GM-04): these compare it with the old algorithm.

    use super::*;
    use crate::board::reference;
    use engine::{Dice, GameSecret, TurnSeed};
    use proptest::prelude::*;

    /// `State::place` as it was: the whole list of free placements, rebuilt for every ship.
    fn reference_place(
        state: &mut State,
        player: Player,
        first_turn: u32,
        dice: &mut Dice,
    ) -> Option<()> {
        let grid = state.setup.grid();
        let occupied = grid.occupancy(
            state
                .captains
                .iter()
                .filter(|c| !matches!(c.fate, Fate::Left(_)))
                .map(|c| &c.ship),
        );
        let placements = reference::free_placements(&grid, &occupied);
        if placements.is_empty() {
            return None;
        }
        let ship = *placements.get(dice.pick(placements.len()))?;
        state.captains.push(Captain::new(player, ship, first_turn));
        Some(())
    }

    /// `Barmy::new_game` as it was, with `reference_place`.
    fn reference_new_game(
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
            reference_place(&mut state, player.clone(), 1, &mut dice.sealed).ok_or_else(|| {
                SetupError::Players(format!(
                    "no room for {}'s ship on a {}x{} board with {} players: enlarge the board",
                    player.name,
                    setup.width,
                    setup.height,
                    players.len()
                ))
            })?;
        }
        let position = |id: PlayerId| {
            players
                .iter()
                .position(|p| p.id == id)
                .unwrap_or(usize::MAX)
        };
        state.captains.sort_by_key(|c| position(c.id));
        Ok(state)
    }

    fn players(ids: impl IntoIterator<Item = u64>) -> Vec<Player> {
        ids.into_iter()
            .map(|id| Player {
                id: PlayerId(id),
                name: format!("Player {id}"),
            })
            .collect()
    }

    fn setup(width: u16, height: u16) -> Setup {
        Setup {
            width,
            height,
            ..Setup::default()
        }
    }

    /// Lines from random starts in random directions, kept where they fit on the board.
    fn ships_on(grid: Grid, starts: &[(u16, u16, usize)]) -> Vec<[Square; SHIP_LENGTH]> {
        starts
            .iter()
            .filter_map(|&(x, y, direction)| {
                let (dx, dy) = board::DIRECTIONS[direction];
                grid.line_from(Square::new(x % grid.width, y % grid.height), dx, dy)
            })
            .collect()
    }

    /// Every free placement in order, read from the structure one k at a time.
    fn listed(free: &FreePlacements) -> Vec<[Square; SHIP_LENGTH]> {
        (0..free.count()).map(|k| free.nth(k).unwrap()).collect()
    }

    /// The same dice, having been used the same way, go on to show the same values.
    fn same_stream(a: &mut Dice, b: &mut Dice) -> bool {
        (0..4).all(|_| a.pick(1 << 30) == b.pick(1 << 30))
    }

    /// Board sizes from the smallest allowed (4) up, square or not.
    fn side() -> impl Strategy<Value = u16> {
        prop_oneof![Just(4u16), 4u16..=9, 4u16..=40]
    }

    proptest! {
        #[test]
        fn the_structure_lists_what_the_enumeration_lists(
            width in side(),
            height in side(),
            starts in prop::collection::vec((0u16..40, 0u16..40, 0usize..4), 0..30),
            split in 0usize..30,
        ) {
            // Some ships on the board at set-up, the rest occupied one by one (overlaps and
            // all: occupancy is per square), the whole list compared at every step.
            let grid = Grid { width, height };
            let ships = ships_on(grid, &starts);
            let (before, after) = ships.split_at(split.min(ships.len()));
            let mut free = FreePlacements::new(grid, &grid.occupancy(before));
            let expected = reference::free_placements(&grid, &grid.occupancy(before));
            prop_assert_eq!(listed(&free), expected);
            for (placed, ship) in after.iter().enumerate() {
                free.occupy(ship);
                let so_far = grid.occupancy(ships.iter().take(before.len() + placed + 1));
                let expected = reference::free_placements(&grid, &so_far);
                prop_assert_eq!(free.count(), expected.len());
                prop_assert_eq!(listed(&free), expected);
                prop_assert_eq!(free.nth(free.count()), None);
            }
        }

        #[test]
        fn placing_matches_the_old_algorithm(
            width in side(),
            height in side(),
            starts in prop::collection::vec((0u16..40, 0u16..40, 0usize..4), 0..20),
            fates in prop::collection::vec(0u8..3, 20),
            joiners in 1u64..25,
            seed in any::<[u8; 32]>(),
        ) {
            // A board as a game leaves it: ships afloat, sunk (still in the way) and of
            // players who left (not in the way), then new players placed with the same dice.
            let grid = Grid { width, height };
            let captains = ships_on(grid, &starts)
                .into_iter()
                .zip(&fates)
                .enumerate()
                .map(|(index, (ship, fate))| {
                    let player = players([index as u64 + 1]).remove(0);
                    let mut captain = Captain::new(player, ship, 1);
                    captain.fate = match fate {
                        0 => Fate::Afloat,
                        1 => Fate::Sunk(2),
                        _ => Fate::Left(3),
                    };
                    captain
                })
                .collect();
            let start = State {
                setup: setup(width, height),
                turn: 4,
                captains,
                shots: Default::default(),
                finished: false,
                positions: Positions::default(),
                names: Names::default(),
            };
            let seed = TurnSeed::from_bytes(seed);
            let (mut fast, mut old) = (start.clone(), start);
            let (mut fast_dice, mut old_dice) = (Dice::from_seed(&seed), Dice::from_seed(&seed));
            let mut free = fast.free_placements();
            for player in players(100..100 + joiners) {
                let placed = fast.place(&mut free, player.clone(), 5, &mut fast_dice);
                let expected = reference_place(&mut old, player, 5, &mut old_dice);
                prop_assert_eq!(placed, expected);
            }
            prop_assert_eq!(&fast, &old);
            prop_assert!(same_stream(&mut fast_dice, &mut old_dice));
        }

        #[test]
        fn joiners_are_placed_as_before(
            seed in any::<[u8; 32]>(),
            width in side(),
            height in side(),
            count in 2u64..12,
            leaving in prop::collection::vec(1u64..12, 0..4),
            joining in prop::collection::vec(20u64..40, 1..6),
        ) {
            // BARMY-GM-11: the turn without its joiners leaves the sealed dice where the
            // joiners' placement starts; the old algorithm placing them from there on that
            // board must give the ships the turn gave them.
            let secret = GameSecret::from_bytes(seed);
            // Everyone misses their orders, so NMR penalties draw sealed dice before joiners.
            let roster = players(1..=count);
            let start = Barmy::new_game(&setup(width, height), &roster, &mut secret.turn_dice(0));
            let Ok(state) = start else {
                return Ok(());
            };
            let without = TurnInput::<Orders> {
                leaving: leaving.into_iter().map(PlayerId).collect(),
                ..TurnInput::default()
            };
            let input = TurnInput {
                joining: players(joining.iter().copied()),
                ..without.clone()
            };
            let turn = Barmy::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
            let mut dice = secret.turn_dice(1);
            let mut expected = Barmy::resolve(&state, &without, &mut dice).unwrap().state;
            // In id order; a player listed twice is placed twice, as `resolve` always did.
            let mut ids: Vec<u64> = joining;
            ids.sort_unstable();
            for player in players(ids) {
                // A full board places no one and throws no die, as in `resolve`.
                let _ = reference_place(&mut expected, player, 2, &mut dice.sealed);
            }
            prop_assert_eq!(turn.state.captains, expected.captains);
        }
    }

    #[test]
    fn the_smallest_board_fills_exactly_as_before() {
        // 4x4 (the least BARMY-GM-01 allows) and 4-wide strips, placed until full.
        for (width, height) in [(4, 4), (4, 9), (9, 4), (5, 4), (4, 5)] {
            for seed in 0..20u8 {
                let grid = Grid { width, height };
                let dice_seed = TurnSeed::from_bytes([seed; 32]);
                let (mut fast_dice, mut old_dice) =
                    (Dice::from_seed(&dice_seed), Dice::from_seed(&dice_seed));
                let mut fast = State::with_ships(setup(width, height), Vec::new()).unwrap();
                let mut old = fast.clone();
                let mut free = fast.free_placements();
                for player in players(1..=20) {
                    let placed = fast.place(&mut free, player.clone(), 1, &mut fast_dice);
                    assert_eq!(
                        placed,
                        reference_place(&mut old, player, 1, &mut old_dice),
                        "{grid:?} seed {seed}"
                    );
                }
                assert_eq!(fast, old);
                assert!(same_stream(&mut fast_dice, &mut old_dice));
            }
        }
    }

    #[test]
    fn the_largest_board_counts_and_orders_as_before() {
        // 702x999, 2.8 million placements: the counts fit the tree's u32 and the index
        // arithmetic reaches the last direction's last row.
        let grid = Grid {
            width: board::MAX_COLUMNS,
            height: board::MAX_ROWS,
        };
        let ships = ships_on(
            grid,
            &[(0, 0, 0), (700, 998, 3), (350, 500, 2), (5, 990, 1)],
        );
        let occupied = grid.occupancy(&ships);
        let expected = reference::free_placements(&grid, &occupied);
        let free = FreePlacements::new(grid, &occupied);
        assert_eq!(free.count(), expected.len());
        let last = expected.len() - 1;
        for k in [0, 1, 2, 697, 698, 699, last / 3, last / 2, last - 1, last] {
            assert_eq!(free.nth(k).as_ref(), expected.get(k), "k = {k}");
        }
    }

    #[test]
    fn new_game_of_300_is_byte_identical_to_the_old_algorithm() {
        // BARMY-02, BARMY-GM-04: the stored JSON of a started game must not change, for
        // square and non-square boards and a roster not given in id order.
        let mut roster = players(1..=300);
        roster.reverse();
        roster.swap(10, 200);
        for (width, height, seed) in [(60, 60, 1u8), (120, 35, 2), (35, 110, 3)] {
            let secret = GameSecret::from_bytes([seed; 32]);
            let setup = setup(width, height);
            let (mut fast_dice, mut old_dice) = (secret.turn_dice(0), secret.turn_dice(0));
            let fast = Barmy::new_game(&setup, &roster, &mut fast_dice).unwrap();
            let old = reference_new_game(&setup, &roster, &mut old_dice).unwrap();
            assert_eq!(
                serde_json::to_string(&fast).unwrap(),
                serde_json::to_string(&old).unwrap(),
                "{width}x{height}"
            );
            assert!(same_stream(&mut fast_dice.sealed, &mut old_dice.sealed));
        }
    }

    #[test]
    fn new_game_of_10000_is_the_game_the_old_algorithm_started() {
        // BARMY-02: a zine's one big game. The old algorithm took 296 s (release) to start it,
        // too slow to run here, so its JSON is pinned by length and FNV-1a hash, recorded
        // from it before the change.
        let roster = players(1..=10_000);
        let secret = GameSecret::from_bytes([42; 32]);
        let state = Barmy::new_game(&setup(632, 632), &roster, &mut secret.turn_dice(0)).unwrap();
        let json = serde_json::to_string(&state).unwrap();
        let fnv = json.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
        assert_eq!((json.len(), fnv), (1_569_465, 0xfc74_d5cc_983b_c14c));
    }

    #[test]
    fn new_game_refuses_as_before() {
        // Too many for the board, a repeated id, a blank name: the same error, at the same
        // player, as the old algorithm.
        let secret = GameSecret::from_bytes([9; 32]);
        let mut twice = players(1..=30);
        twice.push(players([7]).remove(0));
        let mut blank = players(1..=30);
        blank[12].name = " ".into();
        for (setup, roster) in [
            (setup(19, 19), players(1..=300)),
            (setup(4, 4), players(1..=5)),
            (setup(19, 19), twice),
            (setup(19, 19), blank),
        ] {
            let fast = Barmy::new_game(&setup, &roster, &mut secret.turn_dice(0));
            let old = reference_new_game(&setup, &roster, &mut secret.turn_dice(0));
            assert!(fast.is_err());
            assert_eq!(fast, old);
        }
    }
}
