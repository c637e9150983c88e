//! Absences on the player pages: `/me` lists the player's absences and each game's policy, and
//! a form declares one or cancels them (docs/rosters.md, "Absences").

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::NaiveDate;
use store::absences::Absence;
use store::status::SubscriberStatus;
use store::subscribers::SubscriberId;

use super::Player;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// The player's absences and, per game, the policy and the turns it touches (as mailed).
pub(crate) async fn summary(
    state: &AppState,
    subscriber: SubscriberId,
) -> Result<String, AppError> {
    let mut db = state.pool.acquire().await.map_err(store_error)?;
    let text = crate::turns::absences::summary(&mut db, subscriber, state.clock.now())
        .await
        .map_err(absence_error)?;
    Ok(text.trim_start().to_owned())
}

fn store_error(error: sqlx::Error) -> AppError {
    AppError::Store(store::StoreError::from(error))
}

fn absence_error(error: crate::turns::LifecycleError) -> AppError {
    match error {
        crate::turns::LifecycleError::Store(error) => AppError::Store(error),
        other => AppError::Conflict(format!("{other}.")),
    }
}

fn field<'a>(form: &'a [(String, String)], name: &str) -> &'a str {
    form.iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Declares an absence (`first_day`, `last_day`) or, with `cancel`, cancels those to come.
pub(crate) async fn post_absence(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(form): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    store::subscribers::find(&state.pool, player.subscriber)
        .await?
        .filter(|s| s.status == SubscriberStatus::Active)
        .ok_or(AppError::Forbidden)?;
    let now = state.clock.now();
    let mut tx = state.pool.begin().await.map_err(store_error)?;
    if field(&form, "cancel").is_empty() {
        let day = |name: &str| {
            NaiveDate::parse_from_str(field(&form, name).trim(), "%Y-%m-%d").map_err(|_| {
                AppError::BadRequest("the first and last day must be dates (YYYY-MM-DD)".into())
            })
        };
        let (first_day, last_day) = (day("first_day")?, day("last_day")?);
        if first_day > last_day {
            return Err(AppError::BadRequest(
                "the first day of the absence is after its last day".into(),
            ));
        }
        if last_day < now.date_naive() {
            return Err(AppError::BadRequest("that absence is over already".into()));
        }
        let absence = Absence {
            first_day,
            last_day,
        };
        crate::turns::absences::declare(&mut tx, player.subscriber, absence, now)
            .await
            .map_err(absence_error)?;
    } else {
        crate::turns::absences::cancel(&mut tx, player.subscriber, now)
            .await
            .map_err(absence_error)?;
    }
    tx.commit().await.map_err(store_error)?;
    Ok(Redirect::to("/me#absences").into_response())
}
