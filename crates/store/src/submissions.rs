//! Form submissions claimed by their key (`form_submissions`), so that each form acts once.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;

use crate::StoreError;

/// What claiming a form's key found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The key was new: it is now claimed, and the action may run.
    Fresh,
    /// The key was claimed before, by this form or one sent with its key.
    Seen(Submission),
}

/// A form submission claimed earlier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    pub actor: String,
    pub route: String,
    pub claimed_at: DateTime<Utc>,
    /// Where its result can be seen; `None` while the action runs (or if it was cut off).
    pub result_path: Option<String>,
    pub done_at: Option<DateTime<Utc>>,
}

/// A claim to record.
#[derive(Debug, Clone, Copy)]
pub struct NewClaim<'a> {
    pub key: &'a str,
    pub actor: &'a str,
    pub route: &'a str,
}

/// Claims `new.key`, or finds who claimed it first (without changing anything).
pub async fn claim(
    db: &sqlx::PgPool,
    new: NewClaim<'_>,
    now: DateTime<Utc>,
) -> Result<Claim, StoreError> {
    let inserted = sqlx::query_scalar!(
        "INSERT INTO form_submissions (once_key, actor, route, claimed_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT (once_key) DO NOTHING RETURNING once_key",
        new.key,
        new.actor,
        new.route,
        now,
    )
    .fetch_optional(db)
    .await?;
    if inserted.is_some() {
        return Ok(Claim::Fresh);
    }
    let row = sqlx::query_as!(
        Submission,
        "SELECT actor, route, claimed_at, result_path, done_at
         FROM form_submissions WHERE once_key = $1",
        new.key,
    )
    .fetch_one(db)
    .await?;
    Ok(Claim::Seen(row))
}

/// Records that the claimed action succeeded, and where its result is seen.
pub async fn finish<'e>(
    db: impl PgExecutor<'e>,
    key: &str,
    result_path: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query!(
        "UPDATE form_submissions SET result_path = $2, done_at = $3
         WHERE once_key = $1 AND done_at IS NULL",
        key,
        result_path,
        now,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Frees a claim whose action failed, so that the corrected form can be sent again.
pub async fn release<'e>(db: impl PgExecutor<'e>, key: &str) -> Result<(), StoreError> {
    sqlx::query!(
        "DELETE FROM form_submissions WHERE once_key = $1 AND done_at IS NULL",
        key
    )
    .execute(db)
    .await?;
    Ok(())
}
