//! The turn being resolved: the state as it changes, the open dice, and the log; and the
//! primitives everything else uses (damage, destruction, victory points, morale checks).

use std::collections::BTreeMap;

use engine::{Dice, Score};

use crate::log::TurnLog;
use crate::state::{Brace, Morale, Place, State, Unit, UnitId};
use crate::tables::Class;

/// Why a morale check is taken (SKY-MOR-01..03).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoraleReason {
    /// Fell under 50% of starting Hull.
    Half,
    /// Fell under 25%.
    Quarter,
    BridgeHit,
    /// A friendly ship within 12" suffered a Citadel Blowout.
    Blowout(String),
}

impl MoraleReason {
    fn text(&self) -> String {
        match self {
            MoraleReason::Half => "under 50%".into(),
            MoraleReason::Quarter => "under 25%".into(),
            MoraleReason::BridgeHit => "Bridge Hit".into(),
            MoraleReason::Blowout(name) => format!("{name}'s Citadel Blowout"),
        }
    }
}

/// The turn in progress.
pub struct Battle<'a> {
    pub state: State,
    pub dice: &'a mut Dice,
    pub log: TurnLog,
    /// The side that activates first this turn (SKY-INIT-01).
    pub first: u8,
    /// Units damaged since the last morale checks, in order.
    damaged: Vec<UnitId>,
    /// Explicit morale triggers since the last checks.
    triggers: BTreeMap<UnitId, Vec<MoraleReason>>,
    /// Units destroyed since the last report of it, with the word for their row: reported
    /// after the damage that did it.
    fates: Vec<(UnitId, &'static str)>,
}

impl<'a> Battle<'a> {
    pub fn new(state: State, dice: &'a mut Dice) -> Self {
        Battle {
            state,
            dice,
            log: TurnLog::default(),
            first: 0,
            damaged: Vec::new(),
            triggers: BTreeMap::new(),
            fates: Vec::new(),
        }
    }

    pub fn turn(&self) -> u32 {
        self.state.turn
    }

