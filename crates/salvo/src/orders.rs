//! One player's orders for one turn, as stored between parsing and resolution.

use serde::{Deserialize, Serialize};

use engine::PlayerId;

use crate::board::{Heading, SQUARES, Square};
use crate::fleet::{FleetPlan, ShipKind};
use crate::setup::Special;

/// What one player does this turn: at most one fleet order (first orders only) and exactly one
/// attack, the turn's shots or one extra instead of them (SALVO-GM-01).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Orders {
    /// Where the fleet goes, in a player's first orders only (SALVO-GM-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetOrder>,
    pub attack: Attack,
}

/// A fleet order in a player's first orders (SALVO-GM-18).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FleetOrder {
    /// The server places the fleet at random with the turn's sealed dice.
    Random,
    /// The player's own complete, legal placement.
    Placed(FleetPlan),
}

/// The turn's one attack (SALVO-GM-01).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Attack {
    /// No attack (also what a missing order becomes, SALVO-GM-17).
    #[default]
    Pass,
    /// Classic shots: one, or one per ship afloat in the salvo variant (SALVO-CL-04).
    Fire { shots: Vec<Shot> },
    /// SALVO-NUKE-02.
    Nuke { at: PlayerId, centre: Square },
    /// SALVO-SCUBA-02.
    Scuba { at: PlayerId },
    /// Take back one's own captured ship (SALVO-SCUBA-05, SALVO-GM-06).
    Recapture { ship: ShipKind },
    /// SALVO-TORP-03, with SALVO-GM-07's heading.
    Torpedo {
        at: PlayerId,
        start: Square,
        heading: Heading,
    },
    /// SALVO-EXP-03 as SALVO-GM-10 maps it onto written orders.
    Experimental {
        at: PlayerId,
        pattern: BlastList,
        /// The ship to lose on a backfire, if the player names one (SALVO-GM-12).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sacrifice: Option<ShipKind>,
    },
    /// SALVO-BOMB-02.
    Bomber { at: PlayerId, centre: Square },
}

impl Attack {
    /// The extra this attack spends, if any (recapture spends a SCUBA use, SALVO-GM-06).
    pub fn special(&self) -> Option<Special> {
        match self {
            Attack::Pass | Attack::Fire { .. } => None,
            Attack::Nuke { .. } => Some(Special::Nuke),
            Attack::Scuba { .. } | Attack::Recapture { .. } => Some(Special::Scuba),
            Attack::Torpedo { .. } => Some(Special::Torpedo),
            Attack::Experimental { .. } => Some(Special::Experimental),
            Attack::Bomber { .. } => Some(Special::Bomber),
        }
    }

    /// The players this attack aims at.
    pub fn targets(&self) -> Vec<PlayerId> {
        let mut targets: Vec<PlayerId> = match self {
            Attack::Pass | Attack::Recapture { .. } => Vec::new(),
            Attack::Fire { shots } => shots.iter().map(|s| s.at).collect(),
            Attack::Nuke { at, .. }
            | Attack::Scuba { at }
            | Attack::Torpedo { at, .. }
            | Attack::Experimental { at, .. }
            | Attack::Bomber { at, .. } => vec![*at],
        };
        targets.sort();
        targets.dedup();
        targets
    }
}

/// One classic shot at one player's ocean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shot {
    pub at: PlayerId,
    pub square: Square,
}

/// The experimental weapon's ordered blast list: no square twice, and every square after the
/// first touching an earlier one, so every prefix is connected (SALVO-EXP-03, SALVO-GM-10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Square>", into = "Vec<Square>")]
pub struct BlastList(Vec<Square>);

/// Why a blast list is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlastError {
    #[error("the blast pattern needs at least one square")]
    Empty,
    #[error("{0} is listed twice")]
    Repeated(Square),
    #[error(
        "{square} does not touch any square listed before it: each square must be next to an earlier one (sideways or diagonally)"
    )]
    Disconnected { square: Square },
}

impl BlastList {
    pub fn squares(&self) -> &[Square] {
        &self.0
    }
}

impl TryFrom<Vec<Square>> for BlastList {
    type Error = BlastError;
    fn try_from(squares: Vec<Square>) -> Result<Self, Self::Error> {
        if squares.is_empty() {
            return Err(BlastError::Empty);
        }
        let mut seen = [false; SQUARES];
        for (position, square) in squares.iter().enumerate() {
            if seen.get(square.index()).copied().unwrap_or(true) {
                return Err(BlastError::Repeated(*square));
            }
            if position > 0 && !squares.iter().take(position).any(|e| e.touches(*square)) {
                return Err(BlastError::Disconnected { square: *square });
            }
            if let Some(slot) = seen.get_mut(square.index()) {
                *slot = true;
            }
        }
        Ok(Self(squares))
    }
}

impl From<BlastList> for Vec<Square> {
    fn from(list: BlastList) -> Self {
        list.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &str) -> Result<BlastList, BlastError> {
        BlastList::try_from(
            names
                .split_whitespace()
                .map(|n| Square::parse(n).unwrap())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn the_texts_blast_patterns_are_legal_salvo_ex_08() {
        assert!(list("B2 B3 B4").is_ok());
        // The smile: each square touches the one before it.
        assert!(list("G2 H3 H4 H5 G6").is_ok());
    }

    #[test]
    fn broken_or_repeated_lists_are_refused_salvo_gm_10() {
        assert_eq!(
            list("B2 B4 B3"),
            Err(BlastError::Disconnected {
                square: Square::parse("B4").unwrap()
            })
        );
        assert_eq!(
            list("B2 B3 B2"),
            Err(BlastError::Repeated(Square::parse("B2").unwrap()))
        );
        assert_eq!(list(""), Err(BlastError::Empty));
    }

    #[test]
    fn orders_read_back_from_json() {
        let json = r#"{"attack":{"kind":"experimental","at":2,"pattern":["G2","H3"],"sacrifice":"cruiser"}}"#;
        let orders: Orders = serde_json::from_str(json).unwrap();
        assert_eq!(orders.attack.special(), Some(Special::Experimental));
        let broken = r#"{"attack":{"kind":"experimental","at":2,"pattern":["G2","J9"]}}"#;
        assert!(serde_json::from_str::<Orders>(broken).is_err());
    }
}
