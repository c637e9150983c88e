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

    /// Deals seats to `players` players in order: round the seats, skipping a full one, as
    /// many as have room; `None` for a player beyond the room. The console's first suggestion
    /// and a sign-up's seating in order of sign-up.
    pub fn deal(&self, players: usize) -> Vec<Option<usize>> {
        let room: Vec<usize> = match self {
            SeatPlan::OnePerPlayer { max, .. } => vec![max.unwrap_or(usize::MAX)],
            SeatPlan::Named { seats } => seats.iter().map(|s| s.captains).collect(),
        };
        let mut taken = vec![0usize; room.len()];
        let mut next = 0usize;
        (0..players)
            .map(|_| {
                let seat = (0..room.len())
                    .map(|step| (next + step) % room.len())
                    .find(|seat| taken.get(*seat) < room.get(*seat))?;
                if let Some(count) = taken.get_mut(seat) {
                    *count += 1;
                }
                next = seat + 1;
                Some(seat)
            })
            .collect()
    }

    /// The order in which `players` players who signed up are seated at random: a
    /// Fisher-Yates shuffle of `0..players` with the committed seating dice
    /// ([`crate::GameSecret::seating_seed`]), so anyone can redo it once the seed is revealed.
    pub fn shuffled(players: usize, dice: &mut crate::Dice) -> Vec<usize> {
        let mut order: Vec<usize> = (0..players).collect();
        for top in (1..players).rev() {
            let other = dice.pick(top + 1);
            order.swap(top, other);
        }
        order
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
    fn dealing_goes_round_the_seats_with_room() {
        let duel = SeatPlan::Named {
            seats: vec![
                NamedSeat {
                    name: "A".into(),
                    captains: 1,
                },
                NamedSeat {
                    name: "B".into(),
                    captains: 1,
                },
            ],
        };
        assert_eq!(duel.deal(3), vec![Some(0), Some(1), None]);
        assert_eq!(
            sides().deal(5),
            vec![Some(0), Some(1), Some(0), Some(1), None]
        );
        let open = SeatPlan::OnePerPlayer { min: 2, max: None };
        assert_eq!(open.deal(2), vec![Some(0), Some(0)]);
    }

    #[test]
    fn a_shuffle_is_a_permutation_fixed_by_the_seed() {
        let secret = crate::GameSecret::from_bytes([7; 32]);
        let first = SeatPlan::shuffled(6, &mut crate::Dice::from_seed(&secret.seating_seed()));
        let again = SeatPlan::shuffled(6, &mut crate::Dice::from_seed(&secret.seating_seed()));
        assert_eq!(first, again);
        let mut sorted = first.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3, 4, 5]);
        let other = crate::GameSecret::from_bytes([8; 32]);
        let moved = SeatPlan::shuffled(6, &mut crate::Dice::from_seed(&other.seating_seed()));
        assert_ne!(moved, first, "another secret seats otherwise");
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
