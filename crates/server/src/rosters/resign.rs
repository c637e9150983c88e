//! A player leaves a game (RESIGN by mail, or **Resign from this game** on their game page), and
//! the GM takes a resignation back while the fleet is still in the battle (docs/rosters.md).
//!
//! A resignation takes effect at the next resolution: until then the fleet is in the battle,
//! so a resignation sent by mistake can be undone by the GM, who is the one person the player
//! can ask.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::audit::{AuditAction, NewAuditEntry};
use store::games::GameId;
use store::outbox::Headers;
use store::players::{GamePlayer, PlayerRowId, TokenHolder};
use store::status::{GameStatus, OfferReason, PlayerStatus};

use crate::letters;
use crate::offers::handover::open_game;
use crate::outbox::post::{Posting, post_letter};
use crate::turns::{self, LifecycleError};

pub use store::audit::Via;

/// Resigns the player in the caller's transaction, audited `player.resign`; where Admiralty
/// makes the offers, the seat goes to a standby. `false` when the player was no longer active
/// (nothing changed).
pub(crate) async fn resign_in(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    player: PlayerRowId,
    via: Via,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<bool, LifecycleError> {
    if !store::players::change_status(
        &mut *tx,
        player,
        PlayerStatus::Active,
        PlayerStatus::Resigned,
    )
    .await?
    {
        return Ok(false);
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: via.as_str(),
            game: Some(game),
            action: store::audit::AuditAction::Resign { player, via },
        },
        now,
    )
    .await?;
    crate::offers::seat_left(tx, game, player, OfferReason::Resigned, now, domain).await?;
    Ok(true)
}

/// The player's own resignation from their game page: refused in words unless they play the
/// game and it goes on.
pub async fn resign_from_web(
    pool: &PgPool,
    now: DateTime<Utc>,
    holder: &TokenHolder,
    domain: &str,
) -> Result<(), LifecycleError> {
    if holder.game_status == GameStatus::Finished {
        return Err(LifecycleError::GameOver(holder.game_id));
    }
    let mut tx = pool.begin().await?;
    if !resign_in(
        &mut tx,
        holder.game_id,
        holder.player_id,
        Via::Web,
        now,
        domain,
    )
    .await?
    {
        return Err(LifecycleError::Roster(format!(
            "you no longer play in {}: there is nothing to resign",
            holder.game_name
        )));
    }
    tx.commit().await?;
    Ok(())
}

/// The resigned player whose resignation can still be taken back: still subscribed, and with
/// a fleet still in the battle. `Err` says why not.
async fn seat_to_take_back(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    game_name: &str,
    player: PlayerRowId,
) -> Result<GamePlayer, LifecycleError> {
    let refused = |why: String| LifecycleError::Roster(why);
    let seat = store::players::of_game(&mut *tx, game)
        .await?
        .into_iter()
        .find(|p| p.id == player)
        .ok_or_else(|| refused(format!("{game_name} has no such player")))?;
    if seat.status != PlayerStatus::Resigned {
        return Err(refused(format!(
            "{} has not resigned from {game_name} (they are {})",
            seat.display_name, seat.status
        )));
    }
    // Only players whose subscription is active are listed here.
    let subscribed = store::players::player_rows_of_game(&mut *tx, game)
        .await?
        .iter()
        .any(|holder| holder.player_id == player);
    if !subscribed {
        return Err(refused(format!(
            "{}'s subscription has ended: subscribe them again before taking them back",
            seat.display_name
        )));
    }
    let state = turns::game_state(&mut *tx, game).await?;
    if !state.expects_orders(turns::player_id(seat.engine_player_id)) {
        return Err(refused(format!(
            "{}'s fleet has left {game_name} (a turn resolved since the resignation, or it was \
             sunk): there is no seat to take back",
            seat.display_name
        )));
    }
    Ok(seat)
}

/// The GM takes back a player's resignation before their fleet leaves the battle (it leaves
/// at the next resolution): the player is active again with the same reply address, the open
/// offers of the seat lapse, and the player is told by mail. Audited `player.reinstate`.
pub async fn reinstate(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    player: PlayerRowId,
    actor: &str,
    domain: &str,
) -> Result<String, LifecycleError> {
    let mut tx = pool.begin().await?;
    let summary = open_game(&mut tx, game).await?;
    let seat = seat_to_take_back(&mut tx, game, &summary.name, player).await?;
    if !store::players::change_status(
        &mut *tx,
        player,
        PlayerStatus::Resigned,
        PlayerStatus::Active,
    )
    .await?
    {
        return Err(LifecycleError::Roster(format!(
            "{}'s seat changed hands meanwhile; look at the game's page again",
            seat.display_name
        )));
    }
    let lapsed = store::offers::lapse_open_of_player(&mut tx, player, now).await?;
    crate::offers::tell_offers_lapsed(
        &mut tx,
        &lapsed,
        crate::offers::SeatKept::Reinstated,
        now,
        domain,
    )
    .await?;
    let zone = summary.schedule.zone();
    let deadline = summary.deadline.map(|at| letters::deadline(at, zone));
    let letter =
        letters::replacements::reinstated(&seat.display_name, &summary.name, deadline.as_deref());
    let told = Posting::once(
        "reinstated",
        &format!("{game}|{player}|{}", now.timestamp()),
        domain,
        &seat.email,
        letter,
    )
    .with_headers(Headers::reply_to(letters::reply_address(
        &seat.reply_token,
        domain,
    )));
    let reinstated = NewAuditEntry {
        actor,
        game: Some(game),
        action: AuditAction::Reinstate {
            player,
            offers_lapsed: lapsed.len(),
        },
    };
    post_letter(&mut tx, &told, Some(&reinstated), now).await?;
    tx.commit().await?;
    Ok(format!(
        "{} is back in {}, with the same reply address; they are told by mail",
        seat.display_name, summary.name
    ))
}
