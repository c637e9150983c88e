//! A zine's page: its subscribers (add, edit, unsubscribe, CSV import and export) and games.

use askama::Template;
use axum::extract::{Multipart, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::StoreError;
use store::subscribers::{Subscriber, SubscriberId, SubscriberStatus};
use store::zines::Zine;

use super::games::lifecycle_error;
use super::home::{DoneQuery, GameRow, game_rows};
use super::{Chrome, Gm};
use crate::routes::find_zine;
use crate::subscriptions;
use crate::views::gm_zine;
use crate::web::Path;
use crate::web::csrf::{self, CsrfForm};
use crate::web::field_errors::FieldErrors;
use crate::web::session::CurrentSession;
use crate::{AppError, AppState};

/// The largest CSV file accepted.
const MAX_IMPORT_BYTES: usize = 1024 * 1024;

#[derive(Template)]
#[template(path = "gm/zine.html")]
struct ZinePage {
    chrome: Chrome,
    zine: Zine,
    subscribers: Vec<Subscriber>,
    games: Vec<GameRow>,
    /// Games open for sign-up (and those that started from one).
    signups: Vec<store::signups::Opening>,
    /// The add and import forms' errors, beside their fields.
    errors: FieldErrors,
    email: String,
    name: String,
    import: Option<subscriptions::ImportReport>,
    /// The rows pasted into the import form, kept when it comes back.
    import_text: String,
    bounces: Vec<store::bounces::SubscriberBounces>,
}

/// What a form of the zine's page sent, shown again beside its errors.
#[derive(Default)]
struct Entered {
    errors: FieldErrors,
    email: String,
    name: String,
    import: Option<subscriptions::ImportReport>,
    import_text: String,
}

async fn zine_page(
    state: &AppState,
    gm: &Gm,
    zine: Zine,
    notice: Option<&str>,
    entered: Entered,
) -> Result<String, AppError> {
    let desk = gm_zine::zine_desk(&state.pool, zine.id).await?;
    Ok(ZinePage {
        signups: desk.signups,
        chrome: gm.chrome(notice),
        zine,
        subscribers: desk.subscribers,
        bounces: desk.bounces,
        games: game_rows(desk.games),
        errors: entered.errors,
        email: entered.email,
        name: entered.name,
        import: entered.import,
        import_text: entered.import_text,
    }
    .render()?)
}

pub(crate) async fn get_zine(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    Query(query): Query<DoneQuery>,
) -> Result<Html<String>, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let notice = super::notice(query.done.as_deref());
    Ok(Html(
        zine_page(&state, &gm, zine, notice, Entered::default()).await?,
    ))
}

/// A subscriber's name and address, each error beside its field (`sub-name`, `sub-email`).
fn subscriber_from_form(
    form: &SubscriberForm,
) -> Result<(store::EmailAddress, store::DisplayName), FieldErrors> {
    let mut errors = FieldErrors::default();
    let name = store::DisplayName::parse(&form.name)
        .map_err(|e| errors.push("sub-name", format!("Name: {e}.")))
        .ok();
    let email = store::EmailAddress::parse(&form.email)
        .map_err(|e| errors.push("sub-email", format!("Address: {e}.")))
        .ok();
    match (email, name) {
        (Some(email), Some(name)) => Ok((email, name)),
        _ => Err(errors),
    }
}

/// A second subscriber with the address: the address field's error.
fn taken(what: &str) -> FieldErrors {
    FieldErrors::one(
        "sub-email",
        format!("There is already {what} in this zine."),
    )
}

#[derive(Debug, Deserialize)]
pub(crate) struct SubscriberForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    name: String,
}

pub(crate) async fn post_subscriber(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    CsrfForm(form): CsrfForm<SubscriberForm>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let errors = match subscriber_from_form(&form) {
        Ok((email, display_name)) => {
            let added = subscriptions::add(
                &state.pool,
                state.clock.now(),
                &zine,
                email,
                display_name,
                &gm.actor(),
            )
            .await;
            match added {
                Ok(_) => {
                    let to = format!("/gm/zines/{}?done=subscriber-added", zine.slug);
                    return Ok(Redirect::to(&to).into_response());
                }
                Err(StoreError::AlreadyExists { what }) => taken(what),
                Err(error) => return Err(error.into()),
            }
        }
        Err(errors) => errors,
    };
    let entered = Entered {
        errors,
        email: form.email,
        name: form.name,
        ..Entered::default()
    };
    let html = zine_page(&state, &gm, zine, None, entered).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}

