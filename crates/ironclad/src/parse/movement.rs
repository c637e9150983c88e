//! MOVE (a path of forward steps and 45° turns), WITHDRAW (which way home) and ORDER (the
//! order the player's ships move in), with what a move would do previewed (IRON-MOV-*,
//! IRON-GM-07, IRON-GM-08, IRON-GM-10).

use crate::grid::TurnSide;
use crate::orders::Manoeuvre;
use crate::state::{MoveOrder, OverLimitMoves, Ship, ShipId, State};

use super::names::longest_name;
use super::words::{FILLER_WORDS, Step, Token, is_word, skip_fillers, step_word};
use super::{Issue, Parser, Slot, issue};

impl Parser<'_> {
    pub(super) fn movement(
        &mut self,
        line: usize,
        raw: &str,
        ship: &Ship,
        args: &[Token],
    ) -> Result<(), Issue> {
        let example = format!("{} MOVE F, T45R", ship.name);
        let manoeuvre = parse_path(args).map_err(|problem| issue(problem, example.clone()))?;
        let rules = &self.state.rules;
        if manoeuvre.is_pivot() && !(rules.allow_pivot_when_slowed && ship.slowed()) {
            let why = if rules.allow_pivot_when_slowed {
                "only a ship slowed to 1 area a turn may pivot in place"
            } else {
                "a 45° turn comes only after moving one area forward (IRON-MOV-03)"
            };
            return Err(issue(why, example));
        }
        if ship.broken_off {
            return self.broken_off_move(line, raw, ship, manoeuvre);
        }
        if let Some(over) = self.over_limit(ship, manoeuvre) {
            return self.cut_down(line, raw, ship, manoeuvre, over);
        }
        self.fill(ship, Slot::Move, line)?;
        self.orders_for(ship.id).movement = Some(manoeuvre);
        let (path, warning) = preview(self.state, ship, manoeuvre);
        self.out
            .understood
            .push(format!("{}: moves {manoeuvre}{path}", ship.name));
        match own_ship_in_the_way(self.state, ship, manoeuvre) {
            // Who moves first decides whether she rams: said once the ORDER line is known.
            Some((other, area)) => {
                self.line_ahead
                    .push((line, raw.to_owned(), ship.id, other, area));
            }
            None => {
                if let Some(warning) = warning {
                    self.warn(line, raw, warning, String::new());
                }
            }
        }
        Ok(())
    }

    /// The warnings for moves into an area one of the player's own ships holds now (a line
    /// ahead): who moves first, by the same sequence the turn uses (IRON-GM-08), whether the
    /// ship ahead leaves, and the `ORDER` line that moves her first when she would be rammed.
    pub(super) fn line_ahead_warnings(&mut self) {
        let pending = std::mem::take(&mut self.line_ahead);
        for (line, raw, mover_id, other_id, area) in pending {
            let (Some(mover), Some(other)) = (self.state.ship(mover_id), self.state.ship(other_id))
            else {
                continue;
            };
            let other_moves = self
                .out
                .orders
                .ships
                .get(&other_id)
                .and_then(|o| o.movement)
                .is_some_and(|m| m.forward_steps() > 0)
                || other.broken_off;
            let (problem, expected) = if !other_moves {
                (
                    format!(
                        "{} holds at {area} this turn: {} will ram her there (IRON-MOV-05, IRON-RAM-01); give {} a move, or {} another path",
                        other.name, mover.name, other.name, mover.name
                    ),
                    String::new(),
                )
            } else if self.state.rules.move_order == MoveOrder::LeavingFirst {
                (
                    format!(
                        "{} is at {area} now and moves too: in this game a ship leaving an area moves before one entering it (the GM's switch on IRON-GM-08), so {} follows her in unless she is stopped there",
                        other.name, mover.name
                    ),
                    String::new(),
                )
            } else {
                let mut input = engine::TurnInput::default();
                input.orders.insert(self.player, self.out.orders.clone());
                let sequence = crate::turn::move_sequence(self.state, mover.side, &input);
                let place = |id| sequence.iter().position(|s| *s == id);
                let by_line = self
                    .out
                    .orders
                    .move_order
                    .iter()
                    .any(|id| *id == mover_id || *id == other_id);
                let why = if self.state.rules.move_order == MoveOrder::ShipId {
                    "ships move by ship number in this game (the GM's switch on IRON-GM-08)"
                } else if by_line {
                    "as your ORDER line has it (IRON-GM-08)"
                } else {
                    "by ship number, as no ORDER line says otherwise (IRON-GM-08)"
                };
                if place(mover_id) < place(other_id) {
                    let fix = if self.state.rules.move_order == MoveOrder::ShipId {
                        String::new()
                    } else {
                        let mut own: Vec<ShipId> = sequence
                            .iter()
                            .copied()
                            .filter(|id| {
                                self.state
                                    .ship(*id)
                                    .is_some_and(|s| s.player == self.player && s.afloat())
                            })
                            .collect();
                        own.retain(|id| *id != other_id);
                        let at = own.iter().position(|id| *id == mover_id).unwrap_or(0);
                        own.insert(at, other_id);
                        let names: Vec<&str> = own
                            .iter()
                            .filter_map(|id| self.state.ship(*id))
                            .map(|s| s.name.as_str())
                            .collect();
                        format!(
                            "`ORDER {}` (then {} moves first and clears the way)",
                            names.join(", "),
                            other.name
                        )
                    };
                    (
                        format!(
                            "{} moves before {} ({why}), so she reaches {area} while {} is still there and rams her (IRON-MOV-05, IRON-RAM-01)",
                            mover.name, other.name, other.name
                        ),
                        fix,
                    )
                } else {
                    (
                        format!(
                            "{} is at {area} now and moves first ({why}): {} follows her in, and rams her only if she is stopped there (IRON-MOV-05)",
                            other.name, mover.name
                        ),
                        String::new(),
                    )
                }
            };
            self.warn(line, &raw, problem, expected);
        }
    }

    /// A move for a ship that has broken off: noted, but the engine steers her home.
    fn broken_off_move(
        &mut self,
        line: usize,
        raw: &str,
        ship: &Ship,
        manoeuvre: Manoeuvre,
    ) -> Result<(), Issue> {
        self.fill(ship, Slot::Move, line)?;
        self.orders_for(ship.id).movement = Some(manoeuvre);
        self.out.understood.push(format!(
            "{}: move {manoeuvre} noted, but she has broken off and the engine steers her home",
            ship.name
        ));
        self.warn(
            line,
            raw,
            format!(
                "{} is at or below her Critical Point: she sails for home and this move is not used (IRON-DMG-02, IRON-GM-10)",
                ship.name
            ),
            format!("`{} WITHDRAW LEFT` (which way to turn, if both are as short)", ship.name),
        );
        Ok(())
    }

    /// Why the move is more than the ship may make this turn, and what she may write instead:
    /// slowed to 1 area (IRON-GUN-13, IRON-TORP-06), or holding her course (IRON-GUN-11,
    /// IRON-TORP-05).
    fn over_limit(&self, ship: &Ship, manoeuvre: Manoeuvre) -> Option<(String, String)> {
        if ship.slowed() && manoeuvre.cost() > 1 {
            let why = if ship.engines_damaged {
                "her engines are damaged (IRON-GUN-13)"
            } else {
                "she is flooded below (IRON-TORP-06)"
            };
            return Some((
                format!("{} can move only 1 area a turn: {why}", ship.name),
                format!("{} MOVE F", ship.name),
            ));
        }
        if let Some(until) = ship.holds_course_until(self.state.turn)
            && manoeuvre.turn().is_some()
        {
            return Some((
                format!(
                    "{} must hold her course until turn {until} (bridge or rudder hit, IRON-GUN-11, IRON-TORP-05)",
                    ship.name
                ),
                format!("{} MOVE F, F", ship.name),
            ));
        }
        None
    }

    /// A move over the ship's limit: refused, or under the GM's switch on IRON-GM-07 cut down
    /// now as at resolution, and said so.
    fn cut_down(
        &mut self,
        line: usize,
        raw: &str,
        ship: &Ship,
        manoeuvre: Manoeuvre,
        (why, instead): (String, String),
    ) -> Result<(), Issue> {
        let rules = &self.state.rules;
        if rules.over_limit_moves == OverLimitMoves::Refused {
            return Err(issue(why, instead));
        }
        let (carried, _) = crate::movement::limited(
            ship,
            manoeuvre,
            self.state.turn,
            rules.allow_pivot_when_slowed,
        );
        self.fill(ship, Slot::Move, line)?;
        self.orders_for(ship.id).movement = Some(manoeuvre);
        let (path, warning) = preview(self.state, ship, carried);
        self.out.understood.push(format!(
            "{}: moves {carried}{path} (cut down from {manoeuvre}: {why})",
            ship.name
        ));
        self.warn(
            line,
            raw,
            format!("{why}; she will move {carried} instead of {manoeuvre} (IRON-GM-07)"),
            instead,
        );
        if let Some(warning) = warning {
            self.warn(line, raw, warning, String::new());
        }
        Ok(())
    }

    pub(super) fn withdraw(
        &mut self,
        line: usize,
        ship: &Ship,
        args: &[Token],
    ) -> Result<(), Issue> {
        let side = match skip_fillers(args).first() {
            Some(Token::Word(w)) if ["left", "port", "l", "larboard"].contains(&w.as_str()) => {
                TurnSide::Port
            }
            Some(Token::Word(w)) if ["right", "starboard", "stbd", "r"].contains(&w.as_str()) => {
                TurnSide::Starboard
            }
            _ => {
                return Err(issue(
                    "say which way she turns for home when both ways are as short: LEFT or RIGHT",
                    format!("{} WITHDRAW LEFT", ship.name),
                ));
            }
        };
        self.fill(ship, Slot::Withdraw, line)?;
        self.orders_for(ship.id).withdraw = Some(side);
        self.out.understood.push(format!(
            "{}: if she must break off and both ways home are as short, she turns to {} (IRON-GM-10)",
            ship.name,
            if side == TurnSide::Port { "port" } else { "starboard" }
        ));
        Ok(())
    }

    pub(super) fn move_order(&mut self, tokens: &[Token]) -> Result<(), Issue> {
        if self.state.rules.move_order == MoveOrder::ShipId {
            return Err(issue(
                "in this game each side's ships move by ship number, so ORDER has no effect (the GM's switch on IRON-GM-08)",
                "leave the ORDER line out",
            ));
        }
        let example = format!("ORDER {}", self.own_names().join(", "));
        // Names are matched as written ("The Ram", "Pride and Joy"); a connecting or filler word
        // that starts no name is passed over (IRON-GM-08, IRON-GUN-05..07).
        let words: Vec<Token> = tokens
            .iter()
            .filter(|t| matches!(t, Token::Word(_)))
            .cloned()
            .collect();
        let mut rest = words.as_slice();
        let mut sequence = Vec::new();
        while let [first, tail @ ..] = rest {
            let droppable = is_word(Some(first), &["then", "and", "first", "last", "next"])
                || is_word(Some(first), FILLER_WORDS);
            let as_written = longest_name(self.state.ships.iter(), rest);
            // The player's own ship wins over someone else's read as written ("the Ram" when she
            // commands "Ram" and the enemy "The Ram").
            let found = match as_written {
                Some((ship, _)) if ship.player != self.player && droppable => {
                    longest_name(self.state.ships.iter(), tail)
                        .filter(|(own, _)| own.player == self.player)
                        .or(as_written)
                }
                _ => as_written,
            };
            let Some((ship, after)) = found else {
                if droppable {
                    rest = tail;
                    continue;
                }
                let word = match first {
                    Token::Word(w) => w.clone(),
                    _ => String::new(),
                };
                return Err(issue(format!("{word:?} is not one of your ships"), example));
            };
            if ship.player != self.player {
                return Err(issue(format!("{} is not your ship", ship.name), example));
            }
            if !sequence.contains(&ship.id) {
                sequence.push(ship.id);
            }
            rest = after;
        }
        if sequence.is_empty() {
            return Err(issue(
                "list your ships in the order they should move",
                example,
            ));
        }
        let names: Vec<String> = sequence
            .iter()
            .filter_map(|id| self.state.ship(*id))
            .map(|s| s.name.clone())
            .collect();
        self.out.orders.move_order = sequence;
        self.out.understood.push(format!(
            "your ships move in this order: {} (IRON-GM-08)",
            names.join(", ")
        ));
        Ok(())
    }
}

