//! A player leaves a game (RESIGN by mail, or **Resign from this game** on their game page), and
//! the GM takes a resignation back while the fleet is still in the battle (docs/rosters.md).
//!
//! A resignation takes effect at the next resolution: until then the fleet is in the battle,
//! so a resignation sent by mistake can be undone by the GM, who is the one person the player
//! can ask.

use chrono::{DateTime, Utc};
use serde_json::json;
use store::PgPool;
use store::games::GameId;
use store::outbox::{Headers, NewOutbound};
use store::players::{PlayerRowId, TokenHolder};
use store::status::{GameStatus, OfferReason, PlayerStatus};

use crate::letters;
use crate::turns::{self, LifecycleError};

/// Where a resignation came from, for the audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Mail,
    Web,
}

impl Via {
    fn as_str(self) -> &'static str {
        match self {
            Self::Mail => "mail",
            Self::Web => "web",
        }
    }
}

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
            action: "player.resign",
            game_id: Some(game.0),
            details: json!({ "player": player.0, "via": via.as_str() }),
        },
        now,
    )
    .await?;
    turns::missed::seat_left(tx, game, player, OfferReason::Resigned, now, domain).await?;
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
        return Err(LifecycleError::GameOver(holder.game_id.0));
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
    let refused = |why: String| LifecycleError::Roster(why);
    let mut tx = pool.begin().await?;
    let summary = super::open_game(&mut tx, game).await?;
    let seat = store::players::of_game(&mut *tx, game)
        .await?
        .into_iter()
        .find(|p| p.id == player)
        .ok_or_else(|| refused(format!("{} has no such player", summary.name)))?;
    if seat.status != PlayerStatus::Resigned {
        return Err(refused(format!(
            "{} has not resigned from {} (they are {})",
            seat.display_name, summary.name, seat.status
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
            "{}'s fleet has left {} (a turn resolved since the resignation, or it was sunk): \
             there is no seat to take back",
            seat.display_name, summary.name
        )));
    }
    if !store::players::change_status(
        &mut *tx,
        player,
        PlayerStatus::Resigned,
        PlayerStatus::Active,
    )
    .await?
    {
        return Err(refused(format!(
            "{}'s seat changed hands meanwhile; look at the game's page again",
            seat.display_name
        )));
    }
    let lapsed = store::offers::lapse_open_of_player(&mut tx, player, now).await?;
    turns::missed::tell_offers_lapsed(
        &mut tx,
        &lapsed,
        turns::missed::SeatKept::Reinstated,
        now,
        domain,
    )
    .await?;
    let zone = crate::schedule::zone_of(&summary.schedule);
    let deadline = summary.deadline.map(|at| letters::deadline(at, zone));
    let (key, message_id) = letters::queued_ids(
        "reinstated",
        &format!("{}|{}|{}", game.0, player.0, now.timestamp()),
        domain,
    );
    store::outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: &seat.email,
            subject: &format!("{}: you are back in the game", summary.name),
            body_text: &letters::replacements::reinstated(
                &seat.display_name,
                &summary.name,
                deadline.as_deref(),
            ),
            body_html: None,
            headers: &Headers::reply_to(letters::reply_address(&seat.reply_token, domain)),
        },
        now,
    )
    .await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "player.reinstate",
            game_id: Some(game.0),
            details: json!({ "player": player.0, "offers_lapsed": lapsed.len() }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(format!(
        "{} is back in {}, with the same reply address; they are told by mail",
        seat.display_name, summary.name
    ))
}
