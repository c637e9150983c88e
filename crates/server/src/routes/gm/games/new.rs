//! Creating a game: the engine's own setup form, the schedule, the first deadline.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use engine::SetupError;
use games::{AnySetup, EngineKind, GameError};
use serde::Deserialize;
use store::StoreError;
use store::status::Seating;
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
use super::schedule_form::{
    WEEKDAYS, local_deadline_from_form, schedule_from_form, zone_from_form,
};
use super::setup_form::{SetupField, setup_fields, setup_from_form, setup_refused};
use crate::rosters::signups::OpeningSpec;
use crate::web::field_errors::{FieldErrors, zone_names};

#[derive(Template)]
#[template(path = "gm/new_game.html")]
struct NewGamePage {
    chrome: Chrome,
    zine: Zine,
    engines: Vec<(String, String)>,
    engine: Option<(String, String)>,
    fields: Vec<SetupField>,
    /// The errors of the form sent back, beside their fields.
    errors: FieldErrors,
    name: String,
    deadline: String,
    /// The game's time zone: the first deadline is typed in it.
    zone: String,
    schedule: String,
    days: String,
    /// A weekly schedule's day and time (HH:MM).
    weekday: String,
    time: String,
    weekdays: [&'static str; 7],
    /// Every IANA time zone, for the zone field's list.
    zones: Vec<&'static str>,
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
    errors: FieldErrors,
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
        weekday: typed("weekday", "Friday"),
        time: typed("time", "18:00"),
        weekdays: WEEKDAYS,
        zones: zone_names(),
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
        new_game_page(&state, &gm, zine, engine, None, FieldErrors::default()).await?,
    ))
}

/// What the new-game form asks for, every field read.
struct NewGame {
    name: String,
    schedule: Schedule,
    zone: Tz,
    first_deadline: Option<DateTime<Utc>>,
    setup: AnySetup,
    roster: turns::Roster,
    /// The seat count and how seats are given, when the game opens for sign-up.
    signup: Option<(u32, Seating)>,
}

