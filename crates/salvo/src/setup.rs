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
    /// Whether a Submarine or Carrier held by enemy commandos still lets its owner make torpedo
    /// attacks and bomber flights (SALVO-TORP-01, SALVO-BOMB-01). Older setups, written before
    /// the switch, read as the default; the default is not written, so stored states stay
    /// byte for byte as they were.
    #[serde(skip_serializing_if = "CapturedWeapons::is_default")]
    pub captured_weapons: CapturedWeapons,
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
            captured_weapons: CapturedWeapons::Usable,
        }
    }
}

impl Setup {
    /// Settings that cannot make a playable game, in words for the GM.
    pub fn problems(&self) -> Vec<engine::SetupProblem> {
        let mut problems = Vec::new();
        for special in Special::ALL {
            if self.uses.of(special) > Uses::MOST {
                problems.push(engine::SetupProblem::of(
                    special.setting(),
                    format!("{} uses: at most {} per game", special.name(), Uses::MOST),
                ));
            }
        }
        problems
    }

    /// The GM's switches this setup chose, in words with their rule IDs, for the game's public
    /// page: every switch, whether or not it is the default.
    pub fn rulings(&self) -> Vec<engine::Ruling> {
        let ruling = |rule: &str, text: String| engine::Ruling {
            rule: rule.into(),
            text,
        };
        let mut rulings = vec![
            ruling(
                "SALVO-TORP-01, SALVO-BOMB-01",
                match self.captured_weapons {
                    CapturedWeapons::Usable => "A captured Submarine or Carrier still lets its owner make torpedo attacks and bomber flights: only sinking stops them, as the rules text words it. The captor gains no attacks from it.".into(),
                    CapturedWeapons::Lost => "A captured Submarine or Carrier stops its owner's torpedo attacks or bomber flights until it is recaptured; sinking stops them for good (the catalogue's ruling SALVO-GM-06a).".into(),
                },
            ),
            ruling(
                "SALVO-GM-02",
                if self.score_breaks_ties {
                    "When the last fleets go down in the same turn, the higher Score (enemy squares destroyed) wins; equal Scores share the win.".into()
                } else {
                    "When the last fleets go down in the same turn, their players share the win.".into()
                },
            ),
            ruling(
                "SALVO-GM-03",
                match self.dice_mode {
                    DiceMode::D20 => "Every roll of the extras is one D20 (the die the text names first).".into(),
                    DiceMode::ThreeD6 => "Every roll of the extras is 3D6 added up, for the whole game (the experimental weapon still throws one D6).".into(),
                },
            ),
            ruling(
                "SALVO-CL-04",
                match self.shots {
                    ShotRule::One => "The turn's shots are one shot, as in the classic game.".into(),
                    ShotRule::Salvo => "The turn's shots are a salvo: one shot for each of the player's ships afloat at the start of the turn.".into(),
                },
            ),
            ruling(
                "SALVO-TORP-06",
                if self.torpedo_bonus {
                    "Torpedoes roll for the bonus: a top roll destroys the whole ship hit.".into()
                } else {
                    "Torpedoes do not roll for the bonus: a torpedo hits one square.".into()
                },
            ),
            ruling(
                "SALVO-GM-17",
                if self.nmr_autoshot {
                    "A player who sends no orders fires one shot at a random square they have not called.".into()
                } else {
                    "A player who sends no orders makes no attack that turn.".into()
                },
            ),
            ruling(
                "SALVO-ADM-07",
                match self.misses {
                    MissReport::Listed => "Area attacks name every square they missed.".into(),
                    MissReport::Counted => "Area attacks name their hits and count their misses.".into(),
                },
            ),
        ];
        let extras: Vec<String> = Special::ALL
            .into_iter()
            .map(|special| match self.starting_uses().of(special) {
                0 => format!("{}: not in play", special.name()),
                1 => format!("{}: once a game", special.name()),
                n => format!("{}: {n} times a game", special.name()),
            })
            .collect();
        rulings.push(ruling(
            "SALVO-GEN-03",
            format!(
                "The extras and their uses per player: {}.",
                extras.join("; ")
            ),
        ));
        rulings
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

/// What a captured Submarine or Carrier means for its owner's torpedo attacks and bomber
/// flights (SALVO-TORP-01, SALVO-BOMB-01, SALVO-GM-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapturedWeapons {
    /// The rules text's wording: the attacks last "as long as" the ship is not destroyed, so
    /// only sinking ends them. They stay the owner's: the text calls a captured ship its
    /// owner's "own ship" (SALVO-SCUBA-05), the use tally is the owner's, and the captor gains
    /// nothing (SALVO-GM-06b).
    #[default]
    Usable,
    /// The catalogue's ruling SALVO-GM-06(a): a captured ship is not afloat for its owner, so
    /// a captured Submarine or Carrier stops them until it is recaptured.
    Lost,
}

impl CapturedWeapons {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
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

    /// The setting of its uses per game, as the GM's form names it (`Engine::settings`).
    pub fn setting(self) -> &'static str {
        match self {
            Special::Nuke => "uses.nuke",
            Special::Scuba => "uses.scuba",
            Special::Torpedo => "uses.torpedo",
            Special::Experimental => "uses.experimental",
            Special::Bomber => "uses.bomber",
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
