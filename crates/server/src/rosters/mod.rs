//! Who plays a game: its roster as the GM and the public see it (names, seats, who left), and
//! (by capability) the ways players come and go.

pub mod offers;
pub mod replace;
pub mod resign;
pub mod signups;

use games::EngineKind;
use store::games::{GameId, GameSummary};
use store::status::{GameStatus, PlayerStatus};
use store::{PgPool, StoreError};

use crate::turns::LifecycleError;

/// The game, refused unless it goes on with a turn open: a seat changes hands (or comes back)
/// only then.
pub(crate) async fn open_game(
    tx: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<GameSummary, LifecycleError> {
    let summary = store::games::summary(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game.0))?;
    if summary.status == GameStatus::Finished {
        return Err(LifecycleError::GameOver(game.0));
    }
    if summary.open_turn.is_none() {
        return Err(LifecycleError::NoOpenTurn(game.0));
    }
    Ok(summary)
}

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
    let plan = game
        .engine
        .parse::<EngineKind>()
        .ok()
        .and_then(|engine| engine.seat_plan(&game.setup).ok());
    Ok(Some(
        store::players::roster(pool, game.id)
            .await?
            .into_iter()
            .map(|row| RosterEntry {
                seat: row
                    .seat
                    .and_then(|seat| usize::try_from(seat).ok())
                    .and_then(|seat| plan.as_ref()?.seat_name(seat).map(str::to_owned)),
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