/// The first deadline as typed in `zone`: none, or one in the future (a schedule of every N
/// days needs one).
fn first_deadline(
    pairs: &[(String, String)],
    zone: Tz,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, String> {
    match field(pairs, "deadline") {
        "" => Ok(None),
        text => match local_deadline_from_form(text, zone) {
            Ok(at) if at <= now => Err("First deadline: it must be in the future.".into()),
            Ok(at) => Ok(Some(at)),
            Err(e) => Err(format!(
                "{} Click the field for the date picker.",
                e.replace("Deadline:", "First deadline:")
            )),
        },
    }
}

/// The game's zone and deadline rule, their errors beside their fields (a bad zone named once,
/// though a weekly rule reads it too: `FieldErrors::extend`).
fn zone_and_schedule(
    pairs: &[(String, String)],
    errors: &mut FieldErrors,
) -> (Option<Tz>, Option<Schedule>) {
    let zone = match zone_from_form(pairs) {
        Ok(zone) => Some(zone.unwrap_or(Tz::UTC)),
        Err(error) => {
            errors.extend(error);
            None
        }
    };
    let schedule = match schedule_from_form(pairs) {
        Ok(schedule) => Some(schedule),
        Err(more) => {
            errors.extend(more);
            None
        }
    };
    (zone, schedule)
}

/// The form read, or every error in it, each beside its field.
fn read_new_game(
    engine: EngineKind,
    pairs: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<NewGame, FieldErrors> {
    let mut errors = FieldErrors::default();
    let name = super::super::zines::zine_name(field(pairs, "name"))
        .map_err(|e| {
            errors.push(
                "game-name",
                format!("Game name: {}", e.replace("The name", "it")),
            )
        })
        .ok();
    let (zone, schedule) = zone_and_schedule(pairs, &mut errors);
    let deadline = first_deadline(pairs, zone.unwrap_or(Tz::UTC), now)
        .map_err(|e| errors.push("deadline", e))
        .ok();
    if deadline == Some(None) && matches!(schedule, Some(Schedule::EveryDays(_))) {
        errors.push(
            "deadline",
            "First deadline: a schedule of every N days needs a first deadline.",
        );
    }
    let setup = setup_from_form(engine, pairs)
        .map_err(|e| errors.extend(e))
        .ok();
    let signup = match signup_from_form(pairs) {
        None => None,
        Some(Ok(signup)) => Some(signup),
        Some(Err(error)) if error.starts_with("Seats given") => {
            errors.push("seating", error);
            None
        }
        Some(Err(error)) => {
            errors.push("signup-seats", error);
            None
        }
    };
    let roster = if signup.is_some() {
        Some(turns::Roster::EveryActiveSubscriber)
    } else {
        roster_from_form(pairs)
            .map_err(|e| errors.push_form(e))
            .ok()
    };
    match (name, schedule, zone, deadline, setup, roster) {
        (
            Some(name),
            Some(schedule),
            Some(zone),
            Some(first_deadline),
            Some(setup),
            Some(roster),
        ) if errors.is_empty() => Ok(NewGame {
            name,
            schedule,
            zone,
            first_deadline,
            setup,
            roster,
            signup,
        }),
        _ => Err(errors),
    }
}

/// Opens the game for sign-up: where to go next, or why it could not be done, beside the
/// fields it is about.
async fn open_signup(
    state: &AppState,
    gm: &Gm,
    zine: &Zine,
    game: &NewGame,
    (seats, seating): (u32, Seating),
) -> Result<Result<String, FieldErrors>, AppError> {
    let opening = OpeningSpec {
        zine: zine.id,
        name: &game.name,
        setup: &game.setup,
        schedule: game.schedule,
        seats,
        seating,
        zone: game.zone,
        first_deadline: game.first_deadline,
    };
    let opened = crate::rosters::signups::open_signup(
        &state.pool,
        state.clock.now(),
        &opening,
        &mut turns::OsEntropy,
        &gm.actor(),
    )
    .await;
    match opened {
        Ok(id) => Ok(Ok(format!("/gm/signups/{}?done=signup-opened", id))),
        Err(error) => refused(game, error, |error| {
            // The seat count is what a sign-up's roster check refuses.
            FieldErrors::one(
                "signup-seats",
                format!("The game could not be opened for sign-up: {error}."),
            )
        }),
    }
}

/// Creates the game with its roster: where to go next, or why it could not be done, beside
/// the fields it is about.
async fn create(
    state: &AppState,
    gm: &Gm,
    zine: &Zine,
    game: &NewGame,
) -> Result<Result<String, FieldErrors>, AppError> {
    let spec = GameSpec {
        zine: zine.id,
        name: &game.name,
        setup: &game.setup,
        first_deadline: game.first_deadline,
        schedule: game.schedule,
    };
    let created = turns::create_game_with(
        &state.pool,
        state.clock.now(),
        &spec,
        &game.roster,
        &mut turns::OsEntropy,
        &turns::Creation {
            actor: &gm.actor(),
            zone: game.zone,
            mail: Some(state.mail_site()),
        },
    )
    .await;
    match created {
        Ok(id) => Ok(Ok(format!("/gm/games/{}?done=game-created", id))),
        Err(error) => refused(game, error, |error| {
            let mut errors = FieldErrors::default();
            errors.push_form(format!("The game could not be created: {error}."));
            errors
        }),
    }
}

/// Why the game was not made, for the form: a taken name beside the name, the engine's
/// problems with the settings beside each setting, any other refusal as `otherwise` says;
/// `Err` for what is no fault of the form.
fn refused(
    game: &NewGame,
    error: LifecycleError,
    otherwise: impl FnOnce(&LifecycleError) -> FieldErrors,
) -> Result<Result<String, FieldErrors>, AppError> {
    match error {
        LifecycleError::Store(StoreError::AlreadyExists { what }) => Ok(Err(FieldErrors::one(
            "game-name",
            format!("There is already {what}."),
        ))),
        LifecycleError::Game(GameError::Setup(SetupError::Settings(problems))) => {
            Ok(Err(setup_refused(game.setup.kind(), &problems)))
        }
        LifecycleError::Game(_) | LifecycleError::NoPlayers | LifecycleError::Roster(_) => {
            Ok(Err(otherwise(&error)))
        }
        error => Err(lifecycle_error(error)),
    }
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
    let errors = match read_new_game(engine, &pairs, state.clock.now()) {
        Ok(game) => {
            let made = match game.signup {
                Some(signup) => open_signup(&state, &gm, &zine, &game, signup).await?,
                None => create(&state, &gm, &zine, &game).await?,
            };
            match made {
                Ok(to) => return Ok(Redirect::to(&to).into_response()),
                Err(errors) => errors,
            }
        }
        Err(errors) => errors,
    };
    let html = new_game_page(&state, &gm, zine, Some(engine), Some(&pairs), errors).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}
