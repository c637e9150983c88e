//! Absences on the player pages: `/me` lists the player's absences and each game's policy, and
//! a form declares one or cancels them (docs/rosters.md, "Absences").

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::NaiveDate;
use store::absences::Absence;

use super::Player;
use crate::turns::LifecycleError;
use crate::turns::absences::{Declared, declare_absence};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// Refusals of an absence are the player's to read; storage failures are logged and hidden.
pub(super) fn absence_error(error: LifecycleError) -> AppError {
    match error {
        LifecycleError::Store(error) => AppError::Store(error),
        other => AppError::Conflict(format!("{other}.")),
    }
}

fn field<'a>(form: &'a [(String, String)], name: &str) -> &'a str {
    form.iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// The absence the form declares (`first_day`, `last_day`), or, with `cancel`, that those to
/// come are cancelled.
fn declared(form: &[(String, String)], today: NaiveDate) -> Result<Declared, AppError> {
    if !field(form, "cancel").is_empty() {
        return Ok(Declared::Cancel);
    }
    let day = |name: &str| {
        NaiveDate::parse_from_str(field(form, name).trim(), "%Y-%m-%d").map_err(|_| {
            AppError::BadRequest("the first and last day must be dates (YYYY-MM-DD)".into())
        })
    };
    let (first_day, last_day) = (day("first_day")?, day("last_day")?);
    if first_day > last_day {
        return Err(AppError::BadRequest(
            "the first day of the absence is after its last day".into(),
        ));
    }
    if last_day < today {
        return Err(AppError::BadRequest("that absence is over already".into()));
    }
    Ok(Declared::Absence(Absence {
        first_day,
        last_day,
    }))
}

/// Declares an absence (`first_day`, `last_day`) or, with `cancel`, cancels those to come.
pub(crate) async fn post_absence(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(form): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    crate::views::player::active_subscriber(&state.pool, player.subscriber)
        .await?
        .ok_or(AppError::Forbidden)?;
    let now = state.clock.now();
    let declared = declared(&form, now.date_naive())?;
    declare_absence(&state.pool, now, player.subscriber, declared)
        .await
        .map_err(absence_error)?;
    Ok(Redirect::to("/me#absences").into_response())
}
