//! Taking orders and press for a game's open turn, by mail or on the web.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use engine::ParsedOrders;
use games::{AnyOrders, AnyState};
use store::PgPool;
use store::games::GameId;
use store::orders::{NewOrders, NewPress, SavedOrders};
use store::players::{PlayerRowId, TokenHolder};
use store::status::{GameStatus, PlayerStatus, Source};
use store::subscribers::PlayerLock;
use store::turns::TurnId;

use super::{LifecycleError, StateCache, player_id};
use crate::config::PressLimits;
use crate::limits::{self, AdmittedPress, PressUsed};

/// Takes one player's orders for the game's open turn: stored raw and parsed, superseding any
/// earlier set, with the press they carry (within the default press limits). Returns how the
/// engine read them. The state is read for this call alone: a batch of mail or a web request
/// shares its reading through [`OpenTurns`] and a [`StateCache`].
pub async fn submit_orders(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    player: PlayerRowId,
    text: &str,
    source: Source,
) -> Result<ParsedOrders<AnyOrders>, LifecycleError> {
    let mut tx = pool.begin().await?;
    let lock = store::subscribers::lock_player(&mut tx, player).await?;
    let Some(engine_player) = store::players::engine_player_id(&mut *tx, player, game).await?
    else {
        return Err(LifecycleError::inconsistent(
            game,
            format!("player row {} is not in this game", player),
        ));
    };
    let orders = Submission {
        game,
        engine_player,
        text,
        source,
        press_limits: PressLimits::DEFAULT,
        with_press: true,
        mail_domain: None,
    };
    let mut open_turns = OpenTurns::default();
    match submit_orders_in(&mut tx, &mut open_turns, &lock, now, &orders).await {
        Ok(taken) => {
            tx.commit().await?;
            Ok(taken.parsed)
        }
        Err(error) => {
            // Release the turn's row lock now, not when the pool next reuses the connection:
            // a worker looking for due turns skips locked ones.
            tx.rollback().await?;
            Err(error)
        }
    }
}

/// What became of a set of orders sent from the web form.
#[derive(Debug)]
pub enum Checked {
    /// Read without an error and stored as the player's current set, with what the press
    /// limits let of its press.
    Saved(Taken),
    /// At least one line has an error: nothing was stored (the player fixes the set and sends
    /// it whole again); the reading says where.
    Refused(ParsedOrders<AnyOrders>),
}

/// The web form's orders: like [`submit_orders`], but a set with an error is stored nowhere,
/// so that a player at a form never has half their orders stand.
pub async fn submit_checked_orders(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    holder: &TokenHolder,
    text: &str,
    press_limits: PressLimits,
    mail_domain: &str,
) -> Result<Checked, LifecycleError> {
    let mut tx = pool.begin().await?;
    let lock = store::subscribers::lock_player(&mut tx, holder.player_id).await?;
    let submission = Submission {
        game: holder.game_id,
        engine_player: holder.engine_player_id,
        text,
        source: Source::Web,
        press_limits,
        with_press: true,
        mail_domain: Some(mail_domain),
    };
    let mut open_turns = OpenTurns::new(states.clone());
    match submit_orders_in(&mut tx, &mut open_turns, &lock, now, &submission).await {
        Ok(taken) if taken.parsed.errors.is_empty() => {
            tx.commit().await?;
            Ok(Checked::Saved(taken))
        }
        Ok(taken) => {
            tx.rollback().await?;
            Ok(Checked::Refused(taken.parsed))
        }
        Err(error) => {
            tx.rollback().await?;
            Err(error)
        }
    }
}

/// Press sent from the web form for the game's open turn, within the press limits; returns
/// what of it is printed. The player's lock is held, as mail's workers hold it, so that two
/// forms, or a form and a message, cannot both count the same room.
pub async fn send_press(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    holder: &TokenHolder,
    text: &str,
    limits: PressLimits,
) -> Result<AdmittedPress, LifecycleError> {
    let mut tx = pool.begin().await?;
    let lock = store::subscribers::lock_player(&mut tx, holder.player_id).await?;
    let mut open_turns = OpenTurns::new(states.clone());
    let taken = press_for_open_turn(
        &mut tx,
        &mut open_turns,
        &lock,
        now,
        holder.game_id,
        text,
        Source::Web,
        limits,
    )
    .await?;
    if let Some(press) = &taken.press {
        store::orders::save_press_many(&mut *tx, std::slice::from_ref(press)).await?;
    }
    tx.commit().await?;
    Ok(taken.admitted)
}

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
}

/// One player's set of orders, as [`submit_orders_in`] takes it.
#[derive(Debug, Clone, Copy)]
pub struct Submission<'a> {
    pub game: GameId,
    /// The engine's id of the player in that game (the locked player row's).
    pub engine_player: i64,
    pub text: &'a str,
    pub source: Source,
    /// How much of the press the orders carry may be printed.
    pub press_limits: PressLimits,
    /// Whether the press written with the orders is saved (not for a re-sent copy of mail
    /// whose press was saved already).
    pub with_press: bool,
    /// The mail domain, to tell standbys whose offers lapse because the player came back;
    /// `None` mails nothing (the demo, library callers).
    pub mail_domain: Option<&'a str>,
}

/// A set of orders taken: how the engine read it, and what of the press it carries is printed
/// (one entry for each of `parsed.press`, in order; none when the press is not saved).
#[derive(Debug)]
pub struct Taken {
    pub parsed: ParsedOrders<AnyOrders>,
    pub press: Vec<AdmittedPress>,
    /// How many stored entries of the player's earlier press for the turn the new set
    /// withdrew (new orders replace the press sent before them).
    pub press_withdrawn: u64,
}

