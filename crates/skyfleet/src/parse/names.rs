//! Finding the units an order names, as this player may know of them (SKY-GM-14,
//! SKY-ADM-09), and the points and units a move or a pivot faces.

use crate::geometry::{Point, parse_inches};
use crate::orders::Aim;
use crate::state::UnitId;
use crate::tables::squash;

use super::{FILLER, Parser};

impl Parser<'_> {
    /// The unit named at the start of `words`, and how many words the name took: the
    /// longest run of words that is exactly a unit's name as written ("The Ram", "Her
    /// Majesty"), else the same after leading filler words ("the Tempest"), else a unique start
    /// of a name (SKY-GM-14). Only units this player may know of are found: the enemy's wings
    /// still aboard read exactly as made-up names (SKY-ADM-09).
    pub(super) fn take_unit(&self, words: &[String]) -> Option<(UnitId, usize)> {
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
    pub(super) fn whole_unit(&self, words: &[String]) -> Option<UnitId> {
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
    pub(super) fn exact_unit(&self, words: &[String]) -> Option<(UnitId, usize)> {
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

    /// A unit or a point to face; returns it and how many words it used.
    pub(super) fn aim(&self, words: &[String]) -> Option<(Aim, usize)> {
        if let (Some(x), Some(y)) = (
            words.first().and_then(|w| parse_inches(w)),
            words.get(1).and_then(|w| parse_inches(w)),
        ) {
            return Some((Aim::Point(Point::new(x, y)), 2));
        }
        let (id, used) = self.take_unit(words)?;
        Some((Aim::Unit(id), used))
    }
}
