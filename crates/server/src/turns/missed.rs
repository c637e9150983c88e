//! Missed turns (issue 18 item 3): a turn that resolves without a player's orders (while they
//! still have something to order and are not excused as absent) adds to their run of missed
//! turns; at the game's limit (the engine's default unless the GM set one) the seat wants a
//! player. Where Admiralty makes the offers, it offers such a seat, or a resigned player's, to
//! the longest-waiting standby itself. The GM's side and the standby's answers are in
//! `crate::rosters::offers`.

use chrono::{DateTime, Utc};
use engine::TurnInput;
use games::{AnyOrders, AnyState, EngineKind};
use serde_json::json;
use store::StoreError;
use store::games::{GameId, GameSummary};
use store::offers::{MissedPolicy, NewOffer, OfferId};
use store::outbox::{Headers, NewOutbound};
use store::players::{GamePlayer, PlayerRowId};
use store::status::{GameStatus, OfferReason, PlayerStatus, StandbyOffers};
use store::subscribers::SubscriberId;

use super::LifecycleError;
use crate::entropy::{OsEntropy, new_reply_token};
use crate::letters::{self, offers as words};

/// The limit that holds for a game: the GM's, else the engine's default; `None` where seats are
/// never handed over (Barmy, BARMY-02).
pub fn limit(engine: EngineKind, policy: MissedPolicy) -> Option<u32> {
    engine.missed_turns_limit()?;
    policy.limit.or_else(|| engine.missed_turns_limit())
}

/// Who missed a turn and who ordered, read before it resolves.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    missed: Vec<PlayerRowId>,
    ordered: Vec<PlayerRowId>,
}

/// Reads the turn about to resolve: a player who still has something to order, played this
/// turn and is not excused as absent either ordered (a set that answers the turn) or missed it.
pub(crate) fn tally(
    players: &[GamePlayer],
    state: &AnyState,
    input: &TurnInput<AnyOrders>,
) -> Tally {
    let number = i32::try_from(state.turn()).unwrap_or(i32::MAX);
    let mut tally = Tally::default();
    for player in players {
        let id = super::player_id(player.engine_player_id);
        if player.status != PlayerStatus::Active
            || player.joined_turn > number
            || !state.expects_orders(id)
        {
            continue;
        }
        match input.orders.get(&id) {
            Some(orders) if state.answers_turn(orders) => tally.ordered.push(player.id),
            _ if input.excused.contains(&id) => {}
            _ => tally.missed.push(player.id),
        }
    }
    tally
}

/// Counts a resolved turn (after the next one opened): runs of missed turns grow or start
/// again. A player reaching the limit is recorded (`player.missed_limit`), and offered to a
/// standby when Admiralty makes the offers; a player who orders again lets the offers made for
/// their missed turns lapse. `domain` is `None` when the resolution mails nothing (the demo).
pub(crate) async fn count_turn(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    engine: EngineKind,
    tally: &Tally,
    turn: u32,
    now: DateTime<Utc>,
    domain: Option<&str>,
) -> Result<(), LifecycleError> {
    store::offers::lapse_missed_of_players(&mut *tx, &tally.ordered, now).await?;
    // A resigned player's fleet left the game with this turn (as the rules treat a player who
    // leaves): no seat is left to offer.
    store::offers::lapse_open_of_departed(&mut *tx, game, now).await?;
    let counts = store::offers::count_turn(&mut *tx, &tally.missed, &tally.ordered).await?;
    let policy = store::offers::policy(&mut *tx, game).await?;
    // A game this turn ended has no seat to hand on.
    let over = store::games::summary(&mut *tx, game)
        .await?
        .is_none_or(|summary| summary.status == GameStatus::Finished);
    if over {
        store::offers::lapse_open_of_game(&mut *tx, game, now).await?;
    }
    let Some(limit) = limit(engine, policy) else {
        return Ok(());
    };
    for (player, count) in counts {
        if u32::try_from(count).ok() != Some(limit) {
            continue;
        }
        store::audit::append(
            &mut *tx,
            &store::audit::NewAuditEntry {
                actor: "system",
                action: "player.missed_limit",
                game_id: Some(game.0),
                details: json!({ "player": player.0, "missed": count, "limit": limit, "turn": turn }),
            },
            now,
        )
        .await?;
        let Some(domain) = domain.filter(|_| !over) else {
            continue;
        };
        warn_the_player(tx, game, player, count, turn, now, domain).await?;
        if policy.offers == StandbyOffers::Automatic {
            offer_to_next_standby(tx, game, player, OfferReason::Missed, now, domain).await?;
        }
    }
    Ok(())
}

