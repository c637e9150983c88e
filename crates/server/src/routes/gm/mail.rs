//! The mail queues: inbound messages (failed ones with their error, and retry) and outbound
//! messages (queued, sent, failed, and resend).

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::StoreError;
use store::inbox::InboundId;

use super::{Chrome, Gm};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// Messages shown per list.
const SHOWN: i64 = 200;

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    status: Option<String>,
    done: Option<String>,
}

fn pick<'a>(wanted: Option<&str>, allowed: &[&'a str]) -> Result<&'a str, AppError> {
    match wanted {
        None | Some("") => allowed.first().copied().ok_or(AppError::NotFound),
        Some(wanted) => allowed
            .iter()
            .find(|s| **s == wanted)
            .copied()
            .ok_or_else(|| AppError::BadRequest(format!("unknown status {wanted:?}"))),
    }
}

struct InboundRow {
    id: i64,
    message_id: String,
    via: String,
    received: String,
    error: String,
    attempts: i32,
    excerpt: String,
}

#[derive(Template)]
#[template(path = "gm/inbox.html")]
struct InboxPage {
    chrome: Chrome,
    status: &'static str,
    statuses: &'static [&'static str],
    messages: Vec<InboundRow>,
}

const INBOUND: &[&str] = &["failed", "new", "processed", "dropped"];
const OUTBOUND: &[&str] = &["queued", "failed", "sent"];

pub(crate) async fn get_inbox(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<ListQuery>,
) -> Result<Html<String>, AppError> {
    let status = pick(query.status.as_deref(), INBOUND)?;
    let messages = store::inbox::list_by_status(&state.pool, status, SHOWN)
        .await?
        .into_iter()
        .map(|m| InboundRow {
            id: m.id.0,
            message_id: m.message_id,
            via: m.received_via,
            received: super::when(&m.received_at),
            error: m.error.unwrap_or_default(),
            attempts: m.attempts,
            excerpt: m.excerpt,
        })
        .collect();
    let page = InboxPage {
        chrome: gm.chrome(super::notice(query.done.as_deref())),
        status,
        statuses: INBOUND,
        messages,
    };
    Ok(Html(page.render()?))
}

pub(crate) async fn post_inbox_retry(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
    CsrfForm(_): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let mut tx = state.pool.begin().await.map_err(StoreError::from)?;
    if !store::inbox::retry_one(&mut *tx, InboundId(id)).await? {
        return Err(AppError::Conflict(
            "Only a message whose processing failed can be retried.".into(),
        ));
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: &gm.actor(),
            action: "inbox.retry",
            game_id: None,
            details: serde_json::json!({ "inbound": id }),
        },
        now,
    )
    .await?;
    tx.commit().await.map_err(StoreError::from)?;
    crate::inbox::process_pending(&state.pool, now, &state.mail_domain)
        .await
        .map_err(|e| AppError::Conflict(format!("Processing the queue failed: {e}.")))?;
    Ok(Redirect::to("/gm/inbox?status=failed&done=retried").into_response())
}

struct OutboundRow {
    id: i64,
    to: String,
    subject: String,
    body: String,
    attempts: i32,
    next_attempt: String,
    error: String,
    created: String,
    sent: String,
}

#[derive(Template)]
#[template(path = "gm/outbox.html")]
struct OutboxPage {
    chrome: Chrome,
    status: &'static str,
    statuses: &'static [&'static str],
    messages: Vec<OutboundRow>,
}

pub(crate) async fn get_outbox(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<ListQuery>,
) -> Result<Html<String>, AppError> {
    let status = pick(query.status.as_deref(), OUTBOUND)?;
    let messages = store::outbox::list_by_status(&state.pool, status, SHOWN)
        .await?
        .into_iter()
        .map(|m| OutboundRow {
            id: m.id,
            to: m.to_address,
            subject: m.subject,
            body: m.body_text,
            attempts: m.attempts,
            next_attempt: super::when(&m.next_attempt_at),
            error: m.last_error.unwrap_or_default(),
            created: super::when(&m.created_at),
            sent: super::when_opt(&m.sent_at),
        })
        .collect();
    let page = OutboxPage {
        chrome: gm.chrome(super::notice(query.done.as_deref())),
        status,
        statuses: OUTBOUND,
        messages,
    };
    Ok(Html(page.render()?))
}

pub(crate) async fn post_outbox_resend(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
    CsrfForm(_): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let now = state.clock.now();
    let mut tx = state.pool.begin().await.map_err(StoreError::from)?;
    if !store::outbox::requeue(&mut *tx, id, now).await? {
        return Err(AppError::Conflict(
            "Only a sent or failed message can be sent again.".into(),
        ));
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: &gm.actor(),
            action: "outbox.resend",
            game_id: None,
            details: serde_json::json!({ "outbound": id }),
        },
        now,
    )
    .await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(Redirect::to("/gm/outbox?status=queued&done=resent").into_response())
}
