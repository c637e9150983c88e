//! Setting up a position directly: for test cases, worked examples and GM corrections. Each
//! change keeps the state sound (a fleet stays a legal fleet; hits are recorded once).

use engine::PlayerId;

use crate::board::Square;
use crate::fleet::{Fleet, FleetPlan, ShipKind, ShipStatus};
use crate::setup::Special;
use crate::state::{PlacedBy, State};

impl State {
    /// Puts `player`'s fleet where the plan says, undamaged, as if they had placed it.
    pub fn set_fleet(&mut self, player: PlayerId, plan: &FleetPlan) -> bool {
        match self.admiral_mut(player) {
            Some(admiral) => {
                admiral.fleet = Fleet::from_plan(plan);
                admiral.placed_by = PlacedBy::Player;
                true
            }
            None => false,
        }
    }

    /// Marks squares of `player`'s ocean hit before play (turn 0, credited to no one); a ship
    /// with every square hit sinks. Squares of open water are ignored.
    pub fn hit_squares(&mut self, player: PlayerId, squares: &[Square]) {
        let Some(admiral) = self.admiral_mut(player) else {
            return;
        };
        for square in squares {
            let kind = admiral.fleet.ship_at(*square).map(|s| s.kind());
            if let Some(ship) = kind.and_then(|k| admiral.fleet.ship_mut(k)) {
                ship.hit(*square, 0, None);
            }
        }
        for ship in admiral.fleet.ships_mut() {
            if !ship.is_sunk() && ship.all_hit() {
                ship.set_status(ShipStatus::Sunk { turn: 0 });
            }
        }
    }

    /// Sinks one of `player`'s ships before play.
    pub fn sink_ship(&mut self, player: PlayerId, kind: ShipKind) {
        let squares: Vec<Square> = self
            .admiral(player)
            .and_then(|a| a.fleet.ship(kind))
            .map(|s| s.squares().collect())
            .unwrap_or_default();
        self.hit_squares(player, &squares);
    }

    /// Hands one of `player`'s ships to `captor`'s commandos before play (SALVO-GM-06).
    pub fn capture_ship(&mut self, player: PlayerId, kind: ShipKind, captor: PlayerId) {
        let turn = self.turn.saturating_sub(1);
        if let Some(ship) = self
            .admiral_mut(player)
            .and_then(|a| a.fleet.ship_mut(kind))
            && !ship.is_sunk()
        {
            ship.set_status(ShipStatus::Captured { by: captor, turn });
        }
    }

    /// Sets how many uses of an extra `player` has left.
    pub fn set_uses_left(&mut self, player: PlayerId, special: Special, left: u8) {
        if let Some(admiral) = self.admiral_mut(player) {
            admiral.uses_left.set(special, left);
        }
    }

    /// Moves the game to `turn`; past turn 1 every fleet is at sea and can no longer be placed.
    pub fn set_turn(&mut self, turn: u32) {
        self.turn = turn.max(1);
        if self.turn > 1 {
            for admiral in &mut self.admirals {
                admiral.may_place = false;
            }
        }
    }
}
