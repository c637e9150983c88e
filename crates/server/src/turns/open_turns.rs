//! The open turns one transaction has looked up and share-locked, with the press each player
//! has for them: what a batch of mail, or a web request, checks orders and press against.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use games::AnyState;
use store::games::GameId;
use store::orders::NewPress;
use store::players::PlayerRowId;
use store::subscribers::PlayerLock;
use store::turns::TurnId;

use super::{LifecycleError, StateCache, player_id};
use crate::limits::PressUsed;

/// A game's open turn as orders are checked against it, share-locked by the transaction that
/// looked it up: resolution, which locks it for update, waits until that transaction ends, so
/// the turn stays open and its state unchanged until then.
#[derive(Debug)]
pub struct OpenTurn {
    pub id: TurnId,
    pub number: u32,
    pub state: Arc<AnyState>,
    /// When orders close (the deadline and its grace period), if a deadline is set.
    pub closes: Option<DateTime<Utc>>,
}

/// The open turns one transaction has looked up and share-locked, by game, so that a batch of
/// messages looks each game's turn up once (and its state comes from the process's
/// [`StateCache`]). Valid only in that transaction, and only while the lookups stand: after a
/// rollback to a savepoint, [`OpenTurns::forget`] (the locks taken inside it were released).
#[derive(Debug, Default)]
pub struct OpenTurns {
    states: StateCache,
    by_game: HashMap<GameId, LookedUp>,
    /// The press each player has for a turn, counting what this transaction admitted: read
    /// once per player, under the player's lock.
    press_used: HashMap<(TurnId, PlayerRowId), PressUsed>,
    /// Press withdrawn in this transaction: each player's press for a turn received before
    /// this moment is not printed, so press of the batch not saved yet is dropped too.
    withdrawn_before: HashMap<(TurnId, PlayerRowId), DateTime<Utc>>,
}

/// What the look-up of one game's open turn found.
#[derive(Debug, Clone)]
enum LookedUp {
    NoOpenTurn,
    Open(Arc<OpenTurn>),
    /// Its stored state or schedule could not be read: only this game's messages fail.
    Unreadable(String),
}

impl OpenTurns {
    pub fn new(states: StateCache) -> OpenTurns {
        OpenTurns {
            states,
            by_game: HashMap::new(),
            press_used: HashMap::new(),
            withdrawn_before: HashMap::new(),
        }
    }

    /// The game's open turn, share-locked; `None` when the game has none.
    pub async fn get(
        &mut self,
        tx: &mut sqlx::PgConnection,
        game: GameId,
    ) -> Result<Option<Arc<OpenTurn>>, LifecycleError> {
        if !self.by_game.contains_key(&game) {
            self.fetch(tx, &[game]).await?;
        }
        match self.by_game.get(&game) {
            Some(LookedUp::Open(turn)) => Ok(Some(turn.clone())),
            Some(LookedUp::Unreadable(reason)) => {
                Err(LifecycleError::inconsistent(game, reason.clone()))
            }
            Some(LookedUp::NoOpenTurn) | None => Ok(None),
        }
    }

    /// Looks up and share-locks the open turns of `games` not looked up yet, in one statement.
    pub async fn fetch(
        &mut self,
        tx: &mut sqlx::PgConnection,
        games: &[GameId],
    ) -> Result<(), LifecycleError> {
        let mut wanted: Vec<GameId> = games
            .iter()
            .filter(|game| !self.by_game.contains_key(game))
            .copied()
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.is_empty() {
            return Ok(());
        }
        let rows = store::turns::share_open_turns(&mut *tx, &wanted).await?;
        for game in wanted {
            self.by_game.insert(game, LookedUp::NoOpenTurn);
        }
        for row in rows {
            let game = row.game_id;
            let looked_up = match self.read(tx, row).await {
                Ok(turn) => LookedUp::Open(Arc::new(turn)),
                // The database failing fails the batch; one game's unreadable data fails only
                // that game's messages.
                Err(error @ LifecycleError::Store(_)) => return Err(error),
                Err(error) => LookedUp::Unreadable(error.to_string()),
            };
            self.by_game.insert(game, looked_up);
        }
        Ok(())
    }

    async fn read(
        &self,
        tx: &mut sqlx::PgConnection,
        row: store::turns::OpenTurnRow,
    ) -> Result<OpenTurn, LifecycleError> {
        let closes = match row.deadline {
            Some(deadline) => Some(row.schedule.closes_at(deadline)),
            None => None,
        };
        let engine = row.engine;
        let mut state = self
            .states
            .open_turn_state(&mut *tx, row.game_id, row.id, engine)
            .await?;
        let number = super::turn_number(row.number, row.game_id)?;
        // Orders name a seat taken over in this turn by its new holder's name already (the
        // engine takes the name when the turn resolves); parsed orders keep player ids.
        let renames = store::replacements::taking_effect(&mut *tx, row.game_id, number).await?;
        if !renames.is_empty() {
            let mut renamed = (*state).clone();
            for (id, name) in renames {
                renamed.rename(&engine::Player {
                    id: player_id(id),
                    name,
                });
            }
            state = Arc::new(renamed);
        }
        Ok(OpenTurn {
            id: row.id,
            number,
            state,
            closes,
        })
    }

    /// The press `player` has for `turn`, with what this transaction admitted. The caller
    /// holds the player's lock.
    pub async fn press_used(
        &mut self,
        tx: &mut sqlx::PgConnection,
        turn: TurnId,
        player: &PlayerLock,
    ) -> Result<PressUsed, LifecycleError> {
        let key = (turn, player.player());
        if let Some(used) = self.press_used.get(&key) {
            return Ok(*used);
        }
        let used = PressUsed::counted(store::orders::press_used(&mut *tx, key.0, key.1).await?);
        self.press_used.insert(key, used);
        Ok(used)
    }

    /// Forgets every lookup (their locks may have been released by a rollback, and what
    /// they admitted with them).
    pub fn forget(&mut self) {
        self.by_game.clear();
        self.press_used.clear();
        self.withdrawn_before.clear();
    }

    /// Whether press waiting to be saved still stands (no withdrawal in this transaction
    /// came after it).
    pub fn press_stands(&self, press: &NewPress) -> bool {
        self.withdrawn_before
            .get(&(press.turn_id, press.player_id))
            .is_none_or(|before| press.received_at >= *before)
    }

    /// Withdraws the player's press for the turn: the stored rows received before
    /// `stored_before` go, the batch's unsaved press received before `before` is dropped when
    /// saved ([`OpenTurns::press_stands`]), and the room it took is free again. Returns how
    /// many stored entries went.
    pub(super) async fn withdraw_before(
        &mut self,
        tx: &mut sqlx::PgConnection,
        turn: TurnId,
        lock: &PlayerLock,
        stored_before: DateTime<Utc>,
        before: DateTime<Utc>,
    ) -> Result<u64, LifecycleError> {
        let player = lock.player();
        let withdrawn =
            store::orders::withdraw_press(&mut *tx, turn, player, stored_before).await?;
        let latest = self
            .withdrawn_before
            .entry((turn, player))
            .or_insert(before);
        *latest = (*latest).max(before);
        self.press_used.remove(&(turn, player));
        Ok(withdrawn)
    }

    /// Records the press a player has for a turn once this transaction admitted more.
    pub(super) fn keep_press_used(&mut self, turn: TurnId, player: PlayerRowId, used: PressUsed) {
        self.press_used.insert((turn, player), used);
    }
}
