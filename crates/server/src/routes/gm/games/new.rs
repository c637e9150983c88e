//! Creating a game: the engine's own setup form, the schedule, the first deadline.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Duration;
use games::EngineKind;
use serde::Deserialize;
use store::StoreError;
use store::zines::Zine;

use super::super::{Chrome, Gm};
use super::field;
use crate::routes::find_zine;
use crate::turns::{self, GameSpec, LifecycleError, Schedule};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

use super::lifecycle_error;
use super::roster::{RosterForm, roster_form, roster_from_form, signup_from_form};
use super::schedule_form::{local_deadline_from_form, schedule_from_form};
use super::setup_form::{SetupField, setup_fields, setup_from_form};
use crate::rosters::signups::OpeningSpec;

#[derive(Template)]
#[template(path = "gm/new_game.html")]
struct NewGamePage {
    chrome: Chrome,
    zine: Zine,
    engines: Vec<(String, String)>,
    engine: Option<(String, String)>,
    fields: Vec<SetupField>,
    errors: Vec<String>,
    name: String,
    deadline: String,
    /// The game's time zone: the first deadline is typed in it.
    zone: String,
    schedule: String,
    days: String,
    setup_extra: String,
    active_subscribers: usize,
    /// The engine's switches as its standard setup sets them (issue 19's rulebook).
    default_rulings: Vec<engine::Ruling>,
    /// Who plays in which seat; none for Barmy, where every subscriber plays.
    roster: Option<RosterForm>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct EngineQuery {
    engine: Option<String>,
}

async fn new_game_page(
    state: &AppState,
    gm: &Gm,
    zine: Zine,
    engine: Option<EngineKind>,
    entered: Option<&[(String, String)]>,
    errors: Vec<String>,
) -> Result<String, AppError> {
    let subscribers = crate::views::gm_zine::subscribers(&state.pool, zine.id).await?;
    let active_subscribers = subscribers
        .iter()
        .filter(|s| s.status == store::subscribers::SubscriberStatus::Active)
        .count();
    // The seats come from the setup as entered, or the standard one.
    let roster = engine.and_then(|engine| {
        let setup = entered
            .and_then(|pairs| setup_from_form(engine, pairs).ok())
            .unwrap_or_else(|| engine.default_setup());
        roster_form(&setup, &subscribers, entered)
    });
    let default_deadline = (state.clock.now() + Duration::days(7))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    let typed = |name: &str, default: &str| match entered {
        Some(pairs) => field(pairs, name).to_owned(),
        None => default.to_owned(),
    };
    Ok(NewGamePage {
        chrome: gm.chrome(None),
        engines: EngineKind::ALL
            .iter()
            .map(|e| (e.name().to_owned(), e.title().to_owned()))
            .collect(),
        engine: engine.map(|e| (e.name().to_owned(), e.title().to_owned())),
        fields: engine.map_or_else(Vec::new, |e| setup_fields(e, entered)),
        default_rulings: engine
            .map(|e| e.default_setup().rulings())
            .unwrap_or_default(),
        errors,
        name: typed("name", ""),
        deadline: typed("deadline", &default_deadline),
        zone: typed("zone", "UTC"),
        schedule: typed("schedule", "every_days"),
        days: typed("days", "7"),
        setup_extra: typed("setup_extra", ""),
        active_subscribers,
        roster,
        zine,
    }
    .render()?)
}

pub(crate) async fn get_new_game(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    Query(query): Query<EngineQuery>,
) -> Result<Html<String>, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let engine = match query.engine.as_deref() {
        None | Some("") => None,
        Some(name) => Some(name.parse::<EngineKind>().map_err(|_| AppError::NotFound)?),
    };
    Ok(Html(
        new_game_page(&state, &gm, zine, engine, None, Vec::new()).await?,
    ))
}

