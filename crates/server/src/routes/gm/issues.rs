//! The zine's issues in the console, `/gm/zines/{slug}/issues`: the rhythm, the next issue's
//! editorial, the preview (only a GM may see the draft: it prints letters and the editorial
//! before they are public), publishing by hand, and the letters waiting for moderation.

use crate::web::Path;
use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use store::issues::LetterId;
use store::zines::Zine;

use super::Gm;
use super::games::{ScheduleForm, WEEKDAYS, rule_from_form};
use super::home::DoneQuery;
use crate::issues::{self, IssueError};
use crate::routes::find_zine;
use crate::routes::issues::IssuePage;
use crate::web::csrf::CsrfForm;
use crate::web::field_errors::{FieldErrors, zone_names};
use crate::{AppError, AppState};

fn issue_error(error: IssueError) -> AppError {
    match error {
        IssueError::Store(error) => AppError::Store(error),
        IssueError::Database(error) => AppError::Store(error.into()),
        IssueError::ZineNotFound(_) | IssueError::LetterNotFound(_) => AppError::NotFound,
        other => AppError::BadRequest(other.to_string()),
    }
}

fn notice(code: Option<&str>) -> Option<&'static str> {
    Some(match code? {
        "rhythm" => "The rhythm is saved.",
        "first-issue" => "What the first issue gathers is saved.",
        "editorial" => "The editorial is saved.",
        "published" => "The issue is published and its mail queued.",
        "approved" => "The letter is approved: it goes into the next issue.",
        "rejected" => "The letter is turned down: it is never printed.",
        _ => return None,
    })
}

#[derive(Template)]
#[template(path = "gm/issues.html")]
struct IssuesPage {
    chrome: super::Chrome,
    zine: Zine,
    /// The rhythm in words; empty when the zine publishes no issues.
    rhythm: String,
    /// The rhythm's fields, as saved or as sent back (kind `off`: no issues).
    form: ScheduleForm,
    weekdays: [&'static str; 7],
    zones: Vec<&'static str>,
    /// The rhythm form's errors, beside their fields.
    errors: FieldErrors,
    next_issue: String,
    draft_number: Option<i32>,
    editorial: String,
    pending: Vec<store::issues::Letter>,
    published: Vec<(i32, String)>,
    /// What the first issue gathers, while no issue is out (`None` once one is).
    first_issue: Option<store::status::FirstIssueGathers>,
}

pub(crate) async fn get_issues(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    Query(query): Query<DoneQuery>,
) -> Result<Html<String>, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let chrome = gm.chrome(notice(query.done.as_deref()));
    Ok(Html(issues_page(&state, chrome, zine, None).await?))
}

/// The issues page; `sent` is a rhythm form sent back: its fields as typed and their errors.
async fn issues_page(
    state: &AppState,
    chrome: super::Chrome,
    zine: Zine,
    sent: Option<(ScheduleForm, FieldErrors)>,
) -> Result<String, AppError> {
    let desk = crate::views::gm_zine::issues_desk(&state.pool, zine.id)
        .await
        .map_err(issue_error)?;
    let settings = desk.settings;
    let rhythm = issues::rhythm_of(&settings);
    let draft = desk.draft;
    let pending = desk.pending;
    let published = desk
        .published
        .iter()
        .filter_map(|i| Some((i.number, super::when(&i.published_at?))))
        .collect();
    let (form, errors) =
        sent.unwrap_or_else(|| (ScheduleForm::of_rule(rhythm), FieldErrors::default()));
    Ok(IssuesPage {
        chrome,
        rhythm: rhythm.map(|r| r.to_string()).unwrap_or_default(),
        form,
        weekdays: WEEKDAYS,
        zones: zone_names(),
        errors,
        next_issue: super::when_opt(&settings.next_issue_at),
        first_issue: desk
            .published
            .is_empty()
            .then_some(settings.first_issue_gathers),
        draft_number: draft.as_ref().map(|d| d.number),
        editorial: draft.map(|d| d.editorial).unwrap_or_default(),
        zine,
        pending,
        published,
    }
    .render()?)
}

