//! What `gm backup` and `gm restore` ask of the database itself: the server's version (a
//! dump tool older than the server cannot read it) and whether a database is empty (a restore
//! goes only into an empty one unless told).

use crate::{PgPool, StoreError};

/// The server's major version, e.g. 15 (from `server_version_num`, 150018).
pub async fn server_major_version(pool: &PgPool) -> Result<u32, StoreError> {
    let number = sqlx::query_scalar!(
        r#"SELECT current_setting('server_version_num')::integer AS "number!""#
    )
    .fetch_one(pool)
    .await?;
    Ok(u32::try_from(number / 10_000).unwrap_or(0))
}

/// Tables, views, sequences and functions of anyone but PostgreSQL itself: zero in a database
/// fresh from `CREATE DATABASE`.
pub async fn user_objects(pool: &PgPool) -> Result<i64, StoreError> {
    let count = sqlx::query_scalar!(
        r#"SELECT (
             (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
                 AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%')
           + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))
           + (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
               WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
                 AND t.typtype = 'e')
           ) AS "count!""#
    )
    .fetch_one(pool)
    .await?;
    Ok(count)
}
