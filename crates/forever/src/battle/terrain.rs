//! Terrain and what moves on its own: meteor showers (FOREVER-TER-2, FOREVER-GM-40), black
//! holes (FOREVER-TER-3, FOREVER-GM-41), and jettisoned bodies drifting off the table
//! (FOREVER-JET-3/4, FOREVER-GM-34). Rocks are solid things met by lines and moves
//! (FOREVER-TER-1, FOREVER-GM-39).

use super::{Battle, RowKey, Thing};
use crate::fixed::{Degrees, show_hundredths};
use crate::geometry::{Frac, Point, Polygon};
use crate::state::{Meteor, MeteorGroup, PartStatus};

/// How far a jettisoned body drifts in a round: 3d6 × 10 ÷ mass inches, floored to hundredths
/// and held between 3" and 18" (FOREVER-JET-4, FOREVER-GM-34). In hundredths.
pub fn drift_distance(roll: i64, mass16: i64) -> i64 {
    let raw = if mass16 <= 0 {
        1800
    } else {
        roll * 10 * 100 * 16 / mass16
    };
    raw.clamp(300, 1800)
}

/// A black hole's pull on something whose nearest edge is `distance` away: 12" − d/2, none
/// from 24" out (FOREVER-TER-3, FOREVER-GM-41). In hundredths.
pub fn black_hole_pull(distance: i64) -> Option<i64> {
    (distance < 2400).then(|| 1200 - distance / 2)
}

/// Where a ray from `from` along `direction` leaves the table.
fn table_edge(from: Point, direction: Point, width: i64, height: i64) -> Point {
    let mut t: Option<Frac> = None;
    let mut limit = |start: i64, delta: i64, high: i64| {
        let candidate = if delta > 0 {
            Some(Frac::new(i128::from(high - start), i128::from(delta)))
        } else if delta < 0 {
            Some(Frac::new(i128::from(-start), i128::from(delta)))
        } else {
            None
        };
        if let Some(c) = candidate {
            t = Some(t.map_or(c, |old: Frac| old.min(c)));
        }
    };
    limit(from.x, direction.x, width);
    limit(from.y, direction.y, height);
    let t = t.unwrap_or(Frac::ZERO);
    from + Point::new(t.of(direction.x), t.of(direction.y))
}

