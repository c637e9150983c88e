//! The GM's settings as written (unchecked JSON), and turning them into a battle.

use std::collections::{BTreeMap, BTreeSet};

use engine::{Player, PlayerId, SetupError};
use serde::{Deserialize, Serialize};

use crate::grid::{Arc, Area, Board, Edge, Heading, MAX_COLUMNS, MAX_ROWS};
use crate::parse::{is_reserved_word, normalise};
use crate::state::{
    Battery, Commander, Fate, MoveOrder, OverLimitMoves, Rules, STARTING_FP, Ship, ShipId, Side,
    State, TubeMount, Turret,
};
use crate::tables::{DiceTable, TORPEDOES_PER_BATTLE};

/// The GM's settings for one battle. Every field has a default, so a setup names only what
/// differs from the standard game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Setup {
    /// The sea's size (IRON-GM-15).
    pub board: Board,
    /// Dice by weapon, range and arc (IRON-GM-01).
    pub dice_table: DiceTable,
    /// Ship types by name: the game's roster entries (IRON-GM-03).
    pub ship_types: BTreeMap<String, ShipType>,
    /// Exactly two sides and their ships.
    pub sides: Vec<SideSetup>,
    /// IRON-GM-07's switch.
    pub allow_pivot_when_slowed: bool,
    /// Areas that block sight (IRON-GM-04) and movement (IRON-ADM-03).
    pub terrain: Vec<Area>,
    /// The last turn (IRON-GM-15, IRON-ADM-07).
    pub turn_limit: Option<u32>,
    /// Who moves first within a side (IRON-GM-08).
    pub move_order: MoveOrder,
    /// A move over a limit already in force when it is written: refused, or cut down as at
    /// resolution (IRON-GM-07).
    pub over_limit_moves: OverLimitMoves,
    /// Whether a ship that has broken off may still fire (IRON-DMG-02, IRON-GM-10).
    pub broken_off_ships_fire: bool,
}

