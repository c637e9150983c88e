//! FIRE and BATTERY: the weapon or the battery's weapons, the aim, and a torpedo's declared
//! range or a laser's sweep (FOREVER-GM-18, FOREVER-BAT-1, FOREVER-WPN-LASER-4,
//! FOREVER-WPN-TORP-8).

use crate::design::{Item, WeaponKind, WeaponSpec};
use crate::fixed::show_hundredths;
use crate::orders::{Action, Aim, Side, Sweep};

use super::cursor::looks_numeric;
use super::{Cursor, FIRE_EXAMPLE, Parser, Refusal};

/// A torpedo's declared range and a laser's sweep.
type ShotOptions = (Option<i64>, Option<Sweep>);

const BATTERY_EXAMPLE: &str = "BATTERY Lancer.S1/1, S1/2 AT Anvil.S3";

impl Parser<'_> {
    pub(super) fn fire(
        &mut self,
        cursor: &mut Cursor,
        line: usize,
        raw: &str,
    ) -> Result<(), Refusal> {
        let word = cursor
            .next()
            .ok_or(("name the weapon: Ship.Section".to_string(), FIRE_EXAMPLE))?;
        // `fire at will`, `fire all guns at …`: no weapon named. Each weapon fires at what its
        // own order names (FOREVER-SHOOT-2), so there is nothing to do without one.
        if word.eq_ignore_ascii_case("AT") {
            return Err((
                "FIRE names the weapon that fires before AT: each shot is aimed on its own (FOREVER-SHOOT-2)".to_string(),
                FIRE_EXAMPLE,
            ));
        }
        if ["ALL", "EVERYTHING", "EVERY", "EACH", "GUNS", "WEAPONS"]
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w))
        {
            return Err((
                "name each weapon: one FIRE line per weapon, or BATTERY for identical weapons fired together (FOREVER-SHOOT-2, FOREVER-BAT-1)".to_string(),
                FIRE_EXAMPLE,
            ));
        }
        let word = if !word.contains('.') && !cursor.peek_is(&["AT"]) {
            format!("{word}.{}", cursor.next().unwrap_or_default())
        } else {
            word
        };
        let (ship, item) = self
            .own_item(&word, Self::is_weapon, "weapon")
            .map_err(|e| (e, FIRE_EXAMPLE))?;
        self.may_act(ship).map_err(|e| (e, FIRE_EXAMPLE))?;
        if !cursor.peek_is(&["AT"]) {
            return Err(("FIRE needs AT and an aim".to_string(), FIRE_EXAMPLE));
        }
        cursor.next();
        let aim = self.aim(cursor).map_err(|e| (e, FIRE_EXAMPLE))?;
        let options = self.shot_options(cursor, ship, item)?;
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
        self.warn_own_aim(line, raw, &aim);
        let text = format!(
            "{ship_name}.{} ({}) fires at {}",
            slot.name,
            spec.describe(),
            aim.show()
        );
        let text = self.shot_words(line, raw, text, distance, &spec, options);
        let (range, sweep) = options;
        self.understood.push(text);
        self.orders.actions.push(Action::Fire {
            ship: ship_name,
            weapon: slot.name,
            aim,
            range,
            sweep,
        });
        Ok(())
    }

    /// A warning when the aim is at one of the player's own ships.
    fn warn_own_aim(&mut self, line: usize, raw: &str, aim: &Aim) {
        if let Aim::Section { ship: target, .. } = aim
            && self
                .state
                .ship_index(target)
                .and_then(|i| self.state.ships.get(i))
                .is_some_and(|s| s.owner == self.player)
        {
            self.warn(line, raw, "you are aiming at your own ship", FIRE_EXAMPLE);
        }
    }

    /// The rest of a shot in words: how far the aim is now (with a warning when that is beyond
    /// the weapon's range), the torpedo's run and the laser's sweep.
    fn shot_words(
        &mut self,
        line: usize,
        raw: &str,
        mut text: String,
        distance: Option<i64>,
        spec: &WeaponSpec,
        (range, sweep): ShotOptions,
    ) -> String {
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
        text
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
        let mut range = None;
        let mut sweep = None;
        while !cursor.done() {
            if cursor.peek_is(&["RANGE"]) {
                cursor.next();
                range = Some(declared_range(cursor, spec)?);
            } else if cursor.peek_is(&["SWEEP"]) {
                cursor.next();
                sweep = Some(read_sweep(cursor, spec.map(|s| s.kind))?);
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

    pub(super) fn battery(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        let (ship_name, items) = self.battery_weapons(cursor)?;
        let ship = items.first().map_or(0, |(s, _)| *s);
        let weapon_names = self.battery_names(ship, &items)?;
        if !cursor.peek_is(&["AT"]) {
            return Err(("BATTERY needs AT and an aim".to_string(), BATTERY_EXAMPLE));
        }
        cursor.next();
        let aim = self.aim(cursor).map_err(|e| (e, BATTERY_EXAMPLE))?;
        let first_item = items.first().map_or(0, |(_, i)| *i);
        let (range, sweep) = self.shot_options(cursor, ship, first_item)?;
        for (ship, item) in &items {
            self.mark_used(
                *ship,
                *item,
                &format!("{ship_name}.{}", self.item_label(*ship, *item)),
            )
            .map_err(|e| (e, BATTERY_EXAMPLE))?;
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

    /// The battery's weapons as written (`Ship.Weapon`, then the ship's other weapons by
    /// name): the ship as written and each weapon, at least two, all on one ship.
    fn battery_weapons(
        &self,
        cursor: &mut Cursor,
    ) -> Result<(String, Vec<(usize, usize)>), Refusal> {
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
            return Err(("list the battery's weapons".to_string(), BATTERY_EXAMPLE));
        };
        let (ship_name, _) = Self::split_ref(&first)
            .ok_or(("start with Ship.Weapon".to_string(), BATTERY_EXAMPLE))?;
        let mut items = Vec::new();
        for name in &names {
            let full = if name.contains('.') {
                name.clone()
            } else {
                format!("{ship_name}.{name}")
            };
            let (ship, item) = self
                .own_item(&full, Self::is_weapon, "weapon")
                .map_err(|e| (e, BATTERY_EXAMPLE))?;
            items.push((ship, item));
        }
        let ship = items.first().map_or(0, |(s, _)| *s);
        self.may_act(ship).map_err(|e| (e, BATTERY_EXAMPLE))?;
        if items.iter().any(|(s, _)| *s != ship) {
            return Err((
                "a battery's weapons must be on one ship".to_string(),
                BATTERY_EXAMPLE,
            ));
        }
        if items.len() < 2 {
            return Err((
                "a battery needs at least two weapons".to_string(),
                BATTERY_EXAMPLE,
            ));
        }
        Ok((ship_name, items))
    }

    /// The battery's weapons' names, once they are found alike (FOREVER-BAT-1).
    fn battery_names(&self, ship: usize, items: &[(usize, usize)]) -> Result<Vec<String>, Refusal> {
        let hull = self.hull(ship).ok_or((
            "the ship's design does not check".to_string(),
            BATTERY_EXAMPLE,
        ))?;
        let specs: Vec<Item> = items
            .iter()
            .filter_map(|(_, i)| hull.items.get(*i).map(|s| s.item))
            .collect();
        if specs.windows(2).any(|pair| pair.first() != pair.get(1)) {
            return Err((
                "a battery's weapons must have the same type and stats (FOREVER-BAT-1)".to_string(),
                BATTERY_EXAMPLE,
            ));
        }
        Ok(items
            .iter()
            .filter_map(|(_, i)| hull.items.get(*i).map(|s| s.name.clone()))
            .collect())
    }
}

/// `RANGE r`: a torpedo's declared range, 0 to its range (FOREVER-GM-18).
fn declared_range(cursor: &mut Cursor, spec: Option<WeaponSpec>) -> Result<i64, Refusal> {
    let value = cursor.inches().ok_or((
        "RANGE needs inches".to_string(),
        "FIRE Lancer.S4 AT Anvil.S2 RANGE 15",
    ))?;
    if !spec.map(|s| s.kind).is_some_and(WeaponKind::is_torpedo) {
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
    Ok(value)
}

/// `SWEEP L|R [step]`: a laser's sweep, to the right unless L, with a step of ½" to 1"
/// (FOREVER-WPN-LASER-4).
fn read_sweep(cursor: &mut Cursor, kind: Option<WeaponKind>) -> Result<Sweep, Refusal> {
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
    Ok(value)
}
