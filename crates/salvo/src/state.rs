//! The game between turns: every player's fleet, tally of extras and calls.

use std::collections::{BTreeMap, BTreeSet};

use engine::{Player, PlayerId};
use serde::{Deserialize, Serialize};

use crate::board::Square;
use crate::fleet::{Fleet, ShipKind, ShipStatus};
use crate::setup::{Setup, ShotRule, Special, Uses};

/// The whole game. Serialised as the service's stored JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub(crate) setup: Setup,
    /// The turn that resolves next; 1 for a new game.
    pub(crate) turn: u32,
    /// Players in roster order.
    pub(crate) admirals: Vec<Admiral>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) end: Option<GameEnd>,
}

/// One player's side of the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Admiral {
    pub(crate) id: PlayerId,
    pub(crate) name: String,
    pub(crate) fleet: Fleet,
    /// Who placed the fleet: shown to its owner only.
    pub(crate) placed_by: PlacedBy,
    /// True until the player's first turn resolves: their first orders may place the fleet
    /// (SALVO-GM-18).
    pub(crate) may_place: bool,
    /// The tally of extras left (SALVO-GEN-02).
    pub(crate) uses_left: Uses,
    /// Every square this player's attacks have reported on, per target.
    pub(crate) calls: BTreeMap<PlayerId, BTreeSet<Square>>,
    pub(crate) status: AdmiralStatus,
}

/// Who placed a fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlacedBy {
    /// The server, with sealed dice (SALVO-GM-18).
    Server,
    /// The player's own PLACE orders.
    Player,
}

/// Whether a player is still in the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdmiralStatus {
    Active,
    /// No ship afloat: all sunk or captured (SALVO-CL-05, SALVO-SCUBA-06).
    Defeated {
        turn: u32,
    },
    /// Left the game (unsubscribed or excluded).
    Left {
        turn: u32,
    },
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameEnd {
    pub turn: u32,
    /// More than one is a shared win (SALVO-GM-02).
    pub winners: Vec<PlayerId>,
    pub reason: String,
}

impl State {
    pub(crate) fn new(setup: Setup, admirals: Vec<Admiral>) -> Self {
        Self {
            setup,
            turn: 1,
            admirals,
            end: None,
        }
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    pub fn turn(&self) -> u32 {
        self.turn
    }

    pub fn end(&self) -> Option<&GameEnd> {
        self.end.as_ref()
    }

    pub fn admirals(&self) -> &[Admiral] {
        &self.admirals
    }

    pub fn admiral(&self, id: PlayerId) -> Option<&Admiral> {
        self.admirals.iter().find(|a| a.id == id)
    }

    pub(crate) fn admiral_mut(&mut self, id: PlayerId) -> Option<&mut Admiral> {
        self.admirals.iter_mut().find(|a| a.id == id)
    }

    /// The players still in the game, ascending by id (the order dice are drawn in).
    pub fn active_ids(&self) -> Vec<PlayerId> {
        let mut ids: Vec<PlayerId> = self
            .admirals
            .iter()
            .filter(|a| a.is_active())
            .map(|a| a.id)
            .collect();
        ids.sort();
        ids
    }

    /// The players `me` may attack: everyone else still in the game, in roster order.
    pub fn opponents_of(&self, me: PlayerId) -> Vec<&Admiral> {
        self.admirals
            .iter()
            .filter(|a| a.id != me && a.is_active())
            .collect()
    }

    /// Shots `me` may fire this turn: one, or one per ship afloat (issue 7's salvo setting).
    pub fn shots_allowed(&self, me: PlayerId) -> usize {
        match self.setup.shots {
            ShotRule::One => 1,
            ShotRule::Salvo => self.admiral(me).map_or(0, |a| a.fleet.afloat_count()),
        }
    }

    /// Enemy squares `player` has destroyed, plus the un-hit squares of ships they hold
    /// captured (catalogue section 5, Score).
    pub fn score(&self, player: PlayerId) -> u32 {
        let mut score = 0usize;
        for admiral in self.admirals.iter().filter(|a| a.id != player) {
            for ship in admiral.fleet.ships() {
                score += ship
                    .damage()
                    .values()
                    .filter(|record| record.by.contains(&player))
                    .count();
                if ship.captor() == Some(player) {
                    score += ship.intact_squares();
                }
            }
        }
        u32::try_from(score).unwrap_or(u32::MAX)
    }

    /// Ships `captor` holds, as (owner, ship).
    pub fn held_by(&self, captor: PlayerId) -> Vec<(PlayerId, ShipKind)> {
        self.admirals
            .iter()
            .flat_map(|a| {
                a.fleet
                    .ships()
                    .iter()
                    .filter(move |s| s.captor() == Some(captor))
                    .map(move |s| (a.id, s.kind()))
            })
            .collect()
    }

    pub fn name_of(&self, id: PlayerId) -> String {
        self.admiral(id)
            .map_or_else(|| format!("player {}", id.0), |a| a.name.clone())
    }

    pub(crate) fn roster(&self) -> Vec<Player> {
        self.admirals
            .iter()
            .map(|a| Player {
                id: a.id,
                name: a.name.clone(),
            })
            .collect()
    }
}

impl Admiral {
    pub(crate) fn new(player: &Player, fleet: Fleet, uses: Uses) -> Self {
        Self {
            id: player.id,
            name: engine::report::one_line(&player.name),
            fleet,
            placed_by: PlacedBy::Server,
            may_place: true,
            uses_left: uses,
            calls: BTreeMap::new(),
            status: AdmiralStatus::Active,
        }
    }

    pub fn id(&self) -> PlayerId {
        self.id
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn fleet(&self) -> &Fleet {
        &self.fleet
    }

    pub fn placed_by(&self) -> PlacedBy {
        self.placed_by
    }

    pub fn may_place(&self) -> bool {
        self.may_place
    }

    pub fn uses_left(&self) -> Uses {
        self.uses_left
    }

    pub fn status(&self) -> AdmiralStatus {
        self.status
    }

    pub fn is_active(&self) -> bool {
        self.status == AdmiralStatus::Active
    }

    /// Squares this player's attacks have reported on in `target`'s ocean.
    pub fn calls_on(&self, target: PlayerId) -> Option<&BTreeSet<Square>> {
        self.calls.get(&target)
    }

    /// Own ships held by someone else.
    pub fn captured_ships(&self) -> Vec<ShipKind> {
        self.fleet
            .ships()
            .iter()
            .filter(|s| matches!(s.status(), ShipStatus::Captured { .. }))
            .map(|s| s.kind())
            .collect()
    }

    /// The Own Status tally of extras left, e.g. `N0 S1 T2 X2 B1` (SALVO-GEN-02); disabled
    /// extras are left out.
    pub fn tally(&self, setup: &Setup) -> String {
        let mut text = String::with_capacity(16);
        for special in Special::ALL {
            if !setup.specials_enabled.contains(&special) {
                continue;
            }
            if !text.is_empty() {
                text.push(' ');
            }
            text.push(special.key());
            push_number(&mut text, u32::from(self.uses_left.of(special)));
        }
        text
    }
}

/// Appends a small number in decimal without the formatting machinery (reports are built on
/// every turn; see the bench).
pub(crate) fn push_number(text: &mut String, number: u32) {
    if number >= 10 {
        push_number(text, number / 10);
    }
    if let Some(digit) = char::from_digit(number % 10, 10) {
        text.push(digit);
    }
}
