//! Logging in and out. The login form has no session yet, so its CSRF token is a double
//! submit: a random token in a short-lived cookie and in the form, which must agree. The login
//! itself is `accounts::log_in`: failures counted per name typed (existing or not) before the
//! check, an unknown name costing the same argon2 work as a wrong password, both with the
//! same answer, so nothing tells which names exist; when every password check is busy the
//! answer is a 503 page saying to try again.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::sessions::Principal;

use super::Gm;
use crate::accounts::{self, Login};
use crate::secrets;
use crate::web::csrf::{self, CsrfForm};
use crate::web::session::{self, CurrentSession};
use crate::{AppError, AppState};

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
    client: crate::clients::ClientAddress,
    headers: HeaderMap,
    axum::Form(form): axum::Form<LoginForm>,
) -> Result<Response, AppError> {
    csrf::check_pre_session(&headers, &form.csrf)?;
    let now = state.clock.now();
    let next = super::safe_next(form.next.as_deref());
    let name = form.name.trim().to_owned();
    let limits = secrets::limits();
    let from = client.0.map(|client| accounts::LoginClient {
        client,
        failures: &state.client_failures,
    });
    let login = accounts::log_in_from(
        &state.pool,
        secrets::gate(),
        &limits,
        now,
        (&name, form.password),
        from,
    )
    .await
    .map_err(|error| match error {
        accounts::AccountError::Store(error) => AppError::Store(error),
        accounts::AccountError::Password(_) => AppError::Busy,
    })?;
    let (id, account) = match login {
        Login::In { id, name } => (id, name),
        Login::Wrong => {
            return login_page(
                &state,
                StatusCode::UNAUTHORIZED,
                next,
                name,
                Some("Wrong name or password.".to_owned()),
            );
        }
        Login::LockedOut => {
            return Err(AppError::TooManyRequests(format!(
                "Too many failed logins for this name: wait {} minutes and try again.",
                limits.gm_login_window().num_minutes()
            )));
        }
        Login::ClientLockedOut => {
            return Err(AppError::TooManyRequests(format!(
                "Too many failed logins from your address: wait {} minutes and try again.",
                state.client_failures.window().num_minutes()
            )));
        }
        Login::Busy => return Err(AppError::Busy),
    };
    let principal = Principal::Gm { id, name: account };
    let session_cookie = session::start(&state, &principal, now).await?;
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
    let session = session::token_hash_in(&headers);
    accounts::log_out(&state.pool, state.clock.now(), session, &gm.actor()).await?;
    let cleared = session::cleared(&state);
    Ok(([(header::SET_COOKIE, cleared)], Redirect::to("/gm/login")).into_response())
}
