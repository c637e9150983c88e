//! Finding what an order names: the player's own ships, their weapons and modules
//! (`Ship.Section`), and aims at sections, demeters or points.

use crate::design::{Hull, Item};
use crate::geometry::Point;
use crate::orders::Aim;
use crate::state::PartStatus;

use super::Parser;
use super::cursor::{Cursor, looks_numeric};

impl Parser<'_> {
    /// The player's own ship still in play.
    pub(super) fn own_ship(&self, name: &str) -> Result<usize, String> {
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

    /// A refusal for a shooting-phase action of a ship that is disabled through the player's
    /// next player-turn: the turn would not carry it out (FOREVER-DEF-DISABLED).
    pub(super) fn may_act(&self, ship: usize) -> Result<(), String> {
        if !self.state.disabled_for_next_turn(ship) {
            return Ok(());
        }
        let data = self.state.ships.get(ship).ok_or("no such ship")?;
        Err(format!(
            "{} is disabled through your next player-turn (an EMP): she takes no shooting-phase action, and her demeters none (FOREVER-DEF-DISABLED); her moves and DEFLECT orders still count",
            data.name
        ))
    }

    pub(super) fn hull(&self, ship: usize) -> Option<&Hull> {
        self.hulls.get(ship).and_then(Option::as_ref)
    }

    /// `Lancer.S1` → (ship, rest).
    pub(super) fn split_ref(word: &str) -> Option<(String, String)> {
        let (ship, item) = word.split_once('.')?;
        (!ship.is_empty() && !item.is_empty()).then(|| (ship.to_string(), item.to_string()))
    }

    pub(super) fn own_item(
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

    pub(super) fn aim(&self, cursor: &mut Cursor) -> Result<Aim, String> {
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
    pub(super) fn aim_now(&self, aim: &Aim) -> Option<Point> {
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

    pub(super) fn is_weapon(item: &Item) -> bool {
        matches!(item, Item::Weapon(_))
    }

    pub(super) fn item_label(&self, ship: usize, item: usize) -> String {
        self.hull(ship)
            .and_then(|h| h.items.get(item))
            .map_or(String::new(), |s| s.name.clone())
    }
}
