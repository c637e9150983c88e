//! FIRE inside a unit's block: the weapons it names, its targets in order of preference, and
//! a preview of the first shot as things stand.

use engine::LineIssue;

use crate::fire;
use crate::orders::{CmdAction, FireOrder, Target};
use crate::state::{Unit, Weapon};
use crate::tables::{WeaponKind, squash};

use super::{FILLER, Parser, is};

impl Parser<'_> {
    pub(super) fn fire(
        &mut self,
        line: usize,
        raw: &str,
        index: usize,
        unit: &Unit,
        rest: &[String],
    ) {
        let at = rest
            .iter()
            .position(|w| w == "at" || w == "on" || w == "vs");
        let (weapon_words, target_words) = match at {
            Some(at) => (
                rest.get(..at).unwrap_or(&[]),
                rest.get(at + 1..).unwrap_or(&[]),
            ),
            None => (rest, &[][..]),
        };
        let weapons = match self.weapons_of(unit, weapon_words) {
            Ok(weapons) => weapons,
            Err(problem) => {
                let expected = self.fire_expected(line, unit);
                self.error(line, raw, problem, expected);
                return;
            }
        };
        let targets = match self.targets_of(target_words) {
            Ok(targets) => targets,
            Err(problem) => {
                let expected = self.fire_expected(line, unit);
                self.error(line, raw, problem, expected);
                return;
            }
        };
        if let Err(problem) = self.preview(line, raw, index, unit, &weapons, &targets) {
            let expected = self.fire_expected(line, unit);
            self.error(line, raw, problem, expected);
            return;
        }
        let order = FireOrder { weapons, targets };
        let locks = self.locks(index);
        let text = self.fire_text(unit, &order, &locks);
        if let Some(block) = self.blocks.get_mut(index) {
            block.fires.push((line, raw.to_string(), text.clone()));
        }
        self.understood.push(text);
        self.set(index, |a| a.fire.push(order));
    }

    /// The weapons of block `index` under a Target Lock so far.
    pub(super) fn locks(&self, index: usize) -> Vec<String> {
        self.orders
            .activations
            .get(index)
            .map(|a| {
                a.actions
                    .iter()
                    .filter_map(|c| match &c.action {
                        CmdAction::TargetLock(slots) => slots.first().cloned(),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A FIRE order in words, each weapon's shot at the first target with the figures the
    /// turn would use as things stand, a Target Lock's +1 included (SKY-CMD-05).
    pub(super) fn fire_text(&self, unit: &Unit, order: &FireOrder, locks: &[String]) -> String {
        let first = match order.targets.first() {
            Some(Target::Unit(id)) => self.unit(*id).cloned(),
            _ => None,
        };
        let words: Vec<String> = order
            .weapons
            .iter()
            .filter_map(|slot| unit.weapons.iter().find(|w| &w.slot == slot))
            .map(|weapon| {
                let name = weapon.kind.name();
                let slot = &weapon.slot;
                let Some(target) = &first else {
                    return format!("{name} ({slot}) at the nearest legal target");
                };
                let locked = locks.contains(slot);
                match fire::assess(self.state, unit, weapon, target, locked, false) {
                    Ok(shot) => format!(
                        "{name} ({slot}) at {} (range {}\", {}+ now{})",
                        target.name,
                        shot.range.display(),
                        shot.skill,
                        if locked { " with the Target Lock" } else { "" }
                    ),
                    Err(_) => format!("{name} ({slot}) at {}", target.name),
                }
            })
            .collect();
        let fallbacks: Vec<String> = order
            .targets
            .iter()
            .skip(1)
            .map(|t| match t {
                Target::Unit(id) => self.name(*id),
                Target::Nearest => "the nearest".into(),
            })
            .collect();
        let mut text = format!("{} fires {}", unit.name, words.join(", "));
        if !fallbacks.is_empty() {
            text.push_str(&format!(", else {}", fallbacks.join(", else ")));
        }
        text
    }

    /// What to write instead of a refused FIRE: the weapons that can fire, at the nearest;
    /// else the damage control that mends them for later turns.
    fn fire_expected(&self, line: usize, unit: &Unit) -> String {
        let shooting: Vec<&Weapon> = unit
            .weapons
            .iter()
            .filter(|w| !w.kind.stats().torpedo)
            .collect();
        if shooting.is_empty() {
            return format!("{} has no weapons that shoot", unit.name);
        }
        let working: Vec<&str> = shooting
            .iter()
            .filter(|w| unit.weapon_works(w))
            .map(|w| w.slot.as_str())
            .collect();
        if working.is_empty() {
            let mend = if unit.status.weapons_down {
                "WEAPONSDOWN"
            } else {
                "JAM"
            };
            if !unit.is_ship() {
                return format!("{} cannot fire this turn", unit.name);
            }
            return format!(
                "{} cannot fire this turn; damage control can mend it at the end of its activation: {}",
                unit.name,
                self.example(line, &format!("DC PRIORITY {mend}"))
            );
        }
        let weapons = if working.len() == shooting.len() {
            "ALL".to_string()
        } else {
            working.join(" and ")
        };
        format!(
            "FIRE, the weapons (ALL, a slot or a weapon's name), AT and a target: {}",
            self.example(line, &format!("FIRE {weapons} AT NEAREST"))
        )
    }

    /// The targets after AT, in order of preference (`/`, OR, ELSE): units of the enemy's, or
    /// NEAREST.
    fn targets_of(&self, target_words: &[String]) -> Result<Vec<Target>, String> {
        let nothing = "say what to fire at: AT a unit, or AT NEAREST";
        if target_words.is_empty() {
            return Err(nothing.into());
        }
        let mut targets = Vec::new();
        let mut parts: Vec<&[String]> = Vec::new();
        for part in
            target_words.split(|w| matches!(w.as_str(), "/" | "or" | "else" | "then" | "otherwise"))
        {
            // `AT Tempest and Arrow`: one target after the other, unless the words are one
            // unit's name ("Sword and Shield").
            let whole = self
                .exact_unit(part)
                .is_some_and(|(_, used)| used == part.len());
            if whole {
                parts.push(part);
            } else {
                parts.extend(part.split(|w| matches!(w.as_str(), "and" | "&" | "+")));
            }
        }
        for part in parts {
            let plain: Vec<&String> = part
                .iter()
                .filter(|w| !FILLER.contains(&w.as_str()))
                .collect();
            if plain.is_empty() {
                continue;
            }
            // A unit's name as written comes first ("The Ram"), then the fallback words.
            let named = self
                .exact_unit(part)
                .filter(|(_, used)| *used == part.len());
            if named.is_none()
                && is(
                    plain.first().copied(),
                    &[
                        "nearest", "closest", "any", "anything", "anyone", "whatever",
                        // "fire at will"
                        "will",
                    ],
                )
            {
                targets.push(Target::Nearest);
                continue;
            }
            match named.map(|(id, _)| id).or_else(|| self.whole_unit(part)) {
                Some(id) if self.own(id) => {
                    return Err(format!("{} is one of yours", self.name(id)));
                }
                Some(id) => targets.push(Target::Unit(id)),
                None => {
                    let written: Vec<&str> = plain.iter().map(|w| w.as_str()).collect();
                    return Err(format!(
                        "\"{}\" is not a unit in this battle",
                        written.join(" ")
                    ));
                }
            }
        }
        if targets.is_empty() {
            return Err(nothing.into());
        }
        Ok(targets)
    }

    /// Each weapon's shot at the first target as things stand, in words: refusals that cannot
    /// change are errors (the problem), the rest warnings (positions change before the unit
    /// fires).
    fn preview(
        &mut self,
        line: usize,
        raw: &str,
        index: usize,
        unit: &Unit,
        weapons: &[String],
        targets: &[Target],
    ) -> Result<(), String> {
        for slot in weapons {
            let Some(weapon) = unit.weapons.iter().find(|w| &w.slot == slot) else {
                continue;
            };
            // Nothing mends a weapon before it would fire (damage control comes after), so a
            // FIRE for one that cannot is refused (SKY-CRIT-2, SKY-SCRIT-5, SKY-ADM-22).
            if unit.status.weapons_down {
                return Err(format!(
                    "{}'s weapons are down (SKY-SCRIT-5): the {} cannot fire",
                    unit.name,
                    weapon.kind.name()
                ));
            }
            if weapon.jammed {
                return Err(format!(
                    "{}'s {} ({}) is jammed (SKY-CRIT-2) and cannot fire",
                    unit.name,
                    weapon.kind.name(),
                    weapon.slot
                ));
            }
            if let Some(Target::Unit(first)) = targets.first()
                && let Some(target) = self.unit(*first).cloned()
            {
                self.preview_shot(line, raw, index, unit, weapon, &target)?;
            }
        }
        Ok(())
    }

    /// One weapon's shot at a named target as things stand: the problem that refuses the
    /// order, or a warning for what may change before the unit fires.
    fn preview_shot(
        &mut self,
        line: usize,
        raw: &str,
        index: usize,
        unit: &Unit,
        weapon: &Weapon,
        target: &Unit,
    ) -> Result<(), String> {
        match fire::assess(self.state, unit, weapon, target, false, false) {
            Ok(_) => Ok(()),
            Err(fire::Refusal::Ultralight) => Err(format!(
                "the {} cannot target Ultralights such as {}",
                weapon.kind.name(),
                target.name
            )),
            Err(refusal) => {
                self.fire_warnings.push((
                    index,
                    LineIssue {
                        line,
                        text: raw.to_string(),
                        problem: format!(
                            "as things stand: {}",
                            refusal.describe(&target.name, weapon.kind.name())
                        ),
                        expected: format!("FIRE {} AT {} / NEAREST", weapon.slot, target.name),
                        if_it_stands: None,
                    },
                ));
                Ok(())
            }
        }
    }

    /// The weapon slots a FIRE or TARGETLOCK names: ALL, slot labels, or weapon names.
    pub(super) fn weapons_of(&self, unit: &Unit, words: &[String]) -> Result<Vec<String>, String> {
        let words: Vec<&String> = words
            .iter()
            // "main guns", "all guns": the ship's guns, every one that shoots.
            .filter(|w| {
                !matches!(
                    w.as_str(),
                    "with" | "the" | "weapons" | "guns" | "main" | "her" | "its" | "his"
                )
            })
            .collect();
        if words.is_empty()
            || words
                .iter()
                .any(|w| matches!(w.as_str(), "all" | "everything"))
        {
            let shooting: Vec<&Weapon> = unit
                .weapons
                .iter()
                .filter(|w| !w.kind.stats().torpedo)
                .collect();
            if shooting.is_empty() {
                return Err(format!("{} has no weapons that shoot", unit.name));
            }
            // ALL is every weapon that can fire: a jammed one sits out (SKY-CRIT-2).
            let usable: Vec<&Weapon> = shooting
                .into_iter()
                .filter(|w| unit.weapon_works(w))
                .collect();
            if usable.is_empty() {
                return Err(format!(
                    "none of {}'s weapons can fire: {} (SKY-CRIT-2, SKY-SCRIT-5)",
                    unit.name,
                    if unit.status.weapons_down {
                        "its weapons are down"
                    } else {
                        "they are jammed"
                    }
                ));
            }
            return Ok(usable.iter().map(|w| w.slot.clone()).collect());
        }
        let mut slots = Vec::new();
        let joined: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        for part in joined.split(|w| matches!(w.as_str(), "and" | "&" | "+" | "/")) {
            let key = squash(&part.concat());
            if key.is_empty() {
                continue;
            }
            let found = slots_named(unit, &key);
            if found.is_empty() {
                return Err(format!(
                    "{} has no weapon \"{}\" (it has: {})",
                    unit.name,
                    part.join(" "),
                    listing(unit)
                ));
            }
            for slot in found {
                let launcher = unit
                    .weapons
                    .iter()
                    .any(|w| w.slot == slot && w.kind.stats().torpedo);
                if launcher {
                    return Err("the Torpedo Launcher only launches torpedoes: CMD LAUNCHTORPEDO (SKY-GM-10)".into());
                }
                if !slots.contains(&slot) {
                    slots.push(slot);
                }
            }
        }
        if slots.is_empty() {
            return Err(format!(
                "which weapons? {} has: {}",
                unit.name,
                listing(unit)
            ));
        }
        Ok(slots)
    }
}

/// The unit's weapons with their slots, for a hint.
fn listing(unit: &Unit) -> String {
    unit.weapons
        .iter()
        .map(|w| format!("{} ({})", w.slot, w.kind.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The slots one weapon word names (`key`, squashed): both port or starboard slots of a
/// Capital, else a slot label, else a weapon's name or the start of one.
fn slots_named(unit: &Unit, key: &str) -> Vec<String> {
    let by_slot: Vec<String> = unit
        .weapons
        .iter()
        .filter(|w| w.slot == key || unit.class.slot(key).is_some_and(|s| s.label == w.slot))
        .map(|w| w.slot.clone())
        .collect();
    let by_kind: Vec<String> = match WeaponKind::parse(key) {
        Some(kind) => unit
            .weapons
            .iter()
            .filter(|w| w.kind == kind)
            .map(|w| w.slot.clone())
            .collect(),
        None => unit
            .weapons
            .iter()
            .filter(|w| squash(w.kind.name()).starts_with(key) && key.len() >= 3)
            .map(|w| w.slot.clone())
            .collect(),
    };
    // "port" on a Gunship is a slot; "port" on a Capital is both port slots.
    let port_pair: Vec<String> = unit
        .weapons
        .iter()
        .filter(|w| {
            (key == "port" && w.slot.starts_with("port"))
                || ((key == "stbd" || key == "starboard") && w.slot.starts_with("stbd"))
        })
        .map(|w| w.slot.clone())
        .collect();
    if !port_pair.is_empty() {
        port_pair
    } else if !by_slot.is_empty() {
        by_slot
    } else {
        by_kind
    }
}
