//! A standby's answer to an offer (ACCEPT, DECLINE, by mail or on the player page), and the
//! offers that expire unanswered. The first to accept takes the seat
//! ([`super::handover::replace_in`]); on a decline or an expiry, where Admiralty makes the
//! offers, the seat goes to the next standby.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::audit::{AuditAction, NewAuditEntry, Via};
use store::offers::{Offer, OfferId};
use store::status::{OfferStatus, StandbyOffers};
use store::subscribers::SubscriberId;

use super::handover::{Replacement, replace_in};
use super::make::offer_to_next_standby;
use crate::entropy::OsEntropy;
use crate::letters::offers as words;
use crate::lifecycle::LifecycleError;
use crate::outbox::post::{Posting, post_letter};

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
    via: Via,
    domain: &str,
) -> Result<Answered, LifecycleError> {
    let Some(found) = store::offers::lock(&mut *tx, offer)
        .await?
        .filter(|o| o.subscriber_id == subscriber)
    else {
        return Ok(Answered::NotOpen(words::not_yours()));
    };
    if found.status != OfferStatus::Open {
        return Ok(Answered::NotOpen(words::not_open(
            &found.game_name,
            found.status,
        )));
    }
    let answering = Answering {
        offer: &found,
        actor: format!("subscriber:{}", subscriber),
        via,
        now,
        domain,
    };
    match answer {
        Answer::Accept => answering.accept(tx).await,
        Answer::Decline => answering.decline(tx).await,
    }
}

/// An open offer being answered by the subscriber it was made to.
struct Answering<'a> {
    offer: &'a Offer,
    actor: String,
    via: Via,
    now: DateTime<Utc>,
    domain: &'a str,
}

impl Answering<'_> {
    /// The standby takes the seat from the next turn, unless the game has moved on.
    async fn accept(&self, tx: &mut sqlx::PgConnection) -> Result<Answered, LifecycleError> {
        let (found, now) = (self.offer, self.now);
        store::offers::close(&mut *tx, found.id, OfferStatus::Accepted, now).await?;
        let engine_id = store::players::engine_player_id(&mut *tx, found.player_id, found.game_id)
            .await?
            .ok_or(LifecycleError::GameNotFound(found.game_id))?;
        let replacement = Replacement {
            game: found.game_id,
            player: &engine_id.to_string(),
            subscriber: found.subscriber_id,
        };
        let taken = replace_in(
            tx,
            now,
            &replacement,
            &self.actor,
            self.domain,
            &mut OsEntropy,
        )
        .await;
        let replaced = match taken {
            Ok(replaced) => replaced,
            // The game ended, or its turn is not open: the offer lapses, said in words.
            Err(
                LifecycleError::GameOver(_)
                | LifecycleError::NoOpenTurn(_)
                | LifecycleError::Roster(_),
            ) => {
                store::offers::close(&mut *tx, found.id, OfferStatus::Lapsed, now).await?;
                return Ok(Answered::NotOpen(words::not_open(
                    &found.game_name,
                    OfferStatus::Lapsed,
                )));
            }
            Err(other) => return Err(other),
        };
        // One seat each: the taker's offers of the game's other seats lapse.
        store::offers::lapse_open_to_subscriber(&mut *tx, found.game_id, found.subscriber_id, now)
            .await?;
        self.audit(
            tx,
            AuditAction::SeatAccept {
                offer: found.id,
                player: found.player_id,
                via: self.via,
            },
        )
        .await?;
        let summary = format!(
            "{} took {}'s seat in {} from turn {}.",
            replaced.new_name, replaced.old_name, found.game_name, replaced.from_turn
        );
        let notice = store::notices::NewNotice {
            kind: store::status::NoticeKind::StandbySeated,
            game: Some(found.game_id),
            summary: &summary,
            link: &format!("/gm/games/{}", found.game_id),
        };
        store::notices::record(&mut *tx, &notice, now).await?;
        Ok(Answered::Took(words::accepted(
            &found.game_name,
            &replaced.old_name,
            replaced.from_turn,
        )))
    }

    /// The standby declines; where Admiralty makes the offers, the next standby is offered
    /// the seat.
    async fn decline(&self, tx: &mut sqlx::PgConnection) -> Result<Answered, LifecycleError> {
        let (found, now) = (self.offer, self.now);
        store::offers::close(&mut *tx, found.id, OfferStatus::Declined, now).await?;
        self.audit(
            tx,
            AuditAction::SeatDecline {
                offer: found.id,
                player: found.player_id,
                via: self.via,
            },
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
                self.domain,
            )
            .await?;
        }
        let on_the_list = store::replacements::is_standby(&mut *tx, found.subscriber_id).await?;
        Ok(Answered::Declined(words::declined(
            &found.game_name,
            on_the_list,
        )))
    }

    async fn audit(
        &self,
        tx: &mut sqlx::PgConnection,
        action: AuditAction,
    ) -> Result<(), LifecycleError> {
        let entry = NewAuditEntry {
            actor: &self.actor,
            game: Some(self.offer.game_id),
            action,
        };
        store::audit::append(&mut *tx, &entry, self.now).await?;
        Ok(())
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
    let answered = answer_in(&mut tx, now, offer, subscriber, answer, Via::Web, domain).await?;
    tx.commit().await?;
    Ok(answered)
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
        let expiry = NewAuditEntry {
            actor: "system",
            game: Some(offer.game_id),
            action: AuditAction::SeatOfferExpired {
                offer: offer.id,
                player: offer.player_id,
                subscriber: offer.subscriber_id,
            },
        };
        match store::subscribers::find(&mut *tx, offer.subscriber_id).await? {
            Some(standby) => {
                let on_the_list = store::replacements::is_standby(&mut *tx, standby.id).await?;
                let letter =
                    words::expired(standby.display_name.as_str(), &offer.game_name, on_the_list);
                let told = Posting::once(
                    "offer-expired",
                    &offer.id.to_string(),
                    domain,
                    standby.email.as_str(),
                    letter,
                );
                post_letter(&mut tx, &told, Some(&expiry), now).await?;
            }
            None => {
                store::audit::append(&mut *tx, &expiry, now).await?;
            }
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
