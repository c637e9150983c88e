//! The text's result tables, one function per table, and the dice-by-range-and-arc setting
//! that stands in for the missing diagrams (IRON-GM-01, IRON-GM-16).

use serde::{Deserialize, Serialize};

use crate::grid::Arc;

/// Main armament reaches 9 grid areas (IRON-GUN-01).
pub const MAIN_RANGE: u32 = 9;
/// Secondary armament reaches 5 grid areas (IRON-GUN-02).
pub const SECONDARY_RANGE: u32 = 5;
/// A torpedo reaches 3 grid areas (IRON-TORP-01).
pub const TORPEDO_RANGE: u32 = 3;
/// At most 3 D6 per main gun (IRON-GUN-01).
pub const MAIN_MAX_DICE: u8 = 3;
/// At most 2 D6 per secondary gun (IRON-GUN-02).
pub const SECONDARY_MAX_DICE: u8 = 2;
/// At most 3 D6 per torpedo (IRON-TORP-01).
pub const TORPEDO_MAX_DICE: u8 = 3;
/// No more than 4 torpedoes in a battle (IRON-TORP-03).
pub const TORPEDOES_PER_BATTLE: u8 = 4;

/// What one die of gunfire does (IRON-GUN-10, IRON-GUN-17, IRON-GUN-18), and likewise one
/// die of a torpedo (IRON-TORP-04, IRON-TORP-09, IRON-TORP-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DieResult {
    /// A 6: −1 FP and a second D6 on the critical table.
    Major,
    /// A 4 or 5: −1 FP.
    Minor,
    /// A 1, 2 or 3: no effect.
    Ineffective,
}

impl DieResult {
    /// The same for guns and torpedoes: the text's two tables agree on the first die.
    pub fn of(face: u32) -> DieResult {
        match face {
            6 => DieResult::Major,
            4 | 5 => DieResult::Minor,
            _ => DieResult::Ineffective,
        }
    }

    /// FP the die itself removes, before any critical.
    pub fn fp(self) -> u8 {
        match self {
            DieResult::Major | DieResult::Minor => 1,
            DieResult::Ineffective => 0,
        }
    }
}

/// The gunfire critical table: the second D6 after a major hit (IRON-GUN-11 to IRON-GUN-16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GunCritical {
    /// 6: hold course and no fire for three turns (IRON-GUN-11).
    Bridge,
    /// 5: one main turret destroyed (IRON-GUN-12).
    Turret,
    /// 4: engines damaged, 1 area a turn (IRON-GUN-13).
    Engines,
    /// 3: the secondary battery nearest the firer destroyed (IRON-GUN-14).
    Secondary,
    /// 2: fire, checked each later turn (IRON-GUN-15).
    Fire,
    /// 1: one more FP lost (IRON-GUN-16).
    ExtraFp,
}

impl GunCritical {
    /// Every face 1–6 maps to exactly one entry (IRON-META-01, IRON-GM-20).
    pub fn of(face: u32) -> GunCritical {
        match face {
            6 => GunCritical::Bridge,
            5 => GunCritical::Turret,
            4 => GunCritical::Engines,
            3 => GunCritical::Secondary,
            2 => GunCritical::Fire,
            _ => GunCritical::ExtraFp,
        }
    }
}

/// The torpedo critical table: the second D6 after a major hit (IRON-TORP-05 to IRON-TORP-08).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TorpedoCritical {
    /// 6: rudder hit, hold course for D6 turns (IRON-TORP-05).
    Rudder,
    /// 5: engine and boiler rooms flooded, 1 area a turn (IRON-TORP-06).
    Flooding,
    /// 3–4: two more FP lost (IRON-TORP-07).
    TwoMoreFp,
    /// 1–2: one more FP lost (IRON-TORP-08).
    OneMoreFp,
}

impl TorpedoCritical {
    pub fn of(face: u32) -> TorpedoCritical {
        match face {
            6 => TorpedoCritical::Rudder,
            5 => TorpedoCritical::Flooding,
            3 | 4 => TorpedoCritical::TwoMoreFp,
            _ => TorpedoCritical::OneMoreFp,
        }
    }
}

/// FP one ramming die takes off the ship that threw it: 6 → 2, 4–5 → 1, 1–3 → 0, head-on and
/// side-on alike (IRON-RAM-05, IRON-RAM-09).
pub fn ram_die_fp(face: u32) -> u8 {
    match face {
        6 => 2,
        4 | 5 => 1,
        _ => 0,
    }
}

/// How a ram strikes (IRON-RAM-02, IRON-RAM-06, IRON-GM-09(c)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RamKind {
    HeadOn,
    SideOn,
}

impl RamKind {
    /// Dice thrown by (rammed ship, rammer) (IRON-RAM-03, -04, -07, -08). Each ship's dice are
    /// its own damage (IRON-GM-09(b)).
    pub fn dice(self, rammer_has_ram: bool) -> (u8, u8) {
        match (self, rammer_has_ram) {
            (RamKind::HeadOn, true) => (4, 2),
            (RamKind::HeadOn, false) => (2, 2),
            (RamKind::SideOn, true) => (6, 2),
            (RamKind::SideOn, false) => (3, 2),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RamKind::HeadOn => "head-on",
            RamKind::SideOn => "side-on",
        }
    }
}

/// The fire roll at the start of each later turn (IRON-GUN-15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FireCheck {
    /// 5–6: the fire is put out.
    Extinguished,
    /// 2–4: it burns on.
    Burning,
    /// 1: it reaches the magazine and the ship blows up.
    MagazineExplodes,
}

impl FireCheck {
    pub fn of(face: u32) -> FireCheck {
        match face {
            5 | 6 => FireCheck::Extinguished,
            2..=4 => FireCheck::Burning,
            _ => FireCheck::MagazineExplodes,
        }
    }
}