/// Tells a player who reached the limit that their seat may now go to a standby, and how to
/// keep it: order for the open turn.
async fn warn_the_player(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    player: PlayerRowId,
    missed: i32,
    turn: u32,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let Some(summary) = store::games::summary(&mut *tx, game).await? else {
        return Ok(());
    };
    let Some(holder) = store::players::of_game(&mut *tx, game)
        .await?
        .into_iter()
        .find(|p| p.id == player)
    else {
        return Ok(());
    };
    let zone = crate::schedule::zone_of(&summary.schedule);
    let next = summary.deadline.map(|at| letters::deadline(at, zone));
    let (key, message_id) =
        letters::queued_ids("missed", &format!("{}|{}|{turn}", game.0, player.0), domain);
    store::outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: &holder.email,
            subject: &format!(
                "{}: you have missed {} in a row",
                summary.name,
                words::turns(missed)
            ),
            body_text: &words::missed_limit(
                &holder.display_name,
                &summary.name,
                missed,
                next.as_deref(),
            ),
            body_html: None,
            headers: &Headers::reply_to(letters::reply_address(&holder.reply_token, domain)),
        },
        now,
    )
    .await?;
    Ok(())
}

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
    let engine: EngineKind = summary.engine.parse()?;
    let policy = store::offers::policy(&mut *tx, game).await?;
    if limit(engine, policy).is_some() && policy.offers == StandbyOffers::Automatic {
        offer_to_next_standby(tx, game, player, reason, now, domain).await?;
    }
    Ok(())
}

/// Why the open offers of a seat lapsed, for the standbys' letters.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SeatKept<'a> {
    /// Its player ordered again.
    CameBack,
    /// The GM took its player's resignation back.
    Reinstated,
    /// Someone else took it.
    TakenBy(&'a str),
}

/// Tells each standby whose offer of a seat lapsed, and why.
pub(crate) async fn tell_offers_lapsed(
    tx: &mut sqlx::PgConnection,
    lapsed: &[store::offers::Offer],
    why: SeatKept<'_>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    for offer in lapsed {
        let Some(standby) = store::subscribers::find(&mut *tx, offer.subscriber_id).await? else {
            continue;
        };
        let on_the_list = store::replacements::is_standby(&mut *tx, standby.id).await?;
        let what = match why {
            SeatKept::CameBack => format!(
                "{} has sent orders for {} again, so they keep their seat",
                offer.holder_name, offer.game_name
            ),
            SeatKept::Reinstated => format!(
                "the GM has taken back {}'s resignation from {}, so they keep their seat",
                offer.holder_name, offer.game_name
            ),
            SeatKept::TakenBy(taker) => format!(
                "{taker} has taken {}'s seat in {}",
                offer.holder_name, offer.game_name
            ),
        };
        let (key, message_id) =
            letters::queued_ids("offer-lapsed", &offer.id.0.to_string(), domain);
        store::outbox::enqueue(
            &mut *tx,
            &NewOutbound {
                message_id: &message_id,
                idempotency_key: &key,
                to_address: standby.email.as_str(),
                subject: &format!("{}: the seat is no longer offered", offer.game_name),
                body_text: &words::no_longer_offered(
                    standby.display_name.as_str(),
                    &what,
                    on_the_list,
                ),
                body_html: None,
                headers: &Headers::default(),
            },
            now,
        )
        .await?;
    }
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
            &store::audit::NewAuditEntry {
                actor: "system",
                action: "seat.no_time",
                game_id: Some(game.0),
                details: json!({ "player": player.0, "reason": reason }),
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
            &store::audit::NewAuditEntry {
                actor: "system",
                action: "seat.no_standby",
                game_id: Some(game.0),
                details: json!({ "player": player.0, "reason": reason }),
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
        .ok_or(LifecycleError::GameNotFound(game.id.0))?;
    let standby = store::subscribers::find(&mut *tx, subscriber)
        .await?
        .ok_or_else(|| {
            LifecycleError::Roster(format!("there is no subscriber {}", subscriber.0))
        })?;
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
    let engine: EngineKind = game.engine.parse()?;
    let seat = seat_name_of(&mut *tx, game, holder.engine_player_id).await?;
    let zone = crate::schedule::zone_of(&game.schedule);
    let deadline = game.deadline.map(|at| letters::deadline(at, zone));
    let answer_by = letters::deadline(expires_at, zone);
    let why = words::why_free(reason, &holder.display_name, Some(holder.missed_turns));
    let body = words::offer(&words::OfferLetter {
        name: standby.display_name.as_str(),
        game: &game.name,
        rules: engine.title(),
        seat: seat.as_deref(),
        why: &why,
        turn: game
            .open_turn
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1),
        deadline: deadline.as_deref(),
        answer_by: &answer_by,
    });
    let (key, message_id) = letters::queued_ids("offer", &token, domain);
    let headers = Headers {
        reply_to: Some(letters::reply_address(&token, domain)),
        ..Headers::default()
    };
    store::outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: standby.email.as_str(),
            subject: &format!("{}: a seat is offered to you", game.name),
            body_text: &body,
            body_html: None,
            headers: &headers,
        },
        now,
    )
    .await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "seat.offer",
            game_id: Some(game.id.0),
            details: json!({ "offer": offer.0, "player": player.0, "subscriber": subscriber.0,
                "reason": reason }),
        },
        now,
    )
    .await?;
    Ok(offer)
}

