//! A game's page in the console: the open turn (who has and has not ordered, their orders, the
//! press), the turns published, the schedule, the roster, replacements and standbys, the
//! absence policy, and the forms for each.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use store::games::{GameId, GameSummary};
use store::players::{PlayerRowId, PlayerTurnStatus};
use store::status::{GameStatus, PlayerStatus, TurnStatus};
use store::subscribers::SubscriberId;

use super::super::{Chrome, Gm, when, when_opt};
use super::schedule_form::{ScheduleForm, WEEKDAYS, schedule_text};
use super::{find_game, lifecycle_error, standbys};
use crate::views::gm_game::{GameDesk, OrderCount, game_desk};
use crate::web::Path;
use crate::web::field_errors::{FieldErrors, zone_names};
use crate::{AppError, AppState};

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
    id: String,
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
    game: GameSummary,
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
    /// The roster's version the page shows, carried by its roster forms.
    roster_version: String,
    /// The absence policy: its stored name, the waiting limit in days, and in words.
    absence: (&'static str, String, String),
    /// Hours to extend by, as typed (24 unless sent back).
    hours: String,
    /// The form for orders received by post (today and orders unless sent back).
    post: PostForm,
    /// The errors of the form sent back, beside their fields.
    errors: FieldErrors,
    /// Every IANA time zone, for the zone field's list.
    zones: Vec<&'static str>,
    /// Missed turns and standbys; `None` for Barmy.
    standbys: Option<standbys::StandbyPanel>,
}

/// A time in the game's zone, or "none".
fn shown(at: Option<DateTime<Utc>>, zone: Tz) -> String {
    at.map_or_else(|| "none".to_owned(), |at| schedule::local_time(at, zone))
}

/// The open turn's players as the page lists them.
fn player_rows(desk: &GameDesk) -> Vec<PlayerRow> {
    desk.players
        .iter()
        .map(|p| PlayerRow {
            id: p.player_id,
            reinstatable: p.status == PlayerStatus::Resigned && desk.in_battle(p.engine_player_id),
            name: p.display_name.clone(),
            email: p.email.clone(),
            status: p.status.to_string(),
            ordered: p.orders_answer_turn == Some(true),
            has_orders: p.raw_orders.is_some(),
            orders: p.raw_orders.clone().unwrap_or_default(),
            received: when_opt(&p.orders_received_at),
            source: p.orders_source.map(|s| s.to_string()).unwrap_or_default(),
        })
        .collect()
}

/// The open turn's active players that `also` keeps: row id and name.
fn active_players(
    players: &[PlayerTurnStatus],
    also: impl Fn(&PlayerTurnStatus) -> bool,
) -> Vec<(PlayerRowId, String)> {
    players
        .iter()
        .filter(|p| p.status == PlayerStatus::Active && also(p))
        .map(|p| (p.player_id, p.display_name.clone()))
        .collect()
}

/// The turns published (or abandoned): every turn but the open one.
fn turn_rows(desk: &GameDesk, zone: Tz) -> Vec<TurnRow> {
    desk.turns
        .iter()
        .filter(|t| t.status != TurnStatus::Open)
        .map(|t| TurnRow {
            number: t.number,
            status: t.status.to_string(),
            deadline: shown(t.deadline, zone),
            resolved: shown(t.resolved_at, zone),
            report: t.report_text.clone(),
        })
        .collect()
}

