//! Seats: the places in a game that players take. Some engines give every player a place of
//! their own (Barmy's captains, Salvo's admirals, Forever's fleets); others have a fixed set of
//! named places that the GM fills (Ironclad's sides, several captains on one; Skyfleet's two
//! fleets). The service builds a game's roster against the engine's plan, checked here once
//! for every engine.

use serde::{Deserialize, Serialize};

use crate::{Player, SetupError};

/// The seats a game of one setup offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SeatPlan {
    /// Every player has a place of their own, which the engine deals.
    OnePerPlayer {
        /// The fewest players a game starts with.
        min: usize,
        /// The most, if the setup limits them.
        max: Option<usize>,
    },
    /// A fixed list of named seats, each taken by at least one player.
    Named { seats: Vec<NamedSeat> },
}

/// One named seat: a side or a fleet, and how many players may share it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedSeat {
    pub name: String,
    /// The most players (captains) who may share the seat.
    pub captains: usize,
}

/// One player of a roster and the seat the GM gave them: an index into
/// [`SeatPlan::Named`]'s seats, ignored for [`SeatPlan::OnePerPlayer`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seated {
    pub player: Player,
    pub seat: usize,
}

impl SeatPlan {
    /// The seat's name, for a named seat.
    pub fn seat_name(&self, seat: usize) -> Option<&str> {
        match self {
            SeatPlan::OnePerPlayer { .. } => None,
            SeatPlan::Named { seats } => seats.get(seat).map(|s| s.name.as_str()),
        }
    }

    /// How many players a full game has at most, if the plan limits it.
    pub fn most_players(&self) -> Option<usize> {
        match self {
            SeatPlan::OnePerPlayer { max, .. } => *max,
            SeatPlan::Named { seats } => Some(seats.iter().map(|s| s.captains).sum()),
        }
    }

    /// The fewest players a game starts with.
    pub fn fewest_players(&self) -> usize {
        match self {
            SeatPlan::OnePerPlayer { min, .. } => *min,
            SeatPlan::Named { seats } => seats.len(),
        }
    }

    /// Checks a roster against the plan and returns the players of each seat, in seat order
    /// (one seat per player, in the roster's order, when every player has their own). Each
    /// problem is said in words, naming the seat.
    pub fn seat(&self, roster: &[Seated]) -> Result<Vec<Vec<Player>>, SetupError> {
        let mut ids: Vec<_> = roster.iter().map(|s| s.player.id).collect();
        ids.sort();
        ids.dedup();
        if ids.len() != roster.len() {
            return Err(SetupError::Players("a player is listed twice".into()));
        }
        match self {
            SeatPlan::OnePerPlayer { min, max } => {
                if roster.len() < *min {
                    return Err(SetupError::Players(format!(
                        "the game needs at least {min} players, not {}",
                        roster.len()
                    )));
                }
                if let Some(max) = max
                    && roster.len() > *max
                {
                    return Err(SetupError::Players(format!(
                        "the game takes at most {max} players, not {}",
                        roster.len()
                    )));
                }
                Ok(roster.iter().map(|s| vec![s.player.clone()]).collect())
            }
            SeatPlan::Named { seats } => {
                let mut filled: Vec<Vec<Player>> = vec![Vec::new(); seats.len()];
                for seated in roster {
                    let Some(players) = filled.get_mut(seated.seat) else {
                        return Err(SetupError::Players(format!(
                            "{} has seat {} but the game has {} seats",
                            seated.player.name,
                            seated.seat + 1,
                            seats.len()
                        )));
                    };
                    players.push(seated.player.clone());
                }
                for (seat, players) in seats.iter().zip(&filled) {
                    if players.is_empty() {
                        return Err(SetupError::Players(format!("{} has no player", seat.name)));
                    }
                    if players.len() > seat.captains {
                        return Err(SetupError::Players(format!(
                            "{} takes at most {} player{}, not {}",
                            seat.name,
                            seat.captains,
                            if seat.captains == 1 { "" } else { "s" },
                            players.len()
                        )));
                    }
                }
                Ok(filled)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlayerId;

    fn seated(id: u64, seat: usize) -> Seated {
        Seated {
            player: Player {
                id: PlayerId(id),
                name: format!("P{id}"),
            },
            seat,
        }
    }

    fn sides() -> SeatPlan {
        SeatPlan::Named {
            seats: vec![
                NamedSeat {
                    name: "Union".into(),
                    captains: 2,
                },
                NamedSeat {
                    name: "Confederacy".into(),
                    captains: 2,
                },
            ],
        }
    }

    #[test]
    fn named_seats_group_their_players_in_seat_order() {
        let seats = sides()
            .seat(&[seated(1, 1), seated(2, 0), seated(3, 1), seated(4, 0)])
            .unwrap();
        let ids: Vec<Vec<u64>> = seats
            .iter()
            .map(|s| s.iter().map(|p| p.id.0).collect())
            .collect();
        assert_eq!(ids, vec![vec![2, 4], vec![1, 3]]);
    }

    #[test]
    fn named_seats_refuse_an_empty_or_overfull_seat_or_a_seat_that_is_not_there() {
        let empty = sides().seat(&[seated(1, 0), seated(2, 0)]).unwrap_err();
        assert_eq!(
            empty.to_string(),
            "the game cannot start: Confederacy has no player"
        );
        let full = sides()
            .seat(&[seated(1, 0), seated(2, 0), seated(3, 0), seated(4, 1)])
            .unwrap_err();
        assert!(
            full.to_string()
                .contains("Union takes at most 2 players, not 3")
        );
        assert!(sides().seat(&[seated(1, 0), seated(2, 2)]).is_err());
        assert!(sides().seat(&[seated(1, 0), seated(1, 1)]).is_err());
    }

    #[test]
    fn one_per_player_counts_the_players() {
        let plan = SeatPlan::OnePerPlayer {
            min: 2,
            max: Some(3),
        };
        assert!(plan.seat(&[seated(1, 0)]).is_err());
        assert_eq!(plan.seat(&[seated(1, 0), seated(2, 0)]).unwrap().len(), 2);
        assert!(
            plan.seat(&[seated(1, 0), seated(2, 0), seated(3, 0), seated(4, 0)])
                .is_err()
        );
    }
}
