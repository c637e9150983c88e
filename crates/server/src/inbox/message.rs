//! One message of a batch: dropped, refused or acted on, and its answer put with the batch's
//! replies.

use chrono::{DateTime, Utc};
use mail::{Delivery, Reading};
use store::audit::AuditAction;
use store::games::GameId;
use store::inbox::Claimed;
use store::status::Budget;

use super::batch::{Batch, Reply};
use super::identify::{self, Sender};
use super::{Settings, act, copies};
use crate::letters::{self, Letter};
use crate::turns::LifecycleError;

/// What was done with a message processed without error.
pub(super) enum Outcome {
    /// Nothing sent: a loop or bulk mail, or unreadable. The reason is kept.
    Dropped(String),
    /// Answered, nothing acted on (mail that proved no sender).
    Answered,
    /// Acted on for a subscriber, who wrote this text (its SHA-256).
    Acted {
        subscriber: store::subscribers::SubscriberId,
        text: [u8; 32],
    },
}

/// Processes one message: unreadable, automated or unanswerable mail is dropped, mail that
/// proves no sender is refused, and a sender's commands are acted on and confirmed.
pub(super) async fn process(
    tx: &mut sqlx::PgConnection,
    batch: &mut Batch,
    claimed: &Claimed,
    reading: Result<&Reading, &mail::MailError>,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Result<Outcome, LifecycleError> {
    let domain = settings.domain.as_str();
    if let Some(taken) = bounce(tx, claimed, reading, now, settings).await? {
        return Ok(Outcome::Dropped(taken));
    }
    let reading = match reading {
        Ok(reading) => reading,
        Err(error) => return Ok(Outcome::Dropped(format!("unreadable: {error}"))),
    };
    if let Delivery::Automated(reason) = &reading.delivery {
        return drop_message(tx, reading, reason.to_string(), now).await;
    }
    // Its From domain disowns it (DMARC fails under p=reject or p=quarantine): answering would
    // mail whoever was forged, and a PASSWORD line from a sender the domain says is not theirs
    // proves nothing. The reply address's token is a secret of its own, so orders sent to it
    // are kept (a forwarder that breaks DKIM loses no orders), but never answered.
    let disowned = claimed
        .auth
        .filter(store::inbox::MailAuth::forged_by_policy)
        .map(|auth| auth.dmarc_policy.map_or("", |p| p.as_str()));
    let Some(from) = reading.mail.from.as_ref().map(|m| m.address.clone()) else {
        return Ok(Outcome::Dropped("no From address to answer".into()));
    };
    let sender = match (
        identify::identify(tx, batch, reading, &from, now, domain).await?,
        disowned,
    ) {
        (Ok(sender), None) => sender,
        (Ok(sender), Some(_)) if sender.proof == identify::Proof::ReplyToken => sender,
        (_, Some(policy)) => {
            let reason = format!(
                "fails DMARC, and its From domain publishes p={policy}: not answered, nothing in it acted on (a PASSWORD line from it proves nothing)"
            );
            return drop_message(tx, reading, reason, now).await;
        }
        (Err(why), None) => {
            return refuse_unproven(tx, batch, reading, &from, &why, now, settings).await;
        }
    };
    let text = copies::text_sha256(reading);
    let copy_of = earlier_copy(tx, batch, claimed, reading, &sender, &text, now).await?;
    let letter = act::act(
        tx,
        batch,
        reading,
        &sender,
        act::Arrival {
            received: claimed.received_at,
            copy_of,
        },
        now,
        settings,
    )
    .await?;
    match disowned {
        None => confirm(batch, reading, &sender, letter, domain),
        Some(policy) => {
            let action = AuditAction::InboundUnanswered {
                message_id: reading.mail.message_id.clone(),
                reason: format!(
                    "fails DMARC, and its From domain publishes p={policy}: acted on for the reply address's holder, not answered"
                ),
            };
            audit(tx, None, action, now).await?;
        }
    }
    Ok(Outcome::Acted {
        subscriber: sender.subscriber,
        text,
    })
}

/// A bounce or a complaint (crate::bounces), by any door: taken, never answered, never read as
/// orders. Only mail to a return path or a `multipart/report` is read as one.
async fn bounce(
    tx: &mut sqlx::PgConnection,
    claimed: &Claimed,
    reading: Result<&Reading, &mail::MailError>,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Result<Option<String>, LifecycleError> {
    let mut addresses = claimed.envelope_recipients.clone();
    let mut report = false;
    let mut message_id = None;
    if let Ok(reading) = reading {
        let mail = &reading.mail;
        addresses.extend(mail.to.iter().chain(&mail.cc).map(|m| m.address.clone()));
        addresses.extend(mail.delivered_to.iter().cloned());
        report = mail.content_type.eq_ignore_ascii_case("multipart/report");
        message_id = mail.message_id.as_deref();
    }
    if !report && !addresses.iter().any(|a| mail::verp::is_return_path(a)) {
        return Ok(None);
    }
    crate::bounces::take(
        tx,
        &claimed.raw,
        &addresses,
        message_id,
        now,
        &settings.limits.bounces,
        &settings.domain,
    )
    .await
}

/// Drops a message unanswered, auditing why.
async fn drop_message(
    tx: &mut sqlx::PgConnection,
    reading: &Reading,
    reason: String,
    now: DateTime<Utc>,
) -> Result<Outcome, LifecycleError> {
    let action = AuditAction::InboundDrop {
        message_id: reading.mail.message_id.clone(),
        reason: reason.clone(),
    };
    audit(tx, None, action, now).await?;
    Ok(Outcome::Dropped(reason))
}

/// Answers mail that proves no sender: a From: header alone authorises nothing, so the answer
/// says briefly how to authenticate. Mail that claims to come from Admiralty itself, or from a
/// mail system, is a forgery or a loop, and is not answered at all.
async fn refuse_unproven(
    tx: &mut sqlx::PgConnection,
    batch: &mut Batch,
    reading: &Reading,
    from: &str,
    why: &str,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Result<Outcome, LifecycleError> {
    if mail::address::MailboxKey::parse(from)
        .is_none_or(|key| settings.unanswerable().contains(&key))
    {
        let reason = format!("proves no sender, and {from} is never answered");
        return drop_message(tx, reading, reason, now).await;
    }
    let domain = settings.domain.as_str();
    let reply = Reply {
        budget: Budget::Refusal,
        to: from,
        holder: None,
        letter: letters::replies::refusal(why, domain),
    };
    batch.queue_reply(reading, reply, domain);
    Ok(Outcome::Answered)
}

/// When a message that would repeat what it did is a copy of one already acted on, audits it
/// and returns when the earlier one arrived.
async fn earlier_copy(
    tx: &mut sqlx::PgConnection,
    batch: &Batch,
    claimed: &Claimed,
    reading: &Reading,
    sender: &Sender,
    text: &[u8; 32],
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, LifecycleError> {
    if !copies::would_repeat(reading) {
        return Ok(None);
    }
    let earlier = copies::earlier_copy(
        tx,
        batch,
        claimed.id,
        sender.subscriber,
        text,
        claimed.received_at,
    )
    .await?;
    let Some((earlier, at)) = earlier else {
        return Ok(None);
    };
    let action = AuditAction::InboundCopy {
        message_id: reading.mail.message_id.clone(),
        copy_of: earlier,
        subscriber: sender.subscriber,
    };
    audit(tx, sender.default.as_ref().map(|h| h.game_id), action, now).await?;
    Ok(Some(at))
}

/// Puts the confirmation of what a sender's message did with the batch's replies.
fn confirm(batch: &mut Batch, reading: &Reading, sender: &Sender, letter: Letter, domain: &str) {
    // After UNSUBSCRIBE the personal addresses are dead: the answer carries none.
    let unsubscribed = reading
        .commands
        .any(|command| matches!(command, mail::commands::Command::Unsubscribe));
    let reply = Reply {
        budget: Budget::Reply,
        to: &sender.email,
        holder: (!unsubscribed)
            .then(|| sender.default.as_ref().or(sender.games.first()))
            .flatten(),
        letter,
    };
    batch.queue_reply(reading, reply, domain);
}

/// Audits what mail did, as the actor `mail`.
pub(super) async fn audit(
    tx: &mut sqlx::PgConnection,
    game: Option<GameId>,
    action: AuditAction,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "mail",
            game,
            action,
        },
        now,
    )
    .await?;
    Ok(())
}
