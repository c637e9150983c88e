//! The GM's changes to a running game from its page: the schedule, the absence policy, and the
//! lifecycle actions (resolve now, extend, set the deadline, pause, resume, end); resolving and
//! ending only from their confirmation page.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Duration;
use store::games::GameId;

use super::super::{Gm, field};
use super::schedule_form::{local_deadline_from_form, settings_from_form};
use super::{confirm, find_game, lifecycle_error};
use crate::turns::{self, GmAction};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// The longest extension the console offers in one go (30 days).
const MAX_EXTEND_HOURS: i64 = 720;

pub(crate) async fn post_schedule(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    let settings = settings_from_form(&pairs).map_err(AppError::BadRequest)?;
    turns::set_schedule(
        &state.pool,
        state.clock.now(),
        game.id,
        &settings,
        &gm.actor(),
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{id}?done=schedule-saved")).into_response())
}

/// The GM's absence policy for the game (docs/rosters.md, "Absences").
pub(crate) async fn post_absence(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    use crate::turns::absences::MAX_WAIT_DAYS;
    let game = find_game(&state, id).await?;
    let policy = field(&pairs, "absence_policy")
        .parse::<store::status::AbsencePolicy>()
        .map_err(|_| AppError::BadRequest("choose what happens when a player is away".into()))?;
    let wait_days = match field(&pairs, "wait_days").trim().parse::<u32>() {
        Ok(days) if (1..=MAX_WAIT_DAYS).contains(&days) => days,
        _ => {
            return Err(AppError::BadRequest(format!(
                "the longest wait must be a whole number of days from 1 to {MAX_WAIT_DAYS}"
            )));
        }
    };
    let policy = store::absences::GamePolicy { policy, wait_days };
    crate::turns::absences::set_policy(
        &state.pool,
        game.id,
        policy,
        &gm.actor(),
        state.clock.now(),
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{id}?done=absence-saved")).into_response())
}

pub(crate) async fn post_action(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, action)): Path<(GameId, String)>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    // Resolving and ending cannot be undone: they are done only from their confirmation page.
    if matches!(action.as_str(), "resolve-now" | "end") && !confirm::confirmed(&pairs) {
        return Ok(confirm::ask_first(&format!(
            "/gm/games/{id}/confirm/{action}"
        )));
    }
    if matches!(action.as_str(), "resolve-now" | "end") {
        let stakes = crate::views::gm_game::stakes(&state.pool, &game).await?;
        confirm::check_turn(&game.name, &stakes, &pairs)?;
    }
    let gm_action = match action.as_str() {
        "resolve-now" => GmAction::ResolveNow,
        "extend" => match field(&pairs, "hours").parse::<i64>() {
            Ok(hours) if (1..=MAX_EXTEND_HOURS).contains(&hours) => {
                GmAction::Extend(Duration::hours(hours))
            }
            _ => {
                return Err(AppError::BadRequest(format!(
                    "extend by a whole number of hours from 1 to {MAX_EXTEND_HOURS}"
                )));
            }
        },
        "deadline" => {
            let settings = turns::schedule_of(&state.pool, game.id)
                .await
                .map_err(lifecycle_error)?;
            let at = local_deadline_from_form(field(&pairs, "deadline"), settings.zone())
                .map_err(AppError::BadRequest)?;
            GmAction::SetDeadline(at)
        }
        "pause" => GmAction::Pause,
        "resume" => GmAction::Resume,
        "end" => GmAction::End,
        _ => return Err(AppError::NotFound),
    };
    turns::gm_action(
        &state.pool,
        state.clock.now(),
        game.id,
        gm_action,
        &gm.actor(),
        &state.mail_domain,
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{id}?done={action}")).into_response())
}
