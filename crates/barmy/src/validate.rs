//! A state is read whole and consistent or not at all (parse, don't validate): `gm adjudicate`
//! and every stored game go through here, so an edited state with overlapping or off-board
//! ships, a player listed twice or a fate that contradicts the damage is refused with what is
//! wrong, instead of resolving into nonsense. Every check is linear or a sort, so a zine's game
//! of 10,000 players reads as fast as before.

use std::collections::BTreeSet;
use std::fmt;

use serde::Deserialize;

use crate::board::{SHIP_LENGTH, Square};
use crate::{Captain, Damage, Fate, Names, Positions, Setup, State};

/// The state as written, before it is checked.
#[derive(Deserialize)]
pub(crate) struct StateData {
    pub(crate) setup: Setup,
    pub(crate) turn: u32,
    pub(crate) captains: Vec<Captain>,
    pub(crate) shots: BTreeSet<Square>,
    pub(crate) finished: bool,
}

/// Why a state cannot be a Barmy game, in words naming what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidState(pub String);

impl fmt::Display for InvalidState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a consistent Barmy game: {}", self.0)
    }
}

impl TryFrom<StateData> for State {
    type Error = InvalidState;

    fn try_from(data: StateData) -> Result<State, InvalidState> {
        check(&data).map_err(InvalidState)?;
        Ok(State {
            setup: data.setup,
            turn: data.turn,
            captains: data.captains,
            shots: data.shots,
            finished: data.finished,
            positions: Positions::default(),
            names: Names::default(),
        })
    }
}

fn ship_text(ship: &[Square; SHIP_LENGTH]) -> String {
    ship.map(|s| s.to_string()).join(" ")
}

fn who(captain: &Captain) -> String {
    format!("{} (player {})", captain.name, captain.id.0)
}

fn check(data: &StateData) -> Result<(), String> {
    data.setup.check().map_err(|e| e.to_string())?;
    let grid = data.setup.grid();
    let turn = data.turn;
    if turn == 0 {
        return Err("the turn is 0; turns are numbered from 1".into());
    }
    let mut ids: Vec<(crate::PlayerId, usize)> = Vec::with_capacity(data.captains.len());
    // Every square of a ship still on the board (players who left have taken theirs away).
    let mut squares: Vec<(Square, usize)> = Vec::with_capacity(data.captains.len() * SHIP_LENGTH);
    for (index, captain) in data.captains.iter().enumerate() {
        ids.push((captain.id, index));
        if engine::report::one_line(&captain.name).is_empty() {
            return Err(format!("player {} has no name", captain.id.0));
        }
        if !grid.is_ship(&captain.ship) {
            return Err(format!(
                "{}'s ship {} is not four squares in a line on the {}x{} board",
                who(captain),
                ship_text(&captain.ship),
                grid.width,
                grid.height
            ));
        }
        if captain.first_turn == 0 || captain.first_turn > turn {
            return Err(format!(
                "{} first fires in turn {}, which is not between 1 and the state's turn {turn}",
                who(captain),
                captain.first_turn
            ));
        }
        if captain.score.is_negative() {
            return Err(format!("{} has a negative score", who(captain)));
        }
        for damage in captain.damage.iter().flatten() {
            let (Damage::Shot(at) | Damage::Penalty(at)) = *damage;
            if at == 0 || at >= turn {
                return Err(format!(
                    "{}'s ship is marked hit in turn {at}, which is not a turn before turn {turn}",
                    who(captain)
                ));
            }
        }
        let hits = captain.hits_taken();
        match captain.fate {
            Fate::Afloat if hits == SHIP_LENGTH => {
                return Err(format!(
                    "{}'s ship has all four squares hit but is marked afloat",
                    who(captain)
                ));
            }
            Fate::Sunk(_) if hits < SHIP_LENGTH => {
                return Err(format!(
                    "{}'s ship is marked sunk with {hits} of its four squares hit",
                    who(captain)
                ));
            }
            Fate::Sunk(at) | Fate::Left(at) if at == 0 || at >= turn => {
                return Err(format!(
                    "{}'s ship sank or left in turn {at}, which is not a turn before turn {turn}",
                    who(captain)
                ));
            }
            _ => {}
        }
        if !matches!(captain.fate, Fate::Left(_)) {
            squares.extend(captain.ship.iter().map(|s| (*s, index)));
        }
    }
    ids.sort_unstable();
    if let Some(pair) = ids
        .windows(2)
        .find(|pair| pair.first().map(|p| p.0) == pair.get(1).map(|p| p.0))
        && let [(id, first), (_, second)] = pair
    {
        let name = |index: &usize| data.captains.get(*index).map_or("?", |c| c.name.as_str());
        return Err(format!(
            "player id {} is given twice, to {} and to {}",
            id.0,
            name(first),
            name(second)
        ));
    }
    squares.sort_unstable();
    if let Some(pair) = squares
        .windows(2)
        .find(|pair| pair.first().map(|p| p.0) == pair.get(1).map(|p| p.0))
        && let [(square, first), (_, second)] = pair
    {
        let name = |index: &usize| data.captains.get(*index).map_or("?".into(), who);
        return Err(format!(
            "the ships of {} and {} both cover {square}; ships may not share a square (BARMY-06)",
            name(first),
            name(second)
        ));
    }
    if let Some(square) = data.shots.iter().find(|s| !grid.contains(**s)) {
        return Err(format!(
            "the record of shots has {square}, which is off the {}x{} board",
            grid.width, grid.height
        ));
    }
    Ok(())
}

/// The GM's placements (BARMY-GM-04): each a line of four on the board, each player once, no
/// two sharing a square. Whether each player is in the game is checked when it starts.
pub(crate) fn placements(setup: &Setup) -> Result<(), String> {
    if setup.placements.is_empty() {
        return Ok(());
    }
    let grid = setup.grid();
    let mut players = Vec::with_capacity(setup.placements.len());
    let mut squares = Vec::with_capacity(setup.placements.len() * SHIP_LENGTH);
    for placement in &setup.placements {
        if !grid.is_ship(&placement.ship) {
            return Err(format!(
                "the placement for player {}, {}, is not four squares in a line on the {}x{} board \
                 (a ship runs across, down or diagonally, as in E13 F13 G13 H13)",
                placement.player.0,
                ship_text(&placement.ship),
                grid.width,
                grid.height
            ));
        }
        players.push(placement.player);
        squares.extend(placement.ship.iter().map(|s| (*s, placement.player)));
    }
    players.sort_unstable();
    if let Some(pair) = players.windows(2).find(|pair| pair.first() == pair.get(1))
        && let Some(player) = pair.first()
    {
        return Err(format!("player {} is placed twice", player.0));
    }
    squares.sort_unstable();
    if let Some(pair) = squares
        .windows(2)
        .find(|pair| pair.first().map(|p| p.0) == pair.get(1).map(|p| p.0))
        && let [(square, first), (_, second)] = pair
    {
        return Err(format!(
            "the placements of players {} and {} both cover {square}; ships may not share a square (BARMY-06)",
            first.0, second.0
        ));
    }
    Ok(())
}
