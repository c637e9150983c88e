//! Reading orders as people write them in an email: one order per line (or several on a line
//! separated by `;`), case, spacing and most punctuation forgiven, every rejected line
//! explained with a correct example. Never panics: no indexing, every lookup checked.

use std::collections::{BTreeMap, BTreeSet};

use engine::order_text::{Line, OrderLine, OrderText, PressLine};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::fire;
use crate::fleet::deployment_problem;
use crate::geometry::{Angle, Length, Point, Turn, parse_degrees, parse_inches};
use crate::movement::{self, MovePlan, MoveProblem, Walk, pivot_rule};
use crate::orders::{
    Activation, Aim, CmdAction, CmdOrder, DcChoice, Deploy, FireOrder, Orders, PivotSpec, Skip,
    StandingChange, Step, Target, TorpedoOrder,
};
use crate::state::{ActionName, InitiativeChoice, Morale, PivotChoice, Place, State, Unit, UnitId};
use crate::tables::{Class, ModuleKind, WeaponKind, squash};

/// Splits a line into lower-case words: brackets, commas, colons, quotes and equals signs are
/// spaces; `/` stands alone.
fn tokens(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            ',' | '(' | ')' | '{' | '}' | '[' | ']' | ':' | '=' | '"' | '\'' | '!' | '?' | '`'
            | '\u{201c}' | '\u{201d}' | '\u{2019}' => spaced.push(' '),
            '/' => spaced.push_str(" / "),
            '\u{2212}' | '\u{2013}' => spaced.push('-'),
            c if c.is_control() => spaced.push(' '),
            c => spaced.extend(c.to_lowercase()),
        }
    }
    spaced.split_whitespace().map(str::to_string).collect()
}

/// Words that only make an order read naturally.
const FILLER: &[&str] = &[
    "the", "please", "then", "and", "to", "with", "its", "her", "his",
];

/// One block of orders for a unit, with where it was written (for late checks).
struct Block {
    line: usize,
    text: String,
    move_line: Option<(usize, String)>,
}

struct Parser<'s> {
    /// The battle as the turn's activations will find it: after Stall (SKY-KW-STALL), which
    /// the turn applies before anyone moves or fires. Moves and previews are checked on this.
    state: &'s State,
    /// The battle as it stands, before Stall: deployment (turn 1) comes first.
    before: &'s State,
    side: u8,
    orders: Orders,
    blocks: Vec<Block>,
    current: Option<usize>,
    understood: Vec<String>,
    press: Vec<String>,
    errors: Vec<LineIssue>,
    warnings: Vec<LineIssue>,
    /// Named actions ordered per beneficiary (SKY-CMD-02).
    named: BTreeSet<(UnitId, ActionName)>,
    /// CMD planned per default payer.
    planned: BTreeMap<UnitId, u32>,
    /// "As things stand" fire warnings per activation, kept only if the unit does not move.
    fire_warnings: Vec<(usize, LineIssue)>,
    example_ship: String,
    example_enemy: String,
}

/// Parses one player's order text.
pub fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let Some(side) = state.side_of(player) else {
        let errors = OrderText::new(text)
            .filter_map(|line| match line {
                Line::Order(OrderLine { number, raw, .. })
                | Line::Press(PressLine { number, raw, .. }) => Some((number, raw)),
                Line::Blank { .. } => None,
            })
            .map(|(line, raw)| LineIssue {
                line,
                text: raw.to_string(),
                problem: "you command no fleet in this battle".into(),
                expected: "orders from one of the battle's two players".into(),
                if_it_stands: None,
            })
            .collect();
        return ParsedOrders {
            orders: Orders::default(),
            understood: Vec::new(),
            press: Vec::new(),
            errors,
            warnings: Vec::new(),
        };
    };
    // Examples name this battle's own ships: the writer's, and the enemy's in play.
    let name_of = |mine: bool| {
        state
            .units
            .iter()
            .filter(|u| (u.side == side) == mine && u.is_ship())
            .find(|u| u.in_play())
            .or_else(|| {
                state
                    .units
                    .iter()
                    .find(|u| (u.side == side) == mine && u.is_ship())
            })
            .map(|u| u.name.clone())
            .unwrap_or_else(|| if mine { "your ship" } else { "NEAREST" }.into())
    };
    let projected = state.after_stall();
    let mut parser = Parser {
        state: &projected,
        before: state,
        side,
        orders: Orders::default(),
        blocks: Vec::new(),
        current: None,
        understood: Vec::new(),
        press: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        named: BTreeSet::new(),
        planned: BTreeMap::new(),
        fire_warnings: Vec::new(),
        example_ship: name_of(true),
        example_enemy: name_of(false),
    };
    let mut reader = OrderText::new(text);
    for line in reader.by_ref() {
        let Line::Order(order) = line else {
            continue; // press is collected by the reader
        };
        for piece in order.text.split(';') {
            let words = tokens(piece);
            if words.is_empty() {
                continue;
            }
            parser.order(order.number, order.raw, &words);
        }
    }
    parser.press = reader.into_press();
    parser.finish();
    ParsedOrders {
        orders: parser.orders,
        understood: parser.understood,
        press: parser.press,
        errors: parser.errors,
        warnings: parser.warnings,
    }
}

fn number(word: &str) -> Option<u32> {
    word.trim_start_matches('+').parse().ok()
}

fn is(word: Option<&String>, options: &[&str]) -> bool {
    word.is_some_and(|w| options.contains(&w.as_str()))
}

