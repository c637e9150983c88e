//! Games: a game's page (the open turn: who has and has not ordered, their orders, the press;
//! the turns published), a preview of the resolution, the schedule, and the lifecycle actions.
//! Creating one is in [`new`]; the forms' fields are read in [`forms`].

mod confirm;
mod forms;
mod new;
mod postal;
mod replace;
mod standbys;

pub(crate) use postal::{
    get_print as get_postal_print, get_print_postal, post_orders as post_postal_orders,
};
pub(crate) use replace::post_replace;
pub(crate) use standbys::{post_missed, post_offer, post_reinstate, post_withdraw};
mod roster;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Duration;
use store::games::GameId;
use store::players::PlayerRowId;
use store::status::{GameStatus, TurnStatus};
use store::subscribers::SubscriberId;

use super::{Chrome, Gm, field};
use crate::turns::{self, GmAction, LifecycleError};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};
pub(crate) use confirm::{get_confirm_game, get_confirm_unsubscribe, post_delete};
use forms::{ScheduleForm, WEEKDAYS, schedule_text, settings_from_form};
pub(crate) use new::{get_new_game, post_new_game};

/// The longest extension the console offers in one go (30 days).
const MAX_EXTEND_HOURS: i64 = 720;
/// The longest gap between deadlines a schedule may have.
const MAX_SCHEDULE_DAYS: u32 = 365;

/// Refusals are the GM's to read; storage failures are logged and hidden.
pub(crate) fn lifecycle_error(error: LifecycleError) -> AppError {
    match error {
        LifecycleError::Store(error) => AppError::Store(error),
        LifecycleError::GameNotFound(_) => AppError::NotFound,
        other => AppError::Conflict(format!("{other}.")),
    }
}

struct PlayerRow {
    id: PlayerRowId,
    /// Resigned, with the fleet still in the battle: the GM can take the resignation back.
    reinstatable: bool,
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
    /// The schedule form's fields as saved.
    form: ScheduleForm,
    weekdays: [&'static str; 7],
    /// The game's time zone: deadlines are shown and typed in it.
    zone: String,
    /// The open turn: its number, its deadline as shown, and as a `datetime-local` value.
    open_turn: Option<(i32, String, String)>,
    players: Vec<PlayerRow>,
    ordered: usize,
    /// Active players: the ones whose orders are awaited.
    playing: usize,
    press: Vec<PressRow>,
    turns: Vec<TurnRow>,
    /// Every player the game has had, with their seats (`crate::rosters`).
    roster: Vec<crate::rosters::RosterEntry>,
    /// The open turn's active players, for orders received by post: row id and name.
    post_to: Vec<(PlayerRowId, String)>,
    /// Seats of players still playing that the GM may offer to a standby: row id and name.
    offerable: Vec<(PlayerRowId, String)>,
    /// For replacements: the seats (engine id, player) and who may take one (subscriber id,
    /// name, standbys first); empty without an open turn.
    seats: Vec<(i64, String)>,
    candidates: Vec<(SubscriberId, String)>,
    today: String,
    /// The absence policy: its stored name, the waiting limit in days, and in words.
    absence: (&'static str, u32, String),
    /// Missed turns and standbys; `None` for Barmy.
    standbys: Option<standbys::StandbyPanel>,
}

async fn find_game(state: &AppState, id: GameId) -> Result<store::games::GameSummary, AppError> {
    store::games::summary(&state.pool, id)
        .await?
        .ok_or(AppError::NotFound)
}

pub(crate) async fn get_game(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
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
    let settings = &game.schedule;
    let zone = settings.zone();
    let shown = |at: &Option<chrono::DateTime<chrono::Utc>>| {
        at.map_or_else(|| "none".to_owned(), |at| schedule::local_time(at, zone))
    };
    let roster = crate::rosters::roster(&state.pool, game.id)
        .await?
        .unwrap_or_default();
    // Only fleets still in the battle can be handed on, or taken back after a resignation.
    let current = match open {
        Some(_) => Some(
            crate::turns::game_state(&state.pool, game.id)
                .await
                .map_err(lifecycle_error)?,
        ),
        None => None,
    };
    let in_battle = |engine_player_id: i64| {
        current
            .as_ref()
            .is_some_and(|c| c.expects_orders(crate::turns::player_id(engine_player_id)))
    };
    let (seats, candidates) = if open.is_some() && game.engine != games::EngineKind::Barmy {
        let seats = store::players::roster(&state.pool, game.id)
            .await?
            .into_iter()
            .filter(|p| in_battle(p.engine_player_id))
            .map(|p| {
                (
                    p.engine_player_id,
                    format!("{} ({})", p.display_name, p.status),
                )
            })
            .collect();
        (seats, replace::candidates(&state, &game).await?)
    } else {
        (Vec::new(), Vec::new())
    };
    let post_to: Vec<(PlayerRowId, String)> = players
        .iter()
        .filter(|p| p.status == store::status::PlayerStatus::Active)
        .map(|p| (p.player_id, p.display_name.clone()))
        .collect();
    // Seats the GM may offer while their players still play: active, with a fleet in battle.
    let offerable = players
        .iter()
        .filter(|p| {
            p.status == store::status::PlayerStatus::Active && in_battle(p.engine_player_id)
        })
        .map(|p| (p.player_id, p.display_name.clone()))
        .collect();
    let players: Vec<PlayerRow> = players
        .into_iter()
        .map(|p| PlayerRow {
            id: p.player_id,
            reinstatable: p.status == store::status::PlayerStatus::Resigned
                && in_battle(p.engine_player_id),
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
        schedule: schedule_text(settings),
        form: ScheduleForm::of(settings),
        weekdays: WEEKDAYS,
        zone: zone.name().to_owned(),
        open_turn: open.map(|t| {
            let typed = t.deadline.map_or_else(String::new, |at| {
                at.with_timezone(&zone).format("%Y-%m-%dT%H:%M").to_string()
            });
            (t.number, shown(&t.deadline), typed)
        }),
        ordered: players
            .iter()
            .filter(|p| p.ordered && p.status == "active")
            .count(),
        playing: players.iter().filter(|p| p.status == "active").count(),
        players,
        roster,
        post_to,
        offerable,
        seats,
        candidates,
        today: state.clock.now().format("%Y-%m-%d").to_string(),
        standbys: standbys::panel(&state, &game).await?,
        absence: {
            let policy = store::absences::policy(&state.pool, game.id).await?;
            (
                policy.policy.as_str(),
                policy.wait_days,
                crate::turns::absences::policy_words(policy),
            )
        },
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
                deadline: shown(&t.deadline),
                resolved: shown(&t.resolved_at),
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
    Path(id): Path<GameId>,
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

#[derive(Template)]
#[template(path = "gm/positions.html")]
struct PositionsPage {
    chrome: Chrome,
    game: store::games::GameSummary,
    lines: Vec<String>,
    board_svg: Option<String>,
}

/// Every hidden position, as the engine shows them to the GM (`Viewer::Gm`): the console's
/// `Gm` extractor is the only way in.
pub(crate) async fn get_positions(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let game_state = turns::game_state(&state.pool, game.id)
        .await
        .map_err(lifecycle_error)?;
    let view = game_state.view(engine::Viewer::Gm);
    let title = format!("{}: every position", game.name);
    let page = PositionsPage {
        chrome: gm.chrome(None),
        lines: view.lines,
        board_svg: view
            .board
            .as_ref()
            .map(|board| crate::routes::boards::svg(board, &title)),
        game,
    };
    Ok(Html(page.render()?))
}

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
            let at = forms::local_deadline_from_form(field(&pairs, "deadline"), settings.zone())
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
