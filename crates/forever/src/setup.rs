//! The GM's settings and the start of a game: the roll-off, the table, terrain, and fleets
//! either given by the GM or built by the players by mail (FOREVER-GEN-2, FOREVER-PLAY-1/2,
//! FOREVER-GM-03/13/39/40/41/43/44/45).

use std::collections::{BTreeMap, BTreeSet};

use engine::{Player, PlayerId, SetupError, TurnDice};
use serde::{Deserialize, Serialize};

use crate::design::{Design, Hull, Points};
use crate::fixed::{Degrees, Inches};
use crate::geometry::{Point, Polygon};
use crate::state::{Phase, Seat, Ship, State};

/// How a PBEM turn maps onto the text's player-turns (FOREVER-GM-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnMode {
    /// One PBEM turn is a whole round: every player's player-turn in seat order.
    #[default]
    Round,
    /// One PBEM turn is one player-turn.
    Alternate,
}

/// How fleets are placed (FOREVER-GM-44).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeployMode {
    /// Every player places every ship at once, unseen.
    #[default]
    Blind,
    /// One ship per player per deployment turn, first player first.
    Alternate,
}

/// A big rock: a convex polygon on the table (FOREVER-TER-1, FOREVER-GM-39).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rock {
    pub name: String,
    pub corners: Vec<Point>,
}

/// A black hole: a point on the table (FOREVER-TER-3, FOREVER-GM-41).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlackHole {
    pub name: String,
    pub at: Point,
}

/// One ship the GM places before the game: a design, where and how it faces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShipSetup {
    pub design: Design,
    /// Another name for this copy of the design (the design's own name if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The core's centre on the table, in inches.
    pub at: Point,
    #[serde(default)]
    pub facing: Degrees,
}

/// One player's fleet, given by the GM.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FleetSetup {
    pub ships: Vec<ShipSetup>,
}

fn default_points() -> u32 {
    200
}

fn default_table() -> [Inches; 2] {
    [Inches::whole(72), Inches::whole(48)]
}

fn default_meteor_faces() -> u32 {
    2
}

/// The GM's settings (FOREVER-GM-02/13/43/44/45 and section 3 of the catalogue).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Each fleet's points (FOREVER-GEN-2).
    #[serde(default = "default_points")]
    pub points_limit: u32,
    /// Width and height in inches (FOREVER-GM-45).
    #[serde(default = "default_table")]
    pub table: [Inches; 2],
    #[serde(default)]
    pub turn_mode: TurnMode,
    #[serde(default)]
    pub deploy_mode: DeployMode,
    #[serde(default)]
    pub rocks: Vec<Rock>,
    #[serde(default)]
    pub black_holes: Vec<BlackHole>,
    /// Meteor showers on (FOREVER-TER-2, FOREVER-GM-40).
    #[serde(default)]
    pub meteors: bool,
    /// How many faces of the meteor check's D6 are "hit" (nothing happens): the catalogue's
    /// `meteor_hit_chance` × 6, default 2 (FOREVER-GM-13).
    #[serde(default = "default_meteor_faces")]
    pub meteor_hit_faces: u32,
    /// The game ends after this many rounds (FOREVER-GM-43).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_limit: Option<u32>,
    /// Fleets in roster order, placed by the GM. Empty: the players build and deploy by mail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fleets: Vec<FleetSetup>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            points_limit: default_points(),
            table: default_table(),
            turn_mode: TurnMode::Round,
            deploy_mode: DeployMode::Blind,
            rocks: Vec::new(),
            black_holes: Vec::new(),
            meteors: false,
            meteor_hit_faces: default_meteor_faces(),
            turn_limit: None,
            fleets: Vec::new(),
        }
    }
}

impl Setup {
    pub fn width(&self) -> i64 {
        self.table[0].0
    }

    pub fn height(&self) -> i64 {
        self.table[1].0
    }

