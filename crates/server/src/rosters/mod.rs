//! Who plays a game: its roster as the GM and the public see it (names, seats, who left), and
//! (by capability) the ways players come and go: sign-ups, resignations, replacements and the
//! standby list (seats offered to standbys are `crate::offers`).

pub mod replace;
pub mod resign;
pub mod signups;

use store::games::GameId;
use store::status::PlayerStatus;
use store::{PgPool, StoreError};

/// One player of a game as anyone may see them: no address, no token, no orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterEntry {
    pub name: String,
    /// The named seat (an ironclad side, a skyfleet fleet), where the engine has them.
    pub seat: Option<String>,
    pub status: PlayerStatus,
    pub joined_turn: i32,
}

/// A game's roster, in the engine's player order, with each seat's name from the game's setup.
/// `None` when there is no such game.
pub async fn roster(pool: &PgPool, game: GameId) -> Result<Option<Vec<RosterEntry>>, StoreError> {
    let Some(game) = store::games::summary(pool, game).await? else {
        return Ok(None);
    };
    // Seat names come from the setup, which is public as far as its seats go.
    let plan = game.setup.seat_plan();
    Ok(Some(
        store::players::roster(pool, game.id)
            .await?
            .into_iter()
            .map(|row| RosterEntry {
                seat: row
                    .seat
                    .and_then(|seat| usize::try_from(seat).ok())
                    .and_then(|seat| plan.seat_name(seat).map(str::to_owned)),
                name: row.display_name,
                status: row.status,
                joined_turn: row.joined_turn,
            })
            .collect(),
    ))
}

impl RosterEntry {
    /// Still in the game (not resigned, excluded or replaced).
    pub fn playing(&self) -> bool {
        self.status == PlayerStatus::Active
    }
}
