//! What happened in a turn, kept as it happens and turned into the report afterwards
//! (catalogue section 5).

use serde::Serialize;

use crate::state::UnitId;

/// One report row in the making: a unit that activated, was hit, or was destroyed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct RowLog {
    pub unit: Option<UnitId>,
    /// Targets engaged (Co-ord).
    pub coords: Vec<String>,
    /// What happened, in order (Result).
    pub results: Vec<String>,
}

/// Per side, for the player's summary row (SKY-ADM-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Tally {
    pub activations: u32,
    pub attacks: u32,
    pub hits: u32,
    pub damage: u32,
    pub criticals: u32,
}

/// The turn's log.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct TurnLog {
    pub rows: Vec<RowLog>,
    pub notes: Vec<String>,
    pub tally: [Tally; 2],
}

impl TurnLog {
    /// The index of the unit's row, made at the first mention so that rows follow the
    /// turn's order.
    fn index(&mut self, unit: UnitId) -> usize {
        match self.rows.iter().position(|r| r.unit == Some(unit)) {
            Some(index) => index,
            None => {
                self.rows.push(RowLog {
                    unit: Some(unit),
                    ..RowLog::default()
                });
                self.rows.len() - 1
            }
        }
    }

    /// Makes sure the unit has a row (a unit that activated but did nothing still gets one).
    pub fn touch(&mut self, unit: UnitId) {
        self.index(unit);
    }

    pub fn result(&mut self, unit: UnitId, text: impl Into<String>) {
        let index = self.index(unit);
        if let Some(row) = self.rows.get_mut(index) {
            row.results.push(text.into());
        }
    }

    pub fn coord(&mut self, unit: UnitId, text: impl Into<String>) {
        let index = self.index(unit);
        let text = text.into();
        if let Some(row) = self.rows.get_mut(index)
            && !row.coords.contains(&text)
        {
            row.coords.push(text);
        }
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    /// Updates a side's tally.
    pub fn tally(&mut self, side: u8, update: impl FnOnce(&mut Tally)) {
        if let Some(tally) = self.tally.get_mut(usize::from(side)) {
            update(tally);
        }
    }
}
