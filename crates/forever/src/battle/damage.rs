//! Damage and what follows it: destroyed sections (FOREVER-DEST-2), feedback (FOREVER-FB-*,
//! FOREVER-GM-35), jettisoned subtrees (FOREVER-JET-1/2, FOREVER-GM-34), core explosions
//! (FOREVER-DEST-1, FOREVER-GM-36), electric feedback (FOREVER-EF-*, FOREVER-GM-37), and the
//! score (FOREVER-GM-43).

use engine::PlayerId;

use super::{Battle, RowKey, Thing};
use crate::design::{ModuleSpec, Points};
use crate::geometry::Point;
use crate::state::{Body, BodySection, PartStatus, TowTarget};

/// A core explosion's damage at `distance` hundredths from the core's centre: ⌊|HP| − d⌋,
/// never below 0 (FOREVER-DEST-1, FOREVER-GM-36).
pub fn explosion_damage(strength: i64, distance: i64) -> i64 {
    ((strength.abs() * 100 - distance) / 100).max(0)
}

/// What a hit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    Nothing,
    Deflected,
    Damaged,
    Destroyed,
}

impl Battle<'_> {
    /// Deals `amount` to a thing; every consequence is described in `out`. `credit` is the
    /// player whose action it is: they score enemy parts destroyed.
    pub fn damage(
        &mut self,
        thing: Thing,
        amount: i64,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) -> Hit {
        if amount <= 0 || !Battle::damageable(thing) {
            return Hit::Nothing;
        }
        let name = self.name(thing);
        match thing {
            Thing::Part(ship, part) => {
                if self.part_shape(ship, part).is_none() {
                    return Hit::Nothing;
                }
                if self.deflected(thing) {
                    // A deflected section and what it carries take nothing (FOREVER-MOD-DEF-8).
                    out.push(format!("{name} deflected"));
                    return Hit::Deflected;
                }
                let base_hp = self
                    .hulls
                    .get(ship)
                    .and_then(|h| h.parts.get(part))
                    .map_or(1, |p| p.base_hp);
                let Some(state) = self
                    .state
                    .ships
                    .get_mut(ship)
                    .and_then(|s| s.parts.get_mut(part))
                else {
                    return Hit::Nothing;
                };
                state.hp -= amount;
                let hp = state.hp;
                out.push(format!("{name} −{amount}"));
                if hp < -base_hp {
                    // FOREVER-EF-3: driven below minus its base HP.
                    self.disable(ship, &format!("electric feedback: {name} at {hp} HP"), out);
                }
                if hp <= 0 {
                    if part == 0 {
                        self.destroy_core(ship, credit, out);
                    } else {
                        self.destroy_section(ship, part, credit, out);
                    }
                    Hit::Destroyed
                } else {
                    Hit::Damaged
                }
            }
            Thing::BodySection(body, section) => {
                let Some(data) = self.state.bodies.get_mut(body) else {
                    return Hit::Nothing;
                };
                let owner = data.owner;
                let Some(piece) = data.sections.get_mut(section) else {
                    return Hit::Nothing;
                };
                if piece.destroyed {
                    return Hit::Nothing;
                }
                piece.hp -= amount;
                out.push(format!("{name} −{amount}"));
                if piece.hp > 0 {
                    return Hit::Damaged;
                }
                piece.destroyed = true;
                let value = piece.value;
                if data.sections.iter().all(|s| s.destroyed) {
                    data.gone = true;
                }
                out.push(format!("{name} destroyed"));
                self.score(credit, owner, value);
                self.check_tows();
                Hit::Destroyed
            }
            Thing::Demeter(index) => {
                let Some(demeter) = self.state.demeters.get_mut(index) else {
                    return Hit::Nothing;
                };
                demeter.hp -= amount;
                out.push(format!("{name} −{amount}"));
                if demeter.hp <= 0 {
                    demeter.gone = true;
                    out.push(format!("{name} destroyed"));
                    Hit::Destroyed
                } else {
                    Hit::Damaged
                }
            }
            Thing::Meteor(group, index) => {
                let Some(meteor) = self
                    .state
                    .meteor_groups
                    .get_mut(group)
                    .and_then(|g| g.meteors.get_mut(index))
                else {
                    return Hit::Nothing;
                };
                meteor.hp -= amount;
                out.push(format!("{name} −{amount}"));
                if meteor.hp <= 0 {
                    out.push(format!("{name} destroyed"));
                    Hit::Destroyed
                } else {
                    Hit::Damaged
                }
            }
            Thing::Rock(_) | Thing::Flux(_) => Hit::Nothing,
        }
    }

    /// Adds a destroyed enemy part's value to the credited player (FOREVER-GM-43).
    pub fn score(&mut self, credit: Option<PlayerId>, owner: PlayerId, value: Points) {
        if let Some(player) = credit
            && player != owner
            && let Some(seat) = self.state.seat_mut(player)
        {
            seat.score += value;
        }
    }

    /// A part's price plus the items on it still whole.
    fn live_value(&self, ship: usize, part: usize) -> Points {
        let (Some(hull), Some(data)) = (self.hulls.get(ship), self.state.ships.get(ship)) else {
            return Points::ZERO;
        };
        let Some(spec) = hull.parts.get(part) else {
            return Points::ZERO;
        };
        spec.structure_cost
            + spec
                .items
                .iter()
                .filter(|i| data.items.get(**i).is_some_and(|s| !s.destroyed))
                .filter_map(|i| hull.items.get(*i))
                .map(|slot| slot.cost)
                .sum::<Points>()
    }

    /// A section at 0 HP: destroyed, its children break off, its ancestors take feedback, and
    /// a core left with no children is destroyed (FOREVER-DEST-2, FOREVER-FB-1..3,
    /// FOREVER-GM-35).
    fn destroy_section(
        &mut self,
        ship: usize,
        part: usize,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) {
        let centre = self.part_centre(ship, part).unwrap_or(Point::ORIGIN);
        let value = self.live_value(ship, part);
        let Some(hull) = self.hulls.get(ship) else {
            return;
        };
        let children = hull
            .parts
            .get(part)
            .map(|p| p.children.clone())
            .unwrap_or_default();
        let ancestors = hull.ancestors(part);
        let items = hull
            .parts
            .get(part)
            .map(|p| p.items.clone())
            .unwrap_or_default();
        let Some(data) = self.state.ships.get_mut(ship) else {
            return;
        };
        let owner = data.owner;
        let name = format!(
            "{}.{}",
            data.name,
            hull.parts.get(part).map_or("?", |p| p.name.as_str())
        );
        if let Some(state) = data.parts.get_mut(part) {
            state.status = PartStatus::Destroyed;
        }
        for item in items {
            if let Some(state) = data.items.get_mut(item) {
                state.destroyed = true;
            }
        }
        out.push(format!("{name} destroyed"));
        self.score(credit, owner, value);
        self.refresh(ship);
        let mut lost = 1;
        for child in children {
            if self
                .state
                .ships
                .get(ship)
                .is_some_and(|s| s.attached(child))
            {
                lost += self.jettison(ship, child, centre, credit, out);
            }
        }
        // Feedback: every ancestor still attached takes 1 per section lost, never below 1 HP.
        let core_alive = self.state.ships.get(ship).is_some_and(|s| s.attached(0));
        if core_alive {
            let mut felt = Vec::new();
            if let Some(data) = self.state.ships.get_mut(ship) {
                for ancestor in ancestors {
                    if let Some(state) = data.parts.get_mut(ancestor)
                        && state.status == PartStatus::Attached
                        && state.hp > 1
                    {
                        let before = state.hp;
                        state.hp = (state.hp - i64::try_from(lost).unwrap_or(i64::MAX)).max(1);
                        let part_name = self
                            .hulls
                            .get(ship)
                            .and_then(|h| h.parts.get(ancestor))
                            .map_or("?", |p| p.name.as_str());
                        felt.push(format!("{part_name} −{}", before - state.hp));
                    }
                }
            }
            if !felt.is_empty() {
                out.push(format!("feedback: {}", felt.join(", ")));
            }
        }
        if let Some(turn) = self.ship_turn.get_mut(ship) {
            turn.lost += lost;
        }
        self.check_overload(ship, out);
        self.check_tows();
        // FOREVER-FB-3: a core parenting nothing is destroyed at once.
        let orphaned_core = self.state.ships.get(ship).is_some_and(|s| {
            s.attached(0)
                && self
                    .hulls
                    .get(ship)
                    .and_then(|h| h.parts.first())
                    .is_some_and(|core| core.children.iter().all(|c| !s.attached(*c)))
        });
        if orphaned_core {
            out.push(format!(
                "{} core has no sections left",
                self.state.ships.get(ship).map_or("?", |s| s.name.as_str())
            ));
            self.destroy_core(ship, credit, out);
        }
    }

    /// A core at 0 HP (or orphaned): the ship is destroyed and the core explodes with the
    /// absolute value of its HP; what is left breaks off (FOREVER-DEST-1, FOREVER-GM-36).
    fn destroy_core(&mut self, ship: usize, credit: Option<PlayerId>, out: &mut Vec<String>) {
        let Some(centre) = self.part_centre(ship, 0) else {
            return;
        };
        let value = self.live_value(ship, 0);
        let Some(hull) = self.hulls.get(ship) else {
            return;
        };
        let children = hull
            .parts
            .first()
            .map(|p| p.children.clone())
            .unwrap_or_default();
        let core_items = hull
            .parts
            .first()
            .map(|p| p.items.clone())
            .unwrap_or_default();
        let Some(data) = self.state.ships.get_mut(ship) else {
            return;
        };
        let owner = data.owner;
        let name = data.name.clone();
        let Some(core) = data.parts.first_mut() else {
            return;
        };
        let strength = core.hp.abs();
        core.status = PartStatus::Destroyed;
        for item in core_items {
            if let Some(state) = data.items.get_mut(item) {
                state.destroyed = true;
            }
        }
        out.push(format!("{name} core destroyed"));
        self.score(credit, owner, value);
        self.refresh(ship);
        if strength > 0 {
            out.push(format!("{name} core explodes ({strength})"));
            self.explode(centre, strength, credit, out);
        }
        for child in children {
            if self.state.ships.get(ship).is_some_and(|s| {
                s.parts
                    .get(child)
                    .is_some_and(|p| p.status == PartStatus::Attached)
            }) {
                self.jettison(ship, child, centre, credit, out);
            }
        }
        if let Some(data) = self.state.ships.get_mut(ship) {
            data.destroyed = true;
            data.disabled_through = None;
        }
        self.lose_demeters(ship, out);
        self.refresh(ship);
        self.check_tows();
    }

    /// A ship leaving play, however it goes, takes its demeters with it (FOREVER-GM-26,
    /// FOREVER-ADM-10).
    pub fn lose_demeters(&mut self, ship: usize, out: &mut Vec<String>) {
        let ship_id = self.state.ships.get(ship).map_or(0, |s| s.id);
        for demeter in &mut self.state.demeters {
            if demeter.ship == ship_id && !demeter.gone {
                demeter.gone = true;
                out.push(format!("{} lost with its ship", demeter.name));
            }
        }
    }

    /// A core explosion: everything whose nearest point is d" from the centre takes
    /// ⌊strength − d⌋ (FOREVER-GM-36).
    pub fn explode(
        &mut self,
        centre: Point,
        strength: i64,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) {
        let reach = strength * 100;
        let mut hits = Vec::new();
        let near = crate::geometry::Bounds::of_points([centre]).grown(reach);
        self.visit_near(near, |thing, shape| {
            if !Battle::damageable(thing) {
                return;
            }
            let distance = shape.distance_to_point(centre);
            let amount = explosion_damage(strength, distance);
            if distance < reach && amount > 0 {
                hits.push((thing, amount));
            }
        });
        for (thing, amount) in hits {
            self.damage(thing, amount, credit, out);
        }
    }

    /// The subtree from `root` breaks off and drifts away from `from`, the old parent's centre,
    /// with a scatter of 12 (FOREVER-JET-1/2, FOREVER-GM-34). Returns the sections lost.
    pub fn jettison(
        &mut self,
        ship: usize,
        root: usize,
        from: Point,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) -> usize {
        let Some(hull) = self.hulls.get(ship) else {
            return 0;
        };
        let Some(data) = self.state.ships.get(ship) else {
            return 0;
        };
        let subtree: Vec<usize> = hull
            .subtree(root)
            .into_iter()
            .filter(|p| {
                data.parts
                    .get(*p)
                    .is_some_and(|s| s.status == PartStatus::Attached)
            })
            .collect();
        if subtree.is_empty() {
            return 0;
        }
        let id = self.state.next_id;
        self.state.next_id += 1;
        let mut sections = Vec::new();
        for part in &subtree {
            let (Some(spec), Some(shape)) = (hull.parts.get(*part), self.part_shape(ship, *part))
            else {
                continue;
            };
            sections.push(BodySection {
                name: spec.name.clone(),
                part: *part,
                hp: data.parts.get(*part).map_or(0, |s| s.hp),
                base_hp: spec.base_hp,
                mass16: spec.mass16,
                shape: shape.clone(),
                value: self.live_value(ship, *part),
                destroyed: false,
            });
        }
        let orphan_centre = self.part_centre(ship, root).unwrap_or(from);
        let owner = data.owner;
        let ship_name = data.name.clone();
        let root_name = hull
            .parts
            .get(root)
            .map_or("?".to_string(), |p| p.name.clone());
        let mut nominal = orphan_centre - from;
        if nominal == Point::ORIGIN {
            nominal = Point::new(100, 0);
        }
        let bearing = self.dice.open.bearing();
        let distance = i64::from(self.dice.open.d6()) - 1;
        let marker = from
            + nominal.with_length(1200)
            + Point::polar(
                distance * 100,
                crate::fixed::Degrees::new(i64::from(bearing)),
            );
        let mut heading = marker - from;
        if heading == Point::ORIGIN {
            heading = nominal;
        }
        if let Some(data) = self.state.ships.get_mut(ship) {
            for part in &subtree {
                if let Some(state) = data.parts.get_mut(*part) {
                    state.status = PartStatus::Jettisoned(id);
                    state.deflected = false;
                }
            }
        }
        let count = sections.len();
        self.state.bodies.push(Body {
            id,
            owner,
            ship: ship_name.clone(),
            sections,
            heading,
            credit,
            towed_by: None,
            gone: false,
        });
        out.push(format!(
            "{ship_name}.{root_name} breaks off as {ship_name}/J{id} ({count} section{}; scatter {bearing}°/{distance}\", drifting toward {})",
            if count == 1 { "" } else { "s" },
            marker.show()
        ));
        self.refresh(ship);
        self.check_tows();
        count
    }

    /// Disables a ship until the end of its owner's next player-turn (FOREVER-GM-37).
    pub fn disable(&mut self, ship: usize, why: &str, out: &mut Vec<String>) {
        let Some(owner) = self.state.ships.get(ship).map(|s| s.owner) else {
            return;
        };
        let through = self.current_turn_of(owner) + 1;
        let Some(data) = self.state.ships.get_mut(ship) else {
            return;
        };
        if data.destroyed || data.disabled_through.is_some_and(|t| t >= through) {
            return;
        }
        data.disabled_through = Some(through);
        out.push(format!("{} disabled ({why})", data.name));
    }

    /// FOREVER-EF-1/2: more than a quarter of the sections lost this player-turn, and more
    /// than one.
    fn check_overload(&mut self, ship: usize, out: &mut Vec<String>) {
        let Some(turn) = self.ship_turn.get(ship) else {
            return;
        };
        if turn.lost > 1 && 4 * turn.lost > turn.sections_at_start {
            let why = format!(
                "electric feedback: lost {} of {} sections this turn",
                turn.lost, turn.sections_at_start
            );
            self.disable(ship, &why, out);
        }
    }

    /// Breaks tows whose hitch is gone or whose load is gone (FOREVER-GM-42).
    pub fn check_tows(&mut self) {
        for ship in 0..self.state.ships.len() {
            let Some(target) = self.state.ships.get(ship).and_then(|s| s.towing) else {
                continue;
            };
            let hitch_ok = self
                .hulls
                .get(ship)
                .zip(self.state.ships.get(ship))
                .is_some_and(|(hull, data)| {
                    hull.items.iter().enumerate().any(|(index, slot)| {
                        matches!(slot.item, crate::design::Item::Module(ModuleSpec::TowHitch))
                            && data.item_usable(hull, index)
                    })
                });
            let target_ok = match target {
                TowTarget::Ship(id) => self.state.ships.iter().any(|s| s.id == id && !s.destroyed),
                TowTarget::Body(id) => self.state.bodies.iter().any(|b| b.id == id && !b.gone),
            };
            if !hitch_ok || !target_ok {
                self.release(ship);
            }
        }
    }

    /// Lets go of whatever the ship tows.
    pub fn release(&mut self, ship: usize) {
        let Some(target) = self.state.ships.get_mut(ship).and_then(|s| s.towing.take()) else {
            return;
        };
        match target {
            TowTarget::Ship(id) => {
                if let Some(other) = self.state.ships.iter_mut().find(|s| s.id == id) {
                    other.towed_by = None;
                }
            }
            TowTarget::Body(id) => {
                if let Some(body) = self.state.bodies.iter_mut().find(|b| b.id == id) {
                    body.towed_by = None;
                }
            }
        }
        let key = self.row_of_ship(ship);
        self.log.result(key, "tow released");
    }

    /// Adds a line to a ship's row.
    pub fn note_ship(&mut self, ship: usize, text: impl Into<String>) {
        let key = self.row_of_ship(ship);
        self.log.result(key, text);
    }

    /// The row key for a thing's owner-facing events.
    pub fn row_for(&self, thing: Thing) -> Option<RowKey> {
        match thing {
            Thing::Part(ship, _) => Some(self.row_of_ship(ship)),
            Thing::Demeter(index) => self
                .state
                .demeters
                .get(index)
                .map(|d| RowKey::Demeter(d.name.clone())),
            Thing::BodySection(body, _) => self.state.bodies.get(body).map(|b| RowKey::Body(b.id)),
            _ => None,
        }
    }
}
