//! The GM's settings for one game (catalogue section 3, "GM configuration").

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rolls::DiceMode;

/// The GM's settings. `Setup::default()` is the text's standard game: one D20, one shot a
/// turn, every extra enabled with the text's limits, the torpedo bonus on (SALVO-GM-03,
/// SALVO-GM-09, SALVO-GEN-03 for the freedom to change them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Setup {
    /// One D20 or 3D6 for the whole game (SALVO-GEN-01, SALVO-GM-03).
    pub dice_mode: DiceMode,
    /// Shots a turn: one (classic, SALVO-CL-04) or one per ship afloat (the salvo variant).
    pub shots: ShotRule,
    /// Whether torpedoes roll for the bonus (SALVO-TORP-06, SALVO-GM-09).
    pub torpedo_bonus: bool,
    /// The extras in play (SALVO-GEN-03 lets the table drop some).
    pub specials_enabled: BTreeSet<Special>,
    /// Uses of each extra per game (SALVO-NUKE-01, SCUBA-01, TORP-01, EXP-01, BOMB-01).
    pub uses: Uses,
    /// A missing order fires one classic shot at a random uncalled square (SALVO-GM-17).
    pub nmr_autoshot: bool,
    /// When every remaining fleet goes down in the same turn, the higher Score wins instead of a
    /// shared draw (SALVO-GM-02).
    pub score_breaks_ties: bool,
    /// Whether area attacks list each missed square or only count them (catalogue section 3).
    pub misses: MissReport,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            dice_mode: DiceMode::D20,
            shots: ShotRule::One,
            torpedo_bonus: true,
            specials_enabled: Special::ALL.into_iter().collect(),
            uses: Uses::STANDARD,
            nmr_autoshot: false,
            score_breaks_ties: false,
            misses: MissReport::Listed,
        }
    }
}

impl Setup {
    /// Settings that cannot make a playable game, in words for the GM.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for special in Special::ALL {
            if self.uses.of(special) > Uses::MOST {
                problems.push(format!(
                    "{} uses: at most {} per game",
                    special.name(),
                    Uses::MOST
                ));
            }
        }
        problems
    }

    /// Uses a player starts with: the configured limit, 0 for a disabled extra.
    pub fn starting_uses(&self) -> Uses {
        let mut uses = self.uses;
        for special in Special::ALL {
            if !self.specials_enabled.contains(&special) {
                uses.set(special, 0);
            }
        }
        uses
    }
}

/// How many shots a classic attack has (issue 7: a game setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShotRule {
    /// One shot a turn (SALVO-CL-04).
    One,
    /// One shot per own ship afloat at the start of the turn.
    Salvo,
}

/// How an area attack's misses appear in the Result column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissReport {
    /// Every square named (SALVO-NUKE-07: the defender answers for each square).
    Listed,
    /// Hits named, misses counted (the catalogue's compact form).
    Counted,
}

/// The five extras (catalogue sections 1c–1g).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Special {
    Nuke,
    Scuba,
    Torpedo,
    Experimental,
    Bomber,
}

impl Special {
    pub const ALL: [Special; 5] = [
        Special::Nuke,
        Special::Scuba,
        Special::Torpedo,
        Special::Experimental,
        Special::Bomber,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Special::Nuke => "tactical nuke",
            Special::Scuba => "SCUBA attack",
            Special::Torpedo => "torpedo attack",
            Special::Experimental => "experimental weapon",
            Special::Bomber => "bomber flight",
        }
    }

    /// The one-letter key of the Own Status tally (SALVO-GEN-02).
    pub fn key(self) -> char {
        match self {
            Special::Nuke => 'N',
            Special::Scuba => 'S',
            Special::Torpedo => 'T',
            Special::Experimental => 'X',
            Special::Bomber => 'B',
        }
    }
}

impl fmt::Display for Special {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A count per extra: the limits in `Setup`, the uses left in a player's tally (SALVO-GEN-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Uses {
    pub nuke: u8,
    pub scuba: u8,
    pub torpedo: u8,
    pub experimental: u8,
    pub bomber: u8,
}

impl Default for Uses {
    fn default() -> Self {
        Self::STANDARD
    }
}

impl Uses {
    /// The text's limits: one nuke, two of everything else (SALVO-NUKE-01, SALVO-SCUBA-01,
    /// SALVO-TORP-01, SALVO-EXP-01, SALVO-BOMB-01).
    pub const STANDARD: Uses = Uses {
        nuke: 1,
        scuba: 2,
        torpedo: 2,
        experimental: 2,
        bomber: 2,
    };

    /// The largest limit a GM may set.
    pub const MOST: u8 = 99;

    pub fn of(&self, special: Special) -> u8 {
        match special {
            Special::Nuke => self.nuke,
            Special::Scuba => self.scuba,
            Special::Torpedo => self.torpedo,
            Special::Experimental => self.experimental,
            Special::Bomber => self.bomber,
        }
    }

    fn slot(&mut self, special: Special) -> &mut u8 {
        match special {
            Special::Nuke => &mut self.nuke,
            Special::Scuba => &mut self.scuba,
            Special::Torpedo => &mut self.torpedo,
            Special::Experimental => &mut self.experimental,
            Special::Bomber => &mut self.bomber,
        }
    }

    pub fn set(&mut self, special: Special, value: u8) {
        *self.slot(special) = value;
    }

    /// Spends one use; a count never goes below zero (SALVO-GM-14).
    pub fn spend(&mut self, special: Special) {
        let slot = self.slot(special);
        *slot = slot.saturating_sub(1);
    }
}