    /// Starts a game: checks the settings, rolls off (FOREVER-PLAY-1), and places any fleets
    /// the GM gave.
    pub fn start(&self, players: &[Player], dice: &mut TurnDice) -> Result<State, SetupError> {
        if players.len() < 2 {
            return Err(SetupError::Players(
                "Battleships Forever needs at least two players".into(),
            ));
        }
        let ids: BTreeSet<PlayerId> = players.iter().map(|p| p.id).collect();
        if ids.len() != players.len() {
            return Err(SetupError::Players("two players share an id".into()));
        }
        if self.width() < 1200
            || self.height() < 1200
            || self.width() > 100_000
            || self.height() > 100_000
        {
            return Err(SetupError::Settings(
                "the table must be between 12\" and 1000\" on each side".into(),
            ));
        }
        if self.meteor_hit_faces > 6 {
            return Err(SetupError::Settings(
                "meteor_hit_faces counts faces of a D6: 0 to 6".into(),
            ));
        }
        for rock in &self.rocks {
            if rock.corners.len() < 3 || !convex(&rock.corners) {
                return Err(SetupError::Settings(format!(
                    "rock {} must be a convex polygon of at least three corners (FOREVER-GM-39)",
                    rock.name
                )));
            }
        }
        if !self.fleets.is_empty() && self.fleets.len() != players.len() {
            return Err(SetupError::Settings(format!(
                "fleets are given for {} players but {} are playing",
                self.fleets.len(),
                players.len()
            )));
        }
        let (seating, roll_off) = roll_off(players, dice);
        let mut setup = self.clone();
        setup.fleets = Vec::new();
        let mut state = State {
            setup,
            turn: 1,
            round: 0,
            phase: Phase::Building,
            seats: players
                .iter()
                .map(|player| Seat::new(player.clone()))
                .collect(),
            seating,
            roll_off,
            next_seat: 0,
            ships: Vec::new(),
            bodies: Vec::new(),
            demeters: Vec::new(),
            meteor_groups: Vec::new(),
            flux_lines: Vec::new(),
            next_id: 1,
            finish: None,
        };
        if !self.fleets.is_empty() {
            let mut problems = Vec::new();
            let mut names: BTreeSet<String> = BTreeSet::new();
            for (player, fleet) in players.iter().zip(&self.fleets) {
                let mut total = Points::ZERO;
                for ship in &fleet.ships {
                    let name = ship
                        .name
                        .clone()
                        .unwrap_or_else(|| ship.design.name.clone());
                    if !names.insert(name.to_ascii_uppercase()) {
                        problems.push(format!("two ships are named {name}"));
                    }
                    match Hull::check(&ship.design) {
                        Ok(hull) => {
                            total += hull.cost();
                            let mut new_ship = Ship::new(
                                state.next_id,
                                &name,
                                player.id,
                                ship.design.clone(),
                                &hull,
                            );
                            new_ship.at = ship.at;
                            new_ship.facing = ship.facing;
                            state.next_id += 1;
                            state.ships.push(new_ship);
                        }
                        Err(issues) => {
                            for issue in issues {
                                problems.push(format!("{name}: {issue}"));
                            }
                        }
                    }
                }
                if total > Points::whole(i64::from(self.points_limit)) {
                    problems.push(format!(
                        "{}'s fleet costs {total}, over the {} points agreed (FOREVER-GEN-2)",
                        player.name, self.points_limit
                    ));
                }
            }
            problems.extend(state.placement_problems());
            if !problems.is_empty() {
                return Err(SetupError::Settings(problems.join("; ")));
            }
            state.phase = Phase::Battle;
        }
        Ok(state)
    }
}

fn convex(corners: &[Point]) -> bool {
    let n = corners.len();
    let mut sign = 0i128;
    for i in 0..n {
        let (Some(a), Some(b), Some(c)) = (
            corners.get(i),
            corners.get((i + 1) % n),
            corners.get((i + 2) % n),
        ) else {
            return false;
        };
        let turn = (*b - *a).cross(*c - *b);
        if turn != 0 {
            if sign != 0 && turn.signum() != sign {
                return false;
            }
            sign = turn.signum();
        }
    }
    sign != 0
}

/// The rock's polygon.
pub fn rock_polygon(rock: &Rock) -> Polygon {
    Polygon::new(rock.corners.clone())
}

/// One D6 per player in roster order, all rerolled while the highest is tied
/// (FOREVER-PLAY-1). Seats: highest first, ties below the top in roster order.
fn roll_off(players: &[Player], dice: &mut TurnDice) -> (Vec<PlayerId>, Vec<(PlayerId, Vec<u32>)>) {
    let mut log: BTreeMap<PlayerId, Vec<u32>> = BTreeMap::new();
    let mut rolls: Vec<(PlayerId, u32)>;
    let mut attempts = 0;
    loop {
        rolls = players.iter().map(|p| (p.id, dice.open.d6())).collect();
        for (player, value) in &rolls {
            log.entry(*player).or_default().push(*value);
        }
        let best = rolls.iter().map(|(_, v)| *v).max().unwrap_or(0);
        attempts += 1;
        if rolls.iter().filter(|(_, v)| *v == best).count() == 1 || attempts >= 20 {
            break;
        }
    }
    let order: BTreeMap<PlayerId, usize> =
        players.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
    rolls.sort_by(|a, b| b.1.cmp(&a.1).then(order.get(&a.0).cmp(&order.get(&b.0))));
    let seating = rolls.iter().map(|(p, _)| *p).collect();
    let log = players
        .iter()
        .map(|p| (p.id, log.get(&p.id).cloned().unwrap_or_default()))
        .collect();
    (seating, log)
}