/// Dice per gun (or per torpedo) at each range, for the fore-and-aft arcs and the beam arcs
/// separately: entry `i` is the count at range `i + 1`. A missing entry or a 0 means the weapon
/// cannot engage there. Stands in for the text's missing diagrams (IRON-GUN-04, IRON-GM-01).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArcDice {
    pub forward: Vec<u8>,
    pub beam: Vec<u8>,
    pub aft: Vec<u8>,
}

impl ArcDice {
    fn same_everywhere(by_range: &[u8]) -> Self {
        ArcDice {
            forward: by_range.to_vec(),
            beam: by_range.to_vec(),
            aft: by_range.to_vec(),
        }
    }

    /// Dice at `range` in `arc`.
    pub fn dice(&self, arc: Arc, range: u32) -> u8 {
        let row = match arc {
            Arc::Forward => &self.forward,
            Arc::Aft => &self.aft,
            Arc::Port | Arc::Starboard => &self.beam,
        };
        dice_at(row, range)
    }

    fn rows(&self) -> [(&'static str, &Vec<u8>); 3] {
        [
            ("forward", &self.forward),
            ("beam", &self.beam),
            ("aft", &self.aft),
        ]
    }
}

fn dice_at(row: &[u8], range: u32) -> u8 {
    let index = usize::try_from(range.saturating_sub(1)).unwrap_or(usize::MAX);
    if range == 0 {
        return 0;
    }
    row.get(index).copied().unwrap_or(0)
}

/// The game setting for dice by weapon, range and arc (IRON-GM-01). Secondary armament has one
/// row only, because it fires only abeam (IRON-GUN-09).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiceTable {
    /// Dice per main turret.
    pub main: ArcDice,
    /// Dice per secondary gun, abeam.
    pub secondary: Vec<u8>,
    /// Dice per torpedo, by the arc its tube bears in.
    pub torpedo: ArcDice,
}

impl Default for DiceTable {
    /// The catalogue's ruling: main 3/2/1 in bands of three areas, secondary 2/1, torpedo
    /// 3/2/1 by single areas; the same in every arc (IRON-GM-01).
    fn default() -> Self {
        DiceTable {
            main: ArcDice::same_everywhere(&[3, 3, 3, 2, 2, 2, 1, 1, 1]),
            secondary: vec![2, 2, 2, 1, 1],
            torpedo: ArcDice::same_everywhere(&[3, 2, 1]),
        }
    }
}

impl DiceTable {
    /// Dice per secondary gun at `range` (abeam only).
    pub fn secondary_dice(&self, range: u32) -> u8 {
        dice_at(&self.secondary, range)
    }

    /// Checks the table against the text's ranges and maxima (IRON-GUN-01, IRON-GUN-02,
    /// IRON-TORP-01): no entry beyond the weapon's reach, none above its most dice.
    pub fn check(&self) -> Result<(), String> {
        let mut problems = Vec::new();
        let mut check_row = |weapon: &str, arc: &str, row: &[u8], reach: u32, most: u8| {
            if row.len() > usize::try_from(reach).unwrap_or(usize::MAX) {
                problems.push(format!(
                    "dice_table.{weapon}.{arc} has {} entries but the weapon reaches {reach} areas",
                    row.len()
                ));
            }
            if row.iter().any(|dice| *dice > most) {
                problems.push(format!(
                    "dice_table.{weapon}.{arc} has more than {most} dice at some range"
                ));
            }
        };
        for (arc, row) in self.main.rows() {
            check_row("main", arc, row, MAIN_RANGE, MAIN_MAX_DICE);
        }
        check_row(
            "secondary",
            "beam",
            &self.secondary,
            SECONDARY_RANGE,
            SECONDARY_MAX_DICE,
        );
        for (arc, row) in self.torpedo.rows() {
            check_row("torpedo", arc, row, TORPEDO_RANGE, TORPEDO_MAX_DICE);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_table_is_the_catalogue_ruling() {
        // IRON-GM-01's table, row by row.
        let table = DiceTable::default();
        let main: Vec<u8> = (1..=10).map(|r| table.main.dice(Arc::Forward, r)).collect();
        assert_eq!(main, vec![3, 3, 3, 2, 2, 2, 1, 1, 1, 0]);
        let beam: Vec<u8> = (1..=10).map(|r| table.main.dice(Arc::Port, r)).collect();
        assert_eq!(beam, main);
        let secondary: Vec<u8> = (1..=6).map(|r| table.secondary_dice(r)).collect();
        assert_eq!(secondary, vec![2, 2, 2, 1, 1, 0]);
        let torpedo: Vec<u8> = (1..=4).map(|r| table.torpedo.dice(Arc::Aft, r)).collect();
        assert_eq!(torpedo, vec![3, 2, 1, 0]);
        assert_eq!(table.main.dice(Arc::Forward, 0), 0);
        assert_eq!(table.check(), Ok(()));
    }

    #[test]
    fn the_table_may_not_outreach_or_outgun_the_text() {
        // IRON-GUN-01, IRON-GUN-02, IRON-TORP-01: the table is a setting but the maxima are rules.
        let mut table = DiceTable::default();
        table.main.forward.push(1);
        table.secondary[0] = 3;
        table.torpedo.beam = vec![4];
        let problems = table.check().unwrap_err();
        assert!(
            problems.contains("main.forward has 10 entries"),
            "{problems}"
        );
        assert!(
            problems.contains("secondary.beam has more than 2"),
            "{problems}"
        );
        assert!(
            problems.contains("torpedo.beam has more than 3"),
            "{problems}"
        );
    }
}
