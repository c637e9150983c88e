//! Zines: the newsletters that host games and own subscribers.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::{StoreError, ZineSlug};

pub use crate::ids::ZineId;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Zine {
    pub id: ZineId,
    pub slug: ZineSlug,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

pub async fn insert<'e>(
    db: impl PgExecutor<'e>,
    slug: &ZineSlug,
    name: &str,
    now: DateTime<Utc>,
) -> Result<Zine, StoreError> {
    sqlx::query_as!(
        Zine,
        r#"INSERT INTO zines (slug, name, created_at) VALUES ($1, $2, $3)
           RETURNING id AS "id: ZineId", slug AS "slug: ZineSlug", name, created_at"#,
        slug as &ZineSlug,
        name.trim(),
        now,
    )
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a zine with this short name"))
}

pub async fn find_by_slug<'e>(
    db: impl PgExecutor<'e>,
    slug: &ZineSlug,
) -> Result<Option<Zine>, StoreError> {
    Ok(sqlx::query_as!(
        Zine,
        r#"SELECT id AS "id: ZineId", slug AS "slug: ZineSlug", name, created_at FROM zines
           WHERE slug = $1"#,
        slug as &ZineSlug,
    )
    .fetch_optional(db)
    .await?)
}

/// All zines, oldest first.
pub async fn list<'e>(db: impl PgExecutor<'e>) -> Result<Vec<Zine>, StoreError> {
    Ok(sqlx::query_as!(
        Zine,
        r#"SELECT id AS "id: ZineId", slug AS "slug: ZineSlug", name, created_at FROM zines
           ORDER BY id"#,
    )
    .fetch_all(db)
    .await?)
}

/// Arbitrary constant for `pg_advisory_xact_lock`: two processes seeding at once seed once.
const SEED_LOCK_KEY: i64 = 0x4144_4d5f_4445_4d4f; // "ADM_DEMO"

/// Holds, until this transaction ends, the lock that keeps two processes from seeding demo data
/// into an empty database at once.
pub async fn lock_seeding(tx: &mut sqlx::PgConnection) -> Result<(), StoreError> {
    sqlx::query!("SELECT pg_advisory_xact_lock($1)", SEED_LOCK_KEY)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

pub async fn count<'e>(db: impl PgExecutor<'e>) -> Result<i64, StoreError> {
    Ok(
        sqlx::query_scalar!(r#"SELECT count(*) AS "zines!" FROM zines"#)
            .fetch_one(db)
            .await?,
    )
}

pub async fn find<'e>(db: impl PgExecutor<'e>, id: ZineId) -> Result<Option<Zine>, StoreError> {
    Ok(sqlx::query_as!(
        Zine,
        r#"SELECT id AS "id: ZineId", slug AS "slug: ZineSlug", name, created_at FROM zines
           WHERE id = $1"#,
        id as ZineId,
    )
    .fetch_optional(db)
    .await?)
}
