//! Metrics in Prometheus's text format (the list: docs/operations.md#metrics). The `metrics`
//! facade is called where things happen; `gm serve` installs the Prometheus recorder only when
//! the metrics are served (`ADMIRALTY_METRICS_TOKEN` or `ADMIRALTY_METRICS_LISTEN`), so without
//! them every call here is a no-op. Counters move only once what they count has committed.
//! The queue gauges are read from the database at scrape time, not kept up to date.
//!
//! Every name and label value is here, and every label set is bounded (an HTTP request is
//! labelled by its route's template, never its path).

pub mod http;
mod scrape;

use std::time::Duration;

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{BuildError, Matcher, PrometheusBuilder, PrometheusHandle};

pub use scrape::render;

/// Seconds: from a millisecond page to a resolution of a big game, and an hour's lag.
const SECONDS_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    300.0, 900.0, 3600.0,
];

/// Installs the process's recorder; its handle renders the text. Histograms' samples are
/// folded into their buckets on each scrape and every few seconds (`upkeep`).
pub fn install() -> Result<PrometheusHandle, BuildError> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), SECONDS_BUCKETS)?
        .install_recorder()?;
    describe();
    let upkeep = handle.clone();
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_secs(5));
        loop {
            ticks.tick().await;
            upkeep.run_upkeep();
        }
    });
    Ok(handle)
}

/// What one inbound message came to, as a bounded label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboundOutcome {
    /// Acted on, with order lines in it.
    Orders,
    /// Acted on, commands only (PRESS, STATUS, JOIN, …).
    Command,
    /// Answered with a refusal: it proved no sender.
    Refused,
    /// Not answered: automated, unreadable, or never to be answered.
    Dropped,
    /// Processing failed; kept for `gm inbox retry`.
    Failed,
}

impl InboundOutcome {
    fn label(self) -> &'static str {
        match self {
            InboundOutcome::Orders => "orders",
            InboundOutcome::Command => "command",
            InboundOutcome::Refused => "refused",
            InboundOutcome::Dropped => "dropped",
            InboundOutcome::Failed => "failed",
        }
    }
}

/// Inbound messages whose processing committed, each with how long it took.
pub fn inbound_processed(messages: &[(InboundOutcome, Duration)]) {
    for (outcome, took) in messages {
        counter!("admiralty_inbound_messages_total", "outcome" => outcome.label()).increment(1);
        histogram!("admiralty_inbound_processing_seconds").record(took.as_secs_f64());
    }
}

/// Outbound messages the relay took.
pub fn outbox_delivered(messages: usize) {
    counter!("admiralty_outbox_deliveries_total").increment(messages as u64);
}

/// Why an outbound message was not delivered this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryFailure {
    /// Will be tried again.
    Temporary,
    /// Refused for good (5xx, a bad address): given up.
    Permanent,
    /// Temporary failures until the last attempt: given up.
    Exhausted,
}

pub fn outbox_failed(class: DeliveryFailure) {
    let class = match class {
        DeliveryFailure::Temporary => "temporary",
        DeliveryFailure::Permanent => "permanent",
        DeliveryFailure::Exhausted => "exhausted",
    };
    counter!("admiralty_outbox_delivery_failures_total", "class" => class).increment(1);
}

/// A turn resolved and committed: how long the resolution took, and how long after its
/// deadline it was resolved (none for a turn the GM resolved early).
pub fn turn_resolved(took: Duration, lag: Option<chrono::Duration>) {
    counter!("admiralty_turns_resolved_total").increment(1);
    histogram!("admiralty_turn_resolution_seconds").record(took.as_secs_f64());
    if let Some(lag) = lag {
        let seconds = lag.num_milliseconds().max(0) as f64 / 1000.0;
        histogram!("admiralty_turn_resolution_lag_seconds").record(seconds);
    }
}

pub fn issue_published() {
    counter!("admiralty_issues_published_total").increment(1);
}

/// An SMTP session admitted: counted open until the guard is dropped.
pub fn smtp_session_opened() -> SmtpSession {
    gauge!("admiralty_smtp_sessions_open").increment(1.0);
    counter!("admiralty_smtp_sessions_total").increment(1);
    SmtpSession(())
}

pub struct SmtpSession(());

impl Drop for SmtpSession {
    fn drop(&mut self) {
        gauge!("admiralty_smtp_sessions_open").decrement(1.0);
    }
}

/// An SMTP client turned away with 421 by the session caps.
pub fn smtp_session_refused() {
    counter!("admiralty_smtp_sessions_refused_total").increment(1);
}

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_gauge!(
        "admiralty_inbound_queue_messages",
        "Inbound messages stored, not processed yet"
    );
    describe_gauge!(
        "admiralty_inbound_oldest_age_seconds",
        Unit::Seconds,
        "Age of the oldest unprocessed inbound message (0 when none)"
    );
    describe_counter!(
        "admiralty_inbound_messages_total",
        "Inbound messages processed, by outcome"
    );
    describe_histogram!(
        "admiralty_inbound_processing_seconds",
        Unit::Seconds,
        "Time to process one inbound message"
    );
    describe_gauge!(
        "admiralty_outbox_queued_messages",
        "Outbound messages queued (due or waiting for a retry)"
    );
    describe_gauge!(
        "admiralty_outbox_failed_messages",
        "Outbound messages given up on"
    );
    describe_gauge!(
        "admiralty_outbox_oldest_age_seconds",
        Unit::Seconds,
        "Age of the oldest queued outbound message (0 when none)"
    );
    describe_counter!(
        "admiralty_outbox_deliveries_total",
        "Outbound messages the relay accepted"
    );
    describe_counter!(
        "admiralty_outbox_delivery_failures_total",
        "Outbound delivery failures, by class"
    );
    describe_counter!("admiralty_turns_resolved_total", "Turns resolved");
    describe_histogram!(
        "admiralty_turn_resolution_seconds",
        Unit::Seconds,
        "Time to resolve, publish and queue one turn"
    );
    describe_histogram!(
        "admiralty_turn_resolution_lag_seconds",
        Unit::Seconds,
        "How long after its deadline a turn was resolved"
    );
    describe_counter!(
        "admiralty_issues_published_total",
        "Zine issues published by their rhythm"
    );
    describe_counter!(
        "admiralty_http_requests_total",
        "HTTP requests, by route template, method and status"
    );
    describe_histogram!(
        "admiralty_http_request_duration_seconds",
        Unit::Seconds,
        "HTTP request latency, by route template and method"
    );
    describe_gauge!(
        "admiralty_db_pool_connections",
        "Database connections of the pool, by state (in_use, idle)"
    );
    describe_gauge!(
        "admiralty_db_pool_max_connections",
        "The pool's largest number of connections"
    );
    describe_gauge!("admiralty_smtp_sessions_open", "SMTP sessions open");
    describe_counter!("admiralty_smtp_sessions_total", "SMTP sessions admitted");
    describe_counter!(
        "admiralty_smtp_sessions_refused_total",
        "SMTP clients refused by the session caps"
    );
}
