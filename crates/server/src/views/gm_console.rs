//! The GM console's own pages: the front page's counts, the mail queues and the audit log.

use store::audit::{AuditFilter, AuditId, AuditListed};
use store::games::GameSummary;
use store::inbox::InboundSummary;
use store::outbox::{OutboundId, OutboundSummary};
use store::status::{InboundStatus, OutboundStatus};
use store::{PgPool, StoreError};

use super::one_page;

/// What the console's front page shows: every game, and what needs the GM's eye.
pub struct ConsoleFront {
    pub games: Vec<GameSummary>,
    pub zines: i64,
    pub failed_inbound: usize,
    pub failed_outbound: usize,
    pub queued_outbound: usize,
}

/// The front page's games and counts (the lists themselves are on the inbox and outbox pages).
pub async fn console_front(pool: &PgPool) -> Result<ConsoleFront, StoreError> {
    // Counted up to this many; the queue pages show the messages.
    const LOOK: i64 = 1000;
    let games = store::games::list_summaries(pool, None).await?;
    let zines = store::zines::count(pool).await?;
    let failed_inbound = store::inbox::list_by_status(pool, InboundStatus::Failed, LOOK)
        .await?
        .len();
    let failed_outbound = store::outbox::list_by_status(pool, OutboundStatus::Failed, None, LOOK)
        .await?
        .len();
    let queued_outbound = store::outbox::list_by_status(pool, OutboundStatus::Queued, None, LOOK)
        .await?
        .len();
    Ok(ConsoleFront {
        games,
        zines,
        failed_inbound,
        failed_outbound,
        queued_outbound,
    })
}

/// Inbound messages shown per list.
const INBOX_SHOWN: i64 = 200;

/// The inbound messages of one status, newest first (at most 200).
pub async fn inbox(
    pool: &PgPool,
    status: InboundStatus,
) -> Result<Vec<InboundSummary>, StoreError> {
    store::inbox::list_by_status(pool, status, INBOX_SHOWN).await
}

/// Outbound messages shown per page.
const OUTBOX_PAGE: i64 = 50;

/// A page of outbound messages of one status, newest first, older than `before`; with the
/// next page's `before` when there are older messages.
pub async fn outbox(
    pool: &PgPool,
    status: OutboundStatus,
    before: Option<OutboundId>,
) -> Result<(Vec<OutboundSummary>, Option<OutboundId>), StoreError> {
    // One more than shown tells whether there is an older page.
    let found = store::outbox::list_by_status(pool, status, before, OUTBOX_PAGE + 1).await?;
    Ok(one_page(found, OUTBOX_PAGE, |m| m.id))
}

/// Audit entries per page.
const AUDIT_PAGE: i64 = 50;

/// A page of the audit log, newest first, older than `before` and filtered; with the next
/// page's `before` when there are older entries.
pub async fn audit_log(
    pool: &PgPool,
    before: Option<AuditId>,
    filter: &AuditFilter,
) -> Result<(Vec<AuditListed>, Option<AuditId>), StoreError> {
    // One more than shown tells whether there is an older page.
    let found = store::audit::list_page(pool, before, filter, AUDIT_PAGE + 1).await?;
    Ok(one_page(found, AUDIT_PAGE, |e| e.entry.id))
}

/// The GM's digest settings (their address, the kinds switched off); `None` when the account
/// is gone.
pub async fn digest_settings(
    pool: &PgPool,
    gm: store::accounts::GmAccountId,
) -> Result<Option<store::notices::DigestSettings>, StoreError> {
    store::notices::settings(pool, gm).await
}
