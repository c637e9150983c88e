//! Making an offer of a seat: to a standby the GM chose, or, where Admiralty makes the offers,
//! to the longest-waiting standby not asked yet; how long it stands; the letter that makes it.

use chrono::{DateTime, Utc};
use store::StoreError;
use store::audit::{AuditAction, NewAuditEntry};
use store::games::{GameId, GameSummary};
use store::offers::{NewOffer, OfferId};
use store::outbox::Headers;
use store::players::{GamePlayer, PlayerRowId};
use store::status::{GameStatus, OfferReason, PlayerStatus, StandbyOffers};
use store::subscribers::SubscriberId;

use super::limit;
use crate::entropy::{OsEntropy, new_reply_token};
use crate::letters::{self, offers as words};
use crate::lifecycle::LifecycleError;
use crate::outbox::post::{Posting, post_letter};

/// A player left the seat (RESIGN, UNSUBSCRIBE, or a subscription the GM ended): where
/// Admiralty makes the offers, the seat is offered to the longest-waiting standby.
pub(crate) async fn seat_left(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    player: PlayerRowId,
    reason: OfferReason,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let Some(summary) = store::games::summary(&mut *tx, game).await? else {
        return Ok(());
    };
    let policy = store::offers::policy(&mut *tx, game).await?;
    let handed_on = limit(summary.engine, policy).is_some();
    tell_the_gm(tx, &summary, player, handed_on, now).await?;
    if handed_on && policy.offers == StandbyOffers::Automatic {
        offer_to_next_standby(tx, game, player, reason, now, domain).await?;
    }
    Ok(())
}

/// Records for the GM's digest that a player left their seat.
async fn tell_the_gm(
    tx: &mut sqlx::PgConnection,
    game: &GameSummary,
    player: PlayerRowId,
    handed_on: bool,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let name = store::players::name_of(&mut *tx, player)
        .await?
        .unwrap_or_else(|| format!("player {player}"));
    let what = if handed_on {
        "the seat wants a player"
    } else {
        "the fleet leaves at the next resolution"
    };
    let summary = format!("{name} left {} (resigned): {what}.", game.name);
    let notice = store::notices::NewNotice {
        kind: store::status::NoticeKind::SeatWanted,
        game: Some(game.id),
        summary: &summary,
        link: &format!("/gm/games/{}#standby-heading", game.id),
    };
    store::notices::record(&mut *tx, &notice, now).await?;
    Ok(())
}

