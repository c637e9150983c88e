//! Modules and the player-turn's bookkeeping: recharge and energy (FOREVER-DEF-RECHARGE,
//! FOREVER-DEF-ENERGY, FOREVER-GM-24/25), defensive gunners' readiness (FOREVER-GM-21), the
//! flux projector (FOREVER-GM-23), the nano matrix (FOREVER-GM-29), demeters
//! (FOREVER-MOD-DCU-*, FOREVER-MOD-DL-*, FOREVER-GM-26), and the end of a player-turn.

use std::collections::BTreeSet;

use engine::PlayerId;

use super::movement::GUNNER_REACH;
use super::{Battle, RowKey, ShipTurn, Thing};
use crate::design::{Item, ModuleSpec};
use crate::fixed::{Degrees, show_hundredths};
use crate::geometry::{Point, point_along};
use crate::orders::Destination;
use crate::state::{DEMETER_HALF, Demeter, FluxLine};

impl Battle<'_> {
    /// The start of `player`'s player-turn: counts, gunners' shots and what they ignore
    /// (FOREVER-GM-21, FOREVER-GM-37).
    pub fn begin_player_turn(&mut self, player: PlayerId) {
        self.active = player;
        if let Some(seat) = self.state.seat_mut(player) {
            seat.turns_taken += 1;
            self.own_turn = seat.turns_taken;
        }
        self.ship_turn = self
            .state
            .ships
            .iter()
            .map(|s| ShipTurn {
                sections_at_start: s.sections_left(),
                ..ShipTurn::default()
            })
            .collect();
        self.fired.clear();
        self.disabled_noted.clear();
        self.gunner_shots.clear();
        self.gunner_ignores.clear();
        for ship in 0..self.state.ships.len() {
            let Some(data) = self.state.ships.get(ship) else {
                continue;
            };
            if data.owner == player || data.destroyed {
                continue;
            }
            let owner = data.owner;
            for item in 0..self.hulls.get(ship).map_or(0, |h| h.items.len()) {
                let Some(ModuleSpec::DefensiveGunner { extra_shots }) =
                    self.usable_module(ship, item)
                else {
                    continue;
                };
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
                let mut near: BTreeSet<Thing> = BTreeSet::new();
                let reach = crate::geometry::Bounds::of_points([gun]).grown(GUNNER_REACH);
                self.visit_near(reach, |thing, shape| {
                    if self.owner(thing) != Some(owner)
                        && !matches!(thing, Thing::Rock(_))
                        && shape.distance_to_point(gun) <= GUNNER_REACH
                    {
                        near.insert(thing);
                    }
                });
                self.gunner_shots.insert((ship, item), 1 + extra_shots);
                self.gunner_ignores.insert((ship, item), near);
            }
        }
    }

    /// Recharge dice for spent modules, then energy dice, ship by ship and slot by slot
    /// (FOREVER-DEF-RECHARGE, FOREVER-DEF-ENERGY, FOREVER-MOD-DEF-4/5/6, FOREVER-MOD-EMP-8/9,
    /// FOREVER-MOD-TC-3, FOREVER-MOD-FLUX-6/7, FOREVER-MOD-NANO-5/8, FOREVER-GM-24/25).
    pub fn recharge(&mut self, player: PlayerId) {
        let ships: Vec<usize> = (0..self.state.ships.len())
            .filter(|s| {
                self.state
                    .ships
                    .get(*s)
                    .is_some_and(|d| d.owner == player && !d.destroyed)
            })
            .collect();
        for &ship in &ships {
            for item in 0..self.hulls.get(ship).map_or(0, |h| h.items.len()) {
                let Some(module) = self.usable_module(ship, item) else {
                    continue;
                };
                let Some(faces) = module.recharge_on() else {
                    continue;
                };
                let spent = self
                    .state
                    .ships
                    .get(ship)
                    .and_then(|s| s.items.get(item))
                    .and_then(|s| s.charges)
                    == Some(0);
                if !spent {
                    continue;
                }
                let roll = self.dice.open.d6();
                let name = self.item_name(ship, item);
                let text = if roll <= faces {
                    if let Some(state) = self
                        .state
                        .ships
                        .get_mut(ship)
                        .and_then(|s| s.items.get_mut(item))
                    {
                        state.charges = Some(module.charges());
                    }
                    format!(
                        "{name} {} recharged (D6 {roll}, needs 1–{faces})",
                        module.word()
                    )
                } else {
                    format!(
                        "{name} {} not recharged (D6 {roll}, needs 1–{faces})",
                        module.word()
                    )
                };
                self.note_ship(ship, text);
            }
        }
        for &ship in &ships {
            for item in 0..self.hulls.get(ship).map_or(0, |h| h.items.len()) {
                let Some(module) = self.usable_module(ship, item) else {
                    continue;
                };
                let Some((max, dice)) = module.energy() else {
                    continue;
                };
                let current = self
                    .state
                    .ships
                    .get(ship)
                    .and_then(|s| s.items.get(item))
                    .and_then(|s| s.energy)
                    .unwrap_or(max);
                if current >= max {
                    continue;
                }
                let rolls: Vec<u32> = (0..dice).map(|_| self.dice.open.d6()).collect();
                let gained: i64 = rolls.iter().map(|r| i64::from(*r)).sum();
                let now = (current + gained).min(max);
                if let Some(state) = self
                    .state
                    .ships
                    .get_mut(ship)
                    .and_then(|s| s.items.get_mut(item))
                {
                    state.energy = Some(now);
                }
                let name = self.item_name(ship, item);
                let shown: Vec<String> = rolls.iter().map(ToString::to_string).collect();
                self.note_ship(
                    ship,
                    format!(
                        "{name} {} energy {current}→{now}/{max} (D6 {})",
                        module.word(),
                        shown.join("+")
                    ),
                );
            }
        }
    }

    pub fn item_name(&self, ship: usize, item: usize) -> String {
        self.hulls
            .get(ship)
            .and_then(|h| h.items.get(item))
            .map_or_else(|| "?".into(), |s| s.name.clone())
    }

    /// Finds a usable module of one kind on an acting ship, or says why not.
    fn acting_module(
        &mut self,
        ship: usize,
        module: &str,
        wanted: fn(&ModuleSpec) -> bool,
        word: &str,
    ) -> Option<(usize, ModuleSpec)> {
        let key = self.row_of_ship(ship);
        let data = self.state.ships.get(ship)?;
        if data.destroyed || data.owner != self.active {
            return None;
        }
        if data.is_disabled(self.own_turn) {
            if self.disabled_noted.insert(ship) {
                self.log.result(
                    key,
                    format!("disabled: the {word} and every other shooting-phase action wait (FOREVER-GM-51)"),
                );
            }
            return None;
        }
        let Some(item) = self.hulls.get(ship).and_then(|h| h.module(module, wanted)) else {
            self.log.result(key, format!("{module}: no such {word}"));
            return None;
        };
        match self.usable_module(ship, item) {
            Some(spec) => Some((item, spec)),
            None => {
                self.log.result(
                    key,
                    format!("{module}: the {word} is destroyed or broken off (FOREVER-JET-5)"),
                );
                None
            }
        }
    }

    /// Draws a flux line from the projector, not across the ship's own sections
    /// (FOREVER-MOD-FLUX-2/3, FOREVER-GM-23).
    pub fn draw_flux(&mut self, ship: usize, module: &str, bearing: Degrees, length: i64) {
        let key = self.row_of_ship(ship);
        let Some((item, _)) = self.acting_module(
            ship,
            module,
            |m| matches!(m, ModuleSpec::FluxProjector { .. }),
            "flux projector",
        ) else {
            return;
        };
        let energy = self
            .state
            .ships
            .get(ship)
            .and_then(|s| s.items.get(item))
            .and_then(|s| s.energy)
            .unwrap_or(0);
        if length < 1 || length > energy {
            self.log.result(key, format!("{module}: a {length}\" line needs {length} energy; {energy} left (FOREVER-MOD-FLUX-3)"));
            return;
        }
        let part = self
            .hulls
            .get(ship)
            .and_then(|h| h.items.get(item))
            .map_or(0, |s| s.part);
        let Some(from) = self.part_centre(ship, part) else {
            return;
        };
        let to = from + Point::polar(length * 100, bearing);
        let crossing = (0..self.hulls.get(ship).map_or(0, |h| h.parts.len()))
            .filter(|p| *p != part)
            .find(|p| {
                self.part_shape(ship, *p)
                    .is_some_and(|s| s.first_touch(from, to).is_some())
            });
        if let Some(crossed) = crossing {
            let name = self.name(Thing::Part(ship, crossed));
            self.log.result(
                key,
                format!(
                    "{module}: the line would cross {name}; it must point outward (FOREVER-GM-23)"
                ),
            );
            return;
        }
        let owner = self.active;
        let ship_id = self.state.ships.get(ship).map_or(0, |s| s.id);
        if let Some(state) = self
            .state
            .ships
            .get_mut(ship)
            .and_then(|s| s.items.get_mut(item))
        {
            state.energy = Some(energy - length);
        }
        self.state
            .flux_lines
            .retain(|line| !(line.ship == ship_id && line.item == item));
        self.state.flux_lines.push(FluxLine {
            ship: ship_id,
            item,
            owner,
            from,
            to,
        });
        let row = self.log.row(key);
        row.coord
            .push(format!("{module} flux {bearing} {length}\""));
        row.result.push(format!(
            "{module}: flux line {}–{} ({} energy left)",
            from.show(),
            to.show(),
            energy - length
        ));
    }

    /// Heals a section within reach of the matrix, never above its maximum
    /// (FOREVER-MOD-NANO-2/3/4/6/7, FOREVER-GM-29).
    pub fn heal(
        &mut self,
        ship: usize,
        module: &str,
        target_ship: &str,
        section: &str,
        amount: i64,
    ) {
        let key = self.row_of_ship(ship);
        let Some((item, spec)) = self.acting_module(
            ship,
            module,
            |m| matches!(m, ModuleSpec::NanoMatrix { .. }),
            "nano matrix",
        ) else {
            return;
        };
        let ModuleSpec::NanoMatrix { extra_range, .. } = spec else {
            return;
        };
        let reach = (3 + i64::from(extra_range)) * 100;
        let energy = self
            .state
            .ships
            .get(ship)
            .and_then(|s| s.items.get(item))
            .and_then(|s| s.energy)
            .unwrap_or(0);
        let Some(target) = self.state.ship_index(target_ship) else {
            self.log
                .result(key, format!("{module}: there is no ship {target_ship}"));
            return;
        };
        let Some(part) = self.hulls.get(target).and_then(|h| h.part_index(section)) else {
            self.log.result(
                key,
                format!("{module}: {target_ship} has no section {section}"),
            );
            return;
        };
        let Some(target_shape) = self.part_shape(target, part).cloned() else {
            self.log.result(key, format!("{module}: {target_ship}.{section} is destroyed or broken off; it cannot be healed (FOREVER-GM-29)"));
            return;
        };
        let own_part = self
            .hulls
            .get(ship)
            .and_then(|h| h.items.get(item))
            .map_or(0, |s| s.part);
        let distance = self
            .part_shape(ship, own_part)
            .map_or(i64::MAX, |s| s.distance_to_polygon(&target_shape));
        let name = self.name(Thing::Part(target, part));
        let row = self.log.row(key.clone());
        row.coord.push(format!("{module} heal→{name}"));
        if distance > reach {
            self.log.result(
                key,
                format!(
                    "{module}: {name} is {}\" away; reach {}\"",
                    show_hundredths(distance),
                    show_hundredths(reach)
                ),
            );
            return;
        }
        let max_hp = self
            .hulls
            .get(target)
            .and_then(|h| h.parts.get(part))
            .map_or(0, |p| p.max_hp);
        let hp = self
            .state
            .ships
            .get(target)
            .and_then(|s| s.parts.get(part))
            .map_or(0, |p| p.hp);
        let healed = amount.min(energy).min(max_hp - hp).max(0);
        if let Some(state) = self
            .state
            .ships
            .get_mut(target)
            .and_then(|s| s.parts.get_mut(part))
        {
            state.hp += healed;
        }
        if let Some(state) = self
            .state
            .ships
            .get_mut(ship)
            .and_then(|s| s.items.get_mut(item))
        {
            state.energy = Some(energy - healed);
        }
        self.log.result(
            key,
            format!(
                "{module}: healed {name} +{healed} to {}/{max_hp} ({} energy left)",
                hp + healed,
                energy - healed
            ),
        );
    }

    /// Launches a demeter touching the launcher's section; it moves at once
    /// (FOREVER-MOD-DCU-4, FOREVER-MOD-DL-2/5/6/8/10, FOREVER-GM-26).
    pub fn launch(&mut self, ship: usize, module: &str, go: Option<Destination>) {
        let key = self.row_of_ship(ship);
        let Some((item, spec)) = self.acting_module(
            ship,
            module,
            |m| matches!(m, ModuleSpec::DemeterLauncher { .. }),
            "demeter launcher",
        ) else {
            return;
        };
        let ModuleSpec::DemeterLauncher {
            speed_steps,
            extra_hp,
            extra_rounds,
        } = spec
        else {
            return;
        };
        if !self.fired.insert((ship, item)) {
            self.log
                .result(key, format!("{module}: has already launched this phase"));
            return;
        }
        let Some(hull) = self.hulls.get(ship) else {
            return;
        };
        let Some(data) = self.state.ships.get(ship) else {
            return;
        };
        let control: i64 = hull
            .items
            .iter()
            .enumerate()
            .filter(|(index, _)| data.item_usable(hull, *index))
            .map(|(_, slot)| match slot.item {
                Item::Module(ModuleSpec::DemeterControl { extra_control }) => {
                    1 + i64::from(extra_control)
                }
                _ => 0,
            })
            .sum();
        let deployed = i64::try_from(
            self.state
                .demeters
                .iter()
                .filter(|d| d.ship == data.id && !d.gone)
                .count(),
        )
        .unwrap_or(i64::MAX);
        if deployed >= control {
            self.log.result(key, format!("{module}: launch refused: {deployed} demeters out, control for {control} (FOREVER-MOD-DCU-4)"));
            return;
        }
        let part = hull.items.get(item).map_or(0, |s| s.part);
        let Some(shape) = self.part_shape(ship, part).cloned() else {
            return;
        };
        let centre = shape.centre();
        let mut outward = centre - data.at;
        if outward == Point::ORIGIN {
            outward = Point::polar(100, data.facing);
        }
        let far = centre + outward.with_length(1000);
        let edge = shape
            .first_touch(far, centre)
            .map_or(centre, |t| point_along(far, centre, t));
        let at = edge + outward.with_length(DEMETER_HALF + 2);
        let number = data.launched + 1;
        let name = format!("{}/D{number}", data.name);
        let (owner, ship_id) = (data.owner, data.id);
        let demeter = Demeter {
            name: name.clone(),
            owner,
            ship: ship_id,
            at,
            hp: 1 + i64::from(extra_hp),
            speed: 600 + 300 * i64::from(speed_steps),
            expires_after: self.own_turn + 1 + extra_rounds,
            gone: false,
        };
        let shape = demeter.polygon();
        if let Some(blocker) = self
            .solid_things()
            .into_iter()
            .find(|t| self.shape(*t).is_some_and(|s| s.overlaps(&shape)))
        {
            let text = format!(
                "{module}: no room to launch: {} is in the way",
                self.name(blocker)
            );
            self.log.result(key, text);
            return;
        }
        if let Some(data) = self.state.ships.get_mut(ship) {
            data.launched = number;
        }
        self.state.demeters.push(demeter);
        let index = self.state.demeters.len() - 1;
        let row = self.log.row(key);
        row.coord.push(format!("{module} launch {name}"));
        row.result
            .push(format!("{module}: launched {name} at {}", at.show()));
        let speed = 600 + 300 * i64::from(speed_steps);
        // The demeter's own phase: it moves at once, and gunners may see it arrive.
        let watched = self.gunner_watch(&[(Thing::Demeter(index), shape)], Point::ORIGIN, owner);
        self.gunners_fire(watched);
        if let Some(go) = go {
            self.move_demeter(index, go, speed, "first move");
        }
    }

    /// A demeter's move: one straight line up to `allowance`, stopping short of anything it
    /// would touch (FOREVER-GM-26). Returns the distance moved.
    pub fn move_demeter(
        &mut self,
        index: usize,
        go: Destination,
        allowance: i64,
        phase: &str,
    ) -> i64 {
        let Some(demeter) = self.state.demeters.get(index) else {
            return 0;
        };
        if demeter.gone {
            return 0;
        }
        let key = RowKey::Demeter(demeter.name.clone());
        let owner = demeter.owner;
        let controller_disabled = self
            .state
            .ships
            .iter()
            .find(|s| s.id == demeter.ship)
            .is_none_or(|s| s.destroyed || s.is_disabled(self.current_turn_of(s.owner)));
        if controller_disabled {
            self.log.result(
                key,
                "its ship is disabled: no action (FOREVER-DEF-DISABLED)",
            );
            return 0;
        }
        let at = demeter.at;
        let mut by = match go {
            Destination::To(point) => point - at,
            Destination::By(offset) => offset,
        };
        if by.length() > allowance {
            by = by.with_length(allowance);
        }
        let shape = demeter.polygon();
        let movers = [(Thing::Demeter(index), shape)];
        if let Some((t, _, obstacle)) = self.first_contact(&movers, by, &|_| false) {
            by = Point::new(t.of_towards_zero(by.x), t.of_towards_zero(by.y));
            let text = format!("{phase}: stopped by {}", self.name(obstacle));
            self.log.result(key.clone(), text);
        }
        let watched = self.gunner_watch(&movers, by, owner);
        if let Some(demeter) = self.state.demeters.get_mut(index) {
            demeter.at = demeter.at + by;
            let now = demeter.at;
            self.log.result(
                key,
                format!(
                    "{phase}: to {} ({}\")",
                    now.show(),
                    show_hundredths(by.length())
                ),
            );
        }
        self.gunners_fire(watched);
        by.length()
    }

    /// The end of `player`'s player-turn: deflections lapse, demeters expire, disablement ends
    /// (FOREVER-MOD-DEF-3, FOREVER-MOD-DL-3/10/11, FOREVER-GM-26/37/48).
    pub fn end_player_turn(&mut self, player: PlayerId) {
        for ship in &mut self.state.ships {
            for part in &mut ship.parts {
                part.deflected = false;
            }
        }
        let own_turn = self.own_turn;
        let mut expired = Vec::new();
        for demeter in &mut self.state.demeters {
            if demeter.owner == player && !demeter.gone && demeter.expires_after <= own_turn {
                demeter.gone = true;
                expired.push(demeter.name.clone());
            }
        }
        for name in expired {
            self.log.result(
                RowKey::Demeter(name),
                "its time is up: removed (FOREVER-MOD-DL-3)",
            );
        }
        for ship in 0..self.state.ships.len() {
            let Some(data) = self.state.ships.get_mut(ship) else {
                continue;
            };
            if data.owner == player && data.disabled_through.is_some_and(|t| t <= own_turn) {
                data.disabled_through = None;
                self.note_ship(ship, "no longer disabled");
            }
        }
        self.gunner_shots.clear();
        self.gunner_ignores.clear();
    }
}
