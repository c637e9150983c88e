//! Demo data for a fresh local database, so `./scripts/run` shows something at once.

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::subscribers::{self, NewSubscriber};
use crate::zines::{self, ZineId};
use crate::{DisplayName, EmailAddress, PgPool, StoreError, ZineSlug, audit};

/// Short name of the demo zine.
pub const DEMO_ZINE_SLUG: &str = "demo";

const DEMO_ZINE_NAME: &str = "The Admiralty Gazette (demo)";

/// `(address, display name)`: `example.org` addresses never reach a real mailbox.
const DEMO_SUBSCRIBERS: [(&str, &str); 4] = [
    ("nelson@example.org", "Horatio Nelson"),
    ("villeneuve@example.org", "Pierre Villeneuve"),
    ("gravina@example.org", "Federico Gravina"),
    ("collingwood@example.org", "Cuthbert Collingwood"),
];

/// Arbitrary constant for `pg_advisory_xact_lock`: two processes seeding at once seed once.
const SEED_LOCK_KEY: i64 = 0x4144_4d5f_4445_4d4f; // "ADM_DEMO"

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedOutcome {
    /// The database already had a zine; nothing was written.
    AlreadyPopulated,
    Seeded {
        zine: ZineId,
        subscribers: usize,
    },
}

/// Writes the demo zine and a few subscribers when the database has no zine at all.
pub async fn seed_if_empty(pool: &PgPool, now: DateTime<Utc>) -> Result<SeedOutcome, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(SEED_LOCK_KEY)
        .execute(&mut *tx)
        .await?;
    if zines::count(&mut *tx).await? > 0 {
        return Ok(SeedOutcome::AlreadyPopulated);
    }

    let slug = ZineSlug::parse(DEMO_ZINE_SLUG)
        .map_err(|e| StoreError::invalid_row("demo zine slug", e))?;
    let zine = zines::insert(&mut *tx, &slug, DEMO_ZINE_NAME, now).await?;
    for (address, name) in DEMO_SUBSCRIBERS {
        let new = NewSubscriber {
            zine_id: zine.id,
            email: EmailAddress::parse(address)
                .map_err(|e| StoreError::invalid_row("demo subscriber email", e))?,
            display_name: DisplayName::parse(name)
                .map_err(|e| StoreError::invalid_row("demo subscriber name", e))?,
        };
        subscribers::insert(&mut *tx, &new, now).await?;
    }

    // Seam: once the rules engines exist, create the demo game here (with its players drawn
    // from the subscribers above and its first turn open), in this same transaction.

    let entry = audit::NewAuditEntry {
        actor: "system",
        action: "demo.seed",
        game_id: None,
        details: json!({ "zine": DEMO_ZINE_SLUG, "subscribers": DEMO_SUBSCRIBERS.len() }),
    };
    audit::append(&mut *tx, &entry, now).await?;
    tx.commit().await?;
    Ok(SeedOutcome::Seeded {
        zine: zine.id,
        subscribers: DEMO_SUBSCRIBERS.len(),
    })
}
