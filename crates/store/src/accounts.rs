//! GM accounts: a login name and an argon2 password hash (hashed by the server; the store
//! never sees a password), and the failed logins that rate-limit guessing, counted before the
//! check.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::StoreError;

pub use crate::ids::GmAccountId;

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
#[derive(Debug, Clone)]
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
    let id = sqlx::query_scalar!(
        r#"INSERT INTO gm_accounts (name, password_hash, created_at) VALUES ($1, $2, $3)
           RETURNING id AS "id: GmAccountId""#,
        name.as_str(),
        password_hash,
        now,
    )
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a GM with this name"))?;
    Ok(id)
}

/// The account a login names (in any letter case), with its hash.
pub async fn gm_credentials<'e>(
    db: impl PgExecutor<'e>,
    name: &str,
) -> Result<Option<GmCredentials>, StoreError> {
    Ok(sqlx::query_as!(
        GmCredentials,
        r#"SELECT id AS "id: GmAccountId", name, password_hash FROM gm_accounts
           WHERE lower(name) = lower($1)"#,
        name.trim(),
    )
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
    let result = sqlx::query!(
        "UPDATE gm_accounts SET password_hash = $2 WHERE lower(name) = lower($1)",
        name.as_str(),
        password_hash,
    )
    .execute(db)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// The first key of the advisory locks that serialise the login attempts of one name typed
/// (the two-key form, so they cannot meet the subscribers' locks, class `0x4144`).
const LOGIN_NAME_LOCK: i32 = 0x4147;

/// A login attempt, counted as a failure until it is withdrawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoginAttempt(i64);

/// The name typed as the failures table keeps it: trimmed, at most 200 characters.
fn typed(name: &str) -> String {
    name.trim().chars().take(200).collect()
}

/// Reserves a login attempt for the name typed (existing or not) before its password is
/// checked: under a lock on the name (any letter case) held to the end of `tx`, counts its
/// failures since `since` and, with fewer than `max`, records this attempt as one more. So
/// concurrent attempts are each counted before any is checked, and no more than `max` are
/// checked in the window however many arrive at once. `None`: the name has its `max` already.
/// A login that succeeds withdraws its attempt ([`withdraw_login_attempt`]).
pub async fn reserve_login_attempt(
    tx: &mut sqlx::PgConnection,
    name: &str,
    since: DateTime<Utc>,
    max: i64,
    now: DateTime<Utc>,
) -> Result<Option<LoginAttempt>, StoreError> {
    let name = typed(name);
    sqlx::query!(
        "SELECT pg_advisory_xact_lock($1, hashtext(lower($2)))",
        LOGIN_NAME_LOCK,
        &name,
    )
    .execute(&mut *tx)
    .await?;
    if login_failures_since(&mut *tx, &name, since).await? >= max {
        return Ok(None);
    }
    let id = sqlx::query_scalar!(
        "INSERT INTO login_failures (name, at) VALUES ($1, $2) RETURNING id",
        name,
        now,
    )
    .fetch_one(&mut *tx)
    .await?;
    Ok(Some(LoginAttempt(id)))
}

/// Withdraws an attempt that did not fail: the password matched, or it was never checked.
pub async fn withdraw_login_attempt<'e>(
    db: impl PgExecutor<'e>,
    attempt: LoginAttempt,
) -> Result<(), StoreError> {
    sqlx::query!("DELETE FROM login_failures WHERE id = $1", attempt.0,)
        .execute(db)
        .await?;
    Ok(())
}

/// Failed (and reserved) logins for this name (in any letter case) since `since`.
pub async fn login_failures_since<'e>(
    db: impl PgExecutor<'e>,
    name: &str,
    since: DateTime<Utc>,
) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT count(*) AS "failures!" FROM login_failures WHERE lower(name) = lower($1) AND at >= $2"#,
        typed(name),
        since,
    )
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
