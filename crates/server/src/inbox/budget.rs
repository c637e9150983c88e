//! The hourly budgets of the mail that inbound messages make Admiralty send: their answers,
//! queued together when a batch ends, and each relayed TELL, queued as its message is acted
//! on (its confirmation says whether it went). Both count and queue under
//! `store::outbox::lock_budgets`, so that workers answering at the same moment never send more
//! than a budget allows; each mailbox is counted however its address is spelled
//! (`mail::address::MailboxKey`), and Admiralty's own addresses and mail systems' are never
//! written to.

use chrono::{DateTime, Utc};
use mail::address::MailboxKey;
use serde_json::json;
use store::outbox::{BudgetTag, NewOutbound};
use store::status::Budget;
use store::subscribers::SubscriberId;

use super::{PendingReply, Settings, audit};
use crate::limits::{Budgets, Over};
use crate::turns::LifecycleError;

/// How far back the budgets count.
fn hour_before(now: DateTime<Utc>) -> DateTime<Utc> {
    now - chrono::Duration::hours(1)
}

/// Why a mail was not queued.
enum Stopped {
    /// Not a `local@domain` address, or Admiralty's own, or a mail system's.
    Unanswerable,
    Over(Over),
}

/// Queues `replies` in order, each within its recipient's budgets (a reply queued before, by
/// an earlier run of its message, is not queued or counted again), and audits each that is
/// stopped. Three statements whatever the number of replies: the lock, the counts (and the
/// keys queued already), the insert.
pub(super) async fn queue_replies(
    tx: &mut sqlx::PgConnection,
    replies: &[PendingReply],
    settings: &Settings,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    if replies.is_empty() {
        return Ok(());
    }
    let never = settings.unanswerable();
    let keys: Vec<Option<MailboxKey>> = replies
        .iter()
        .map(|reply| MailboxKey::parse(&reply.to).filter(|key| !never.contains(key)))
        .collect();
    let mailboxes: Vec<&str> = keys.iter().flatten().map(MailboxKey::as_str).collect();
    let domains: Vec<&str> = keys.iter().flatten().map(MailboxKey::domain).collect();
    let queued: Vec<&str> = replies.iter().map(|reply| reply.key.as_str()).collect();
    store::outbox::lock_budgets(tx).await?;
    let counts =
        store::outbox::budget_counts(tx, &mailboxes, &domains, &[], &queued, hour_before(now))
            .await?;
    let mut budgets = Budgets::new(settings.limits, counts);
    let mut to_queue = Vec::new();
    let mut stopped = Vec::new();
    for (reply, key) in replies.iter().zip(&keys) {
        let Some(key) = key else {
            stopped.push((reply, None, Stopped::Unanswerable));
            continue;
        };
        if budgets.queued(&reply.key) {
            continue;
        }
        match budgets.take_answer(reply.budget, key) {
            Ok(()) => to_queue.push((
                NewOutbound {
                    message_id: &reply.message_id,
                    idempotency_key: &reply.key,
                    to_address: &reply.to,
                    subject: &reply.subject,
                    body_text: &reply.body,
                    body_html: None,
                    headers: &reply.headers,
                },
                BudgetTag {
                    budget: reply.budget,
                    mailbox: key.as_str(),
                    domain: key.domain(),
                    from_subscriber: None,
                },
            )),
            Err(over) => stopped.push((reply, Some(key), Stopped::Over(over))),
        }
    }
    store::outbox::enqueue_budgeted(tx, &to_queue, now).await?;
    for (reply, key, why) in stopped {
        let mut details = json!({
            "message_id": reply.inbound_id,
            "to": reply.to,
            "mailbox": key.map(MailboxKey::as_str),
            "kind": reply.budget.as_str(),
        });
        describe(&mut details, &why);
        audit(tx, "inbound.reply_suppressed", reply.game, details, now).await?;
    }
    Ok(())
}

/// Adds to an audit entry's details which limit stopped a mail.
fn describe(details: &mut serde_json::Value, why: &Stopped) {
    let (limit, allowed, sent) = match why {
        Stopped::Unanswerable => ("never answered".to_owned(), None, None),
        Stopped::Over(over) => (
            over.budget.setting().to_owned(),
            Some(over.allowed),
            Some(over.sent),
        ),
    };
    if let Some(object) = details.as_object_mut() {
        object.insert("limit".into(), json!(limit));
        object.insert("allowed".into(), json!(allowed));
        object.insert("sent_last_hour".into(), json!(sent));
    }
}

/// Audits a TELL that a budget stopped (`tell.suppressed`), with which budget.
pub(super) async fn audit_tell_over(
    tx: &mut sqlx::PgConnection,
    game: i64,
    mut details: serde_json::Value,
    over: &Over,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    describe(&mut details, &Stopped::Over(*over));
    audit(tx, "tell.suppressed", Some(game), details, now).await
}

/// A TELL to relay: the mail, who asked for it, and what the audit entry names if it is
/// stopped.
pub(super) struct Relay<'a> {
    pub mail: NewOutbound<'a>,
    pub sender: SubscriberId,
    pub game: i64,
    pub from_player: i64,
    pub to_player: i64,
}

/// What became of a TELL.
pub(super) enum Relayed {
    /// Queued (now, or by an earlier run of its message).
    Queued,
    /// Not queued: the recipient's address is one Admiralty never writes to.
    Unanswerable,
    /// Not queued: over a budget (audited as `tell.suppressed`).
    Over(Over),
}

/// Queues a relayed TELL within the sender's and the recipient's budgets, and audits it when
/// they stop it.
pub(super) async fn relay_tell(
    tx: &mut sqlx::PgConnection,
    relay: &Relay<'_>,
    settings: &Settings,
    now: DateTime<Utc>,
) -> Result<Relayed, LifecycleError> {
    let Some(to) = MailboxKey::parse(relay.mail.to_address)
        .filter(|key| !settings.unanswerable().contains(key))
    else {
        return Ok(Relayed::Unanswerable);
    };
    store::outbox::lock_budgets(tx).await?;
    let counts = store::outbox::budget_counts(
        tx,
        &[to.as_str()],
        &[],
        &[relay.sender],
        &[relay.mail.idempotency_key],
        hour_before(now),
    )
    .await?;
    let mut budgets = Budgets::new(settings.limits, counts);
    if budgets.queued(relay.mail.idempotency_key) {
        return Ok(Relayed::Queued);
    }
    if let Err(over) = budgets.take_tell(relay.sender, &to) {
        let details = json!({ "from_player": relay.from_player, "to_player": relay.to_player });
        audit_tell_over(tx, relay.game, details, &over, now).await?;
        return Ok(Relayed::Over(over));
    }
    let tag = BudgetTag {
        budget: Budget::Tell,
        mailbox: to.as_str(),
        domain: to.domain(),
        from_subscriber: Some(relay.sender),
    };
    store::outbox::enqueue_budgeted(tx, &[(relay.mail.clone(), tag)], now).await?;
    Ok(Relayed::Queued)
}
