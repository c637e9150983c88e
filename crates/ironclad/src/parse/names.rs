//! Finding the ships a line names: the player's own at the start of a line, targets by name,
//! area or a unique start of a name, each read as written before leading filler words are
//! dropped (IRON-GUN-05..07).

use crate::grid::Area;
use crate::state::{Fate, Ship, ShipId};

use super::words::{Token, filler_readings, joined_words, normalise, skip_fillers, words_of};
use super::{Issue, Parser, issue};

impl Parser<'_> {
    pub(super) fn no_ship_issue(&self) -> Issue {
        let mine: Vec<&str> = self
            .state
            .ships
            .iter()
            .filter(|s| s.player == self.player && s.afloat())
            .map(|s| s.name.as_str())
            .collect();
        issue(
            format!(
                "start the line with the ship it is for; yours are: {}",
                if mine.is_empty() {
                    "none left".to_string()
                } else {
                    mine.join(", ")
                }
            ),
            format!("{} MAIN {}", self.example_own, self.example_enemy),
        )
    }

    /// The longest ship name at the start of `tokens`, read as written and then without one, two,
    /// … leading filler words: one of the player's own afloat ships, or an error if the only
    /// name found is someone else's ship or one that is gone. The player's own ship wins over
    /// another reading's enemy ("The Ram" when she commands "Ram" and the enemy "The Ram").
    pub(super) fn ship_at_start<'t>(
        &self,
        tokens: &'t [Token],
    ) -> Result<Option<(ShipId, &'t [Token])>, Issue> {
        let mut refusal = None;
        for reading in filler_readings(tokens) {
            let Some((ship, rest)) = longest_name(self.state.ships.iter(), reading) else {
                continue;
            };
            let problem = if ship.player != self.player {
                issue(
                    format!("{} is not your ship", ship.name),
                    format!("{} MAIN {}", self.example_own, self.example_enemy),
                )
            } else {
                match ship.fate {
                    Fate::Afloat => return Ok(Some((ship.id, rest))),
                    Fate::Sunk { .. } => issue(format!("{} has sunk", ship.name), ""),
                    Fate::Escaped { .. } => issue(format!("{} has left the battle", ship.name), ""),
                }
            };
            refusal.get_or_insert(problem);
        }
        match refusal {
            Some(problem) => Err(problem),
            None => Ok(None),
        }
    }

    pub(super) fn second_enemy(&self) -> String {
        let own_side = self.state.commander(self.player).map(|c| c.side);
        self.state
            .ships
            .iter()
            .filter(|s| Some(s.side) != own_side && s.afloat())
            .nth(1)
            .map(|s| s.name.clone())
            .unwrap_or_else(|| "Erzherzog".into())
    }

    /// The ship whose whole name `tokens` are, read as written and then without one, two, …
    /// leading filler words (IRON-GUN-05..07: "The Ram" is a name, "the Leonidas" is Leonidas).
    pub(super) fn named_ship(&self, tokens: &[Token]) -> Option<&Ship> {
        filler_readings(tokens).into_iter().find_map(|reading| {
            let joined = joined_words(reading);
            self.state
                .ships
                .iter()
                .find(|s| !joined.is_empty() && normalise(&s.name) == joined)
        })
    }

    /// A target: a whole name, an area, or a unique start of a name, each read as written before
    /// leading filler words are dropped.
    pub(super) fn target(&self, tokens: &[Token], example: &str) -> Result<&Ship, Issue> {
        if let Some(ship) = self.named_ship(tokens) {
            return Ok(ship);
        }
        let readings = filler_readings(tokens);
        for reading in &readings {
            let words: Vec<&str> = reading
                .iter()
                .filter_map(|t| match t {
                    Token::Word(w) => Some(w.as_str()),
                    _ => None,
                })
                .collect();
            let written = words.concat();
            // `5G` for G5: the row first, as some write a square.
            let swapped = {
                let digits: String = written.chars().take_while(char::is_ascii_digit).collect();
                let rest = written.get(digits.len()..).unwrap_or("");
                format!("{rest}{digits}")
            };
            if let Ok(area) = Area::parse(&written).or_else(|_| Area::parse(&swapped)) {
                return self.state.ship_at(area).ok_or_else(|| {
                    issue(format!("there is no ship at {area}"), example.to_owned())
                });
            }
        }
        for reading in &readings {
            let joined = joined_words(reading);
            if joined.is_empty() {
                continue;
            }
            let matching: Vec<&Ship> = self
                .state
                .ships
                .iter()
                .filter(|s| normalise(&s.name).starts_with(&joined))
                .collect();
            match matching.as_slice() {
                [only] => return Ok(only),
                [] => {}
                several => {
                    return Err(issue(
                        format!(
                            "{joined:?} could be {}",
                            several
                                .iter()
                                .map(|s| s.name.as_str())
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                        example.to_owned(),
                    ));
                }
            }
        }
        let joined = joined_words(skip_fillers(tokens));
        Err(issue(
            format!("there is no ship called {joined:?}"),
            example.to_owned(),
        ))
    }

    pub(super) fn own_names(&self) -> Vec<String> {
        self.state
            .ships
            .iter()
            .filter(|s| s.player == self.player && s.afloat())
            .map(|s| s.name.clone())
            .collect()
    }
}

/// The longest ship name that starts `tokens`, and what follows it.
pub(super) fn longest_name<'s, 't>(
    ships: impl Iterator<Item = &'s Ship>,
    tokens: &'t [Token],
) -> Option<(&'s Ship, &'t [Token])> {
    let mut best: Option<(&Ship, usize)> = None;
    for ship in ships {
        let name = words_of(&ship.name);
        if name.is_empty() || name.len() > tokens.len() {
            continue;
        }
        let matches = name
            .iter()
            .zip(tokens)
            .all(|(word, token)| matches!(token, Token::Word(t) if t == word));
        if matches && best.is_none_or(|(_, length)| name.len() > length) {
            best = Some((ship, name.len()));
        }
    }
    best.map(|(ship, length)| (ship, tokens.get(length..).unwrap_or(&[])))
}