pub(crate) async fn post_import(
    State(state): State<AppState>,
    gm: Gm,
    CurrentSession(session): CurrentSession,
    Path(slug): Path<String>,
    mut form: Multipart,
) -> Result<Response, AppError> {
    let session = session.ok_or(AppError::LoginRequired)?;
    csrf::check_multipart(&session, &mut form).await?;
    let zine = find_zine(&state, &slug).await?;
    let mut entered = Entered::default();
    let data = match read_upload(&mut form, &mut entered.import_text).await {
        Ok(data) if data.iter().all(u8::is_ascii_whitespace) => {
            entered.errors.push(
                "import-file",
                "Choose a CSV file (or paste rows) to import.",
            );
            None
        }
        Ok(data) => Some(data),
        Err(error) => {
            entered.errors.push("import-file", error);
            None
        }
    };
    if let Some(data) = data {
        let report =
            subscriptions::import(&state.pool, state.clock.now(), &zine, &data, &gm.actor())
                .await?;
        // The rows pasted are added now: only the refused ones are worth keeping.
        if report.problems.is_empty() {
            entered.import_text.clear();
        }
        entered.import = Some(report);
    }
    let status = match &entered.import {
        Some(report) if report.problems.is_empty() => StatusCode::OK,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let html = zine_page(&state, &gm, zine, None, entered).await?;
    Ok((status, Html(html)).into_response())
}

/// The upload's rows (the file's, then those pasted, kept in `pasted`); an upload that cannot
/// be read, or is too large, is the file field's error.
async fn read_upload(form: &mut Multipart, pasted: &mut String) -> Result<Vec<u8>, String> {
    let unreadable = |e: axum::extract::multipart::MultipartError| {
        format!("The upload could not be read ({e}): choose the file again.")
    };
    let mut data = Vec::new();
    while let Some(field) = form.next_field().await.map_err(unreadable)? {
        let name = field.name().map(str::to_owned);
        if matches!(name.as_deref(), Some("file" | "text")) {
            let bytes = field.bytes().await.map_err(unreadable)?;
            if name.as_deref() == Some("text") {
                *pasted = String::from_utf8_lossy(&bytes).into_owned();
            }
            if data.len() + bytes.len() > MAX_IMPORT_BYTES {
                return Err(format!(
                    "The CSV is larger than {} KiB: split it and import each part.",
                    MAX_IMPORT_BYTES / 1024
                ));
            }
            if !bytes.is_empty() && !data.is_empty() && !data.ends_with(b"\n") {
                data.push(b'\n');
            }
            data.extend_from_slice(&bytes);
        }
    }
    Ok(data)
}

pub(crate) async fn get_export(
    State(state): State<AppState>,
    _gm: Gm,
    Path(slug): Path<String>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let rows = gm_zine::subscribers(&state.pool, zine.id).await?;
    let mut writer = csv::Writer::from_writer(Vec::new());
    let write = |writer: &mut csv::Writer<Vec<u8>>, cells: [&str; 4]| {
        writer
            .write_record(cells.map(subscriptions::csv_cell_out))
            .map_err(|e| AppError::BadRequest(e.to_string()))
    };
    write(&mut writer, ["email", "name", "status", "subscribed_at"])?;
    for s in &rows {
        let since = s.created_at.to_rfc3339();
        write(
            &mut writer,
            [
                s.email.as_str(),
                s.display_name.as_str(),
                s.status.as_str(),
                &since,
            ],
        )?;
    }
    let body = writer
        .into_inner()
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    let disposition = format!("attachment; filename=\"{}-subscribers.csv\"", zine.slug);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response())
}

#[derive(Template)]
#[template(path = "gm/subscriber.html")]
struct SubscriberPage {
    chrome: Chrome,
    zine: Zine,
    subscriber: Subscriber,
    /// Sends orders on paper or by phone: the GM enters them (`crate::postal`).
    postal: bool,
    errors: FieldErrors,
    email: String,
    name: String,
    /// Their address's bounces, and whether delivery to it is suspended.
    bounces: Option<store::bounces::SubscriberBounces>,
}

