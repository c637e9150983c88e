//! PLACE: the player's own fleet, ship by ship (an end and H or V, or both ends), or RANDOM
//! (SALVO-GM-18).

use crate::board::{Heading, Square};
use crate::fleet::{FleetPlan, Orientation, Placement, ShipKind};
use crate::legality::OrderError;

use super::Draft;
use super::tokens::Tok;
use super::vocabulary::{Command, Direction, direction_of, is_filler, is_range_word, ship_at};

impl Draft<'_> {
    pub(super) fn read_place(
        &mut self,
        line: usize,
        tokens: &[Tok],
        from: usize,
    ) -> Result<(), OrderError> {
        let admiral = self.state.admiral(self.me).ok_or(OrderError::NotPlaying)?;
        let (pending, random) = place_words(tokens, from)?;
        if !admiral.may_place() {
            return Err(OrderError::PlacementClosed);
        }
        if random {
            return self.place_random(line, &pending);
        }
        if pending.is_empty() {
            return Err(OrderError::Missing(
                "PLACE needs a ship, its top or left end and H or V".into(),
            ));
        }
        if let Some(random_line) = self.random_line {
            return Err(OrderError::Missing(format!(
                "you asked for a random fleet on line {random_line}"
            )));
        }
        let mut placements = Vec::with_capacity(pending.len());
        for ship in &pending {
            placements.push(ship.placement()?);
        }
        let mut all: Vec<Placement> = self.placements.iter().map(|(_, p)| *p).collect();
        all.extend(placements.iter().copied());
        FleetPlan::check_partial(&all)?;
        if self.placements.is_empty() {
            self.first_placement_text = self.line_text.clone();
        }
        for placement in placements {
            self.understood
                .push(format!("place {}", placement.describe()));
            self.placements.push((line, placement));
        }
        Ok(())
    }

    /// PLACE RANDOM: the server places the whole fleet, never beside ships placed by hand.
    fn place_random(&mut self, line: usize, pending: &[PendingShip]) -> Result<(), OrderError> {
        if !pending.is_empty() {
            return Err(OrderError::Missing(
                "either place ships yourself or ask for RANDOM, not both".into(),
            ));
        }
        if let Some(first) = self.placements.first() {
            return Err(OrderError::Missing(format!(
                "you placed ships yourself from line {}: leave them, or ask for RANDOM alone",
                first.0
            )));
        }
        self.random_line = Some(line);
        self.understood
            .push("fleet: placed at random by the server".into());
        Ok(())
    }
}

/// The ships a PLACE line names, each with its squares and direction, and whether it asks for
/// RANDOM.
fn place_words(tokens: &[Tok], from: usize) -> Result<(Vec<PendingShip>, bool), OrderError> {
    let mut pending: Vec<PendingShip> = Vec::new();
    let mut random = false;
    let mut i = from;
    while let Some(token) = tokens.get(i) {
        match token {
            Tok::Square(square) => {
                let ship = pending.last_mut().ok_or_else(|| {
                    OrderError::Missing(format!("name the ship before its square {square}"))
                })?;
                ship.squares.push(*square);
                i += 1;
            }
            Tok::BadSquare(error) => return Err(OrderError::Square(error.clone())),
            Tok::Dash => i += 1,
            Tok::Word(word) => {
                if let Some((kind, used)) = ship_at(tokens, i) {
                    pending.push(PendingShip {
                        kind,
                        squares: Vec::new(),
                        direction: None,
                    });
                    i += used;
                } else if matches!(
                    word.as_str(),
                    "random" | "randomly" | "randomise" | "randomize"
                ) {
                    random = true;
                    i += 1;
                } else if let Some(direction) = direction_of(word) {
                    let ship = pending.last_mut().ok_or_else(|| {
                        OrderError::Missing("name the ship before its direction".into())
                    })?;
                    ship.direction = Some(direction);
                    i += 1;
                } else if is_filler(word)
                    || is_range_word(word)
                    || Command::of_word(word) == Some(Command::Place)
                    || matches!(word.as_str(), "at" | "on")
                {
                    i += 1;
                } else {
                    return Err(OrderError::Unexpected(word.clone()));
                }
            }
        }
    }
    Ok((pending, random))
}

struct PendingShip {
    kind: ShipKind,
    squares: Vec<Square>,
    direction: Option<Direction>,
}

impl PendingShip {
    /// `Carrier A1 H`, `Carrier A1-A5` or `Carrier A5 A1` (SALVO-GM-18).
    fn placement(&self) -> Result<Placement, OrderError> {
        let ship = self.kind;
        match (self.squares.as_slice(), self.direction) {
            ([bow], Some(direction)) => {
                let orientation = match direction {
                    Direction::Horizontal | Direction::Compass(Heading::East) => {
                        Orientation::Horizontal
                    }
                    Direction::Vertical | Direction::Compass(Heading::South) => {
                        Orientation::Vertical
                    }
                    Direction::Compass(_) => {
                        return Err(OrderError::Missing(format!(
                            "give the {ship}'s top or left end and H (across) or V (down)"
                        )));
                    }
                };
                let placement = Placement {
                    ship,
                    bow: *bow,
                    orientation,
                };
                placement.squares()?;
                Ok(placement)
            }
            ([_], None) => Err(OrderError::Missing(format!(
                "say which way the {ship} lies: H (across) or V (down)"
            ))),
            ([a, b], _) => {
                let (bow, stern) = if a <= b { (*a, *b) } else { (*b, *a) };
                let orientation = if bow.row() == stern.row() {
                    Orientation::Horizontal
                } else if bow.col() == stern.col() {
                    Orientation::Vertical
                } else {
                    return Err(OrderError::Missing(format!(
                        "{a}-{b} is diagonal: ships lie along a row or a column (SALVO-CL-03)"
                    )));
                };
                let covers = bow.row().abs_diff(stern.row()) + bow.col().abs_diff(stern.col()) + 1;
                if covers != ship.length() {
                    return Err(OrderError::Missing(format!(
                        "the {ship} is {} squares long, but {a}-{b} covers {covers}",
                        ship.length()
                    )));
                }
                Ok(Placement {
                    ship,
                    bow,
                    orientation,
                })
            }
            ([], _) => Err(OrderError::Missing(format!(
                "give the {ship}'s top or left end, e.g. {ship} A1 H"
            ))),
            _ => Err(OrderError::Missing(format!(
                "give the {ship} one end and H or V, or both ends"
            ))),
        }
    }
}