/// [`submit_orders`] inside the caller's transaction (mail: with the message's other effects),
/// which holds the lock of the player's subscriber: one player's submissions are taken one
/// after the other, so the check against later orders and the save below are one step.
pub async fn submit_orders_in(
    tx: &mut sqlx::PgConnection,
    open_turns: &mut OpenTurns,
    lock: &PlayerLock,
    now: DateTime<Utc>,
    orders: &Submission<'_>,
) -> Result<Taken, LifecycleError> {
    let player = lock.player();
    let game = orders.game;
    // The turn row is only share-locked, so that other players' orders go in parallel while
    // resolution, which locks it for update, waits.
    let turn = open_turns
        .get(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game))?;
    // Once the deadline and its grace period are over, orders are locked, even before the
    // worker has resolved the turn.
    if let Some(closes) = turn.closes
        && closes <= now
    {
        return Err(LifecycleError::DeadlinePassed(closes));
    }
    let parsed = turn
        .state
        .parse_orders(player_id(orders.engine_player), orders.text);
    // New orders replace everything sent before them for the turn, press included (a re-sent
    // copy of a message puts its orders back and leaves the press as it is). Checked first:
    // a set that a later one outranks changes nothing.
    if store::orders::later_orders_at(&mut *tx, turn.id, player, now)
        .await?
        .is_some()
    {
        return Err(LifecycleError::LaterOrdersStand);
    }
    let press_withdrawn = if orders.with_press {
        // Stored press up to this moment goes (a web form's press sent in the same
        // microsecond too); the message's own PRESS lines, taken after, stand.
        let stored_before = now + chrono::Duration::microseconds(1);
        open_turns
            .withdraw_before(&mut *tx, turn.id, lock, stored_before, now)
            .await?
    } else {
        0
    };
    let mut used = open_turns.press_used(&mut *tx, turn.id, lock).await?;
    let press: Vec<AdmittedPress> = if orders.with_press {
        parsed
            .press
            .iter()
            .map(|text| limits::admit_press(&mut used, &orders.press_limits, text))
            .collect()
    } else {
        Vec::new()
    };
    let printed: Vec<String> = press.iter().filter_map(|p| p.text.clone()).collect();
    // Mail is processed by several workers, so a later message may be processed first: the
    // player's lock makes the save's check for a later set and the save one step. The press
    // the orders carry is saved by the same statement.
    let answers_turn = turn.state.answers_turn(&parsed.orders);
    let saved = store::orders::save_orders(
        &mut *tx,
        &NewOrders {
            game_id: game,
            turn_id: turn.id,
            player_id: player,
            raw_text: orders.text,
            parsed: &parsed.orders,
            source: orders.source,
            answers_turn,
        },
        &printed,
        now,
    )
    .await?;
    if let SavedOrders::LaterStand(_) = saved {
        return Err(LifecycleError::LaterOrdersStand);
    }
    // A player who comes back keeps the seat: the offers made for their missed turns lapse
    // now, before a standby can take it (docs/rosters.md).
    if answers_turn {
        let lapsed = store::offers::lapse_missed_of_player(&mut *tx, player, now).await?;
        if let Some(domain) = orders.mail_domain {
            crate::offers::tell_offers_lapsed(
                &mut *tx,
                &lapsed,
                crate::offers::SeatKept::CameBack,
                now,
                domain,
            )
            .await?;
        }
    }
    open_turns.press_used.insert((turn.id, player), used);
    Ok(Taken {
        parsed,
        press,
        press_withdrawn,
    })
}

/// Whether this player row may send orders, press and messages (by mail or on the web); `Err`
/// says why not.
pub fn may_play(holder: &TokenHolder) -> Result<(), String> {
    if holder.status != PlayerStatus::Active {
        return Err(format!(
            "you are no longer playing in {} ({}).",
            holder.game_name, holder.status
        ));
    }
    match holder.game_status {
        GameStatus::Running | GameStatus::Paused => Ok(()),
        GameStatus::Finished => Err(format!("{} is over.", holder.game_name)),
        other => Err(format!("{} is not running ({other}).", holder.game_name)),
    }
}

/// Press sent on its own (a PRESS command, the web form) for the game's open turn,
/// share-locked through `open_turns`, as the press limits let it be printed: the row to save
/// (with the transaction's other press, by [`store::orders::save_press_many`] before it
/// commits), if any. The caller holds the player's lock.
#[allow(
    clippy::too_many_arguments,
    reason = "one press entry and where it goes"
)]
pub async fn press_for_open_turn(
    tx: &mut sqlx::PgConnection,
    open_turns: &mut OpenTurns,
    lock: &PlayerLock,
    now: DateTime<Utc>,
    game: GameId,
    text: &str,
    source: Source,
    limits: PressLimits,
) -> Result<PressTaken, LifecycleError> {
    let turn = open_turns
        .get(tx, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game))?;
    let mut used = open_turns.press_used(&mut *tx, turn.id, lock).await?;
    let admitted = limits::admit_press(&mut used, &limits, text);
    let player = lock.player();
    open_turns.press_used.insert((turn.id, player), used);
    let press = admitted.text.clone().map(|text| NewPress {
        game_id: game,
        turn_id: turn.id,
        player_id: player,
        text,
        source,
        received_at: now,
    });
    Ok(PressTaken { press, admitted })
}

/// Press taken for the open turn: the row to save, if any is printed, and what was admitted.
#[derive(Debug, Clone)]
pub struct PressTaken {
    pub press: Option<NewPress>,
    pub admitted: AdmittedPress,
}
