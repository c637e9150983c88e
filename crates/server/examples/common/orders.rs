//! Orders for a benchmark's Barmy game, inserted in one statement (`#[path]`-included by the
//! benchmarks that need them: fanout_bench, record_bench).

use chrono::{DateTime, Utc};
use games::EngineKind;
use serde_json::json;
use store::PgPool;

/// `count` players each send two shots, spread over the board. Taking 5,000 orders one by one
/// through `turns::submit_orders` (each reads the whole 10,000-ship state) would make the set-up
/// far longer than the measured part, so they are inserted in one statement; the first set is
/// checked to be exactly what the engine's own parser makes of the same text.
pub async fn submit_orders(
    pool: &PgPool,
    game: store::games::GameId,
    count: u64,
    side: u64,
    round: u64,
    now: DateTime<Utc>,
) -> anyhow::Result<u64> {
    let players: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT id, engine_player_id FROM players WHERE game_id = $1 ORDER BY engine_player_id LIMIT $2",
    )
    .bind(game)
    .bind(i64::try_from(count)?)
    .fetch_all(pool)
    .await?;
    let (turn, state): (i64, serde_json::Value) =
        sqlx::query_as("SELECT id, state_before FROM turns WHERE game_id = $1 AND status = 'open'")
            .bind(game)
            .fetch_one(pool)
            .await?;
    let columns = side.min(26);
    let square = |n: u64| {
        let column = char::from(b'A' + u8::try_from(n % columns).unwrap_or(0));
        format!("{column}{}", n / columns % side + 1)
    };
    let mut texts = Vec::new();
    let mut parsed = Vec::new();
    for (_, id) in &players {
        // A round of its own per turn, so that later turns fire at other squares.
        let n = u64::try_from(*id)? * 7 + round * 5;
        let shots = [square(n), square(n * 3 + 1)];
        texts.push(shots.join(", "));
        let shots: Vec<serde_json::Value> = shots
            .iter()
            .map(|s| json!({ "target": { "kind": "square", "square": s }, "written": s }))
            .collect();
        parsed.push(json!({ "shots": shots, "press": false }).to_string());
    }
    if let (Some((_, first)), Some(text), Some(orders)) =
        (players.first(), texts.first(), parsed.first())
    {
        let engine = EngineKind::Barmy
            .parse_state(&state)?
            .parse_orders(engine::PlayerId(u64::try_from(*first)?), text);
        let read = engine.orders.to_json()?;
        anyhow::ensure!(
            read == serde_json::from_str::<serde_json::Value>(orders)? && engine.errors.is_empty(),
            "the benchmark's orders {orders} are not what the engine reads: {read}",
        );
    }
    let ids: Vec<i64> = players.iter().map(|(id, _)| *id).collect();
    let inserted = sqlx::query(
        "INSERT INTO orders (game_id, turn_id, player_id, raw_text, parsed, source, received_at) \
         SELECT $1, $2, p, t, o::jsonb, 'email', $6 FROM UNNEST($3::bigint[], $4::text[], $5::text[]) AS x(p, t, o)",
    )
    .bind(game)
    .bind(turn)
    .bind(&ids)
    .bind(&texts)
    .bind(&parsed)
    .bind(now)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(inserted)
}
