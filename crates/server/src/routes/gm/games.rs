//! Games: creating one (an engine's own setup form), a game's page (the open turn: who has and
//! has not ordered, their orders, the press; the turns published), a preview of the resolution,
//! the schedule, and the lifecycle actions.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use games::EngineKind;
use serde::Deserialize;
use serde_json::{Map, Value};
use store::StoreError;
use store::games::GameId;
use store::status::{GameStatus, TurnStatus};
use store::zines::Zine;

use super::{Chrome, Gm, field};
use crate::schedule::ScheduleSettings;
use crate::turns::{self, GameSpec, GmAction, LifecycleError, Schedule};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// The longest extension the console offers in one go (30 days).
const MAX_EXTEND_HOURS: i64 = 720;
/// The longest gap between deadlines a schedule may have.
const MAX_SCHEDULE_DAYS: u32 = 365;

/// One input of an engine's setup form, built from the engine's default setup.
pub(crate) struct SetupField {
    /// The setup's key; the input is named `setup.KEY`.
    pub key: String,
    pub label: String,
    /// `number`, `text`, `bool`, `optional` (empty for none) or `json` (lists and tables).
    pub kind: &'static str,
    pub value: String,
}

fn label(key: &str) -> String {
    let spaced = key.replace('_', " ");
    let mut chars = spaced.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "text",
        Value::Null => "optional",
        Value::Array(_) | Value::Object(_) => "json",
    }
}

