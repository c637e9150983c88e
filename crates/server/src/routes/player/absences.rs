//! Absences on the player pages: `/me` lists the player's absences and each game's policy, and
//! a form declares one or cancels them (docs/rosters.md, "Absences").

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::NaiveDate;
use store::absences::Absence;

use super::{Player, absence_error};
use crate::turns::absences::{Declared, declare_absence};
use crate::web::csrf::CsrfForm;
use crate::web::field_errors::FieldErrors;
use crate::{AppError, AppState};

fn field<'a>(form: &'a [(String, String)], name: &str) -> &'a str {
    form.iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// The absence the form declares (`first_day`, `last_day`), or, with `cancel`, that those to
/// come are cancelled; each mistake beside its field (`first-day`, `last-day`).
fn declared(form: &[(String, String)], today: NaiveDate) -> Result<Declared, FieldErrors> {
    if !field(form, "cancel").is_empty() {
        return Ok(Declared::Cancel);
    }
    let mut errors = FieldErrors::default();
    let mut day = |name: &str, id: &'static str, which: &str| {
        let typed = field(form, name).trim();
        NaiveDate::parse_from_str(typed, "%Y-%m-%d")
            .map_err(|_| {
                errors.push(
                    id,
                    format!("The {which} day must be a date (YYYY-MM-DD), not {typed:?}."),
                );
            })
            .ok()
    };
    let first_day = day("first_day", "first-day", "first");
    let last_day = day("last_day", "last-day", "last");
    let (Some(first_day), Some(last_day)) = (first_day, last_day) else {
        return Err(errors);
    };
    if first_day > last_day {
        return Err(FieldErrors::one(
            "last-day",
            "The last day is before the first: the absence must end on or after the day it begins.",
        ));
    }
    if last_day < today {
        return Err(FieldErrors::one(
            "last-day",
            format!("That absence is over already (today is {today}): nothing to declare."),
        ));
    }
    Ok(Declared::Absence(Absence {
        first_day,
        last_day,
    }))
}

/// Declares an absence (`first_day`, `last_day`) or, with `cancel`, cancels those to come. A
/// mistake brings `/me` back, 422, with the days as typed and the error beside its field.
pub(crate) async fn post_absence(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(form): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    crate::views::player::active_subscriber(&state.pool, player.subscriber)
        .await?
        .ok_or(AppError::Forbidden)?;
    let now = state.clock.now();
    let declared = match declared(&form, now.date_naive()) {
        Ok(declared) => declared,
        Err(errors) => {
            let sent = super::games::SentAbsence {
                first_day: field(&form, "first_day").to_owned(),
                last_day: field(&form, "last_day").to_owned(),
                errors,
            };
            return super::games::send_back_me(&state, player, sent).await;
        }
    };
    declare_absence(&state.pool, now, player.subscriber, declared)
        .await
        .map_err(absence_error)?;
    Ok(Redirect::to("/me#absences").into_response())
}
