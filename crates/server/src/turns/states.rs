//! The typed states of open turns, read once per process. Checking one player's orders needs
//! the game's state; reading a big game's state (megabytes of JSON for a 10,000-player Barmy
//! game) for every order mail made a message cost what the game's size costs. A turn's
//! `state_before` never changes once the turn is open, so a parsed copy keyed by the turn stays
//! true for as long as the turn exists: nothing needs invalidating, a new turn is a new key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use games::{AnyState, EngineKind};
use store::games::GameId;
use store::turns::TurnId;

use super::LifecycleError;

/// How many open turns' states a process keeps; the least recently used goes first.
const CAPACITY: usize = 64;

/// Parsed states of open turns, shared by a process's workers and requests. Each database
/// has its own turn ids: one cache serves one database.
#[derive(Debug, Clone, Default)]
pub struct StateCache {
    inner: Arc<Mutex<Entries>>,
}

#[derive(Debug, Default)]
struct Entries {
    by_turn: HashMap<TurnId, (Arc<AnyState>, u64)>,
    clock: u64,
}

impl StateCache {
    /// The state `turn` opened with, parsed; read from the database on the first call only.
    pub async fn open_turn_state(
        &self,
        db: &mut sqlx::PgConnection,
        game: GameId,
        turn: TurnId,
        engine: EngineKind,
    ) -> Result<Arc<AnyState>, LifecycleError> {
        if let Some(state) = self.get(turn) {
            return Ok(state);
        }
        let text = store::turns::state_before(&mut *db, turn)
            .await?
            .ok_or_else(|| {
                LifecycleError::inconsistent(game, format!("turn {} has no state", turn))
            })?;
        let state = Arc::new(engine.parse_state_text(&text)?);
        self.insert(turn, state.clone());
        Ok(state)
    }

    fn get(&self, turn: TurnId) -> Option<Arc<AnyState>> {
        let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        entries.clock += 1;
        let now = entries.clock;
        let (state, used) = entries.by_turn.get_mut(&turn)?;
        *used = now;
        Some(state.clone())
    }

    fn insert(&self, turn: TurnId, state: Arc<AnyState>) {
        let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        entries.clock += 1;
        let now = entries.clock;
        if entries.by_turn.len() >= CAPACITY
            && !entries.by_turn.contains_key(&turn)
            && let Some(oldest) = entries
                .by_turn
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(turn, _)| *turn)
        {
            entries.by_turn.remove(&oldest);
        }
        entries.by_turn.insert(turn, (state, now));
    }

    /// How many states are kept (for tests).
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .by_turn
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
