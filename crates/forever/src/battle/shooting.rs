//! Shooting: the marker, the scatter and the line (FOREVER-SHOOT-*, FOREVER-GM-12/13/14), and
//! what each weapon does along it: gun, laser sweep, missile blast, rail-gun chain, torpedo
//! through the third dimension, batteries, EMP, the targeting computer, demeter guns
//! (FOREVER-WPN-*, FOREVER-BAT-1, FOREVER-MOD-EMP-*, FOREVER-GM-15..18/22/27/38).

use engine::PlayerId;

use super::damage::Hit;
use super::{Battle, RowKey, Thing};
use crate::design::{Item, ModuleSpec, WeaponKind, WeaponSpec};
use crate::fixed::{Degrees, show_hundredths};
use crate::geometry::{Point, segment_meets_segment};
use crate::orders::{Aim, Side, Sweep};
use crate::setup::BatteryOffsets;
use crate::state::{PartStatus, Protect};

/// Range of a demeter's gun, in hundredths (FOREVER-MOD-DGUN-1).
pub const DEMETER_GUN_RANGE: i64 = 300;

/// The lateral offsets of a battery's shots, in inches (FOREVER-BAT-1, FOREVER-GM-38):
/// the text's list for the first ten, then one inch further out after every pair.
pub fn battery_offsets(count: usize) -> Vec<i64> {
    const FIRST: [i64; 10] = [0, 0, 1, -1, 0, 0, 1, -1, 2, -2];
    (0..count)
        .map(|index| match FIRST.get(index) {
            Some(offset) => *offset,
            None => {
                let step = i64::try_from((index - 8) / 2).unwrap_or(0) + 2;
                if index % 2 == 0 { step } else { -step }
            }
        })
        .collect()
}

/// A missile's damage to a section whose nearest point is `distance` hundredths from the
/// blast centre: ⌊D ÷ (2·max(d, ½"))⌋ within the radius D, else nothing (FOREVER-WPN-MSL-5/6,
/// FOREVER-GM-16).
pub fn missile_damage(damage: i64, distance: i64) -> i64 {
    missile_damage_within(damage, damage * 100, distance)
}

/// The same with the blast's reach given in hundredths (setup `missile_radius`,
/// FOREVER-WPN-MSL-5).
pub fn missile_damage_within(damage: i64, radius: i64, distance: i64) -> i64 {
    if distance > radius {
        return 0;
    }
    damage * 100 / (2 * distance.max(50))
}

/// The direction of a shot from `gun` at `aim`: the marker `accuracy` inches toward the aim,
/// moved `scatter` inches at `bearing` (FOREVER-SHOOT-2/3/4/6, FOREVER-GM-12). Accuracy 0
/// points straight at the aim. `None` if the aim is on the gun.
pub fn shot_marker(
    gun: Point,
    aim: Point,
    accuracy: i64,
    bearing: Degrees,
    scatter: i64,
) -> Option<Point> {
    let toward = aim - gun;
    if toward == Point::ORIGIN {
        return None;
    }
    if accuracy == 0 {
        return Some(aim);
    }
    Some(gun + toward.with_length(accuracy * 100) + Point::polar(scatter * 100, bearing))
}

/// A line of fire: from a gun, along a direction, out to a range in hundredths.
#[derive(Debug, Clone, Copy)]
struct Line {
    from: Point,
    direction: Point,
    range: i64,
}

/// A fired weapon, resolved to its stats and position.
struct Gun {
    ship: usize,
    item: usize,
    part: usize,
    spec: WeaponSpec,
    name: String,
    at: Point,
}

