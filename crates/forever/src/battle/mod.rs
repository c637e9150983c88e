//! The battle: one working copy of the state, the ships' hulls and table shapes, the turn's
//! dice and the log that becomes the report. Split by capability: [`damage`] (hits, feedback,
//! explosions, jettison), [`movement`] (moves, ramming, towing, swivels), [`shooting`] (every
//! weapon), [`modules`] (reactions and modules), [`terrain`] (rocks, meteors, black holes,
//! drift).

use std::collections::{BTreeMap, BTreeSet};

use engine::{PlayerId, TurnDice};

use crate::design::{Hull, Item, ModuleSpec};
use crate::geometry::{Bounds, Frac, Point, Polygon, segment_meets_segment};
use crate::setup::rock_polygon;
use crate::state::{METEOR_MASS16, PartStatus, State};

pub mod damage;
pub mod modules;
pub mod movement;
pub mod shooting;
pub mod terrain;

/// Anything on the table a line, a blast or a moving ship can meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Thing {
    /// A ship's part: (ship index, part index).
    Part(usize, usize),
    /// A jettisoned body's section: (body index, section index).
    BodySection(usize, usize),
    Demeter(usize),
    /// (group index, meteor index).
    Meteor(usize, usize),
    Rock(usize),
    Flux(usize),
}

/// Which report row a line of the log belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum RowKey {
    Ship(u32),
    Demeter(String),
    Body(u32),
}

/// One row's entries: what it aimed at, and what happened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowLog {
    pub coord: Vec<String>,
    pub result: Vec<String>,
}

/// What a turn's resolution wrote down for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnLog {
    pub rows: BTreeMap<RowKey, RowLog>,
    /// Ships in play when the turn began: each gets a row (FOREVER report, section 5).
    pub ships_at_start: Vec<u32>,
    pub notes: Vec<String>,
    /// The ships' hulls after the turn (the report's own-status needs them; checking every
    /// design again would cost as much as a third of the turn).
    pub hulls: Vec<Hull>,
}

impl TurnLog {
    pub fn row(&mut self, key: RowKey) -> &mut RowLog {
        self.rows.entry(key).or_default()
    }

    pub fn result(&mut self, key: RowKey, text: impl Into<String>) {
        self.row(key).result.push(text.into());
    }
}

/// Per player-turn bookkeeping for one ship.
#[derive(Debug, Clone, Default)]
pub struct ShipTurn {
    /// Non-core sections attached when the player-turn began (FOREVER-GM-37).
    pub sections_at_start: usize,
    /// Sections lost this player-turn (FOREVER-GM-35).
    pub lost: usize,
    /// Distance moved in phase 1, in hundredths.
    pub moved_first: i64,
    pub rotated_first: bool,
    pub swivelled_first: BTreeSet<usize>,
}

/// The working state of one resolution.
pub struct Battle<'a> {
    pub state: State,
    pub hulls: Vec<Hull>,
    shapes: Vec<Vec<Option<Polygon>>>,
    bounds: Vec<Option<Bounds>>,
    rocks: Vec<Polygon>,
    pub dice: &'a mut TurnDice,
    pub log: TurnLog,
    /// Whose player-turn it is, and its number among that player's own turns.
    pub active: PlayerId,
    pub own_turn: u32,
    pub ship_turn: Vec<ShipTurn>,
    /// Weapons fired this phase: (ship, item) (FOREVER-GM-50).
    pub fired: BTreeSet<(usize, usize)>,
    /// Defensive gunners' shots left this player-turn, and what they ignore (FOREVER-GM-21).
    pub gunner_shots: BTreeMap<(usize, usize), u32>,
    pub gunner_ignores: BTreeMap<(usize, usize), BTreeSet<Thing>>,
    /// Ships already reported as disabled this player-turn.
    pub disabled_noted: BTreeSet<usize>,
}

fn state_sections(state: &State) -> Vec<ShipTurn> {
    state
        .ships
        .iter()
        .map(|s| ShipTurn {
            sections_at_start: s.sections_left(),
            ..ShipTurn::default()
        })
        .collect()
}

