//! The audit log: who did what, when. Append-only, enforced by a trigger in the database.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgExecutor;

use crate::StoreError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct AuditId(pub i64);

/// An entry to append. `action` is a dotted lower-case verb such as `zine.create`;
/// `details` must be a JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAuditEntry<'a> {
    pub actor: &'a str,
    pub action: &'a str,
    pub game_id: Option<i64>,
    pub details: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct AuditEntry {
    pub id: AuditId,
    pub at: DateTime<Utc>,
    pub actor: String,
    pub action: String,
    pub game_id: Option<i64>,
    pub details: Value,
}

/// Appends an entry. Write it in the same transaction as the change it records.
pub async fn append<'e>(
    db: impl PgExecutor<'e>,
    entry: &NewAuditEntry<'_>,
    at: DateTime<Utc>,
) -> Result<AuditId, StoreError> {
    let id = sqlx::query_scalar(
        "INSERT INTO audit_log (at, actor, action, game_id, details) VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(at)
    .bind(entry.actor)
    .bind(entry.action)
    .bind(entry.game_id)
    .bind(&entry.details)
    .fetch_one(db)
    .await?;
    Ok(AuditId(id))
}

/// The newest entries, newest first.
pub async fn list_recent<'e>(
    db: impl PgExecutor<'e>,
    limit: i64,
) -> Result<Vec<AuditEntry>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, at, actor, action, game_id, details FROM audit_log ORDER BY id DESC LIMIT $1",
    )
    .bind(limit.max(0))
    .fetch_all(db)
    .await?)
}

/// Which entries a page of the log shows: each filter that is set must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub game_id: Option<i64>,
    /// The actor exactly (`gm:nelson`, `system`, `subscriber:4`).
    pub actor: Option<String>,
    /// The action exactly (`game.end`), or a prefix ending with a dot (`game.`).
    pub action: Option<String>,
}

/// An entry as the console lists it, with its game's name.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct AuditListed {
    #[sqlx(flatten)]
    pub entry: AuditEntry,
    pub game_name: Option<String>,
}

/// One page of the log, newest first: entries older than `before` (all when `None`) that
/// match `filter`.
pub async fn list_page<'e>(
    db: impl PgExecutor<'e>,
    before: Option<AuditId>,
    filter: &AuditFilter,
    limit: i64,
) -> Result<Vec<AuditListed>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT a.id, a.at, a.actor, a.action, a.game_id, a.details, g.name AS game_name \
         FROM audit_log a LEFT JOIN games g ON g.id = a.game_id AND g.deleted_at IS NULL \
         WHERE ($1::bigint IS NULL OR a.id < $1) AND ($3::bigint IS NULL OR a.game_id = $3) \
         AND ($4::text IS NULL OR a.actor = $4) \
         AND ($5::text IS NULL OR a.action = $5 OR (right($5, 1) = '.' AND starts_with(a.action, $5))) \
         ORDER BY a.id DESC LIMIT $2",
    )
    .bind(before)
    .bind(limit.max(0))
    .bind(filter.game_id)
    .bind(filter.actor.as_deref())
    .bind(filter.action.as_deref())
    .fetch_all(db)
    .await?)
}