impl Battle<'_> {
    /// Everything at the start of a round, before the first player-turn, in the catalogue's
    /// dice order: meteors, drift, then black-hole pulls on bodies, meteors and demeters.
    pub fn round_start(&mut self) {
        if self.state.setup.meteors {
            self.meteor_check();
        }
        self.loose_things_move();
        self.pull_loose_things();
    }

    /// Meteor showers and drifting bodies move: at the start of the round, and with
    /// `drift: per_player_turn` at the start of every later player-turn too (FOREVER-JET-4,
    /// FOREVER-TER-2).
    pub fn loose_things_move(&mut self) {
        if self.state.setup.meteors {
            self.move_meteors();
        }
        self.drift_bodies();
    }

    /// The meteor check and, unless it shows a hit, a new shower at the table edge
    /// (FOREVER-TER-2, FOREVER-GM-13, FOREVER-GM-40).
    fn meteor_check(&mut self) {
        let roll = self.dice.open.d6();
        let hit_faces = self.state.setup.meteor_hit_faces;
        if roll <= hit_faces {
            self.log.notes.push(format!(
                "Meteor check: D6 {roll}, a hit: no meteors this round."
            ));
            return;
        }
        let (width, height) = (self.state.setup.width(), self.state.setup.height());
        let centre = Point::new(width / 2, height / 2);
        let bearing = Degrees::new(i64::from(self.dice.open.bearing()));
        let edge = table_edge(centre, Point::polar(10_000, bearing), width, height);
        let count = self.dice.open.d6();
        let inward = Degrees::new(bearing.get() + 180);
        let mut meteors = Vec::new();
        let mut at = edge;
        for k in 0..count {
            if k > 0 {
                at = at + Point::polar(200, Degrees::new(inward.get() + 60 * i64::from(k - 1)));
            }
            meteors.push(Meteor {
                id: self.state.next_id,
                at,
                hp: 3,
            });
            self.state.next_id += 1;
        }
        let scatter_bearing = self.dice.open.bearing();
        let scatter = i64::from(self.dice.open.d6()) - 1;
        let marker = edge
            + (centre - edge).with_length(600)
            + Point::polar(scatter * 100, Degrees::new(i64::from(scatter_bearing)));
        let heading = if marker == edge {
            centre - edge
        } else {
            marker - edge
        };
        let id = self.state.next_id;
        self.state.next_id += 1;
        self.log.notes.push(format!(
            "Meteor check: D6 {roll}; a shower of {count} (D6) at {} (bearing {bearing}), heading toward {} (scatter {scatter_bearing}°/{scatter}\").",
            edge.show(),
            marker.show()
        ));
        self.state.meteor_groups.push(MeteorGroup {
            id,
            heading,
            meteors,
        });
    }

    /// Every group moves one shared 3d6", oldest first; meteors ram what they meet and leave
    /// the table (FOREVER-GM-40).
    fn move_meteors(&mut self) {
        let (width, height) = (self.state.setup.width(), self.state.setup.height());
        let table = Polygon::rect(0, 0, width, height);
        for group in 0..self.state.meteor_groups.len() {
            let Some(data) = self.state.meteor_groups.get(group) else {
                continue;
            };
            if data.meteors.iter().all(|m| m.hp <= 0) {
                continue;
            }
            let heading = data.heading;
            let count = data.meteors.len();
            let roll = i64::from(self.dice.open.three_d6());
            let by = heading.with_length(roll * 100);
            let mut events = Vec::new();
            for index in 0..count {
                let thing = Thing::Meteor(group, index);
                let Some(shape) = self.shape(thing) else {
                    continue;
                };
                let movers = [(thing, shape)];
                let same_group = move |t: Thing| {
                    matches!(t, Thing::Meteor(g, _) if g == group) || matches!(t, Thing::Demeter(_))
                };
                let (actual, contact, glanced) = self.loose_move(&movers, by, &same_group);
                if let Some(past) = glanced {
                    let name = self.name(thing);
                    events.push(format!("{name} glanced off {past}"));
                }
                self.push_demeters(&movers, actual);
                if let Some(meteor) = self
                    .state
                    .meteor_groups
                    .get_mut(group)
                    .and_then(|g| g.meteors.get_mut(index))
                {
                    meteor.at = meteor.at + actual;
                }
                if let Some((_, _, obstacle)) = contact {
                    self.ram(thing, obstacle, actual.length(), &mut events);
                }
                let off = self.shape(thing).is_some_and(|s| {
                    s.corners.iter().all(|c| !table.contains(*c)) && !s.meets(&table)
                });
                if off
                    && let Some(meteor) = self
                        .state
                        .meteor_groups
                        .get_mut(group)
                        .and_then(|g| g.meteors.get_mut(index))
                {
                    meteor.hp = 0;
                    events.push(format!("meteor {} left the table", meteor.id));
                }
            }
            let id = self.state.meteor_groups.get(group).map_or(0, |g| g.id);
            let mut note = format!("Meteor shower {id} moved {roll}\" (3d6).");
            if !events.is_empty() {
                note.push(' ');
                note.push_str(&events.join("; "));
                note.push('.');
            }
            self.log.notes.push(note);
        }
    }

    /// Jettisoned bodies drift 3d6 × 10 ÷ mass, in ID order, until they leave the table
    /// (FOREVER-JET-3/4, FOREVER-GM-34).
    fn drift_bodies(&mut self) {
        let (width, height) = (self.state.setup.width(), self.state.setup.height());
        let table = Polygon::rect(0, 0, width, height);
        for index in 0..self.state.bodies.len() {
            let Some(body) = self.state.bodies.get(index) else {
                continue;
            };
            if body.gone || body.towed_by.is_some() {
                continue;
            }
            let key = RowKey::Body(body.id);
            let mass = body.mass16();
            let heading = body.heading;
            let roll = i64::from(self.dice.open.three_d6());
            let distance = drift_distance(roll, mass);
            let by = heading.with_length(distance);
            let movers: Vec<(Thing, Polygon)> = (0..body.sections.len())
                .filter_map(|s| {
                    self.shape(Thing::BodySection(index, s))
                        .map(|p| (Thing::BodySection(index, s), p))
                })
                .collect();
            let (actual, contact, glanced) =
                self.loose_move(&movers, by, &|t| matches!(t, Thing::Demeter(_)));
            self.push_demeters(&movers, actual);
            if let Some(body) = self.state.bodies.get_mut(index) {
                for section in &mut body.sections {
                    section.shape = section.shape.translated(actual);
                }
            }
            let mut text = format!(
                "drifted {}\" (3d6 {roll} × 10 ÷ mass {})",
                show_hundredths(actual.length()),
                crate::design::hull::show_mass(mass)
            );
            if let Some(past) = glanced {
                text.push_str(&format!(", glancing off {past}"));
            }
            if let Some((_, mover, obstacle)) = contact {
                let mut effects = Vec::new();
                self.ram(mover, obstacle, actual.length(), &mut effects);
                text.push_str(&format!("; {}", effects.join("; ")));
            }
            let off = self.state.bodies.get(index).is_some_and(|b| {
                b.sections
                    .iter()
                    .filter(|s| !s.destroyed)
                    .all(|s| !s.shape.meets(&table))
            });
            if off {
                text.push_str("; left the table");
                self.body_gone(index);
            }
            self.log.result(key, text);
        }
    }

    /// A loose thing's move along `by` (a drifting body or a meteor): up to its first contact,
    /// and the contact. A thing that rammed something and stopped (FOREVER-ADM-11) is still
    /// touching it a round later; going straight on it would meet it again at once and stay
    /// pinned for ever, where the text has it go on until it leaves the table (FOREVER-JET-3,
    /// FOREVER-TER-2). So a thing that cannot move at all along its heading glances off what
    /// blocks it: this once it moves the same distance in the nearest direction that is
    /// clear, 15° at a time up to square to its heading, left before right, and keeps its
    /// heading for later rounds. Returns the move, the contact along it and, if it glanced,
    /// the name of what it glanced off. Wedged on every side, it stays.
    pub fn loose_move(
        &self,
        movers: &[(Thing, Polygon)],
        by: Point,
        ignore: &dyn Fn(Thing) -> bool,
    ) -> (Point, Option<(Frac, Thing, Thing)>, Option<String>) {
        let along = |direction: Point| {
            let contact = self.first_contact(movers, direction, ignore);
            let actual = contact.map_or(direction, |(t, _, _)| {
                Point::new(
                    t.of_towards_zero(direction.x),
                    t.of_towards_zero(direction.y),
                )
            });
            (actual, contact)
        };
        let (actual, contact) = along(by);
        let Some((_, _, blocker)) = contact else {
            return (actual, contact, None);
        };
        if actual != Point::ORIGIN {
            return (actual, contact, None);
        }
        for step in 1..=6 {
            for sign in [1, -1] {
                let direction = by.rotated(Degrees::new(sign * 15 * step));
                let (moved, met) = along(direction);
                if moved != Point::ORIGIN {
                    return (moved, met, Some(self.name(blocker)));
                }
            }
        }
        (Point::ORIGIN, contact, None)
    }

    /// A body leaves play: what is left of it scores for whoever broke it off
    /// (FOREVER-GM-43).
    pub fn body_gone(&mut self, index: usize) {
        let Some(body) = self.state.bodies.get_mut(index) else {
            return;
        };
        if body.gone {
            return;
        }
        body.gone = true;
        let value = body
            .sections
            .iter()
            .filter(|s| !s.destroyed)
            .map(|s| s.value)
            .sum();
        let (credit, owner) = (body.credit, body.owner);
        self.score(credit, owner, value);
        self.check_tows();
    }

    /// Black-hole pulls at the start of the round on bodies, meteors and demeters
    /// (FOREVER-GM-41).
    fn pull_loose_things(&mut self) {
        for hole in 0..self.state.setup.black_holes.len() {
            let Some(centre) = self.state.setup.black_holes.get(hole).map(|h| h.at) else {
                continue;
            };
            for index in 0..self.state.bodies.len() {
                let Some(body) = self.state.bodies.get(index) else {
                    continue;
                };
                if body.gone || body.towed_by.is_some() {
                    continue;
                }
                let key = RowKey::Body(body.id);
                let movers: Vec<(Thing, Polygon)> = (0..body.sections.len())
                    .filter_map(|s| {
                        self.shape(Thing::BodySection(index, s))
                            .map(|p| (Thing::BodySection(index, s), p))
                    })
                    .collect();
                let reference = body.centre();
                if let Some(text) = self.pull(&movers, reference, centre) {
                    match text {
                        Pull::Swallowed => {
                            self.body_gone(index);
                            self.log
                                .result(key, "pulled into the black hole: destroyed");
                        }
                        Pull::Moved(by, text) => {
                            if let Some(body) = self.state.bodies.get_mut(index) {
                                for section in &mut body.sections {
                                    section.shape = section.shape.translated(by);
                                }
                            }
                            self.log.result(key, text);
                        }
                    }
                }
            }
            for group in 0..self.state.meteor_groups.len() {
                for index in 0..self
                    .state
                    .meteor_groups
                    .get(group)
                    .map_or(0, |g| g.meteors.len())
                {
                    let thing = Thing::Meteor(group, index);
                    let Some(shape) = self.shape(thing) else {
                        continue;
                    };
                    let reference = shape.centre();
                    let outcome = self.pull(&[(thing, shape)], reference, centre);
                    let Some(meteor) = self
                        .state
                        .meteor_groups
                        .get_mut(group)
                        .and_then(|g| g.meteors.get_mut(index))
                    else {
                        continue;
                    };
                    match outcome {
                        Some(Pull::Swallowed) => {
                            meteor.hp = 0;
                            let id = meteor.id;
                            self.log
                                .notes
                                .push(format!("Meteor {id} fell into the black hole."));
                        }
                        Some(Pull::Moved(by, _)) => meteor.at = meteor.at + by,
                        None => {}
                    }
                }
            }
            for index in 0..self.state.demeters.len() {
                let thing = Thing::Demeter(index);
                let Some(shape) = self.shape(thing) else {
                    continue;
                };
                let key = self.row_for(thing);
                let reference = shape.centre();
                let outcome = self.pull(&[(thing, shape)], reference, centre);
                let Some(demeter) = self.state.demeters.get_mut(index) else {
                    continue;
                };
                let text = match outcome {
                    Some(Pull::Swallowed) => {
                        demeter.gone = true;
                        "pulled into the black hole: destroyed".to_string()
                    }
                    Some(Pull::Moved(by, text)) => {
                        demeter.at = demeter.at + by;
                        text
                    }
                    None => continue,
                };
                if let Some(key) = key {
                    self.log.result(key, text);
                }
            }
        }
    }

    /// Black-hole pulls on a player's ships at the start of their player-turn
    /// (FOREVER-TER-3, FOREVER-GM-41). Forced moves: contacts ram, the core included.
    pub fn pull_ships(&mut self, player: engine::PlayerId) {
        for hole in 0..self.state.setup.black_holes.len() {
            let Some(centre) = self.state.setup.black_holes.get(hole).map(|h| h.at) else {
                continue;
            };
            for ship in 0..self.state.ships.len() {
                let Some(data) = self.state.ships.get(ship) else {
                    continue;
                };
                if data.owner != player || data.destroyed || data.towed_by.is_some() {
                    continue;
                }
                let movers = self.moving_set(ship);
                match self.pull(&movers, data.at, centre) {
                    Some(Pull::Swallowed) => self.swallow(ship),
                    Some(Pull::Moved(by, _)) => {
                        self.translate_ship(ship, by, true, "black hole", &[]);
                    }
                    None => {}
                }
            }
        }
    }

    /// The pull on a set of shapes toward `centre`, or `None` if out of reach.
    fn pull(&self, movers: &[(Thing, Polygon)], reference: Point, centre: Point) -> Option<Pull> {
        let distance = movers
            .iter()
            .map(|(_, s)| s.distance_to_point(centre))
            .min()?;
        let pull = black_hole_pull(distance)?;
        if pull >= distance {
            return Some(Pull::Swallowed);
        }
        let toward = centre - reference;
        if toward == Point::ORIGIN {
            return Some(Pull::Swallowed);
        }
        let by = toward.with_length(pull);
        let contact = self.first_contact(movers, by, &|t| matches!(t, Thing::Demeter(_)));
        let actual = contact.map_or(by, |(t, _, _)| {
            Point::new(t.of_towards_zero(by.x), t.of_towards_zero(by.y))
        });
        Some(Pull::Moved(
            actual,
            format!(
                "pulled {}\" toward the black hole (nearest edge {}\" away)",
                show_hundredths(actual.length()),
                show_hundredths(distance)
            ),
        ))
    }

    /// A ship pulled into a black hole is gone, with no explosion and no score
    /// (FOREVER-GM-41, FOREVER-ADM-06).
    fn swallow(&mut self, ship: usize) {
        if let Some(data) = self.state.ships.get_mut(ship) {
            for part in &mut data.parts {
                if part.status == PartStatus::Attached {
                    part.status = PartStatus::Destroyed;
                }
            }
            for item in &mut data.items {
                item.destroyed = true;
            }
            data.destroyed = true;
        }
        let mut lost = Vec::new();
        self.lose_demeters(ship, &mut lost);
        self.refresh(ship);
        self.check_tows();
        self.note_ship(ship, "pulled into the black hole: destroyed");
        for text in lost {
            self.note_ship(ship, text);
        }
    }
}

enum Pull {
    Swallowed,
    Moved(Point, String),
}