impl<'a> Battle<'a> {
    pub fn new(state: State, dice: &'a mut TurnDice) -> Result<Self, String> {
        let hulls = state.hulls()?;
        let rocks = state.setup.rocks.iter().map(rock_polygon).collect();
        let ship_count = state.ships.len();
        let ship_turn = state_sections(&state);
        let active = state.seating.first().copied().unwrap_or(PlayerId(0));
        let mut battle = Battle {
            state,
            hulls,
            shapes: vec![Vec::new(); ship_count],
            bounds: vec![None; ship_count],
            rocks,
            dice,
            log: TurnLog::default(),
            active,
            own_turn: 0,
            // Losses before the first player-turn (meteors, drift) count against the ship as
            // it was when the turn began (FOREVER-GM-37).
            ship_turn,
            fired: BTreeSet::new(),
            gunner_shots: BTreeMap::new(),
            gunner_ignores: BTreeMap::new(),
            disabled_noted: BTreeSet::new(),
        };
        for index in 0..ship_count {
            battle.refresh(index);
        }
        Ok(battle)
    }

    /// Recomputes a ship's shapes after it moved, turned, swivelled or lost a part.
    pub fn refresh(&mut self, ship: usize) {
        let (Some(data), Some(hull)) = (self.state.ships.get(ship), self.hulls.get(ship)) else {
            return;
        };
        let shapes = data.polygons(hull);
        let bounds = shapes
            .iter()
            .flatten()
            .map(Polygon::bounds)
            .reduce(Bounds::union);
        if let Some(slot) = self.shapes.get_mut(ship) {
            *slot = shapes;
        }
        if let Some(slot) = self.bounds.get_mut(ship) {
            *slot = bounds;
        }
    }

    pub fn ship_bounds(&self, ship: usize) -> Option<Bounds> {
        self.bounds.get(ship).copied().flatten()
    }

    /// A part's shape on the table, if it is still attached.
    pub fn part_shape(&self, ship: usize, part: usize) -> Option<&Polygon> {
        self.shapes.get(ship)?.get(part)?.as_ref()
    }

    /// A part's centre: where its weapons and modules sit (FOREVER-GM-04).
    pub fn part_centre(&self, ship: usize, part: usize) -> Option<Point> {
        self.part_shape(ship, part).map(Polygon::centre)
    }

    /// The shape of anything solid.
    pub fn shape(&self, thing: Thing) -> Option<Polygon> {
        match thing {
            Thing::Part(ship, part) => self.part_shape(ship, part).cloned(),
            Thing::BodySection(body, section) => {
                let body = self.state.bodies.get(body)?;
                let section = body.sections.get(section)?;
                (!body.gone && !section.destroyed).then(|| section.shape.clone())
            }
            Thing::Demeter(index) => {
                let demeter = self.state.demeters.get(index)?;
                (!demeter.gone).then(|| demeter.polygon())
            }
            Thing::Meteor(group, index) => self
                .state
                .meteor_groups
                .get(group)?
                .meteors
                .get(index)
                .filter(|m| m.hp > 0)
                .map(|m| m.polygon()),
            Thing::Rock(index) => self.rocks.get(index).cloned(),
            Thing::Flux(_) => None,
        }
    }

    /// Everything solid on the table, in a fixed order.
    pub fn solid_things(&self) -> Vec<Thing> {
        let mut things = Vec::new();
        for (ship, shapes) in self.shapes.iter().enumerate() {
            for (part, shape) in shapes.iter().enumerate() {
                if shape.is_some() {
                    things.push(Thing::Part(ship, part));
                }
            }
        }
        for (index, body) in self.state.bodies.iter().enumerate() {
            if body.gone {
                continue;
            }
            for (section, data) in body.sections.iter().enumerate() {
                if !data.destroyed {
                    things.push(Thing::BodySection(index, section));
                }
            }
        }
        for (index, demeter) in self.state.demeters.iter().enumerate() {
            if !demeter.gone {
                things.push(Thing::Demeter(index));
            }
        }
        for (group, data) in self.state.meteor_groups.iter().enumerate() {
            for (index, meteor) in data.meteors.iter().enumerate() {
                if meteor.hp > 0 {
                    things.push(Thing::Meteor(group, index));
                }
            }
        }
        for index in 0..self.rocks.len() {
            things.push(Thing::Rock(index));
        }
        things
    }

