//! GM accounts: made from the command line (`gm admin add-gm`) or beside the demo zine, each
//! audited. The password is hashed off the async threads (argon2 is tens of milliseconds).

use chrono::{DateTime, Utc};
use serde_json::json;
use store::PgPool;
use store::accounts::GmName;

use crate::web::password::{PasswordError, hash_gm_password};

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Password(#[from] PasswordError),
    #[error(transparent)]
    Store(#[from] store::StoreError),
    #[error("hashing the password stopped: {0}")]
    Hashing(String),
}

impl From<sqlx::Error> for AccountError {
    fn from(error: sqlx::Error) -> Self {
        AccountError::Store(store::StoreError::from(error))
    }
}

/// Creates a GM account with `password` (at least `MIN_PASSWORD_CHARS`), audited as done by
/// `actor`. A name taken already is `Store(AlreadyExists)`.
pub async fn add_gm(
    pool: &PgPool,
    now: DateTime<Utc>,
    name: &GmName,
    password: String,
    actor: &str,
) -> Result<(), AccountError> {
    let hash = tokio::task::spawn_blocking(move || hash_gm_password(&password))
        .await
        .map_err(|e| AccountError::Hashing(e.to_string()))??;
    let mut tx = pool.begin().await?;
    store::accounts::insert_gm(&mut *tx, name, &hash, now).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "gm.create",
            game_id: None,
            details: json!({ "name": name.as_str() }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
