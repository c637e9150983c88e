//! Bounces and complaints (issue 29 item 4; docs/mail.md#bounces). Every outgoing message's
//! return path is `bounces+TAG@DOMAIN` (mail::verp, signed with a key kept in the database);
//! a report that comes back to one, by any door, is read (mail::bounce), matched to the
//! message and its failed recipient, and scored against the mailbox (Mailman's rules,
//! [`BounceRules`]). At the threshold delivery to the mailbox is suspended: the outbox skips
//! it, the GM is told, and the subscriber's pages say so with a resume button. An ARF complaint
//! unsubscribes at once. Bounces are never answered and never read as orders.

use chrono::{DateTime, Duration, Utc};
use mail::bounce::{Report, Severity};
use mail::verp::{self, TagKey};
use store::audit::{AuditAction, NewAuditEntry, Via};
use store::bounces::BounceScore;
use store::status::{NoticeKind, SubscriberStatus};
use store::subscribers::Subscriber;
use store::{PgPool, StoreError};

use crate::config::BounceRules;
use crate::entropy::{Entropy, OsEntropy};
use crate::turns::LifecycleError;

/// The error a message to a suspended address is marked failed with.
pub const SUSPENDED_ERROR: &str = "not sent: delivery to this address is suspended after bounces (resume it on the subscriber's page)";

/// The key that signs return paths: the stored one, made now if there is none.
pub async fn tag_key(pool: &PgPool, now: DateTime<Utc>) -> Result<TagKey, StoreError> {
    let mut db = pool.acquire().await?;
    tag_key_in(&mut db, now).await
}

async fn tag_key_in(db: &mut sqlx::PgConnection, now: DateTime<Utc>) -> Result<TagKey, StoreError> {
    let fresh = OsEntropy.secret();
    Ok(TagKey::new(store::bounces::tag_key(db, fresh, now).await?))
}

/// What became of a message taken as a bounce or complaint, for the inbox's record.
pub(crate) type Taken = String;

/// Takes `raw` if it is a bounce or a complaint: scored, or refused as forged, never answered
/// and never acted on as orders. `None`: not ours to take (the inbox goes on as before).
/// `addresses` are the envelope recipients and the headers' recipients.
pub(crate) async fn take(
    tx: &mut sqlx::PgConnection,
    raw: &[u8],
    addresses: &[String],
    message_id: Option<&str>,
    now: DateTime<Utc>,
    rules: &BounceRules,
    domain: &str,
) -> Result<Option<Taken>, LifecycleError> {
    let report = mail::bounce::read(raw);
    if let Some(Report::Complaint(complaint)) = &report {
        return complaint_taken(tx, complaint, message_id, now, domain)
            .await
            .map(Some);
    }
    if !addresses.iter().any(|a| verp::is_return_path(a)) {
        return Ok(None);
    }
    let key = tag_key_in(tx, now).await?;
    let outbound =
        match verp::find_tag(addresses.iter().map(String::as_str)).and_then(|t| key.verify(&t)) {
            Some(id) => match id.to_string().parse() {
                Ok(id) => store::bounces::outbound(&mut *tx, id).await?,
                Err(_) => None,
            },
            None => {
                return Ok(Some(
                    "mail to a return path whose tag is forged or missing: not scored".into(),
                ));
            }
        };
    let Some((sent_id, sent_to)) = outbound else {
        return Ok(Some(
            "mail to a return path naming no message: not scored".into(),
        ));
    };
    let Some(Report::Bounce { format, recipients }) = report else {
        return Ok(Some(
            "mail to a return path that is no delivery report (an auto-reply?): not scored".into(),
        ));
    };
    let mut said = Vec::new();
    for recipient in &recipients {
        let Some(address) = sent_to_recipient(tx, recipient, &sent_id, &sent_to).await? else {
            said.push(format!(
                "{} was not a recipient of {sent_id}",
                recipient.final_recipient
            ));
            continue;
        };
        let reason = match (&recipient.status, &recipient.diagnostic) {
            (_, Some(diagnostic)) => diagnostic.clone(),
            (Some(status), None) => status.clone(),
            (None, None) => format!("{format:?} bounce"),
        };
        let hard = recipient.severity == Severity::Hard;
        let (score, scored) = score(tx, &address, hard, &reason, now, rules).await?;
        let action = AuditAction::Bounce {
            message_id: message_id.map(str::to_owned),
            mailbox: address.to_lowercase(),
            status: recipient.status.clone(),
            hard,
            scored,
            score,
        };
        audit(tx, "mail", action, now).await?;
        said.push(format!("{address}: score {score}"));
    }
    if said.is_empty() {
        said.push("no failed recipient".into());
    }
    Ok(Some(format!(
        "bounce ({format:?}) for {sent_id}: {}",
        said.join("; ")
    )))
}

