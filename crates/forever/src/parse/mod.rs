//! Order parsing for text written by people in an email: case-insensitive, tolerant of spaces,
//! punctuation, quoting and signatures, one order per line (or several separated by `;`), and
//! never panicking. Each rejected line says what was wrong and shows a correct example.
//!
//! One file per order family: `building` (SHIP designs, DEPLOY and the fleet as a whole),
//! `movement` (MOVE1, MOVE2, TOW, RELEASE), `fire` (FIRE and BATTERY), `modules` (EMP, NANO,
//! LAUNCH, TC and FLUX), `demeter` (DEMETER) and `deflect` (DEFLECT); `names` finds the
//! ships, sections, weapons and modules an order names, and `cursor` reads an order's words.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::rc::Rc;

use engine::order_text::{Line, OrderText};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::design::Hull;
use crate::orders::{Action, Orders};
use crate::state::{Phase, SeatStatus, State};

mod building;
mod cursor;
mod deflect;
mod demeter;
mod examples;
mod fire;
mod modules;
mod movement;
mod names;

use cursor::Cursor;

/// A refused order: the problem and a correct example.
type Refusal = (String, &'static str);

struct Parser<'a> {
    state: &'a State,
    player: PlayerId,
    /// Shared, so that trying an example (a clone of the parser) does not copy the designs.
    hulls: Rc<Vec<Option<Hull>>>,
    orders: Orders,
    understood: Vec<String>,
    press: Vec<String>,
    errors: Vec<LineIssue>,
    warnings: Vec<LineIssue>,
    /// Weapons and modules given an action already: (ship index, item index) (FOREVER-GM-50).
    used: BTreeSet<(usize, usize)>,
    /// Each design's SHIP line, for fleet problems.
    design_lines: Vec<(String, usize, String)>,
    /// A design was refused already: the fleet is not checked as a whole.
    design_failed: bool,
    /// This parser only tries an example: its refusals need no examples of their own.
    trial: bool,
    /// How many more examples this mail may try (shared with the trials): a mail of
    /// thousands of bad lines gets words, not a parse per candidate per line.
    trials_left: Rc<Cell<usize>>,
}

/// Parses one player's orders.
pub fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let mut parser = Parser {
        state,
        player,
        hulls: Rc::new(
            state
                .ships
                .iter()
                .map(|s| Hull::check(&s.design).ok())
                .collect(),
        ),
        orders: Orders::default(),
        understood: Vec::new(),
        press: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        used: BTreeSet::new(),
        design_lines: Vec::new(),
        design_failed: false,
        trial: false,
        trials_left: Rc::new(Cell::new(examples::TRIALS_PER_MAIL)),
    };
    parser.run(text);
    parser.finish()
}

/// An order line (list marker already dropped by the reader) without a trailing comment
/// (`// ...` or `# ...`); `None` when nothing is left.
fn clean(text: &str) -> Option<String> {
    let line = text.split("//").next().unwrap_or("");
    let line = line.split('#').next().unwrap_or("").trim();
    (!line.is_empty()).then(|| line.to_string())
}

