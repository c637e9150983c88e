//! Players log in by a link mailed to them: no password to remember. Asking for a link always
//! gets the same answer, so the form tells nobody who is subscribed; an address gets at most
//! [`LINKS_PER_HOUR`] link mails an hour (the rest are audited, not sent). Opening the link shows
//! a "Log in" button, and only pressing it (a POST with a CSRF token) uses the link: mail
//! scanners that fetch every link in a message use nothing.

use askama::Template;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use store::EmailAddress;
use store::outbox::NewOutbound;
use store::sessions::Principal;
use store::subscribers::Subscriber;

use crate::web::csrf::{self, CsrfForm};
use crate::web::session::{self, CurrentSession, token_hash};
use crate::{AppError, AppState};

/// How long a mailed link works.
pub(crate) const LINK_LIFETIME: Duration = Duration::minutes(30);
/// Link mails one address may be sent in an hour.
pub(crate) const LINKS_PER_HOUR: i64 = 3;
/// The outbox's idempotency keys of link mails start with this (the rate limit counts them).
const LINK_MAIL_KIND: &str = "login:";

#[derive(Template)]
#[template(path = "player/login.html")]
struct LoginPage {
    csrf: String,
    email: String,
    error: Option<String>,
    /// Set once a link was asked for: the page says the same whoever asked.
    sent: bool,
}

fn login_page(
    state: &AppState,
    status: StatusCode,
    email: String,
    error: Option<String>,
    sent: bool,
) -> Result<Response, AppError> {
    let (csrf, cookie) = csrf::pre_session_token(state);
    let page = LoginPage {
        csrf,
        email,
        error,
        sent,
    };
    Ok((status, [(header::SET_COOKIE, cookie)], Html(page.render()?)).into_response())
}

pub(crate) async fn get_login(
    State(state): State<AppState>,
    CurrentSession(session): CurrentSession,
) -> Result<Response, AppError> {
    if matches!(session.map(|s| s.principal), Some(Principal::Subscriber(_))) {
        return Ok(Redirect::to("/me").into_response());
    }
    login_page(&state, StatusCode::OK, String::new(), None, false)
}

#[derive(Debug, Deserialize)]
pub(crate) struct LoginForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    email: String,
}

pub(crate) async fn post_login(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<LoginForm>,
) -> Result<Response, AppError> {
    csrf::check_pre_session(&headers, &form.csrf)?;
    let typed = form.email.trim().to_owned();
    let Ok(email) = EmailAddress::parse(&typed) else {
        return login_page(
            &state,
            StatusCode::UNPROCESSABLE_ENTITY,
            typed,
            Some("That is not an email address: write it as name@example.org.".to_owned()),
            false,
        );
    };
    let now = state.clock.now();
    let subscriptions = store::subscribers::active_by_email(&state.pool, &email).await?;
    if !subscriptions.is_empty() {
        send_link(&state, &email, &subscriptions, now).await?;
    }
    login_page(&state, StatusCode::OK, String::new(), None, true)
}

/// Mails one link per active subscription of the address (a subscriber of two zines logs in to
/// either), unless the address had its [`LINKS_PER_HOUR`] already.
async fn send_link(
    state: &AppState,
    email: &EmailAddress,
    subscriptions: &[Subscriber],
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    let mut tx = state.pool.begin().await.map_err(store::StoreError::from)?;
    let recent = store::outbox::count_sent_to_since(
        &mut *tx,
        LINK_MAIL_KIND,
        email.as_str(),
        now - Duration::hours(1),
    )
    .await?;
    let subscriber_ids: Vec<i64> = subscriptions.iter().map(|s| s.id.0).collect();
    if recent >= LINKS_PER_HOUR {
        audit(
            &mut tx,
            "player.login_link_refused",
            json!({ "subscribers": subscriber_ids, "links_last_hour": recent }),
            now,
        )
        .await?;
        tx.commit().await.map_err(store::StoreError::from)?;
        return Ok(());
    }
    store::login_links::delete_expired(&mut *tx, now).await?;
    let mut links = String::new();
    for subscription in subscriptions {
        let token = crate::web::random_hex(32);
        store::login_links::insert(
            &mut *tx,
            &token_hash(&token),
            subscription.id,
            now,
            now + LINK_LIFETIME,
        )
        .await?;
        let zine = store::zines::find(&mut *tx, subscription.zine_id)
            .await?
            .map_or_else(|| "Admiralty".to_owned(), |z| z.name);
        links.push_str(&format!(
            "{zine} (as {}):\n{}/login/{token}\n\n",
            subscription.display_name.as_str(),
            state.base_url.as_str()
        ));
    }
    let body = format!(
        "Someone (we hope you) asked to log in to Admiralty's player pages as {address}.\n\n\
         {links}Open the link and press \"Log in\". Each link works once, for {minutes} minutes.\n\
         If you did not ask for it, ignore this mail: nothing happens.\n",
        address = email.as_str(),
        minutes = LINK_LIFETIME.num_minutes(),
    );
    let id = crate::web::random_hex(16);
    let headers = store::outbox::Headers {
        auto_submitted: Some(store::outbox::AutoSubmitted::AutoGenerated),
        ..store::outbox::Headers::default()
    };
    store::outbox::enqueue(
        &mut *tx,
        &NewOutbound {
            message_id: &format!("<login.{id}@{}>", state.mail_domain),
            idempotency_key: &format!("{LINK_MAIL_KIND}{id}"),
            to_address: email.as_str(),
            subject: "Your Admiralty login link",
            body_text: &body,
            body_html: None,
            headers: &headers,
        },
        now,
    )
    .await?;
    audit(
        &mut tx,
        "player.login_link",
        json!({ "subscribers": subscriber_ids }),
        now,
    )
    .await?;
    tx.commit().await.map_err(store::StoreError::from)?;
    Ok(())
}