/// Reads a move path: `F, T45R`, `FF`, `forward then turn right`, `F 2`, `hold`.
pub(super) fn parse_path(tokens: &[Token]) -> Result<Manoeuvre, String> {
    let mut steps: Vec<Step> = Vec::new();
    let mut pending_count: Option<usize> = None;
    let mut turning = false;
    for token in tokens {
        let Token::Word(word) = token else {
            continue; // Commas and slashes only separate steps.
        };
        let word = word.as_str();
        if [
            "then", "and", "area", "areas", "square", "squares", "grid", "by", "a", "deg",
            "degree", "degrees", "to", "45", "f45", "go",
        ]
        .contains(&word)
        {
            continue;
        }
        if word == "turn" || word == "t" {
            turning = true;
            continue;
        }
        if let Some(count) = count_word(word) {
            // `2 F` or `F 2`: the number of forward areas.
            if steps.last() == Some(&Step::Forward) {
                let already = steps
                    .iter()
                    .rev()
                    .take_while(|s| **s == Step::Forward)
                    .count();
                for _ in already..count {
                    steps.push(Step::Forward);
                }
            } else {
                pending_count = Some(count);
            }
            continue;
        }
        if word.starts_with('t') && word.chars().any(|c| c.is_ascii_digit()) && !word.contains("45")
        {
            return Err(format!(
                "{word:?}: a turn is 45°, written T45L or T45R (IRON-MOV-03)"
            ));
        }
        let Some(mut found) = step_word(word) else {
            return Err(format!(
                "did not understand {word:?} in the move; write a path such as F, T45R (F = one area forward, T45L / T45R = turn 45°)"
            ));
        };
        if turning && !matches!(found.as_slice(), [Step::Turn(_)]) {
            return Err("say which way to turn: T45L or T45R".into());
        }
        turning = false;
        if let (Some(count), [Step::Forward]) = (pending_count.take(), found.as_slice()) {
            found = vec![Step::Forward; count];
        }
        steps.extend(found);
    }
    if turning {
        return Err("say which way to turn: T45L or T45R".into());
    }
    if let Some(count) = pending_count {
        steps.extend(std::iter::repeat_n(Step::Forward, count));
    }
    match steps.as_slice() {
        [] => Err("give the move as a path such as F, T45R, or HOLD".into()),
        [Step::Hold] => Ok(Manoeuvre::Hold),
        [Step::Forward] => Ok(Manoeuvre::Ahead),
        [Step::Forward, Step::Forward] => Ok(Manoeuvre::AheadTwice),
        [Step::Forward, Step::Turn(side)] => Ok(Manoeuvre::ahead_then(*side)),
        [Step::Turn(side)] => Ok(Manoeuvre::pivot(*side)),
        _ if steps.contains(&Step::Hold) => Err("HOLD cannot be combined with other steps".into()),
        [Step::Turn(_), ..] => Err("a 45° turn comes only after moving one area forward (IRON-MOV-03)".into()),
        _ => Err(
            "a ship moves at most 2 areas a turn and a 45° turn uses one of them (IRON-MOV-01, IRON-MOV-03)".into(),
        ),
    }
}

