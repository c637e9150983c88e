//! DC inside a ship's block: what damage-control successes buy first (SKY-GM-22).

use crate::orders::DcChoice;
use crate::state::Unit;
use crate::tables::squash;

use super::Parser;

impl Parser<'_> {
    pub(super) fn dc(
        &mut self,
        line: usize,
        raw: &str,
        index: usize,
        unit: &Unit,
        rest: &[String],
    ) {
        let example = format!(
            "what damage control buys first (BROKEN, ONFIRE, WEAPONSDOWN, UTILITIESDOWN, RUDDER, SPEED, JAM, UTILITY, CREW, PANIC, REPAIR): {}",
            self.example(line, "DC PRIORITY ONFIRE, BROKEN, RUDDER, REPAIR")
        );
        if !unit.is_ship() {
            self.error(
                line,
                raw,
                "wings have no damage control",
                format!(
                    "an order for a wing, as in {}",
                    self.example(line, &self.plain_order(unit))
                ),
            );
            return;
        }
        let mut list = Vec::new();
        for word in rest
            .iter()
            .filter(|w| !matches!(w.as_str(), "priority" | "control" | "order" | "first"))
        {
            let choice = match squash(word).as_str() {
                "broken" => DcChoice::Broken,
                "onfire" | "fire" | "fires" => DcChoice::OnFire,
                "weaponsdown" | "weapons" => DcChoice::WeaponsDown,
                "utilitiesdown" | "utilities" => DcChoice::UtilitiesDown,
                "rudder" | "rudderloss" => DcChoice::RudderLoss,
                "speed" | "speedloss" => DcChoice::SpeedLoss,
                "jam" | "weaponjam" | "jammed" => DcChoice::WeaponJam,
                "utility" | "utilityfailure" => DcChoice::UtilityFailure,
                "crew" | "crewcasualties" | "casualties" => DcChoice::CrewCasualties,
                "panic" => DcChoice::Panic,
                "repair" | "repairs" | "hull" => DcChoice::Repair,
                "on" | "down" | "loss" | "failure" => continue,
                other => {
                    self.error(
                        line,
                        raw,
                        format!("\"{other}\" is not something damage control can do"),
                        example.clone(),
                    );
                    return;
                }
            };
            if !list.contains(&choice) {
                list.push(choice);
            }
        }
        if list.is_empty() {
            self.error(
                line,
                raw,
                "list what damage control should do first",
                example,
            );
            return;
        }
        let words: Vec<&str> = list.iter().map(|c| c.name()).collect();
        self.understood.push(format!(
            "{}: damage control {}",
            unit.name,
            words.join(", then ")
        ));
        self.set(index, |a| a.dc_priority = Some(list));
    }
}
