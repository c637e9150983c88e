//! Set-up shared by the benchmark programs (`mod common;` in each; not an example itself): a
//! zine of many subscribers and one Barmy game that all of them play (BARMY-02), made in a few
//! statements so that a 10,000-player set-up takes seconds, not the measured part's time.

use anyhow::Context;
use chrono::{DateTime, Utc};
use games::EngineKind;
use serde_json::json;
use server::turns::{self, GameSpec, OsEntropy, Schedule};
use store::games::GameId;
use store::zines::ZineId;
use store::{PgPool, ZineSlug};

/// A zine `slug` with `subscribers` active subscribers, `reader{i}.{slug}@example.org` (distinct
/// addresses, so that none reaches the reply rate limit), inserted in one statement.
pub async fn zine_with_subscribers(
    pool: &PgPool,
    slug: &str,
    subscribers: u64,
    now: DateTime<Utc>,
) -> anyhow::Result<ZineId> {
    let zine = store::zines::insert(
        pool,
        &ZineSlug::parse(slug).context("zine slug")?,
        "Bench",
        now,
    )
    .await?;
    sqlx::query(
        "INSERT INTO subscribers (zine_id, email, display_name, status, created_at) \
         SELECT $1, 'reader' || i || '.' || $4 || '@example.org', 'Reader ' || i, 'active', $2 \
         FROM generate_series(1, $3::bigint) AS i",
    )
    .bind(zine.id)
    .bind(now)
    .bind(i64::try_from(subscribers)?)
    .bind(slug)
    .execute(pool)
    .await?;
    Ok(zine.id)
}

/// The side of a square Barmy board with room for every player's ship (four squares each),
/// about half full, and never smaller than the text's 19x19 (BARMY-03).
pub fn barmy_board_side(players: u64) -> u64 {
    ((players * 8) as f64).sqrt().ceil().max(19.0) as u64
}

/// A Barmy game of every subscriber of `zine` on a `side` x `side` board, its first turn open
/// until `deadline`, made by the service's own `turns::create_game`.
pub async fn barmy_game(
    pool: &PgPool,
    zine: ZineId,
    name: &str,
    side: u64,
    now: DateTime<Utc>,
    deadline: DateTime<Utc>,
) -> anyhow::Result<GameId> {
    let setup = EngineKind::Barmy
        .parse_setup(&json!({ "width": side.min(702), "height": side.min(999) }))?;
    let spec = GameSpec {
        zine,
        name,
        setup: &setup,
        first_deadline: Some(deadline),
        schedule: Schedule::EveryDays(7),
    };
    Ok(turns::create_game(pool, now, &spec, &mut OsEntropy).await?)
}
