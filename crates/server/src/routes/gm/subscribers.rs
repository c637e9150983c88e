//! A zine's page: its subscribers (add, edit, unsubscribe, CSV import and export) and games.

use askama::Template;
use axum::extract::{Multipart, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::subscribers::{self, NewSubscriber, Subscriber, SubscriberId, SubscriberStatus};
use store::zines::Zine;
use store::{DisplayName, EmailAddress, StoreError, ZineSlug};

use super::home::{DoneQuery, GameRow, game_rows};
use super::{Chrome, Gm};
use crate::web::csrf::{self, CsrfForm};
use crate::web::session::CurrentSession;
use crate::{AppError, AppState};

/// The most rows one CSV import takes.
const MAX_IMPORT_ROWS: usize = 5000;
/// The largest CSV file accepted.
const MAX_IMPORT_BYTES: usize = 1024 * 1024;

#[derive(Template)]
#[template(path = "gm/zine.html")]
struct ZinePage {
    chrome: Chrome,
    zine: Zine,
    subscribers: Vec<Subscriber>,
    games: Vec<GameRow>,
    errors: Vec<String>,
    email: String,
    name: String,
    import: Option<ImportReport>,
}

/// What a CSV import did, row by row.
pub(crate) struct ImportReport {
    pub added: usize,
    pub problems: Vec<RowProblem>,
}

pub(crate) struct RowProblem {
    /// The line in the file (1-based).
    pub line: u64,
    pub row: String,
    pub problem: String,
}

async fn find_zine(state: &AppState, slug: &str) -> Result<Zine, AppError> {
    let slug = ZineSlug::parse(slug).map_err(|_| AppError::NotFound)?;
    store::zines::find_by_slug(&state.pool, &slug)
        .await?
        .ok_or(AppError::NotFound)
}

struct Entered {
    errors: Vec<String>,
    email: String,
    name: String,
    import: Option<ImportReport>,
}

async fn zine_page(
    state: &AppState,
    gm: &Gm,
    zine: Zine,
    notice: Option<&str>,
    entered: Entered,
) -> Result<String, AppError> {
    let subscribers = subscribers::list_for_zine(&state.pool, zine.id).await?;
    let games = store::games::list_summaries(&state.pool, Some(zine.id)).await?;
    Ok(ZinePage {
        chrome: gm.chrome(notice),
        zine,
        subscribers,
        games: game_rows(games),
        errors: entered.errors,
        email: entered.email,
        name: entered.name,
        import: entered.import,
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
    let entered = Entered {
        errors: Vec::new(),
        email: String::new(),
        name: String::new(),
        import: None,
    };
    Ok(Html(
        zine_page(
            &state,
            &gm,
            zine,
            super::notice(query.done.as_deref()),
            entered,
        )
        .await?,
    ))
}

#[derive(Debug, Deserialize)]
pub(crate) struct SubscriberForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    name: String,
}

/// The address and name as typed, checked; the errors in words for the form.
fn parse_subscriber(email: &str, name: &str) -> Result<(EmailAddress, DisplayName), Vec<String>> {
    let email = EmailAddress::parse(email).map_err(|e| format!("Address: {e}."));
    let name = DisplayName::parse(name).map_err(|e| format!("Name: {e}."));
    match (email, name) {
        (Ok(email), Ok(name)) => Ok((email, name)),
        (email, name) => Err([email.err(), name.err()].into_iter().flatten().collect()),
    }
}

async fn audit(
    db: &mut sqlx::PgConnection,
    gm: &Gm,
    action: &str,
    details: serde_json::Value,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    store::audit::append(
        db,
        &store::audit::NewAuditEntry {
            actor: &gm.actor(),
            action,
            game_id: None,
            details,
        },
        now,
    )
    .await?;
    Ok(())
}

pub(crate) async fn post_subscriber(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    CsrfForm(form): CsrfForm<SubscriberForm>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let errors = match parse_subscriber(&form.email, &form.name) {
        Ok((email, display_name)) => {
            let now = state.clock.now();
            let mut tx = state.pool.begin().await.map_err(StoreError::from)?;
            let new = NewSubscriber {
                zine_id: zine.id,
                email,
                display_name,
            };
            match subscribers::insert(&mut *tx, &new, now).await {
                Ok(added) => {
                    let details = serde_json::json!({ "zine": zine.id.0, "subscriber": added.id.0, "email": added.email.as_str() });
                    audit(&mut tx, &gm, "subscriber.add", details, now).await?;
                    tx.commit().await.map_err(StoreError::from)?;
                    let to = format!("/gm/zines/{}?done=subscriber-added", zine.slug);
                    return Ok(Redirect::to(&to).into_response());
                }
                Err(StoreError::AlreadyExists { what }) => {
                    vec![format!("There is already {what} in this zine.")]
                }
                Err(error) => return Err(error.into()),
            }
        }
        Err(errors) => errors,
    };
    let entered = Entered {
        errors,
        email: form.email,
        name: form.name,
        import: None,
    };
    let html = zine_page(&state, &gm, zine, None, entered).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}

/// Spreadsheets run cells that start with these as formulas: exported cells get a leading `'`,
/// which an import takes off again.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

fn csv_cell_out(text: &str) -> String {
    if text.starts_with(FORMULA_STARTS) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

fn csv_cell_in(text: &str) -> &str {
    match text.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest,
        _ => text,
    }
}

/// Reads `email,name` rows (a first row `email,name` is a header), adds the good ones and
/// reports every other row with its line and why. All in one transaction with its audit entry.
pub(crate) async fn import_csv(
    state: &AppState,
    gm: &Gm,
    zine: &Zine,
    data: &[u8],
) -> Result<ImportReport, AppError> {
    let mut report = ImportReport {
        added: 0,
        problems: Vec::new(),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(data);
    let now = state.clock.now();
    let mut tx = state.pool.begin().await.map_err(StoreError::from)?;
    let mut seen = std::collections::BTreeSet::new();
    for (index, record) in reader.records().enumerate() {
        let record = match record {
            Ok(record) => record,
            Err(error) => {
                let line = error.position().map_or(0, csv::Position::line);
                report.problems.push(RowProblem {
                    line,
                    row: String::new(),
                    problem: format!("not readable as CSV: {error}"),
                });
                continue;
            }
        };
        let line = record.position().map_or(0, csv::Position::line);
        let row = record.iter().collect::<Vec<_>>().join(",");
        let problem = |problem: String| RowProblem {
            line,
            row: row.clone(),
            problem,
        };
        if index == 0
            && record
                .get(0)
                .is_some_and(|cell| cell.eq_ignore_ascii_case("email"))
        {
            continue;
        }
        if record.iter().all(str::is_empty) {
            continue;
        }
        if index >= MAX_IMPORT_ROWS {
            report.problems.push(problem(format!(
                "not read: an import takes at most {MAX_IMPORT_ROWS} rows"
            )));
            break;
        }
        let (Some(email), Some(name), None) = (record.get(0), record.get(1), record.get(2)) else {
            report.problems.push(problem(format!(
                "expected 2 columns (email,name), found {}",
                record.len()
            )));
            continue;
        };
        let (email, display_name) = match parse_subscriber(csv_cell_in(email), csv_cell_in(name)) {
            Ok(parsed) => parsed,
            Err(errors) => {
                report.problems.push(problem(errors.join(" ")));
                continue;
            }
        };
        if !seen.insert(email.as_str().to_lowercase()) {
            report.problems.push(problem(
                "this address is on an earlier row of the file".into(),
            ));
            continue;
        }
        if subscribers::find_by_email(&mut *tx, zine.id, &email)
            .await?
            .is_some()
        {
            report
                .problems
                .push(problem("already a subscriber of this zine".into()));
            continue;
        }
        let new = NewSubscriber {
            zine_id: zine.id,
            email,
            display_name,
        };
        subscribers::insert(&mut *tx, &new, now).await?;
        report.added += 1;
    }
    let details = serde_json::json!({ "zine": zine.id.0, "added": report.added, "rejected_rows": report.problems.len() });
    audit(&mut tx, gm, "subscriber.import", details, now).await?;
    tx.commit().await.map_err(StoreError::from)?;
    Ok(report)
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
    let mut data = Vec::new();
    while let Some(field) = form
        .next_field()
        .await
        .map_err(|e| AppError::BadRequest(format!("the upload could not be read: {e}")))?
    {
        if matches!(field.name(), Some("file" | "text")) {
            let bytes = field
                .bytes()
                .await
                .map_err(|e| AppError::BadRequest(format!("the upload could not be read: {e}")))?;
            if data.len() + bytes.len() > MAX_IMPORT_BYTES {
                return Err(AppError::BadRequest(format!(
                    "the CSV is larger than {} KiB",
                    MAX_IMPORT_BYTES / 1024
                )));
            }
            if !bytes.is_empty() && !data.is_empty() && !data.ends_with(b"\n") {
                data.push(b'\n');
            }
            data.extend_from_slice(&bytes);
        }
    }
    let errors = if data.iter().all(u8::is_ascii_whitespace) {
        vec!["Choose a CSV file (or paste rows) to import.".to_owned()]
    } else {
        Vec::new()
    };
    let import = if errors.is_empty() {
        Some(import_csv(&state, &gm, &zine, &data).await?)
    } else {
        None
    };
    let status = match &import {
        Some(report) if report.problems.is_empty() => StatusCode::OK,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let entered = Entered {
        errors,
        email: String::new(),
        name: String::new(),
        import,
    };
    let html = zine_page(&state, &gm, zine, None, entered).await?;
    Ok((status, Html(html)).into_response())
}

pub(crate) async fn get_export(
    State(state): State<AppState>,
    _gm: Gm,
    Path(slug): Path<String>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let rows = subscribers::list_for_zine(&state.pool, zine.id).await?;
    let mut writer = csv::Writer::from_writer(Vec::new());
    let write = |writer: &mut csv::Writer<Vec<u8>>, cells: [&str; 4]| {
        writer
            .write_record(cells.map(csv_cell_out))
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
    errors: Vec<String>,
    email: String,
    name: String,
}

async fn find_subscriber(state: &AppState, id: i64) -> Result<(Subscriber, Zine), AppError> {
    let subscriber = subscribers::find(&state.pool, SubscriberId(id))
        .await?
        .ok_or(AppError::NotFound)?;
    let zine = store::zines::find(&state.pool, subscriber.zine_id)
        .await?
        .ok_or(AppError::NotFound)?;
    Ok((subscriber, zine))
}

pub(crate) async fn get_subscriber(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
) -> Result<Html<String>, AppError> {
    let (subscriber, zine) = find_subscriber(&state, id).await?;
    let page = SubscriberPage {
        chrome: gm.chrome(None),
        zine,
        email: subscriber.email.to_string(),
        name: subscriber.display_name.to_string(),
        subscriber,
        errors: Vec::new(),
    };
    Ok(Html(page.render()?))
}

pub(crate) async fn post_subscriber_edit(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
    CsrfForm(form): CsrfForm<SubscriberForm>,
) -> Result<Response, AppError> {
    let (subscriber, zine) = find_subscriber(&state, id).await?;
    let errors = match parse_subscriber(&form.email, &form.name) {
        Ok((email, name)) => {
            let now = state.clock.now();
            let mut tx = state.pool.begin().await.map_err(StoreError::from)?;
            match subscribers::update(&mut *tx, subscriber.id, &email, &name).await {
                Ok(_) => {
                    let details = serde_json::json!({
                        "subscriber": subscriber.id.0,
                        "email_before": subscriber.email.as_str(), "email": email.as_str(),
                        "name_before": subscriber.display_name.as_str(), "name": name.as_str(),
                    });
                    audit(&mut tx, &gm, "subscriber.edit", details, now).await?;
                    tx.commit().await.map_err(StoreError::from)?;
                    let to = format!("/gm/zines/{}?done=subscriber-saved", zine.slug);
                    return Ok(Redirect::to(&to).into_response());
                }
                Err(StoreError::AlreadyExists { what }) => {
                    vec![format!("There is already {what} in this zine.")]
                }
                Err(error) => return Err(error.into()),
            }
        }
        Err(errors) => errors,
    };
    let page = SubscriberPage {
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
}

pub(crate) async fn post_subscriber_status(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
    CsrfForm(form): CsrfForm<StatusForm>,
) -> Result<Response, AppError> {
    let (subscriber, zine) = find_subscriber(&state, id).await?;
    let (status, action, done) = match form.status.as_str() {
        "unsubscribed" => (
            SubscriberStatus::Unsubscribed,
            "subscriber.unsubscribe",
            "unsubscribed",
        ),
        "active" => (
            SubscriberStatus::Active,
            "subscriber.resubscribe",
            "resubscribed",
        ),
        _ => {
            return Err(AppError::BadRequest(
                "the status must be 'active' or 'unsubscribed'".into(),
            ));
        }
    };
    let now = state.clock.now();
    let mut tx = state.pool.begin().await.map_err(StoreError::from)?;
    subscribers::set_status(&mut *tx, subscriber.id, status).await?;
    let details = serde_json::json!({ "subscriber": subscriber.id.0, "email": subscriber.email.as_str(), "status_before": subscriber.status.as_str() });
    audit(&mut tx, &gm, action, details, now).await?;
    tx.commit().await.map_err(StoreError::from)?;
    let to = format!("/gm/zines/{}?done={done}", zine.slug);
    Ok(Redirect::to(&to).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_round_trip() {
        for text in ["=1+1", "+x", "-3", "@SUM", "plain", "'quoted"] {
            assert_eq!(csv_cell_in(&csv_cell_out(text)), text);
        }
        assert_eq!(csv_cell_out("=HYPERLINK()"), "'=HYPERLINK()");
    }
}