async fn find_subscriber(
    state: &AppState,
    id: SubscriberId,
) -> Result<(Subscriber, Zine), AppError> {
    gm_zine::subscriber(&state.pool, id)
        .await?
        .ok_or(AppError::NotFound)
}

/// Marks the subscriber postal or not (the `postal` checkbox), then back to their page.
pub(crate) async fn post_subscriber_postal(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<SubscriberId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let postal = super::field(&pairs, "postal") == "on";
    let changed =
        crate::postal::set_postal(&state.pool, state.clock.now(), id, postal, &gm.actor())
            .await
            .map_err(|error| AppError::Conflict(format!("{error}.")))?;
    if !changed {
        return Err(AppError::NotFound);
    }
    Ok(Redirect::to(&format!("/gm/subscribers/{id}")).into_response())
}

pub(crate) async fn get_subscriber(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<SubscriberId>,
) -> Result<Html<String>, AppError> {
    let (subscriber, zine) = find_subscriber(&state, id).await?;
    let page = SubscriberPage {
        postal: gm_zine::is_postal(&state.pool, subscriber.id).await?,
        bounces: gm_zine::bounces(&state.pool, subscriber.id).await?,
        chrome: gm.chrome(None),
        zine,
        email: subscriber.email.to_string(),
        name: subscriber.display_name.to_string(),
        subscriber,
        errors: FieldErrors::default(),
    };
    Ok(Html(page.render()?))
}

pub(crate) async fn post_subscriber_edit(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<SubscriberId>,
    CsrfForm(form): CsrfForm<SubscriberForm>,
) -> Result<Response, AppError> {
    let (subscriber, zine) = find_subscriber(&state, id).await?;
    let errors = match subscriber_from_form(&form) {
        Ok((email, name)) => {
            let edited = subscriptions::edit(
                &state.pool,
                state.clock.now(),
                &subscriber,
                &email,
                &name,
                &gm.actor(),
            )
            .await;
            match edited {
                Ok(()) => {
                    let to = format!("/gm/zines/{}?done=subscriber-saved", zine.slug);
                    return Ok(Redirect::to(&to).into_response());
                }
                Err(StoreError::AlreadyExists { what }) => taken(what),
                Err(error) => return Err(error.into()),
            }
        }
        Err(errors) => errors,
    };
    let page = SubscriberPage {
        postal: gm_zine::is_postal(&state.pool, subscriber.id).await?,
        bounces: gm_zine::bounces(&state.pool, subscriber.id).await?,
        chrome: gm.chrome(None),
        zine,
        subscriber,
        errors,
        email: form.email,
        name: form.name,
    };
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(page.render()?)).into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct StatusForm {
    #[serde(default)]
    status: String,
    /// `yes` from the confirmation page: unsubscribing is done only from there.
    #[serde(default)]
    confirm: String,
}

pub(crate) async fn post_subscriber_status(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<SubscriberId>,
    CsrfForm(form): CsrfForm<StatusForm>,
) -> Result<Response, AppError> {
    let (subscriber, zine) = find_subscriber(&state, id).await?;
    let (status, done) = match form.status.as_str() {
        "unsubscribed" if form.confirm != "yes" => {
            return Ok(Redirect::to(&format!("/gm/subscribers/{id}/unsubscribe")).into_response());
        }
        "unsubscribed" => (SubscriberStatus::Unsubscribed, "unsubscribed"),
        "active" => (SubscriberStatus::Active, "resubscribed"),
        _ => {
            return Err(AppError::BadRequest(
                "the status must be 'active' or 'unsubscribed'".into(),
            ));
        }
    };
    subscriptions::set_status(
        &state.pool,
        state.clock.now(),
        &subscriber,
        status,
        &gm.actor(),
        &state.mail_domain,
    )
    .await
    .map_err(lifecycle_error)?;
    let to = format!("/gm/zines/{}?done={done}", zine.slug);
    Ok(Redirect::to(&to).into_response())
}

/// Resumes delivery to a subscriber's address suspended after bounces (its score reset),
/// audited; then back to their page.
pub(crate) async fn post_subscriber_resume(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<SubscriberId>,
    CsrfForm(_pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let (subscriber, _) = find_subscriber(&state, id).await?;
    let via = store::audit::Via::Web;
    crate::bounces::resume(
        &state.pool,
        &subscriber,
        &gm.actor(),
        via,
        state.clock.now(),
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/subscribers/{id}")).into_response())
}