/// What a class of ship carries (IRON-GM-03).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShipType {
    pub turrets: Vec<TurretMount>,
    /// Secondary guns on each side.
    pub secondary: Broadside,
    pub tubes: Vec<TubeMount>,
    /// Torpedoes carried: at most 4 (IRON-TORP-03).
    pub torpedoes: u8,
    pub ram: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurretMount {
    pub name: String,
    pub bears: Vec<Arc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Broadside {
    pub port: u8,
    pub starboard: u8,
}

impl ShipType {
    /// The catalogue's standard battleship: turrets A (forward and both beams) and Y (aft and
    /// both beams), one secondary battery a side, one bow tube, 4 torpedoes, no ram (IRON-GM-03).
    pub fn standard_battleship() -> Self {
        ShipType {
            turrets: vec![
                TurretMount {
                    name: "A".into(),
                    bears: vec![Arc::Forward, Arc::Port, Arc::Starboard],
                },
                TurretMount {
                    name: "Y".into(),
                    bears: vec![Arc::Aft, Arc::Port, Arc::Starboard],
                },
            ],
            secondary: Broadside {
                port: 1,
                starboard: 1,
            },
            tubes: vec![TubeMount::Bow],
            torpedoes: TORPEDOES_PER_BATTLE,
            ram: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideSetup {
    pub name: String,
    pub home_edge: Edge,
    pub ships: Vec<ShipSetup>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShipSetup {
    pub name: String,
    /// A key of [`Setup::ship_types`]; the standard battleship when left out.
    #[serde(rename = "type", default = "standard_type_name")]
    pub ship_type: String,
    pub at: Area,
    pub heading: Heading,
    /// Overrides the type's ram (IRON-GM-03: a scenario may give single ships a ram).
    #[serde(default)]
    pub ram: Option<bool>,
}

/// The name of the standard battleship type.
pub const STANDARD_TYPE: &str = "battleship";

fn standard_type_name() -> String {
    STANDARD_TYPE.into()
}

fn ship(name: &str, column: u8, row: u8, heading: Heading) -> ShipSetup {
    ShipSetup {
        name: name.into(),
        ship_type: standard_type_name(),
        at: Area::clamped(column, row),
        heading,
        ram: None,
    }
}

impl Default for Setup {
    /// Two squadrons of three standard battleships facing each other across the default board,
    /// each with its home edge behind it (IRON-GM-03, IRON-GM-10, IRON-GM-15).
    fn default() -> Self {
        Setup {
            board: Board::default(),
            dice_table: DiceTable::default(),
            ship_types: BTreeMap::from([(standard_type_name(), ShipType::standard_battleship())]),
            sides: vec![
                SideSetup {
                    name: "North".into(),
                    home_edge: Edge::North,
                    ships: vec![
                        ship("Agamemnon", 4, 1, Heading::S),
                        ship("Bellerophon", 7, 1, Heading::S),
                        ship("Colossus", 10, 1, Heading::S),
                    ],
                },
                SideSetup {
                    name: "South".into(),
                    home_edge: Edge::South,
                    ships: vec![
                        ship("Dandolo", 5, 10, Heading::N),
                        ship("Erzherzog", 8, 10, Heading::N),
                        ship("Formidable", 11, 10, Heading::N),
                    ],
                },
            ],
            allow_pivot_when_slowed: false,
            terrain: Vec::new(),
            turn_limit: Some(30),
            move_order: MoveOrder::default(),
            over_limit_moves: OverLimitMoves::default(),
            broken_off_ships_fire: true,
        }
    }
}

impl Setup {
    /// The GM's switches this setup chose, in words with their rule IDs, for the game's public
    /// page: every switch, whether or not it is the default.
    pub fn rulings(&self) -> Vec<engine::Ruling> {
        let ruling = |rule: &str, text: &str| engine::Ruling {
            rule: rule.into(),
            text: text.into(),
        };
        vec![
            ruling(
                "IRON-GM-08",
                match self.move_order {
                    MoveOrder::OrderLines => {
                        "Within a side, ships move in the order their players' ORDER lines give, then by ship number (the catalogue's ruling)."
                    }
                    MoveOrder::ShipId => {
                        "Within a side, ships move by ship number; ORDER lines are not used."
                    }
                    MoveOrder::LeavingFirst => {
                        "Within a side, a ship leaving an area moves before a ship entering it; otherwise ships move in the order of the players' ORDER lines, then by ship number."
                    }
                },
            ),
            ruling(
                "IRON-GM-07",
                match self.over_limit_moves {
                    OverLimitMoves::Refused => {
                        "A move that breaks a limit already in force when it is written (a slowed ship's FF, FL or FR; a turn while holding course) is refused; a limit that arrives in the turn's fire cuts the move down to F."
                    }
                    OverLimitMoves::CutDown => {
                        "A move that breaks a limit already in force when it is written is accepted and cut down to F, as a limit that arrives in the turn's fire cuts it down."
                    }
                },
            ),
            ruling(
                "IRON-DMG-02",
                if self.broken_off_ships_fire {
                    "A ship that has broken off may still fire at enemies she passes (the rules text's wording)."
                } else {
                    "A ship that has broken off does not fire; one breaking off in this turn's fire still fires that turn, as all fire is simultaneous."
                },
            ),
            ruling(
                "IRON-GM-07",
                if self.allow_pivot_when_slowed {
                    "A slowed ship may pivot 45° in place instead of moving."
                } else {
                    "A slowed ship cannot turn: a turn needs a forward area first."
                },
            ),
        ]
    }

    /// Checks the settings and deals the ships to the players: player 1 commands for the first
    /// side, player 2 the second, player 3 the first again, and so on; within a side the ships
    /// go round its players in roster order (IRON-ADM-01).
    pub fn start(&self, players: &[Player]) -> Result<State, SetupError> {
        let roster: Vec<(&Player, usize)> = players
            .iter()
            .enumerate()
            .map(|(index, player)| (player, index % 2))
            .collect();
        self.start_seated(&roster)
    }

    /// Starts the battle with the players the GM put on each side, in side order; within a side
    /// the ships go round its players in the order given (IRON-ADM-01).
    pub fn start_sides(&self, seats: &[Vec<&Player>]) -> Result<State, SetupError> {
        let roster: Vec<(&Player, usize)> = seats
            .iter()
            .enumerate()
            .flat_map(|(side, players)| players.iter().map(move |player| (*player, side)))
            .collect();
        self.start_seated(&roster)
    }

    /// Starts the battle with each player on their side: `roster` in the report's row order.
    fn start_seated(&self, roster: &[(&Player, usize)]) -> Result<State, SetupError> {
        let board = self.board;
        if board.columns == 0
            || board.columns > MAX_COLUMNS
            || board.rows == 0
            || board.rows > MAX_ROWS
        {
            let setting = if board.columns == 0 || board.columns > MAX_COLUMNS {
                "board.columns"
            } else {
                "board.rows"
            };
            return Err(SetupError::setting(
                setting,
                format!("the board must be 1-{MAX_COLUMNS} columns by 1-{MAX_ROWS} rows"),
            ));
        }
        self.dice_table
            .check()
            .map_err(|problem| SetupError::setting("dice_table", problem))?;
        for (name, ship_type) in &self.ship_types {
            check_type(name, ship_type)
                .map_err(|problem| SetupError::setting("ship_types", problem))?;
        }
        if self.sides.len() != 2 {
            return Err(SetupError::setting(
                "sides",
                format!("a battle has exactly 2 sides, not {}", self.sides.len()),
            ));
        }
        if self.turn_limit == Some(0) {
            return Err(SetupError::setting(
                "turn_limit",
                "the turn limit must be at least 1",
            ));
        }
        for area in &self.terrain {
            if !board.contains(*area) {
                return Err(SetupError::setting(
                    "terrain",
                    format!("terrain area {area} is off the board"),
                ));
            }
        }

        let players: Vec<&Player> = roster.iter().map(|(player, _)| *player).collect();
        let seats: Vec<Vec<&Player>> = (0..2)
            .map(|side| {
                roster
                    .iter()
                    .filter(|(_, on)| *on == side)
                    .map(|(player, _)| *player)
                    .collect()
            })
            .collect();
        if players.len() < 2 {
            return Err(SetupError::Players(
                "a battle needs at least 2 players".into(),
            ));
        }
        if roster.iter().any(|(_, side)| *side > 1) || seats.iter().any(Vec::is_empty) {
            return Err(SetupError::Players(
                "a battle needs at least 1 player on each side".into(),
            ));
        }
        let distinct: BTreeSet<PlayerId> = players.iter().map(|p| p.id).collect();
        if distinct.len() != players.len() {
            return Err(SetupError::Players("a player is listed twice".into()));
        }

        let mut names = BTreeSet::new();
        let mut occupied = BTreeSet::new();
        let mut ships = Vec::new();
        for (side_index, side) in self.sides.iter().enumerate() {
            let side_players = seats.get(side_index).cloned().unwrap_or_default();
            if side.ships.len() < side_players.len() {
                return Err(SetupError::Players(format!(
                    "{} has {} ships for {} players: every player needs a ship",
                    side.name,
                    side.ships.len(),
                    side_players.len()
                )));
            }
            if side.name.trim().is_empty() {
                return Err(SetupError::setting("sides", "every side needs a name"));
            }
            for (index, entry) in side.ships.iter().enumerate() {
                let player = side_players
                    .get(index % side_players.len().max(1))
                    .ok_or_else(|| SetupError::Players("a side has no players".into()))?;
                let key = normalise(&entry.name);
                if key.is_empty() {
                    return Err(SetupError::setting("sides", "every ship needs a name"));
                }
                if is_reserved_word(&key) || Area::parse(&entry.name).is_ok() {
                    return Err(SetupError::setting(
                        "sides",
                        format!(
                            "{:?} cannot be a ship's name: orders would read it as an order word or an area",
                            entry.name
                        ),
                    ));
                }
                if !names.insert(key) {
                    return Err(SetupError::setting(
                        "sides",
                        format!("two ships are named {:?}", entry.name),
                    ));
                }
                if !board.contains(entry.at) {
                    return Err(SetupError::setting(
                        "sides",
                        format!("{} starts off the board at {}", entry.name, entry.at),
                    ));
                }
                if self.terrain.contains(&entry.at) {
                    return Err(SetupError::setting(
                        "sides",
                        format!("{} starts on terrain at {}", entry.name, entry.at),
                    ));
                }
                if !occupied.insert(entry.at) {
                    return Err(SetupError::setting(
                        "sides",
                        format!(
                            "{} starts in {}, which another ship already holds (IRON-MOV-04)",
                            entry.name, entry.at
                        ),
                    ));
                }
                let ship_type = self.ship_types.get(&entry.ship_type).ok_or_else(|| {
                    SetupError::setting(
                        "sides",
                        format!(
                            "{} is of type {:?}, which ship_types does not define",
                            entry.name, entry.ship_type
                        ),
                    )
                })?;
                let id = u16::try_from(ships.len() + 1)
                    .map_err(|_| SetupError::setting("sides", "too many ships"))?;
                ships.push(Ship {
                    id: ShipId(id),
                    name: entry.name.trim().to_owned(),
                    player: player.id,
                    side: side_index,
                    class: entry.ship_type.clone(),
                    ram: entry.ram.unwrap_or(ship_type.ram),
                    area: entry.at,
                    heading: entry.heading,
                    fp: STARTING_FP,
                    turrets: ship_type
                        .turrets
                        .iter()
                        .map(|mount| Turret {
                            name: mount.name.clone(),
                            bears: mount.bears.clone(),
                            destroyed: false,
                        })
                        .collect(),
                    port_battery: Battery {
                        guns: ship_type.secondary.port,
                        destroyed: false,
                    },
                    starboard_battery: Battery {
                        guns: ship_type.secondary.starboard,
                        destroyed: false,
                    },
                    tubes: ship_type.tubes.clone(),
                    torpedoes_left: ship_type.torpedoes,
                    fate: Fate::Afloat,
                    broken_off: false,
                    fire: None,
                    bridge_hit_turn: None,
                    rudder_until: None,
                    engines_damaged: false,
                    flooded: false,
                });
            }
        }

        let commanders = roster
            .iter()
            .map(|(player, side)| Commander {
                player: (*player).clone(),
                side: *side,
                score: 0,
                left: false,
            })
            .collect();
        Ok(State {
            turn: 1,
            rules: Rules {
                board,
                dice_table: self.dice_table.clone(),
                allow_pivot_when_slowed: self.allow_pivot_when_slowed,
                terrain: self.terrain.clone(),
                turn_limit: self.turn_limit,
                move_order: self.move_order,
                over_limit_moves: self.over_limit_moves,
                broken_off_ships_fire: self.broken_off_ships_fire,
            },
            sides: self
                .sides
                .iter()
                .map(|side| Side {
                    name: side.name.trim().to_owned(),
                    home_edge: side.home_edge,
                })
                .collect(),
            commanders,
            ships,
            finished: false,
        })
    }
}

fn check_type(name: &str, ship_type: &ShipType) -> Result<(), String> {
    if ship_type.torpedoes > TORPEDOES_PER_BATTLE {
        return Err(format!(
            "ship type {name:?} carries {} torpedoes; the rules allow at most {TORPEDOES_PER_BATTLE} a battle (IRON-TORP-03)",
            ship_type.torpedoes
        ));
    }
    let mut turret_names = BTreeSet::new();
    for turret in &ship_type.turrets {
        if turret.name.trim().is_empty() || !turret_names.insert(turret.name.trim()) {
            return Err(format!(
                "ship type {name:?} needs distinct, non-empty turret names"
            ));
        }
        if turret.bears.is_empty() {
            return Err(format!(
                "turret {} of ship type {name:?} bears in no arc",
                turret.name
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn players(count: u64) -> Vec<Player> {
        (1..=count)
            .map(|id| Player {
                id: PlayerId(id),
                name: format!("P{id}"),
            })
            .collect()
    }

    #[test]
    fn the_standard_battle_starts_with_full_flotation() {
        // IRON-FP-01, IRON-GM-03
        let state = Setup::default().start(&players(2)).unwrap();
        assert_eq!(state.ships.len(), 6);
        assert!(
            state
                .ships
                .iter()
                .all(|s| s.fp == 12 && s.torpedoes_left == 4)
        );
        assert_eq!(state.ships[0].area.to_string(), "E2");
        assert_eq!(state.ships[3].player, PlayerId(2));
        assert_eq!(state.check(), Ok(()));
    }

    #[test]
    fn players_alternate_sides_and_share_ships_round_robin() {
        // IRON-ADM-01
        let state = Setup::default().start(&players(4)).unwrap();
        let owners: Vec<u64> = state.ships.iter().map(|s| s.player.0).collect();
        assert_eq!(owners, vec![1, 3, 1, 2, 4, 2]);
        assert!(Setup::default().start(&players(7)).is_err());
        assert!(Setup::default().start(&players(1)).is_err());
    }

    #[test]
    fn the_gm_may_seat_two_captains_on_each_side() {
        // IRON-ADM-01: several captains share a side; the GM chooses who is on which.
        let p = players(4);
        let sides = vec![vec![&p[0], &p[3]], vec![&p[1], &p[2]]];
        let state = Setup::default().start_sides(&sides).unwrap();
        let owners: Vec<u64> = state.ships.iter().map(|s| s.player.0).collect();
        assert_eq!(owners, vec![1, 4, 1, 2, 3, 2]);
        let on: Vec<(u64, usize)> = state
            .commanders
            .iter()
            .map(|c| (c.player.id.0, c.side))
            .collect();
        assert_eq!(on, vec![(1, 0), (4, 0), (2, 1), (3, 1)]);
        assert_eq!(state.check(), Ok(()));
        let lonely = vec![vec![&p[0], &p[1]], Vec::new()];
        assert!(Setup::default().start_sides(&lonely).is_err());
    }

    #[test]
    fn bad_settings_are_refused_with_a_reason() {
        let mut setup = Setup::default();
        setup.sides[1].ships[0].at = Area::parse("E2").unwrap();
        let error = setup.start(&players(2)).unwrap_err().to_string();
        assert!(error.contains("already holds"), "{error}");

        let mut setup = Setup::default();
        setup.sides[0].ships[0].name = "Main".into();
        assert!(setup.start(&players(2)).is_err());

        let mut setup = Setup::default();
        setup.ship_types.get_mut(STANDARD_TYPE).unwrap().torpedoes = 5;
        let error = setup.start(&players(2)).unwrap_err().to_string();
        assert!(error.contains("IRON-TORP-03"), "{error}");

        let mut setup = Setup::default();
        setup.sides.pop();
        assert!(setup.start(&players(2)).is_err());

        let mut setup = Setup::default();
        setup.board.columns = 5;
        assert!(setup.start(&players(2)).is_err());
    }

    #[test]
    fn a_setup_names_only_what_differs() {
        let setup: Setup = serde_json::from_str(r#"{"board": {"columns": 10, "rows": 10}, "sides": [
            {"name": "Red", "home_edge": "west", "ships": [{"name": "Ajax", "at": "B2", "heading": "E", "ram": true}]},
            {"name": "Blue", "home_edge": "east", "ships": [{"name": "Hood", "at": "H2", "heading": "W"}]}]}"#)
            .unwrap();
        let state = setup.start(&players(2)).unwrap();
        assert!(state.ships[0].ram);
        assert!(!state.ships[1].ram);
        // IRON-ADM-07: the default turn limit.
        assert_eq!(state.rules.turn_limit, Some(30));
    }
}
