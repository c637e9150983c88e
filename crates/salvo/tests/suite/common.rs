//! Shared helpers: games, fleets and a small deterministic generator for random orders.

use engine::{Engine, GameSecret, Player, PlayerId, TurnInput};
use salvo::{
    Attack, BlastList, Fleet, FleetOrder, FleetPlan, Heading, Orders, Salvo, Setup, ShipKind, Shot,
    Square, State,
};

pub const ANN: PlayerId = PlayerId(1);
pub const BOB: PlayerId = PlayerId(2);

pub fn players(count: usize) -> Vec<Player> {
    ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
        .iter()
        .take(count)
        .enumerate()
        .map(|(i, name)| Player {
            id: PlayerId(i as u64 + 1),
            name: (*name).to_string(),
        })
        .collect()
}

pub fn new_game(setup: &Setup, count: usize, seed: u8) -> State {
    let mut dice = GameSecret::from_bytes([seed; 32]).turn_dice(0);
    Salvo::new_game(setup, &players(count), &mut dice).unwrap()
}

pub fn square(name: &str) -> Square {
    Square::parse(name).unwrap()
}

pub fn squares(names: &str) -> Vec<Square> {
    names
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|n| !n.is_empty())
        .map(square)
        .collect()
}

/// Places a fleet from PLACE text through the parser, as a player's first orders would.
pub fn place(state: &mut State, player: PlayerId, text: &str) {
    let parsed = Salvo::parse_orders(state, player, text);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let Some(FleetOrder::Placed(plan)) = parsed.orders.fleet else {
        panic!("not a placement: {text}");
    };
    state.set_fleet(player, &plan);
}

pub const ROWS_FLEET: &str = "PLACE Carrier A1 H\nPLACE Battleship C1 H\nPLACE Cruiser E1 H\nPLACE Submarine G1 H\nPLACE Destroyer I1 H";

/// Orders text for one player, parsed against the state; panics on any error.
pub fn orders(state: &State, player: PlayerId, text: &str) -> Orders {
    let parsed = Salvo::parse_orders(state, player, text);
    assert!(parsed.errors.is_empty(), "{text}: {:?}", parsed.errors);
    parsed.orders
}

pub fn input(entries: Vec<(PlayerId, Orders)>) -> TurnInput<Orders> {
    let mut input = TurnInput::default();
    input.orders.extend(entries);
    input
}

/// SplitMix64: a tiny, fixed generator so random games are reproducible from one number.
pub struct Mix(pub u64);

impl Mix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn square(&mut self) -> Square {
        Square::new(self.below(10) as u8, self.below(10) as u8).unwrap()
    }

    pub fn ship(&mut self) -> ShipKind {
        ShipKind::ALL[self.below(5) as usize]
    }

    pub fn heading(&mut self) -> Heading {
        [Heading::North, Heading::South, Heading::East, Heading::West][self.below(4) as usize]
    }

    /// A connected blast list by random walk (SALVO-GM-10).
    pub fn blast(&mut self) -> BlastList {
        let length = 1 + self.below(7) as usize;
        let mut list = vec![self.square()];
        let mut tries = 0;
        while list.len() < length && tries < 100 {
            tries += 1;
            let from = list[self.below(list.len() as u64) as usize];
            let neighbours: Vec<Square> = from.neighbours().filter(|s| !list.contains(s)).collect();
            if !neighbours.is_empty() {
                list.push(neighbours[self.below(neighbours.len() as u64) as usize]);
            }
        }
        BlastList::try_from(list).unwrap()
    }

    /// Any attack at all, legal or not: resolution must void what it cannot carry out.
    pub fn attack(&mut self, count: u64) -> Attack {
        let at = PlayerId(1 + self.below(count + 1));
        match self.below(10) {
            0 => Attack::Pass,
            1..=3 => {
                let shots = (0..1 + self.below(5))
                    .map(|_| Shot {
                        at,
                        square: self.square(),
                    })
                    .collect();
                Attack::Fire { shots }
            }
            4 => Attack::Nuke {
                at,
                centre: self.square(),
            },
            5 => Attack::Scuba { at },
            6 => Attack::Recapture { ship: self.ship() },
            7 => Attack::Torpedo {
                at,
                start: self.square(),
                heading: self.heading(),
            },
            8 => Attack::Experimental {
                at,
                pattern: self.blast(),
                sacrifice: if self.below(3) == 0 {
                    Some(self.ship())
                } else {
                    None
                },
            },
            _ => Attack::Bomber {
                at,
                centre: self.square(),
            },
        }
    }

    /// One turn's orders for every player in the game (some missing: NMR).
    pub fn turn_input(&mut self, state: &State) -> TurnInput<Orders> {
        let count = state.admirals().len() as u64;
        let mut input = TurnInput::default();
        for admiral in state.admirals() {
            if self.below(6) == 0 {
                continue;
            }
            let fleet = if admiral.may_place() && self.below(2) == 0 {
                if self.below(2) == 0 {
                    Some(FleetOrder::Random)
                } else {
                    let seed = self.next();
                    let mut dice =
                        engine::Dice::from_seed(&engine::TurnSeed::from_bytes([seed as u8; 32]));
                    let fleet = Fleet::random(&mut dice);
                    Some(FleetOrder::Placed(
                        FleetPlan::try_from(fleet.plan()).unwrap(),
                    ))
                }
            } else {
                None
            };
            let attack = self.attack(count);
            input.orders.insert(admiral.id(), Orders { fleet, attack });
        }
        input
    }

    /// Orders a player might really send: at opponents still in the game, the turn's shots at
    /// squares not yet called, now and then an extra.
    pub fn sensible_input(&mut self, state: &State) -> TurnInput<Orders> {
        let mut input = TurnInput::default();
        for admiral in state.admirals().iter().filter(|a| a.is_active()) {
            let opponents = state.opponents_of(admiral.id());
            if opponents.is_empty() || self.below(10) == 0 {
                continue;
            }
            let at = opponents[self.below(opponents.len() as u64) as usize].id();
            let attack = if self.below(4) == 0 {
                match self.attack(1) {
                    Attack::Nuke { centre, .. } => Attack::Nuke { at, centre },
                    Attack::Scuba { .. } => Attack::Scuba { at },
                    Attack::Bomber { centre, .. } => Attack::Bomber { at, centre },
                    Attack::Experimental {
                        pattern, sacrifice, ..
                    } => Attack::Experimental {
                        at,
                        pattern,
                        sacrifice,
                    },
                    Attack::Torpedo { .. } => {
                        let start = self.square();
                        match start.inward_headings().first() {
                            Some(heading) => Attack::Torpedo {
                                at,
                                start,
                                heading: *heading,
                            },
                            None => Attack::Pass,
                        }
                    }
                    other => other,
                }
            } else {
                let called = admiral.calls_on(at).cloned().unwrap_or_default();
                let mut open: Vec<Square> = Square::all().filter(|s| !called.contains(s)).collect();
                let mut shots = Vec::new();
                for _ in 0..state.shots_allowed(admiral.id()) {
                    if open.is_empty() {
                        break;
                    }
                    let square = open.remove(self.below(open.len() as u64) as usize);
                    shots.push(Shot { at, square });
                }
                Attack::Fire { shots }
            };
            input.orders.insert(
                admiral.id(),
                Orders {
                    fleet: None,
                    attack,
                },
            );
        }
        input
    }
}
