//! The GM's changes to a running game from its page: the schedule, the absence policy, and the
//! lifecycle actions (resolve now, extend, set the deadline, pause, resume, end); resolving and
//! ending only from their confirmation page.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Duration;
use store::games::GameId;
use store::offers::MissedPolicy;
use store::status::StandbyOffers;

use super::super::{Gm, field};
use super::desk::{MissedForm, SentBack, send_back};
use super::schedule_form::{ScheduleForm, local_deadline_from_form, settings_from_form};
use super::{confirm, find_game, lifecycle_error};
use crate::offers;
use crate::turns::{self, GmAction};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::web::field_errors::FieldErrors;
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
    let settings = match settings_from_form(&pairs) {
        Ok(settings) => settings,
        Err(errors) => {
            let sent = SentBack {
                errors,
                schedule: Some(ScheduleForm::typed(&pairs)),
                ..SentBack::default()
            };
            return send_back(&state, &gm, id, sent).await;
        }
    };
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
    let mut errors = FieldErrors::default();
    let chosen = field(&pairs, "absence_policy");
    let policy = chosen
        .parse::<store::status::AbsencePolicy>()
        .map_err(|_| {
            errors.push(
                "absence-policy",
                "Choose what happens when a player is away.",
            );
        })
        .ok();
    let typed_days = field(&pairs, "wait_days").trim();
    let wait_days = match typed_days.parse::<u32>() {
        Ok(days) if (1..=MAX_WAIT_DAYS).contains(&days) => Some(days),
        _ => {
            errors.push(
                "wait-days",
                format!(
                    "The longest wait must be a whole number of days from 1 to {MAX_WAIT_DAYS}, not {typed_days:?}."
                ),
            );
            None
        }
    };
    let (Some(policy), Some(wait_days)) = (policy, wait_days) else {
        let sent = SentBack {
            errors,
            absence: Some((
                policy.map_or("no_penalty", |p| p.as_str()),
                typed_days.to_owned(),
            )),
            ..SentBack::default()
        };
        return send_back(&state, &gm, id, sent).await;
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
    if matches!(action.as_str(), "resolve-now" | "end") {
        if !confirm::confirmed(&pairs) {
            return Ok(confirm::ask_first(&format!(
                "/gm/games/{id}/confirm/{action}"
            )));
        }
        let stakes = crate::views::gm_game::stakes(&state.pool, &game).await?;
        confirm::check_turn(&game.name, &stakes, &pairs)?;
    }
    let gm_action = match lifecycle_action(&state, &game, &action, &pairs).await? {
        Ok(gm_action) => gm_action,
        Err(sent) => return send_back(&state, &gm, id, sent).await,
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

/// The action the GM asked for, or the form sent back with its error beside the field (hours
/// out of range, a deadline that is not a date or is past).
async fn lifecycle_action(
    state: &AppState,
    game: &store::games::GameSummary,
    action: &str,
    pairs: &[(String, String)],
) -> Result<Result<GmAction, SentBack>, AppError> {
    Ok(Ok(match action {
        "resolve-now" => GmAction::ResolveNow,
        "extend" => match field(pairs, "hours").trim().parse::<i64>() {
            Ok(hours) if (1..=MAX_EXTEND_HOURS).contains(&hours) => {
                GmAction::Extend(Duration::hours(hours))
            }
            _ => {
                return Ok(Err(SentBack {
                    errors: FieldErrors::one(
                        "hours",
                        format!(
                            "Extend by a whole number of hours from 1 to {MAX_EXTEND_HOURS}, not {:?}.",
                            field(pairs, "hours")
                        ),
                    ),
                    hours: Some(field(pairs, "hours").to_owned()),
                    ..SentBack::default()
                }));
            }
        },
        "deadline" => {
            let zone = game.schedule.zone();
            let typed = field(pairs, "deadline");
            let error = match local_deadline_from_form(typed, zone) {
                Ok(at) if at > state.clock.now() => return Ok(Ok(GmAction::SetDeadline(at))),
                Ok(_) => format!("Deadline: {typed} ({zone}) is past: choose a moment to come."),
                Err(error) => error,
            };
            return Ok(Err(SentBack {
                errors: FieldErrors::one("deadline", error),
                deadline: Some(typed.to_owned()),
                ..SentBack::default()
            }));
        }
        "pause" => GmAction::Pause,
        "resume" => GmAction::Resume,
        "end" => GmAction::End,
        _ => return Err(AppError::NotFound),
    }))
}

/// The game's missed-turns limit and who offers seats; a mistake comes back beside its field.
pub(crate) async fn post_missed(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    let mut errors = FieldErrors::default();
    let limit = match field(&pairs, "missed_limit") {
        "" => Some(None),
        typed => typed
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=20).contains(n))
            .map(Some)
            .or_else(|| {
                errors.push(
                    "missed-limit",
                    format!("The missed-turns limit is a whole number of turns from 1 to 20, or empty for the rules' default, not {typed:?}."),
                );
                None
            }),
    };
    let offers = field(&pairs, "standby_offers")
        .parse::<StandbyOffers>()
        .map_err(|_| errors.push("standby-offers", "Choose who offers seats to standbys."))
        .ok();
    let offer_days = match field(&pairs, "offer_days") {
        // A form from before the field: the game's days stay as they are.
        "" => Some(
            crate::views::gm_game::missed_policy(&state.pool, game.id)
                .await?
                .offer_days,
        ),
        typed => typed
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=offers::MAX_OFFER_DAYS).contains(n))
            .or_else(|| {
                errors.push(
                    "offer-days",
                    format!(
                        "An offer stands a whole number of days from 1 to {}, not {typed:?}.",
                        offers::MAX_OFFER_DAYS
                    ),
                );
                None
            }),
    };
    let (Some(limit), Some(offers), Some(offer_days)) = (limit, offers, offer_days) else {
        let sent = SentBack {
            errors,
            missed: Some(MissedForm {
                limit: field(&pairs, "missed_limit").to_owned(),
                automatic: field(&pairs, "standby_offers") == "automatic",
                offer_days: field(&pairs, "offer_days").to_owned(),
            }),
            ..SentBack::default()
        };
        return send_back(&state, &gm, id, sent).await;
    };
    offers::set_policy(
        &state.pool,
        state.clock.now(),
        game.id,
        MissedPolicy {
            limit,
            offers,
            offer_days,
        },
        &gm.actor(),
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{id}?done=missed-saved")).into_response())
}
