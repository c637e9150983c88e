//! The GM hears what needs the GM (issue 27 item 8, docs/web-console.md "The GM's digest"):
//! the services record notices (`store::notices`) in the transaction of what happened; here,
//! run by `gm serve`'s deadline worker, each GM with an address gets them in one digest at most
//! once an hour, without the kinds they switched off; and a GM's digest settings are changed.

use chrono::{DateTime, Duration, Utc};
use store::accounts::GmAccountId;
use store::audit::{AuditAction, NewAuditEntry};
use store::notices::Notice;
use store::status::NoticeKind;
use store::{EmailAddress, PgPool, StoreError};

use crate::letters::{self, MailSite};
use crate::outbox::post::{Posting, post_letter};

/// The least time between two digests to one GM.
pub fn digest_every() -> Duration {
    Duration::hours(1)
}

/// Queues the digest of every GM whose last one was an hour or more ago and who has notices
/// not handled yet, one transaction per GM: the notices are marked handled in the transaction
/// that queues the mail, so a failure loses none (the outbox retries the mail). Notices of a
/// kind the GM switched off are passed over, never mailed. Returns how many digests it queued.
pub async fn send_due(
    pool: &PgPool,
    now: DateTime<Utc>,
    site: MailSite<'_>,
) -> Result<usize, StoreError> {
    let cutoff = now - digest_every();
    let mut queued = 0;
    for gm in store::notices::due_digests(pool, cutoff).await? {
        let mut tx = pool.begin().await?;
        let Some(reader) = store::notices::lock_due_digest(&mut tx, gm, cutoff).await? else {
            continue;
        };
        let notices = store::notices::unhandled(&mut tx, gm).await?;
        let (on, off): (Vec<Notice>, Vec<Notice>) = notices
            .into_iter()
            .partition(|notice| !reader.off.contains(&notice.kind));
        let handled: Vec<_> = on
            .iter()
            .map(|n| (n.id, true))
            .chain(off.iter().map(|n| (n.id, false)))
            .collect();
        store::notices::mark_handled(&mut tx, gm, &handled, now).await?;
        if let (Some(first), Some(last)) = (on.first(), on.last()) {
            let letter = letters::digest::digest(&reader.name, &on, site);
            let seed = format!("{gm}:{}:{}", first.id, last.id);
            let posting = Posting::once(
                letters::digest::KIND,
                &seed,
                site.domain,
                reader.email.as_str(),
                letter,
            );
            let audit = NewAuditEntry {
                actor: "system",
                game: None,
                action: AuditAction::GmDigestSent {
                    mailed: on.len(),
                    passed_over: off.len(),
                },
            };
            post_letter(&mut tx, &posting, Some(&audit), now).await?;
            store::notices::mark_digest_sent(&mut tx, gm, now).await?;
            queued += 1;
        }
        tx.commit().await?;
    }
    Ok(queued)
}

/// Sets the GM's address (none: no digest) and the kinds switched off, audited `gm.digest`.
/// Returns whether the account exists.
pub async fn set_settings(
    pool: &PgPool,
    gm: GmAccountId,
    actor: &str,
    email: Option<&EmailAddress>,
    off: &[NoticeKind],
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let mut tx = pool.begin().await?;
    if !store::notices::set_settings(&mut *tx, gm, email, off).await? {
        return Ok(false);
    }
    let entry = NewAuditEntry {
        actor,
        game: None,
        action: AuditAction::GmDigest {
            email: email.map(|e| e.as_str().to_owned()),
            off: off.to_vec(),
        },
    };
    store::audit::append(&mut *tx, &entry, now).await?;
    tx.commit().await?;
    Ok(true)
}
