//! Order parsing for text written by people in an email: case-insensitive, tolerant of spaces,
//! punctuation, quoting and signatures, one order per line (or several separated by `;`), and
//! never panicking. Each rejected line says what was wrong and shows a correct example.

use std::collections::BTreeSet;

use engine::order_text::{Line, OrderText};
use engine::{LineIssue, ParsedOrders, PlayerId};

use crate::design::{Design, Hull, Item, ModuleSpec, WeaponKind};
use crate::fixed::{Degrees, Inches, show_hundredths};
use crate::geometry::Point;
use crate::orders::{Action, Aim, Deflect, Deploy, Destination, Facing, Move, Orders, Side, Sweep};
use crate::state::{PartStatus, Phase, Protect, SeatStatus, State};

/// A refused order: the problem and a correct example.
type Refusal = (String, &'static str);
/// A torpedo's declared range and a laser's sweep.
type ShotOptions = (Option<i64>, Option<Sweep>);

struct Parser<'a> {
    state: &'a State,
    player: PlayerId,
    hulls: Vec<Option<Hull>>,
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
}

/// Parses one player's orders.
pub fn parse(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
    let mut parser = Parser {
        state,
        player,
        hulls: state
            .ships
            .iter()
            .map(|s| Hull::check(&s.design).ok())
            .collect(),
        orders: Orders::default(),
        understood: Vec::new(),
        press: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        used: BTreeSet::new(),
        design_lines: Vec::new(),
        design_failed: false,
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

/// Words of an order, brackets and stray commas turned into spaces where they only decorate.
fn words(text: &str) -> Vec<String> {
    text.replace(['(', ')', '[', ']', '{', '}'], " ")
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ':']).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

struct Cursor {
    words: Vec<String>,
    at: usize,
}

impl Cursor {
    fn new(text: &str) -> Self {
        Cursor {
            words: words(text),
            at: 0,
        }
    }

    fn next(&mut self) -> Option<String> {
        let word = self.words.get(self.at).cloned();
        if word.is_some() {
            self.at += 1;
        }
        word
    }

    fn peek(&self) -> Option<&str> {
        self.words.get(self.at).map(String::as_str)
    }

    fn peek_is(&self, keywords: &[&str]) -> bool {
        self.peek()
            .is_some_and(|w| keywords.iter().any(|k| w.eq_ignore_ascii_case(k)))
    }

    fn done(&self) -> bool {
        self.at >= self.words.len()
    }

    /// `30,20`, `30, 20`, `30 , 20`, `30 20`.
    fn point(&mut self) -> Option<Point> {
        let first = self.next()?;
        let (x, mut y) = match first.split_once(',') {
            Some((x, y)) => (x.to_string(), y.to_string()),
            None => (first.clone(), String::new()),
        };
        if y.is_empty() {
            let mut next = self.next()?;
            if next == "," {
                next = self.next()?;
            }
            y = next.trim_start_matches(',').to_string();
        }
        let x = Inches::parse(x.trim_end_matches(','))?;
        let y = Inches::parse(y.trim_end_matches(','))?;
        Some(Point::new(x.0, y.0))
    }

    fn number(&mut self) -> Option<i64> {
        let word = self.next()?;
        let word = word.trim_end_matches(['°', '"', ',']).to_ascii_lowercase();
        let word = word.trim_end_matches("deg").trim_end_matches("in");
        word.parse::<i64>().ok()
    }

    fn inches(&mut self) -> Option<i64> {
        let word = self.next()?;
        Inches::parse(word.trim_end_matches(['"', ','])).map(|i| i.0)
    }
}

fn looks_numeric(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
}

const MOVE_EXAMPLE: &str = "MOVE1 Lancer TO 30, 20 FACE 90";
const FIRE_EXAMPLE: &str = "FIRE Lancer.S1 AT Anvil.S3";

impl Parser<'_> {
    fn error(&mut self, line: usize, text: &str, problem: impl Into<String>, expected: &str) {
        let expected = self.example(expected);
        self.errors.push(LineIssue {
            line,
            text: text.to_string(),
            problem: problem.into(),
            expected,
            if_it_stands: None,
        });
    }

    fn warn(&mut self, line: usize, text: &str, problem: impl Into<String>, expected: &str) {
        let expected = self.example(expected);
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

    fn design(&mut self, block: &[(usize, String)]) {
        let Some((first_line, first_text)) = block.first().cloned() else {
            return;
        };
        if self.state.phase != Phase::Building {
            self.error(
                first_line,
                &first_text,
                "fleets are fixed once the battle has begun",
                "FIRE Lancer.S1 AT Anvil.S3",
            );
            return;
        }
        if self.state.seat(self.player).is_some_and(|s| s.ready) {
            self.error(
                first_line,
                &first_text,
                "your fleet has already been accepted",
                "DEPLOY Lancer AT 10, 24",
            );
            return;
        }
        let lines: Vec<(usize, &str)> = block.iter().map(|(n, l)| (*n, l.as_str())).collect();
        match Design::parse_lines(&lines) {
            Ok(design) => {
                match Hull::build(&design) {
                    (Some(hull), issues) if issues.is_empty() => {
                        let sections = hull.parts.len() - 1;
                        self.understood.push(format!(
                            "design {}: {} points, {sections} section{}, speed {}\"",
                            design.name,
                            hull.cost(),
                            if sections == 1 { "" } else { "s" },
                            show_hundredths(hull.speed())
                        ));
                    }
                    (_, issues) => {
                        self.design_failed = true;
                        for issue in issues {
                            self.error(
                                first_line,
                                &first_text,
                                format!("{}: {issue}", design.name),
                                "see ORDER HELP for the building rules",
                            );
                        }
                    }
                }
                self.design_lines
                    .push((design.name.clone(), first_line, first_text));
                self.orders.designs.push(design);
            }
            Err(issues) => {
                self.design_failed = true;
                for issue in issues {
                    let line = issue.line.unwrap_or(first_line);
                    let text = block
                        .iter()
                        .find(|(n, _)| *n == line)
                        .map_or(first_text.clone(), |(_, t)| t.clone());
                    self.error(
                        line,
                        &text,
                        issue.to_string(),
                        "SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT GUN",
                    );
                }
            }
        }
    }

    fn order(&mut self, line: usize, raw: &str, order: &str) {
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
            self.error(line, raw, problem, expected);
        }
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

    fn deploy(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "DEPLOY Lancer AT 10, 24 FACING 0";
        let ship = cursor
            .next()
            .ok_or(("DEPLOY needs a ship's name".to_string(), EXAMPLE))?;
        if cursor.peek_is(&["AT", "TO"]) {
            cursor.next();
        }
        let at = cursor
            .point()
            .ok_or(("DEPLOY needs the core's position x, y".to_string(), EXAMPLE))?;
        let mut facing = Degrees::ZERO;
        if cursor.peek_is(&["FACING", "FACE", "ROT", "HEADING"]) {
            cursor.next();
            facing = Degrees::new(
                cursor
                    .number()
                    .ok_or(("FACING needs whole degrees".to_string(), EXAMPLE))?,
            );
        }
        if !cursor.done() {
            return Err((
                format!("{} is not understood here", cursor.peek().unwrap_or("")),
                EXAMPLE,
            ));
        }
        self.understood
            .push(format!("deploy {ship} at {} facing {facing}", at.show()));
        self.orders.deploys.push(Deploy { ship, at, facing });
        Ok(())
    }

    /// The player's own ship still in play.
    fn own_ship(&self, name: &str) -> Result<usize, String> {
        let index = self
            .state
            .ship_index(name)
            .ok_or_else(|| format!("there is no ship {name}"))?;
        let ship = self.state.ships.get(index).ok_or("no such ship")?;
        if ship.owner != self.player {
            return Err(format!("{} is not yours", ship.name));
        }
        if ship.destroyed {
            return Err(format!("{} has been destroyed", ship.name));
        }
        Ok(index)
    }

    fn hull(&self, ship: usize) -> Option<&Hull> {
        self.hulls.get(ship).and_then(Option::as_ref)
    }

    /// `Lancer.S1` → (ship, rest).
    fn split_ref(word: &str) -> Option<(String, String)> {
        let (ship, item) = word.split_once('.')?;
        (!ship.is_empty() && !item.is_empty()).then(|| (ship.to_string(), item.to_string()))
    }

    fn own_item(
        &self,
        word: &str,
        wanted: fn(&Item) -> bool,
        what: &str,
    ) -> Result<(usize, usize), String> {
        let (ship_name, item_name) = Self::split_ref(word)
            .ok_or_else(|| format!("name the ship and the {what}: Ship.Section"))?;
        let ship = self.own_ship(&ship_name)?;
        let hull = self.hull(ship).ok_or("the ship's design does not check")?;
        let item = hull
            .items
            .iter()
            .position(|slot| slot.name.eq_ignore_ascii_case(&item_name) && wanted(&slot.item))
            .or_else(|| {
                let part = hull.part_index(&item_name)?;
                let matches: Vec<usize> = hull
                    .parts
                    .get(part)?
                    .items
                    .iter()
                    .copied()
                    .filter(|i| hull.items.get(*i).is_some_and(|s| wanted(&s.item)))
                    .collect();
                match matches.as_slice() {
                    [one] => Some(*one),
                    _ => None,
                }
            })
            .ok_or_else(|| {
                let names: Vec<String> = hull
                    .items
                    .iter()
                    .filter(|s| wanted(&s.item))
                    .map(|s| s.name.clone())
                    .collect();
                if names.is_empty() {
                    format!("{ship_name} has no {what}")
                } else {
                    format!(
                        "{ship_name} has no {what} called {item_name}; it has {}",
                        names.join(", ")
                    )
                }
            })?;
        let data = self.state.ships.get(ship).ok_or("no such ship")?;
        if !data.item_usable(hull, item) {
            return Err(format!("{word} is destroyed or broken off (FOREVER-JET-5)"));
        }
        Ok((ship, item))
    }

    fn aim(&self, cursor: &mut Cursor) -> Result<Aim, String> {
        let word = cursor.peek().ok_or("the aim is missing")?.to_string();
        if looks_numeric(&word) {
            return cursor
                .point()
                .map(Aim::Point)
                .ok_or_else(|| "a point is written x, y".to_string());
        }
        cursor.next();
        let word = word.trim_end_matches(',').to_string();
        if word.contains('/') {
            let demeter = self
                .state
                .demeters
                .iter()
                .find(|d| d.name.eq_ignore_ascii_case(&word))
                .ok_or_else(|| format!("there is no demeter {word}"))?;
            return Ok(Aim::Demeter(demeter.name.clone()));
        }
        let (ship_name, section) = Self::split_ref(&word).ok_or_else(|| {
            format!("aim at a section such as {word}.core or {word}.S1, or at a point x, y")
        })?;
        let ship = self
            .state
            .ship_index(&ship_name)
            .ok_or_else(|| format!("there is no ship {ship_name}"))?;
        let data = self.state.ships.get(ship).ok_or("no such ship")?;
        let hull = self.hull(ship).ok_or("the ship's design does not check")?;
        let part = hull.part_index(&section).ok_or_else(|| {
            let names: Vec<&str> = hull.parts.iter().map(|p| p.name.as_str()).collect();
            format!(
                "{} has no section {section}; it has {}",
                data.name,
                names.join(", ")
            )
        })?;
        match data.parts.get(part).map(|p| p.status) {
            Some(PartStatus::Destroyed) => {
                return Err(format!("{}.{section} is already destroyed", data.name));
            }
            _ if data.destroyed
                && !matches!(
                    data.parts.get(part).map(|p| p.status),
                    Some(PartStatus::Jettisoned(_))
                ) =>
            {
                return Err(format!("{} has been destroyed", data.name));
            }
            _ => {}
        }
        let part_name = hull
            .parts
            .get(part)
            .map_or(section.clone(), |p| p.name.clone());
        Ok(Aim::Section {
            ship: data.name.clone(),
            section: part_name,
        })
    }

    /// Where an aim is now, for confirmations.
    fn aim_now(&self, aim: &Aim) -> Option<Point> {
        match aim {
            Aim::Point(point) => Some(*point),
            Aim::Demeter(name) => self
                .state
                .demeters
                .iter()
                .find(|d| d.name == *name)
                .map(|d| d.at),
            Aim::Section { ship, section } => {
                let index = self.state.ship_index(ship)?;
                let hull = self.hull(index)?;
                let part = hull.part_index(section)?;
                Some(
                    self.state
                        .ships
                        .get(index)?
                        .part_polygon(hull, part)?
                        .centre(),
                )
            }
        }
    }

    fn destination(cursor: &mut Cursor) -> Option<Result<Destination, String>> {
        if cursor.peek_is(&["TO", "AT"]) {
            cursor.next();
            return Some(
                cursor
                    .point()
                    .map(Destination::To)
                    .ok_or_else(|| "TO needs a point x, y".to_string()),
            );
        }
        if cursor.peek_is(&["BY"]) {
            cursor.next();
            return Some(
                cursor
                    .point()
                    .map(Destination::By)
                    .ok_or_else(|| "BY needs an offset dx, dy".to_string()),
            );
        }
        None
    }

    fn movement(
        &mut self,
        cursor: &mut Cursor,
        first: bool,
        line: usize,
        raw: &str,
    ) -> Result<(), (String, &'static str)> {
        let name = cursor
            .next()
            .ok_or(("name the ship to move".to_string(), MOVE_EXAMPLE))?;
        let ship = self.own_ship(&name).map_err(|e| (e, MOVE_EXAMPLE))?;
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(name.clone(), |s| s.name.clone());
        let mut order = Move::default();
        let mut said = Vec::new();
        while !cursor.done() {
            if let Some(go) = Self::destination(cursor) {
                let go = go.map_err(|e| (e, MOVE_EXAMPLE))?;
                said.push(match go {
                    Destination::To(p) => format!("to {}", p.show()),
                    Destination::By(p) => format!("by {}", p.show()),
                });
                order.go = Some(go);
            } else if cursor.peek_is(&["FACE", "FACING", "ROT", "ROTATE", "HEADING"]) {
                cursor.next();
                let angle = cursor
                    .number()
                    .ok_or(("FACE needs whole degrees".to_string(), MOVE_EXAMPLE))?;
                said.push(format!("face {}", Degrees::new(angle)));
                order.facing = Some(Facing::To(Degrees::new(angle)));
            } else if cursor.peek_is(&["TURN"]) {
                cursor.next();
                let angle = cursor.number().ok_or((
                    "TURN needs whole degrees, + to the left".to_string(),
                    MOVE_EXAMPLE,
                ))?;
                said.push(format!("turn {angle:+}°"));
                order.facing = Some(Facing::By(angle));
            } else if cursor.peek_is(&["SWIVEL"]) {
                cursor.next();
                let section = cursor.next().ok_or((
                    "SWIVEL needs a section and an angle".to_string(),
                    "SWIVEL S3 45",
                ))?;
                let angle = cursor
                    .number()
                    .ok_or(("SWIVEL needs whole degrees".to_string(), "SWIVEL S3 45"))?;
                let hull = self
                    .hull(ship)
                    .ok_or(("the ship's design does not check".to_string(), MOVE_EXAMPLE))?;
                let part = hull
                    .part_index(&section)
                    .filter(|p| hull.parts.get(*p).is_some_and(|s| s.swivel.is_some()))
                    .ok_or((
                        format!("{ship_name} has no swivel joint at {section}"),
                        "SWIVEL S3 45",
                    ))?;
                let part_name = hull
                    .parts
                    .get(part)
                    .map_or(section.clone(), |p| p.name.clone());
                said.push(format!("swivel {part_name} to {angle}°"));
                order.swivels.push((part_name, angle));
            } else if cursor.peek_is(&["TOW"]) {
                cursor.next();
                let target = cursor
                    .next()
                    .ok_or(("TOW needs what to tow".to_string(), "TOW Wreck/J7"))?;
                said.push(format!("take {target} in tow"));
                order.tow = Some(target);
            } else if cursor.peek_is(&["THEN", "AND", ","]) {
                cursor.next();
            } else {
                return Err((
                    format!(
                        "{} is not understood in a move",
                        cursor.peek().unwrap_or("")
                    ),
                    MOVE_EXAMPLE,
                ));
            }
        }
        if order == Move::default() {
            return Err((
                "the move says nothing: give TO, BY, FACE, TURN, SWIVEL or TOW".to_string(),
                MOVE_EXAMPLE,
            ));
        }
        let entry = self.orders.moves.entry(ship_name.clone()).or_default();
        let slot = if first {
            &mut entry.first
        } else {
            &mut entry.second
        };
        if slot.is_some() {
            return Err((
                format!(
                    "{ship_name} already has a movement {} order",
                    if first { 1 } else { 2 }
                ),
                MOVE_EXAMPLE,
            ));
        }
        *slot = Some(order.clone());
        if !first
            && let (Some(first_move), Some(_)) = (&entry.first, order.facing)
            && first_move.facing.is_some()
        {
            self.warn(line, raw, "it rotates in movement 1 too: the second rotation will be refused (FOREVER-MOVE2-2)", MOVE_EXAMPLE);
        }
        self.orders.written_move(&ship_name, first);
        let speed = self
            .hull(ship)
            .zip(self.state.ships.get(ship))
            .map_or(0, |(h, s)| s.speed(h));
        if let (Some(go), Some(data)) = (order.go, self.state.ships.get(ship)) {
            let distance = match go {
                Destination::To(p) => (p - data.at).length(),
                Destination::By(p) => p.length(),
            };
            if distance > speed {
                self.warn(
                    line,
                    raw,
                    format!(
                        "{}\" is more than {ship_name}'s speed of {}\": the move will be cut short",
                        show_hundredths(distance),
                        show_hundredths(speed)
                    ),
                    MOVE_EXAMPLE,
                );
            }
        }
        let opening = self.state.round == 0 && self.state.seating.first() == Some(&self.player);
        if first && opening {
            self.warn(line, raw, "you open the battle in the shooting phase: movement 1 is skipped this turn (FOREVER-PLAY-3)", "MOVE2 Lancer TO 30, 20");
        }
        self.understood.push(format!(
            "{ship_name}: movement {} {} (speed {}\")",
            if first { 1 } else { 2 },
            said.join(", "),
            show_hundredths(speed)
        ));
        Ok(())
    }

    fn tow(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "TOW Tug Wreck/J7";
        let name = cursor
            .next()
            .ok_or(("TOW needs your ship and what to tow".to_string(), EXAMPLE))?;
        let ship = self.own_ship(&name).map_err(|e| (e, EXAMPLE))?;
        let target = cursor
            .next()
            .ok_or(("TOW needs what to tow".to_string(), EXAMPLE))?;
        let ship_name = self.state.ships.get(ship).map_or(name, |s| s.name.clone());
        let entry = self.orders.moves.entry(ship_name.clone()).or_default();
        let first = entry.first.get_or_insert_with(Move::default);
        first.tow = Some(target.clone());
        self.orders.written_move(&ship_name, true);
        self.understood.push(format!(
            "{ship_name}: take {target} in tow after movement 1"
        ));
        Ok(())
    }

    fn release(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        let name = cursor
            .next()
            .ok_or(("RELEASE needs your ship".to_string(), "RELEASE Tug"))?;
        let ship = self.own_ship(&name).map_err(|e| (e, "RELEASE Tug"))?;
        let ship_name = self.state.ships.get(ship).map_or(name, |s| s.name.clone());
        self.orders
            .moves
            .entry(ship_name.clone())
            .or_default()
            .release = true;
        self.understood
            .push(format!("{ship_name}: release the tow"));
        Ok(())
    }

    fn is_weapon(item: &Item) -> bool {
        matches!(item, Item::Weapon(_))
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

    fn fire(
        &mut self,
        cursor: &mut Cursor,
        line: usize,
        raw: &str,
    ) -> Result<(), (String, &'static str)> {
        let word = cursor
            .next()
            .ok_or(("name the weapon: Ship.Section".to_string(), FIRE_EXAMPLE))?;
        let word = if !word.contains('.') && !cursor.peek_is(&["AT"]) {
            format!("{word}.{}", cursor.next().unwrap_or_default())
        } else {
            word
        };
        let (ship, item) = self
            .own_item(&word, Self::is_weapon, "weapon")
            .map_err(|e| (e, FIRE_EXAMPLE))?;
        if !cursor.peek_is(&["AT"]) {
            return Err(("FIRE needs AT and an aim".to_string(), FIRE_EXAMPLE));
        }
        cursor.next();
        let aim = self.aim(cursor).map_err(|e| (e, FIRE_EXAMPLE))?;
        let (range, sweep) = self.shot_options(cursor, ship, item)?;
        self.mark_used(ship, item, &word)
            .map_err(|e| (e, FIRE_EXAMPLE))?;
        let hull = self
            .hull(ship)
            .ok_or(("the ship's design does not check".to_string(), FIRE_EXAMPLE))?;
        let slot = hull
            .items
            .get(item)
            .cloned()
            .ok_or(("no such weapon".to_string(), FIRE_EXAMPLE))?;
        let gun = self
            .state
            .ships
            .get(ship)
            .and_then(|s| s.part_polygon(hull, slot.part))
            .map(|p| p.centre());
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(String::new(), |s| s.name.clone());
        let Item::Weapon(spec) = slot.item else {
            return Err(("that is not a weapon".to_string(), FIRE_EXAMPLE));
        };
        let distance = gun.zip(self.aim_now(&aim)).map(|(g, a)| g.distance(a));
        if let Aim::Section { ship: target, .. } = &aim
            && self
                .state
                .ship_index(target)
                .and_then(|i| self.state.ships.get(i))
                .is_some_and(|s| s.owner == self.player)
        {
            self.warn(line, raw, "you are aiming at your own ship", FIRE_EXAMPLE);
        }
        let mut text = format!(
            "{ship_name}.{} ({}) fires at {}",
            slot.name,
            spec.describe(),
            aim.show()
        );
        if let Some(distance) = distance {
            text.push_str(&format!(", {}\" away now", show_hundredths(distance)));
            if distance > spec.range() && !spec.kind.is_torpedo() {
                self.warn(line, raw, format!("the aim is {}\" away, beyond the range of {}\": the shot stops short unless the target closes", show_hundredths(distance), show_hundredths(spec.range())), FIRE_EXAMPLE);
            }
        }
        if let Some(range) = range {
            text.push_str(&format!(", torpedo run {}\"", show_hundredths(range)));
        }
        if let Some(sweep) = sweep {
            text.push_str(&format!(
                ", sweep {} {}\"",
                if sweep.side == Side::Left {
                    "left"
                } else {
                    "right"
                },
                show_hundredths(sweep.step)
            ));
        }
        let weapon = slot.name.clone();
        self.understood.push(text);
        self.orders.actions.push(Action::Fire {
            ship: ship_name,
            weapon,
            aim,
            range,
            sweep,
        });
        Ok(())
    }

    /// `RANGE r` for torpedoes, `SWEEP L|R [step]` for lasers.
    fn shot_options(
        &self,
        cursor: &mut Cursor,
        ship: usize,
        item: usize,
    ) -> Result<ShotOptions, Refusal> {
        let spec = self
            .hull(ship)
            .and_then(|h| h.items.get(item))
            .and_then(|s| match s.item {
                Item::Weapon(w) => Some(w),
                Item::Module(_) => None,
            });
        let kind = spec.map(|s| s.kind);
        let mut range = None;
        let mut sweep = None;
        while !cursor.done() {
            if cursor.peek_is(&["RANGE"]) {
                cursor.next();
                let value = cursor.inches().ok_or((
                    "RANGE needs inches".to_string(),
                    "FIRE Lancer.S4 AT Anvil.S2 RANGE 15",
                ))?;
                if !kind.is_some_and(WeaponKind::is_torpedo) {
                    return Err((
                        "only a torpedo declares a range (FOREVER-WPN-TORP-8)".to_string(),
                        FIRE_EXAMPLE,
                    ));
                }
                let max = spec.map_or(0, |s| s.range());
                if value < 0 || value > max {
                    return Err((
                        format!(
                            "the declared range must be 0 to the torpedo's range of {}\" (FOREVER-GM-18)",
                            show_hundredths(max)
                        ),
                        "FIRE Lancer.S4 AT Anvil.S2 RANGE 15",
                    ));
                }
                range = Some(value);
            } else if cursor.peek_is(&["SWEEP"]) {
                cursor.next();
                if kind != Some(WeaponKind::Laser) {
                    return Err((
                        "only a laser sweeps (FOREVER-WPN-LASER-4)".to_string(),
                        FIRE_EXAMPLE,
                    ));
                }
                let mut value = Sweep::default();
                if cursor.peek_is(&["L", "LEFT"]) {
                    cursor.next();
                    value.side = Side::Left;
                } else if cursor.peek_is(&["R", "RIGHT"]) {
                    cursor.next();
                }
                if cursor.peek().is_some_and(looks_numeric) {
                    let step = cursor.inches().ok_or((
                        "the sweep step is 0.5 to 1 inch".to_string(),
                        "SWEEP L 0.75",
                    ))?;
                    if !(50..=100).contains(&step) {
                        return Err((
                            "the sweep step is 0.5 to 1 inch (FOREVER-WPN-LASER-4)".to_string(),
                            "SWEEP L 0.75",
                        ));
                    }
                    value.step = step;
                }
                sweep = Some(value);
            } else {
                return Err((
                    format!(
                        "{} is not understood after the aim",
                        cursor.peek().unwrap_or("")
                    ),
                    "FIRE Lancer.S1 AT Anvil.S3 RANGE 15 SWEEP L 0.75",
                ));
            }
        }
        Ok((range, sweep))
    }

    fn battery(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "BATTERY Lancer.S1/1, S1/2 AT Anvil.S3";
        let mut names = Vec::new();
        while !cursor.done() && !cursor.peek_is(&["AT"]) {
            let word = cursor.next().unwrap_or_default();
            names.extend(
                word.split(',')
                    .map(str::trim)
                    .filter(|w| !w.is_empty())
                    .map(String::from),
            );
        }
        let Some(first) = names.first().cloned() else {
            return Err(("list the battery's weapons".to_string(), EXAMPLE));
        };
        let (ship_name, _) =
            Self::split_ref(&first).ok_or(("start with Ship.Weapon".to_string(), EXAMPLE))?;
        let mut items = Vec::new();
        for name in &names {
            let full = if name.contains('.') {
                name.clone()
            } else {
                format!("{ship_name}.{name}")
            };
            let (ship, item) = self
                .own_item(&full, Self::is_weapon, "weapon")
                .map_err(|e| (e, EXAMPLE))?;
            items.push((ship, item));
        }
        let ship = items.first().map_or(0, |(s, _)| *s);
        if items.iter().any(|(s, _)| *s != ship) {
            return Err((
                "a battery's weapons must be on one ship".to_string(),
                EXAMPLE,
            ));
        }
        if items.len() < 2 {
            return Err(("a battery needs at least two weapons".to_string(), EXAMPLE));
        }
        let hull = self
            .hull(ship)
            .ok_or(("the ship's design does not check".to_string(), EXAMPLE))?;
        let specs: Vec<Item> = items
            .iter()
            .filter_map(|(_, i)| hull.items.get(*i).map(|s| s.item))
            .collect();
        if specs.windows(2).any(|pair| pair.first() != pair.get(1)) {
            return Err((
                "a battery's weapons must have the same type and stats (FOREVER-BAT-1)".to_string(),
                EXAMPLE,
            ));
        }
        let weapon_names: Vec<String> = items
            .iter()
            .filter_map(|(_, i)| hull.items.get(*i).map(|s| s.name.clone()))
            .collect();
        if !cursor.peek_is(&["AT"]) {
            return Err(("BATTERY needs AT and an aim".to_string(), EXAMPLE));
        }
        cursor.next();
        let aim = self.aim(cursor).map_err(|e| (e, EXAMPLE))?;
        let first_item = items.first().map_or(0, |(_, i)| *i);
        let (range, sweep) = self.shot_options(cursor, ship, first_item)?;
        for (ship, item) in &items {
            self.mark_used(
                *ship,
                *item,
                &format!("{ship_name}.{}", self.item_label(*ship, *item)),
            )
            .map_err(|e| (e, EXAMPLE))?;
        }
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(ship_name, |s| s.name.clone());
        self.understood.push(format!(
            "{ship_name}: battery of {} ({}) fires at {}",
            weapon_names.len(),
            weapon_names.join(", "),
            aim.show()
        ));
        self.orders.actions.push(Action::Battery {
            ship: ship_name,
            weapons: weapon_names,
            aim,
            range,
            sweep,
        });
        Ok(())
    }

    fn item_label(&self, ship: usize, item: usize) -> String {
        self.hull(ship)
            .and_then(|h| h.items.get(item))
            .map_or(String::new(), |s| s.name.clone())
    }

    fn module_order(
        &mut self,
        cursor: &mut Cursor,
        wanted: fn(&Item) -> bool,
        what: &str,
        example: &'static str,
    ) -> Result<(usize, usize, String, String), (String, &'static str)> {
        let word = cursor
            .next()
            .ok_or((format!("name the {what}: Ship.Section"), example))?;
        let (ship, item) = self
            .own_item(&word, wanted, what)
            .map_err(|e| (e, example))?;
        // A nano matrix may heal several sections while its energy lasts; everything else
        // acts once a phase (FOREVER-GM-50).
        let repeatable = self
            .hull(ship)
            .and_then(|h| h.items.get(item))
            .is_some_and(|slot| matches!(slot.item, Item::Module(ModuleSpec::NanoMatrix { .. })));
        if !repeatable {
            self.mark_used(ship, item, &word)
                .map_err(|e| (e, example))?;
        }
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(String::new(), |s| s.name.clone());
        Ok((ship, item, ship_name, self.item_label(ship, item)))
    }

    fn emp(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "EMP Lancer.S6 AT Anvil.S2";
        let (_, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::Emp { .. })),
            "EMP",
            EXAMPLE,
        )?;
        if !cursor.peek_is(&["AT"]) {
            return Err(("EMP needs AT and an aim".to_string(), EXAMPLE));
        }
        cursor.next();
        let aim = self.aim(cursor).map_err(|e| (e, EXAMPLE))?;
        self.understood
            .push(format!("{ship}.{module} EMP fires at {}", aim.show()));
        self.orders.actions.push(Action::Emp { ship, module, aim });
        Ok(())
    }

    fn nano(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "NANO Lancer.S8 HEAL Lancer.S1 3";
        let (_, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::NanoMatrix { .. })),
            "nano matrix",
            EXAMPLE,
        )?;
        if cursor.peek_is(&["HEAL"]) {
            cursor.next();
        }
        let target = cursor
            .next()
            .ok_or(("name the section to heal".to_string(), EXAMPLE))?;
        let (target_ship, target_section) = Self::split_ref(&target).ok_or((
            "name the section to heal: Ship.Section".to_string(),
            EXAMPLE,
        ))?;
        let index = self
            .state
            .ship_index(&target_ship)
            .ok_or((format!("there is no ship {target_ship}"), EXAMPLE))?;
        let hull = self
            .hull(index)
            .ok_or(("the ship's design does not check".to_string(), EXAMPLE))?;
        let part = hull.part_index(&target_section).ok_or((
            format!("{target_ship} has no section {target_section}"),
            EXAMPLE,
        ))?;
        let amount = cursor
            .number()
            .filter(|n| *n > 0)
            .ok_or(("say how many HP to heal".to_string(), EXAMPLE))?;
        let target_ship = self
            .state
            .ships
            .get(index)
            .map_or(target_ship, |s| s.name.clone());
        let target_section = hull
            .parts
            .get(part)
            .map_or(target_section, |p| p.name.clone());
        self.understood.push(format!(
            "{ship}.{module} heals {target_ship}.{target_section} by up to {amount}"
        ));
        self.orders.actions.push(Action::Heal {
            ship,
            module,
            target_ship,
            target_section,
            amount,
        });
        Ok(())
    }

    fn launch(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "LAUNCH Lancer.S9 TO 40, 20";
        let (_, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::DemeterLauncher { .. })),
            "demeter launcher",
            EXAMPLE,
        )?;
        let go = match Self::destination(cursor) {
            Some(go) => Some(go.map_err(|e| (e, EXAMPLE))?),
            None => None,
        };
        if !cursor.done() {
            return Err((
                format!("{} is not understood", cursor.peek().unwrap_or("")),
                EXAMPLE,
            ));
        }
        self.understood.push(format!(
            "{ship}.{module} launches a demeter{}",
            go.map_or(String::new(), |g| match g {
                Destination::To(p) => format!(" that moves to {}", p.show()),
                Destination::By(p) => format!(" that moves by {}", p.show()),
            })
        ));
        self.orders
            .actions
            .push(Action::Launch { ship, module, go });
        Ok(())
    }

    fn computer(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "TC Lancer.S10 FOR S1 ELSE AT Anvil.S4";
        let (ship_index, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::TargetingComputer)),
            "targeting computer",
            EXAMPLE,
        )?;
        if !cursor.peek_is(&["FOR"]) {
            return Err(("TC needs FOR and the weapon".to_string(), EXAMPLE));
        }
        cursor.next();
        let weapon = cursor
            .next()
            .ok_or(("name the weapon".to_string(), EXAMPLE))?;
        let weapon = weapon
            .split_once('.')
            .map_or(weapon.clone(), |(_, w)| w.to_string());
        let hull = self
            .hull(ship_index)
            .ok_or(("the ship's design does not check".to_string(), EXAMPLE))?;
        let gun = hull
            .weapon(&weapon)
            .ok_or((format!("{ship} has no weapon {weapon}"), EXAMPLE))?;
        let weapon = hull.items.get(gun).map_or(weapon, |s| s.name.clone());
        let mut fallback = None;
        if cursor.peek_is(&["ELSE", "OR"]) {
            cursor.next();
            if cursor.peek_is(&["AT"]) {
                cursor.next();
            }
            fallback = Some(self.aim(cursor).map_err(|e| (e, EXAMPLE))?);
        }
        self.understood.push(format!(
            "{ship}.{module} watches {weapon}'s range{}",
            fallback
                .as_ref()
                .map_or(String::from(": holds fire if out of range"), |a| format!(
                    ", else fires at {}",
                    a.show()
                ))
        ));
        self.orders.actions.push(Action::Computer {
            ship,
            module,
            weapon,
            fallback,
        });
        Ok(())
    }

    fn flux(
        &mut self,
        cursor: &mut Cursor,
        line: usize,
        raw: &str,
    ) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "FLUX Lancer.S7 BEARING 45 LEN 6";
        let (ship_index, item, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::FluxProjector { .. })),
            "flux projector",
            EXAMPLE,
        )?;
        let mut bearing = None;
        let mut length = None;
        while !cursor.done() {
            if cursor.peek_is(&["BEARING", "DIRECTION", "ANGLE"]) {
                cursor.next();
                bearing = cursor.number();
            } else if cursor.peek_is(&["LEN", "LENGTH"]) {
                cursor.next();
                length = cursor.number();
            } else {
                return Err((
                    format!("{} is not understood", cursor.peek().unwrap_or("")),
                    EXAMPLE,
                ));
            }
        }
        let bearing = Degrees::new(
            bearing.ok_or(("FLUX needs BEARING in whole degrees".to_string(), EXAMPLE))?,
        );
        let length = length
            .filter(|l| *l >= 1)
            .ok_or(("FLUX needs LEN in whole inches".to_string(), EXAMPLE))?;
        // The line is drawn after the turn's recharge (FOREVER-MOD-FLUX-6, FOREVER-DEF-ENERGY):
        // what is left now plus the dice may pay for it, up to the pool's size.
        let (max, dice) = self
            .hull(ship_index)
            .and_then(|h| h.items.get(item))
            .and_then(|slot| match &slot.item {
                Item::Module(module) => module.energy(),
                Item::Weapon(_) => None,
            })
            .unwrap_or((0, 0));
        let energy = self
            .state
            .ships
            .get(ship_index)
            .and_then(|s| s.items.get(item))
            .and_then(|s| s.energy)
            .unwrap_or(max);
        let best = if energy >= max {
            energy
        } else {
            (energy + 6 * i64::from(dice)).min(max)
        };
        if length > best {
            return Err((
                if best == max {
                    format!(
                        "a {length}\" line needs {length} energy; the projector holds at most {max} (FOREVER-MOD-FLUX-3/4)"
                    )
                } else {
                    format!(
                        "a {length}\" line needs {length} energy; the projector has {energy} now and its recharge ({dice}d6) can bring it to {best} at most (FOREVER-MOD-FLUX-3/6)"
                    )
                },
                EXAMPLE,
            ));
        }
        if length > energy {
            self.warn(
                line,
                raw,
                format!(
                    "the projector has {energy} energy now: the line is drawn only if the recharge at the start of your turn ({dice}d6) brings at least {} more (FOREVER-MOD-FLUX-6)",
                    length - energy
                ),
                EXAMPLE,
            );
        }
        self.understood.push(format!(
            "{ship}.{module} draws a flux line {length}\" at {bearing}"
        ));
        self.orders.actions.push(Action::Flux {
            ship,
            module,
            bearing,
            length,
        });
        Ok(())
    }

    fn demeter(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "DEMETER Lancer/D1 FIRE AT Anvil.S2";
        let name = cursor
            .next()
            .ok_or(("name the demeter".to_string(), EXAMPLE))?;
        let demeter = self
            .state
            .demeters
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(&name) && !d.gone)
            .ok_or((format!("there is no demeter {name} in play"), EXAMPLE))?;
        if demeter.owner != self.player {
            return Err((format!("{} is not yours", demeter.name), EXAMPLE));
        }
        let name = demeter.name.clone();
        let verb = cursor.next().unwrap_or_default().to_ascii_uppercase();
        let entry = self.orders.demeters.entry(name.clone()).or_default();
        match verb.as_str() {
            "MOVE" | "MOVE1" | "MOVE2" => {
                let go = Self::destination(cursor)
                    .ok_or((
                        "MOVE needs TO x, y or BY dx, dy".to_string(),
                        "DEMETER Lancer/D1 MOVE TO 41, 22",
                    ))?
                    .map_err(|e| (e, "DEMETER Lancer/D1 MOVE TO 41, 22"))?;
                if verb == "MOVE2" {
                    entry.second = Some(go);
                } else {
                    entry.first = Some(go);
                }
                self.understood.push(format!(
                    "{name}: movement {}",
                    if verb == "MOVE2" { 2 } else { 1 }
                ));
            }
            "FIRE" => {
                if cursor.peek_is(&["AT"]) {
                    cursor.next();
                }
                let aim = self.aim(cursor).map_err(|e| (e, EXAMPLE))?;
                self.understood
                    .push(format!("{name} fires its gun at {}", aim.show()));
                if let Some(entry) = self.orders.demeters.get_mut(&name) {
                    entry.fire = Some(aim);
                }
            }
            _ => return Err(("a demeter can MOVE, MOVE2 or FIRE".to_string(), EXAMPLE)),
        }
        Ok(())
    }

    fn deflect(&mut self, cursor: &mut Cursor) -> Result<(), (String, &'static str)> {
        const EXAMPLE: &str = "DEFLECT Lancer.S3 PROTECT S1, S2";
        let word = cursor
            .next()
            .ok_or(("name the deflector: Ship.Section".to_string(), EXAMPLE))?;
        let (ship, item) = self
            .own_item(
                &word,
                |i| matches!(i, Item::Module(ModuleSpec::Deflector { .. })),
                "deflector",
            )
            .map_err(|e| (e, EXAMPLE))?;
        let hull = self
            .hull(ship)
            .ok_or(("the ship's design does not check".to_string(), EXAMPLE))?;
        let own_part = hull.items.get(item).map_or(0, |s| s.part);
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(String::new(), |s| s.name.clone());
        let module = self.item_label(ship, item);
        if cursor.peek_is(&["PROTECT", "PROTECTS", "ON"]) {
            cursor.next();
        }
        let rest: Vec<String> = std::iter::from_fn(|| cursor.next())
            .flat_map(|w| {
                w.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .filter(|w| !w.eq_ignore_ascii_case("and"))
            .collect();
        let protect = match rest.as_slice() {
            [] => {
                return Err((
                    "say what it protects: section names, ANY or OFF".to_string(),
                    EXAMPLE,
                ));
            }
            [one] if one.eq_ignore_ascii_case("ANY") || one.eq_ignore_ascii_case("ALL") => {
                Some(Protect::Any)
            }
            [one] if one.eq_ignore_ascii_case("OFF") || one.eq_ignore_ascii_case("NONE") => None,
            names => {
                let mut sections = Vec::new();
                for name in names {
                    let part = hull
                        .part_index(name)
                        .ok_or((format!("{ship_name} has no section {name}"), EXAMPLE))?;
                    if part == 0 {
                        return Err((
                            "a deflector cannot shield the core (FOREVER-MOD-DEF-3)".to_string(),
                            EXAMPLE,
                        ));
                    }
                    if part == own_part {
                        return Err((
                            "a deflector cannot shield its own section (FOREVER-MOD-DEF-3)"
                                .to_string(),
                            EXAMPLE,
                        ));
                    }
                    sections.push(
                        hull.parts
                            .get(part)
                            .map_or(name.clone(), |p| p.name.clone()),
                    );
                }
                Some(Protect::Sections(sections))
            }
        };
        self.understood.push(match &protect {
            Some(Protect::Any) => format!("standing order: {ship_name}.{module} deflector shields the first section of {ship_name} an enemy shot aims at"),
            Some(Protect::Sections(names)) => format!("standing order: {ship_name}.{module} deflector shields {} when an enemy shot aims at it", names.join(", ")),
            None => format!("standing order for {ship_name}.{module} cancelled"),
        });
        self.orders.deflect.push(Deflect {
            ship: ship_name,
            module,
            protect,
        });
        Ok(())
    }

    fn finish(mut self) -> ParsedOrders<Orders> {
        if self.state.phase == Phase::Building
            && !self.orders.designs.is_empty()
            && !self.design_failed
        {
            if let Err(problems) = crate::turn::check_fleet(self.state, self.player, &self.orders) {
                for problem in problems {
                    let (line, text) = self
                        .design_lines
                        .iter()
                        .find(|(name, _, _)| {
                            problem.starts_with(name.as_str())
                                || problem.contains(&format!(" {name} "))
                        })
                        .or_else(|| self.design_lines.first())
                        .map_or((1, String::new()), |(_, line, text)| (*line, text.clone()));
                    self.error(line, &text, problem, "DEPLOY Lancer AT 10, 24 FACING 0");
                }
            } else {
                let total: crate::design::Points = self
                    .orders
                    .designs
                    .iter()
                    .filter_map(|d| Hull::check(d).ok())
                    .map(|h| h.cost())
                    .sum();
                self.understood.push(format!(
                    "fleet of {} ships, {total} of {} points",
                    self.orders.designs.len(),
                    self.state.setup.points_limit
                ));
            }
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