/// The rhythm from its fields: `rhythm` is `off`, `manual`, `every_days` (with `days`) or
/// `weekly` (with `weekday`, `time` and `zone`), read as the game's schedule is. A mistake
/// brings the page back, 422, with what was typed and the error beside its field.
pub(crate) async fn post_rhythm(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let rhythm = match super::field(&pairs, "rhythm") {
        "off" => None,
        _ => match rule_from_form("rhythm", &pairs) {
            Ok(rhythm) => Some(rhythm),
            Err(errors) => {
                let sent = (ScheduleForm::typed_rule("rhythm", &pairs), errors);
                let html = issues_page(&state, gm.chrome(None), zine, Some(sent)).await?;
                return Ok(
                    (axum::http::StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response()
                );
            }
        },
    };
    issues::set_rhythm(&state.pool, state.clock.now(), &zine, rhythm, &gm.actor())
        .await
        .map_err(issue_error)?;
    Ok(Redirect::to(&format!("/gm/zines/{}/issues?done=rhythm", zine.slug)).into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct FirstIssueForm {
    #[serde(default)]
    gathers: String,
}

/// What the first issue gathers (a field of its own beside the rhythm's form).
pub(crate) async fn post_first_issue(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    CsrfForm(form): CsrfForm<FirstIssueForm>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let gathers = issues::parse_first_issue_gathers(&form.gathers).map_err(issue_error)?;
    issues::set_first_issue_gathers(&state.pool, state.clock.now(), &zine, gathers, &gm.actor())
        .await
        .map_err(issue_error)?;
    Ok(Redirect::to(&format!("/gm/zines/{}/issues?done=first-issue", zine.slug)).into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct EditorialForm {
    #[serde(default)]
    editorial: String,
}

pub(crate) async fn post_editorial(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    CsrfForm(form): CsrfForm<EditorialForm>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    issues::set_editorial(
        &state.pool,
        state.clock.now(),
        &zine,
        &form.editorial,
        &gm.actor(),
    )
    .await
    .map_err(issue_error)?;
    Ok(Redirect::to(&format!("/gm/zines/{}/issues?done=editorial", zine.slug)).into_response())
}

#[derive(Template)]
#[template(path = "gm/confirm.html")]
struct ConfirmPublish {
    chrome: super::Chrome,
    title: String,
    lead: String,
    consequences: Vec<String>,
    refusal: Option<String>,
    action: String,
    extra: Vec<(&'static str, String)>,
    button: &'static str,
    undo: &'static str,
    back: String,
    back_label: String,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct IssueQuery {
    #[serde(default)]
    issue: String,
}

/// The refusal of a publish form shown for another issue than the draft now.
fn issue_moved_on(shown: &str, draft: Option<i32>) -> Option<String> {
    let draft_text = draft.map(|n| n.to_string()).unwrap_or_default();
    (shown.trim() != draft_text || draft.is_none()).then(|| {
        format!(
            "Already done: issue {} is no longer the one waiting to be published{}. Nothing more was published.",
            if shown.trim().is_empty() { "?" } else { shown.trim() },
            draft.map(|n| format!(" (issue {n} is now)")).unwrap_or_default()
        )
    })
}

/// Asks before publishing the next issue: it is mailed at once, and cannot be taken back.
pub(crate) async fn get_confirm_publish(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    Query(query): Query<IssueQuery>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let desk = crate::views::gm_zine::issues_desk(&state.pool, zine.id)
        .await
        .map_err(issue_error)?;
    let draft = desk.draft.as_ref().map(|d| d.number);
    let shown = if query.issue.is_empty() {
        draft.map(|n| n.to_string()).unwrap_or_default()
    } else {
        query.issue
    };
    let refusal = issue_moved_on(&shown, draft);
    let page = ConfirmPublish {
        chrome: gm.chrome(None),
        title: format!("Publish issue {shown} of {}", zine.name),
        lead: format!(
            "Issue {shown} is published now, with the reports, press and letters gathered since the last issue."
        ),
        consequences: vec![
            format!(
                "It is mailed at once to the {} subscriber(s) who take the zine's issue.",
                desk.issue_readers
            ),
            "It appears on the zine's public pages, its feed and its printable page.".to_owned(),
            "The next issue's draft starts empty.".to_owned(),
        ],
        refusal,
        action: format!("/gm/zines/{}/issues/publish", zine.slug),
        extra: vec![("issue", shown)],
        button: "Publish and mail now",
        undo: "This cannot be undone: the mail goes out at once.",
        back: format!("/gm/zines/{}/issues", zine.slug),
        back_label: format!("{}: issues", zine.name),
    };
    let status = if page.refusal.is_some() {
        axum::http::StatusCode::CONFLICT
    } else {
        axum::http::StatusCode::OK
    };
    Ok((status, Html(page.render()?)).into_response())
}

/// Publishes the issue the confirmation page was shown for, and only that one.
pub(crate) async fn post_publish(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let shown = super::field(&pairs, "issue");
    if super::field(&pairs, "confirm") != "yes" {
        let query = serde_urlencoded::to_string([("issue", shown)]).unwrap_or_default();
        let path = format!("/gm/zines/{}/issues/publish?{query}", zine.slug);
        return Ok(Redirect::to(&path).into_response());
    }
    let desk = crate::views::gm_zine::issues_desk(&state.pool, zine.id)
        .await
        .map_err(issue_error)?;
    if let Some(refusal) = issue_moved_on(shown, desk.draft.as_ref().map(|d| d.number)) {
        return Err(AppError::Conflict(refusal));
    }
    let domain = state.mail_domain.clone();
    issues::publish_now(
        &state.pool,
        state.clock.now(),
        &zine,
        Some(&domain),
        state.base_url.as_str(),
        &gm.actor(),
    )
    .await
    .map_err(issue_error)?;
    Ok(Redirect::to(&format!("/gm/zines/{}/issues?done=published", zine.slug)).into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct LetterForm {
    #[serde(default)]
    decision: String,
}

pub(crate) async fn post_letter(
    State(state): State<AppState>,
    gm: Gm,
    Path((slug, letter)): Path<(String, LetterId)>,
    CsrfForm(form): CsrfForm<LetterForm>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let approve = match form.decision.as_str() {
        "approve" => true,
        "reject" => false,
        _ => return Err(AppError::BadRequest("approve or reject?".into())),
    };
    issues::moderate_letter(
        &state.pool,
        state.clock.now(),
        &zine,
        letter,
        approve,
        &gm.actor(),
    )
    .await
    .map_err(issue_error)?;
    let done = if approve { "approved" } else { "rejected" };
    Ok(Redirect::to(&format!("/gm/zines/{}/issues?done={done}", zine.slug)).into_response())
}

/// `/gm/zines/{slug}/issues/preview`: the draft as it would come out now. Never cached.
pub(crate) async fn get_issue_preview(
    State(state): State<AppState>,
    _gm: Gm,
    Path(slug): Path<String>,
) -> Result<Html<String>, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let now = state.clock.now();
    let contents = issues::preview(&state.pool, now, &zine, "")
        .await
        .map_err(|e| match e {
            IssueError::NoIssues(_) => AppError::Conflict(e.to_string()),
            other => issue_error(other),
        })?;
    let body = contents.to_html();
    Ok(Html(
        IssuePage {
            title: format!("Preview: {}", contents.title()),
            zine: &zine,
            number: contents.number,
            body: &body,
            preview: true,
        }
        .render()?,
    ))
}
