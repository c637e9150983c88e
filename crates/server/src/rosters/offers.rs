//! Missed turns and offers of seats to standbys (issue 18 item 3). A turn that resolves
//! without a player's orders (while they still have something to order and are not excused
//! as absent) adds to their run of missed turns; at the game's limit (the engine's default
//! unless the GM set one) the seat is flagged on the GM's page. The GM offers a flagged or
//! resigned seat to a standby, or, where the GM chose it, Admiralty offers it to the
//! longest-waiting standby itself, and to the next on a decline. The first to ACCEPT takes the
//! seat as a replacement ([`super::replace::replace_in`]).

use chrono::{DateTime, Utc};
use games::EngineKind;
use serde_json::json;
use store::PgPool;
use store::games::GameId;
use store::offers::{MissedPolicy, Offer, OfferId};
use store::outbox::{Headers, NewOutbound};
use store::players::PlayerRowId;
use store::status::{
    GameStatus, OfferReason, OfferStatus, PlayerStatus, StandbyOffers, SubscriberStatus,
};
use store::subscribers::SubscriberId;

use super::replace::{Replacement, replace_in};
use crate::entropy::OsEntropy;
use crate::letters::{self, offers as words};
use crate::turns::LifecycleError;
use crate::turns::missed::{limit, offer_in, offer_to_next_standby};

/// The longest an offer may stand (`games.offer_days`).
pub const MAX_OFFER_DAYS: u32 = 14;

/// Why a seat wants a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Resigned,
    Missed {
        turns: u32,
        limit: u32,
    },
    /// Still playing, but the GM offered the seat (the offer stands until withdrawn).
    OfferedByGm,
}

/// A seat of a running game that wants a player, with the offers made of it that are open.
#[derive(Debug, Clone)]
pub struct WantedSeat {
    pub player: PlayerRowId,
    pub name: String,
    pub want: Want,
    pub offers: Vec<Offer>,
}

/// The game's seats that want a player, in engine order: resigned, at their missed-turns
/// limit, or offered by the GM. None in a finished game or one whose seats are never handed
/// over.
pub async fn wanted_seats(pool: &PgPool, game: GameId) -> Result<Vec<WantedSeat>, LifecycleError> {
    let Some(summary) = store::games::summary(pool, game).await? else {
        return Ok(Vec::new());
    };
    let engine: EngineKind = summary.engine.parse()?;
    let policy = store::offers::policy(pool, game).await?;
    let Some(limit) = limit(engine, policy) else {
        return Ok(Vec::new());
    };
    if summary.status == GameStatus::Finished {
        return Ok(Vec::new());
    }
    let open = store::offers::open_of_game(pool, game).await?;
    // Only seats still in the battle: a resigned player's fleet leaves at the next resolution,
    // and a fleet sunk or wiped out has nothing left to hand on.
    let state = crate::turns::game_state(pool, game).await?;
    let mut wanted = Vec::new();
    for player in store::players::of_game(pool, game).await? {
        if !state.expects_orders(crate::turns::player_id(player.engine_player_id)) {
            continue;
        }
        let missed = u32::try_from(player.missed_turns).unwrap_or(0);
        let want = match player.status {
            PlayerStatus::Resigned => Want::Resigned,
            PlayerStatus::Active if missed >= limit => Want::Missed {
                turns: missed,
                limit,
            },
            PlayerStatus::Active if open.iter().any(|offer| offer.player_id == player.id) => {
                Want::OfferedByGm
            }
            _ => continue,
        };
        wanted.push(WantedSeat {
            player: player.id,
            name: player.display_name,
            want,
            offers: open
                .iter()
                .filter(|offer| offer.player_id == player.id)
                .cloned()
                .collect(),
        });
    }
    Ok(wanted)
}

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
    let summary = super::open_game(&mut tx, game).await?;
    let engine: EngineKind = summary.engine.parse()?;
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
    let state = crate::turns::game_state(&mut *tx, game).await?;
    if !state.expects_orders(crate::turns::player_id(wanted.engine_player_id)) {
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
                subscriber.0
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

/// A standby's answer to an offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Accept,
    Decline,
}

/// What came of an answer to an offer, with the words that say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    /// The standby took the seat.
    Took(String),
    Declined(String),
    /// The offer was not open (or not theirs): nothing changed.
    NotOpen(String),
}

impl Answered {
    pub fn words(&self) -> &str {
        match self {
            Answered::Took(words) | Answered::Declined(words) | Answered::NotOpen(words) => words,
        }
    }
}

