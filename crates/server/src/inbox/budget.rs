//! The hourly budgets of the mail that inbound messages make Admiralty send: their answers,
//! queued together when a batch ends, and each relayed TELL, queued as its message is acted
//! on (its confirmation says whether it went). Both count and queue under
//! `store::outbox::lock_budgets`, so that workers answering at the same moment never send more
//! than a budget allows; each mailbox is counted however its address is spelled
//! (`mail::address::MailboxKey`), and Admiralty's own addresses and mail systems' are never
//! written to.

use chrono::{DateTime, Utc};
use mail::address::MailboxKey;
use store::audit::AuditAction;
use store::games::GameId;
use store::outbox::BudgetTag;
use store::players::{PlayerRowId, TokenHolder};
use store::status::Budget;
use store::subscribers::SubscriberId;

use super::{PendingReply, Settings, audit};
use crate::limits::{Budgets, Over};
use crate::outbox::post::{Posting, post_budgeted};
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
        .map(|reply| MailboxKey::parse(&reply.posting.to).filter(|key| !never.contains(key)))
        .collect();
    let mailboxes: Vec<&str> = keys.iter().flatten().map(MailboxKey::as_str).collect();
    let domains: Vec<&str> = keys.iter().flatten().map(MailboxKey::domain).collect();
    let queued: Vec<&str> = replies
        .iter()
        .map(|reply| reply.posting.key.as_str())
        .collect();
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
        if budgets.queued(&reply.posting.key) {
            continue;
        }
        match budgets.take_answer(reply.budget, key) {
            Ok(()) => to_queue.push((
                reply.posting.clone(),
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
    post_budgeted(tx, &to_queue, now).await?;
    for (reply, key, why) in stopped {
        let action = AuditAction::ReplySuppressed {
            message_id: reply.inbound_id.clone(),
            to: reply.posting.to.clone(),
            mailbox: key.map(|key| key.as_str().to_owned()),
            kind: reply.budget,
            stopped: why.described(),
        };
        audit(tx, reply.game, action, now).await?;
    }
    Ok(())
}

impl Stopped {
    /// Which limit stopped a mail, for its audit entry.
    fn described(&self) -> store::audit::Stopped {
        match self {
            Stopped::Unanswerable => store::audit::Stopped {
                limit: "never answered".to_owned(),
                allowed: None,
                sent_last_hour: None,
            },
            Stopped::Over(over) => store::audit::Stopped {
                limit: over.budget.setting().to_owned(),
                allowed: Some(over.allowed),
                sent_last_hour: Some(over.sent),
            },
        }
    }
}

/// Audits a TELL from `from` to `to` that a budget stopped (`tell.suppressed`), with which
/// budget.
pub(super) async fn audit_tell_over(
    tx: &mut sqlx::PgConnection,
    from: &TokenHolder,
    to: &str,
    over: &Over,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let action = AuditAction::TellSuppressed {
        from_player: from.player_id,
        to: to.to_owned(),
        stopped: Stopped::Over(*over).described(),
    };
    audit(tx, Some(from.game_id), action, now).await
}

/// A TELL to relay: the mail, who asked for it, and what the audit entry names if it is
/// stopped.
pub(super) struct Relay {
    pub mail: Posting,
    pub sender: SubscriberId,
    pub game: GameId,
    pub from_player: PlayerRowId,
    pub to_player: PlayerRowId,
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
    relay: &Relay,
    settings: &Settings,
    now: DateTime<Utc>,
) -> Result<Relayed, LifecycleError> {
    let Some(to) =
        MailboxKey::parse(&relay.mail.to).filter(|key| !settings.unanswerable().contains(key))
    else {
        return Ok(Relayed::Unanswerable);
    };
    store::outbox::lock_budgets(tx).await?;
    let counts = store::outbox::budget_counts(
        tx,
        &[to.as_str()],
        &[],
        &[relay.sender],
        &[relay.mail.key.as_str()],
        hour_before(now),
    )
    .await?;
    let mut budgets = Budgets::new(settings.limits, counts);
    if budgets.queued(&relay.mail.key) {
        return Ok(Relayed::Queued);
    }
    if let Err(over) = budgets.take_tell(relay.sender, &to) {
        let action = AuditAction::TellOverBudget {
            from_player: relay.from_player,
            to_player: relay.to_player,
            stopped: Stopped::Over(over).described(),
        };
        audit(tx, Some(relay.game), action, now).await?;
        return Ok(Relayed::Over(over));
    }
    let tag = BudgetTag {
        budget: Budget::Tell,
        mailbox: to.as_str(),
        domain: to.domain(),
        from_subscriber: Some(relay.sender),
    };
    post_budgeted(tx, &[(relay.mail.clone(), tag)], now).await?;
    Ok(Relayed::Queued)
}