    /// Calls `visit` with every solid thing whose box meets `near`, in [`Thing`] order, without
    /// copying the stored shapes (parts, bodies, rocks) — the hot paths (lines, blasts, laser
    /// stops) use this.
    pub fn visit_near(&self, near: Bounds, mut visit: impl FnMut(Thing, &Polygon)) {
        for (ship, shapes) in self.shapes.iter().enumerate() {
            if !self.ship_bounds(ship).is_some_and(|b| b.meets(near)) {
                continue;
            }
            for (part, shape) in shapes.iter().enumerate() {
                if let Some(shape) = shape {
                    visit(Thing::Part(ship, part), shape);
                }
            }
        }
        for (index, body) in self.state.bodies.iter().enumerate() {
            if body.gone {
                continue;
            }
            for (section, data) in body.sections.iter().enumerate() {
                if !data.destroyed && data.shape.bounds().meets(near) {
                    visit(Thing::BodySection(index, section), &data.shape);
                }
            }
        }
        for (index, demeter) in self.state.demeters.iter().enumerate() {
            if !demeter.gone {
                let shape = demeter.polygon();
                if shape.bounds().meets(near) {
                    visit(Thing::Demeter(index), &shape);
                }
            }
        }
        for (group, data) in self.state.meteor_groups.iter().enumerate() {
            for (index, meteor) in data.meteors.iter().enumerate() {
                if meteor.hp > 0 {
                    let shape = meteor.polygon();
                    if shape.bounds().meets(near) {
                        visit(Thing::Meteor(group, index), &shape);
                    }
                }
            }
        }
        for (index, rock) in self.rocks.iter().enumerate() {
            if rock.bounds().meets(near) {
                visit(Thing::Rock(index), rock);
            }
        }
    }

    /// The first thing the segment `from → to` touches, skipping what `skip` says
    /// (FOREVER-SHOOT-5, FOREVER-GM-14). Ties go to the lowest thing.
    pub fn trace(
        &self,
        from: Point,
        to: Point,
        skip: &dyn Fn(Thing) -> bool,
    ) -> Option<(Frac, Thing)> {
        let reach = Bounds::of_points([from, to]);
        let mut best: Option<(Frac, Thing)> = None;
        let mut consider = |t: Option<Frac>, thing: Thing| {
            if let Some(t) = t
                && best.is_none_or(|(bt, bthing)| (t, thing) < (bt, bthing))
            {
                best = Some((t, thing));
            }
        };
        self.visit_near(reach, |thing, shape| {
            if !skip(thing) && shape.bounds().meets(reach) {
                consider(shape.first_touch(from, to), thing);
            }
        });
        for (index, line) in self.state.flux_lines.iter().enumerate() {
            let thing = Thing::Flux(index);
            if !skip(thing) {
                consider(segment_meets_segment(from, to, line.from, line.to), thing);
            }
        }
        best
    }

    /// The first thing on the line from `from` through `from + direction`, out to `range`
    /// hundredths (FOREVER-SHOOT-4/5). The segment traced is a whole multiple of `direction`,
    /// so the line passes exactly through the marker and a grazed corner is hit however an end
    /// point would round (FOREVER-EX-15). Returns the contact point and the thing.
    pub fn trace_line(
        &self,
        from: Point,
        direction: Point,
        range: i64,
        skip: &dyn Fn(Thing) -> bool,
    ) -> Option<(Point, Thing)> {
        if direction == Point::ORIGIN || range <= 0 {
            return None;
        }
        let multiple = range / direction.length().max(1) + 1;
        let end = from + direction * multiple;
        let (t, thing) = self.trace(from, end, skip)?;
        let point = crate::geometry::point_along(from, end, t);
        let reach = i128::from(range);
        ((point - from).norm2() <= reach * reach).then_some((point, thing))
    }

    /// The damageable thing under a point (laser stops, torpedoes), lowest first.
    pub fn thing_at(&self, point: Point) -> Option<Thing> {
        let mut found = None;
        self.visit_near(Bounds::of_points([point]), |thing, shape| {
            if found.is_none() && !matches!(thing, Thing::Rock(_)) && shape.contains(point) {
                found = Some(thing);
            }
        });
        found
    }