impl Parser<'_> {
    fn error(
        &mut self,
        line: usize,
        text: &str,
        problem: impl Into<String>,
        expected: impl Into<String>,
    ) {
        self.errors.push(LineIssue {
            line,
            text: text.to_string(),
            problem: problem.into(),
            expected: expected.into(),
            if_it_stands: None,
        });
    }

    fn warn(
        &mut self,
        line: usize,
        text: &str,
        problem: impl Into<String>,
        expected: impl Into<String>,
    ) {
        self.warnings.push(LineIssue {
            line,
            text: text.to_string(),
            problem: problem.into(),
            expected: expected.into(),
            if_it_stands: None,
        });
    }

    fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.state.unit(id)
    }

    fn name(&self, id: UnitId) -> String {
        self.unit(id).map(|u| u.name.clone()).unwrap_or_default()
    }

    /// The unit named at the start of `words`, and how many words the name took: the
    /// longest run of words that is exactly a unit's name as written ("The Ram", "Her
    /// Majesty"), else the same after leading filler words ("the Tempest"), else a unique start
    /// of a name (SKY-GM-14). Only units this player may know of are found: the enemy's wings
    /// still aboard read exactly as made-up names (SKY-ADM-09).
    fn take_unit(&self, words: &[String]) -> Option<(UnitId, usize)> {
        if let Some(found) = self.exact_unit(words) {
            return Some(found);
        }
        let lead = words
            .iter()
            .take_while(|w| FILLER.contains(&w.as_str()))
            .count();
        let after_filler = words.get(lead..).unwrap_or(&[]);
        if lead > 0
            && let Some((id, used)) = self.exact_unit(after_filler)
        {
            return Some((id, lead + used));
        }
        let mut starts = vec![(lead, after_filler.first())];
        if lead > 0 {
            starts.push((0, words.first()));
        }
        starts.into_iter().find_map(|(skipped, first)| {
            let first = first?;
            if squash(first).len() < 2 {
                return None;
            }
            self.state
                .find_unit_for(self.side, first)
                .map(|id| (id, skipped + 1))
        })
    }

    /// The unit named by all of `words` (FIRE targets): as written, else without filler words.
    fn whole_unit(&self, words: &[String]) -> Option<UnitId> {
        if let Some((id, used)) = self.take_unit(words)
            && used == words.len()
        {
            return Some(id);
        }
        let plain: Vec<String> = words
            .iter()
            .filter(|w| !FILLER.contains(&w.as_str()))
            .cloned()
            .collect();
        match self.take_unit(&plain) {
            Some((id, used)) if used == plain.len() && !plain.is_empty() => Some(id),
            _ => None,
        }
    }

    /// The longest run of words at the start that is exactly the name of a unit this player
    /// may know of (SKY-ADM-09).
    fn exact_unit(&self, words: &[String]) -> Option<(UnitId, usize)> {
        let longest = words.len().min(6);
        for count in (1..=longest).rev() {
            let Some(run) = words.get(..count) else {
                continue;
            };
            let key = squash(&run.concat());
            if key.is_empty() {
                continue;
            }
            if let Some(unit) = self
                .state
                .units
                .iter()
                .find(|u| u.known_to(self.side) && squash(&u.name) == key)
            {
                return Some((unit.id, count));
            }
        }
        None
    }

    /// Another of this player's ships in play to name in a `FROM` hint, else the unit itself.
    fn friend_of(&self, unit: &Unit) -> String {
        self.state
            .units
            .iter()
            .filter(|u| u.side == self.side && u.is_ship() && u.in_play() && u.id != unit.id)
            .min_by_key(|u| (crate::geometry::distance_squared(u.at, unit.at), u.id))
            .map(|u| u.name.clone())
            .unwrap_or_else(|| unit.name.clone())
    }

    fn own(&self, id: UnitId) -> bool {
        self.unit(id).is_some_and(|u| u.side == self.side)
    }

    fn order(&mut self, line: usize, raw: &str, words: &[String]) {
        let Some((head, rest)) = words.split_first() else {
            return;
        };
        match head.as_str() {
            "initiative" | "init" => self.initiative(line, raw, rest),
            "deploy" | "deployment" | "place" => self.deploy(line, raw, rest),
            "activate" | "activation" | "act" | "unit" => self.activate(line, raw, rest),
            "standing" | "stand" | "reaction" | "reactions" => self.standing(line, raw, rest),
            "torpedo" | "torp" | "torpedoes" if !self.block_word(rest) => {
                self.torpedo(line, raw, words)
            }
            "order" | "orders" => {}
            // A unit's exact name wins over an order word ("Ahead: hold fire").
            _ if self.exact_unit(words).is_some() => {
                if let Some((id, used)) = self.exact_unit(words) {
                    let rest = words.get(used..).unwrap_or(&[]);
                    self.open_block(line, raw, id, rest);
                }
            }
            _ if block_keyword(head) => match self.current {
                Some(index) => self.block_order(line, raw, index, words),
                None => self.error(
                    line,
                    raw,
                    "which unit is this for? Start its orders with ACTIVATE and its name",
                    format!("ACTIVATE {}: {}", self.example_ship, raw.trim()),
                ),
            },
            _ => match self.take_unit(words) {
                Some((id, used)) => {
                    let rest = words.get(used..).unwrap_or(&[]);
                    self.open_block(line, raw, id, rest);
                }
                None => self.error(
                    line,
                    raw,
                    format!("\"{head}\" is not an order or one of the battle's units"),
                    format!(
                        "ACTIVATE {ship}; MOVE F 3 P +45 F 4; FIRE ALL AT {enemy} / NEAREST",
                        ship = self.example_ship,
                        enemy = self.example_enemy
                    ),
                ),
            },
        }
    }

    /// `TORPEDO #2 ...` is a torpedo's program; `torpedo` inside a block would be a launch.
    fn block_word(&self, rest: &[String]) -> bool {
        rest.first().is_some_and(|w| w == "launch")
    }

    fn initiative(&mut self, line: usize, raw: &str, rest: &[String]) {
        let choice = match rest.first().map(String::as_str) {
            Some("first" | "1st" | "1") => InitiativeChoice::First,
            Some("second" | "2nd" | "2" | "last") => InitiativeChoice::Second,
            _ => {
                self.error(
                    line,
                    raw,
                    "say FIRST or SECOND: who activates first if you win initiative",
                    "INITIATIVE FIRST",
                );
                return;
            }
        };
        self.orders.initiative = Some(choice);
        self.understood.push(format!(
            "if you win initiative, you activate {} (SKY-GM-15)",
            match choice {
                InitiativeChoice::First => "first",
                InitiativeChoice::Second => "second",
            }
        ));
    }

    fn deploy(&mut self, line: usize, raw: &str, rest: &[String]) {
        let example = format!("DEPLOY {} AT 6,24 HEADING 90 ELEV 4", self.example_ship);
        if self.state.turn != 1 {
            self.error(
                line,
                raw,
                "deployment is over: DEPLOY is for turn 1 only",
                "MOVE F 3",
            );
            return;
        }
        let Some((id, used)) = self.take_unit(rest) else {
            self.error(line, raw, "which ship? name one of yours", example);
            return;
        };
        if !self.own(id) || !self.unit(id).is_some_and(Unit::is_ship) {
            self.error(
                line,
                raw,
                format!("{} is not one of your ships", self.name(id)),
                example,
            );
            return;
        }
        let words: Vec<&str> = rest
            .get(used..)
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .filter(|w| !FILLER.contains(w))
            .collect();
        let mut at = None;
        let mut heading = None;
        let mut elevation = None;
        let mut index = 0;
        while let Some(word) = words.get(index) {
            match *word {
                "at" => {
                    let x = words.get(index + 1).and_then(|w| parse_inches(w));
                    let y = words.get(index + 2).and_then(|w| parse_inches(w));
                    match (x, y) {
                        (Some(x), Some(y)) => at = Some(Point::new(x, y)),
                        _ => {
                            self.error(
                                line,
                                raw,
                                "AT needs two numbers, x and y in inches",
                                example,
                            );
                            return;
                        }
                    }
                    index += 3;
                }
                "heading" | "hdg" | "facing" | "face" | "bearing" => {
                    match words.get(index + 1).and_then(|w| parse_degrees(w)) {
                        Some(half) => heading = Some(Angle::from_half_degrees(i64::from(half))),
                        None => {
                            self.error(line, raw, "HEADING needs degrees, such as 90", example);
                            return;
                        }
                    }
                    index += 2;
                }
                "elev" | "elevation" | "e" | "height" | "alt" | "altitude" | "level" => {
                    match words.get(index + 1).and_then(|w| number(w)) {
                        Some(n) if n <= 255 => elevation = Some(n as u8),
                        _ => {
                            self.error(line, raw, "ELEV needs a whole number, such as 4", example);
                            return;
                        }
                    }
                    index += 2;
                }
                other => {
                    // "DEPLOY Valiant 6, 24": the co-ordinates without AT.
                    if at.is_none()
                        && let (Some(x), Some(y)) = (
                            parse_inches(other),
                            words.get(index + 1).and_then(|w| parse_inches(w)),
                        )
                    {
                        at = Some(Point::new(x, y));
                        index += 2;
                        continue;
                    }
                    if let Some(n) = other
                        .strip_prefix('e')
                        .and_then(number)
                        .filter(|n| *n <= 255)
                    {
                        elevation = Some(n as u8);
                        index += 1;
                        continue;
                    }
                    self.error(
                        line,
                        raw,
                        format!("\"{other}\" is not part of a DEPLOY order"),
                        example,
                    );
                    return;
                }
            }
        }
        let Some(at) = at else {
            self.error(line, raw, "say where: AT x,y", example);
            return;
        };
        // Deployment comes before the turn's Stall.
        let Some(unit) = self.before.unit(id) else {
            return;
        };
        let mut placed = unit.clone();
        placed.at = at;
        placed.heading = heading.unwrap_or(unit.heading);
        placed.elevation = elevation.unwrap_or(unit.elevation);
        let Some(side) = self.state.side(self.side) else {
            return;
        };
        if let Some(problem) = deployment_problem(
            &self.state.rules,
            &self.state.terrain,
            side.edge,
            &side.name,
            &placed,
        ) {
            self.error(line, raw, problem.to_string(), example);
            return;
        }
        self.orders.deploy.retain(|d| d.unit != id);
        self.orders.deploy.push(Deploy {
            unit: id,
            at,
            heading,
            elevation,
        });
        self.understood.push(format!(
            "{} deploys at {} {}° e{}",
            placed.name,
            at.display(),
            placed.heading.display(),
            placed.elevation
        ));
    }

    fn activate(&mut self, line: usize, raw: &str, rest: &[String]) {
        match self.take_unit(rest) {
            Some((id, used)) => {
                let more = rest.get(used..).unwrap_or(&[]);
                self.open_block(line, raw, id, more);
            }
            None => self.error(
                line,
                raw,
                "which unit? name one of your ships or wings",
                format!("ACTIVATE {}", self.example_ship),
            ),
        }
    }

    /// Starts (or returns to) a unit's activation and reads any orders after its name.
    fn open_block(&mut self, line: usize, raw: &str, id: UnitId, rest: &[String]) {
        let Some(unit) = self.unit(id).cloned() else {
            return;
        };
        if unit.side != self.side {
            self.current = None;
            self.error(
                line,
                raw,
                format!("{} is not one of yours", unit.name),
                format!("ACTIVATE {}", self.example_ship),
            );
            return;
        }
        if unit.class == Class::Torpedo {
            self.torpedo(
                line,
                raw,
                &[vec!["torpedo".to_string()], rest.to_vec()].concat(),
            );
            return;
        }
        if !unit.in_play() {
            self.current = None;
            let why = match unit.place {
                Place::Aboard => {
                    "is still aboard its carrier: launch it with CMD LAUNCHWING first (it flies from the next turn)"
                }
                _ => "is no longer in play",
            };
            self.error(
                line,
                raw,
                format!("{} {why}", unit.name),
                format!("ACTIVATE {}", self.example_ship),
            );
            return;
        }
        let index = match self.orders.activations.iter().position(|a| a.unit == id) {
            Some(index) => index,
            None => {
                self.orders.activations.push(Activation::hold(id));
                self.blocks.push(Block {
                    line,
                    text: raw.to_string(),
                    move_line: None,
                });
                self.understood.push(format!(
                    "{} activates {} in your list",
                    unit.label(),
                    ordinal(self.orders.activations.len())
                ));
                if unit.status.panic_turn == Some(self.state.turn) {
                    self.warn(
                        line,
                        raw,
                        format!(
                            "{} is Panicked and may not activate this turn (SKY-CRIT-7)",
                            unit.name
                        ),
                        "orders for another unit",
                    );
                }
                self.orders.activations.len() - 1
            }
        };
        self.current = Some(index);
        let rest: Vec<String> = rest
            .iter()
            .filter(|w| !matches!(w.as_str(), "activates" | "activate" | "-"))
            .cloned()
            .collect();
        if !rest.is_empty() {
            if block_keyword(rest.first().map(String::as_str).unwrap_or("")) {
                self.block_order(line, raw, index, &rest);
            } else {
                self.error(
                    line,
                    raw,
                    format!("\"{}\" is not an order for {}", rest.join(" "), unit.name),
                    format!("{}: MOVE F 3; FIRE ALL AT NEAREST", unit.name),
                );
            }
        }
    }

    fn block_order(&mut self, line: usize, raw: &str, index: usize, words: &[String]) {
        let Some(unit) = self
            .orders
            .activations
            .get(index)
            .and_then(|a| self.unit(a.unit))
            .cloned()
        else {
            return;
        };
        let Some((head, rest)) = words.split_first() else {
            return;
        };
        match head.as_str() {
            "move" | "moves" | "mv" | "movement" | "fly" | "steer" => {
                self.movement(line, raw, index, &unit, rest)
            }
            "hold" | "stay" | "halt" if is(rest.first(), &["fire"]) => {
                self.set(index, |a| a.hold_fire = true);
                self.understood.push(format!(
                    "{}: weapons without FIRE orders stay silent",
                    unit.name
                ));
            }
            "hold" | "stay" | "halt" => {
                self.set(index, |a| a.steps.clear());
                self.understood
                    .push(format!("{} holds position", unit.name));
            }
            "fire" | "shoot" | "fires" | "attack" | "engage" => {
                self.fire(line, raw, index, &unit, rest)
            }
            "dc" | "damage" | "repair" | "repairs" if !is(rest.first(), &["skip"]) => {
                self.dc(line, raw, index, &unit, rest)
            }
            "cmd" | "command" => self.command(line, raw, index, &unit, rest),
            _ if step_word(head) => self.movement(line, raw, index, &unit, words),
            _ => self.command(line, raw, index, &unit, words),
        }
    }

    fn set(&mut self, index: usize, change: impl FnOnce(&mut Activation)) {
        if let Some(activation) = self.orders.activations.get_mut(index) {
            change(activation);
        }
    }

    fn movement(&mut self, line: usize, raw: &str, index: usize, unit: &Unit, words: &[String]) {
        let example = match unit.class {
            Class::Wing => format!("MOVE F 6 TOWARD {} F 9 CLIMB 2", self.example_enemy),
            _ => "MOVE F 3 P +45 F 4 CLIMB 1".to_string(),
        };
        let mut steps = Vec::new();
        let mut brakes = false;
        let mut index_word = 0;
        // Filler words are skipped where a step or its number is read, never inside a name
        // after TOWARD ("TOWARD The Ram", SKY-GM-14).
        let words: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| *w != ",")
            .collect();
        while let Some(word) = words.get(index_word) {
            if FILLER.contains(word) {
                index_word += 1;
                continue;
            }
            let skipped = words
                .get(index_word + 1..)
                .unwrap_or(&[])
                .iter()
                .take_while(|w| FILLER.contains(*w))
                .count();
            let next = words.get(index_word + 1 + skipped).copied();
            let (kind, glued) = split_glued(word);
            let (argument, width) = match glued {
                Some(value) => (Some(value), 1),
                None => (next.map(str::to_string), 2 + skipped),
            };
            match kind.as_str() {
                "hold" | "none" | "nothing" | "stay" => {
                    index_word += 1;
                }
                "divebrakes" | "brakes" | "brake" => {
                    brakes = true;
                    index_word += 1;
                }
                "dive" if next == Some("brakes") => {
                    brakes = true;
                    index_word += 2 + skipped;
                }
                "f" | "fwd" | "forward" | "forwards" | "ahead" | "straight" => {
                    match argument.as_deref().and_then(parse_inches) {
                        Some(distance) if distance >= Length::ZERO => {
                            steps.push(Step::Forward(distance))
                        }
                        _ => {
                            self.error(
                                line,
                                raw,
                                format!("{kind} needs a distance in inches"),
                                example,
                            );
                            return;
                        }
                    }
                    index_word += width;
                }
                "p" | "pivot" | "turn" | "rotate" | "l" | "left" | "port" | "r" | "right"
                | "starboard" | "stbd" => {
                    let Some(half) = argument.as_deref().and_then(parse_degrees) else {
                        self.error(
                            line,
                            raw,
                            format!("{kind} needs degrees, such as +45 or -22.5"),
                            example,
                        );
                        return;
                    };
                    let signed = match kind.as_str() {
                        "l" | "left" | "port" => -half.abs(),
                        "r" | "right" | "starboard" | "stbd" => half.abs(),
                        _ => half,
                    };
                    steps.push(Step::Pivot(Turn(signed)));
                    index_word += width;
                }
                "climb" | "up" | "rise" | "ascend" | "c" => {
                    match argument.as_deref().and_then(number).filter(|n| *n <= 255) {
                        Some(n) => steps.push(Step::Climb(n as u8)),
                        None => {
                            self.error(line, raw, "CLIMB needs a number of levels", example);
                            return;
                        }
                    }
                    index_word += width;
                }
                "dive" | "down" | "descend" | "drop" | "d" => {
                    match argument.as_deref().and_then(number).filter(|n| *n <= 255) {
                        Some(n) => steps.push(Step::Dive(n as u8)),
                        None => {
                            self.error(line, raw, "DIVE needs a number of levels", example);
                            return;
                        }
                    }
                    index_word += width;
                }
                "toward" | "towards" | "face" | "facing" => {
                    let rest: Vec<String> = words
                        .get(index_word + 1..)
                        .unwrap_or(&[])
                        .iter()
                        .map(|w| w.to_string())
                        .collect();
                    match self.aim(&rest) {
                        Some((aim, used)) => {
                            steps.push(Step::Toward(aim));
                            index_word += 1 + used;
                        }
                        None => {
                            self.error(
                                line,
                                raw,
                                "TOWARD needs a unit's name or a point x,y",
                                example,
                            );
                            return;
                        }
                    }
                }
                other => {
                    self.error(
                        line,
                        raw,
                        format!("\"{other}\" is not a movement step"),
                        example,
                    );
                    return;
                }
            }
        }
        let described = describe_steps(self.state, &steps, brakes);
        self.set(index, |a| {
            a.steps = steps;
            a.dive_brakes = brakes;
        });
        if let Some(block) = self.blocks.get_mut(index) {
            block.move_line = Some((line, raw.to_string()));
        }
        self.understood
            .push(format!("{} moves {described}", unit.name));
    }

    /// A unit or a point to face; returns it and how many words it used.
    fn aim(&self, words: &[String]) -> Option<(Aim, usize)> {
        if let (Some(x), Some(y)) = (
            words.first().and_then(|w| parse_inches(w)),
            words.get(1).and_then(|w| parse_inches(w)),
        ) {
            return Some((Aim::Point(Point::new(x, y)), 2));
        }
        let (id, used) = self.take_unit(words)?;
        Some((Aim::Unit(id), used))
    }

    fn fire(&mut self, line: usize, raw: &str, index: usize, unit: &Unit, rest: &[String]) {
        let example = format!("FIRE ALL AT {} / NEAREST", self.example_enemy);
        let at = rest
            .iter()
            .position(|w| w == "at" || w == "on" || w == "vs");
        let (weapon_words, target_words) = match at {
            Some(at) => (
                rest.get(..at).unwrap_or(&[]),
                rest.get(at + 1..).unwrap_or(&[]),
            ),
            None => (rest, &[][..]),
        };
        let weapons = match self.weapons_of(unit, weapon_words) {
            Ok(weapons) => weapons,
            Err(problem) => {
                self.error(line, raw, problem, example);
                return;
            }
        };
        if target_words.is_empty() {
            self.error(
                line,
                raw,
                "say what to fire at: AT a unit, or AT NEAREST",
                example,
            );
            return;
        }
        let mut targets = Vec::new();
        for part in
            target_words.split(|w| matches!(w.as_str(), "/" | "or" | "else" | "then" | "otherwise"))
        {
            let plain: Vec<&String> = part
                .iter()
                .filter(|w| !FILLER.contains(&w.as_str()))
                .collect();
            if plain.is_empty() {
                continue;
            }
            // A unit's name as written comes first ("The Ram"), then the fallback words.
            let named = self
                .exact_unit(part)
                .filter(|(_, used)| *used == part.len());
            if named.is_none()
                && is(
                    plain.first().copied(),
                    &[
                        "nearest", "closest", "any", "anything", "anyone", "whatever",
                    ],
                )
            {
                targets.push(Target::Nearest);
                continue;
            }
            match named.map(|(id, _)| id).or_else(|| self.whole_unit(part)) {
                Some(id) => {
                    if self.own(id) {
                        self.error(
                            line,
                            raw,
                            format!("{} is one of yours", self.name(id)),
                            example,
                        );
                        return;
                    }
                    targets.push(Target::Unit(id));
                }
                None => {
                    let written: Vec<&str> = plain.iter().map(|w| w.as_str()).collect();
                    self.error(
                        line,
                        raw,
                        format!("\"{}\" is not a unit in this battle", written.join(" ")),
                        example,
                    );
                    return;
                }
            }
        }
        if targets.is_empty() {
            self.error(
                line,
                raw,
                "say what to fire at: AT a unit, or AT NEAREST",
                example,
            );
            return;
        }
        // The first target as things stand: refusals that cannot change are errors,
        // the rest warnings (positions change before the unit fires).
        let mut words = Vec::new();
        for slot in &weapons {
            let Some(weapon) = unit.weapons.iter().find(|w| &w.slot == slot) else {
                continue;
            };
            if let Some(Target::Unit(first)) = targets.first()
                && let Some(target) = self.unit(*first).cloned()
            {
                match fire::assess(self.state, unit, weapon, &target, false, false) {
                    Ok(shot) => words.push(format!(
                        "{} ({}) at {} (range {}\", {}+ now)",
                        weapon.kind.name(),
                        weapon.slot,
                        target.name,
                        shot.range.display(),
                        shot.skill
                    )),
                    Err(fire::Refusal::Ultralight) => {
                        self.error(
                            line,
                            raw,
                            format!(
                                "the {} cannot target Ultralights such as {}",
                                weapon.kind.name(),
                                target.name
                            ),
                            example,
                        );
                        return;
                    }
                    Err(refusal) => {
                        self.fire_warnings.push((
                            index,
                            LineIssue {
                                line,
                                text: raw.to_string(),
                                problem: format!(
                                    "as things stand: {}",
                                    refusal.describe(&target.name, weapon.kind.name())
                                ),
                                expected: format!(
                                    "FIRE {} AT {} / NEAREST",
                                    weapon.slot, target.name
                                ),
                                if_it_stands: None,
                            },
                        ));
                        words.push(format!(
                            "{} ({}) at {}",
                            weapon.kind.name(),
                            weapon.slot,
                            target.name
                        ));
                    }
                }
            } else {
                words.push(format!(
                    "{} ({}) at the nearest legal target",
                    weapon.kind.name(),
                    weapon.slot
                ));
            }
        }
        let fallbacks: Vec<String> = targets
            .iter()
            .skip(1)
            .map(|t| match t {
                Target::Unit(id) => self.name(*id),
                Target::Nearest => "the nearest".into(),
            })
            .collect();
        let mut text = format!("{} fires {}", unit.name, words.join(", "));
        if !fallbacks.is_empty() {
            text.push_str(&format!(", else {}", fallbacks.join(", else ")));
        }
        self.understood.push(text);
        self.set(index, |a| a.fire.push(FireOrder { weapons, targets }));
    }

    /// The weapon slots a FIRE or TARGETLOCK names: ALL, slot labels, or weapon names.
    fn weapons_of(&self, unit: &Unit, words: &[String]) -> Result<Vec<String>, String> {
        let usable: Vec<&crate::state::Weapon> = unit
            .weapons
            .iter()
            .filter(|w| !w.kind.stats().torpedo)
            .collect();
        let listing = || {
            unit.weapons
                .iter()
                .map(|w| format!("{} ({})", w.slot, w.kind.name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let words: Vec<&String> = words
            .iter()
            .filter(|w| !matches!(w.as_str(), "with" | "the" | "weapons" | "guns"))
            .collect();
        if words.is_empty()
            || words
                .iter()
                .any(|w| matches!(w.as_str(), "all" | "everything"))
        {
            if usable.is_empty() {
                return Err(format!("{} has no weapons that shoot", unit.name));
            }
            return Ok(usable.iter().map(|w| w.slot.clone()).collect());
        }
        let mut slots = Vec::new();
        let joined: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        for part in joined.split(|w| matches!(w.as_str(), "and" | "&" | "+" | "/")) {
            let key = squash(&part.concat());
            if key.is_empty() {
                continue;
            }
            let by_slot: Vec<String> = unit
                .weapons
                .iter()
                .filter(|w| {
                    w.slot == key || unit.class.slot(&key).is_some_and(|s| s.label == w.slot)
                })
                .map(|w| w.slot.clone())
                .collect();
            let by_kind: Vec<String> = match WeaponKind::parse(&key) {
                Some(kind) => unit
                    .weapons
                    .iter()
                    .filter(|w| w.kind == kind)
                    .map(|w| w.slot.clone())
                    .collect(),
                None => unit
                    .weapons
                    .iter()
                    .filter(|w| squash(w.kind.name()).starts_with(&key) && key.len() >= 3)
                    .map(|w| w.slot.clone())
                    .collect(),
            };
            // "port" on a Gunship is a slot; "port" on a Capital is both port slots.
            let port_pair: Vec<String> = unit
                .weapons
                .iter()
                .filter(|w| {
                    (key == "port" && w.slot.starts_with("port"))
                        || ((key == "stbd" || key == "starboard") && w.slot.starts_with("stbd"))
                })
                .map(|w| w.slot.clone())
                .collect();
            let found = if !port_pair.is_empty() {
                port_pair
            } else if !by_slot.is_empty() {
                by_slot
            } else {
                by_kind
            };
            if found.is_empty() {
                return Err(format!(
                    "{} has no weapon \"{}\" (it has: {})",
                    unit.name,
                    part.join(" "),
                    listing()
                ));
            }
            for slot in found {
                let launcher = unit
                    .weapons
                    .iter()
                    .any(|w| w.slot == slot && w.kind.stats().torpedo);
                if launcher {
                    return Err("the Torpedo Launcher only launches torpedoes: CMD LAUNCHTORPEDO (SKY-GM-10)".into());
                }
                if !slots.contains(&slot) {
                    slots.push(slot);
                }
            }
        }
        if slots.is_empty() {
            return Err(format!("which weapons? {} has: {}", unit.name, listing()));
        }
        Ok(slots)
    }

    fn dc(&mut self, line: usize, raw: &str, index: usize, unit: &Unit, rest: &[String]) {
        let example = "DC PRIORITY ONFIRE, BROKEN, RUDDER, REPAIR";
        if !unit.is_ship() {
            self.error(
                line,
                raw,
                "wings have no damage control",
                "FIRE ALL AT NEAREST",
            );
            return;
        }
        let mut list = Vec::new();
        for word in rest
            .iter()
            .filter(|w| !matches!(w.as_str(), "priority" | "control" | "order" | "first"))
        {
            let choice = match squash(word).as_str() {
                "broken" => DcChoice::Broken,
                "onfire" | "fire" | "fires" => DcChoice::OnFire,
                "weaponsdown" | "weapons" => DcChoice::WeaponsDown,
                "utilitiesdown" | "utilities" => DcChoice::UtilitiesDown,
                "rudder" | "rudderloss" => DcChoice::RudderLoss,
                "speed" | "speedloss" => DcChoice::SpeedLoss,
                "jam" | "weaponjam" | "jammed" => DcChoice::WeaponJam,
                "utility" | "utilityfailure" => DcChoice::UtilityFailure,
                "crew" | "crewcasualties" | "casualties" => DcChoice::CrewCasualties,
                "panic" => DcChoice::Panic,
                "repair" | "repairs" | "hull" => DcChoice::Repair,
                "on" | "down" | "loss" | "failure" => continue,
                other => {
                    self.error(
                        line,
                        raw,
                        format!("\"{other}\" is not something damage control can do"),
                        example,
                    );
                    return;
                }
            };
            if !list.contains(&choice) {
                list.push(choice);
            }
        }
        if list.is_empty() {
            self.error(
                line,
                raw,
                "list what damage control should do first",
                example,
            );
            return;
        }
        let words: Vec<&str> = list.iter().map(|c| c.name()).collect();
        self.understood.push(format!(
            "{}: damage control {}",
            unit.name,
            words.join(", then ")
        ));
        self.set(index, |a| a.dc_priority = Some(list));
    }

    fn command(&mut self, line: usize, raw: &str, index: usize, unit: &Unit, rest: &[String]) {
        // The hints name this battle's ships and this unit's weapons.
        let lock_slot = unit
            .weapons
            .iter()
            .find(|w| !w.kind.stats().torpedo)
            .map(|w| w.slot.clone())
            .unwrap_or_else(|| "fwd".into());
        let example = format!(
            "CMD FULLAHEAD | HARDAROUND P -45 | TARGETLOCK {lock_slot} | RALLY {} | BRACE | EMERGENCY SKIP MOVE | LAUNCHTORPEDO | LAUNCHWING | COMPRESSEDGAS",
            self.example_ship
        );
        let from_example = format!("CMD FULLAHEAD FROM {}", self.friend_of(unit));
        // `FROM <ship>` names the payer (SKY-CMD-01).
        let (words, payer) = match rest.iter().position(|w| w == "from") {
            Some(at) => {
                let payer_words = rest.get(at + 1..).unwrap_or(&[]);
                match self.take_unit(payer_words) {
                    Some((id, _)) if self.own(id) && self.unit(id).is_some_and(Unit::is_ship) => {
                        (rest.get(..at).unwrap_or(&[]), Some(id))
                    }
                    _ => {
                        self.error(
                            line,
                            raw,
                            "FROM needs one of your ships, which pays the CMD",
                            from_example,
                        );
                        return;
                    }
                }
            }
            None => (rest, None),
        };
        let Some(first) = words.first() else {
            self.error(line, raw, "which CMD action?", example.clone());
            return;
        };
        let two = squash(&words.iter().take(2).cloned().collect::<Vec<_>>().concat());
        let one = squash(first);
        let (action, used) = match (one.as_str(), two.as_str()) {
            (_, "fullahead") => ("fullahead", 2),
            (_, "hardaround") => ("hardaround", 2),
            (_, "targetlock") => ("targetlock", 2),
            (_, "launchtorpedo" | "launchtorp" | "launchtorpedoes") => ("launchtorpedo", 2),
            (_, "launchwing") => ("launchwing", 2),
            (_, "compressedgas") => ("gas", 2),
            (_, "emergencyrepairs" | "emergencyrepair") => ("emergency", 2),
            ("fullahead" | "full", _) => ("fullahead", 1),
            ("hardaround", _) => ("hardaround", 1),
            ("targetlock" | "lock", _) => ("targetlock", 1),
            ("launchtorpedo", _) => ("launchtorpedo", 1),
            ("launchwing", _) => ("launchwing", 1),
            ("compressedgas" | "gas", _) => ("gas", 1),
            ("emergency" | "emergencyrepairs", _) => ("emergency", 1),
            ("brace", _) => ("brace", 1),
            ("rally", _) => ("rally", 1),
            _ => {
                self.error(
                    line,
                    raw,
                    format!("\"{}\" is not an order or a CMD action", words.join(" ")),
                    example.clone(),
                );
                return;
            }
        };
        let args: Vec<String> = words.get(used..).unwrap_or(&[]).to_vec();
        if !unit.is_ship() {
            self.error(
                line,
                raw,
                format!(
                    "{} is a wing: wings have no CMD and receive no CMD actions (SKY-GM-19)",
                    unit.name
                ),
                "FIRE ALL AT NEAREST",
            );
            return;
        }
        let (cmd, name, beneficiary) = match action {
            "fullahead" => (CmdAction::FullAhead, ActionName::FullAhead, unit.id),
            "brace" => (CmdAction::Brace, ActionName::Brace, unit.id),
            "gas" => {
                if !unit.has_working(ModuleKind::CompressedGas) {
                    self.error(
                        line,
                        raw,
                        format!("{} has no working Compressed Gas", unit.name),
                        "CMD FULLAHEAD",
                    );
                    return;
                }
                (CmdAction::CompressedGas, ActionName::CompressedGas, unit.id)
            }
            "emergency" => {
                let skip = if args
                    .iter()
                    .any(|w| matches!(w.as_str(), "move" | "moving" | "movement"))
                {
                    Skip::Move
                } else if args
                    .iter()
                    .any(|w| matches!(w.as_str(), "shoot" | "shooting" | "fire" | "firing"))
                {
                    Skip::Shoot
                } else {
                    self.error(
                        line,
                        raw,
                        "Emergency Repairs gives up moving or shooting: say which",
                        "CMD EMERGENCY SKIP SHOOT",
                    );
                    return;
                };
                // SKY-MOR-06: a Broken ship must fly at full speed for the nearest edge, so it
                // has no move to give up (SKY-CMD-03).
                if skip == Skip::Move && unit.status.morale == Morale::Broken {
                    self.error(
                        line,
                        raw,
                        format!(
                            "{} is Broken and must move at full speed toward the nearest edge (SKY-MOR-06): it has no move to give up for Emergency Repairs (SKY-CMD-03)",
                            unit.name
                        ),
                        "CMD EMERGENCY SKIP SHOOT",
                    );
                    return;
                }
                (
                    CmdAction::EmergencyRepairs(skip),
                    ActionName::EmergencyRepairs,
                    unit.id,
                )
            }
            "hardaround" => {
                let args: Vec<String> = args
                    .iter()
                    .filter(|w| !matches!(w.as_str(), "p" | "pivot" | "by"))
                    .cloned()
                    .collect();
                let spec = if let Some(half) = args.first().and_then(|w| parse_degrees(w)) {
                    let half = match args.first().map(String::as_str) {
                        _ if args.iter().any(|w| w == "left" || w == "l") => -half.abs(),
                        _ => half,
                    };
                    PivotSpec::By(Turn(half))
                } else if is(args.first(), &["left", "l", "right", "r"]) {
                    match args.get(1).and_then(|w| parse_degrees(w)) {
                        Some(half) if is(args.first(), &["left", "l"]) => {
                            PivotSpec::By(Turn(-half.abs()))
                        }
                        Some(half) => PivotSpec::By(Turn(half.abs())),
                        None => {
                            self.error(
                                line,
                                raw,
                                "HARDAROUND needs an angle or TOWARD a unit",
                                "CMD HARDAROUND P -45",
                            );
                            return;
                        }
                    }
                } else {
                    let aim_words: Vec<String> = args
                        .iter()
                        .filter(|w| !matches!(w.as_str(), "toward" | "towards" | "face"))
                        .cloned()
                        .collect();
                    match self.aim(&aim_words) {
                        Some((aim, _)) => PivotSpec::Toward(aim),
                        None => {
                            self.error(
                                line,
                                raw,
                                "HARDAROUND needs an angle or TOWARD a unit",
                                "CMD HARDAROUND P -45",
                            );
                            return;
                        }
                    }
                };
                if let PivotSpec::By(turn) = spec
                    && let Err(rule) = pivot_rule(unit.class, turn)
                {
                    self.error(line, raw, rule.explain(unit.class), "CMD HARDAROUND P -45");
                    return;
                }
                (CmdAction::HardAround(spec), ActionName::HardAround, unit.id)
            }
            "targetlock" => {
                // SKY-CMD-05: Target Lock is for one weapon, named by its slot.
                let one = |slot: &str| format!("CMD TARGETLOCK {slot}");
                let first_slot = unit
                    .weapons
                    .iter()
                    .find(|w| !w.kind.stats().torpedo)
                    .map(|w| w.slot.clone())
                    .unwrap_or_else(|| "fwd".into());
                let listing = unit
                    .weapons
                    .iter()
                    .filter(|w| !w.kind.stats().torpedo)
                    .map(|w| format!("{} ({})", w.slot, w.kind.name()))
                    .collect::<Vec<_>>()
                    .join(", ");
                let named = args.iter().any(|w| {
                    !matches!(
                        w.as_str(),
                        "all" | "everything" | "with" | "the" | "weapons" | "guns" | "on"
                    )
                });
                if !named {
                    self.error(
                        line,
                        raw,
                        format!(
                            "Target Lock is for one weapon (SKY-CMD-05): say which of {}'s weapons, one per CMD ({listing})",
                            unit.name
                        ),
                        one(&first_slot),
                    );
                    return;
                }
                let args: Vec<String> = args
                    .iter()
                    .filter(|w| w.as_str() != "on")
                    .cloned()
                    .collect();
                let slots = match self.weapons_of(unit, &args) {
                    Ok(slots) => slots,
                    Err(problem) => {
                        self.error(line, raw, problem, one(&first_slot));
                        return;
                    }
                };
                if slots.len() > 1 {
                    self.error(
                        line,
                        raw,
                        format!(
                            "Target Lock is for one weapon (SKY-CMD-05), and \"{}\" names {}: {}",
                            args.join(" "),
                            slots.len(),
                            slots.join(", ")
                        ),
                        one(slots.first().map(String::as_str).unwrap_or("fwd")),
                    );
                    return;
                }
                (
                    CmdAction::TargetLock(slots),
                    ActionName::TargetLock,
                    unit.id,
                )
            }
            "rally" => {
                let Some((target, _)) = self.take_unit(&args) else {
                    self.error(
                        line,
                        raw,
                        "RALLY needs a friendly ship's name",
                        format!("CMD RALLY {}", self.example_ship),
                    );
                    return;
                };
                let Some(ship) = self.unit(target) else {
                    return;
                };
                if ship.side != self.side || !ship.is_ship() {
                    self.error(
                        line,
                        raw,
                        format!("{} is not one of your ships", ship.name),
                        format!("CMD RALLY {}", self.example_ship),
                    );
                    return;
                }
                if ship.status.morale != Morale::Shaken {
                    self.warn(
                        line,
                        raw,
                        format!("{} is not Shaken now (SKY-CMD-08)", ship.name),
                        format!("CMD RALLY {}", ship.name),
                    );
                }
                (CmdAction::Rally(target), ActionName::Rally, target)
            }
            "launchtorpedo" => {
                let has = unit.weapons.iter().any(|w| w.kind.stats().torpedo);
                if !has {
                    self.error(
                        line,
                        raw,
                        format!("{} has no Torpedo Launcher", unit.name),
                        "CMD FULLAHEAD",
                    );
                    return;
                }
                (CmdAction::LaunchTorpedo, ActionName::LaunchTorpedo, unit.id)
            }
            "launchwing" => {
                if !unit.modules.iter().any(|m| m.kind == ModuleKind::Hangar) {
                    self.error(
                        line,
                        raw,
                        format!("{} has no Hangar", unit.name),
                        "CMD FULLAHEAD",
                    );
                    return;
                }
                let aboard: Vec<&Unit> = self
                    .state
                    .units
                    .iter()
                    .filter(|u| u.carrier == Some(unit.id) && u.place == Place::Aboard)
                    .collect();
                let wanted = if args.is_empty() {
                    None
                } else {
                    match self.take_unit(&args) {
                        Some((id, _)) if aboard.iter().any(|w| w.id == id) => Some(id),
                        _ => {
                            self.error(
                                line,
                                raw,
                                format!("no such wing aboard {}", unit.name),
                                "CMD LAUNCHWING",
                            );
                            return;
                        }
                    }
                };
                if aboard.is_empty() {
                    self.error(
                        line,
                        raw,
                        format!("{} has no wing aboard", unit.name),
                        "CMD FULLAHEAD",
                    );
                    return;
                }
                (
                    CmdAction::LaunchWing(wanted),
                    ActionName::LaunchWing,
                    unit.id,
                )
            }
            _ => return,
        };
        // SKY-CMD-02: once per ship per named action per turn.
        if !self.named.insert((beneficiary, name)) {
            self.error(
                line,
                raw,
                format!("{} already has {} this turn: each named action once per ship per turn (SKY-CMD-02)", self.name(beneficiary), name.name()),
                "one of each CMD action per ship",
            );
            return;
        }
        // SKY-CMD-01: affordability, checked again when it happens.
        let paying = payer.unwrap_or(unit.id);
        let planned = self.planned.entry(paying).or_insert(0);
        *planned += 1;
        let planned = *planned;
        let pool = self
            .unit(paying)
            .map(|u| u32::from(u.cmd_max()))
            .unwrap_or(0);
        if planned > pool {
            let helpers = self.unit(beneficiary).is_some_and(|b| {
                crate::command::payers(&self.state.units, b, paying)
                    .iter()
                    .any(|p| *p != paying)
            });
            if payer.is_some() || !helpers {
                self.error(
                    line,
                    raw,
                    format!(
                        "{} has only {pool} CMD this turn and this would be its {} point (SKY-CMD-01)",
                        self.name(paying),
                        ordinal(planned as usize)
                    ),
                    "fewer CMD actions, or FROM another ship within 12\"",
                );
                return;
            }
            self.warn(
                line,
                raw,
                format!("{} has only {pool} CMD: this point will come from a friendly ship within 12\" if one has CMD left", self.name(paying)),
                from_example,
            );
        }
        let from = payer
            .map(|p| format!(", paid by {}", self.name(p)))
            .unwrap_or_default();
        let detail = match &cmd {
            CmdAction::EmergencyRepairs(Skip::Move) => " (no move, +2 DC dice)".to_string(),
            CmdAction::EmergencyRepairs(Skip::Shoot) => " (no shooting, +2 DC dice)".to_string(),
            CmdAction::TargetLock(slots) => format!(" on {}", slots.join(", ")),
            CmdAction::Rally(id) => format!(" {}", self.name(*id)),
            CmdAction::HardAround(PivotSpec::By(turn)) => format!(" P{}", turn.display()),
            CmdAction::HardAround(PivotSpec::Toward(_)) => " toward its aim".to_string(),
            _ => String::new(),
        };
        self.understood.push(format!(
            "{}: {}{detail} (1 CMD{from})",
            unit.name,
            name.name()
        ));
        self.set(index, |a| a.actions.push(CmdOrder { action: cmd, payer }));
    }

    fn standing(&mut self, line: usize, raw: &str, rest: &[String]) {
        let example = format!("STANDING BRACE {}", self.example_ship);
        let Some((kind, args)) = rest.split_first() else {
            self.error(line, raw, "which standing order?", example);
            return;
        };
        let kind = squash(kind);
        match kind.as_str() {
            "clear" | "none" | "cancel" => {
                self.orders.standing.push(StandingChange::Clear);
                self.understood.push("all standing reactions cleared".into());
            }
            "initiative" => self.initiative(line, raw, args),
            "rerollcrit" | "reroll" | "rerollcrits" | "bulkheads" => {
                let mut set = BTreeSet::new();
                for word in args {
                    if matches!(word.as_str(), "none" | "crit" | "crits" | "on") {
                        continue;
                    }
                    match number(word) {
                        Some(n @ 1..=8) => {
                            set.insert(n as u8);
                        }
                        _ => {
                            self.error(line, raw, "REROLL_CRIT takes Critical Table results 1 to 8", "STANDING REROLL_CRIT 7, 8");
                            return;
                        }
                    }
                }
                let shown: Vec<String> = set.iter().map(ToString::to_string).collect();
                self.understood.push(format!(
                    "Reinforced Bulkheads re-roll Critical results {{{}}} (SKY-GM-25)",
                    shown.join(", ")
                ));
                self.orders.standing.push(StandingChange::RerollCrit(set));
            }
            "brace" | "chaff" | "countermeasures" | "cm" | "decoys" | "countermeasure" => {
                let Some((id, used)) = self.take_unit(args) else {
                    self.error(line, raw, "which ship?", example);
                    return;
                };
                let Some(ship) = self.unit(id).cloned() else {
                    return;
                };
                if ship.side != self.side || !ship.is_ship() {
                    self.error(line, raw, format!("{} is not one of your ships", ship.name), example);
                    return;
                }
                let more: Vec<&str> = args.get(used..).unwrap_or(&[]).iter().map(String::as_str).collect();
                let off = more.iter().any(|w| matches!(*w, "off" | "stop" | "no" | "cancel"));
                match kind.as_str() {
                    "brace" => {
                        self.orders.standing.push(StandingChange::Brace(id, !off));
                        self.understood.push(if off {
                            format!("{} no longer braces by standing order", ship.name)
                        } else {
                            format!("{} braces (1 CMD) the first time it is attacked each turn (SKY-GM-17)", ship.name)
                        });
                    }
                    "chaff" => {
                        if !off && !ship.modules.iter().any(|m| m.kind == ModuleKind::ChaffLauncher) {
                            self.error(line, raw, format!("{} has no Chaff Launcher (SKY-MOD-1)", ship.name), example);
                            return;
                        }
                        self.orders.standing.push(StandingChange::Chaff(id, !off));
                        self.understood.push(if off {
                            format!("{} no longer uses Chaff", ship.name)
                        } else {
                            format!("{} uses Chaff (1 CMD) against the first missile attack that hits it each turn", ship.name)
                        });
                    }
                    _ => {
                        if !off && !ship.modules.iter().any(|m| m.kind == ModuleKind::AcousticDecoys) {
                            self.error(line, raw, format!("{} has no Acoustic Decoys (SKY-GM-18)", ship.name), example);
                            return;
                        }
                        let choice = if off {
                            None
                        } else if more.iter().any(|w| matches!(*w, "left" | "l" | "port")) {
                            Some(PivotChoice::Left)
                        } else if more.iter().any(|w| matches!(*w, "right" | "r" | "starboard")) {
                            Some(PivotChoice::Right)
                        } else {
                            Some(PivotChoice::Away)
                        };
                        self.orders.standing.push(StandingChange::Countermeasures(id, choice));
                        self.understood.push(match choice {
                            None => format!("{} no longer uses Countermeasures", ship.name),
                            Some(choice) => format!(
                                "{} uses Countermeasures (1 CMD each) on enemy torpedoes within 12\", turning them {}",
                                ship.name,
                                match choice {
                                    PivotChoice::Away => "away",
                                    PivotChoice::Left => "left",
                                    PivotChoice::Right => "right",
                                }
                            ),
                        });
                    }
                }
            }
            other => self.error(
                line,
                raw,
                format!("\"{other}\" is not a standing order (BRACE, CHAFF, COUNTERMEASURES, REROLL_CRIT, CLEAR)"),
                example,
            ),
        }
    }

    fn torpedo(&mut self, line: usize, raw: &str, words: &[String]) {
        let example = "TORPEDO #1 PIVOT +22.5 AFTER 6 CLIMB 1";
        let rest = words.get(1..).unwrap_or(&[]);
        let number_word = rest.first().map(|w| w.trim_start_matches('#').to_string());
        let Some(wanted) = number_word.as_deref().and_then(number) else {
            self.error(line, raw, "which torpedo? give its number", example);
            return;
        };
        let found = self.state.units.iter().find(|u| {
            u.torpedo.as_ref().is_some_and(|t| t.number == wanted) && u.class == Class::Torpedo
        });
        let Some(token) = found.cloned() else {
            self.error(line, raw, format!("there is no Torpedo #{wanted}"), example);
            return;
        };
        if token.side != self.side || !token.in_play() {
            self.error(
                line,
                raw,
                format!("{} is not one of your torpedoes in play", token.name),
                example,
            );
            return;
        }
        let mut order = TorpedoOrder {
            torpedo: token.id,
            pivot: None,
            climb: 0,
            dive: 0,
        };
        let args: Vec<&str> = rest
            .get(1..)
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .collect();
        let mut index = 0;
        while let Some(word) = args.get(index) {
            let (kind, glued) = split_glued(word);
            let next = args.get(index + 1).map(|w| w.to_string());
            let (argument, width) = match glued {
                Some(value) => (Some(value), 1),
                None => (next, 2),
            };
            match kind.as_str() {
                "p" | "pivot" | "turn" | "left" | "l" | "right" | "r" => {
                    let Some(half) = argument.as_deref().and_then(parse_degrees) else {
                        self.error(line, raw, "PIVOT needs degrees: +22.5 or -22.5", example);
                        return;
                    };
                    let half = match kind.as_str() {
                        "left" | "l" => -half.abs(),
                        "right" | "r" => half.abs(),
                        _ => half,
                    };
                    if half.abs() > 45 {
                        self.error(
                            line,
                            raw,
                            "a torpedo pivots at most 22.5° (SKY-CLASS-01)",
                            example,
                        );
                        return;
                    }
                    let inertia = Class::Torpedo.stats().inertia;
                    order.pivot = Some((Turn(half), order.pivot.map(|p| p.1).unwrap_or(inertia)));
                    index += width;
                }
                "after" => {
                    let Some(distance) = argument.as_deref().and_then(parse_inches) else {
                        self.error(line, raw, "AFTER needs inches", example);
                        return;
                    };
                    let inertia = Class::Torpedo.stats().inertia;
                    if distance < inertia {
                        self.warn(
                            line,
                            raw,
                            "a torpedo pivots only after its Inertia of 5\": taken as 5",
                            example,
                        );
                    }
                    let turn = order.pivot.map(|p| p.0).unwrap_or(Turn(0));
                    order.pivot = Some((turn, distance.max(inertia)));
                    index += width;
                }
                "climb" | "up" => {
                    let Some(n) = argument.as_deref().and_then(number).filter(|n| *n <= 12) else {
                        self.error(line, raw, "CLIMB needs a number of levels", example);
                        return;
                    };
                    order.climb = n as u8;
                    index += width;
                }
                "dive" | "down" => {
                    let Some(n) = argument.as_deref().and_then(number).filter(|n| *n <= 12) else {
                        self.error(line, raw, "DIVE needs a number of levels", example);
                        return;
                    };
                    order.dive = n as u8;
                    index += width;
                }
                "straight" | "ahead" | "none" => index += 1,
                other => {
                    self.error(
                        line,
                        raw,
                        format!("\"{other}\" is not a torpedo order"),
                        example,
                    );
                    return;
                }
            }
        }
        let mut words = Vec::new();
        if order.climb > 0 {
            words.push(format!("climbs {}", order.climb));
        }
        if order.dive > 0 {
            words.push(format!("dives {}", order.dive));
        }
        if let Some((turn, after)) = order.pivot {
            words.push(format!(
                "pivots {} after {}\"",
                turn.display(),
                after.display()
            ));
        }
        if words.is_empty() {
            words.push("runs straight".into());
        }
        self.understood.push(format!(
            "{} {} in the Torpedo Step",
            token.name,
            words.join(", ")
        ));
        self.orders.torpedoes.retain(|t| t.torpedo != token.id);
        self.orders.torpedoes.push(order);
    }

    /// The unit as its activation will find it, as far as is known when orders are written:
    /// where this mail deploys it (turn 1), then one level lower if it stalls (SKY-GM-01,
    /// SKY-KW-STALL, SKY-GM-31), as the turn does before anyone moves.
    fn at_activation(&self, id: UnitId) -> Option<Unit> {
        let mut unit = self.before.unit(id)?.clone();
        if let Some(deploy) = self.orders.deploy.iter().find(|d| d.unit == id) {
            unit.at = deploy.at;
            unit.heading = deploy.heading.unwrap_or(unit.heading);
            unit.elevation = deploy.elevation.unwrap_or(unit.elevation);
        }
        if let Some(elevation) = unit.stalls_to() {
            unit.elevation = elevation;
        }
        Some(unit)
    }

    /// Checks that need a whole block: the move against the budget with Full Ahead, the
    /// pivot rules, and Target Lock against Ultralights (SKY-GM-11, SKY-EX-08, SKY-UL-01).
    fn finish(&mut self) {
        // Where the unit moves before it fires, today's arcs and ranges say little.
        for (index, issue) in std::mem::take(&mut self.fire_warnings) {
            let moves = self.orders.activations.get(index).is_some_and(|a| {
                !a.steps.is_empty() || self.orders.deploy.iter().any(|d| d.unit == a.unit)
            });
            if !moves {
                self.warnings.push(issue);
            }
        }
        for index in 0..self.orders.activations.len() {
            let Some(activation) = self.orders.activations.get(index).cloned() else {
                continue;
            };
            let Some(unit) = self.at_activation(activation.unit) else {
                continue;
            };
            let (block_line, block_text) = self
                .blocks
                .get(index)
                .map(|b| (b.line, b.text.clone()))
                .unwrap_or((1, String::new()));
            let (line, text) = self
                .blocks
                .get(index)
                .and_then(|b| b.move_line.clone())
                .unwrap_or((block_line, block_text.clone()));
            let full_ahead = activation
                .actions
                .iter()
                .any(|a| a.action == CmdAction::FullAhead);
            let skips_move = activation
                .actions
                .iter()
                .any(|a| a.action == CmdAction::EmergencyRepairs(Skip::Move));
            if skips_move && !activation.steps.is_empty() {
                self.warn(
                    line,
                    &text,
                    format!(
                        "{} gives up its move for Emergency Repairs: the move is ignored",
                        unit.name
                    ),
                    "CMD EMERGENCY SKIP SHOOT",
                );
            }
            if let Err(problem) = check_move(
                self.state,
                &unit,
                &activation.steps,
                full_ahead,
                activation.dive_brakes,
            ) {
                self.error(line, &text, problem, move_example(&unit));
                self.set(index, |a| a.steps.clear());
            }
            if unit.status.morale == Morale::Broken && !activation.steps.is_empty() {
                self.warn(
                    line,
                    &text,
                    format!(
                        "{} is Broken: it will flee to the nearest edge instead (SKY-MOR-06)",
                        unit.name
                    ),
                    "DC PRIORITY BROKEN",
                );
            }
            // SKY-UL-01: no Target Lock against Ultralights.
            let mut locks: Vec<String> = activation
                .actions
                .iter()
                .filter_map(|a| match &a.action {
                    CmdAction::TargetLock(slots) => Some(slots.clone()),
                    _ => None,
                })
                .flatten()
                .collect();
            // A refused order is never carried out: the lock is struck from the orders, so it is
            // neither paid for nor made.
            for order in &activation.fire {
                let Some(Target::Unit(first)) = order.targets.first() else {
                    continue;
                };
                let Some(locked) = order.weapons.iter().find(|w| locks.contains(w)) else {
                    continue;
                };
                if self.unit(*first).is_some_and(Unit::is_ultralight) {
                    let refused = locked.clone();
                    self.error(
                        block_line,
                        &block_text,
                        format!(
                            "{} is an Ultralight: it cannot be Target Locked (SKY-UL-01, SKY-CMD-05), so the Target Lock on {refused} is not made and costs nothing",
                            self.name(*first)
                        ),
                        format!("CMD TARGETLOCK on a weapon fired at a ship, or FIRE {refused} AT {} without it", self.name(*first)),
                    );
                    let mut payer = None;
                    self.set(index, |a| {
                        a.actions.retain(|c| {
                            let lock = matches!(&c.action, CmdAction::TargetLock(slots) if slots.contains(&refused));
                            if lock {
                                payer = Some(c.payer);
                            }
                            !lock
                        });
                    });
                    if let Some(payer) = payer
                        && let Some(planned) = self.planned.get_mut(&payer.unwrap_or(unit.id))
                    {
                        *planned = planned.saturating_sub(1);
                    }
                    self.named.remove(&(unit.id, ActionName::TargetLock));
                    locks.retain(|l| *l != refused);
                    self.understood
                        .retain(|u| !u.starts_with(&format!("{}: Target Lock", unit.name)));
                }
            }
        }
        let listed: Vec<String> = self
            .orders
            .activations
            .iter()
            .map(|a| self.name(a.unit))
            .collect();
        let turn = self.state.turn;
        let holding: Vec<String> = self
            .state
            .units
            .iter()
            .filter(|u| {
                u.side == self.side
                    && u.in_play()
                    && u.activates()
                    && u.launched_turn.is_none_or(|t| t < turn)
                    && !self.orders.activations.iter().any(|a| a.unit == u.id)
            })
            .map(|u| u.name.clone())
            .collect();
        if !listed.is_empty() || !holding.is_empty() {
            let mut text = String::from("activation order: ");
            text.push_str(&listed.join(", "));
            if !holding.is_empty() {
                if !listed.is_empty() {
                    text.push_str(", then ");
                }
                text.push_str(&format!(
                    "{} (not listed: they hold and fire at the nearest targets)",
                    holding.join(", ")
                ));
            }
            self.understood.push(text);
        }
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn move_example(unit: &Unit) -> String {
    match unit.class {
        Class::Wing => "MOVE F 6 P +90 F 9".into(),
        Class::Escort => "MOVE F 2 P +90 F 8".into(),
        Class::Capital => "MOVE F 4 P +22.5 F 1".into(),
        _ => "MOVE F 3 P +45 F 4".into(),
    }
}

/// Words that start an order inside a unit's block.
fn block_keyword(word: &str) -> bool {
    matches!(
        word,
        "move"
            | "moves"
            | "mv"
            | "movement"
            | "fly"
            | "steer"
            | "hold"
            | "stay"
            | "halt"
            | "fire"
            | "shoot"
            | "fires"
            | "attack"
            | "engage"
            | "dc"
            | "damage"
            | "cmd"
            | "command"
            | "brace"
            | "rally"
            | "full"
            | "fullahead"
            | "hardaround"
            | "hard"
            | "targetlock"
            | "target"
            | "lock"
            | "emergency"
            | "launch"
            | "launchtorpedo"
            | "launchwing"
            | "compressedgas"
            | "compressed"
            | "gas"
            | "repairs"
            | "repair"
    ) || step_word(word)
}

/// A movement step word, possibly glued to its number (`f3`, `p+45`).
fn step_word(word: &str) -> bool {
    let (kind, _) = split_glued(word);
    matches!(
        kind.as_str(),
        "f" | "fwd"
            | "forward"
            | "ahead"
            | "p"
            | "pivot"
            | "turn"
            | "climb"
            | "dive"
            | "up"
            | "down"
            | "left"
            | "right"
            | "toward"
            | "towards"
    )
}

/// `f3` → (`f`, `3`); `p+45` → (`p`, `+45`); `forward` → (`forward`, none).
fn split_glued(word: &str) -> (String, Option<String>) {
    let split = word
        .char_indices()
        .find(|(_, c)| c.is_ascii_digit() || *c == '+' || *c == '-' || *c == '.')
        .map(|(i, _)| i);
    match split {
        Some(at) if at > 0 => (
            word.get(..at).unwrap_or("").to_string(),
            word.get(at..).map(str::to_string),
        ),
        _ => (word.to_string(), None),
    }
}

fn describe_steps(state: &State, steps: &[Step], brakes: bool) -> String {
    if steps.is_empty() {
        return "nowhere (holds position)".into();
    }
    let mut words: Vec<String> = steps
        .iter()
        .map(|step| match step {
            Step::Forward(d) => format!("F{}", d.display()),
            Step::Pivot(t) => format!("P{}", t.display()),
            Step::Toward(Aim::Unit(id)) => format!(
                "TOWARD {}",
                state.unit(*id).map(|u| u.name.clone()).unwrap_or_default()
            ),
            Step::Toward(Aim::Point(p)) => format!("TOWARD {}", p.display()),
            Step::Toward(Aim::Bearing(a)) => format!("TOWARD {}°", a.display()),
            Step::Climb(n) => format!("CLIMB {n}"),
            Step::Dive(n) => format!("DIVE {n}"),
        })
        .collect();
    if brakes {
        words.push("with Dive Brakes".into());
    }
    words.join(" ")
}

/// Is the move legal for this unit as things stand (SKY-GM-11, SKY-KW-LIFT,
/// SKY-KW-INERTIA, SKY-EX-08)? A dry run of the turn's own move planner
/// ([`movement::plan_move`]) on the current state, as written: what the planner finds wrong is
/// refused, the first problem reported. Islands, the table's edge and other units are left to
/// the turn, which checks the move again when it happens.
pub fn check_move(
    state: &State,
    unit: &Unit,
    steps: &[Step],
    full_ahead: bool,
    dive_brakes: bool,
) -> Result<(), String> {
    if steps.is_empty() {
        return Ok(());
    }
    let plan = MovePlan {
        steps: steps.to_vec(),
        full_ahead,
        dive_brakes,
        hard_around: None,
    };
    let walked = movement::plan_move(state, unit, &plan, Walk::AsWritten);
    // Of an order with several problems, the most telling is reported: the unit's own state
    // first, then the pivots in the order written, then the budget, then elevation.
    let refusal = |problem: &MoveProblem| -> Option<(u8, String)> {
        Some(match problem {
            MoveProblem::Drifting => (
                0,
                format!(
                    "{} is Drifting and cannot move or turn (SKY-SCRIT-4)",
                    unit.name
                ),
            ),
            MoveProblem::NoDiveBrakes => (
                0,
                format!("{} has no working Dive Brakes (SKY-MOD-8)", unit.name),
            ),
            MoveProblem::RudderLoss { .. } => (
                1,
                format!(
                    "{} has lost its rudder and cannot turn (SKY-CRIT-4)",
                    unit.name
                ),
            ),
            MoveProblem::SecondPivot { .. } => (
                1,
                "one pivot a move; CMD HARDAROUND adds one more at the end (SKY-GM-11)".into(),
            ),
            MoveProblem::Pivot { rule, .. } => (1, rule.explain(unit.class)),
            MoveProblem::Inertia {
                turn,
                toward,
                forward,
                ..
            } => {
                let turn = if *toward {
                    "TOWARD".into()
                } else {
                    turn.display()
                };
                (
                    1,
                    format!(
                        "{} must move {}\" (Inertia) before it pivots; P{turn} comes after only {}\" (SKY-KW-INERTIA)",
                        unit.name,
                        unit.stats().inertia.display(),
                        forward.display()
                    ),
                )
            }
            MoveProblem::OverBudget { .. } | MoveProblem::ClimbOverBudget { .. } => (
                2,
                format!(
                    "that move needs {}\" but {} has {}\" (SKY-GM-11: forward inches plus Lift per level climbed, within speed plus Drop per level dived)",
                    walked.asked.display(),
                    unit.name,
                    walked.budget.display()
                ),
            ),
            MoveProblem::AboveCeiling { .. } => (
                3,
                format!(
                    "that would climb above elevation {} (SKY-GM-06)",
                    state.rules.max_elevation
                ),
            ),
            MoveProblem::Crash { .. } => (
                3,
                "that would dive below elevation 1 and crash (SKY-GM-06)".into(),
            ),
            // The turn's business: never met on a walk as written, and no Hard Around here.
            MoveProblem::Island { .. }
            | MoveProblem::IslandInBand { .. }
            | MoveProblem::TableEdge { .. }
            | MoveProblem::HardAroundRudderLoss
            | MoveProblem::HardAround { .. }
            | MoveProblem::CutBack { .. } => return None,
        })
    };
    match walked
        .problems
        .iter()
        .filter_map(refusal)
        .min_by_key(|(rank, _)| *rank)
    {
        Some((_, problem)) => Err(problem),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glued_steps_split() {
        assert_eq!(split_glued("f3"), ("f".into(), Some("3".into())));
        assert_eq!(split_glued("p+45"), ("p".into(), Some("+45".into())));
        assert_eq!(split_glued("forward"), ("forward".into(), None));
        assert_eq!(split_glued("+45"), ("+45".into(), None));
    }

    #[test]
    fn list_markers_and_press() {
        use engine::order_text::{press_text, strip_list_marker};

        assert_eq!(strip_list_marker("1. ACTIVATE x"), "ACTIVATE x");
        assert_eq!(strip_list_marker("- fire"), "fire");
        assert_eq!(strip_list_marker("12 inches"), "12 inches");
        assert_eq!(press_text("PRESS: Hello"), Some("Hello".into()));
        assert_eq!(press_text("pressure"), None);
        assert_eq!(ordinal(2), "2nd");
        assert_eq!(ordinal(11), "11th");
    }
}
