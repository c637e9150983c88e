//! What a line says after its command word: squares and ranges, directions, ships, a
//! sacrifice, RANDOM and the player aimed at.

use engine::PlayerId;

use crate::board::{Square, line_between};
use crate::fleet::ShipKind;
use crate::legality::{OrderError, opponent_names};

use super::Draft;
use super::tokens::Tok;
use super::vocabulary::{
    Command, Direction, direction_of, is_filler, is_keyword, is_range_word, ship_at,
};

/// Squares as written: single, or a range along a row or column.
#[derive(Debug, Clone, Copy)]
pub(super) enum SquareItem {
    One(Square),
    Range(Square, Square),
}

/// Everything a line said after its command word.
#[derive(Debug, Default)]
pub(super) struct Args {
    pub(super) squares: Vec<SquareItem>,
    pub(super) directions: Vec<Direction>,
    pub(super) ships: Vec<ShipKind>,
    pub(super) sacrifice: Option<ShipKind>,
    pub(super) random: bool,
    pub(super) target: Option<PlayerId>,
}

impl Args {
    pub(super) fn expand(&self) -> Result<Vec<Square>, OrderError> {
        let mut squares = Vec::new();
        for item in &self.squares {
            match item {
                SquareItem::One(square) => squares.push(*square),
                SquareItem::Range(from, to) => {
                    let line = line_between(*from, *to).ok_or_else(|| {
                        OrderError::Missing(format!(
                            "{from}-{to} is not a straight line: a range runs along one row or one column"
                        ))
                    })?;
                    squares.extend(line);
                }
            }
        }
        Ok(squares)
    }

    pub(super) fn one_square(&self, what: &str) -> Result<Square, OrderError> {
        match self.squares.as_slice() {
            [SquareItem::One(square)] => Ok(*square),
            [] => Err(OrderError::Missing(format!("{what} needs a square"))),
            _ => Err(OrderError::Missing(format!("{what} takes one square"))),
        }
    }

    pub(super) fn no_squares(&self, what: &str) -> Result<(), OrderError> {
        match self.squares.first() {
            None => Ok(()),
            Some(SquareItem::One(square) | SquareItem::Range(square, _)) => Err(
                OrderError::Missing(format!("{what} takes no square (found {square})")),
            ),
        }
    }

    pub(super) fn no_extras(
        &self,
        what: &str,
        directions: bool,
        ships: bool,
    ) -> Result<(), OrderError> {
        if !directions && !self.directions.is_empty() {
            return Err(OrderError::Missing(format!("{what} takes no direction")));
        }
        if !ships && (!self.ships.is_empty() || self.sacrifice.is_some()) {
            return Err(OrderError::Missing(format!("{what} names no ship")));
        }
        if self.random {
            return Err(OrderError::Unexpected("random".into()));
        }
        Ok(())
    }
}

/// The arguments being read, with what the words so far leave pending.
#[derive(Default)]
struct Reading {
    args: Args,
    /// A dash or TO after a square: the next square ends a range.
    range_pending: bool,
    /// SACRIFICE: the next ship is the one given up.
    sacrifice_pending: bool,
}