pub(crate) async fn post_new_game(
    State(state): State<AppState>,
    gm: Gm,
    Path(slug): Path<String>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let zine = find_zine(&state, &slug).await?;
    let engine: EngineKind = field(&pairs, "engine")
        .parse()
        .map_err(|e: games::GameError| AppError::BadRequest(e.to_string()))?;
    let now = state.clock.now();
    let mut errors = Vec::new();
    let name = super::super::zines::zine_name(field(&pairs, "name"))
        .map_err(|e| errors.push(format!("Game name: {}", e.replace("The name", "it"))))
        .ok();
    let schedule = schedule_from_form(&pairs).map_err(|e| errors.push(e)).ok();
    let zone = match field(&pairs, "zone") {
        "" => Some(chrono_tz::Tz::UTC),
        name => name
            .parse::<chrono_tz::Tz>()
            .map_err(|_| {
                errors.push(format!(
                    "Time zone: {name:?} is not a time zone: use a name such as Europe/London."
                ));
            })
            .ok(),
    };
    let deadline = match field(&pairs, "deadline") {
        "" => Ok(None),
        text => local_deadline_from_form(text, zone.unwrap_or(chrono_tz::Tz::UTC))
            .map(Some)
            .map_err(|e| e.replace("Deadline:", "First deadline:")),
    };
    let deadline = match deadline {
        Ok(Some(at)) if at <= now => {
            errors.push("First deadline: it must be in the future.".into());
            None
        }
        Ok(Some(at)) => Some(Some(at)),
        Ok(None) => Some(None),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    if deadline == Some(None) && matches!(schedule, Some(Schedule::EveryDays(_))) {
        errors.push("First deadline: a schedule of every N days needs a first deadline.".into());
    }
    let setup = setup_from_form(engine, &pairs)
        .map_err(|e| errors.extend(e))
        .ok();
    let signup = match signup_from_form(&pairs) {
        None => None,
        Some(Ok(signup)) => Some(signup),
        Some(Err(error)) => {
            errors.push(error);
            None
        }
    };
    let roster = if signup.is_some() {
        Some(turns::Roster::EveryActiveSubscriber)
    } else {
        roster_from_form(&pairs).map_err(|e| errors.push(e)).ok()
    };
    if let (
        true,
        Some(name),
        Some(schedule),
        Some(deadline),
        Some(setup),
        Some(roster),
        Some(zone),
    ) = (
        errors.is_empty(),
        &name,
        schedule,
        deadline,
        &setup,
        &roster,
        zone,
    ) {
        let spec = GameSpec {
            zine: zine.id,
            name,
            setup,
            first_deadline: deadline,
            schedule,
        };
        if let Some((seats, seating)) = signup {
            let opening = OpeningSpec {
                zine: zine.id,
                name,
                setup,
                schedule,
                seats,
                seating,
                zone,
            };
            let opened = crate::rosters::signups::open_signup(
                &state.pool,
                now,
                &opening,
                &mut turns::OsEntropy,
                &gm.actor(),
            )
            .await;
            match opened {
                Ok(id) => {
                    let to = format!("/gm/signups/{}?done=signup-opened", id);
                    return Ok(Redirect::to(&to).into_response());
                }
                Err(LifecycleError::Store(StoreError::AlreadyExists { what })) => {
                    errors.push(format!("There is already {what}."));
                }
                Err(error @ (LifecycleError::Game(_) | LifecycleError::Roster(_))) => {
                    errors.push(format!(
                        "The game could not be opened for sign-up: {error}."
                    ));
                }
                Err(error) => return Err(lifecycle_error(error)),
            }
            let html = new_game_page(&state, &gm, zine, Some(engine), Some(&pairs), errors).await?;
            return Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response());
        }
        let created = turns::create_game_with(
            &state.pool,
            now,
            &spec,
            roster,
            &mut turns::OsEntropy,
            &turns::Creation {
                actor: &gm.actor(),
                zone,
                mail: Some(state.mail_site()),
            },
        )
        .await;
        match created {
            Ok(game) => {
                let to = format!("/gm/games/{}?done=game-created", game);
                return Ok(Redirect::to(&to).into_response());
            }
            Err(LifecycleError::Store(StoreError::AlreadyExists { what })) => {
                errors.push(format!("There is already {what}."));
            }
            Err(
                error @ (LifecycleError::Game(_)
                | LifecycleError::NoPlayers
                | LifecycleError::Roster(_)),
            ) => {
                errors.push(format!("The game could not be created: {error}."));
            }
            Err(error) => return Err(lifecycle_error(error)),
        }
    }
    let html = new_game_page(&state, &gm, zine, Some(engine), Some(&pairs), errors).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}
