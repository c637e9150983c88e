//! Logging in and out. The login form has no session yet, so its CSRF token is a double
//! submit: a random token in a short-lived cookie and in the form, which must agree. Failures
//! are counted per name typed (existing or not) and limited; an unknown name costs the same
//! argon2 time as a wrong password, and both get the same answer, so nothing tells which names
//! exist.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Duration;
use serde::Deserialize;
use store::sessions::Principal;

use super::Gm;
use crate::web::csrf::{self, CsrfForm};
use crate::web::password;
use crate::web::session::{self, CurrentSession};
use crate::{AppError, AppState};

/// Failed logins allowed per name within [`FAILURE_WINDOW`].
pub(crate) const MAX_FAILURES: i64 = 5;
pub(crate) const FAILURE_WINDOW: Duration = Duration::minutes(15);

#[derive(Template)]
#[template(path = "gm/login.html")]
struct LoginPage {
    csrf: String,
    next: String,
    name: String,
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct NextQuery {
    next: Option<String>,
}

fn login_page(
    state: &AppState,
    status: StatusCode,
    next: String,
    name: String,
    error: Option<String>,
) -> Result<Response, AppError> {
    let (csrf, cookie) = csrf::pre_session_token(state);
    let page = LoginPage {
        csrf,
        next,
        name,
        error,
    };
    Ok((status, [(header::SET_COOKIE, cookie)], Html(page.render()?)).into_response())
}

pub(crate) async fn get_login(
    State(state): State<AppState>,
    CurrentSession(session): CurrentSession,
    Query(query): Query<NextQuery>,
) -> Result<Response, AppError> {
    let next = super::safe_next(query.next.as_deref());
    if matches!(session.map(|s| s.principal), Some(Principal::Gm { .. })) {
        return Ok(Redirect::to(&next).into_response());
    }
    login_page(&state, StatusCode::OK, next, String::new(), None)
}

#[derive(Debug, Deserialize)]
pub(crate) struct LoginForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    next: Option<String>,
}

pub(crate) async fn post_login(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<LoginForm>,
) -> Result<Response, AppError> {
    csrf::check_pre_session(&headers, &form.csrf)?;
    let now = state.clock.now();
    let next = super::safe_next(form.next.as_deref());
    let name = form.name.trim().to_owned();
    let failures =
        store::accounts::login_failures_since(&state.pool, &name, now - FAILURE_WINDOW).await?;
    if failures >= MAX_FAILURES {
        return Err(AppError::TooManyRequests(format!(
            "Too many failed logins for this name: wait {} minutes and try again.",
            FAILURE_WINDOW.num_minutes()
        )));
    }
    let credentials = store::accounts::gm_credentials(&state.pool, &name).await?;
    let password = form.password;
    // argon2 takes a while on purpose: keep it off the async workers.
    let checked = tokio::task::spawn_blocking(move || match credentials {
        Some(account) if password::verify(&account.password_hash, &password) => Some(account),
        Some(_) => None,
        None => {
            password::verify_nothing(&password);
            None
        }
    })
    .await
    .ok()
    .flatten();
    let Some(account) = checked else {
        store::accounts::record_login_failure(&state.pool, &name, now).await?;
        return login_page(
            &state,
            StatusCode::UNAUTHORIZED,
            next,
            name,
            Some("Wrong name or password.".to_owned()),
        );
    };
    let principal = Principal::Gm {
        id: account.id,
        name: account.name.clone(),
    };
    let session_cookie = session::start(&state, &principal, now).await?;
    store::audit::append(
        &state.pool,
        &store::audit::NewAuditEntry {
            actor: &format!("gm:{}", account.name),
            action: "gm.login",
            game_id: None,
            details: serde_json::json!({}),
        },
        now,
    )
    .await?;
    let mut response = Redirect::to(&next).into_response();
    let headers = response.headers_mut();
    headers.append(header::SET_COOKIE, session_cookie);
    headers.append(header::SET_COOKIE, csrf::clear_pre_session(&state));
    Ok(response)
}

pub(crate) async fn post_logout(
    State(state): State<AppState>,
    gm: Gm,
    headers: HeaderMap,
    CsrfForm(_): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let cleared = session::end(&state, &headers).await?;
    store::audit::append(
        &state.pool,
        &store::audit::NewAuditEntry {
            actor: &gm.actor(),
            action: "gm.logout",
            game_id: None,
            details: serde_json::json!({}),
        },
        state.clock.now(),
    )
    .await?;
    Ok(([(header::SET_COOKIE, cleared)], Redirect::to("/gm/login")).into_response())
}