/// Splits a line on `;` outside parentheses.
fn split_orders(line: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in line.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = (depth - 1).max(0),
            ';' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn first_word(line: &str) -> String {
    line.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches([':', ',', '.'])
        .to_ascii_uppercase()
}

const MOVE_EXAMPLE: &str = "MOVE1 Lancer TO 30, 20 FACE 90";
const FIRE_EXAMPLE: &str = "FIRE Lancer.S1 AT Anvil.S3";

impl Parser<'_> {
    fn error(&mut self, line: usize, text: &str, problem: impl Into<String>, expected: &str) {
        self.refuse(line, text, None, problem, expected);
    }

    /// A refusal of `order` (the order as written, when known) on `line`, with an example
    /// that works in its place (issue 28).
    fn refuse(
        &mut self,
        line: usize,
        text: &str,
        order: Option<&str>,
        problem: impl Into<String>,
        expected: &str,
    ) {
        let expected = if self.trial {
            String::new()
        } else {
            self.expected_for(line, expected, order)
        };
        self.errors.push(LineIssue {
            line,
            text: text.to_string(),
            problem: problem.into(),
            expected,
            if_it_stands: None,
        });
    }

    fn warn(&mut self, line: usize, text: &str, problem: impl Into<String>, expected: &str) {
        // A warning's template is often the player's own line put right: shown as it is when
        // it is accepted there.
        let expected = if self.trial {
            String::new()
        } else if examples::is_order(expected) && self.works(line, expected) {
            format!("`{expected}`")
        } else {
            self.expected_for(line, expected, None)
        };
        self.warnings.push(LineIssue {
            line,
            text: text.to_string(),
            problem: problem.into(),
            expected,
            if_it_stands: None,
        });
    }

    /// An example written with the player's own ship (`Lancer` in the templates) and, where
    /// one is on the table, an enemy's (`Anvil`), so that an example never names a ship that
    /// is not in the game or hands a player the enemy's ship as their own. Only ships on the
    /// table or in this player's own mail are named (FOREVER-GM-44).
    fn example(&self, template: &str) -> String {
        let own = self
            .state
            .ships
            .iter()
            .find(|s| s.owner == self.player && !s.destroyed)
            .map(|s| s.name.clone())
            .or_else(|| self.orders.designs.first().map(|d| d.name.clone()));
        let enemy = self
            .state
            .ships
            .iter()
            .find(|s| s.owner != self.player && !s.destroyed)
            .map(|s| s.name.clone());
        let mut out = String::with_capacity(template.len());
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let replaced = match word.as_str() {
                "Lancer" => own.as_deref().unwrap_or("Lancer"),
                "Anvil" => enemy.as_deref().unwrap_or("Anvil"),
                other => other,
            };
            out.push_str(replaced);
            word.clear();
        };
        for c in template.chars() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }

    fn run(&mut self, text: &str) {
        let seated = self
            .state
            .seat(self.player)
            .is_some_and(|s| s.status == SeatStatus::Playing);
        let mut block: Vec<(usize, String)> = Vec::new();
        let mut reader = OrderText::new(text);
        for line in reader.by_ref() {
            let (number, raw, text) = match line {
                Line::Order(order) => (order.number, order.raw, order.text),
                Line::Press(_) => {
                    // Collected by the reader; it ends a design block.
                    if !block.is_empty() {
                        self.design(&std::mem::take(&mut block));
                    }
                    continue;
                }
                // A blank line does not end a design: its CORE and SECTION lines may follow
                // after one (a design ends at the first other line).
                Line::Blank { .. } => continue,
            };
            let Some(line) = clean(text) else {
                continue;
            };
            let keyword = first_word(&line);
            if !block.is_empty() && ["CORE", "SECTION", "END"].contains(&keyword.as_str()) {
                block.push((number, line));
                continue;
            }
            if !block.is_empty() {
                self.design(&std::mem::take(&mut block));
            }
            if !seated {
                self.error(
                    number,
                    raw,
                    "you are not playing in this game (or have resigned)",
                    "PRESS only",
                );
                continue;
            }
            if self.state.phase == Phase::Over {
                self.error(number, raw, "the game is over", "PRESS only");
                continue;
            }
            if keyword == "SHIP" {
                block.push((number, line));
                continue;
            }
            if ["CORE", "SECTION"].contains(&keyword.as_str()) {
                self.error(
                    number,
                    raw,
                    "a CORE or SECTION line belongs under a SHIP line",
                    "SHIP Lancer",
                );
                continue;
            }
            for order in split_orders(&line) {
                self.order(number, raw, &order);
            }
        }
        if !block.is_empty() {
            self.design(&block);
        }
        self.press = reader.into_press();
    }

    fn order(&mut self, line: usize, raw: &str, order: &str) {
        let rewritten = self.ship_first(order);
        let order = rewritten.as_deref().unwrap_or(order);
        let mut cursor = Cursor::new(order);
        let keyword = cursor.next().unwrap_or_default().to_ascii_uppercase();
        let building = self.state.phase == Phase::Building;
        let result = match keyword.as_str() {
            "RESIGN" => {
                self.orders.resign = true;
                self.understood.push("resign".into());
                Ok(())
            }
            "OFFER" | "ACCEPT" | "DRAW" => {
                if keyword == "DRAW" || cursor.peek_is(&["DRAW"]) {
                    self.orders.offer_draw = true;
                    self.understood.push("offer (or accept) a draw".into());
                    Ok(())
                } else {
                    Err(("write OFFER DRAW or ACCEPT DRAW".to_string(), "OFFER DRAW"))
                }
            }
            "DEPLOY" if building => self.deploy(&mut cursor),
            "DEPLOY" => Err(("the fleets are already on the table".into(), MOVE_EXAMPLE)),
            _ if building => Err((
                "the battle has not begun: send SHIP designs and DEPLOY orders".into(),
                "DEPLOY Lancer AT 10, 24 FACING 0",
            )),
            "MOVE" | "MOVE1" | "M1" | "MOVE2" | "M2" | "TOW" | "RELEASE" | "FIRE" | "SHOOT"
            | "BATTERY" | "EMP" | "PULSE" | "NANO" | "HEAL" | "LAUNCH" | "TC" | "COMPUTER"
            | "FLUX" | "DEMETER"
                if let Some(other) = self.not_my_player_turn() =>
            {
                Err((
                    format!(
                        "this turn is {other}'s player-turn: your ships act on your own player-turn, the next turn (FOREVER-GM-02); only DEFLECT, RESIGN, OFFER DRAW and press count now"
                    ),
                    "DEFLECT Lancer.S3 PROTECT ANY",
                ))
            }
            "MOVE" | "MOVE1" | "M1" => self.movement(&mut cursor, true, line, raw),
            "MOVE2" | "M2" => self.movement(&mut cursor, false, line, raw),
            "ROT" | "ROTATE" | "FACE" | "TURN" | "SWIVEL" => Err((
                "facing and swivels go on a MOVE1 or MOVE2 line".into(),
                "MOVE1 Lancer FACE 90 SWIVEL S3 45",
            )),
            "TOW" => self.tow(&mut cursor),
            "RELEASE" => self.release(&mut cursor),
            "FIRE" | "SHOOT" => self.fire(&mut cursor, line, raw),
            "BATTERY" => self.battery(&mut cursor),
            "EMP" | "PULSE" => self.emp(&mut cursor),
            "NANO" | "HEAL" => self.nano(&mut cursor),
            "LAUNCH" => self.launch(&mut cursor),
            "TC" | "COMPUTER" => self.computer(&mut cursor),
            "FLUX" => self.flux(&mut cursor, line, raw),
            "DEMETER" => self.demeter(&mut cursor),
            "DEFLECT" | "DEFLECTOR" => self.deflect(&mut cursor),
            "" => Ok(()),
            other => Err((
                format!("{other} is not an order"),
                "MOVE1, MOVE2, FIRE, BATTERY, EMP, FLUX, NANO, LAUNCH, TC, DEMETER, DEFLECT, TOW, RELEASE, RESIGN, OFFER DRAW, PRESS",
            )),
        };
        if let Err((problem, expected)) = result {
            self.refuse(line, raw, Some(order), problem, expected);
        }
    }

    /// `Ace fires S1 at Bobby.core`, `Ace.S1: fire at …`, `Ace moves to 30, 20`: an order
    /// written after the player's own ship (or weapon), put in the usual order
    /// (`FIRE Ace S1 at …`); `None` when the line does not start so.
    fn ship_first(&self, order: &str) -> Option<String> {
        let mut words = order.split_whitespace();
        let first = words.next()?.trim_end_matches([':', ',']);
        let verb = words
            .next()?
            .trim_end_matches([':', ','])
            .to_ascii_uppercase();
        let ship = first.split(['.', '/']).next().unwrap_or(first);
        let index = self.state.ship_index(ship)?;
        if self.state.ships.get(index)?.owner != self.player {
            return None;
        }
        let keyword = match verb.as_str() {
            "FIRE" | "FIRES" | "SHOOT" | "SHOOTS" | "FIRING" | "SHOOTING" => "FIRE",
            "MOVE" | "MOVES" | "MOVE1" | "M1" => "MOVE1",
            "MOVE2" | "M2" => "MOVE2",
            "LAUNCH" | "LAUNCHES" => "LAUNCH",
            "DEFLECT" | "DEFLECTS" => "DEFLECT",
            "TOW" | "TOWS" => "TOW",
            "RELEASE" | "RELEASES" => "RELEASE",
            "EMP" | "PULSE" | "NANO" | "HEAL" | "TC" | "FLUX" | "BATTERY" => verb.as_str(),
            _ => return None,
        };
        let mut rest: Vec<&str> = words.collect();
        // `Lancer deflects S3 …`: the item named after the verb belongs to the ship (FIRE
        // joins them itself; moves, tows and releases name only the ship).
        let names_an_item = !matches!(
            keyword,
            "FIRE" | "MOVE1" | "MOVE2" | "TOW" | "RELEASE" | "BATTERY"
        );
        let item = rest.first().copied().filter(|w| {
            names_an_item
                && !first.contains('.')
                && !["AT", "PROTECT", "ON", "TO", "BY"]
                    .iter()
                    .any(|k| w.eq_ignore_ascii_case(k))
        });
        let first = match item {
            Some(item) => {
                rest.remove(0);
                format!("{first}.{item}")
            }
            None => first.to_string(),
        };
        Some(
            format!("{keyword} {first} {}", rest.join(" "))
                .trim()
                .to_string(),
        )
    }

    /// With one player-turn per PBEM turn (`turn_mode: alternate`, FOREVER-GM-02), the name
    /// of the player whose player-turn this is, if it is not this player's.
    fn not_my_player_turn(&self) -> Option<String> {
        if self.state.setup.turn_mode != crate::setup::TurnMode::Alternate
            || self.state.phase != Phase::Battle
        {
            return None;
        }
        let seat = self
            .state
            .next_seat
            .min(self.state.seating.len().saturating_sub(1));
        let current = *self.state.seating.get(seat)?;
        (current != self.player).then(|| self.state.player_name(current))
    }

    fn mark_used(&mut self, ship: usize, item: usize, word: &str) -> Result<(), String> {
        if self.used.insert((ship, item)) {
            Ok(())
        } else {
            Err(format!(
                "{word} already has an order this turn: each weapon or module acts once (FOREVER-GM-50)"
            ))
        }
    }

    fn finish(mut self) -> ParsedOrders<Orders> {
        if self.state.phase == Phase::Building
            && !self.orders.designs.is_empty()
            && !self.design_failed
        {
            self.check_fleet();
        }
        if self.state.phase == Phase::Battle {
            for ship in &self.state.ships {
                if ship.owner == self.player
                    && !ship.destroyed
                    && !self.orders.moves.contains_key(&ship.name)
                    && !self
                        .orders
                        .actions
                        .iter()
                        .any(|a| action_ship(a) == ship.name)
                {
                    self.understood
                        .push(format!("{}: no orders (holds)", ship.name));
                }
            }
        }
        ParsedOrders {
            orders: self.orders,
            understood: self.understood,
            press: self.press,
            errors: self.errors,
            warnings: self.warnings,
            chat: Vec::new(),
            orders_read: 0,
        }
    }
}

fn action_ship(action: &Action) -> &str {
    match action {
        Action::Fire { ship, .. }
        | Action::Battery { ship, .. }
        | Action::Emp { ship, .. }
        | Action::Heal { ship, .. }
        | Action::Launch { ship, .. }
        | Action::Computer { ship, .. }
        | Action::Flux { ship, .. } => ship,
    }
}