async fn audit(
    tx: &mut sqlx::PgConnection,
    action: &str,
    details: Value,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "web",
            action,
            game_id: None,
            details,
        },
        now,
    )
    .await?;
    Ok(())
}

/// A token as mailed: 64 lower-case hex digits. Anything else is no link of ours.
fn well_formed(token: &str) -> bool {
    token.len() == 64
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[derive(Template)]
#[template(path = "player/link.html")]
struct LinkPage {
    csrf: String,
    token: String,
}

#[derive(Template)]
#[template(path = "player/link_dead.html")]
struct DeadLinkPage;

/// A link that is unknown, used, expired, or whose subscription ended: one answer for all, with
/// the way to ask for another.
fn dead_link() -> Result<Response, AppError> {
    Ok((StatusCode::GONE, Html(DeadLinkPage.render()?)).into_response())
}

pub(crate) async fn get_link(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> Result<Response, AppError> {
    if !well_formed(&token) {
        return dead_link();
    }
    let usable =
        store::login_links::usable(&state.pool, &token_hash(&token), state.clock.now()).await?;
    if usable.is_none() {
        return dead_link();
    }
    let (csrf, cookie) = csrf::pre_session_token(&state);
    let page = LinkPage { csrf, token };
    Ok(([(header::SET_COOKIE, cookie)], Html(page.render()?)).into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct LinkForm {
    #[serde(default)]
    csrf: String,
}

pub(crate) async fn post_link(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<LinkForm>,
) -> Result<Response, AppError> {
    csrf::check_pre_session(&headers, &form.csrf)?;
    if !well_formed(&token) {
        return dead_link();
    }
    let now = state.clock.now();
    let Some(subscriber) =
        store::login_links::consume(&state.pool, &token_hash(&token), now).await?
    else {
        return dead_link();
    };
    let session_cookie = session::start(&state, &Principal::Subscriber(subscriber), now).await?;
    store::audit::append(
        &state.pool,
        &store::audit::NewAuditEntry {
            actor: &format!("subscriber:{}", subscriber.0),
            action: "player.login",
            game_id: None,
            details: json!({}),
        },
        now,
    )
    .await?;
    let mut response = Redirect::to("/me").into_response();
    let headers = response.headers_mut();
    headers.append(header::SET_COOKIE, session_cookie);
    headers.append(header::SET_COOKIE, csrf::clear_pre_session(&state));
    Ok(response)
}

pub(crate) async fn post_logout(
    State(state): State<AppState>,
    headers: HeaderMap,
    CsrfForm(_): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let cleared = session::end(&state, &headers).await?;
    Ok(([(header::SET_COOKIE, cleared)], Redirect::to("/login")).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_tokens_are_well_formed() {
        assert!(well_formed(&"a1".repeat(32)));
        assert!(!well_formed(&"A1".repeat(32)));
        assert!(!well_formed(&"a1".repeat(31)));
        assert!(!well_formed(&format!("{}g", "a".repeat(63))));
        assert!(!well_formed(""));
    }
}