impl Draft<'_> {
    /// Reads squares, directions, ships and a target from the words after the command.
    pub(super) fn read_args(
        &self,
        mut command: Command,
        tokens: &[Tok],
        from: usize,
    ) -> Result<(Command, Args), OrderError> {
        let mut reading = Reading::default();
        let mut i = from;
        while let Some(token) = tokens.get(i) {
            i += match token {
                Tok::Square(square) => {
                    reading.square(*square);
                    1
                }
                Tok::BadSquare(error) => return Err(OrderError::Square(error.clone())),
                Tok::Dash => {
                    reading.range_pending = !reading.args.squares.is_empty();
                    1
                }
                Tok::Word(word) => self.arg_word(&mut reading, &mut command, tokens, i, word)?,
            };
        }
        if reading.sacrifice_pending {
            return Err(OrderError::Missing(
                "SACRIFICE needs a ship, e.g. SACRIFICE Cruiser".into(),
            ));
        }
        Ok((command, reading.args))
    }

    /// Reads the word at `tokens[i]` (and any it takes with it): how many words it took.
    fn arg_word(
        &self,
        reading: &mut Reading,
        command: &mut Command,
        tokens: &[Tok],
        i: usize,
        word: &str,
    ) -> Result<usize, OrderError> {
        if is_range_word(word)
            && matches!(reading.args.squares.last(), Some(SquareItem::One(_)))
            && matches!(tokens.get(i + 1), Some(Tok::Square(_)))
        {
            reading.range_pending = true;
            return Ok(1);
        }
        if let Some((kind, used)) = ship_at(tokens, i) {
            if reading.sacrifice_pending {
                reading.args.sacrifice = Some(kind);
                reading.sacrifice_pending = false;
            } else {
                reading.args.ships.push(kind);
            }
            return Ok(used);
        }
        if matches!(word, "sacrifice" | "sacrificing" | "sac" | "lose") {
            reading.sacrifice_pending = true;
            return Ok(1);
        }
        if matches!(word, "random" | "randomly" | "randomise" | "randomize") {
            reading.args.random = true;
            return Ok(1);
        }
        if let Some(next) = Command::of_word(word) {
            *command = upgrade(*command, next, &reading.args, word)?;
            return Ok(1);
        }
        if let Some(direction) = direction_of(word) {
            reading.args.directions.push(direction);
            return Ok(1);
        }
        if matches!(word, "at" | "on" | "vs" | "versus" | "against") {
            return match tokens.get(i + 1) {
                Some(Tok::Word(next)) if !is_keyword(next) => {
                    let found = self.player_at(tokens, i + 1)?;
                    Ok(1 + take_target(&mut reading.args, found)?)
                }
                _ => Ok(1),
            };
        }
        if is_filler(word) {
            return Ok(1);
        }
        match self.player_at(tokens, i) {
            Ok(found) => take_target(&mut reading.args, found),
            Err(_) => Err(OrderError::Unexpected(word.to_string())),
        }
    }

    /// The player whose name starts at `tokens[at]`: a full name, or a first name only one
    /// player has. Returns the words used.
    fn player_at(&self, tokens: &[Tok], at: usize) -> Result<(PlayerId, usize), OrderError> {
        let word = |i: usize| match tokens.get(i) {
            Some(Tok::Word(w)) => Some(w.clone()),
            Some(Tok::Square(s)) => Some(s.to_string().to_lowercase()),
            _ => None,
        };
        let mut best: Option<(PlayerId, usize)> = None;
        for (id, words) in &self.names {
            let full = words
                .iter()
                .enumerate()
                .all(|(k, w)| word(at + k).as_deref() == Some(w.as_str()));
            if full && best.is_none_or(|(_, used)| words.len() > used) {
                best = Some((*id, words.len()));
            }
        }
        if let Some(found) = best {
            return Ok(found);
        }
        let first = word(at).unwrap_or_default();
        let by_first: Vec<PlayerId> = self
            .names
            .iter()
            .filter(|(_, words)| words.first() == Some(&first))
            .map(|(id, _)| *id)
            .collect();
        match by_first.as_slice() {
            [only] => Ok((*only, 1)),
            _ => Err(OrderError::UnknownTarget {
                name: first,
                opponents: opponent_names(self.state, self.me),
            }),
        }
    }
}

impl Reading {
    /// A square: the end of a pending range, or one more square.
    fn square(&mut self, square: Square) {
        match (self.range_pending, self.args.squares.pop()) {
            (true, Some(SquareItem::One(from))) => {
                self.args.squares.push(SquareItem::Range(from, square));
            }
            (_, previous) => {
                self.args.squares.extend(previous);
                self.args.squares.push(SquareItem::One(square));
            }
        }
        self.range_pending = false;
    }
}

/// "fire a torpedo", "SCUBA attack to recapture": a later command word says which order the
/// line is, if nothing else has been read yet; any other starts a second order.
fn upgrade(
    command: Command,
    next: Command,
    args: &Args,
    word: &str,
) -> Result<Command, OrderError> {
    let upgrade = match (command, next) {
        (Command::Fire, n) if args.squares.is_empty() => Some(n),
        (Command::Scuba, Command::Recapture) => Some(Command::Recapture),
        (Command::Recapture, Command::Scuba) => Some(Command::Recapture),
        (c, n) if c == n => Some(c),
        _ => None,
    };
    upgrade.ok_or_else(|| {
        OrderError::Missing(format!("one order a line: '{word}' starts another order"))
    })
}

/// The player aimed at, `found` with the words their name took; one target a line.
fn take_target(args: &mut Args, (target, used): (PlayerId, usize)) -> Result<usize, OrderError> {
    if args.target.is_some_and(|t| t != target) {
        return Err(OrderError::TwoTargets);
    }
    args.target = Some(target);
    Ok(used)
}
