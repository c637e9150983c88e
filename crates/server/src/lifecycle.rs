//! What every part of a game's life shares: the error that says in words what could not be
//! done ([`LifecycleError`]), the game's current state as players see it ([`game_state`]), and
//! reading the numbers the engine keeps (player ids, turn numbers, the dice secret). Below
//! `turns`, `offers` and `rosters`, which all use it.

use chrono::{DateTime, Utc};
use engine::{GameSecret, PlayerId};
use games::{AnyState, GameError};
use schedule::ScheduleError;
use store::StoreError;
use store::games::GameId;

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
    GameNotFound(GameId),
    #[error("game {0} has no open turn")]
    NoOpenTurn(GameId),
    #[error("the game is paused: resume it first")]
    Paused(GameId),
    #[error(
        "the deadline has passed (orders closed at {0}, the end of any grace period): orders are locked until the turn is resolved"
    )]
    DeadlinePassed(DateTime<Utc>),
    #[error(
        "a set of orders that arrived after this one was already accepted, and the last set received counts"
    )]
    LaterOrdersStand,
    #[error("you already sent this very press for this turn: it is printed once")]
    PressAlreadySent,
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    #[error("game {0} is over")]
    GameOver(GameId),
    #[error("a new deadline must be in the future (to resolve the turn now, use Resolve now)")]
    DeadlineInPast(GameId),
    #[error(
        "game {0} has published a turn: it can no longer be deleted (end it instead, which keeps its record)"
    )]
    AlreadyPublished(GameId),
    #[error("stored game {game} is inconsistent: {reason}")]
    Inconsistent { game: GameId, reason: String },
    /// What cannot happen unless Admiralty itself is wrong: a bug, or a resource that failed.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<sqlx::Error> for LifecycleError {
    fn from(error: sqlx::Error) -> Self {
        LifecycleError::Store(StoreError::from(error))
    }
}

impl LifecycleError {
    pub(crate) fn inconsistent(game: GameId, reason: impl Into<String>) -> LifecycleError {
        LifecycleError::Inconsistent {
            game,
            reason: reason.into(),
        }
    }
}

/// The engine's id of a player, as stored (a non-negative bigint).
pub fn player_id(stored: i64) -> PlayerId {
    PlayerId(u64::try_from(stored).unwrap_or_default())
}

/// A turn number as stored (a non-negative integer).
pub(crate) fn turn_number(stored: i32, game: GameId) -> Result<u32, LifecycleError> {
    u32::try_from(stored).map_err(|_| LifecycleError::inconsistent(game, "negative turn number"))
}

/// The game's dice secret, as stored.
pub(crate) fn game_secret(stored: &[u8], game: GameId) -> Result<GameSecret, LifecycleError> {
    let bytes: [u8; 32] = stored
        .try_into()
        .map_err(|_| LifecycleError::inconsistent(game, "secret is not 32 bytes"))?;
    Ok(GameSecret::from_bytes(bytes))
}

/// The game's current state (after its last resolved turn, with the open turn's replacements'
/// names), from which each viewer's view is drawn: the POSITION mail and the player pages read
/// it here.
pub async fn game_state<'e>(
    db: impl sqlx::PgExecutor<'e>,
    game: GameId,
) -> Result<AnyState, LifecycleError> {
    let current = store::games::current_state(db, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    let mut state = current.engine.parse_state_text(&current.state)?;
    // A seat taken over in the open turn goes by its new holder's name from now on.
    for player in &current.renames {
        state.rename(player);
    }
    Ok(state)
}