/// The named seat (an ironclad side, a skyfleet fleet) of the game's player with this engine
/// id, where the engine names seats.
async fn seat_name_of(
    db: &mut sqlx::PgConnection,
    game: &store::games::GameSummary,
    engine_player_id: i64,
) -> Result<Option<String>, StoreError> {
    let Some(plan) = game
        .engine
        .parse::<EngineKind>()
        .ok()
        .and_then(|engine| engine.seat_plan(&game.setup).ok())
    else {
        return Ok(None);
    };
    Ok(store::players::roster(&mut *db, game.id)
        .await?
        .into_iter()
        .find(|row| row.engine_player_id == engine_player_id)
        .and_then(|row| row.seat)
        .and_then(|seat| usize::try_from(seat).ok())
        .and_then(|seat| plan.seat_name(seat).map(str::to_owned)))
}

/// Expires the offers unanswered in time (each game's `offer_days`): each standby is told, and where
/// Admiralty makes the offers the seat goes to the next standby. Returns how many expired.
pub async fn expire_offers(
    pool: &store::PgPool,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<usize, LifecycleError> {
    let mut tx = pool.begin().await?;
    let expired = store::offers::expire_due(&mut tx, now).await?;
    for offer in &expired {
        store::audit::append(
            &mut *tx,
            &store::audit::NewAuditEntry {
                actor: "system",
                action: "seat.offer_expired",
                game_id: Some(offer.game_id.0),
                details: json!({ "offer": offer.id.0, "player": offer.player_id.0,
                    "subscriber": offer.subscriber_id.0 }),
            },
            now,
        )
        .await?;
        if let Some(standby) = store::subscribers::find(&mut *tx, offer.subscriber_id).await? {
            let on_the_list = store::replacements::is_standby(&mut *tx, standby.id).await?;
            let (key, message_id) =
                letters::queued_ids("offer-expired", &offer.id.0.to_string(), domain);
            store::outbox::enqueue(
                &mut *tx,
                &NewOutbound {
                    message_id: &message_id,
                    idempotency_key: &key,
                    to_address: standby.email.as_str(),
                    subject: &format!("{}: the offer of a seat expired", offer.game_name),
                    body_text: &words::expired(
                        standby.display_name.as_str(),
                        &offer.game_name,
                        on_the_list,
                    ),
                    body_html: None,
                    headers: &Headers::default(),
                },
                now,
            )
            .await?;
        }
        let policy = store::offers::policy(&mut *tx, offer.game_id).await?;
        if policy.offers == StandbyOffers::Automatic {
            offer_to_next_standby(
                &mut tx,
                offer.game_id,
                offer.player_id,
                offer.reason,
                now,
                domain,
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(expired.len())
}
