//! The GM's side of offers: offering a seat (a resigned player's, one at the missed-turns
//! limit, or one whose player still plays), taking an offer back, and each game's policy.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::audit::{AuditAction, NewAuditEntry};
use store::games::GameId;
use store::offers::{MissedPolicy, OfferId};
use store::players::PlayerRowId;
use store::status::{OfferReason, OfferStatus, PlayerStatus, SubscriberStatus};
use store::subscribers::SubscriberId;

use super::handover::open_game;
use super::make::offer_in;
use super::{MAX_OFFER_DAYS, limit};
use crate::letters::offers as words;
use crate::lifecycle::{self, LifecycleError};
use crate::outbox::post::{Posting, post_letter};

/// The GM offers a seat of the game to an active subscriber of the zine who does not play it.
#[allow(clippy::too_many_arguments, reason = "one offer's parts, all needed")]
pub async fn offer_seat(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    player: PlayerRowId,
    subscriber: SubscriberId,
    actor: &str,
    domain: &str,
) -> Result<String, LifecycleError> {
    let mut tx = pool.begin().await?;
    let summary = open_game(&mut tx, game).await?;
    let engine = summary.engine;
    if engine.missed_turns_limit().is_none() {
        return Err(LifecycleError::Roster(format!(
            "every subscriber plays {} (Barmy): no seat is handed over",
            summary.name
        )));
    }
    let wanted = store::players::of_game(&mut *tx, game)
        .await?
        .into_iter()
        .find(|p| p.id == player && p.status != PlayerStatus::Excluded)
        .ok_or_else(|| LifecycleError::Roster(format!("{} has no such player", summary.name)))?;
    let state = lifecycle::game_state(&mut *tx, game).await?;
    if !state.expects_orders(lifecycle::player_id(wanted.engine_player_id)) {
        return Err(LifecycleError::Roster(format!(
            "{}'s fleet is out of {} (it left the game or was sunk): there is no seat to offer",
            wanted.display_name, summary.name
        )));
    }
    let policy = store::offers::policy(&mut *tx, game).await?;
    let at_limit = limit(engine, policy)
        .is_some_and(|limit| u32::try_from(wanted.missed_turns).unwrap_or(0) >= limit);
    let reason = match wanted.status {
        PlayerStatus::Resigned => OfferReason::Resigned,
        _ if at_limit => OfferReason::Missed,
        _ => OfferReason::Gm,
    };
    let newcomer = store::subscribers::find(&mut *tx, subscriber)
        .await?
        .filter(|s| s.zine_id == summary.zine_id && s.status == SubscriberStatus::Active)
        .ok_or_else(|| {
            LifecycleError::Roster(format!(
                "subscriber {} is not an active subscriber of this zine",
                subscriber
            ))
        })?;
    let seats = store::players::of_game(&mut *tx, game).await?;
    if store::players::rows_of_subscriber(&mut *tx, subscriber)
        .await?
        .iter()
        .any(|row| seats.iter().any(|p| p.id == *row))
    {
        return Err(LifecycleError::Roster(format!(
            "{} already plays in {}",
            newcomer.display_name.as_str(),
            summary.name
        )));
    }
    offer_in(
        &mut tx, now, &summary, player, subscriber, reason, actor, domain,
    )
    .await?;
    tx.commit().await?;
    Ok(format!(
        "{}'s seat in {} is offered to {}: they have been mailed, and take the seat when they accept.",
        wanted.display_name,
        summary.name,
        newcomer.display_name.as_str()
    ))
}

/// The GM takes back an open offer of the game; the subscriber is told.
pub async fn withdraw(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    offer: OfferId,
    actor: &str,
    domain: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    let found = store::offers::lock(&mut tx, offer)
        .await?
        .filter(|o| o.game_id == game && o.status == OfferStatus::Open)
        .ok_or_else(|| LifecycleError::Roster("that offer is not open".into()))?;
    store::offers::close(&mut *tx, offer, OfferStatus::Withdrawn, now).await?;
    let withdrawal = NewAuditEntry {
        actor,
        game: Some(game),
        action: AuditAction::SeatWithdraw {
            offer,
            player: found.player_id,
        },
    };
    match store::subscribers::find(&mut *tx, found.subscriber_id).await? {
        Some(standby) => {
            let on_the_list = store::replacements::is_standby(&mut *tx, standby.id).await?;
            let letter =
                words::withdrawn(standby.display_name.as_str(), &found.game_name, on_the_list);
            let told = Posting::once(
                "offer-withdrawn",
                &offer.to_string(),
                domain,
                standby.email.as_str(),
                letter,
            );
            post_letter(&mut tx, &told, Some(&withdrawal), now).await?;
        }
        None => {
            store::audit::append(&mut *tx, &withdrawal, now).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// Sets the game's missed-turns limit (`None`: the engine's default), who offers seats and how
/// many days an offer stands, audited.
pub async fn set_policy(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    policy: MissedPolicy,
    actor: &str,
) -> Result<(), LifecycleError> {
    if let Some(limit) = policy.limit
        && !(1..=20).contains(&limit)
    {
        return Err(LifecycleError::Roster(format!(
            "the missed-turns limit is 1 to 20 turns, not {limit}"
        )));
    }
    if !(1..=MAX_OFFER_DAYS).contains(&policy.offer_days) {
        return Err(LifecycleError::Roster(format!(
            "an offer stands 1 to {MAX_OFFER_DAYS} days, not {}",
            policy.offer_days
        )));
    }
    let mut tx = pool.begin().await?;
    let summary = store::games::summary(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    if summary.engine.missed_turns_limit().is_none() {
        return Err(LifecycleError::Roster(format!(
            "every subscriber plays {} (Barmy): its seats are never handed over, so it has no \
             missed-turns limit or offers (a missed turn costs the BARMY-17 penalty)",
            summary.name
        )));
    }
    store::offers::set_policy(&mut *tx, game, policy).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: Some(game),
            action: AuditAction::MissedTurns {
                limit: policy.limit,
                offers: policy.offers,
                offer_days: policy.offer_days,
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
