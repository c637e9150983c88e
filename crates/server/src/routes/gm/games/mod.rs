//! Games: a game's page (the open turn: who has and has not ordered, their orders, the press;
//! the turns published), a preview of the resolution, the schedule, and the lifecycle actions.
//! Creating one is in [`new`]; the forms' fields are read in [`forms`].

mod forms;
mod new;
mod postal;

pub(crate) use postal::{get_print as get_postal_print, post_orders as post_postal_orders};
mod roster;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Duration;
use store::games::GameId;
use store::status::{GameStatus, TurnStatus};

use super::{Chrome, Gm, field};
use crate::schedule::ScheduleSettings;
use crate::turns::{self, GmAction, LifecycleError, Schedule};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};
use forms::{schedule_text, settings_from_form};
pub(crate) use new::{get_new_game, post_new_game};

/// The longest extension the console offers in one go (30 days).
const MAX_EXTEND_HOURS: i64 = 720;
/// The longest gap between deadlines a schedule may have.
const MAX_SCHEDULE_DAYS: u32 = 365;

/// Refusals are the GM's to read; storage failures are logged and hidden.
fn lifecycle_error(error: LifecycleError) -> AppError {
    match error {
        LifecycleError::Store(error) => AppError::Store(error),
        LifecycleError::GameNotFound(_) => AppError::NotFound,
        other => AppError::Conflict(format!("{other}.")),
    }
}

struct PlayerRow {
    name: String,
    email: String,
    status: String,
    /// Current orders that answer the turn.
    ordered: bool,
    /// Current orders of any kind (a set that fires nothing too).
    has_orders: bool,
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
    /// Every player the game has had, with their seats (`crate::rosters`).
    roster: Vec<crate::rosters::RosterEntry>,
    /// The open turn's active players, for orders received by post: row id and name.
    post_to: Vec<(i64, String)>,
    today: String,
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
    let roster = crate::rosters::roster(&state.pool, game.id)
        .await?
        .unwrap_or_default();
    let post_to = players
        .iter()
        .filter(|p| p.status == store::status::PlayerStatus::Active)
        .map(|p| (p.player_id.0, p.display_name.clone()))
        .collect();
    let players: Vec<PlayerRow> = players
        .into_iter()
        .map(|p| PlayerRow {
            name: p.display_name,
            email: p.email,
            status: p.status.to_string(),
            ordered: p.orders_answer_turn == Some(true),
            has_orders: p.raw_orders.is_some(),
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
        roster,
        post_to,
        today: state.clock.now().format("%Y-%m-%d").to_string(),
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