    /// Can it take damage?
    pub fn damageable(thing: Thing) -> bool {
        !matches!(thing, Thing::Rock(_) | Thing::Flux(_))
    }

    /// Who owns a thing (meteors and rocks: nobody).
    pub fn owner(&self, thing: Thing) -> Option<PlayerId> {
        match thing {
            Thing::Part(ship, _) => self.state.ships.get(ship).map(|s| s.owner),
            Thing::BodySection(body, _) => self.state.bodies.get(body).map(|b| b.owner),
            Thing::Demeter(index) => self.state.demeters.get(index).map(|d| d.owner),
            Thing::Flux(index) => self.state.flux_lines.get(index).map(|f| f.owner),
            Thing::Meteor(..) | Thing::Rock(_) => None,
        }
    }

    /// Mass in sixteenths, for ramming (FOREVER-RAM-1).
    pub fn mass16(&self, thing: Thing) -> i64 {
        match thing {
            Thing::Part(ship, part) => self
                .hulls
                .get(ship)
                .and_then(|h| h.parts.get(part))
                .map_or(16, |p| p.mass16),
            Thing::BodySection(body, section) => self
                .state
                .bodies
                .get(body)
                .and_then(|b| b.sections.get(section))
                .map_or(16, |s| s.mass16),
            Thing::Meteor(..) => METEOR_MASS16,
            Thing::Demeter(_) | Thing::Rock(_) | Thing::Flux(_) => 16,
        }
    }

    /// `Anvil.S3`, `Anvil/J4.S3`, `Anvil/D1`, `meteor 7`, `rock Ayers`, `flux line`.
    pub fn name(&self, thing: Thing) -> String {
        match thing {
            Thing::Part(ship, part) => {
                let ship_name = self.state.ships.get(ship).map_or("?", |s| s.name.as_str());
                let part_name = self
                    .hulls
                    .get(ship)
                    .and_then(|h| h.parts.get(part))
                    .map_or("?", |p| p.name.as_str());
                format!("{ship_name}.{part_name}")
            }
            Thing::BodySection(body, section) => self.state.bodies.get(body).map_or_else(
                || "?".into(),
                |b| {
                    let name = b.sections.get(section).map_or("?", |s| s.name.as_str());
                    format!("{}.{name}", b.label())
                },
            ),
            Thing::Demeter(index) => self
                .state
                .demeters
                .get(index)
                .map_or_else(|| "?".into(), |d| d.name.clone()),
            Thing::Meteor(group, index) => self
                .state
                .meteor_groups
                .get(group)
                .and_then(|g| g.meteors.get(index))
                .map_or_else(|| "meteor".into(), |m| format!("meteor {}", m.id)),
            Thing::Rock(index) => self
                .state
                .setup
                .rocks
                .get(index)
                .map_or_else(|| "rock".into(), |r| format!("rock {}", r.name)),
            Thing::Flux(_) => "a flux line".into(),
        }
    }

    /// The player whose own-turn number applies to a ship's disablement now.
    pub fn current_turn_of(&self, player: PlayerId) -> u32 {
        if player == self.active {
            self.own_turn
        } else {
            self.state.seat(player).map_or(0, |s| s.turns_taken)
        }
    }

    pub fn row_of_ship(&self, ship: usize) -> RowKey {
        RowKey::Ship(self.state.ships.get(ship).map_or(0, |s| s.id))
    }

    /// A module of the given kind, usable on a live ship.
    pub fn usable_module(&self, ship: usize, item: usize) -> Option<ModuleSpec> {
        let hull = self.hulls.get(ship)?;
        let data = self.state.ships.get(ship)?;
        if !data.item_usable(hull, item) {
            return None;
        }
        match hull.items.get(item)?.item {
            Item::Module(module) => Some(module),
            Item::Weapon(_) => None,
        }
    }

    /// Is the part currently deflected (FOREVER-MOD-DEF-3)?
    pub fn deflected(&self, thing: Thing) -> bool {
        match thing {
            Thing::Part(ship, part) => self
                .state
                .ships
                .get(ship)
                .and_then(|s| s.parts.get(part))
                .is_some_and(|p| p.deflected && p.status == PartStatus::Attached),
            _ => false,
        }
    }
}
