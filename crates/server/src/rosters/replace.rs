//! Replacements (issue 18 item 3): the GM hands a player's seat to a standby or any active
//! subscriber (the seat changes hands as an accepted offer does: `crate::offers::handover`),
//! and subscribers join or leave the standby list.

use chrono::{DateTime, Utc};
use store::PgPool;
use store::audit::{AuditAction, Via};
use store::subscribers::SubscriberId;

use crate::entropy::Entropy;
use crate::offers::handover::replace_in;
pub use crate::offers::handover::{Replaced, Replacement};
use crate::turns::LifecycleError;

/// Replaces the player, audited as `actor`'s, and queues the newcomer's mail.
pub async fn replace_player(
    pool: &PgPool,
    now: DateTime<Utc>,
    wanted: &Replacement<'_>,
    actor: &str,
    domain: &str,
    entropy: &mut impl Entropy,
) -> Result<Replaced, LifecycleError> {
    let mut tx = pool.begin().await?;
    let replaced = replace_in(&mut tx, now, wanted, actor, domain, entropy).await?;
    tx.commit().await?;
    Ok(replaced)
}

/// Puts a subscriber on the standby list or takes them off, audited (`via` the web or mail);
/// `true` when that changed anything.
pub async fn set_standby(
    pool: &PgPool,
    now: DateTime<Utc>,
    subscriber: SubscriberId,
    on: bool,
    via: Via,
) -> Result<bool, LifecycleError> {
    let mut tx = pool.begin().await?;
    let changed = if on {
        store::replacements::standby_on(&mut *tx, subscriber).await?
    } else {
        store::replacements::standby_off(&mut *tx, subscriber).await?
    };
    if changed {
        store::audit::append(
            &mut *tx,
            &store::audit::NewAuditEntry {
                actor: &format!("subscriber:{subscriber}"),
                game: None,
                action: if on {
                    AuditAction::StandbyOn { subscriber, via }
                } else {
                    AuditAction::StandbyOff { subscriber, via }
                },
            },
            now,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(changed)
}