    pub fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.state.unit(id)
    }

    pub fn unit_mut(&mut self, id: UnitId) -> Option<&mut Unit> {
        self.state.unit_mut(id)
    }

    pub fn in_play(&self, id: UnitId) -> bool {
        self.unit(id).is_some_and(Unit::in_play)
    }

    /// `Alice: Valiant`.
    pub fn owner_prefix(&self, id: UnitId) -> String {
        let Some(unit) = self.unit(id) else {
            return String::new();
        };
        let player = self
            .state
            .side(unit.side)
            .map(|s| s.player.name.clone())
            .unwrap_or_default();
        format!("{player}: {}", unit.name)
    }

    pub fn name(&self, id: UnitId) -> String {
        self.unit(id).map(|u| u.name.clone()).unwrap_or_default()
    }

    /// `n` six-sided dice.
    pub fn d6s(&mut self, count: u32) -> Vec<u32> {
        (0..count).map(|_| self.dice.d6()).collect()
    }

    /// Takes Hull damage off a unit. An enemy attack resolution's first damage of at least 1
    /// is reduced by a Brace in force (SKY-CMD-04, SKY-GM-17, SKY-GM-20). Returns the damage
    /// done and whether Brace took 1 off.
    pub fn hurt(&mut self, id: UnitId, amount: u32, enemy_attack: bool) -> (u32, bool) {
        let Some(unit) = self.unit_mut(id) else {
            return (0, false);
        };
        if !unit.in_play() || amount == 0 {
            return (0, false);
        }
        let mut amount = amount;
        let mut braced = false;
        if enemy_attack && unit.this_turn.brace == Brace::Ready {
            unit.this_turn.brace = Brace::Spent;
            amount -= 1;
            braced = true;
        }
        unit.hull -= i32::try_from(amount).unwrap_or(i32::MAX);
        let dead = unit.hull <= 0;
        if !self.damaged.contains(&id) {
            self.damaged.push(id);
        }
        if dead {
            self.destroy(id, Place::Destroyed);
        }
        (amount, braced)
    }

    /// Removes a unit from play and gives its cost to the other side: in full when
    /// destroyed or crashed, half for a Broken unit that exits (SKY-GM-30). Wings still
    /// aboard go down with their carrier (SKY-GM-19).
    pub fn destroy(&mut self, id: UnitId, place: Place) {
        let Some(unit) = self.unit_mut(id) else {
            return;
        };
        if !matches!(unit.place, Place::InPlay | Place::Aboard) {
            return;
        }
        unit.place = place;
        unit.hull = unit.hull.max(0);
        let (side, cost, class) = (unit.side, unit.cost, unit.class);
        let worth = match place {
            Place::Exited => Score::ratio(i64::from(cost), 2),
            _ => Score::whole(i64::from(cost)),
        };
        if class != Class::Torpedo
            && let Some(enemy) = self.state.side_mut(1 - side.min(1))
        {
            enemy.vp += worth;
        }
        let word = match place {
            Place::Destroyed => "DESTROYED",
            Place::Crashed => "CRASHED",
            Place::Exited => "EXITED the table",
            Place::InPlay | Place::Aboard => "",
        };
        if class != Class::Torpedo {
            self.fates.push((id, word));
        }
        let aboard: Vec<UnitId> = self
            .state
            .units
            .iter()
            .filter(|u| u.carrier == Some(id) && u.place == Place::Aboard)
            .map(|u| u.id)
            .collect();
        for wing in aboard {
            self.destroy(wing, Place::Destroyed);
            self.fates
                .push((wing, "lost with its carrier while aboard (SKY-GM-19)"));
        }
    }

    /// Writes the destructions since the last call into the units' rows.
    pub fn report_fates(&mut self) {
        for (id, word) in std::mem::take(&mut self.fates) {
            self.log.result(id, word);
        }
    }

    /// Marks an explicit morale trigger (Bridge Hit, a friend's blowout).
    pub fn trigger_morale(&mut self, id: UnitId, reason: MoraleReason) {
        self.triggers.entry(id).or_default().push(reason);
    }

    /// Takes the morale checks owed since the last call, in unit order: thresholds first
    /// (50% then 25%, each once a game), then explicit triggers (SKY-MOR-01..06, SKY-GM-23).
    pub fn morale_checks(&mut self) {
        self.report_fates();
        let mut owed: BTreeMap<UnitId, Vec<MoraleReason>> = std::mem::take(&mut self.triggers);
        for id in std::mem::take(&mut self.damaged) {
            let Some(unit) = self.unit_mut(id) else {
                continue;
            };
            if !unit.in_play() || unit.class == Class::Torpedo {
                continue;
            }
            let mut reasons = Vec::new();
            // Hull < 0.5 × starting Hull, exactly: 2 × Hull < starting Hull (SKY-GM-23).
            if !unit.status.checked_half && unit.hull * 2 < unit.max_hull {
                unit.status.checked_half = true;
                reasons.push(MoraleReason::Half);
            }
            if !unit.status.checked_quarter && unit.hull * 4 < unit.max_hull {
                unit.status.checked_quarter = true;
                reasons.push(MoraleReason::Quarter);
            }
            if !reasons.is_empty() {
                let entry = owed.entry(id).or_default();
                reasons.append(entry);
                *entry = reasons;
            }
        }
        for (id, reasons) in owed {
            for reason in reasons {
                self.morale_check(id, &reason);
            }
        }
    }

    /// One 2d6 check: pass on ≤ Morale; a failure makes the unit Shaken, or Broken if it
    /// was Shaken already (SKY-MOR-04..06). Torpedoes never check (SKY-GM-23).
    fn morale_check(&mut self, id: UnitId, reason: &MoraleReason) {
        let Some(unit) = self.unit(id) else {
            return;
        };
        if !unit.in_play() || unit.class == Class::Torpedo {
            return;
        }
        // The GM's switch: wings take morale checks, or not (SKY-GM-23).
        if unit.is_ultralight() && !self.state.rules.wing_morale {
            return;
        }
        let morale = unit.morale();
        let (a, b) = (self.dice.d6(), self.dice.d6());
        let total = a + b;
        let Some(unit) = self.unit_mut(id) else {
            return;
        };
        let outcome = if total <= u32::from(morale) {
            "passed".to_string()
        } else {
            unit.status.morale = match unit.status.morale {
                Morale::Steady => Morale::Shaken,
                Morale::Shaken | Morale::Broken => Morale::Broken,
            };
            match unit.status.morale {
                Morale::Broken => "failed → Broken".into(),
                _ => "failed → Shaken".into(),
            }
        };
        self.log.result(
            id,
            format!(
                "morale ({}) 2d6 [{a},{b}] = {total} vs {morale}: {outcome}",
                reason.text()
            ),
        );
    }
}
