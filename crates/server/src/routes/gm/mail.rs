//! The mail queues: inbound messages (failed ones with their error, and retry) and outbound
//! messages (queued, sent, failed, and resend).

use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use std::str::FromStr;

use store::inbox::InboundId;
use store::outbox::OutboundId;
use store::status::{InboundStatus, OutboundStatus};

use super::{Chrome, Gm};
use crate::mailroom::Retry;
use crate::turns::LifecycleError;
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    status: Option<String>,
    done: Option<String>,
    /// The outbox's paging: messages older (a lower id) than this.
    before: Option<OutboundId>,
}

/// The status a list shows: the one asked for, or the first of `shown`.
fn pick<S: Copy + FromStr>(wanted: Option<&str>, shown: &[S]) -> Result<S, AppError> {
    match wanted {
        None | Some("") => shown.first().copied().ok_or(AppError::NotFound),
        Some(wanted) => wanted
            .parse()
            .map_err(|_| AppError::BadRequest(format!("unknown status {wanted:?}"))),
    }
}

struct InboundRow {
    id: InboundId,
    message_id: String,
    from: String,
    subject: String,
    via: String,
    received: String,
    error: String,
    attempts: i32,
    excerpt: String,
    /// "over TLS", "in clear", or nothing for a door that cannot tell.
    tls: &'static str,
    /// What SPF, DKIM and DMARC said, in one line.
    auth: String,
    /// Fails DMARC under a reject or quarantine policy.
    forged: bool,
}

/// The authentication results as the inbox shows them.
fn auth_line(auth: Option<store::inbox::MailAuth>) -> String {
    match auth {
        None => "not checked".to_owned(),
        Some(auth) => format!(
            "SPF {} · DKIM {} · DMARC {}{}",
            auth.spf,
            auth.dkim,
            auth.dmarc,
            auth.dmarc_policy
                .map(|p| format!(" (p={p})"))
                .unwrap_or_default()
        ),
    }
}

#[derive(Template)]
#[template(path = "gm/inbox.html")]
struct InboxPage {
    chrome: Chrome,
    status: InboundStatus,
    statuses: &'static [InboundStatus],
    messages: Vec<InboundRow>,
}

/// The lists, in the order the page offers them (the first is the default).
const INBOUND: &[InboundStatus] = &[
    InboundStatus::Failed,
    InboundStatus::New,
    InboundStatus::Processed,
    InboundStatus::Dropped,
];
const OUTBOUND: &[OutboundStatus] = &[
    OutboundStatus::Queued,
    OutboundStatus::Failed,
    OutboundStatus::Sent,
];

pub(crate) async fn get_inbox(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<ListQuery>,
) -> Result<Html<String>, AppError> {
    let status = pick(query.status.as_deref(), INBOUND)?;
    let messages = crate::views::gm_console::inbox(&state.pool, status)
        .await?
        .into_iter()
        .map(|m| {
            let (from, subject) = mail::sender_and_subject(&m.head);
            InboundRow {
                id: m.id,
                from: from.unwrap_or_else(|| "(no From:)".to_owned()),
                subject: subject.unwrap_or_else(|| "(no subject)".to_owned()),
                message_id: m.message_id,
                via: m.received_via,
                received: super::when(&m.received_at),
                error: m.error.unwrap_or_default(),
                attempts: m.attempts,
                excerpt: m.excerpt,
                tls: match m.over_tls {
                    Some(true) => "over TLS",
                    Some(false) => "in clear",
                    None => "",
                },
                forged: m.auth.is_some_and(|a| a.forged_by_policy()),
                auth: auth_line(m.auth),
            }
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
    Path(id): Path<InboundId>,
    CsrfForm(_): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let retried = crate::mailroom::retry_inbound(
        &state.pool,
        &state.states,
        state.clock.now(),
        Retry::One(id),
        &gm.actor(),
        state.inbox_settings(),
    )
    .await
    .map_err(|e| match e {
        LifecycleError::Store(error) => AppError::Store(error),
        other => AppError::Conflict(format!("Processing the queue failed: {other}.")),
    })?;
    if retried.requeued == 0 {
        return Err(AppError::Conflict(
            "Only a message whose processing failed can be retried.".into(),
        ));
    }
    Ok(Redirect::to("/gm/inbox?status=failed&done=retried").into_response())
}

struct OutboundRow {
    id: OutboundId,
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
    status: OutboundStatus,
    statuses: &'static [OutboundStatus],
    messages: Vec<OutboundRow>,
    /// The next page's `before`, when there are older messages.
    older: Option<OutboundId>,
    first_page: bool,
    /// Whether this server sends mail (an SMTP relay is configured).
    relay: bool,
}

pub(crate) async fn get_outbox(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<ListQuery>,
) -> Result<Html<String>, AppError> {
    let status = pick(query.status.as_deref(), OUTBOUND)?;
    let (found, older) =
        crate::views::gm_console::outbox(&state.pool, status, query.before).await?;
    let messages = found
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
        older,
        first_page: query.before.is_none(),
        relay: state.relay_configured,
    };
    Ok(Html(page.render()?))
}

pub(crate) async fn post_outbox_resend(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<OutboundId>,
    CsrfForm(_): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let resent = crate::mailroom::resend_outbound(&state.pool, state.clock.now(), id, &gm.actor())
        .await
        .map_err(|e| match e {
            LifecycleError::Store(error) => AppError::Store(error),
            other => AppError::Conflict(format!("{other}.")),
        })?;
    if !resent {
        return Err(AppError::Conflict(
            "Only a sent or failed message can be sent again.".into(),
        ));
    }
    Ok(Redirect::to("/gm/outbox?status=queued&done=resent").into_response())
}
