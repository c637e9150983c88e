//! A scrape: the gauges read now (queues from the database, the pool from sqlx), then the text.

use std::time::Duration;

use chrono::{DateTime, Utc};
use metrics::gauge;
use metrics_exporter_prometheus::PrometheusHandle;
use store::PgPool;

/// A scrape must answer even when the database hangs: the queue gauges are then left as
/// they were, and the rest is rendered.
const DATABASE_TIMEOUT: Duration = Duration::from_secs(3);

/// The Prometheus text, with the gauges read at `now`.
pub async fn render(handle: &PrometheusHandle, pool: &PgPool, now: DateTime<Utc>) -> String {
    let in_use = pool
        .size()
        .saturating_sub(u32::try_from(pool.num_idle()).unwrap_or(u32::MAX));
    gauge!("admiralty_db_pool_connections", "state" => "in_use").set(f64::from(in_use));
    gauge!("admiralty_db_pool_connections", "state" => "idle").set(pool.num_idle() as f64);
    gauge!("admiralty_db_pool_max_connections")
        .set(f64::from(pool.options().get_max_connections()));
    match tokio::time::timeout(DATABASE_TIMEOUT, store::queues::depths(pool)).await {
        Ok(Ok(depths)) => {
            let age = |oldest: Option<DateTime<Utc>>| {
                oldest.map_or(0.0, |at| {
                    (now - at).num_milliseconds().max(0) as f64 / 1000.0
                })
            };
            gauge!("admiralty_inbound_queue_messages").set(depths.inbound_waiting as f64);
            gauge!("admiralty_inbound_oldest_age_seconds").set(age(depths.inbound_oldest));
            gauge!("admiralty_outbox_queued_messages").set(depths.outbound_queued as f64);
            gauge!("admiralty_outbox_failed_messages").set(depths.outbound_failed as f64);
            gauge!("admiralty_outbox_oldest_age_seconds").set(age(depths.outbound_oldest));
        }
        Ok(Err(error)) => tracing::warn!(%error, "metrics: cannot read the queues"),
        Err(_) => tracing::warn!("metrics: reading the queues timed out"),
    }
    handle.render()
}
