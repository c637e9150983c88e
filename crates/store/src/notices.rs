//! What needs the GM (issue 27 item 8): notices written in the transaction of what happened
//! (a sign-up that filled, a seat that wants a player, a standby seated, a letter waiting, a
//! mail that failed, a turn that could not resolve), and each GM's digest settings: the
//! address the digest goes to, the kinds switched off, when the last one was queued.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::ids::{GameId, GmAccountId, NoticeId};
use crate::status::NoticeKind;
use crate::{EmailAddress, StoreError};

/// A notice to record: what happened, in one line, and the console page where the GM acts.
#[derive(Debug, Clone)]
pub struct NewNotice<'a> {
    pub kind: NoticeKind,
    pub game: Option<GameId>,
    pub summary: &'a str,
    /// A path under `/gm`.
    pub link: &'a str,
}

/// Records a notice. Write it in the transaction of what it tells.
pub async fn record<'e>(
    db: impl PgExecutor<'e>,
    notice: &NewNotice<'_>,
    at: DateTime<Utc>,
) -> Result<NoticeId, StoreError> {
    let summary: String = notice.summary.chars().take(500).collect();
    Ok(sqlx::query_scalar!(
        r#"INSERT INTO gm_notices (kind, game_id, summary, link, at) VALUES ($1, $2, $3, $4, $5)
           RETURNING id AS "id: NoticeId""#,
        notice.kind as NoticeKind,
        notice.game as Option<GameId>,
        summary,
        notice.link,
        at,
    )
    .fetch_one(db)
    .await?)
}

/// A notice as the digest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub id: NoticeId,
    pub kind: NoticeKind,
    pub summary: String,
    pub link: String,
    pub at: DateTime<Utc>,
}

/// A GM's digest settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestSettings {
    pub email: Option<EmailAddress>,
    /// The kinds switched off: their notices are not mailed.
    pub off: Vec<NoticeKind>,
    pub sent_at: Option<DateTime<Utc>>,
}

impl DigestSettings {
    pub fn is_on(&self, kind: NoticeKind) -> bool {
        !self.off.contains(&kind)
    }
}

/// A GM's digest settings; `None` when the account is gone.
pub async fn settings<'e>(
    db: impl PgExecutor<'e>,
    gm: GmAccountId,
) -> Result<Option<DigestSettings>, StoreError> {
    Ok(sqlx::query_as!(
        DigestSettings,
        r#"SELECT email AS "email: EmailAddress", digest_off AS "off: Vec<NoticeKind>",
                  digest_sent_at AS sent_at
           FROM gm_accounts WHERE id = $1"#,
        gm as GmAccountId,
    )
    .fetch_optional(db)
    .await?)
}

/// Sets a GM's address (none: no digest) and the kinds switched off. Returns whether the
/// account exists.
pub async fn set_settings<'e>(
    db: impl PgExecutor<'e>,
    gm: GmAccountId,
    email: Option<&EmailAddress>,
    off: &[NoticeKind],
) -> Result<bool, StoreError> {
    let result = sqlx::query!(
        "UPDATE gm_accounts SET email = $2, digest_off = $3 WHERE id = $1",
        gm as GmAccountId,
        email.map(EmailAddress::as_str),
        off as &[NoticeKind],
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// The GMs with an address whose last digest was queued at or before `cutoff` (or never) and
/// who have notices not handled yet.
pub async fn due_digests<'e>(
    db: impl PgExecutor<'e>,
    cutoff: DateTime<Utc>,
) -> Result<Vec<GmAccountId>, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT a.id AS "id: GmAccountId" FROM gm_accounts a
           WHERE a.email IS NOT NULL
             AND (a.digest_sent_at IS NULL OR a.digest_sent_at <= $1)
             AND EXISTS (SELECT 1 FROM gm_notices n WHERE NOT EXISTS (
                 SELECT 1 FROM gm_notice_deliveries d
                 WHERE d.gm_account_id = a.id AND d.notice_id = n.id))
           ORDER BY a.id"#,
        cutoff,
    )
    .fetch_all(db)
    .await?)
}

/// A GM whose digest is due, locked to the end of the transaction.
#[derive(Debug, Clone)]
pub struct DigestReader {
    pub name: String,
    pub email: EmailAddress,
    pub off: Vec<NoticeKind>,
}

/// Locks the GM's account for their digest, if one is still due (another worker may have
/// queued it: then `None`).
pub async fn lock_due_digest(
    tx: &mut sqlx::PgConnection,
    gm: GmAccountId,
    cutoff: DateTime<Utc>,
) -> Result<Option<DigestReader>, StoreError> {
    Ok(sqlx::query_as!(
        DigestReader,
        r#"SELECT name, email AS "email!: EmailAddress", digest_off AS "off: Vec<NoticeKind>"
           FROM gm_accounts
           WHERE id = $1 AND email IS NOT NULL
             AND (digest_sent_at IS NULL OR digest_sent_at <= $2)
           FOR UPDATE SKIP LOCKED"#,
        gm as GmAccountId,
        cutoff,
    )
    .fetch_optional(&mut *tx)
    .await?)
}

/// The notices the GM has not had, oldest first.
pub async fn unhandled(
    tx: &mut sqlx::PgConnection,
    gm: GmAccountId,
) -> Result<Vec<Notice>, StoreError> {
    Ok(sqlx::query_as!(
        Notice,
        r#"SELECT n.id AS "id: NoticeId", n.kind AS "kind: NoticeKind", n.summary, n.link, n.at
           FROM gm_notices n
           WHERE NOT EXISTS (SELECT 1 FROM gm_notice_deliveries d
                             WHERE d.gm_account_id = $1 AND d.notice_id = n.id)
           ORDER BY n.at, n.id"#,
        gm as GmAccountId,
    )
    .fetch_all(&mut *tx)
    .await?)
}

/// Records the notices as handled for the GM: `mailed` in this digest, or passed over.
pub async fn mark_handled(
    tx: &mut sqlx::PgConnection,
    gm: GmAccountId,
    handled: &[(NoticeId, bool)],
    at: DateTime<Utc>,
) -> Result<(), StoreError> {
    let ids: Vec<NoticeId> = handled.iter().map(|(id, _)| *id).collect();
    let mailed: Vec<bool> = handled.iter().map(|(_, mailed)| *mailed).collect();
    sqlx::query!(
        "INSERT INTO gm_notice_deliveries (gm_account_id, notice_id, mailed, at)
         SELECT $1, n, m, $4 FROM UNNEST($2::bigint[], $3::bool[]) AS u (n, m)
         ON CONFLICT DO NOTHING",
        gm as GmAccountId,
        &ids as &[NoticeId],
        &mailed,
        at,
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Records that the GM's digest was queued at `at`: the next is due an hour later.
pub async fn mark_digest_sent(
    tx: &mut sqlx::PgConnection,
    gm: GmAccountId,
    at: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE gm_accounts SET digest_sent_at = $2 WHERE id = $1",
        gm as GmAccountId,
        at,
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}
