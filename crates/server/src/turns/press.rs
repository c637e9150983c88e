//! Withdrawing a player's press for the open turn (PRESS WITHDRAW by mail, the web page's
//! "Withdraw my press" and "replace my press"). New orders withdraw the press sent before them
//! too: see [`super::orders::submit_orders_in`].

use chrono::{DateTime, Utc};
use store::PgPool;
use store::games::GameId;
use store::players::TokenHolder;
use store::status::Source;
use store::subscribers::PlayerLock;

use super::LifecycleError;
use super::OpenTurns;
use super::StateCache;
use super::orders::press_for_open_turn;
use crate::config::PressLimits;
use crate::limits::AdmittedPress;

/// PRESS WITHDRAW, by mail or on the web: the player's press for the game's open turn sent
/// before `now` is withdrawn (press sent with or after it stands). Refused once orders are
/// closed. Returns how many stored entries went. The caller holds the player's lock.
pub async fn withdraw_press_in(
    tx: &mut sqlx::PgConnection,
    open_turns: &mut OpenTurns,
    lock: &PlayerLock,
    now: DateTime<Utc>,
    game: GameId,
) -> Result<u64, LifecycleError> {
    let turn = open_turns
        .get(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game))?;
    if let Some(closes) = turn.closes
        && closes <= now
    {
        return Err(LifecycleError::DeadlinePassed(closes));
    }
    open_turns
        .withdraw_before(tx, turn.id, lock, now, now)
        .await
}

/// [`withdraw_press_in`] from the web page, in a transaction of its own. Returns how many
/// entries went.
pub async fn withdraw_press(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    holder: &TokenHolder,
) -> Result<u64, LifecycleError> {
    Ok(
        withdraw_then(pool, states, now, holder, None, PressLimits::DEFAULT)
            .await?
            .0,
    )
}

/// The web form's "replace my press": the earlier press is withdrawn and `text` sent in its
/// place, in one transaction. Returns what of it is printed.
pub async fn replace_press(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    holder: &TokenHolder,
    text: &str,
    limits: PressLimits,
) -> Result<AdmittedPress, LifecycleError> {
    let (_, admitted) = withdraw_then(pool, states, now, holder, Some(text), limits).await?;
    admitted.ok_or_else(|| LifecycleError::inconsistent(holder.game_id, "press not admitted"))
}

async fn withdraw_then(
    pool: &PgPool,
    states: &StateCache,
    now: DateTime<Utc>,
    holder: &TokenHolder,
    replacement: Option<&str>,
    limits: PressLimits,
) -> Result<(u64, Option<AdmittedPress>), LifecycleError> {
    let mut tx = pool.begin().await?;
    let lock = store::subscribers::lock_player(&mut tx, holder.player_id).await?;
    let mut open_turns = OpenTurns::new(states.clone());
    // A web form is no message with press of its own: everything sent up to this moment goes
    // (the database keeps microseconds, so one more takes in press sent at `now` itself).
    let up_to_now = now + chrono::Duration::microseconds(1);
    let withdrawn =
        withdraw_press_in(&mut tx, &mut open_turns, &lock, up_to_now, holder.game_id).await?;
    let mut admitted = None;
    if let Some(text) = replacement {
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
        admitted = Some(taken.admitted);
    }
    audit_withdrawal(&mut tx, now, holder, withdrawn).await?;
    tx.commit().await?;
    Ok((withdrawn, admitted))
}

/// The audit log's record of a withdrawal (`press.withdraw`), by the player.
pub async fn audit_withdrawal(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    holder: &TokenHolder,
    withdrawn: u64,
) -> Result<(), LifecycleError> {
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: &format!("subscriber:{}", holder.subscriber_id),
            game: Some(holder.game_id),
            action: store::audit::AuditAction::PressWithdraw {
                player: holder.player_id,
                entries: withdrawn,
            },
        },
        now,
    )
    .await?;
    Ok(())
}
