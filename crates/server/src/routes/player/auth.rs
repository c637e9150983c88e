//! Players log in by a link mailed to them: no password to remember. Asking for a link always
//! gets the same answer, so the form tells nobody who is subscribed; an address gets at most
//! `ADMIRALTY_LOGIN_LINKS_PER_HOUR` link mails an hour (the rest are audited, not sent).
//! Opening the link shows a "Log in" button, and only pressing it (a POST with a CSRF token)
//! uses the link: mail scanners that fetch every link in a message use nothing.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::EmailAddress;
use store::sessions::Principal;

use crate::web::Path;
use crate::web::csrf::{self, CsrfForm};
use crate::web::session::{self, CurrentSession};
use crate::{AppError, AppState};

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
    crate::logins::mail_links(
        &state.pool,
        state.clock.now(),
        &email,
        crate::secrets::limits().login_links_per_hour,
        state.base_url.as_str(),
        &state.mail_domain,
    )
    .await?;
    login_page(&state, StatusCode::OK, String::new(), None, true)
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
    if !crate::logins::link_usable(&state.pool, state.clock.now(), &token).await? {
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
    let Some(subscriber) = crate::logins::use_link(&state.pool, now, &token).await? else {
        return dead_link();
    };
    let session_cookie = session::start(&state, &Principal::Subscriber(subscriber), now).await?;
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
