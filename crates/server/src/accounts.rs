//! GM accounts: made from the command line (`gm admin add-gm`) or beside the demo zine, each
//! audited; and their logins. Every password is hashed and checked through the process's
//! [`secrets::Gate`] (argon2 is tens of milliseconds and 19 MiB).

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use store::PgPool;
use store::accounts::{GmAccountId, GmName};

use crate::clients::ClientFailures;
use crate::secrets::{self, Gate, Limits, PasswordError, Wait};

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Password(#[from] PasswordError),
    #[error(transparent)]
    Store(#[from] store::StoreError),
}

impl From<sqlx::Error> for AccountError {
    fn from(error: sqlx::Error) -> Self {
        AccountError::Store(store::StoreError::from(error))
    }
}

/// Creates a GM account with `password` (at least the process's `password_min_chars`),
/// audited as done by `actor`. A name taken already is `Store(AlreadyExists)`.
pub async fn add_gm(
    pool: &PgPool,
    now: DateTime<Utc>,
    name: &GmName,
    password: String,
    actor: &str,
) -> Result<(), AccountError> {
    let hash = secrets::hash_new(secrets::gate(), Wait::Always, password).await?;
    let mut tx = pool.begin().await?;
    store::accounts::insert_gm(&mut *tx, name, &hash, now).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: store::audit::AuditAction::GmCreate {
                name: name.to_string(),
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// What a login came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Login {
    /// The password matched: the account (the login is audited).
    In { id: GmAccountId, name: String },
    /// No such name, or the wrong password: one answer for both.
    Wrong,
    /// The name typed had its failures for the window already: nothing was checked.
    LockedOut,
    /// The client's address had its failures for the window already: nothing was checked.
    ClientLockedOut,
    /// Every password check is busy: nothing was checked, nothing counted.
    Busy,
}

/// Checks a GM login. The attempt is counted before the password is checked, in one step with
/// the count of the name's failures ([`store::accounts::reserve_login_attempt`]), so no more
/// than `limits.gm_login_max_failures` attempts a window are ever checked, however many arrive
/// at once; it is withdrawn if the password matches or was never checked. An unknown name is
/// counted and checked like a known one (the same argon2 work, through the same gate).
pub async fn log_in(
    pool: &PgPool,
    gate: &Gate,
    limits: &Limits,
    now: DateTime<Utc>,
    name: &str,
    password: String,
) -> Result<Login, AccountError> {
    log_in_from(pool, gate, limits, now, (name, password), None).await
}

/// Where a login comes from: the client's address (`crate::clients`) and the failures
/// counted per address.
pub struct LoginClient<'a> {
    pub client: IpAddr,
    pub failures: &'a ClientFailures,
}

/// [`log_in`] from a client: its failures are counted against its address too (before the
/// password is checked, withdrawn unless the check failed), and the login's audit entry
/// names it.
pub async fn log_in_from(
    pool: &PgPool,
    gate: &Gate,
    limits: &Limits,
    now: DateTime<Utc>,
    (name, password): (&str, String),
    from: Option<LoginClient<'_>>,
) -> Result<Login, AccountError> {
    let reserved = match &from {
        Some(from) => match from.failures.reserve(from.client, now) {
            Some(reserved) => Some((from.failures, reserved)),
            None => return Ok(Login::ClientLockedOut),
        },
        None => None,
    };
    let login = check_login(
        pool,
        gate,
        limits,
        now,
        name,
        password,
        from.map(|f| f.client),
    )
    .await;
    if let Some((failures, reserved)) = reserved
        && !matches!(login, Ok(Login::Wrong))
    {
        failures.withdraw(reserved);
    }
    login
}

async fn check_login(
    pool: &PgPool,
    gate: &Gate,
    limits: &Limits,
    now: DateTime<Utc>,
    name: &str,
    password: String,
    client: Option<IpAddr>,
) -> Result<Login, AccountError> {
    let mut tx = pool.begin().await?;
    let attempt = store::accounts::reserve_login_attempt(
        &mut tx,
        name,
        now - limits.gm_login_window(),
        limits.gm_login_max_failures,
        now,
    )
    .await?;
    tx.commit().await?;
    let Some(attempt) = attempt else {
        return Ok(Login::LockedOut);
    };
    let account = store::accounts::gm_credentials(pool, name).await?;
    let stored = account.as_ref().map(|a| a.password_hash.clone());
    let matched = match secrets::verify(gate, Wait::Queue, stored, password).await {
        Ok(matched) => matched,
        Err(secrets::Busy) => {
            store::accounts::withdraw_login_attempt(pool, attempt).await?;
            return Ok(Login::Busy);
        }
    };
    let (true, Some(account)) = (matched, account) else {
        return Ok(Login::Wrong);
    };
    let mut tx = pool.begin().await?;
    store::accounts::withdraw_login_attempt(&mut *tx, attempt).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: &format!("gm:{}", account.name),
            game: None,
            action: store::audit::AuditAction::GmLogin {
                client: client.map(|c| c.to_string()),
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(Login::In {
        id: account.id,
        name: account.name,
    })
}

/// Logs a GM out: deletes their session (by its token's hash, when the request had one) and
/// audits the logout as done by `actor`, in one transaction.
pub async fn log_out(
    pool: &PgPool,
    now: DateTime<Utc>,
    session: Option<[u8; 32]>,
    actor: &str,
) -> Result<(), store::StoreError> {
    let mut tx = pool.begin().await?;
    if let Some(token_hash) = session {
        store::sessions::delete(&mut *tx, &token_hash).await?;
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: store::audit::AuditAction::GmLogout {},
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