/// The address a failed recipient names, if the message was sent to it: Original-Recipient
/// when given, else Final-Recipient. A circular's copies share the Message-ID, so any of them
/// counts; an address it was not sent to is not scored (a report cannot score a stranger).
async fn sent_to_recipient(
    tx: &mut sqlx::PgConnection,
    recipient: &mail::bounce::Recipient,
    sent_id: &str,
    sent_to: &str,
) -> Result<Option<String>, LifecycleError> {
    let candidates = [
        recipient.original_recipient.as_deref(),
        Some(recipient.final_recipient.as_str()),
    ];
    for address in candidates.into_iter().flatten() {
        if address.eq_ignore_ascii_case(sent_to)
            || store::bounces::was_sent_to(&mut *tx, sent_id, address).await?
        {
            return Ok(Some(address.to_owned()));
        }
    }
    Ok(None)
}

/// Scores one bounce against `address`'s mailbox; suspends it at the threshold (auditing it
/// and telling the GMs of its zines). Returns the score and whether this bounce counted.
async fn score(
    tx: &mut sqlx::PgConnection,
    address: &str,
    hard: bool,
    reason: &str,
    now: DateTime<Utc>,
    rules: &BounceRules,
) -> Result<(f64, bool), LifecycleError> {
    let before = store::bounces::lock_score(tx, address).await?;
    let (after, counted) = next_score(before.as_ref(), address, hard, reason, now, rules);
    let newly =
        after.suspended_at.is_some() && before.as_ref().is_none_or(|b| b.suspended_at.is_none());
    store::bounces::put_score(tx, &after).await?;
    if newly {
        let why = after.suspended_reason.clone().unwrap_or_default();
        for subscription in store::bounces::subscriptions_of(&mut *tx, address).await? {
            let action = AuditAction::BounceSuspend {
                subscriber: subscription.subscriber,
                email: subscription.email.clone(),
                score: after.score,
                reason: why.clone(),
            };
            audit(tx, "mail", action, now).await?;
            let summary = format!(
                "Delivery to {} ({}) is suspended after bounces: {why}",
                subscription.email, subscription.slug
            );
            let link = format!("/gm/subscribers/{}", subscription.subscriber);
            let notice = store::notices::NewNotice {
                kind: NoticeKind::MailFailed,
                game: None,
                summary: &summary,
                link: &link,
            };
            store::notices::record(&mut *tx, &notice, now).await?;
        }
    }
    Ok((after.score, counted))
}

