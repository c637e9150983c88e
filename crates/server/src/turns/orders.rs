//! Taking orders and press for a game's open turn, by mail or on the web.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use engine::ParsedOrders;
use games::AnyOrders;
use store::PgPool;
use store::games::GameId;
use store::orders::{NewOrders, NewPress, SavedOrders};
use store::players::{PlayerRowId, TokenHolder};
use store::status::{GameStatus, PlayerStatus, Source};
use store::subscribers::PlayerLock;

use super::{LifecycleError, OpenTurn, OpenTurns, StateCache, player_id};
use crate::config::PressLimits;
use crate::limits::{self, AdmittedPress};

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

/// The web form's orders, taken by the same check and the same policy as mail's
/// ([`submit_orders_in`]): the lines read as orders stand, each refused line is reported with
/// what its absence means, and a set with no line read as an order changes nothing
/// ([`Taken::stored`]). One verdict whichever door the orders came through (issue 27).
pub async fn submit_web_orders(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    holder: &TokenHolder,
    text: &str,
    press_limits: PressLimits,
    mail_domain: &str,
) -> Result<Taken, LifecycleError> {
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
        Ok(taken) => {
            tx.commit().await?;
            Ok(taken)
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
    // Back and a reload give the form a fresh once key: the same text from the same player
    // for the same turn is that press again, not a second entry (issue 27).
    let sent =
        store::orders::open_turn_press_of_player(&mut *tx, holder.game_id, lock.player()).await?;
    if sent.iter().any(|earlier| earlier.trim() == text.trim()) {
        return Err(LifecycleError::PressAlreadySent);
    }
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
    /// Whether the set became the player's current set. A reading with no line read as an
    /// order (only chat, sign-offs, press or refused lines: `Engine::answers`) is not stored:
    /// the set on file stands, and the turn is not answered (issue 27).
    pub stored: bool,
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
    let turn = turn_taking_orders(&mut *tx, open_turns, game, now).await?;
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
    if !turn.state.answers(&parsed) {
        let press =
            keep_press_alone(&mut *tx, open_turns, lock, &turn, orders, &parsed, now).await?;
        return Ok(Taken {
            parsed,
            press,
            press_withdrawn: 0,
            stored: false,
        });
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
    let answers_turn = save(&mut *tx, &turn, player, orders, &parsed, &press, now).await?;
    if answers_turn {
        keep_the_seat(&mut *tx, player, now, orders.mail_domain).await?;
    }
    open_turns.keep_press_used(turn.id, player, used);
    Ok(Taken {
        parsed,
        press,
        press_withdrawn,
        stored: true,
    })
}

/// The press written with a set that is not stored: kept as press sent on its own would be
/// (nothing the player wrote is lost), withdrawing nothing.
async fn keep_press_alone(
    tx: &mut sqlx::PgConnection,
    open_turns: &mut OpenTurns,
    lock: &PlayerLock,
    turn: &OpenTurn,
    orders: &Submission<'_>,
    parsed: &ParsedOrders<AnyOrders>,
    now: DateTime<Utc>,
) -> Result<Vec<AdmittedPress>, LifecycleError> {
    if !orders.with_press || parsed.press.is_empty() {
        return Ok(Vec::new());
    }
    let player = lock.player();
    let mut used = open_turns.press_used(&mut *tx, turn.id, lock).await?;
    let mut admitted = Vec::new();
    let mut rows = Vec::new();
    for text in &parsed.press {
        let verdict = limits::admit_press(&mut used, &orders.press_limits, text);
        rows.extend(verdict.text.clone().map(|text| NewPress {
            game_id: orders.game,
            turn_id: turn.id,
            player_id: player,
            text,
            source: orders.source,
            received_at: now,
        }));
        admitted.push(verdict);
    }
    open_turns.keep_press_used(turn.id, player, used);
    store::orders::save_press_many(&mut *tx, &rows).await?;
    Ok(admitted)
}

/// The game's open turn, if it still takes orders. The turn row is only share-locked, so that
/// other players' orders go in parallel while resolution, which locks it for update, waits.
async fn turn_taking_orders(
    tx: &mut sqlx::PgConnection,
    open_turns: &mut OpenTurns,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<Arc<OpenTurn>, LifecycleError> {
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
    Ok(turn)
}

/// Saves the orders with the press they print; returns whether they answer the turn (more
/// than an empty set).
async fn save(
    tx: &mut sqlx::PgConnection,
    turn: &OpenTurn,
    player: PlayerRowId,
    orders: &Submission<'_>,
    parsed: &ParsedOrders<AnyOrders>,
    press: &[AdmittedPress],
    now: DateTime<Utc>,
) -> Result<bool, LifecycleError> {
    let printed: Vec<String> = press.iter().filter_map(|p| p.text.clone()).collect();
    // Mail is processed by several workers, so a later message may be processed first: the
    // player's lock makes the save's check for a later set and the save one step. The press
    // the orders carry is saved by the same statement.
    let answers_turn = turn.state.answers(parsed);
    let saved = store::orders::save_orders(
        &mut *tx,
        &NewOrders {
            game_id: orders.game,
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
    Ok(answers_turn)
}

/// A player who comes back keeps the seat: the offers made for their missed turns lapse now,
/// before a standby can take it (docs/rosters.md), and the standbys are told when a domain is
/// given.
async fn keep_the_seat(
    tx: &mut sqlx::PgConnection,
    player: PlayerRowId,
    now: DateTime<Utc>,
    mail_domain: Option<&str>,
) -> Result<(), LifecycleError> {
    let lapsed = store::offers::lapse_missed_of_player(&mut *tx, player, now).await?;
    if let Some(domain) = mail_domain {
        crate::offers::tell_offers_lapsed(
            &mut *tx,
            &lapsed,
            crate::offers::SeatKept::CameBack,
            now,
            domain,
        )
        .await?;
    }
    Ok(())
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
    open_turns.keep_press_used(turn.id, player, used);
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
