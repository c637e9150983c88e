//! Attack resolutions: hit dice with Battery and Chaff re-rolls, damage dice with Piercing,
//! Impact and the weapons' own Critical rules, the Critical and Super Critical tables, and
//! the reactions that fire on being attacked (SKY-ATK-01, SKY-DMG-01..04, SKY-CRIT-*,
//! SKY-SCRIT-*, SKY-GM-17, SKY-GM-20..24).

use std::collections::BTreeSet;

use crate::battle::{Battle, MoraleReason};
use crate::fire::{self, Shot, bases_within};
use crate::geometry::Length;
use crate::orders::Target;
use crate::state::{ActionName, Brace, Morale, Place, UnitId};
use crate::tables::{Critical, ModuleKind, SuperCritical, WeaponKind};

/// The blowout radius (SKY-SCRIT-8, SKY-GM-24) and the command radius (SKY-MOR-03).
const BLOWOUT_REACH: Length = Length::inches(4);
const FRIENDLY_REACH: Length = Length::inches(12);

/// `[5,1→4,6]`: dice as the report shows them, re-rolls after an arrow.
fn dice_text(rolls: &[(u32, Option<u32>)]) -> String {
    let faces: Vec<String> = rolls
        .iter()
        .map(|(first, again)| match again {
            Some(second) => format!("{first}→{second}"),
            None => first.to_string(),
        })
        .collect();
    format!("[{}]", faces.join(","))
}

/// How a damage die is read.
#[derive(Debug, Clone, Copy)]
pub struct DamageRule {
    pub piercing: i32,
    pub impact: bool,
    /// Lowest natural face that is a Critical; `None`: never.
    pub critical_from: Option<u32>,
}

impl DamageRule {
    /// Normal damage (SKY-DMG-02/03), as torpedo contact uses (SKY-TORP-06).
    pub const NORMAL: DamageRule = DamageRule {
        piercing: 0,
        impact: false,
        critical_from: Some(6),
    };

    pub fn of(weapon: WeaponKind) -> DamageRule {
        let stats = weapon.stats();
        DamageRule {
            piercing: stats.piercing,
            impact: stats.impact,
            critical_from: stats.critical_from,
        }
    }
}

/// One damage die's reading: damage and whether it is a Critical. A Critical deals 6 (plus
/// Piercing); Bombs crit on 5+ and deal the face; Machine Guns never crit (SKY-DMG-02/03,
/// SKY-KW-PIERCING, SKY-KW-IMPACT, SKY-WPN-UL-1, SKY-WPN-UL-2).
pub fn read_damage(rule: DamageRule, faces: &[u32]) -> (u32, bool) {
    let best = faces.iter().copied().max().unwrap_or(0);
    let critical = match rule.critical_from {
        None => false,
        Some(from) if rule.impact => faces.iter().any(|f| *f >= from),
        Some(from) => best >= from,
    };
    let base = if critical && rule.impact { 6 } else { best };
    let total = i64::from(base) + i64::from(rule.piercing);
    (u32::try_from(total.max(0)).unwrap_or(0), critical)
}