/// Offers the seat to the longest-waiting standby not yet asked for it; records when there is
/// none, for the GM.
pub(crate) async fn offer_to_next_standby(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    player: PlayerRowId,
    reason: OfferReason,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Option<OfferId>, LifecycleError> {
    let Some(summary) = store::games::summary(&mut *tx, game).await? else {
        return Ok(None);
    };
    if summary.open_turn.is_none() || summary.status == GameStatus::Finished {
        return Ok(None);
    }
    if answer_by(tx, &summary, player, now).await?.is_none() {
        // The turn resolves within the hour, and the fleet leaves with it.
        store::audit::append(
            &mut *tx,
            &NewAuditEntry {
                actor: "system",
                game: Some(game),
                action: AuditAction::SeatNoTime { player, reason },
            },
            now,
        )
        .await?;
        return Ok(None);
    }
    // Not one asked for this seat before, nor one holding an offer of another seat here.
    let mut asked = store::offers::asked_already(&mut *tx, player).await?;
    asked.extend(store::offers::holders_of_open_offers(&mut *tx, game).await?);
    let next = store::replacements::standbys_for_game(&mut *tx, summary.zine_id, game)
        .await?
        .into_iter()
        .find(|standby| !asked.contains(&standby.subscriber_id));
    let Some(standby) = next else {
        store::audit::append(
            &mut *tx,
            &NewAuditEntry {
                actor: "system",
                game: Some(game),
                action: AuditAction::SeatNoStandby { player, reason },
            },
            now,
        )
        .await?;
        return Ok(None);
    };
    let offered = offer_in(
        tx,
        now,
        &summary,
        player,
        standby.subscriber_id,
        reason,
        "system",
        domain,
    )
    .await?;
    Ok(Some(offered))
}

/// The least time a standby is given to answer: an offer that would stand less is not made.
const LEAST_TIME_TO_ANSWER: chrono::Duration = chrono::Duration::hours(1);

/// Until when an offer of the seat made now stands: the game's days to answer
/// (`games.offer_days`), and, where the seat's player has left, no later than the running
/// turn's deadline, when their fleet leaves the game (as the rules treat a player who leaves).
/// A paused turn does not resolve, so its deadline does not cut the time. `None` when that
/// leaves under [`LEAST_TIME_TO_ANSWER`].
async fn answer_by(
    tx: &mut sqlx::PgConnection,
    game: &GameSummary,
    player: PlayerRowId,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, LifecycleError> {
    let stands = chrono::Duration::days(i64::from(
        store::offers::policy(&mut *tx, game.id).await?.offer_days,
    ));
    let left = store::players::of_game(&mut *tx, game.id)
        .await?
        .iter()
        .any(|p| p.id == player && p.status != PlayerStatus::Active);
    let until = match game.deadline {
        Some(deadline) if left && game.status == GameStatus::Running => deadline.min(now + stands),
        _ => now + stands,
    };
    Ok((until - now >= LEAST_TIME_TO_ANSWER).then_some(until))
}

/// Records the offer and mails it to the subscriber, audited as `actor`'s.
#[allow(clippy::too_many_arguments, reason = "one offer's parts, all needed")]
pub(crate) async fn offer_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    game: &GameSummary,
    player: PlayerRowId,
    subscriber: SubscriberId,
    reason: OfferReason,
    actor: &str,
    domain: &str,
) -> Result<OfferId, LifecycleError> {
    let holder: GamePlayer = store::players::of_game(&mut *tx, game.id)
        .await?
        .into_iter()
        .find(|p| p.id == player)
        .ok_or(LifecycleError::GameNotFound(game.id))?;
    let standby = store::subscribers::find(&mut *tx, subscriber)
        .await?
        .ok_or_else(|| LifecycleError::Roster(format!("there is no subscriber {subscriber}")))?;
    let Some(expires_at) = answer_by(tx, game, player, now).await? else {
        return Err(LifecycleError::Roster(format!(
            "{}'s fleet leaves {} when the open turn resolves, within the hour: there is no time \
             left to offer the seat",
            holder.display_name, game.name
        )));
    };
    let token = new_reply_token(&mut OsEntropy);
    let Some(offer) = store::offers::insert(
        &mut *tx,
        &NewOffer {
            game_id: game.id,
            player,
            subscriber,
            token: &token,
            reason,
            offered_by: actor,
            expires_at,
        },
        now,
    )
    .await?
    else {
        return Err(LifecycleError::Roster(format!(
            "{} has an open offer of that seat already",
            standby.display_name.as_str()
        )));
    };
    let seat = seat_name_of(&mut *tx, game, holder.engine_player_id).await?;
    let zone = game.schedule.zone();
    let deadline = game.deadline.map(|at| letters::deadline(at, zone));
    let answer_by = letters::deadline(expires_at, zone);
    let why = words::why_free(reason, &holder.display_name, Some(holder.missed_turns));
    let letter = words::offer(&words::OfferLetter {
        name: standby.display_name.as_str(),
        game: &game.name,
        rules: game.engine.title(),
        seat: seat.as_deref(),
        why: &why,
        turn: game
            .open_turn
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1),
        deadline: deadline.as_deref(),
        answer_by: &answer_by,
    });
    let offered = Posting::once("offer", &token, domain, standby.email.as_str(), letter)
        .with_headers(Headers::reply_to(letters::reply_address(&token, domain)));
    let made = NewAuditEntry {
        actor,
        game: Some(game.id),
        action: AuditAction::SeatOffer {
            offer,
            player,
            subscriber,
            reason,
        },
    };
    post_letter(tx, &offered, Some(&made), now).await?;
    Ok(offer)
}

/// The named seat (an ironclad side, a skyfleet fleet) of the game's player with this engine
/// id, where the engine names seats.
async fn seat_name_of(
    db: &mut sqlx::PgConnection,
    game: &store::games::GameSummary,
    engine_player_id: i64,
) -> Result<Option<String>, StoreError> {
    let plan = game.setup.seat_plan();
    Ok(store::players::roster(&mut *db, game.id)
        .await?
        .into_iter()
        .find(|row| row.engine_player_id == engine_player_id)
        .and_then(|row| row.seat)
        .and_then(|seat| usize::try_from(seat).ok())
        .and_then(|seat| plan.seat_name(seat).map(str::to_owned)))
}
