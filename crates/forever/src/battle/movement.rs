//! Movement: one straight translation per phase, then a rotation and swivels; contacts stop a
//! move and ram; demeters are pushed aside; tows move as one body (FOREVER-MOVE1-*,
//! FOREVER-MOVE2-*, FOREVER-RAM-*, FOREVER-MOD-TOW-*, FOREVER-GM-30/32/33/42).

use engine::PlayerId;

use super::damage::Hit;
use super::{Battle, RowKey, Thing};
use crate::design::{Item, ModuleSpec};
use crate::fixed::{Degrees, show_hundredths};
use crate::geometry::{Frac, Point, Polygon};
use crate::orders::{Destination, Facing, Move};
use crate::state::TowTarget;

/// Within this distance a defensive gunner reacts, in hundredths (FOREVER-MOD-DGN-2).
pub const GUNNER_REACH: i64 = 400;

/// Ramming damage: ⌊m_moving × (d/2) ÷ m_stationary⌋, masses in sixteenths and the
/// distance moved before contact in hundredths (FOREVER-RAM-1, FOREVER-GM-33).
pub fn ram_damage(moving16: i64, distance: i64, stationary16: i64) -> i64 {
    moving16 * distance / (2 * 100 * stationary16.max(1))
}

impl Battle<'_> {
    /// The things that move with a ship: its parts, and whatever it tows.
    pub fn moving_set(&self, ship: usize) -> Vec<(Thing, Polygon)> {
        let mut set = Vec::new();
        let add_ship = |set: &mut Vec<(Thing, Polygon)>, index: usize| {
            for part in 0..self.hulls.get(index).map_or(0, |h| h.parts.len()) {
                if let Some(shape) = self.part_shape(index, part) {
                    set.push((Thing::Part(index, part), shape.clone()));
                }
            }
        };
        add_ship(&mut set, ship);
        match self.state.ships.get(ship).and_then(|s| s.towing) {
            Some(TowTarget::Ship(id)) => {
                if let Some(index) = self.state.ships.iter().position(|s| s.id == id) {
                    add_ship(&mut set, index);
                }
            }
            Some(TowTarget::Body(id)) => {
                if let Some(index) = self.state.bodies.iter().position(|b| b.id == id) {
                    for section in 0..self.state.bodies.get(index).map_or(0, |b| b.sections.len()) {
                        let thing = Thing::BodySection(index, section);
                        if let Some(shape) = self.shape(thing) {
                            set.push((thing, shape));
                        }
                    }
                }
            }
            None => {}
        }
        set
    }

    /// The first contact of a moving set along `by` (FOREVER-GM-33): the fraction of the
    /// move, the moving thing and what it meets. Ties go to the lowest pair.
    pub fn first_contact(
        &self,
        movers: &[(Thing, Polygon)],
        by: Point,
        ignore: &dyn Fn(Thing) -> bool,
    ) -> Option<(Frac, Thing, Thing)> {
        if by == Point::ORIGIN || movers.is_empty() {
            return None;
        }
        let reach = movers
            .iter()
            .map(|(_, p)| p.bounds())
            .reduce(crate::geometry::Bounds::union)?;
        let reach = reach.union(reach.translated(by));
        let moving: Vec<Thing> = movers.iter().map(|(t, _)| *t).collect();
        let mut best: Option<(Frac, Thing, Thing)> = None;
        let mut consider = |obstacle: Thing, shape: &Polygon| {
            if moving.contains(&obstacle) || ignore(obstacle) || !shape.bounds().meets(reach) {
                return;
            }
            for (mover, polygon) in movers {
                if let Some(t) = polygon.sweep_contact(by, shape) {
                    let better =
                        best.is_none_or(|(bt, bm, bo)| (t, *mover, obstacle) < (bt, bm, bo));
                    if better {
                        best = Some((t, *mover, obstacle));
                    }
                }
            }
        };
        self.visit_near(reach, |thing, shape| consider(thing, shape));
        best
    }

    /// Ramming: the stationary thing takes ⌊m_moving × (d/2) ÷ m_stationary⌋ first; if it
    /// survives the mover takes as much (FOREVER-RAM-1/3, FOREVER-GM-33). A rock takes
    /// nothing and the mover takes ⌊d/2⌋ (FOREVER-GM-39).
    pub fn ram(&mut self, mover: Thing, obstacle: Thing, distance: i64, out: &mut Vec<String>) {
        let mover_owner = self.owner(mover);
        let obstacle_owner = self.owner(obstacle);
        let obstacle_name = self.name(obstacle);
        let mover_name = self.name(mover);
        if let Thing::Rock(_) = obstacle {
            let amount = distance / 200;
            let mut effects = Vec::new();
            self.damage(mover, amount, None, &mut effects);
            out.push(format!(
                "{mover_name} struck {obstacle_name}: took {amount}{}",
                tail(&effects)
            ));
            return;
        }
        let moving_mass = self.mass16(mover);
        let stationary_mass = self.mass16(obstacle).max(1);
        let amount = ram_damage(moving_mass, distance, stationary_mass);
        let mut effects = Vec::new();
        let hit = self.damage(obstacle, amount, mover_owner, &mut effects);
        let taken = if hit == Hit::Destroyed {
            0
        } else {
            self.damage(mover, amount, obstacle_owner, &mut effects);
            amount
        };
        out.push(format!(
            "{mover_name} rammed {obstacle_name} after {}\": dealt {amount}, took {taken}{}",
            show_hundredths(distance),
            tail(&effects)
        ));
    }

    /// Combined speed of a ship and its tow (FOREVER-MOD-TOW-3/4, FOREVER-GM-42).
    pub fn speed_with_tow(&self, ship: usize) -> i64 {
        let (Some(data), Some(hull)) = (self.state.ships.get(ship), self.hulls.get(ship)) else {
            return 0;
        };
        let mut thrust = data.thrust(hull);
        let mut mass = data.mass16(hull);
        match data.towing {
            Some(TowTarget::Ship(id)) => {
                if let Some(index) = self.state.ships.iter().position(|s| s.id == id)
                    && let (Some(other), Some(other_hull)) =
                        (self.state.ships.get(index), self.hulls.get(index))
                {
                    mass += other.mass16(other_hull);
                    if other.owner == data.owner {
                        thrust += other.thrust(other_hull);
                    } else {
                        thrust = (thrust - other.thrust(other_hull)).max(0);
                    }
                }
            }
            Some(TowTarget::Body(id)) => {
                if let Some(body) = self.state.bodies.iter().find(|b| b.id == id) {
                    mass += body.mass16();
                }
            }
            None => {}
        }
        crate::design::hull::speed(thrust, mass)
    }

    /// Moves a ship's tow along with it: translate by `by`, then turn by `turn` about `pivot`.
    fn carry_load(&mut self, ship: usize, by: Point, pivot: Point, turn: Degrees) {
        match self.state.ships.get(ship).and_then(|s| s.towing) {
            Some(TowTarget::Ship(id)) => {
                if let Some(index) = self.state.ships.iter().position(|s| s.id == id) {
                    if let Some(other) = self.state.ships.get_mut(index) {
                        other.at = (other.at + by).rotated_about(pivot, turn);
                        other.facing = Degrees::new(other.facing.get() + turn.get());
                    }
                    self.refresh(index);
                }
            }
            Some(TowTarget::Body(id)) => {
                if let Some(body) = self.state.bodies.iter_mut().find(|b| b.id == id) {
                    for section in &mut body.sections {
                        section.shape = section.shape.translated(by).rotated_about(pivot, turn);
                    }
                }
            }
            None => {}
        }
    }

    /// Cuts a move so the core's centre stays on the table.
    fn keep_on_table(&self, from: Point, by: Point) -> Point {
        let (width, height) = (self.state.setup.width(), self.state.setup.height());
        let inside = |p: Point| p.x >= 0 && p.y >= 0 && p.x <= width && p.y <= height;
        if !inside(from) || inside(from + by) {
            return by;
        }
        let mut t = Frac::ONE;
        let mut limit = |start: i64, delta: i64, low: i64, high: i64| {
            if delta > 0 && start + delta > high {
                t = t.min(Frac::new(i128::from(high - start), i128::from(delta)));
            } else if delta < 0 && start + delta < low {
                t = t.min(Frac::new(i128::from(low - start), i128::from(delta)));
            }
        };
        limit(from.x, by.x, 0, width);
        limit(from.y, by.y, 0, height);
        Point::new(t.of_towards_zero(by.x), t.of_towards_zero(by.y))
    }

    /// One movement phase of one ship: translation, then rotation and swivels, then a tow.
    /// Returns the distance moved (FOREVER-MOVE1-1..3, FOREVER-MOVE2-1..3, FOREVER-GM-30).
    pub fn move_ship(
        &mut self,
        ship: usize,
        order: &Move,
        allowance: i64,
        first_phase: bool,
    ) -> i64 {
        let key = self.row_of_ship(ship);
        let Some(data) = self.state.ships.get(ship) else {
            return 0;
        };
        if data.destroyed {
            return 0;
        }
        if data.towed_by.is_some() {
            self.log
                .result(key, "in tow: cannot move itself (FOREVER-GM-42)");
            return 0;
        }
        let phase = if first_phase { "move 1" } else { "move 2" };
        let mut moved = 0;
        if let Some(go) = order.go {
            let at = data.at;
            let wanted = match go {
                Destination::To(point) => point - at,
                Destination::By(offset) => offset,
            };
            let mut by = wanted;
            let mut notes = Vec::new();
            if allowance <= 0 && wanted != Point::ORIGIN {
                let text = format!("{phase}: no movement left");
                self.log.result(key.clone(), text);
            }
            if wanted.length() > allowance {
                by = wanted.with_length(allowance);
                notes.push(format!("cut to {}\"", show_hundredths(allowance)));
            }
            let kept = self.keep_on_table(at, by);
            if kept != by {
                notes.push("stopped at the table edge".to_string());
                by = kept;
            }
            moved = self.translate_ship(ship, by, false, phase, &notes);
        }
        if let Some(facing) = order.facing {
            self.turn_ship(ship, facing, first_phase);
        }
        for (section, angle) in &order.swivels {
            self.swivel(ship, section, *angle, first_phase);
        }
        if let Some(target) = &order.tow {
            self.take_in_tow(ship, target);
        }
        moved
    }

    /// Translates a ship (and its tow) by `by`, stopping at the first contact and ramming.
    /// `forced` moves (black holes) may meet things with the core. Returns the distance moved.
    pub fn translate_ship(
        &mut self,
        ship: usize,
        by: Point,
        forced: bool,
        phase: &str,
        notes: &[String],
    ) -> i64 {
        let key = self.row_of_ship(ship);
        if by == Point::ORIGIN {
            return 0;
        }
        let movers = self.moving_set(ship);
        let contact = self.first_contact(&movers, by, &|thing| matches!(thing, Thing::Demeter(_)));
        let owner = self.state.ships.get(ship).map_or(PlayerId(0), |s| s.owner);
        let mut actual = by;
        if let Some((t, mover, obstacle)) = contact {
            if let Thing::Part(index, 0) = mover
                && !forced
                && self.state.setup.core_ramming == crate::setup::CoreRamming::Refused
                && self
                    .state
                    .ships
                    .get(index)
                    .is_some_and(|s| s.owner == owner)
            {
                let text = format!(
                    "{phase} refused: its first contact would be {}'s core against {} (FOREVER-RAM-2)",
                    self.state.ships.get(index).map_or("?", |s| s.name.as_str()),
                    self.name(obstacle)
                );
                self.log.result(key, text);
                return 0;
            }
            actual = Point::new(t.of_towards_zero(by.x), t.of_towards_zero(by.y));
        }
        self.push_demeters(&movers, actual);
        let watched = if forced {
            Vec::new()
        } else {
            self.gunner_watch(&movers, actual, owner)
        };
        let Some(data) = self.state.ships.get_mut(ship) else {
            return 0;
        };
        let pivot = data.at + actual;
        data.at = pivot;
        self.carry_load(ship, actual, pivot, Degrees::ZERO);
        self.refresh(ship);
        let distance = actual.length();
        let name = self
            .state
            .ships
            .get(ship)
            .map_or(String::new(), |s| s.name.clone());
        let mut text = format!(
            "{phase}: {name} to {} ({}\"{})",
            self.state
                .ships
                .get(ship)
                .map_or(Point::ORIGIN, |s| s.at)
                .show(),
            show_hundredths(distance),
            if notes.is_empty() {
                String::new()
            } else {
                format!(", {}", notes.join(", "))
            }
        );
        if let Some((_, mover, obstacle)) = contact {
            let mut effects = Vec::new();
            self.ram(mover, obstacle, distance, &mut effects);
            text.push_str(&format!("; {}", effects.join("; ")));
        }
        self.log.result(key, text);
        self.gunners_fire(watched);
        distance
    }

    /// A new facing about the core's centre, refused if it would overlap anything
    /// (FOREVER-MOVE1-2, FOREVER-MOVE2-2, FOREVER-ADM-03).
    fn turn_ship(&mut self, ship: usize, facing: Facing, first_phase: bool) {
        let key = self.row_of_ship(ship);
        let Some(data) = self.state.ships.get(ship) else {
            return;
        };
        if !first_phase && self.ship_turn.get(ship).is_some_and(|t| t.rotated_first) {
            self.log.result(
                key,
                "rotation refused: the ship rotated in movement 1 (FOREVER-MOVE2-2)",
            );
            return;
        }
        let old = data.facing;
        let new = match facing {
            Facing::To(angle) => angle,
            Facing::By(turn) => Degrees::new(old.get() + turn.rem_euclid(360)),
        };
        if new == old {
            return;
        }
        let turn = Degrees::new(new.get() - old.get());
        let pivot = data.at;
        let mut moved = data.clone();
        moved.facing = new;
        let Some(hull) = self.hulls.get(ship) else {
            return;
        };
        let mut shapes: Vec<(Thing, Polygon)> = moved
            .polygons(hull)
            .into_iter()
            .enumerate()
            .filter_map(|(part, shape)| shape.map(|s| (Thing::Part(ship, part), s)))
            .collect();
        for (thing, shape) in self.moving_set(ship) {
            if !matches!(thing, Thing::Part(index, _) if index == ship) {
                shapes.push((thing, shape.rotated_about(pivot, turn)));
            }
        }
        if let Some(obstacle) = self.overlapping(&shapes) {
            let text = format!(
                "rotation to {new} refused: it would overlap {}",
                self.name(obstacle)
            );
            self.log.result(key, text);
            return;
        }
        if let Some(data) = self.state.ships.get_mut(ship) {
            data.facing = new;
        }
        self.carry_load(ship, Point::ORIGIN, pivot, turn);
        self.refresh(ship);
        if first_phase && let Some(turn) = self.ship_turn.get_mut(ship) {
            turn.rotated_first = true;
        }
        self.log.result(key, format!("turned to face {new}"));
    }

    /// Does any of these shapes overlap something solid that is not among them (demeters
    /// excepted: they are pushed, not met)?
    fn overlapping(&self, shapes: &[(Thing, Polygon)]) -> Option<Thing> {
        let own: Vec<Thing> = shapes.iter().map(|(t, _)| *t).collect();
        self.solid_things().into_iter().find(|thing| {
            !own.contains(thing)
                && !matches!(thing, Thing::Demeter(_))
                && self
                    .shape(*thing)
                    .is_some_and(|other| shapes.iter().any(|(_, s)| s.overlaps(&other)))
        })
    }

    /// Sets a swivel joint's angle, refused if any section of the ship would be more than 25%
    /// covered or it would overlap anything (FOREVER-SWV-4, FOREVER-MOVE1-3, FOREVER-MOVE2-3,
    /// FOREVER-GM-32).
    fn swivel(&mut self, ship: usize, section: &str, angle: i64, first_phase: bool) {
        let key = self.row_of_ship(ship);
        let (Some(data), Some(hull)) = (self.state.ships.get(ship), self.hulls.get(ship)) else {
            return;
        };
        let Some(part) = hull
            .part_index(section)
            .filter(|p| hull.parts.get(*p).is_some_and(|s| s.swivel.is_some()))
        else {
            self.log.result(
                key,
                format!("swivel refused: {section} has no swivel joint"),
            );
            return;
        };
        if !data.attached(part) {
            self.log
                .result(key, format!("swivel refused: {section} is gone"));
            return;
        }
        if !first_phase
            && self
                .ship_turn
                .get(ship)
                .is_some_and(|t| t.swivelled_first.contains(&part))
        {
            self.log.result(
                key,
                format!("swivel refused: {section} swivelled in movement 1 (FOREVER-MOVE2-3)"),
            );
            return;
        }
        if let Some(index) = data.swivel_overcovers(hull, part, angle) {
            let name = hull.parts.get(index).map_or("?", |p| p.name.as_str());
            self.log.result(
                key,
                format!("swivel of {section} to {angle}° refused: {name} would be more than 25% covered (FOREVER-GM-32)"),
            );
            return;
        }
        let mut trial = data.clone();
        trial.swivels.insert(part, Degrees::new(angle));
        let shapes: Vec<(usize, Polygon)> = trial
            .polygons(hull)
            .into_iter()
            .enumerate()
            .filter_map(|(index, shape)| shape.map(|s| (index, s)))
            .collect();
        let things: Vec<(Thing, Polygon)> = shapes
            .into_iter()
            .map(|(i, s)| (Thing::Part(ship, i), s))
            .collect();
        if let Some(obstacle) = self.overlapping(&things) {
            let text = format!(
                "swivel of {section} refused: it would overlap {}",
                self.name(obstacle)
            );
            self.log.result(key, text);
            return;
        }
        if let Some(data) = self.state.ships.get_mut(ship) {
            data.swivels.insert(part, Degrees::new(angle));
        }
        self.refresh(ship);
        if first_phase && let Some(turn) = self.ship_turn.get_mut(ship) {
            turn.swivelled_first.insert(part);
        }
        self.log
            .result(key, format!("{section} swivelled to {angle}°"));
    }

    /// Takes a touching ship or jettisoned body in tow (FOREVER-MOD-TOW-2/5, FOREVER-GM-42).
    fn take_in_tow(&mut self, ship: usize, target: &str) {
        let key = self.row_of_ship(ship);
        let (Some(data), Some(hull)) = (self.state.ships.get(ship), self.hulls.get(ship)) else {
            return;
        };
        let has_hitch = hull.items.iter().enumerate().any(|(index, slot)| {
            matches!(slot.item, Item::Module(ModuleSpec::TowHitch)) && data.item_usable(hull, index)
        });
        if !has_hitch {
            self.log.result(key, "tow refused: no working tow hitch");
            return;
        }
        if data.towing.is_some() {
            self.log.result(key, "tow refused: already towing");
            return;
        }
        let own: Vec<Polygon> = self.moving_set(ship).into_iter().map(|(_, p)| p).collect();
        let (link, shapes): (TowTarget, Vec<Polygon>) =
            if let Some(index) = self.state.ship_index(target) {
                let Some(other) = self.state.ships.get(index) else {
                    return;
                };
                if index == ship
                    || other.destroyed
                    || other.towed_by.is_some()
                    || other.towing.is_some()
                {
                    self.log
                        .result(key, format!("tow refused: {target} cannot be taken in tow"));
                    return;
                }
                let shapes = (0..self.hulls.get(index).map_or(0, |h| h.parts.len()))
                    .filter_map(|p| self.part_shape(index, p).cloned())
                    .collect();
                (TowTarget::Ship(other.id), shapes)
            } else if let Some(body) = self
                .state
                .bodies
                .iter()
                .find(|b| !b.gone && b.label().eq_ignore_ascii_case(target))
            {
                if body.towed_by.is_some() {
                    self.log
                        .result(key, format!("tow refused: {target} is already in tow"));
                    return;
                }
                let shapes = body
                    .sections
                    .iter()
                    .filter(|s| !s.destroyed)
                    .map(|s| s.shape.clone())
                    .collect();
                (TowTarget::Body(body.id), shapes)
            } else {
                self.log
                    .result(key, format!("tow refused: there is no {target}"));
                return;
            };
        let touching = own.iter().any(|a| shapes.iter().any(|b| a.meets(b)));
        if !touching {
            self.log
                .result(key, format!("tow refused: not touching {target}"));
            return;
        }
        let ship_id = self.state.ships.get(ship).map_or(0, |s| s.id);
        if let Some(data) = self.state.ships.get_mut(ship) {
            data.towing = Some(link);
        }
        match link {
            TowTarget::Ship(id) => {
                if let Some(other) = self.state.ships.iter_mut().find(|s| s.id == id) {
                    other.towed_by = Some(ship_id);
                }
            }
            TowTarget::Body(id) => {
                if let Some(body) = self.state.bodies.iter_mut().find(|b| b.id == id) {
                    body.towed_by = Some(ship_id);
                }
            }
        }
        self.log.result(key, format!("took {target} in tow"));
    }

    /// Demeters in the path are pushed sideways out of it, to the nearer side; one with no
    /// room is destroyed. They are never rammed (FOREVER-MOD-DL-4, FOREVER-GM-26).
    pub fn push_demeters(&mut self, movers: &[(Thing, Polygon)], by: Point) {
        if by == Point::ORIGIN {
            return;
        }
        let normal = Point::new(by.y, -by.x);
        for index in 0..self.state.demeters.len() {
            let thing = Thing::Demeter(index);
            if movers.iter().any(|(t, _)| *t == thing) {
                continue;
            }
            let Some(shape) = self.shape(thing) else {
                continue;
            };
            if !movers
                .iter()
                .any(|(_, p)| p.sweep_contact(by, &shape).is_some() || p.overlaps(&shape))
            {
                continue;
            }
            let project = |corners: &[Point]| {
                corners
                    .iter()
                    .map(|c| c.dot(normal))
                    .fold((i128::MAX, i128::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
            };
            let (band_low, band_high) = movers
                .iter()
                .map(|(_, p)| project(&p.corners))
                .fold((i128::MAX, i128::MIN), |(lo, hi), (l, h)| {
                    (lo.min(l), hi.max(h))
                });
            let (low, high) = project(&shape.corners);
            let length = i128::from(normal.length().max(1));
            let right = (band_high - low) / length + 2;
            let left = (high - band_low) / length + 2;
            let shift = if right <= left {
                normal.with_length(crate::fixed::narrow(right))
            } else {
                (-normal).with_length(crate::fixed::narrow(left))
            };
            let name = self
                .state
                .demeters
                .get(index)
                .map_or(String::new(), |d| d.name.clone());
            let moved_shape = shape.translated(shift);
            let blocked = self.solid_things().into_iter().any(|other| {
                other != thing
                    && (movers
                        .iter()
                        .any(|(_, p)| p.translated(by).overlaps(&moved_shape))
                        || self.shape(other).is_some_and(|s| s.overlaps(&moved_shape)))
            });
            let key = RowKey::Demeter(name.clone());
            if let Some(demeter) = self.state.demeters.get_mut(index) {
                if blocked {
                    demeter.gone = true;
                    self.log.result(
                        key,
                        format!(
                            "{name} had no room to get out of the way: destroyed (FOREVER-MOD-DL-4)"
                        ),
                    );
                } else {
                    demeter.at = demeter.at + shift;
                    let at = demeter.at;
                    self.log
                        .result(key, format!("{name} moved out of the way to {}", at.show()));
                }
            }
        }
    }

    /// Defensive gunners of other players that a move brings something within reach of
    /// (FOREVER-MOD-DGN-2, FOREVER-GM-21): (gunner, thing, nearest distance).
    pub fn gunner_watch(
        &self,
        movers: &[(Thing, Polygon)],
        by: Point,
        mover_owner: PlayerId,
    ) -> Vec<((usize, usize), Thing, i64)> {
        let mut seen = Vec::new();
        for (gunner, shots) in &self.gunner_shots {
            if *shots == 0 {
                continue;
            }
            let (ship, item) = *gunner;
            let Some(owner) = self.state.ships.get(ship).map(|s| s.owner) else {
                continue;
            };
            if owner == mover_owner || self.usable_module(ship, item).is_none() {
                continue;
            }
            let Some(part) = self
                .hulls
                .get(ship)
                .and_then(|h| h.items.get(item))
                .map(|s| s.part)
            else {
                continue;
            };
            let Some(gun) = self.part_centre(ship, part) else {
                continue;
            };
            let ignored = self.gunner_ignores.get(gunner);
            for (thing, polygon) in movers {
                if self.owner(*thing) == Some(owner)
                    || ignored.is_some_and(|set| set.contains(thing))
                {
                    continue;
                }
                let distance = polygon.distance_to_segment(gun, gun - by);
                if distance <= GUNNER_REACH {
                    seen.push((*gunner, *thing, distance));
                }
            }
        }
        seen
    }

    /// Each gunner fires one shot at a time at the nearest qualifying object until it is
    /// destroyed or the shots run out (FOREVER-MOD-DGN-2/4, FOREVER-GM-21).
    pub fn gunners_fire(&mut self, mut seen: Vec<((usize, usize), Thing, i64)>) {
        seen.sort_by_key(|(gunner, thing, distance)| (*gunner, *distance, *thing));
        for (gunner, thing, _) in seen {
            let (ship, item) = gunner;
            let mut effects = Vec::new();
            let mut fired = 0;
            loop {
                let shots = self.gunner_shots.get(&gunner).copied().unwrap_or(0);
                if shots == 0 || self.shape(thing).is_none() {
                    break;
                }
                if let Some(left) = self.gunner_shots.get_mut(&gunner) {
                    *left -= 1;
                }
                fired += 1;
                let credit = self.state.ships.get(ship).map(|s| s.owner);
                if self.damage(thing, 1, credit, &mut effects) == Hit::Destroyed {
                    break;
                }
            }
            if fired > 0 {
                let name = self
                    .hulls
                    .get(ship)
                    .and_then(|h| h.items.get(item))
                    .map_or(String::new(), |s| s.name.clone());
                let target = self.name(thing);
                let key = self.row_of_ship(ship);
                let row = self.log.row(key);
                row.coord.push(format!("{name}→{target} (gunner)"));
                row.result.push(format!(
                    "gunner {name}: {fired} shot{} at {target}: {}",
                    if fired == 1 { "" } else { "s" },
                    effects.join(", ")
                ));
            }
        }
    }
}

fn tail(effects: &[String]) -> String {
    if effects.is_empty() {
        String::new()
    } else {
        format!(" ({})", effects.join(", "))
    }
}