/// Carries out `subscriber`'s answer to the offer, in the caller's transaction. An offer that is
/// not theirs is answered as if it did not exist.
pub(crate) async fn answer_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    offer: OfferId,
    subscriber: SubscriberId,
    answer: Answer,
    via: &str,
    domain: &str,
) -> Result<Answered, LifecycleError> {
    let Some(found) = store::offers::lock(&mut *tx, offer)
        .await?
        .filter(|o| o.subscriber_id == subscriber)
    else {
        return Ok(Answered::NotOpen(
            "No seat is offered to you there; nothing was changed.".to_owned(),
        ));
    };
    if found.status != OfferStatus::Open {
        return Ok(Answered::NotOpen(words::not_open(
            &found.game_name,
            found.status,
        )));
    }
    let actor = format!("subscriber:{}", subscriber.0);
    match answer {
        Answer::Accept => {
            store::offers::close(&mut *tx, offer, OfferStatus::Accepted, now).await?;
            let engine_id =
                store::players::engine_player_id(&mut *tx, found.player_id, found.game_id)
                    .await?
                    .ok_or(LifecycleError::GameNotFound(found.game_id.0))?;
            let replaced = match replace_in(
                tx,
                now,
                &Replacement {
                    game: found.game_id,
                    player: &engine_id.to_string(),
                    subscriber,
                },
                &actor,
                domain,
                &mut OsEntropy,
            )
            .await
            {
                Ok(replaced) => replaced,
                // The game ended, or its turn is not open: the offer lapses, said in words.
                Err(
                    LifecycleError::GameOver(_)
                    | LifecycleError::NoOpenTurn(_)
                    | LifecycleError::Roster(_),
                ) => {
                    store::offers::close(&mut *tx, offer, OfferStatus::Lapsed, now).await?;
                    return Ok(Answered::NotOpen(words::not_open(
                        &found.game_name,
                        OfferStatus::Lapsed,
                    )));
                }
                Err(other) => return Err(other),
            };
            // One seat each: the taker's offers of the game's other seats lapse.
            store::offers::lapse_open_to_subscriber(&mut *tx, found.game_id, subscriber, now)
                .await?;
            store::audit::append(
                &mut *tx,
                &store::audit::NewAuditEntry {
                    actor: &actor,
                    action: "seat.accept",
                    game_id: Some(found.game_id.0),
                    details: json!({ "offer": offer.0, "player": found.player_id.0, "via": via }),
                },
                now,
            )
            .await?;
            Ok(Answered::Took(words::accepted(
                &found.game_name,
                &replaced.old_name,
                replaced.from_turn,
            )))
        }
        Answer::Decline => {
            store::offers::close(&mut *tx, offer, OfferStatus::Declined, now).await?;
            store::audit::append(
                &mut *tx,
                &store::audit::NewAuditEntry {
                    actor: &actor,
                    action: "seat.decline",
                    game_id: Some(found.game_id.0),
                    details: json!({ "offer": offer.0, "player": found.player_id.0, "via": via }),
                },
                now,
            )
            .await?;
            let policy = store::offers::policy(&mut *tx, found.game_id).await?;
            if policy.offers == StandbyOffers::Automatic {
                offer_to_next_standby(
                    tx,
                    found.game_id,
                    found.player_id,
                    found.reason,
                    now,
                    domain,
                )
                .await?;
            }
            let on_the_list = store::replacements::is_standby(&mut *tx, subscriber).await?;
            Ok(Answered::Declined(words::declined(
                &found.game_name,
                on_the_list,
            )))
        }
    }
}

/// [`answer_in`] in a transaction of its own (the player pages).
pub async fn answer(
    pool: &PgPool,
    now: DateTime<Utc>,
    offer: OfferId,
    subscriber: SubscriberId,
    answer: Answer,
    domain: &str,
) -> Result<Answered, LifecycleError> {
    let mut tx = pool.begin().await?;
    let answered = answer_in(&mut tx, now, offer, subscriber, answer, "web", domain).await?;
    tx.commit().await?;
    Ok(answered)
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
    if let Some(standby) = store::subscribers::find(&mut *tx, found.subscriber_id).await? {
        let on_the_list = store::replacements::is_standby(&mut *tx, standby.id).await?;
        let (key, message_id) =
            letters::queued_ids("offer-withdrawn", &format!("{}", offer.0), domain);
        store::outbox::enqueue(
            &mut *tx,
            &NewOutbound {
                message_id: &message_id,
                idempotency_key: &key,
                to_address: standby.email.as_str(),
                subject: &format!("{}: the offer of a seat is withdrawn", found.game_name),
                body_text: &words::withdrawn(
                    standby.display_name.as_str(),
                    &found.game_name,
                    on_the_list,
                ),
                body_html: None,
                headers: &Headers::default(),
            },
            now,
        )
        .await?;
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "seat.withdraw",
            game_id: Some(game.0),
            details: json!({ "offer": offer.0, "player": found.player_id.0 }),
        },
        now,
    )
    .await?;
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
        .ok_or(LifecycleError::GameNotFound(game.0))?;
    if summary
        .engine
        .parse::<EngineKind>()?
        .missed_turns_limit()
        .is_none()
    {
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
            action: "game.missed_turns",
            game_id: Some(game.0),
            details: json!({
                "limit": policy.limit, "offers": policy.offers, "offer_days": policy.offer_days,
            }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