impl Battle<'_> {
    /// Fires one weapon at its first legal target from the list (SKY-GM-14: fallbacks).
    /// `ordered`: the player wrote a FIRE order for it, so a miss of every target is reported.
    pub fn fire_weapon(
        &mut self,
        attacker: UnitId,
        weapon_index: usize,
        targets: &[Target],
        locked: bool,
        flown_over: &BTreeSet<UnitId>,
        ordered: bool,
    ) {
        let Some(shooter) = self.unit(attacker).cloned() else {
            return;
        };
        if !shooter.in_play() {
            return;
        }
        let Some(weapon) = shooter.weapons.get(weapon_index).cloned() else {
            return;
        };
        let weapon_name = weapon.kind.name();
        if weapon.kind.stats().torpedo {
            return;
        }
        if shooter.status.weapons_down || weapon.jammed {
            let why = if weapon.jammed {
                "jammed"
            } else {
                "weapons down"
            };
            self.log.result(attacker, format!("{weapon_name}: {why}"));
            return;
        }
        let mut refusals = Vec::new();
        let mut chosen = None;
        for target in targets {
            match target {
                Target::Unit(id) => {
                    let Some(unit) = self.unit(*id) else {
                        continue;
                    };
                    // The other side's wings still aboard are its secret: such a target is
                    // passed over without a word, as a name never written (SKY-ADM-09).
                    if !unit.known_to(shooter.side) {
                        continue;
                    }
                    match fire::assess(
                        &self.state,
                        &shooter,
                        &weapon,
                        unit,
                        locked,
                        flown_over.contains(id),
                    ) {
                        Ok(shot) => {
                            chosen = Some(shot);
                            break;
                        }
                        Err(refusal) => refusals.push(refusal.describe(&unit.name, weapon_name)),
                    }
                }
                Target::Nearest => {
                    match fire::nearest_target(&self.state, &shooter, &weapon, locked, &|id| {
                        flown_over.contains(&id)
                    }) {
                        Some(shot) => {
                            chosen = Some(shot);
                            break;
                        }
                        None => refusals.push("no legal target".into()),
                    }
                }
            }
        }
        let prefix = if refusals.is_empty() {
            String::new()
        } else {
            format!("{} → ", refusals.join(", "))
        };
        match chosen {
            Some(shot) => self.attack(attacker, weapon.kind, shot, &prefix),
            // A weapon without orders that finds nothing to shoot says nothing.
            None if !ordered => {}
            None if refusals.is_empty() => self
                .log
                .result(attacker, format!("{weapon_name}: no legal target")),
            None => self
                .log
                .result(attacker, format!("{weapon_name}: {}", refusals.join(", "))),
        }
    }

    /// The standing Brace order buys Brace from the ship's own CMD the first time it is
    /// attacked in a turn (SKY-GM-17).
    fn standing_brace(&mut self, target: UnitId) {
        let Some(unit) = self.unit(target) else {
            return;
        };
        let standing = self
            .state
            .side(unit.side)
            .is_some_and(|s| s.standing.brace.contains(&target));
        if !standing
            || !unit.is_ship()
            || unit.this_turn.actions.contains(&ActionName::Brace)
            || unit.cmd_left() == 0
        {
            return;
        }
        if let Some(unit) = self.unit_mut(target) {
            unit.this_turn.cmd_spent += 1;
            unit.this_turn.actions.insert(ActionName::Brace);
            unit.this_turn.brace = Brace::Ready;
        }
        self.log
            .result(target, "Brace (standing order, 1 CMD)".to_string());
    }

    /// Does the target's standing Chaff answer this missile attack (SKY-MOD-1, SKY-GM-17)?
    fn chaff_answers(&mut self, target: UnitId) -> bool {
        let Some(unit) = self.unit(target) else {
            return false;
        };
        let standing = self
            .state
            .side(unit.side)
            .is_some_and(|s| s.standing.chaff.contains(&target));
        if !standing
            || !unit.has_working(ModuleKind::ChaffLauncher)
            || unit.this_turn.actions.contains(&ActionName::Chaff)
            || unit.cmd_left() == 0
        {
            return false;
        }
        if let Some(unit) = self.unit_mut(target) {
            unit.this_turn.cmd_spent += 1;
            unit.this_turn.actions.insert(ActionName::Chaff);
        }
        true
    }

    /// One attack resolution: hit dice, re-rolls, damage dice with their Criticals in hit
    /// order, then morale (SKY-ATK-01, SKY-DMG-01..04, SKY-GM-20).
    pub fn attack(&mut self, attacker: UnitId, kind: WeaponKind, shot: Shot, prefix: &str) {
        let stats = kind.stats();
        let Some(target) = self.unit(shot.target).cloned() else {
            return;
        };
        let side = self.unit(attacker).map(|u| u.side).unwrap_or(0);
        self.log.coord(
            attacker,
            format!(
                "{} @ {} e{}",
                target.name,
                target.at.display(),
                target.elevation
            ),
        );
        self.log.tally(side, |t| t.attacks += 1);
        self.standing_brace(shot.target);
        let dice = u32::from(stats.dice);
        let mut text = format!("{prefix}{} {dice}d", stats.name);
        let hits = if shot.flyover {
            text.push_str(&format!(" flyover: {dice} auto-hit(s)"));
            dice
        } else {
            text.push_str(&format!("@{}+", shot.skill));
            if !shot.modifiers.is_empty() {
                text.push_str(&format!(" ({})", shot.modifiers.join(", ")));
            }
            // SKY-DMG-01; SKY-KW-BATTERY: each 1 re-rolled once.
            let mut rolls: Vec<(u32, Option<u32>)> = Vec::new();
            for _ in 0..dice {
                let first = self.dice.d6();
                rolls.push((first, None));
            }
            if stats.battery {
                for roll in &mut rolls {
                    if roll.0 == 1 {
                        roll.1 = Some(self.dice.d6());
                    }
                }
            }
            text.push(' ');
            text.push_str(&dice_text(&rolls));
            let skill = u32::from(shot.skill);
            let count = |rolls: &[(u32, Option<u32>)]| {
                rolls
                    .iter()
                    .filter(|(first, again)| again.unwrap_or(*first) >= skill)
                    .count() as u32
            };
            let mut hits = count(&rolls);
            // SKY-MOD-1, SKY-GM-17: Chaff makes the attacker re-roll every hit die.
            if stats.missile && hits > 0 && self.chaff_answers(shot.target) {
                let again: Vec<(u32, Option<u32>)> =
                    (0..dice).map(|_| (self.dice.d6(), None)).collect();
                hits = count(&again);
                text.push_str(&format!(" Chaff re-roll {}", dice_text(&again)));
                self.log
                    .result(shot.target, format!("Chaff (1 CMD) against {}", stats.name));
            }
            hits
        };
        text.push_str(&format!(
            " → {hits} hit{}",
            if hits == 1 { "" } else { "s" }
        ));
        self.log.tally(side, |t| t.hits += hits);
        if hits > 0 {
            let (dealt, criticals) = self.damage_dice(
                attacker,
                shot.target,
                hits,
                DamageRule::of(kind),
                true,
                &mut text,
            );
            self.log.tally(side, |t| t.damage += dealt);
            if dealt > 0 || !criticals.is_empty() {
                let mut took =
                    format!("took {dealt} from {}'s {}", self.name(attacker), stats.name);
                for critical in criticals {
                    took.push_str(", ");
                    took.push_str(&critical);
                }
                self.log.result(shot.target, took);
            }
        }
        if self.unit(shot.target).is_some_and(|u| !u.in_play()) && target.in_play() {
            text.push_str(&format!(", {} destroyed", target.name));
        }
        self.log.result(attacker, text);
        self.morale_checks();
    }

    /// Rolls `count` damage dice against `target` in order, each Critical resolved before the
    /// next die (SKY-GM-20); appends `, dmg [..] = n, CRIT …` to `text`. Returns the damage
    /// done. `enemy_attack`: Brace may apply.
    pub fn damage_dice(
        &mut self,
        source: UnitId,
        target: UnitId,
        count: u32,
        rule: DamageRule,
        enemy_attack: bool,
        text: &mut String,
    ) -> (u32, Vec<String>) {
        let mut faces_shown = Vec::new();
        let mut criticals = Vec::new();
        let mut total = 0;
        let mut notes = Vec::new();
        let source_side = self.unit(source).map(|u| u.side).unwrap_or(0);
        for _ in 0..count {
            if !self.in_play(target) {
                break;
            }
            let faces: Vec<u32> = if rule.impact {
                vec![self.dice.d6(), self.dice.d6()]
            } else {
                vec![self.dice.d6()]
            };
            faces_shown.push(if faces.len() == 1 {
                faces.first().map(ToString::to_string).unwrap_or_default()
            } else {
                format!(
                    "({})",
                    faces
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                )
            });
            let (amount, critical) = read_damage(rule, &faces);
            let (dealt, braced) = self.hurt(target, amount, enemy_attack);
            total += dealt;
            if braced {
                notes.push("Braced −1".to_string());
            }
            if critical && self.in_play(target) {
                self.log.tally(source_side, |t| t.criticals += 1);
                let (extra, words) = self.critical(target, enemy_attack);
                total += extra;
                criticals.push(words.clone());
                notes.push(words);
            }
        }
        text.push_str(&format!(", dmg [{}] = {total}", faces_shown.join(",")));
        for note in notes {
            text.push_str(", ");
            text.push_str(&note);
        }
        (total, criticals)
    }

    /// A Critical Hit on `target`: a Fragile unit is destroyed outright; otherwise the d8
    /// table, with a Reinforced Bulkheads re-roll where the side's standing order asks
    /// (SKY-DMG-03/04, SKY-KW-FRAGILE, SKY-MOD-6, SKY-GM-25). Returns extra damage done and
    /// the words for the report.
    pub fn critical(&mut self, target: UnitId, enemy_attack: bool) -> (u32, String) {
        let Some(unit) = self.unit(target).cloned() else {
            return (0, String::new());
        };
        if unit.stats().fragile {
            self.destroy(target, Place::Destroyed);
            return (0, "CRIT: Fragile, destroyed".into());
        }
        let first = self.dice.d8();
        let mut roll = first;
        let mut shown = first.to_string();
        let wants_reroll = self
            .state
            .side(unit.side)
            .is_some_and(|s| s.standing.reroll_crit.contains(&(first as u8)));
        if wants_reroll && unit.has_working(ModuleKind::ReinforcedBulkheads) {
            roll = self.dice.d8();
            shown = format!("{first}→{roll} Bulkheads");
        }
        let critical = Critical::from_roll(roll);
        let (extra, effect) = self.apply_critical(target, critical, enemy_attack);
        let words = if effect.is_empty() {
            format!("CRIT [{shown}] {}", critical.name())
        } else {
            format!("CRIT [{shown}] {} {effect}", critical.name())
        };
        (extra, words)
    }

    /// A Critical Table result (SKY-CRIT-1..8, SKY-GM-21).
    fn apply_critical(
        &mut self,
        target: UnitId,
        critical: Critical,
        enemy_attack: bool,
    ) -> (u32, String) {
        let turn = self.turn();
        match critical {
            // SKY-CRIT-1: extra damage never makes Criticals (SKY-GM-20).
            Critical::FlashFire => {
                let roll = self.dice.d6();
                let (dealt, _) = self.hurt(target, roll, enemy_attack);
                (dealt, format!("+{roll}"))
            }
            Critical::WeaponJam => {
                let working: Vec<usize> = self
                    .unit(target)
                    .map(|u| {
                        if u.status.weapons_down {
                            return Vec::new();
                        }
                        u.weapons
                            .iter()
                            .enumerate()
                            .filter(|(_, w)| !w.jammed)
                            .map(|(i, _)| i)
                            .collect()
                    })
                    .unwrap_or_default();
                let Some(index) = self.pick(&working) else {
                    return (0, "(no working weapon)".into());
                };
                let mut name = "";
                if let Some(weapon) = self.unit_mut(target).and_then(|u| u.weapons.get_mut(index)) {
                    weapon.jammed = true;
                    name = weapon.kind.name();
                }
                (0, format!("({name})"))
            }
            Critical::SpeedLoss => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.speed_loss = u.status.speed_loss.saturating_add(1);
                }
                (0, String::new())
            }
            Critical::RudderLoss => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.rudder_loss = true;
                }
                (0, String::new())
            }
            Critical::CrewCasualties => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.crew_casualties = u.status.crew_casualties.saturating_add(1);
                }
                (0, String::new())
            }
            Critical::UtilityFailure => {
                let working: Vec<usize> = self
                    .unit(target)
                    .map(|u| {
                        if u.status.utilities_down {
                            return Vec::new();
                        }
                        u.modules
                            .iter()
                            .enumerate()
                            .filter(|(_, m)| !m.failed)
                            .map(|(i, _)| i)
                            .collect()
                    })
                    .unwrap_or_default();
                let Some(index) = self.pick(&working) else {
                    return (0, "(no working utility)".into());
                };
                let mut name = "";
                if let Some(module) = self.unit_mut(target).and_then(|u| u.modules.get_mut(index)) {
                    module.failed = true;
                    name = module.kind.name();
                }
                (0, format!("({name})"))
            }
            // SKY-CRIT-7, SKY-GM-21: no activation next turn.
            Critical::Panic => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.panic_turn = Some(turn + 1);
                }
                (0, String::new())
            }
            Critical::SuperCritical => {
                let roll = self.dice.d8();
                let super_critical = SuperCritical::from_roll(roll);
                let (extra, effect) = self.apply_super(target, super_critical);
                let effect = if effect.is_empty() {
                    String::new()
                } else {
                    format!(" {effect}")
                };
                (
                    extra,
                    format!("→ SUPER [{roll}] {}{effect}", super_critical.name()),
                )
            }
        }
    }

    /// A uniform pick among `choices` (SKY-GM-21); no draw when there is one or none.
    fn pick(&mut self, choices: &[usize]) -> Option<usize> {
        match choices.len() {
            0 => None,
            1 => choices.first().copied(),
            n => choices.get(self.dice.pick(n)).copied(),
        }
    }

    /// A Super Critical Table result (SKY-SCRIT-1..8, SKY-GM-21, SKY-GM-24).
    fn apply_super(&mut self, target: UnitId, result: SuperCritical) -> (u32, String) {
        match result {
            // SKY-SCRIT-1: 2d6, no Critical (SKY-GM-20).
            SuperCritical::StructuralFailure => {
                let (a, b) = (self.dice.d6(), self.dice.d6());
                let (dealt, _) = self.hurt(target, a + b, false);
                (dealt, format!("+[{a},{b}]"))
            }
            // SKY-SCRIT-2: down 1d3; below 1 is a crash (SKY-GM-06).
            SuperCritical::LiftFailure => {
                let drop = self.dice.d3();
                let Some(unit) = self.unit_mut(target) else {
                    return (0, String::new());
                };
                let below = i32::from(unit.elevation) - drop as i32;
                if below < 1 {
                    self.destroy(target, Place::Crashed);
                    return (0, format!("−{drop}: crashed"));
                }
                unit.elevation = below as u8;
                (0, format!("−{drop} → e{below}"))
            }
            // SKY-SCRIT-3, SKY-MOD-5, SKY-MOR-02.
            SuperCritical::BridgeHit => {
                let Some(unit) = self.unit_mut(target) else {
                    return (0, String::new());
                };
                if unit.has_working(ModuleKind::ArmoredBridge) && !unit.status.armored_bridge_spent
                {
                    unit.status.armored_bridge_spent = true;
                    return (0, "ignored (Armored Bridge)".into());
                }
                unit.status.bridge_hit = true;
                self.trigger_morale(target, MoraleReason::BridgeHit);
                (0, "CMD 0".into())
            }
            SuperCritical::Drifting => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.drifting = true;
                }
                (0, String::new())
            }
            SuperCritical::WeaponsDown => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.weapons_down = true;
                }
                (0, String::new())
            }
            SuperCritical::UtilitiesDown => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.utilities_down = true;
                }
                (0, String::new())
            }
            SuperCritical::OnFire => {
                if let Some(u) = self.unit_mut(target) {
                    u.status.on_fire = true;
                }
                (0, String::new())
            }
            SuperCritical::CitadelBlowout => {
                self.blowout(target);
                (0, "destroyed".into())
            }
        }
    }

    /// SKY-SCRIT-8, SKY-GM-24: the ship is destroyed; every other unit whose base is within 4"
    /// takes its own 2d6 (plain damage, no Critical); friendly ships within 12" check morale.
    fn blowout(&mut self, ship: UnitId) {
        let Some(exploding) = self.unit(ship).cloned() else {
            return;
        };
        self.destroy(ship, Place::Destroyed);
        let nearby: Vec<UnitId> = self
            .state
            .units
            .iter()
            .filter(|u| u.in_play() && u.id != ship && bases_within(&exploding, u, BLOWOUT_REACH))
            .map(|u| u.id)
            .collect();
        for id in nearby {
            let (a, b) = (self.dice.d6(), self.dice.d6());
            let (dealt, _) = self.hurt(id, a + b, false);
            self.log.result(
                id,
                format!(
                    "2d6 [{a},{b}] = {dealt} from {}'s Citadel Blowout",
                    exploding.name
                ),
            );
        }
        let friends: Vec<UnitId> = self
            .state
            .units
            .iter()
            .filter(|u| {
                u.in_play()
                    && u.is_ship()
                    && u.side == exploding.side
                    && u.id != ship
                    && bases_within(&exploding, u, FRIENDLY_REACH)
            })
            .map(|u| u.id)
            .collect();
        for id in friends {
            self.trigger_morale(id, MoraleReason::Blowout(exploding.name.clone()));
        }
    }

    /// Storm damage at the start of a turn: 1d3, never a Critical (SKY-STORM-01, SKY-GM-13).
    pub fn storms(&mut self) {
        let ids: Vec<UnitId> = self.state.in_play().map(|u| u.id).collect();
        for id in ids {
            let Some(unit) = self.unit(id) else {
                continue;
            };
            let Some(storm) = self
                .state
                .terrain
                .storm_at(unit.at, unit.elevation)
                .map(str::to_string)
            else {
                continue;
            };
            let roll = self.dice.d3();
            let (dealt, _) = self.hurt(id, roll, false);
            self.log
                .result(id, format!("storm {storm}: 1d3 [{roll}] = {dealt}"));
            self.morale_checks();
        }
    }

    /// On Fire: 1d6 at the start of each of the unit's activations (SKY-SCRIT-7).
    pub fn on_fire(&mut self, id: UnitId) {
        if !self
            .unit(id)
            .is_some_and(|u| u.in_play() && u.status.on_fire)
        {
            return;
        }
        let roll = self.dice.d6();
        let (dealt, _) = self.hurt(id, roll, false);
        self.log
            .result(id, format!("On Fire: 1d6 [{roll}] = {dealt}"));
        self.morale_checks();
    }

    /// Stall: a unit starting the turn at or above its Stall value loses 1 elevation
    /// (SKY-KW-STALL, SKY-GM-31).
    pub fn stall(&mut self) {
        let ids: Vec<UnitId> = self.state.in_play().map(|u| u.id).collect();
        for id in ids {
            let Some(unit) = self.unit_mut(id) else {
                continue;
            };
            // One rule for the turn and the order check (State::after_stall).
            let (Some(stall), Some(now)) = (unit.stats().stall, unit.stalls_to()) else {
                continue;
            };
            unit.elevation = now;
            self.log
                .result(id, format!("Stall({stall}): down to e{now}"));
        }
    }

    /// Clears a Broken unit back to Shaken (SKY-DCR-03, SKY-GM-23).
    pub fn clear_broken(&mut self, id: UnitId) -> bool {
        match self.unit_mut(id) {
            Some(unit) if unit.status.morale == Morale::Broken => {
                unit.status.morale = Morale::Shaken;
                true
            }
            _ => false,
        }
    }

    /// A torpedo's contact: 3 damage dice under the normal rules, then the token is removed
    /// (SKY-TORP-05, SKY-TORP-06, SKY-GM-16).
    pub fn torpedo_contact(&mut self, torpedo: UnitId, ship: UnitId) {
        let Some(token) = self.unit(torpedo).cloned() else {
            return;
        };
        let enemy = self.unit(ship).is_some_and(|s| s.side != token.side);
        let target_name = self.name(ship);
        if enemy {
            self.standing_brace(ship);
        }
        let mut text = format!("contact with {target_name}: 3 damage dice");
        let (dealt, criticals) =
            self.damage_dice(torpedo, ship, 3, DamageRule::NORMAL, enemy, &mut text);
        self.log.coord(
            torpedo,
            self.unit(ship)
                .map(|s| format!("{} @ {} e{}", s.name, s.at.display(), s.elevation))
                .unwrap_or_default(),
        );
        self.log.tally(token.side, |t| {
            t.hits += 1;
            t.damage += dealt;
        });
        if !self.in_play(ship) {
            text.push_str(&format!(", {target_name} destroyed"));
        }
        text.push_str("; torpedo spent");
        self.log.result(torpedo, text);
        let mut took = format!("took {dealt} from {}", token.name);
        for critical in criticals {
            took.push_str(", ");
            took.push_str(&critical);
        }
        self.log.result(ship, took);
        if let Some(unit) = self.unit_mut(torpedo) {
            unit.place = Place::Destroyed;
        }
        self.morale_checks();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sky_ex_02_damage_dice_straight_from_the_text() {
        let lance = DamageRule::of(WeaponKind::Lance);
        assert_eq!(read_damage(lance, &[3]), (4, false));
        assert_eq!(read_damage(lance, &[6]), (7, true));
        let heavy_missile = DamageRule::of(WeaponKind::HeavyMissile);
        assert_eq!(read_damage(heavy_missile, &[2, 5]), (5, false));
        assert_eq!(read_damage(heavy_missile, &[6, 1]), (6, true));
        let mg = DamageRule::of(WeaponKind::MachineGuns);
        assert_eq!(read_damage(mg, &[6]), (6, false));
        let bombs = DamageRule::of(WeaponKind::Bombs);
        assert_eq!(read_damage(bombs, &[5]), (5, true));
        assert_eq!(read_damage(bombs, &[4]), (4, false));
        // Torpedo contact, dice (6, 2, 3): 11 and one Critical.
        let dice = [6, 2, 3].map(|f| read_damage(DamageRule::NORMAL, &[f]));
        assert_eq!(dice.iter().map(|d| d.0).sum::<u32>(), 11);
        assert_eq!(dice.iter().filter(|d| d.1).count(), 1);
    }

    #[test]
    fn sky_kw_piercing_never_makes_a_critical() {
        // Siege Lance Piercing(5): a 5 does 10 but is no Critical (SKY-WPN-XL-2).
        let siege = DamageRule::of(WeaponKind::SiegeLance);
        assert_eq!(read_damage(siege, &[5]), (10, false));
        assert_eq!(read_damage(siege, &[6]), (11, true));
        let heavy = DamageRule::of(WeaponKind::HeavyLance);
        assert_eq!(read_damage(heavy, &[2]), (5, false));
    }

    #[test]
    fn dice_are_shown_with_rerolls() {
        assert_eq!(dice_text(&[(5, None), (1, Some(4))]), "[5,1→4]");
    }
}
