//! Commands for a game the sender plays: press, its withdrawal, the position, the orders in,
//! resigning.

use engine::Viewer;
use store::players::TokenHolder;
use store::status::Source;

use super::Context;
use crate::letters::replies;
use crate::turns::{self, LifecycleError};

/// The player row, if it may play now.
pub(super) fn playing(holder: &TokenHolder) -> Result<&TokenHolder, String> {
    turns::may_play(holder).map(|()| holder)
}
/// PRESS: press for the open turn, within the press limits.
pub(super) async fn press(
    cx: &mut Context<'_, '_>,
    line: usize,
    holder: &TokenHolder,
    text: &str,
) -> Result<String, LifecycleError> {
    let lock = sender_lock(cx, holder).await?;
    let limits = cx.settings.limits.press;
    match turns::press_for_open_turn(
        cx.tx,
        &mut cx.batch.open_turns,
        &lock,
        cx.received,
        holder.game_id,
        text,
        Source::Email,
        limits,
    )
    .await
    {
        Ok(taken) => {
            cx.batch.press.extend(taken.press);
            Ok(replies::press(
                &holder.game_name,
                text,
                &taken.admitted,
                &limits,
            ))
        }
        Err(error @ LifecycleError::NoOpenTurn(_)) => Ok(replies::line_refused(
            line,
            Some("press not accepted"),
            &error,
        )),
        Err(error) => Err(error),
    }
}
/// PRESS WITHDRAW: the press sent in earlier messages for the turn goes; this message's stands.
pub(super) async fn withdraw_press(
    cx: &mut Context<'_, '_>,
    line: usize,
    holder: &TokenHolder,
) -> Result<String, LifecycleError> {
    let lock = sender_lock(cx, holder).await?;
    match turns::withdraw_press_in(
        cx.tx,
        &mut cx.batch.open_turns,
        &lock,
        cx.received,
        holder.game_id,
    )
    .await
    {
        Ok(withdrawn) => {
            turns::audit_withdrawal(cx.tx, cx.now, holder, withdrawn).await?;
            Ok(replies::press_withdrawn(line, &holder.game_name, withdrawn))
        }
        Err(error @ (LifecycleError::NoOpenTurn(_) | LifecycleError::DeadlinePassed(_))) => Ok(
            replies::line_refused(line, Some("press not withdrawn"), &error),
        ),
        Err(error) => Err(error),
    }
}
/// POSITION: what the player may see of the game now.
pub(super) async fn position(
    cx: &mut Context<'_, '_>,
    holder: &TokenHolder,
) -> Result<String, LifecycleError> {
    let state = turns::game_state(&mut *cx.tx, holder.game_id).await?;
    let me = turns::player_id(holder.engine_player_id);
    Ok(replies::position(
        &holder.game_name,
        &state.view(Viewer::Player(me)).lines,
    ))
}
/// RESIGN: the player leaves the game.
pub(super) async fn resign(
    cx: &mut Context<'_, '_>,
    holder: &TokenHolder,
) -> Result<String, LifecycleError> {
    crate::rosters::resign::resign_in(
        &mut *cx.tx,
        holder.game_id,
        holder.player_id,
        crate::rosters::resign::Via::Mail,
        cx.now,
        &cx.settings.domain,
    )
    .await?;
    // The batch's player rows read before no longer say who plays.
    cx.batch.holders_by_token.clear();
    Ok(replies::resigned(&holder.game_name))
}

/// STATUS: the orders the player has in for the open turn.
pub(super) async fn status(
    cx: &mut Context<'_, '_>,
    holder: &TokenHolder,
) -> Result<String, LifecycleError> {
    let current =
        store::orders::current_raw_orders(&mut *cx.tx, holder.game_id, holder.player_id).await?;
    Ok(replies::status(holder, current.as_deref()))
}

/// The lock of the player's subscriber: the batch's, or taken now.
async fn sender_lock(
    cx: &mut Context<'_, '_>,
    holder: &TokenHolder,
) -> Result<store::subscribers::PlayerLock, LifecycleError> {
    Ok(
        match cx
            .batch
            .senders
            .player(holder.player_id, holder.subscriber_id)
        {
            Some(lock) => lock,
            None => store::subscribers::lock_player(&mut *cx.tx, holder.player_id).await?,
        },
    )
}
