//! The dice of the extras and the text's thresholds for each dice mode (SALVO-GEN-01,
//! SALVO-GM-03). Every roll comes from the turn's open stream, so reports can show it.

use std::fmt;

use engine::Dice;
use serde::{Deserialize, Serialize};

/// One D20 or three D6 added, chosen once for the whole game (SALVO-GM-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiceMode {
    #[serde(rename = "d20")]
    D20,
    /// Three separate D6 draws, summed (SALVO-GEN-01: one D6 thrown three times counts too).
    #[serde(rename = "3d6")]
    ThreeD6,
}

/// A throw as thrown: kept whole so the report can show every die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Throw {
    D20(u32),
    ThreeD6([u32; 3]),
}

impl Throw {
    pub fn total(self) -> u32 {
        match self {
            Throw::D20(value) => value,
            Throw::ThreeD6([a, b, c]) => a + b + c,
        }
    }
}

impl fmt::Display for Throw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Throw::D20(value) => write!(f, "d20={value}"),
            Throw::ThreeD6([a, b, c]) => write!(f, "3d6={a}+{b}+{c}={}", a + b + c),
        }
    }
}

/// What a nuke's roll did (SALVO-NUKE-03, SALVO-NUKE-04, SALVO-NUKE-08).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NukeRoll {
    Fails,
    Explodes,
    ConditionBravo,
}

/// What a SCUBA roll did, capture taking priority where the ranges overlap (SALVO-SCUBA-03,
/// SALVO-SCUBA-04, SALVO-GM-04).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScubaRoll {
    Nothing,
    Destroy,
    Capture,
}

impl DiceMode {
    /// Throws the mode's dice once.
    pub fn throw(self, dice: &mut Dice) -> Throw {
        match self {
            DiceMode::D20 => Throw::D20(dice.d20()),
            DiceMode::ThreeD6 => Throw::ThreeD6([dice.d6(), dice.d6(), dice.d6()]),
        }
    }

    /// The lowest and highest totals: 1 and 20, or 3 and 18.
    fn range(self) -> (u32, u32) {
        match self {
            DiceMode::D20 => (1, 20),
            DiceMode::ThreeD6 => (3, 18),
        }
    }

    /// SALVO-NUKE-03: the lowest total fails; SALVO-NUKE-08: the highest is Condition Bravo.
    pub fn nuke(self, total: u32) -> NukeRoll {
        let (lowest, highest) = self.range();
        if total <= lowest {
            NukeRoll::Fails
        } else if total >= highest {
            NukeRoll::ConditionBravo
        } else {
            NukeRoll::Explodes
        }
    }

    /// The totals at which SCUBA destroys and captures: 8 and 12 on a D20, 7 and 10 on 3D6.
    pub fn scuba_thresholds(self) -> (u32, u32) {
        match self {
            DiceMode::D20 => (8, 12),
            DiceMode::ThreeD6 => (7, 10),
        }
    }

    /// SALVO-SCUBA-03/04 with SALVO-GM-04's priority for capture.
    pub fn scuba(self, total: u32) -> ScubaRoll {
        let (destroy, capture) = self.scuba_thresholds();
        if total >= capture {
            ScubaRoll::Capture
        } else if total >= destroy {
            ScubaRoll::Destroy
        } else {
            ScubaRoll::Nothing
        }
    }

    /// SALVO-TORP-06: only the highest total (20, or 18) destroys the ship outright.
    pub fn torpedo_bonus(self, total: u32) -> bool {
        total >= self.range().1
    }

    /// The total a bomber flight needs: 8 on a D20, 6 on 3D6 (SALVO-BOMB-03).
    pub fn bomber_needs(self) -> u32 {
        match self {
            DiceMode::D20 => 8,
            DiceMode::ThreeD6 => 6,
        }
    }

    /// The highest total, as reports name it ("needs 20").
    pub fn highest(self) -> u32 {
        self.range().1
    }

    /// The lowest total.
    pub fn lowest(self) -> u32 {
        self.range().0
    }
}

impl fmt::Display for DiceMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DiceMode::D20 => "d20",
            DiceMode::ThreeD6 => "3d6",
        })
    }
}

/// The experimental weapon's D6, always one die whatever the mode (SALVO-EXP-02), thrown again
/// while it shows 6 (SALVO-EXP-06). The blast size is the sum (SALVO-GM-11).
pub fn experimental_rolls(dice: &mut Dice) -> Vec<u32> {
    let mut rolls = Vec::with_capacity(2);
    loop {
        let value = dice.d6();
        rolls.push(value);
        // An endless run of sixes would need an endless stream: the ChaCha stream is uniform,
        // so this ends with probability 1; the cap only guards a corrupt script.
        if value != 6 || rolls.len() >= 1000 {
            return rolls;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d20_thresholds_salvo_gm_03() {
        let mode = DiceMode::D20;
        assert_eq!(mode.nuke(1), NukeRoll::Fails);
        assert_eq!(mode.nuke(2), NukeRoll::Explodes);
        assert_eq!(mode.nuke(19), NukeRoll::Explodes);
        assert_eq!(mode.nuke(20), NukeRoll::ConditionBravo);
        assert_eq!(mode.scuba(7), ScubaRoll::Nothing);
        assert_eq!(mode.scuba(8), ScubaRoll::Destroy);
        assert_eq!(mode.scuba(11), ScubaRoll::Destroy);
        assert_eq!(mode.scuba(12), ScubaRoll::Capture);
        assert_eq!(mode.scuba(20), ScubaRoll::Capture);
        assert!(!mode.torpedo_bonus(19));
        assert!(mode.torpedo_bonus(20));
        assert_eq!(mode.bomber_needs(), 8);
    }

    #[test]
    fn three_d6_thresholds_salvo_gm_03_gm_04() {
        let mode = DiceMode::ThreeD6;
        assert_eq!(mode.nuke(3), NukeRoll::Fails);
        assert_eq!(mode.nuke(4), NukeRoll::Explodes);
        assert_eq!(mode.nuke(17), NukeRoll::Explodes);
        assert_eq!(mode.nuke(18), NukeRoll::ConditionBravo);
        assert_eq!(mode.scuba(6), ScubaRoll::Nothing);
        assert_eq!(mode.scuba(7), ScubaRoll::Destroy);
        assert_eq!(mode.scuba(9), ScubaRoll::Destroy);
        assert_eq!(mode.scuba(10), ScubaRoll::Capture);
        assert!(mode.torpedo_bonus(18));
        assert!(!mode.torpedo_bonus(17));
        assert_eq!(mode.bomber_needs(), 6);
    }

    #[test]
    fn throws_show_every_die() {
        let mut dice = Dice::scripted([4, 5, 2]);
        let throw = DiceMode::ThreeD6.throw(&mut dice);
        assert_eq!(throw.total(), 11);
        assert_eq!(throw.to_string(), "3d6=4+5+2=11");
        let mut dice = Dice::scripted([14]);
        assert_eq!(DiceMode::D20.throw(&mut dice).to_string(), "d20=14");
    }

    #[test]
    fn experimental_rolls_again_on_six_salvo_exp_06() {
        let mut dice = Dice::scripted([6, 6, 3, 5]);
        assert_eq!(experimental_rolls(&mut dice), vec![6, 6, 3]);
        let mut dice = Dice::scripted([1]);
        assert_eq!(experimental_rolls(&mut dice), vec![1]);
    }
}