/// Mailman's rules: a mailbox whose last bounce is older than the reset starts again from
/// nothing; at most one bounce counts within `once_per_hours`; hard and soft bounces count
/// their points; at `suspend_at` delivery is suspended. A suspended mailbox's further bounces
/// are recorded and not scored.
pub fn next_score(
    before: Option<&BounceScore>,
    address: &str,
    hard: bool,
    reason: &str,
    now: DateTime<Utc>,
    rules: &BounceRules,
) -> (BounceScore, bool) {
    let mut score = before.cloned().unwrap_or_else(|| BounceScore {
        mailbox: address.to_lowercase(),
        score: 0.0,
        last_scored_at: None,
        last_bounce_at: now,
        last_reason: String::new(),
        reports: 0,
        suspended_at: None,
        suspended_reason: None,
    });
    let reset = Duration::days(i64::from(rules.reset_days));
    if before.is_some() && score.suspended_at.is_none() && now - score.last_bounce_at >= reset {
        score.score = 0.0;
        score.last_scored_at = None;
    }
    score.reports = score.reports.saturating_add(1);
    score.last_bounce_at = now;
    score.last_reason = reason.chars().take(300).collect();
    if score.suspended_at.is_some() {
        return (score, false);
    }
    let window = Duration::hours(i64::from(rules.once_per_hours));
    if score.last_scored_at.is_some_and(|at| now - at < window) {
        return (score, false);
    }
    score.score += if hard {
        rules.hard_score
    } else {
        rules.soft_score
    };
    score.last_scored_at = Some(now);
    if score.score >= rules.suspend_at {
        score.suspended_at = Some(now);
        score.suspended_reason = Some(format!(
            "bounce score {} reached {}; last: {}",
            score.score, rules.suspend_at, score.last_reason
        ));
    }
    (score, true)
}