impl Battle<'_> {
    /// Where an aim points now, and the part aimed at if any (FOREVER-GM-12): a section's
    /// centre (following it into the wreckage if it broke off), a demeter, or a table point.
    pub fn aim_point(&self, aim: &Aim) -> Result<(Point, Option<Thing>), String> {
        match aim {
            Aim::Point(point) => Ok((*point, None)),
            Aim::Demeter(name) => self
                .state
                .demeters
                .iter()
                .position(|d| !d.gone && d.name.eq_ignore_ascii_case(name))
                .map(|index| {
                    (
                        self.state
                            .demeters
                            .get(index)
                            .map_or(Point::ORIGIN, |d| d.at),
                        Some(Thing::Demeter(index)),
                    )
                })
                .ok_or_else(|| format!("{name} is gone")),
            Aim::Section { ship, section } => {
                let index = self
                    .state
                    .ship_index(ship)
                    .ok_or_else(|| format!("there is no ship {ship}"))?;
                let part = self
                    .hulls
                    .get(index)
                    .and_then(|h| h.part_index(section))
                    .ok_or_else(|| format!("{ship} has no section {section}"))?;
                let data = self.state.ships.get(index).ok_or("no such ship")?;
                match data.parts.get(part).map(|p| p.status) {
                    Some(PartStatus::Attached) if !data.destroyed => {
                        let centre = self.part_centre(index, part).ok_or("gone")?;
                        Ok((centre, Some(Thing::Part(index, part))))
                    }
                    Some(PartStatus::Jettisoned(id)) => {
                        let body = self
                            .state
                            .bodies
                            .iter()
                            .position(|b| b.id == id && !b.gone)
                            .ok_or_else(|| format!("{ship}.{section} is gone"))?;
                        let piece = self
                            .state
                            .bodies
                            .get(body)
                            .and_then(|b| {
                                b.sections
                                    .iter()
                                    .position(|s| s.part == part && !s.destroyed)
                            })
                            .ok_or_else(|| format!("{ship}.{section} is gone"))?;
                        let thing = Thing::BodySection(body, piece);
                        let centre = self.shape(thing).map(|s| s.centre()).ok_or("gone")?;
                        Ok((centre, Some(thing)))
                    }
                    _ => Err(format!("{ship}.{section} is gone")),
                }
            }
        }
    }

    /// Can this ship act in phase 2 (FOREVER-DEF-DISABLED, FOREVER-GM-51)?
    fn may_shoot(&mut self, ship: usize) -> bool {
        let key = self.row_of_ship(ship);
        let Some(data) = self.state.ships.get(ship) else {
            return false;
        };
        if data.destroyed || data.owner != self.active {
            return false;
        }
        if data.is_disabled(self.own_turn) {
            if self.disabled_noted.insert(ship) {
                self.log.result(
                    key,
                    "disabled: no shooting-phase actions (FOREVER-DEF-DISABLED)",
                );
            }
            return false;
        }
        true
    }

    fn find_gun(&mut self, ship: usize, name: &str) -> Option<Gun> {
        let key = self.row_of_ship(ship);
        let hull = self.hulls.get(ship)?;
        let Some(item) = hull.weapon(name) else {
            self.log.result(key, format!("{name}: no such weapon"));
            return None;
        };
        let slot = hull.items.get(item)?;
        let Item::Weapon(spec) = slot.item else {
            return None;
        };
        let (part, gun_name) = (slot.part, slot.name.clone());
        let usable = self
            .state
            .ships
            .get(ship)
            .is_some_and(|s| s.item_usable(hull, item));
        if !usable {
            self.log.result(
                key,
                format!("{gun_name}: destroyed or broken off; cannot fire (FOREVER-JET-5)"),
            );
            return None;
        }
        if self.fired.contains(&(ship, item)) {
            self.log.result(
                key,
                format!("{gun_name}: has already fired this phase (FOREVER-GM-50)"),
            );
            return None;
        }
        let at = self.part_centre(ship, part)?;
        Some(Gun {
            ship,
            item,
            part,
            spec,
            name: gun_name,
            at,
        })
    }

    /// The marker at `accuracy` inches toward the aim, moved by the scatter die; the line's
    /// direction from the gun (FOREVER-SHOOT-2/3/4/6, FOREVER-GM-12/13). Dice: bearing, then D6.
    fn scatter(&mut self, gun: Point, aim: Point, accuracy: i64) -> Option<(Point, Point, String)> {
        let toward = aim - gun;
        if toward == Point::ORIGIN {
            return None;
        }
        if accuracy == 0 {
            return Some((toward, aim, "no scatter".to_string()));
        }
        let bearing = self.dice.open.bearing();
        let distance = i64::from(self.dice.open.d6()) - 1;
        let marker = shot_marker(
            gun,
            aim,
            accuracy,
            Degrees::new(i64::from(bearing)),
            distance,
        )?;
        let direction = if marker == gun { toward } else { marker - gun };
        Some((direction, marker, format!("{bearing}°/{distance}\"")))
    }

    /// Standing deflector orders of the other players triggered by a declared shot
    /// (FOREVER-MOD-DEF-2/3, FOREVER-GM-20).
    fn trigger_deflectors(
        &mut self,
        shooter: PlayerId,
        aim_point: Point,
        aimed: Option<Thing>,
        out: &mut Vec<String>,
    ) {
        let seats: Vec<(PlayerId, Vec<(String, Protect)>)> = self
            .state
            .seats
            .iter()
            .filter(|s| s.player.id != shooter)
            .map(|s| {
                (
                    s.player.id,
                    s.standing
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
            })
            .collect();
        for (owner, standing) in seats {
            for (key, protect) in standing {
                let Some((ship_name, module_name)) = key.split_once('.') else {
                    continue;
                };
                let Some(ship) = self.state.ship_index(ship_name) else {
                    continue;
                };
                if self
                    .state
                    .ships
                    .get(ship)
                    .is_none_or(|s| s.owner != owner || s.destroyed)
                {
                    continue;
                }
                let Some(hull) = self.hulls.get(ship) else {
                    continue;
                };
                let Some(item) =
                    hull.module(module_name, |m| matches!(m, ModuleSpec::Deflector { .. }))
                else {
                    continue;
                };
                let Some(own_part) = hull.items.get(item).map(|s| s.part) else {
                    continue;
                };
                if self.usable_module(ship, item).is_none() {
                    continue;
                }
                let charges = self
                    .state
                    .ships
                    .get(ship)
                    .and_then(|s| s.items.get(item))
                    .and_then(|s| s.charges)
                    .unwrap_or(0);
                if charges == 0 {
                    continue;
                }
                let target = match aimed {
                    Some(Thing::Part(index, part)) if index == ship => Some(part),
                    Some(_) => None,
                    None => (0..hull.parts.len()).find(|p| {
                        self.part_shape(ship, *p)
                            .is_some_and(|s| s.contains(aim_point))
                    }),
                };
                let Some(part) = target else { continue };
                let part_name = hull
                    .parts
                    .get(part)
                    .map_or(String::new(), |p| p.name.clone());
                let listed = match &protect {
                    Protect::Any => true,
                    Protect::Sections(names) => {
                        names.iter().any(|n| n.eq_ignore_ascii_case(&part_name))
                    }
                };
                if part == 0
                    || part == own_part
                    || !listed
                    || self.deflected(Thing::Part(ship, part))
                {
                    continue;
                }
                let module_label = hull
                    .items
                    .get(item)
                    .map_or(String::new(), |s| s.name.clone());
                if let Some(data) = self.state.ships.get_mut(ship) {
                    if let Some(state) = data.parts.get_mut(part) {
                        state.deflected = true;
                    }
                    if let Some(state) = data.items.get_mut(item) {
                        state.charges = Some(charges - 1);
                    }
                    out.push(format!(
                        "{}'s deflector {module_label} shields {part_name}",
                        data.name
                    ));
                }
                let row = self.row_of_ship(ship);
                self.log.result(
                    row,
                    format!("deflector {module_label} shielded {part_name} (FOREVER-MOD-DEF-3)"),
                );
            }
        }
    }

    /// Defensive gunners of other players shoot at a missile or torpedo flying `from → to`
    /// (FOREVER-MOD-DGN-3, FOREVER-GM-21). Returns the HP it has left.
    fn intercept(
        &mut self,
        owner: PlayerId,
        from: Point,
        to: Point,
        mut hp: i64,
        out: &mut Vec<String>,
    ) -> i64 {
        let gunners: Vec<(usize, usize)> = self
            .gunner_shots
            .iter()
            .filter(|(_, s)| **s > 0)
            .map(|(g, _)| *g)
            .collect();
        for (ship, item) in gunners {
            if hp <= 0 {
                break;
            }
            if self.state.ships.get(ship).is_none_or(|s| s.owner == owner)
                || self.usable_module(ship, item).is_none()
            {
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
            let near = crate::geometry::point_segment_dist2(gun, from, to);
            if near
                > crate::geometry::Frac::new(i128::from(super::movement::GUNNER_REACH).pow(2), 1)
            {
                continue;
            }
            let mut fired = 0;
            while hp > 0 && self.gunner_shots.get(&(ship, item)).copied().unwrap_or(0) > 0 {
                if let Some(left) = self.gunner_shots.get_mut(&(ship, item)) {
                    *left -= 1;
                }
                hp -= 1;
                fired += 1;
            }
            let name = format!(
                "{}.{}",
                self.state.ships.get(ship).map_or("?", |s| s.name.as_str()),
                self.hulls
                    .get(ship)
                    .and_then(|h| h.items.get(item))
                    .map_or("?", |s| s.name.as_str())
            );
            out.push(format!("{name}'s gunner fires {fired}"));
            let row = self.row_of_ship(ship);
            self.log.result(
                row,
                format!("gunner fired {fired} at an incoming projectile (FOREVER-MOD-DGN-3)"),
            );
        }
        hp
    }

    /// Fires one weapon (FOREVER-SHOOT-1, FOREVER-GM-50), with a targeting computer if one is
    /// attached (FOREVER-GM-27).
    pub fn fire(
        &mut self,
        ship: usize,
        weapon: &str,
        aim: &Aim,
        declared: Option<i64>,
        sweep: Option<Sweep>,
        computer: Option<(usize, Option<Aim>)>,
    ) {
        if !self.may_shoot(ship) {
            return;
        }
        let Some(gun) = self.find_gun(ship, weapon) else {
            return;
        };
        let key = self.row_of_ship(ship);
        let mut aim = aim.clone();
        let mut notes = Vec::new();
        if let Some((module, fallback)) = computer {
            let ready = self.usable_module(ship, module).is_some()
                && self
                    .state
                    .ships
                    .get(ship)
                    .and_then(|s| s.items.get(module))
                    .and_then(|s| s.charges)
                    .unwrap_or(0)
                    > 0;
            if ready {
                if let Some(state) = self
                    .state
                    .ships
                    .get_mut(ship)
                    .and_then(|s| s.items.get_mut(module))
                {
                    state.charges = Some(0);
                }
                let in_range = |battle: &Self, aim: &Aim| {
                    battle
                        .aim_point(aim)
                        .is_ok_and(|(point, _)| gun.at.distance(point) <= gun.spec.range())
                };
                if in_range(self, &aim) {
                    notes.push("computer: in range".to_string());
                } else if let Some(second) = fallback.filter(|second| in_range(self, second)) {
                    notes.push(format!(
                        "computer: {} out of range, fired at {} instead",
                        aim.show(),
                        second.show()
                    ));
                    aim = second;
                } else {
                    self.fired.insert((ship, gun.item));
                    let row = self.log.row(key);
                    row.coord.push(format!("{}→{}", gun.name, aim.show()));
                    row.result.push(format!(
                        "{}: computer held fire: out of range (FOREVER-GM-27)",
                        gun.name
                    ));
                    return;
                }
            } else {
                notes.push("computer not ready".to_string());
            }
        }
        let (point, aimed) = match self.aim_point(&aim) {
            Ok(found) => found,
            Err(problem) => {
                self.log
                    .result(key, format!("{}: held fire: {problem}", gun.name));
                return;
            }
        };
        self.fired.insert((ship, gun.item));
        let mut out = notes;
        let owner = self.active;
        self.trigger_deflectors(owner, point, aimed, &mut out);
        let Some((direction, _marker, scatter)) = self.scatter(gun.at, point, gun.spec.accuracy())
        else {
            self.log.result(
                key,
                format!("{}: held fire: the aim is on the gun", gun.name),
            );
            return;
        };
        out.insert(0, scatter);
        self.deliver(&gun, direction, declared, point, sweep, &mut out);
        let row = self.log.row(key);
        row.coord
            .push(format!("{}→{} {}", gun.name, aim.show(), point.show()));
        row.result.push(format!("{}: {}", gun.name, out.join(", ")));
    }

    /// Identical weapons fire as a battery: one marker, offsets across the line, each shot
    /// from its own gun (FOREVER-BAT-1, FOREVER-GM-38).
    pub fn fire_battery(
        &mut self,
        ship: usize,
        weapons: &[String],
        aim: &Aim,
        declared: Option<i64>,
        sweep: Option<Sweep>,
    ) {
        if !self.may_shoot(ship) {
            return;
        }
        let key = self.row_of_ship(ship);
        let mut guns = Vec::new();
        for name in weapons {
            if let Some(gun) = self.find_gun(ship, name) {
                guns.push(gun);
            }
        }
        let Some(first) = guns.first() else { return };
        if guns.iter().any(|g| !g.spec.same_stats(&first.spec)) {
            self.log.result(
                key,
                "battery refused: the weapons are not identical (FOREVER-BAT-1)",
            );
            return;
        }
        let (point, aimed) = match self.aim_point(aim) {
            Ok(found) => found,
            Err(problem) => {
                self.log
                    .result(key, format!("battery held fire: {problem}"));
                return;
            }
        };
        for gun in &guns {
            self.fired.insert((ship, gun.item));
        }
        let mut out = Vec::new();
        self.trigger_deflectors(self.active, point, aimed, &mut out);
        let (first_at, accuracy) = (first.at, first.spec.accuracy());
        let Some((direction, marker, scatter)) = self.scatter(first_at, point, accuracy) else {
            self.log
                .result(key, "battery held fire: the aim is on the gun");
            return;
        };
        out.insert(0, scatter);
        // Where the offsets are measured: the marker, or where the first gun's shot lands
        // (the GM's switch, FOREVER-GM-38).
        let centre = match self.state.setup.battery_offsets {
            BatteryOffsets::Marker => marker,
            BatteryOffsets::Impact => {
                let mount = Thing::Part(first.ship, first.part);
                self.trace_line(first_at, direction, first.spec.range(), &|t| t == mount)
                    .map_or(marker, |(point, _)| point)
            }
        };
        let offsets = battery_offsets(guns.len());
        for (gun, offset) in guns.iter().zip(offsets) {
            let shifted = centre + direction.right_normal(offset.abs() * 100) * offset.signum();
            let line = if shifted == gun.at {
                direction
            } else {
                shifted - gun.at
            };
            let mut shot = Vec::new();
            self.deliver(gun, line, declared, point, sweep, &mut shot);
            out.push(format!(
                "{} ({:+}\"): {}",
                gun.name,
                offset,
                shot.join(", ")
            ));
        }
        let names: Vec<&str> = guns.iter().map(|g| g.name.as_str()).collect();
        let row = self.log.row(key);
        row.coord.push(format!(
            "battery {}→{} {}",
            names.join("+"),
            aim.show(),
            point.show()
        ));
        row.result.push(format!("battery: {}", out.join("; ")));
    }

    /// What the weapon does along its line.
    fn deliver(
        &mut self,
        gun: &Gun,
        direction: Point,
        declared: Option<i64>,
        aim: Point,
        sweep: Option<Sweep>,
        out: &mut Vec<String>,
    ) {
        let range = gun.spec.range();
        let credit = self.state.ships.get(gun.ship).map(|s| s.owner);
        let mount = Thing::Part(gun.ship, gun.part);
        let damage = gun.spec.damage();
        match gun.spec.kind {
            WeaponKind::Gun => {
                self.bullet(
                    Line {
                        from: gun.at,
                        direction,
                        range,
                    },
                    mount,
                    damage,
                    credit,
                    out,
                );
            }
            WeaponKind::Laser => {
                if let Some((point, thing)) = self.bullet(
                    Line {
                        from: gun.at,
                        direction,
                        range,
                    },
                    mount,
                    damage,
                    credit,
                    out,
                ) && Battle::damageable(thing)
                {
                    let sweep = sweep.unwrap_or_default();
                    for step in 1..=gun.spec.sweep() {
                        let mut offset = direction.right_normal(step * sweep.step);
                        if sweep.side == Side::Left {
                            offset = -offset;
                        }
                        let stop = point + offset;
                        match self.thing_at(stop) {
                            Some(thing) => {
                                let mut effects = Vec::new();
                                self.damage(thing, damage, credit, &mut effects);
                                out.push(format!("sweep {} {}", stop.show(), effects.join(", ")));
                            }
                            None => out.push(format!("sweep {} empty", stop.show())),
                        }
                    }
                }
            }
            WeaponKind::Rail => self.rail(gun, direction, credit, out),
            WeaponKind::Missile => {
                let (centre, absorbed) =
                    match self.trace_line(gun.at, direction, range, &|t| t == mount) {
                        Some((point, Thing::Flux(_))) => (point, true),
                        Some((point, _)) => (point, false),
                        None => (gun.at + direction.with_length(range), false),
                    };
                if absorbed {
                    out.push(format!("absorbed by a flux line at {}", centre.show()));
                    return;
                }
                let owner = credit.unwrap_or(self.active);
                if self.intercept(owner, gun.at, centre, gun.spec.hp(), out) <= 0 {
                    out.push("missile shot down: no explosion (FOREVER-WPN-MSL-4)".to_string());
                    return;
                }
                self.blast(centre, damage, credit, out);
            }
            WeaponKind::Torpedo | WeaponKind::TorpedoMissile => {
                self.torpedo(gun, direction, declared, aim, credit, out);
            }
        }
    }

    /// A bullet: the first thing on the line takes the damage (FOREVER-SHOOT-5, FOREVER-GM-14).
    fn bullet(
        &mut self,
        line: Line,
        mount: Thing,
        damage: i64,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) -> Option<(Point, Thing)> {
        let Line {
            from,
            direction,
            range,
        } = line;
        let Some((point, thing)) = self.trace_line(from, direction, range, &|t| t == mount) else {
            out.push("miss".to_string());
            return None;
        };
        match thing {
            Thing::Rock(_) => out.push(format!("hit {} at {}", self.name(thing), point.show())),
            Thing::Flux(_) => out.push(format!("stopped by a flux line at {}", point.show())),
            _ => {
                let mut effects = Vec::new();
                self.damage(thing, damage, credit, &mut effects);
                out.push(format!("hit at {}: {}", point.show(), effects.join(", ")));
            }
        }
        Some((point, thing))
    }

    /// The rail gun: full damage, then half, a quarter... and half the remaining range after
    /// each hit, never the same section twice (FOREVER-WPN-RAIL-2, FOREVER-GM-17).
    fn rail(
        &mut self,
        gun: &Gun,
        direction: Point,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) {
        let damage = gun.spec.damage();
        let mut hit: Vec<Thing> = vec![Thing::Part(gun.ship, gun.part)];
        let mut from = gun.at;
        let mut remaining = gun.spec.range();
        let mut halvings = 0u32;
        loop {
            let skip = hit.clone();
            let Some((point, thing)) =
                self.trace_line(from, direction, remaining, &move |t| skip.contains(&t))
            else {
                if halvings == 0 {
                    out.push("miss".to_string());
                }
                return;
            };
            if matches!(thing, Thing::Rock(_) | Thing::Flux(_)) {
                out.push(format!(
                    "stopped by {} at {}",
                    self.name(thing),
                    point.show()
                ));
                return;
            }
            let amount = damage >> halvings;
            let mut effects = Vec::new();
            if self.damage(thing, amount, credit, &mut effects) == Hit::Nothing
                && !self.deflected(thing)
            {
                effects.push(format!("{} −0", self.name(thing)));
            }
            out.push(format!("rail at {}: {}", point.show(), effects.join(", ")));
            hit.push(thing);
            halvings += 1;
            if halvings >= 63 || damage >> halvings == 0 {
                return;
            }
            remaining = (remaining - from.distance(point)) / 2;
            from = point;
            if remaining <= 0 {
                return;
            }
        }
    }

    /// A missile's blast: radius D, each thing takes ⌊D ÷ (2·max(d, ½))⌋
    /// (FOREVER-WPN-MSL-5/6, FOREVER-GM-16).
    pub fn blast(
        &mut self,
        centre: Point,
        damage: i64,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) {
        let mut hits = Vec::new();
        let radius = match self.state.setup.missile_radius {
            crate::setup::MissileRadius::Bought => damage * 100,
            crate::setup::MissileRadius::Base => 100,
        };
        let near = crate::geometry::Bounds::of_points([centre]).grown(radius);
        self.visit_near(near, |thing, shape| {
            if Battle::damageable(thing) {
                let amount = missile_damage_within(damage, radius, shape.distance_to_point(centre));
                if amount > 0 {
                    hits.push((thing, amount));
                }
            }
        });
        let mut effects = Vec::new();
        for (thing, amount) in hits {
            self.damage(thing, amount, credit, &mut effects);
        }
        if effects.is_empty() {
            out.push(format!("blast at {}: nothing in reach", centre.show()));
        } else {
            out.push(format!(
                "blast at {}: {}",
                centre.show(),
                effects.join(", ")
            ));
        }
    }

    /// The torpedo: the declared range along the scattered line, then 1d6−3" more, hitting
    /// what is there and ignoring what lies between, unless a deflected section or a flux line
    /// is in the way (FOREVER-WPN-TORP-4..9, FOREVER-GM-18/19).
    fn torpedo(
        &mut self,
        gun: &Gun,
        direction: Point,
        declared: Option<i64>,
        aim: Point,
        credit: Option<PlayerId>,
        out: &mut Vec<String>,
    ) {
        let range = gun.spec.range();
        let wanted = declared.unwrap_or_else(|| gun.at.distance(aim).min(range));
        let run = wanted.clamp(0, range);
        if run != wanted {
            out.push(format!(
                "declared range cut to {}\"",
                show_hundredths(range)
            ));
        }
        let roll = i64::from(self.dice.open.d6()) - 3;
        let length = (run + roll * 100).max(0);
        let target = gun.at + direction.with_length(length);
        out.push(format!(
            "run {}\" {:+}\" to {}",
            show_hundredths(run),
            roll,
            target.show()
        ));
        let mount = Thing::Part(gun.ship, gun.part);
        let blocked = self
            .state
            .flux_lines
            .iter()
            .any(|line| segment_meets_segment(gun.at, target, line.from, line.to).is_some())
            || self.solid_things().into_iter().any(|thing| {
                thing != mount
                    && self.deflected(thing)
                    && self
                        .shape(thing)
                        .is_some_and(|s| s.first_touch(gun.at, target).is_some())
            });
        if blocked {
            out.push(
                "stopped by a deflected section or flux line: lost (FOREVER-WPN-TORP-9)"
                    .to_string(),
            );
            return;
        }
        let owner = credit.unwrap_or(self.active);
        if self.intercept(owner, gun.at, target, gun.spec.hp(), out) <= 0 {
            out.push("torpedo shot down (FOREVER-WPN-TORP-4)".to_string());
            return;
        }
        if gun.spec.kind == WeaponKind::TorpedoMissile {
            self.blast(target, gun.spec.damage(), credit, out);
            return;
        }
        match self.thing_at(target) {
            Some(thing) => {
                let mut effects = Vec::new();
                self.damage(thing, gun.spec.damage(), credit, &mut effects);
                out.push(format!("hit {}", effects.join(", ")));
            }
            None => out.push("miss".to_string()),
        }
    }

    /// The EMP: every weapon and module on a section its full-range line crosses is destroyed,
    /// friend or foe, except on deflected sections and its own (FOREVER-MOD-EMP-2/3,
    /// FOREVER-GM-22).
    pub fn fire_emp(&mut self, ship: usize, module: &str, aim: &Aim) {
        if !self.may_shoot(ship) {
            return;
        }
        let key = self.row_of_ship(ship);
        let Some(hull) = self.hulls.get(ship) else {
            return;
        };
        let Some(item) = hull.module(module, |m| matches!(m, ModuleSpec::Emp { .. })) else {
            self.log.result(key, format!("{module}: no such EMP"));
            return;
        };
        let Some(ModuleSpec::Emp {
            range_steps,
            accuracy_steps,
            ..
        }) = self.usable_module(ship, item)
        else {
            self.log
                .result(key, format!("{module}: EMP destroyed or broken off"));
            return;
        };
        let charges = self
            .state
            .ships
            .get(ship)
            .and_then(|s| s.items.get(item))
            .and_then(|s| s.charges)
            .unwrap_or(0);
        if charges == 0 {
            self.log.result(
                key,
                format!("{module}: EMP not recharged (FOREVER-DEF-RECHARGE)"),
            );
            return;
        }
        let part = hull.items.get(item).map_or(0, |s| s.part);
        let label = hull
            .items
            .get(item)
            .map_or(String::new(), |s| s.name.clone());
        let Some(at) = self.part_centre(ship, part) else {
            return;
        };
        let (point, aimed) = match self.aim_point(aim) {
            Ok(found) => found,
            Err(problem) => {
                self.log
                    .result(key, format!("{label}: EMP held: {problem}"));
                return;
            }
        };
        if let Some(state) = self
            .state
            .ships
            .get_mut(ship)
            .and_then(|s| s.items.get_mut(item))
        {
            state.charges = Some(charges - 1);
        }
        let mut out = Vec::new();
        self.trigger_deflectors(self.active, point, aimed, &mut out);
        let accuracy = 8 + 5 * i64::from(accuracy_steps);
        let range = (12 + 6 * i64::from(range_steps)) * 100;
        let Some((direction, _, scatter)) = self.scatter(at, point, accuracy) else {
            return;
        };
        out.insert(0, scatter);
        let mut end = at + direction.with_length(range);
        if let Some((point, thing)) = self.trace_line(at, direction, range, &|t| {
            !matches!(t, Thing::Flux(_) | Thing::Rock(_))
        }) {
            end = point;
            out.push(format!("stopped by {} at {}", self.name(thing), end.show()));
        }
        let mount = Thing::Part(ship, part);
        let credit = Some(self.active);
        let mut destroyed = Vec::new();
        for thing in self.solid_things() {
            if thing == mount || self.deflected(thing) {
                continue;
            }
            let crossed = self
                .shape(thing)
                .is_some_and(|s| s.first_touch(at, end).is_some());
            if !crossed {
                continue;
            }
            match thing {
                Thing::Part(index, part) => {
                    let items: Vec<usize> = self
                        .hulls
                        .get(index)
                        .and_then(|h| h.parts.get(part))
                        .map(|p| p.items.clone())
                        .unwrap_or_default();
                    for item in items {
                        let live = self
                            .state
                            .ships
                            .get(index)
                            .and_then(|s| s.items.get(item))
                            .is_some_and(|s| !s.destroyed);
                        if !live {
                            continue;
                        }
                        let (cost, name) = self
                            .hulls
                            .get(index)
                            .and_then(|h| h.items.get(item))
                            .map_or((crate::design::Points::ZERO, String::new()), |s| {
                                (s.cost, format!("{} {}", s.name, s.item.word()))
                            });
                        let owner = self.state.ships.get(index).map_or(PlayerId(0), |s| s.owner);
                        if let Some(state) = self
                            .state
                            .ships
                            .get_mut(index)
                            .and_then(|s| s.items.get_mut(item))
                        {
                            state.destroyed = true;
                        }
                        self.score(credit, owner, cost);
                        destroyed.push(format!(
                            "{}.{name}",
                            self.state.ships.get(index).map_or("?", |s| s.name.as_str())
                        ));
                    }
                }
                Thing::BodySection(body, piece) => {
                    // A jettisoned section's items are useless already; they are wrecked all
                    // the same, and no longer score when the section goes.
                    if let Some(section) = self
                        .state
                        .bodies
                        .get_mut(body)
                        .and_then(|b| b.sections.get_mut(piece))
                    {
                        section.value = crate::design::Points::ZERO;
                    }
                }
                _ => {}
            }
        }
        self.check_tows();
        if destroyed.is_empty() {
            out.push("no weapon or module on the line".to_string());
        } else {
            out.push(format!("destroyed {}", destroyed.join(", ")));
        }
        let row = self.log.row(key);
        row.coord
            .push(format!("{label} EMP→{} {}", aim.show(), point.show()));
        row.result.push(format!("{label} EMP: {}", out.join(", ")));
    }

    /// A demeter's gun: range 3", accuracy 0, damage 1 (FOREVER-MOD-DGUN-1).
    pub fn demeter_fire(&mut self, index: usize, aim: &Aim) {
        let Some(demeter) = self.state.demeters.get(index) else {
            return;
        };
        if demeter.gone {
            return;
        }
        let key = RowKey::Demeter(demeter.name.clone());
        let (from, owner) = (demeter.at, demeter.owner);
        let (point, aimed) = match self.aim_point(aim) {
            Ok(found) => found,
            Err(problem) => {
                self.log.result(key, format!("held fire: {problem}"));
                return;
            }
        };
        if point == from {
            return;
        }
        let mut out = Vec::new();
        // A demeter's shot is an enemy shot declared like any other: it triggers standing
        // deflector orders (FOREVER-MOD-DEF-2, FOREVER-GM-20).
        self.trigger_deflectors(owner, point, aimed, &mut out);
        self.bullet(
            Line {
                from,
                direction: point - from,
                range: DEMETER_GUN_RANGE,
            },
            Thing::Demeter(index),
            1,
            Some(owner),
            &mut out,
        );
        let row = self.log.row(key);
        row.coord
            .push(format!("gun→{} {}", aim.show(), point.show()));
        row.result.push(format!("gun: {}", out.join(", ")));
    }
}
