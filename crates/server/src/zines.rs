//! Zines: made by a GM in the console, audited with the GM's name.

use chrono::{DateTime, Utc};
use store::zines::Zine;
use store::{PgPool, StoreError, ZineSlug};

/// Makes a zine; `AlreadyExists` when the short name is taken.
pub async fn create(
    pool: &PgPool,
    now: DateTime<Utc>,
    slug: &ZineSlug,
    name: &str,
    actor: &str,
) -> Result<Zine, StoreError> {
    let mut tx = pool.begin().await?;
    let zine = store::zines::insert(&mut *tx, slug, name, now).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: None,
            action: store::audit::AuditAction::ZineCreate {
                zine: zine.id,
                slug: slug.clone(),
                name: name.to_owned(),
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(zine)
}