/// An ARF complaint: the complaining subscriber is unsubscribed at once, through the usual
/// unsubscribe path. The subscriber is named by the reported message's signed return path and
/// its recipient (Original-Rcpt-To, or the reported To), so a forged report cannot
/// unsubscribe anyone.
async fn complaint_taken(
    tx: &mut sqlx::PgConnection,
    complaint: &mail::bounce::Complaint,
    message_id: Option<&str>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<Taken, LifecycleError> {
    if complaint.feedback_type == "not-spam" {
        return Ok("feedback report (not-spam): nothing to do".into());
    }
    let key = tag_key_in(tx, now).await?;
    let paths = complaint
        .original_mail_from
        .iter()
        .cloned()
        .chain(header_addresses(
            &complaint.reported_headers,
            &["return-path"],
        ))
        .collect::<Vec<_>>();
    let tagged = verp::find_tag(paths.iter().map(String::as_str)).and_then(|t| key.verify(&t));
    let Some(id) = tagged.and_then(|id| id.to_string().parse().ok()) else {
        return Ok("complaint without a valid return path: not acted on".into());
    };
    let Some((sent_id, sent_to)) = store::bounces::outbound(&mut *tx, id).await? else {
        return Ok("complaint naming no message: not acted on".into());
    };
    let mut recipients = complaint.original_rcpt_to.clone();
    recipients.extend(header_addresses(&complaint.reported_headers, &["to"]));
    recipients.push(sent_to);
    let mut done = Vec::new();
    for address in recipients {
        if !store::bounces::was_sent_to(&mut *tx, &sent_id, &address).await? {
            continue;
        }
        for subscription in store::bounces::subscriptions_of(&mut *tx, &address).await? {
            let Some(subscriber) =
                store::subscribers::find(&mut *tx, subscription.subscriber).await?
            else {
                continue;
            };
            unsubscribe(
                tx,
                &subscriber,
                &complaint.feedback_type,
                message_id,
                now,
                domain,
            )
            .await?;
            done.push(subscriber.email.to_string());
        }
        if !done.is_empty() {
            break;
        }
    }
    Ok(if done.is_empty() {
        "complaint: no active subscriber to unsubscribe".into()
    } else {
        format!(
            "complaint ({}): unsubscribed {}",
            complaint.feedback_type,
            done.join(", ")
        )
    })
}

async fn unsubscribe(
    tx: &mut sqlx::PgConnection,
    subscriber: &Subscriber,
    feedback_type: &str,
    message_id: Option<&str>,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<(), LifecycleError> {
    let action = AuditAction::Complaint {
        message_id: message_id.map(str::to_owned),
        subscriber: subscriber.id,
        feedback_type: feedback_type.to_owned(),
    };
    audit(tx, "mail", action, now).await?;
    crate::subscriptions::set_status_in(
        tx,
        now,
        subscriber,
        SubscriberStatus::Unsubscribed,
        "mail (complaint)",
        domain,
    )
    .await
}

/// The addresses of the named header fields in a block of header text.
fn header_addresses(headers: &str, names: &[&str]) -> Vec<String> {
    headers
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(name, _)| names.iter().any(|n| name.trim().eq_ignore_ascii_case(n)))
        .flat_map(|(_, value)| {
            value
                .split([',', ' ', '<', '>'])
                .filter(|w| w.contains('@'))
                .map(|w| w.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Delivery to `subscriber`'s address resumes and its score starts again; audited.
pub async fn resume(
    pool: &PgPool,
    subscriber: &Subscriber,
    actor: &str,
    via: Via,
    now: DateTime<Utc>,
) -> Result<bool, LifecycleError> {
    let mut tx = pool.begin().await?;
    let was = store::bounces::resume(&mut *tx, subscriber.email.as_str()).await?;
    if was {
        let action = AuditAction::BounceResume {
            subscriber: subscriber.id,
            email: subscriber.email.clone(),
            via,
        };
        audit(&mut tx, actor, action, now).await?;
    }
    tx.commit().await?;
    Ok(was)
}

/// The zine's subscribers whose address has bounced, for the console and `gm zine SLUG bounces`.
pub async fn of_zine(
    pool: &PgPool,
    zine: store::zines::ZineId,
) -> Result<Vec<store::bounces::SubscriberBounces>, StoreError> {
    store::bounces::of_zine(pool, zine).await
}

/// One subscriber's bounce record, if their address has bounced.
pub async fn of_subscriber(
    pool: &PgPool,
    subscriber: store::subscribers::SubscriberId,
) -> Result<Option<store::bounces::SubscriberBounces>, StoreError> {
    store::bounces::of_subscriber(pool, subscriber).await
}

async fn audit(
    tx: &mut sqlx::PgConnection,
    actor: &str,
    action: AuditAction,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    store::audit::append(
        &mut *tx,
        &NewAuditEntry {
            actor,
            game: None,
            action,
        },
        now,
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(hours: i64) -> DateTime<Utc> {
        DateTime::<Utc>::UNIX_EPOCH + Duration::hours(1_000_000 + hours)
    }

    #[test]
    fn mailmans_rules() {
        let rules = BounceRules::DEFAULT;
        let (one, counted) = next_score(None, "Fred@X.org", true, "550", at(0), &rules);
        assert!(counted && one.score == 1.0 && one.mailbox == "fred@x.org");
        // The same day: recorded, not scored.
        let (same_day, counted) = next_score(Some(&one), "fred@x.org", true, "550", at(5), &rules);
        assert!(!counted && same_day.score == 1.0 && same_day.reports == 2);
        // A soft one the next day: half a point.
        let (soft, _) = next_score(Some(&same_day), "fred@x.org", false, "452", at(25), &rules);
        assert_eq!(soft.score, 1.5);
        // Seven days without a bounce: from nothing again.
        let (fresh, _) = next_score(
            Some(&soft),
            "fred@x.org",
            true,
            "550",
            at(25 + 7 * 24),
            &rules,
        );
        assert_eq!(fresh.score, 1.0);
        // Five hard bounces on five days suspend.
        let mut score = None;
        for day in 0..5 {
            score = Some(
                next_score(
                    score.as_ref(),
                    "a@b.c",
                    true,
                    "550 gone",
                    at(day * 24),
                    &rules,
                )
                .0,
            );
        }
        let score = score.unwrap_or_else(|| unreachable!());
        assert!(score.suspended_at.is_some(), "{score:?}");
        assert!(
            score
                .suspended_reason
                .as_deref()
                .is_some_and(|r| r.contains("550 gone"))
        );
        let (after, counted) = next_score(Some(&score), "a@b.c", true, "550", at(200), &rules);
        assert!(!counted && after.suspended_at.is_some());
    }
}
