//! GM accounts: a login name and an argon2 password hash (hashed by the server; the store
//! never sees a password), and the failed logins that rate-limit guessing.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct GmAccountId(pub i64);

/// A GM's login name: 1 to 64 letters, digits, `_`, `.` and `-`, starting with a letter or
/// digit. It is the actor named in the audit log, so it carries no spaces or markup.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct GmName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a GM name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or a digit")]
pub struct GmNameError;

impl GmName {
    pub fn parse(input: &str) -> Result<GmName, GmNameError> {
        let name = input.trim();
        let valid = (1..=64).contains(&name.len())
            && name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if valid {
            Ok(GmName(name.to_owned()))
        } else {
            Err(GmNameError)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for GmName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A GM account with its password hash, for checking a login. Not for display.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GmCredentials {
    pub id: GmAccountId,
    pub name: String,
    pub password_hash: String,
}

/// Records a GM. A name already taken (in any letter case) is refused with
/// [`StoreError::AlreadyExists`].
pub async fn insert_gm<'e>(
    db: impl PgExecutor<'e>,
    name: &GmName,
    password_hash: &str,
    now: DateTime<Utc>,
) -> Result<GmAccountId, StoreError> {
    let id = sqlx::query_scalar(
        "INSERT INTO gm_accounts (name, password_hash, created_at) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(name.as_str())
    .bind(password_hash)
    .bind(now)
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a GM with this name"))?;
    Ok(GmAccountId(id))
}

/// The account a login names (in any letter case), with its hash.
pub async fn gm_credentials<'e>(
    db: impl PgExecutor<'e>,
    name: &str,
) -> Result<Option<GmCredentials>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, name, password_hash FROM gm_accounts WHERE lower(name) = lower($1)",
    )
    .bind(name.trim())
    .fetch_optional(db)
    .await?)
}

/// Replaces a GM's password hash (e.g. `gm admin add-gm` run again is refused; this is for a
/// reset). Returns whether the account exists.
pub async fn set_gm_password<'e>(
    db: impl PgExecutor<'e>,
    name: &GmName,
    password_hash: &str,
) -> Result<bool, StoreError> {
    let result =
        sqlx::query("UPDATE gm_accounts SET password_hash = $2 WHERE lower(name) = lower($1)")
            .bind(name.as_str())
            .bind(password_hash)
            .execute(db)
            .await?;
    Ok(result.rows_affected() == 1)
}

/// Notes a failed login for the name typed, existing or not.
pub async fn record_login_failure<'e>(
    db: impl PgExecutor<'e>,
    name: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let name: String = name.trim().chars().take(200).collect();
    sqlx::query("INSERT INTO login_failures (name, at) VALUES ($1, $2)")
        .bind(name)
        .bind(now)
        .execute(db)
        .await?;
    Ok(())
}

/// Failed logins for this name (in any letter case) since `since`.
pub async fn login_failures_since<'e>(
    db: impl PgExecutor<'e>,
    name: &str,
    since: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let name: String = name.trim().chars().take(200).collect();
    Ok(sqlx::query_scalar(
        "SELECT count(*) FROM login_failures WHERE lower(name) = lower($1) AND at >= $2",
    )
    .bind(name)
    .bind(since)
    .fetch_one(db)
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gm_names() {
        assert_eq!(GmName::parse(" nelson ").unwrap().as_str(), "nelson");
        assert!(GmName::parse("H.Nelson_1805-b").is_ok());
        for bad in ["", "-x", ".x", "a b", "<b>", "é", &"a".repeat(65)] {
            assert_eq!(GmName::parse(bad), Err(GmNameError), "{bad:?}");
        }
    }
}
