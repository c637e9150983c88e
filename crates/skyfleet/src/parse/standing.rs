//! INITIATIVE and the standing reactions that last from turn to turn: Brace, Chaff,
//! Countermeasures and Reinforced Bulkheads' re-rolls (SKY-GM-15, SKY-GM-17, SKY-GM-18,
//! SKY-GM-25).

use std::collections::BTreeSet;

use crate::orders::StandingChange;
use crate::state::{InitiativeChoice, PivotChoice, Unit, UnitId};
use crate::tables::{ModuleKind, squash};

use super::{Parser, number};

/// A standing reaction for one ship, as written after its name.
struct Reaction<'w> {
    id: UnitId,
    ship: Unit,
    /// The words after the ship's name.
    more: Vec<&'w str>,
    /// The reaction is switched off.
    off: bool,
}

impl Parser<'_> {
    pub(super) fn initiative(&mut self, line: usize, raw: &str, rest: &[String]) {
        let choice = match rest.first().map(String::as_str) {
            Some("first" | "1st" | "1") => InitiativeChoice::First,
            Some("second" | "2nd" | "2" | "last") => InitiativeChoice::Second,
            _ => {
                self.error(
                    line,
                    raw,
                    "say FIRST or SECOND: who activates first if you win initiative",
                    "`INITIATIVE FIRST`",
                );
                return;
            }
        };
        self.orders.initiative = Some(choice);
        self.understood.push(format!(
            "if you win initiative, you activate {} (SKY-GM-15)",
            match choice {
                InitiativeChoice::First => "first",
                InitiativeChoice::Second => "second",
            }
        ));
    }

    pub(super) fn standing(&mut self, line: usize, raw: &str, rest: &[String]) {
        let example = format!(
            "a standing reaction for one of your ships: `STANDING BRACE {}`",
            self.example_ship
        );
        let Some((kind, args)) = rest.split_first() else {
            self.error(line, raw, "which standing order?", example);
            return;
        };
        let kind = squash(kind);
        match kind.as_str() {
            "clear" | "none" | "cancel" => {
                self.orders.standing.push(StandingChange::Clear);
                self.understood.push("all standing reactions cleared".into());
            }
            "initiative" => self.initiative(line, raw, args),
            "rerollcrit" | "reroll" | "rerollcrits" | "bulkheads" => {
                self.standing_reroll(line, raw, args)
            }
            "brace" | "chaff" | "countermeasures" | "cm" | "decoys" | "countermeasure" => {
                let Some(reaction) = self.reaction(line, raw, args, &example) else {
                    return;
                };
                match kind.as_str() {
                    "brace" => self.standing_brace(&reaction),
                    "chaff" => self.standing_chaff(line, raw, &reaction, &example),
                    _ => self.standing_countermeasures(line, raw, &reaction, &example),
                }
            }
            other => self.error(
                line,
                raw,
                format!("\"{other}\" is not a standing order (BRACE, CHAFF, COUNTERMEASURES, REROLL_CRIT, CLEAR)"),
                example,
            ),
        }
    }

    /// STANDING REROLL_CRIT: the Critical Table results Reinforced Bulkheads re-roll.
    fn standing_reroll(&mut self, line: usize, raw: &str, args: &[String]) {
        let mut set = BTreeSet::new();
        for word in args {
            if matches!(word.as_str(), "none" | "crit" | "crits" | "on") {
                continue;
            }
            match number(word) {
                Some(n @ 1..=8) => {
                    set.insert(n as u8);
                }
                _ => {
                    self.error(
                        line,
                        raw,
                        "REROLL_CRIT takes Critical Table results 1 to 8",
                        "`STANDING REROLL_CRIT 7, 8`",
                    );
                    return;
                }
            }
        }
        let shown: Vec<String> = set.iter().map(ToString::to_string).collect();
        self.understood.push(format!(
            "Reinforced Bulkheads re-roll Critical results {{{}}} (SKY-GM-25)",
            shown.join(", ")
        ));
        self.orders.standing.push(StandingChange::RerollCrit(set));
    }

    /// The ship a standing reaction is for, and whether it is switched off; `None` once the
    /// line is refused.
    fn reaction<'w>(
        &mut self,
        line: usize,
        raw: &str,
        args: &'w [String],
        example: &str,
    ) -> Option<Reaction<'w>> {
        let Some((id, used)) = self.take_unit(args) else {
            self.error(line, raw, "which ship?", example);
            return None;
        };
        let ship = self.unit(id).cloned()?;
        if ship.side != self.side || !ship.is_ship() {
            self.error(
                line,
                raw,
                format!("{} is not one of your ships", ship.name),
                example,
            );
            return None;
        }
        let more: Vec<&str> = args
            .get(used..)
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .collect();
        let off = more
            .iter()
            .any(|w| matches!(*w, "off" | "stop" | "no" | "cancel"));
        Some(Reaction {
            id,
            ship,
            more,
            off,
        })
    }

    fn standing_brace(&mut self, reaction: &Reaction<'_>) {
        let Reaction { id, ship, off, .. } = reaction;
        self.orders.standing.push(StandingChange::Brace(*id, !off));
        self.understood.push(if *off {
            format!("{} no longer braces by standing order", ship.name)
        } else {
            format!(
                "{} braces (1 CMD) the first time it is attacked each turn (SKY-GM-17)",
                ship.name
            )
        });
    }

    fn standing_chaff(&mut self, line: usize, raw: &str, reaction: &Reaction<'_>, example: &str) {
        let Reaction { id, ship, off, .. } = reaction;
        if !off
            && !ship
                .modules
                .iter()
                .any(|m| m.kind == ModuleKind::ChaffLauncher)
        {
            self.error(
                line,
                raw,
                format!("{} has no Chaff Launcher (SKY-MOD-1)", ship.name),
                example,
            );
            return;
        }
        self.orders.standing.push(StandingChange::Chaff(*id, !off));
        self.understood.push(if *off {
            format!("{} no longer uses Chaff", ship.name)
        } else {
            format!(
                "{} uses Chaff (1 CMD) against the first missile attack that hits it each turn",
                ship.name
            )
        });
    }

    fn standing_countermeasures(
        &mut self,
        line: usize,
        raw: &str,
        reaction: &Reaction<'_>,
        example: &str,
    ) {
        let Reaction {
            id,
            ship,
            more,
            off,
        } = reaction;
        if !off
            && !ship
                .modules
                .iter()
                .any(|m| m.kind == ModuleKind::AcousticDecoys)
        {
            self.error(
                line,
                raw,
                format!("{} has no Acoustic Decoys (SKY-GM-18)", ship.name),
                example,
            );
            return;
        }
        let choice = if *off {
            None
        } else if more.iter().any(|w| matches!(*w, "left" | "l" | "port")) {
            Some(PivotChoice::Left)
        } else if more
            .iter()
            .any(|w| matches!(*w, "right" | "r" | "starboard"))
        {
            Some(PivotChoice::Right)
        } else {
            Some(PivotChoice::Away)
        };
        self.orders
            .standing
            .push(StandingChange::Countermeasures(*id, choice));
        self.understood.push(match choice {
            None => format!("{} no longer uses Countermeasures", ship.name),
            Some(choice) => format!(
                "{} uses Countermeasures (1 CMD each) on enemy torpedoes within 12\", turning them {}",
                ship.name,
                match choice {
                    PivotChoice::Away => "away",
                    PivotChoice::Left => "left",
                    PivotChoice::Right => "right",
                }
            ),
        });
    }
}