/// A form of the game's page sent back with its errors: what the GM typed, shown again in
/// place of what is saved.
#[derive(Default)]
pub(super) struct SentBack {
    pub errors: FieldErrors,
    pub schedule: Option<ScheduleForm>,
    pub deadline: Option<String>,
    pub hours: Option<String>,
    /// The absence policy's name and the longest wait, as typed.
    pub absence: Option<(&'static str, String)>,
    /// The form for orders and press received by post, as typed.
    pub post: Option<PostForm>,
    /// The missed-turns form, as typed.
    pub missed: Option<MissedForm>,
}

/// The missed-turns form as typed: the limit, who offers (`automatic` or not), the days.
pub(super) struct MissedForm {
    pub limit: String,
    pub automatic: bool,
    pub offer_days: String,
}

/// The form for orders and press received by post: each field as typed.
#[derive(Debug, Clone, Default)]
pub(super) struct PostForm {
    /// The player's row id, as chosen (empty: none).
    pub player: String,
    pub received_on: String,
    /// `orders` or `press`.
    pub kind: String,
    pub text: String,
}

impl PostForm {
    /// The form as first shown: orders, received today.
    fn today(now: DateTime<Utc>) -> PostForm {
        PostForm {
            received_on: now.format("%Y-%m-%d").to_string(),
            kind: "orders".to_owned(),
            ..PostForm::default()
        }
    }
}

/// The standbys' panel, its form as typed when it comes back.
fn standby_panel(desk: &GameDesk, typed: Option<MissedForm>) -> Option<standbys::StandbyPanel> {
    let mut panel = standbys::panel(desk.standbys.as_ref()?);
    if let Some(typed) = typed {
        panel.custom = typed.limit;
        panel.automatic = typed.automatic;
        panel.offer_days_field = typed.offer_days;
    }
    Some(panel)
}

pub(crate) async fn get_game(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    Query(query): Query<super::super::home::DoneQuery>,
) -> Result<Html<String>, AppError> {
    let chrome = gm.chrome(super::super::notice(query.done.as_deref()));
    Ok(Html(
        game_page(&state, chrome, id, SentBack::default()).await?,
    ))
}

/// The game's page again with the form the GM sent, its values kept and its errors beside
/// their fields: 422, nothing changed.
pub(super) async fn send_back(
    state: &AppState,
    gm: &Gm,
    id: GameId,
    sent: SentBack,
) -> Result<Response, AppError> {
    let html = game_page(state, gm.chrome(None), id, sent).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}

async fn game_page(
    state: &AppState,
    chrome: super::super::Chrome,
    id: GameId,
    sent: SentBack,
) -> Result<String, AppError> {
    let game = find_game(state, id).await?;
    let desk = game_desk(&state.pool, &game)
        .await
        .map_err(lifecycle_error)?;
    let settings = &game.schedule;
    let zone = settings.zone();
    let players = player_rows(&desk);
    let count = OrderCount::of(&desk.players);
    let absence = desk.absence;
    let (policy, wait_days) = sent
        .absence
        .unwrap_or((absence.policy.as_str(), absence.wait_days.to_string()));
    let page = GamePage {
        chrome,
        setup: serde_json::to_string_pretty(&game.setup).unwrap_or_default(),
        schedule: schedule_text(settings),
        form: sent.schedule.unwrap_or_else(|| ScheduleForm::of(settings)),
        weekdays: WEEKDAYS,
        zone: zone.name().to_owned(),
        open_turn: desk.open_turn().map(|t| {
            let typed = t.deadline.map_or_else(String::new, |at| {
                at.with_timezone(&zone).format("%Y-%m-%dT%H:%M").to_string()
            });
            let typed = sent.deadline.clone().unwrap_or(typed);
            (t.number, shown(t.deadline, zone), typed)
        }),
        ordered: count.ordered,
        playing: count.playing,
        players,
        roster: desk.roster.clone(),
        roster_version: desk.roster_version(),
        post_to: active_players(&desk.players, |_| true),
        // Seats the GM may offer while their players still play: active, with a fleet in battle.
        offerable: active_players(&desk.players, |p| desk.in_battle(p.engine_player_id)),
        seats: desk
            .seats
            .iter()
            .map(|p| {
                (
                    p.engine_player_id,
                    format!("{} ({})", p.display_name, p.status),
                )
            })
            .collect(),
        candidates: desk.takers.iter().map(|t| (t.id, t.label())).collect(),
        post: sent
            .post
            .unwrap_or_else(|| PostForm::today(state.clock.now())),
        standbys: standby_panel(&desk, sent.missed),
        absence: (
            policy,
            wait_days,
            crate::turns::absences::policy_words(absence),
        ),
        hours: sent.hours.unwrap_or_else(|| "24".to_owned()),
        errors: sent.errors,
        zones: zone_names(),
        press: desk
            .press
            .iter()
            .map(|p| PressRow {
                id: p.id.to_string(),
                name: p.display_name.clone(),
                text: p.text.clone(),
                received: when(&p.received_at),
            })
            .collect(),
        turns: turn_rows(&desk, zone),
        game,
    };
    Ok(page.render()?)
}
