//! The turn lifecycle, by capability: starting a game ([`create`]), taking orders and press
//! ([`orders`]), resolving due turns ([`resolve`]), reminders ([`reminders`]), the GM's actions
//! ([`gm`]) and replaying published turns ([`verify`]).
//!
//! Exactly once comes from the database, not from memory: a due turn is claimed with
//! `FOR UPDATE SKIP LOCKED`, and its resolution, report, revealed seed, next turn and queued mail
//! are written in that one transaction. A process killed before the commit leaves the turn as it
//! was; after the commit the turn is no longer open, so nobody claims it again.
//!
//! Every statement is in `store`; a game's state is read into a typed [`games::AnyState`] once
//! per resolution or request, and the open turns' states once per process ([`states`]).

pub mod absences;
pub mod create;
pub mod gm;
pub mod missed;
pub mod orders;
pub mod press;
pub mod reminders;
mod renames;
pub mod resolve;
mod started;
pub mod states;
pub mod verify;

use chrono::{DateTime, Utc};
use engine::{GameSecret, PlayerId, TurnInput};
use games::{AnyOrders, EngineKind, GameError, PressItem};
use store::StoreError;
use store::games::GameId;
use store::turns::TurnId;

pub use crate::entropy::{Entropy, OsEntropy};
pub use crate::schedule::{Schedule, ScheduleError, ScheduleSettings, Weekly};
pub use create::{
    Creation, GameSpec, Roster, RosterPick, create_game, create_game_as, create_game_with,
};
pub(crate) use gm::schedule_of_in;
pub use gm::{GmAction, delete_game, gm_action, schedule_of, set_schedule};
pub use orders::{
    Checked, OpenTurn, OpenTurns, PressTaken, Submission, Taken, game_state, may_play,
    press_for_open_turn, send_press, submit_checked_orders, submit_orders, submit_orders_in,
};
pub use press::{audit_withdrawal, replace_press, withdraw_press, withdraw_press_in};
pub use reminders::{ReminderRound, send_due_reminders};
pub use resolve::{ResolvedTurn, resolve_due};
pub use states::StateCache;
pub use verify::{TurnCheck, preview_turn, verify_game};

#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("the zine has no active subscriber to play")]
    NoPlayers,
    /// The GM's roster cannot seat a game: which subscriber or seat, in words.
    #[error("{0}")]
    Roster(String),
    #[error("there is no game {0}")]
    GameNotFound(i64),
    #[error("game {0} has no open turn")]
    NoOpenTurn(i64),
    #[error("the game is paused: resume it first")]
    Paused(i64),
    #[error(
        "the deadline has passed (orders closed at {0}, the end of any grace period): orders are locked until the turn is resolved"
    )]
    DeadlinePassed(DateTime<Utc>),
    #[error(
        "a set of orders that arrived after this one was already accepted, and the last set received counts"
    )]
    LaterOrdersStand,
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    #[error("game {0} is over")]
    GameOver(i64),
    #[error("a new deadline must be in the future (to resolve the turn now, use Resolve now)")]
    DeadlineInPast(i64),
    #[error(
        "game {0} has published a turn: it can no longer be deleted (end it instead, which keeps its record)"
    )]
    AlreadyPublished(i64),
    #[error("stored game {game} is inconsistent: {reason}")]
    Inconsistent { game: i64, reason: String },
}

impl From<sqlx::Error> for LifecycleError {
    fn from(error: sqlx::Error) -> Self {
        LifecycleError::Store(StoreError::from(error))
    }
}

impl LifecycleError {
    fn inconsistent(game: GameId, reason: impl Into<String>) -> LifecycleError {
        LifecycleError::Inconsistent {
            game: game.0,
            reason: reason.into(),
        }
    }
}

/// The engine's id of a player, as stored (a non-negative bigint).
pub fn player_id(stored: i64) -> PlayerId {
    PlayerId(u64::try_from(stored).unwrap_or_default())
}

/// A turn number as stored (a non-negative integer).
fn turn_number(stored: i32, game: GameId) -> Result<u32, LifecycleError> {
    u32::try_from(stored).map_err(|_| LifecycleError::inconsistent(game, "negative turn number"))
}

/// The game's dice secret, as stored.
fn game_secret(stored: &[u8], game: GameId) -> Result<GameSecret, LifecycleError> {
    let bytes: [u8; 32] = stored
        .try_into()
        .map_err(|_| LifecycleError::inconsistent(game, "secret is not 32 bytes"))?;
    Ok(GameSecret::from_bytes(bytes))
}

/// A turn's input as recorded: the orders that count, who had left and joined, and the press
/// in the order received. Resolution, the GM's preview and `gm verify` all read it here, so a
/// replay sees what the resolution saw.
async fn recorded_input(
    db: &mut sqlx::PgConnection,
    engine: EngineKind,
    game: GameId,
    turn: TurnId,
) -> Result<(TurnInput<AnyOrders>, Vec<PressItem>), LifecycleError> {
    let mut input = TurnInput::default();
    for (player, orders) in store::orders::current_orders(&mut *db, turn).await? {
        input
            .orders
            .insert(player_id(player), engine.parse_stored_orders(&orders)?);
    }
    input.leaving = store::turns::leaving(&mut *db, turn)
        .await?
        .into_iter()
        .map(player_id)
        .collect();
    input.joining =
        serde_json::from_value(store::turns::joining(&mut *db, turn).await?).map_err(|e| {
            LifecycleError::inconsistent(
                game,
                format!("turn {}: joining is not a player list: {e}", turn.0),
            )
        })?;
    input.excused = store::absences::excused(&mut *db, turn)
        .await?
        .into_iter()
        .map(player_id)
        .collect();
    input.renames =
        serde_json::from_value(store::turns::renaming(&mut *db, turn).await?).map_err(|e| {
            LifecycleError::inconsistent(
                game,
                format!("turn {}: renaming is not a player list: {e}", turn.0),
            )
        })?;
    let press = store::orders::turn_press(&mut *db, turn)
        .await?
        .into_iter()
        .map(|(player, text)| PressItem {
            player: player_id(player),
            text,
        })
        .collect();
    Ok((input, press))
}
