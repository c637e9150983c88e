//! Admiralty's storage: the PostgreSQL pool, the schema's migrations, and queries grouped per
//! aggregate (one module each). Every query is checked against the schema at compile time
//! (`sqlx::query!` and its kin) against the metadata committed in `.sqlx/` at the workspace
//! root: `.cargo/config.toml` sets `SQLX_OFFLINE=true`, so a build needs no database. `cargo
//! sqlx prepare --workspace` (with `DATABASE_URL` a migrated database) writes it after a query
//! or a migration changes; `./scripts/test` checks it is current. Status values are
//! bound from their enums, never written into the SQL text.
//!
//! Rows are read into the domain's types here, once: ids ([`ids`]), statuses ([`status`]),
//! an engine's name, setup and roster (`games`), schedules (`schedule`), addresses and names.
//! A value those types refuse is an error, never a default.
//!
//! Time is a parameter: functions that record a moment take `now` from the caller's clock.

pub mod absences;
pub mod accounts;
pub mod archive;
pub mod audit;
pub mod bounces;
mod domain;
mod error;
pub mod games;
pub mod ids;
pub mod inbox;
pub mod issues;
pub mod login_links;
pub mod maintenance;
pub mod notices;
pub mod offers;
pub mod orders;
pub mod outbox;
pub mod paper;
pub mod personal;
pub mod players;
pub mod queues;
pub mod replacements;
pub mod schema;
pub mod sessions;
pub mod signups;
pub mod status;
pub mod submissions;
pub mod subscribers;
pub mod tells;
pub mod turns;
pub mod zines;

#[cfg(feature = "testing")]
pub mod testing;

use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::PgPoolOptions;

pub use domain::{
    DisplayName, DisplayNameError, EmailAddress, EmailAddressError, ZineSlug, ZineSlugError,
};
pub use error::StoreError;
pub use sqlx::PgPool;

/// The schema's migrations, embedded at compile time from `migrations/` at the repository root.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations");

/// How long a request waits for a free connection before giving up.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// Opens a pool and checks that the database answers.
pub async fn connect(database_url: &str, max_connections: u32) -> Result<PgPool, StoreError> {
    Ok(pool_options(max_connections).connect(database_url).await?)
}

/// Builds a pool that connects on first use: the service can start (and report itself
/// unhealthy) while the database is down.
pub fn connect_lazy(database_url: &str, max_connections: u32) -> Result<PgPool, StoreError> {
    Ok(pool_options(max_connections).connect_lazy(database_url)?)
}

fn pool_options(max_connections: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections.max(1))
        .acquire_timeout(ACQUIRE_TIMEOUT)
}

/// What a migration run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationReport {
    /// Versions applied by this run, oldest first (empty when the schema was up to date).
    pub applied: Vec<i64>,
    /// The newest version now in the database.
    pub current_version: Option<i64>,
}

/// Applies the migrations not yet applied. Safe to run concurrently and repeatedly: sqlx takes
/// an advisory lock, and a second run is a no-op.
pub async fn migrate(pool: &PgPool) -> Result<MigrationReport, StoreError> {
    let before = applied_migrations(pool).await?;
    MIGRATOR.run(pool).await?;
    let after = applied_migrations(pool).await?;
    let applied = after
        .iter()
        .copied()
        .filter(|v| !before.contains(v))
        .collect();
    Ok(MigrationReport {
        applied,
        current_version: after.last().copied(),
    })
}

/// Versions of the embedded migrations the database has not applied yet.
pub async fn pending_migrations(pool: &PgPool) -> Result<Vec<i64>, StoreError> {
    let applied = applied_migrations(pool).await?;
    Ok(MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .map(|m| m.version)
        .filter(|v| !applied.contains(v))
        .collect())
}

/// Versions recorded as successfully applied, oldest first.
pub async fn applied_migrations(pool: &PgPool) -> Result<Vec<i64>, StoreError> {
    let table_exists =
        sqlx::query_scalar!(r#"SELECT to_regclass('_sqlx_migrations') IS NOT NULL AS "exists!""#)
            .fetch_one(pool)
            .await?;
    if !table_exists {
        return Ok(Vec::new());
    }
    let versions =
        sqlx::query_scalar!("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
            .fetch_all(pool)
            .await?;
    Ok(versions)
}

/// Cheap liveness probe: one round trip to the database.
pub async fn ping(pool: &PgPool) -> Result<(), StoreError> {
    sqlx::query_scalar!(r#"SELECT 1 AS "one!""#)
        .fetch_one(pool)
        .await?;
    Ok(())
}