fn show(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Bool(on) => on.to_string(),
        Value::Number(n) => n.to_string(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// The engine's form: one input per key of its default setup, filled with what the GM typed
/// when the form comes back with errors.
fn setup_fields(engine: EngineKind, entered: Option<&[(String, String)]>) -> Vec<SetupField> {
    let Value::Object(defaults) = engine.default_setup() else {
        return Vec::new();
    };
    defaults
        .iter()
        .map(|(key, default)| {
            let kind = kind_of(default);
            let value = match entered {
                Some(pairs) if kind == "bool" => {
                    if field(pairs, &format!("setup.{key}")).is_empty() {
                        "false".into()
                    } else {
                        "true".into()
                    }
                }
                Some(pairs) => field(pairs, &format!("setup.{key}")).to_owned(),
                None => show(default),
            };
            SetupField {
                key: key.clone(),
                label: label(key),
                kind,
                value,
            }
        })
        .collect()
}

/// The setup the form describes, as JSON for the engine; each input that cannot be read
/// gives an error naming it. The engine's own checks come after (`parse_setup`, `new_game`).
fn setup_from_form(engine: EngineKind, pairs: &[(String, String)]) -> Result<Value, Vec<String>> {
    let mut setup = Map::new();
    let mut errors = Vec::new();
    for input in setup_fields(engine, None) {
        let text = field(pairs, &format!("setup.{}", input.key));
        let value = match input.kind {
            "bool" => Value::Bool(!text.is_empty()),
            "number" => match serde_json::from_str::<serde_json::Number>(text) {
                Ok(n) => Value::Number(n),
                Err(_) => {
                    errors.push(format!(
                        "{}: a number is needed, not {text:?}.",
                        input.label
                    ));
                    continue;
                }
            },
            "text" => Value::String(text.to_owned()),
            "optional" if text.is_empty() => Value::Null,
            "optional" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(|v| v.is_number() || v.is_boolean())
                .unwrap_or_else(|| Value::String(text.to_owned())),
            _ => match serde_json::from_str::<Value>(text) {
                Ok(value) => value,
                Err(error) => {
                    errors.push(format!("{}: not valid JSON ({error}).", input.label));
                    continue;
                }
            },
        };
        setup.insert(input.key, value);
    }
    let extra = field(pairs, "setup_extra");
    if !extra.is_empty() {
        match serde_json::from_str::<Value>(extra) {
            Ok(Value::Object(more)) => setup.extend(more),
            Ok(_) => errors.push("More settings: a JSON object ({...}) is needed.".into()),
            Err(error) => errors.push(format!("More settings: not valid JSON ({error}).")),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    engine.parse_setup(&Value::Object(setup)).map_err(|error| {
        vec![format!(
            "The {} engine refused the setup: {error}.",
            engine.name()
        )]
    })
}

/// The deadline rule from the form: `schedule` is `manual`, `every_days` (with `days`) or
/// `weekly` (with `weekday`, `time` as HH:MM and `zone`, an IANA time zone name).
fn schedule_from_form(pairs: &[(String, String)]) -> Result<Schedule, String> {
    match field(pairs, "schedule") {
        "manual" | "" => Ok(Schedule::Manual),
        "every_days" => match field(pairs, "days").parse::<u32>() {
            Ok(days) if (1..=MAX_SCHEDULE_DAYS).contains(&days) => Ok(Schedule::EveryDays(days)),
            _ => Err(format!(
                "Schedule: the days between deadlines must be a whole number from 1 to {MAX_SCHEDULE_DAYS}."
            )),
        },
        "weekly" => {
            let weekday = field(pairs, "weekday")
                .parse::<chrono::Weekday>()
                .map_err(|_| {
                    "Schedule: the weekday must be a day's name, e.g. Friday.".to_owned()
                })?;
            let time = chrono::NaiveTime::parse_from_str(field(pairs, "time"), "%H:%M")
                .map_err(|_| "Schedule: the time must be HH:MM, e.g. 18:00.".to_owned())?;
            let zone = field(pairs, "zone").parse::<chrono_tz::Tz>().map_err(|_| {
                "Schedule: the time zone must be a name such as Europe/London.".to_owned()
            })?;
            crate::schedule::Weekly::new(
                weekday,
                chrono::Timelike::hour(&time),
                chrono::Timelike::minute(&time),
                zone,
            )
            .map(Schedule::Weekly)
            .map_err(|e| format!("Schedule: {e}."))
        }
        other => Err(format!("Schedule: unknown kind {other:?}.")),
    }
}

/// The whole schedule from the game page's form: the deadline rule, the reminders (`48h, 6h`),
/// the grace period (`0`, `2h`) and early resolution (a checkbox).
fn settings_from_form(pairs: &[(String, String)]) -> Result<ScheduleSettings, String> {
    let deadlines = schedule_from_form(pairs)?;
    let reminders = field(pairs, "reminders")
        .split([',', ' '])
        .filter(|r| !r.trim().is_empty())
        .map(|r| crate::schedule::parse_duration(r.trim()).map_err(|e| format!("Reminders: {e}.")))
        .collect::<Result<Vec<_>, _>>()?;
    let grace = match field(pairs, "grace").trim() {
        "" | "0" => chrono::Duration::zero(),
        text => crate::schedule::parse_duration(text).map_err(|e| format!("Grace: {e}."))?,
    };
    let early = field(pairs, "early") == "on";
    ScheduleSettings::new(deadlines, &reminders, grace, early)
        .map_err(|e| format!("Schedule: {e}."))
}

fn schedule_text(settings: &ScheduleSettings) -> String {
    let rule = match settings.deadlines() {
        Schedule::Manual => "manual: the GM sets each deadline".to_owned(),
        Schedule::EveryDays(1) => "every day".to_owned(),
        Schedule::EveryDays(days) => format!("every {days} days"),
        Schedule::Weekly(weekly) => format!(
            "every {:?} at {} ({})",
            weekly.weekday(),
            weekly.time().format("%H:%M"),
            weekly.zone()
        ),
    };
    let reminders: Vec<String> = settings
        .reminders()
        .iter()
        .map(|r| crate::schedule::format_duration(*r))
        .collect();
    format!(
        "{rule}; reminders {}; grace {}; early resolution {}",
        if reminders.is_empty() {
            "none".to_owned()
        } else {
            format!("{} before", reminders.join(", "))
        },
        crate::schedule::format_duration(settings.grace()),
        if settings.early_resolution() {
            "on"
        } else {
            "off"
        }
    )
}

/// A `datetime-local` input, read as UTC; empty is none.
fn deadline_from_form(text: &str) -> Result<Option<DateTime<Utc>>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(|naive| Some(naive.and_utc()))
        .ok_or_else(|| {
            format!("First deadline: {text:?} is not a date and time (YYYY-MM-DDTHH:MM, UTC).")
        })
}

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
    schedule: String,
    days: String,
    setup_extra: String,
    active_subscribers: usize,
}

#[derive(Debug, Deserialize)]
pub(crate) struct EngineQuery {
    engine: Option<String>,
}

async fn find_zine(state: &AppState, slug: &str) -> Result<Zine, AppError> {
    let slug = store::ZineSlug::parse(slug).map_err(|_| AppError::NotFound)?;
    store::zines::find_by_slug(&state.pool, &slug)
        .await?
        .ok_or(AppError::NotFound)
}

async fn new_game_page(
    state: &AppState,
    gm: &Gm,
    zine: Zine,
    engine: Option<EngineKind>,
    entered: Option<&[(String, String)]>,
    errors: Vec<String>,
) -> Result<String, AppError> {
    let active_subscribers = store::subscribers::list_for_zine(&state.pool, zine.id)
        .await?
        .iter()
        .filter(|s| s.status == store::subscribers::SubscriberStatus::Active)
        .count();
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
        errors,
        name: typed("name", ""),
        deadline: typed("deadline", &default_deadline),
        schedule: typed("schedule", "every_days"),
        days: typed("days", "7"),
        setup_extra: typed("setup_extra", ""),
        active_subscribers,
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
    let name = super::zines::zine_name(field(&pairs, "name"))
        .map_err(|e| errors.push(format!("Game name: {}", e.replace("The name", "it"))))
        .ok();
    let schedule = schedule_from_form(&pairs).map_err(|e| errors.push(e)).ok();
    let deadline = match deadline_from_form(field(&pairs, "deadline")) {
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
    if let (true, Some(name), Some(schedule), Some(deadline), Some(setup)) =
        (errors.is_empty(), &name, schedule, deadline, &setup)
    {
        let spec = GameSpec {
            zine: zine.id,
            name,
            engine,
            setup,
            first_deadline: deadline,
            schedule,
        };
        match turns::create_game_as(&state.pool, now, &spec, &mut turns::OsEntropy, &gm.actor())
            .await
        {
            Ok(game) => {
                let to = format!("/gm/games/{}?done=game-created", game.0);
                return Ok(Redirect::to(&to).into_response());
            }
            Err(LifecycleError::Store(StoreError::AlreadyExists { what })) => {
                errors.push(format!("There is already {what}."));
            }
            Err(error @ (LifecycleError::Game(_) | LifecycleError::NoPlayers)) => {
                errors.push(format!("The game could not be created: {error}."));
            }
            Err(error) => return Err(lifecycle_error(error)),
        }
    }
    let html = new_game_page(&state, &gm, zine, Some(engine), Some(&pairs), errors).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}

/// Refusals are the GM's to read; storage failures are logged and hidden.
fn lifecycle_error(error: LifecycleError) -> AppError {
    match error {
        LifecycleError::Store(error) => AppError::Store(error),
        other => AppError::Conflict(format!("{other}.")),
    }
}

struct PlayerRow {
    name: String,
    email: String,
    status: String,
    ordered: bool,
    orders: String,
    received: String,
    source: String,
}

struct PressRow {
    name: String,
    text: String,
    received: String,
}

struct TurnRow {
    number: i32,
    status: String,
    deadline: String,
    resolved: String,
    report: Option<String>,
}

#[derive(Template)]
#[template(path = "gm/game.html")]
struct GamePage {
    chrome: Chrome,
    game: store::games::GameSummary,
    setup: String,
    schedule: String,
    every_days: Option<u32>,
    open_turn: Option<(i32, String)>,
    players: Vec<PlayerRow>,
    ordered: usize,
    press: Vec<PressRow>,
    turns: Vec<TurnRow>,
}

async fn find_game(state: &AppState, id: i64) -> Result<store::games::GameSummary, AppError> {
    store::games::summary(&state.pool, GameId(id))
        .await?
        .ok_or(AppError::NotFound)
}

pub(crate) async fn get_game(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
    Query(query): Query<super::home::DoneQuery>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let turns = store::turns::turn_summaries(&state.pool, game.id).await?;
    let open = turns.iter().find(|t| t.status == TurnStatus::Open);
    let (players, press) = match open {
        Some(turn) => (
            store::players::player_turn_status(&state.pool, game.id, turn.id).await?,
            store::orders::press_entries(&state.pool, turn.id).await?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    let settings = ScheduleSettings::from_json(&game.schedule)
        .unwrap_or_else(|_| ScheduleSettings::from(Schedule::Manual));
    let schedule = settings.deadlines();
    let players: Vec<PlayerRow> = players
        .into_iter()
        .map(|p| PlayerRow {
            name: p.display_name,
            email: p.email,
            status: p.status.to_string(),
            ordered: p.raw_orders.is_some(),
            orders: p.raw_orders.unwrap_or_default(),
            received: super::when_opt(&p.orders_received_at),
            source: p.orders_source.map(|s| s.to_string()).unwrap_or_default(),
        })
        .collect();
    let page = GamePage {
        chrome: gm.chrome(super::notice(query.done.as_deref())),
        setup: serde_json::to_string_pretty(&game.setup).unwrap_or_default(),
        schedule: schedule_text(&settings),
        every_days: match schedule {
            Schedule::EveryDays(days) => Some(days),
            Schedule::Manual | Schedule::Weekly(_) => None,
        },
        open_turn: open.map(|t| (t.number, super::when_opt(&t.deadline))),
        ordered: players.iter().filter(|p| p.ordered).count(),
        players,
        press: press
            .into_iter()
            .map(|p| PressRow {
                name: p.display_name,
                text: p.text,
                received: super::when(&p.received_at),
            })
            .collect(),
        turns: turns
            .iter()
            .filter(|t| t.status != TurnStatus::Open)
            .map(|t| TurnRow {
                number: t.number,
                status: t.status.to_string(),
                deadline: super::when_opt(&t.deadline),
                resolved: super::when_opt(&t.resolved_at),
                report: t.report_text.clone(),
            })
            .collect(),
        game,
    };
    Ok(Html(page.render()?))
}

#[derive(Template)]
#[template(path = "gm/preview.html")]
struct PreviewPage {
    chrome: Chrome,
    game: store::games::GameSummary,
    turn: u32,
    text: String,
    html: String,
}

pub(crate) async fn get_preview(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let (turn, resolved) = turns::preview_turn(&state.pool, game.id)
        .await
        .map_err(lifecycle_error)?;
    let page = PreviewPage {
        chrome: gm.chrome(None),
        game,
        turn,
        text: resolved.report.to_text(),
        html: resolved.report.to_html(),
    };
    Ok(Html(page.render()?))
}

pub(crate) async fn post_schedule(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
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

pub(crate) async fn post_action(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, action)): Path<(i64, String)>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn every_engine_has_a_form_that_reads_back_its_defaults() {
        for engine in EngineKind::ALL {
            let fields = setup_fields(engine, None);
            let mut form = Vec::new();
            for f in &fields {
                if f.kind == "bool" {
                    if f.value == "true" {
                        form.push((format!("setup.{}", f.key), "on".to_owned()));
                    }
                } else {
                    form.push((format!("setup.{}", f.key), f.value.clone()));
                }
            }
            let read = setup_from_form(engine, &form).unwrap();
            assert_eq!(
                read,
                engine.parse_setup(&engine.default_setup()).unwrap(),
                "{engine}"
            );
        }
    }

    #[test]
    fn bad_inputs_are_named() {
        let errors = setup_from_form(
            EngineKind::Barmy,
            &pairs(&[("setup.width", "wide"), ("setup.height", "19")]),
        )
        .unwrap_err();
        assert_eq!(
            errors,
            vec!["Width: a number is needed, not \"wide\".".to_owned()]
        );
        let errors = setup_from_form(
            EngineKind::Barmy,
            &pairs(&[("setup.width", "19"), ("setup.height", "-4")]),
        )
        .unwrap_err();
        assert!(
            errors[0].starts_with("The barmy engine refused the setup"),
            "{errors:?}"
        );
        let errors = setup_from_form(
            EngineKind::Barmy,
            &pairs(&[
                ("setup.width", "19"),
                ("setup.height", "19"),
                ("setup_extra", "[1]"),
            ]),
        )
        .unwrap_err();
        assert!(errors[0].starts_with("More settings"), "{errors:?}");
    }

    #[test]
    fn schedules_from_the_form() {
        assert_eq!(
            schedule_from_form(&pairs(&[("schedule", "manual")])),
            Ok(Schedule::Manual)
        );
        assert_eq!(
            schedule_from_form(&pairs(&[("schedule", "every_days"), ("days", "3")])),
            Ok(Schedule::EveryDays(3))
        );
        assert!(schedule_from_form(&pairs(&[("schedule", "every_days"), ("days", "0")])).is_err());
        assert!(schedule_from_form(&pairs(&[("schedule", "weekly")])).is_err());
    }
}