pub(super) fn count_word(word: &str) -> Option<usize> {
    match word {
        "1" | "one" | "once" => Some(1),
        "2" | "two" | "twice" => Some(2),
        "3" | "three" => Some(3),
        _ => None,
    }
}

/// What a move would do from the current position: the end area, and a warning for an edge,
/// terrain or a ship in the way (IRON-GM-15, IRON-MOV-05).
pub(super) fn preview(
    state: &State,
    ship: &Ship,
    manoeuvre: Manoeuvre,
) -> (String, Option<String>) {
    let board = state.rules.board;
    let mut area = ship.area;
    for _ in 0..manoeuvre.forward_steps() {
        let next = match board.step(area, ship.heading) {
            Ok(next) => next,
            Err(edge) => {
                return (
                    format!(" (stops at {area}, the {} edge)", edge.name()),
                    Some(format!(
                        "{} would leave the board by the {} edge: she will stop at {area} and not turn (IRON-GM-15)",
                        ship.name,
                        edge.name()
                    )),
                );
            }
        };
        if state.rules.terrain.contains(&next) {
            return (
                format!(" (stops at {area}, short of terrain)"),
                Some(format!(
                    "terrain at {next}: {} will stop at {area}",
                    ship.name
                )),
            );
        }
        if let Some(other) = state.ship_at(next).filter(|o| o.id != ship.id) {
            return (
                format!(" (rams {} at {next} if she is still there)", other.name),
                Some(format!(
                    "{} is at {next} now: if she is still there when {} moves, {} rams her (IRON-MOV-05, IRON-RAM-01)",
                    other.name, ship.name, ship.name
                )),
            );
        }
        area = next;
    }
    let heading = match manoeuvre.turn() {
        Some(side) => ship.heading.turned(side),
        None => ship.heading,
    };
    (format!(" (to {area} heading {heading})"), None)
}

/// The first of the player's own ships (another afloat ship of the same player) in the areas
/// a move passes through, before any edge or terrain stops it, and her area.
fn own_ship_in_the_way(
    state: &State,
    ship: &Ship,
    manoeuvre: Manoeuvre,
) -> Option<(ShipId, crate::grid::Area)> {
    let mut area = ship.area;
    for _ in 0..manoeuvre.forward_steps() {
        let next = state.rules.board.step(area, ship.heading).ok()?;
        if state.rules.terrain.contains(&next) {
            return None;
        }
        if let Some(other) = state.ship_at(next).filter(|o| o.id != ship.id) {
            return (other.player == ship.player).then_some((other.id, next));
        }
        area = next;
    }
    None
}
