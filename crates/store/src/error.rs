use thiserror::Error;

/// Everything that can go wrong in the store.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("database error")]
    Database(#[source] sqlx::Error),
    #[error("migration failed")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A unique constraint refused the row (e.g. an address already subscribed).
    #[error("{what} already exists")]
    AlreadyExists { what: &'static str },
    /// A row holds a value the domain types reject: the schema and the code disagree.
    #[error("invalid value in {column}: {reason}")]
    InvalidRow {
        column: &'static str,
        reason: String,
    },
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        StoreError::Database(error)
    }
}

impl StoreError {
    /// Maps a unique violation to [`StoreError::AlreadyExists`], anything else to `Database`.
    pub(crate) fn unique_as(what: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
        move |error| match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::AlreadyExists { what }
            }
            _ => StoreError::Database(error),
        }
    }

    pub(crate) fn invalid_row(column: &'static str, reason: impl ToString) -> StoreError {
        StoreError::InvalidRow {
            column,
            reason: reason.to_string(),
        }
    }
}
