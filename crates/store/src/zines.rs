//! Zines: the newsletters that host games and own subscribers.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;

use crate::{StoreError, ZineSlug};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, sqlx::Type)]
#[sqlx(transparent)]
pub struct ZineId(pub i64);

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Zine {
    pub id: ZineId,
    pub slug: ZineSlug,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct ZineRow {
    id: i64,
    slug: String,
    name: String,
    created_at: DateTime<Utc>,
}

impl TryFrom<ZineRow> for Zine {
    type Error = StoreError;
    fn try_from(row: ZineRow) -> Result<Self, Self::Error> {
        Ok(Zine {
            id: ZineId(row.id),
            slug: ZineSlug::parse(&row.slug)
                .map_err(|e| StoreError::invalid_row("zines.slug", e))?,
            name: row.name,
            created_at: row.created_at,
        })
    }
}

pub async fn insert<'e>(
    db: impl PgExecutor<'e>,
    slug: &ZineSlug,
    name: &str,
    now: DateTime<Utc>,
) -> Result<Zine, StoreError> {
    let row: ZineRow = sqlx::query_as(
        "INSERT INTO zines (slug, name, created_at) VALUES ($1, $2, $3) \
         RETURNING id, slug, name, created_at",
    )
    .bind(slug.as_str())
    .bind(name.trim())
    .bind(now)
    .fetch_one(db)
    .await
    .map_err(StoreError::unique_as("a zine with this short name"))?;
    row.try_into()
}

pub async fn find_by_slug<'e>(
    db: impl PgExecutor<'e>,
    slug: &ZineSlug,
) -> Result<Option<Zine>, StoreError> {
    let row: Option<ZineRow> =
        sqlx::query_as("SELECT id, slug, name, created_at FROM zines WHERE slug = $1")
            .bind(slug.as_str())
            .fetch_optional(db)
            .await?;
    row.map(Zine::try_from).transpose()
}

/// All zines, oldest first.
pub async fn list<'e>(db: impl PgExecutor<'e>) -> Result<Vec<Zine>, StoreError> {
    let rows: Vec<ZineRow> =
        sqlx::query_as("SELECT id, slug, name, created_at FROM zines ORDER BY id")
            .fetch_all(db)
            .await?;
    rows.into_iter().map(Zine::try_from).collect()
}

/// Arbitrary constant for `pg_advisory_xact_lock`: two processes seeding at once seed once.
const SEED_LOCK_KEY: i64 = 0x4144_4d5f_4445_4d4f; // "ADM_DEMO"

/// Holds, until this transaction ends, the lock that keeps two processes from seeding demo data
/// into an empty database at once.
pub async fn lock_seeding(tx: &mut sqlx::PgConnection) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SEED_LOCK_KEY)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

pub async fn count<'e>(db: impl PgExecutor<'e>) -> Result<i64, StoreError> {
    Ok(sqlx::query_scalar("SELECT count(*) FROM zines")
        .fetch_one(db)
        .await?)
}

pub async fn find<'e>(db: impl PgExecutor<'e>, id: ZineId) -> Result<Option<Zine>, StoreError> {
    let row: Option<ZineRow> =
        sqlx::query_as("SELECT id, slug, name, created_at FROM zines WHERE id = $1")
            .bind(id)
            .fetch_optional(db)
            .await?;
    row.map(Zine::try_from).transpose()
}
