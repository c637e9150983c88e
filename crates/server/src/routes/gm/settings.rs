//! The GM's own settings: the address the GM's digest goes to and the kinds it tells
//! (`crate::digest`). A bad address shows the form again with everything typed kept.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use store::EmailAddress;
use store::status::NoticeKind;

use super::{Chrome, Gm, notice, when};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

struct KindRow {
    value: &'static str,
    heading: &'static str,
    on: bool,
}

#[derive(Template)]
#[template(path = "gm/settings.html")]
struct SettingsPage {
    chrome: Chrome,
    email: String,
    error: Option<String>,
    kinds: Vec<KindRow>,
    last_sent: Option<String>,
}

#[derive(serde::Deserialize)]
pub(crate) struct Done {
    done: Option<String>,
}

fn kind_rows(is_on: impl Fn(NoticeKind) -> bool) -> Vec<KindRow> {
    NoticeKind::ALL
        .iter()
        .map(|kind| KindRow {
            value: kind.as_str(),
            heading: kind.heading(),
            on: is_on(*kind),
        })
        .collect()
}

pub(crate) async fn get_settings(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<Done>,
) -> Result<Html<String>, AppError> {
    let settings = crate::views::gm_console::digest_settings(&state.pool, gm.id)
        .await?
        .ok_or(AppError::NotFound)?;
    let page = SettingsPage {
        chrome: gm.chrome(notice(query.done.as_deref())),
        email: settings
            .email
            .as_ref()
            .map_or_else(String::new, |e| e.as_str().to_owned()),
        error: None,
        kinds: kind_rows(|kind| settings.is_on(kind)),
        last_sent: settings.sent_at.as_ref().map(when),
    };
    Ok(Html(page.render()?))
}

pub(crate) async fn post_settings(
    State(state): State<AppState>,
    gm: Gm,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let typed = super::field(&pairs, "email");
    let checked: Vec<&str> = pairs
        .iter()
        .filter(|(key, _)| key == "on")
        .map(|(_, value)| value.as_str())
        .collect();
    let off: Vec<NoticeKind> = NoticeKind::ALL
        .iter()
        .copied()
        .filter(|kind| !checked.contains(&kind.as_str()))
        .collect();
    let email = match typed {
        "" => None,
        text => match EmailAddress::parse(text) {
            Ok(address) => Some(address),
            Err(error) => {
                let page = SettingsPage {
                    chrome: gm.chrome(None),
                    email: typed.to_owned(),
                    error: Some(format!("{}: {error}", "Not saved")),
                    kinds: kind_rows(|kind| !off.contains(&kind)),
                    last_sent: None,
                };
                let html = Html(page.render()?);
                return Ok((StatusCode::UNPROCESSABLE_ENTITY, html).into_response());
            }
        },
    };
    let actor = gm.actor();
    let now = state.clock.now();
    if !crate::digest::set_settings(&state.pool, gm.id, &actor, email.as_ref(), &off, now).await? {
        return Err(AppError::NotFound);
    }
    Ok(Redirect::to("/gm/settings?done=settings-saved").into_response())
}
