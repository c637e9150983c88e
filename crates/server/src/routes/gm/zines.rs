//! Zines: the list, and adding one.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::ZineSlug;

use super::home::DoneQuery;
use super::{Chrome, Gm};
use crate::web::csrf::CsrfForm;
use crate::web::field_errors::FieldErrors;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "gm/zines.html")]
struct ZinesPage {
    chrome: Chrome,
    zines: Vec<store::zines::Zine>,
    /// The new-zine form's errors, beside their fields.
    errors: FieldErrors,
    slug: String,
    name: String,
}

async fn zines_page(
    state: &AppState,
    gm: &Gm,
    notice: Option<&str>,
    errors: FieldErrors,
    slug: String,
    name: String,
) -> Result<String, AppError> {
    let zines = crate::views::zines(&state.pool).await?;
    Ok(ZinesPage {
        chrome: gm.chrome(notice),
        zines,
        errors,
        slug,
        name,
    }
    .render()?)
}

pub(crate) async fn get_zines(
    State(state): State<AppState>,
    gm: Gm,
    Query(query): Query<DoneQuery>,
) -> Result<Html<String>, AppError> {
    let notice = super::notice(query.done.as_deref());
    Ok(Html(
        zines_page(
            &state,
            &gm,
            notice,
            FieldErrors::default(),
            String::new(),
            String::new(),
        )
        .await?,
    ))
}

#[derive(Debug, Deserialize)]
pub(crate) struct ZineForm {
    #[serde(default)]
    slug: String,
    #[serde(default)]
    name: String,
}

/// A zine's name: 1 to 200 characters, no control characters.
pub(crate) fn zine_name(input: &str) -> Result<String, String> {
    let name = input.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err("The name must be 1 to 200 characters.".into());
    }
    if name.chars().any(char::is_control) {
        return Err("The name must not contain control characters.".into());
    }
    Ok(name.to_owned())
}

pub(crate) async fn post_zine(
    State(state): State<AppState>,
    gm: Gm,
    CsrfForm(form): CsrfForm<ZineForm>,
) -> Result<Response, AppError> {
    // In the form's order, so that the first field in error is the one focused.
    let mut errors = FieldErrors::default();
    let name = zine_name(&form.name)
        .map_err(|e| errors.push("zine-name", e))
        .ok();
    let slug = ZineSlug::parse(form.slug.trim())
        .map_err(|e| errors.push("zine-slug", format!("Short name: {e}.")))
        .ok();
    if let (Some(slug), Some(name)) = (&slug, &name) {
        match crate::zines::create(&state.pool, state.clock.now(), slug, name, &gm.actor()).await {
            Ok(_) => return Ok(Redirect::to("/gm/zines?done=zine-added").into_response()),
            Err(store::StoreError::AlreadyExists { what }) => {
                errors.push(
                    "zine-slug",
                    format!("There is already {what}: choose another short name."),
                );
            }
            Err(error) => return Err(error.into()),
        }
    }
    let html = zines_page(&state, &gm, None, errors, form.slug, form.name).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}
