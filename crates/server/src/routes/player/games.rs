//! A player's games: the list (`/me`), and one game's page with what this player alone may see
//! (the engine's view for them, as the POSITION mail has it), the public board, their orders of
//! the open turn, the order and press forms, and their orders of past turns. Orders go through
//! the same parser as mail (`turns::submit_orders_in`); a set with an error is not stored, and
//! comes back with the text kept and each error beside its line.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use engine::Viewer;
use serde::Deserialize;
use store::games::GameId;
use store::players::TokenHolder;

use super::issues::{self, IssueView};
use super::{Player, notice, when};
use crate::limits::PressVerdict;
use crate::routes::boards;
use crate::turns::{self, LifecycleError};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// Failures that are not the player's to fix: logged, never shown (a game's state is hidden).
fn internal(error: LifecycleError) -> AppError {
    match error {
        LifecycleError::Store(error) => AppError::Store(error),
        other => {
            tracing::error!(error = %other, "a player's page could not be built");
            AppError::Conflict(
                "Admiralty could not read this game just now; the details are in the server's log \
                 for the GM."
                    .to_owned(),
            )
        }
    }
}

/// A game id from a URL segment: digits only.
fn parse_game(segment: &str) -> Result<GameId, AppError> {
    segment.parse().map_err(|_| AppError::NotFound)
}

/// The player's own row in game `segment`. A game they do not play in is not found, whether
/// or not it exists, so the answer tells nothing about other games.
pub(super) async fn own_game(
    state: &AppState,
    player: &Player,
    segment: &str,
) -> Result<TokenHolder, AppError> {
    let game = parse_game(segment)?;
    // Any game of the person logged in (the same address in any zine), never another's.
    store::players::player_rows_of_person(&state.pool, player.subscriber)
        .await?
        .into_iter()
        .find(|holder| holder.game_id == game)
        .ok_or(AppError::NotFound)
}

fn turn_line(holder: &TokenHolder) -> String {
    match (
        holder.game_status.as_str(),
        holder.turn_number,
        holder.deadline,
    ) {
        ("finished", _, _) => "The game is over.".to_owned(),
        (status, Some(turn), deadline) => {
            let due = deadline.map_or_else(
                || "the GM sets the deadline".to_owned(),
                |d| format!("orders due {}", crate::letters::deadline(d, holder.zone)),
            );
            let paused = if status == "paused" {
                " (paused by the GM)"
            } else {
                ""
            };
            format!("Turn {turn}{paused}: {due}.")
        }
        (_, None, _) => "No turn is open.".to_owned(),
    }
}

pub(super) fn game_url(game: GameId) -> String {
    format!("/me/games/{}", game)
}

struct GameRow {
    /// The zine the game belongs to: a person may play in several.
    zine: String,
    name: String,
    url: String,
    rules: String,
    you: String,
    status: String,
    now: String,
    /// Whether orders are in for the open turn.
    ordered: bool,
    open: bool,
}

#[derive(Template)]
#[template(path = "player/me.html")]
struct MePage {
    csrf: String,
    games: Vec<GameRow>,
    /// The zine's games open for sign-up, with the player's place in each queue.
    signups: Vec<super::signups::SignupRow>,
    /// The player's absences and each game's absence policy, in words.
    absences: String,
    /// Whether the player is on the standby list (docs/rosters.md).
    standby: bool,
    /// Seats offered to the player, and what came of their last answer.
    offers: Vec<super::signups::OfferRow>,
    offer_notice: Option<&'static str>,
}

/// `/me?offer=...`: what came of the player's answer to an offer. Codes, not text.
#[derive(Debug, Deserialize)]
pub(crate) struct MeQuery {
    offer: Option<String>,
}

pub(crate) async fn get_me(
    State(state): State<AppState>,
    player: Player,
    Query(query): Query<MeQuery>,
) -> Result<Response, AppError> {
    let holders = store::players::player_rows_of_person(&state.pool, player.subscriber).await?;
    let mut games = Vec::new();
    for holder in &holders {
        let ordered =
            store::orders::current_raw_orders(&state.pool, holder.game_id, holder.player_id)
                .await?
                .is_some();
        games.push(GameRow {
            zine: holder.zine_name.clone(),
            name: holder.game_name.clone(),
            url: game_url(holder.game_id),
            rules: holder.engine.title().to_owned(),
            you: holder.display_name.clone(),
            status: holder.status.to_string(),
            now: turn_line(holder),
            ordered,
            open: holder.turn_number.is_some(),
        });
    }
    Ok(Html(
        MePage {
            signups: super::signups::rows(&state, player.subscriber).await?,
            absences: super::absences::summary(&state, player.subscriber).await?,
            standby: store::replacements::is_standby(&state.pool, player.subscriber).await?,
            offers: super::signups::offers(&state, player.subscriber).await?,
            offer_notice: match query.offer.as_deref() {
                Some("accepted") => Some(
                    "You took the seat: it is in your games above, and your position and reply address are on their way by mail.",
                ),
                Some("declined") => Some("You declined the seat; it goes to someone else."),
                Some("closed") => Some("That seat is no longer offered to you; nothing was changed."),
                _ => None,
            },
            csrf: player.csrf,
            games,
        }
        .render()?,
    )
    .into_response())
}

/// A line of a refused set, with the problems found on it.
struct SubmittedLine {
    number: usize,
    text: String,
    issues: Vec<IssueView>,
}

/// The orders that stand for the open turn, as the engine reads them.
struct CurrentOrders {
    understood: Vec<String>,
    warnings: Vec<IssueView>,
}

struct PastOrdersView {
    turn: i32,
    text: String,
    how: String,
}

/// What a refused form brings back to the page.
#[derive(Default)]
struct FormState {
    /// The orders as typed, when they were refused.
    orders: Option<String>,
    /// Each line of a refused set with its problems; problems on no line of the text go in
    /// `other_issues`.
    lines: Vec<SubmittedLine>,
    other_issues: Vec<IssueView>,
    orders_error: Option<String>,
    press: String,
    press_error: Option<String>,
}

impl FormState {
    /// Whether orders were just refused: the page then opens on the result and the form.
    fn orders_refused(&self) -> bool {
        self.orders_error.is_some()
    }
}

#[derive(Template)]
#[template(path = "player/game.html")]
struct GamePage {
    csrf: String,
    notice: Option<&'static str>,
    zine: String,
    name: String,
    url: String,
    rules: String,
    you: String,
    status: String,
    now: String,
    public_url: Option<String>,
    /// Why this player cannot send orders now (the game is over, they left), if so.
    cannot_play: Option<String>,
    /// What this player alone may see: the engine's view for them.
    private_lines: Vec<String>,
    /// Markup from [`boards::svg`], which escapes every text it draws.
    own_board_svg: Option<String>,
    public_board_svg: Option<String>,
    /// How to write orders, as the engine says it, its examples as code.
    order_help: Vec<issues::TextPart>,
    current: Option<CurrentOrders>,
    orders_text: String,
    press_sent: Vec<String>,
    /// The press limits, and what this player has left of them this turn.
    press_room: String,
    history: Vec<PastOrdersView>,
    form: FormState,
}

async fn game_page(
    state: &AppState,
    player: &Player,
    holder: &TokenHolder,
    notice: Option<&'static str>,
    form: FormState,
) -> Result<GamePage, AppError> {
    let engine = holder.engine;
    let game_state = turns::game_state(&state.pool, holder.game_id)
        .await
        .map_err(internal)?;
    let me = turns::player_id(holder.engine_player_id);
    let own = game_state.view(Viewer::Player(me));
    let public = game_state.view(Viewer::Public);
    let raw =
        store::orders::current_raw_orders(&state.pool, holder.game_id, holder.player_id).await?;
    let current = match &raw {
        Some(text) => {
            let parsed = game_state.parse_orders(me, text);
            Some(CurrentOrders {
                understood: parsed.understood,
                warnings: parsed
                    .warnings
                    .iter()
                    .map(|w| IssueView::new("Warning", w))
                    .collect(),
            })
        }
        None => None,
    };
    let order_help = issues::code_spans(&game_state.order_help());
    let press_sent =
        store::orders::open_turn_press_of_player(&state.pool, holder.game_id, holder.player_id)
            .await?;
    let history = store::orders::past_orders_of_player(&state.pool, holder.player_id)
        .await?
        .into_iter()
        .map(|past| PastOrdersView {
            turn: past.turn_number,
            text: past.raw_text,
            how: format!("by {}, {}", past.source, when(&past.received_at)),
        })
        .collect();
    let public_url = store::zines::find(&state.pool, holder.zine_id)
        .await?
        .map(|zine| format!("/zines/{}/games/{}", zine.slug, holder.game_id));
    let title = format!("{}: your view", holder.game_name);
    Ok(GamePage {
        csrf: player.csrf.clone(),
        notice,
        zine: holder.zine_name.clone(),
        name: holder.game_name.clone(),
        url: game_url(holder.game_id),
        rules: engine.title().to_owned(),
        you: holder.display_name.clone(),
        status: holder.status.to_string(),
        now: turn_line(holder),
        public_url,
        cannot_play: turns::may_play(holder).err(),
        own_board_svg: own.board.as_ref().map(|board| boards::svg(board, &title)),
        private_lines: own.lines,
        public_board_svg: public
            .board
            .map(|board| boards::svg(&board, &format!("{}: the public board", holder.game_name))),
        order_help,
        orders_text: form.orders.clone().or(raw).unwrap_or_default(),
        current,
        press_room: press_room(&state.limits.press, &press_sent),
        press_sent,
        history,
        form,
    })
}

/// The press limits, as the press form states them, with what is left of them.
fn press_room(limits: &crate::config::PressLimits, sent: &[String]) -> String {
    let chars: usize = sent.iter().map(|p| p.chars().count()).sum();
    let chars_left = usize::try_from(limits.chars_per_turn)
        .unwrap_or(usize::MAX)
        .saturating_sub(chars);
    let entries_left = usize::try_from(limits.entries_per_turn)
        .unwrap_or(usize::MAX)
        .saturating_sub(sent.len());
    format!(
        "Each player may have at most {} characters of press, in at most {} entries, printed \
         with each turn's report (press in your orders counts too); longer press is cut. You \
         have {chars_left} characters and {entries_left} entries left this turn.",
        limits.chars_per_turn, limits.entries_per_turn
    )
}

#[derive(Debug, Deserialize)]
pub(crate) struct DoneQuery {
    done: Option<String>,
}

pub(crate) async fn get_game(
    State(state): State<AppState>,
    Path(game): Path<String>,
    Query(query): Query<DoneQuery>,
    player: Player,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    let page = game_page(
        &state,
        &player,
        &holder,
        notice(query.done.as_deref()),
        FormState::default(),
    )
    .await?;
    Ok(Html(page.render()?).into_response())
}

async fn refused(
    state: &AppState,
    player: &Player,
    holder: &TokenHolder,
    form: FormState,
) -> Result<Response, AppError> {
    let page = game_page(state, player, holder, None, form).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(page.render()?)).into_response())
}

/// Text from a browser's textarea, with its CRLF line ends made plain, as mail's are.
fn textarea(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[derive(Debug, Deserialize)]
pub(crate) struct OrdersForm {
    #[serde(default)]
    orders: String,
}

pub(crate) async fn post_orders(
    State(state): State<AppState>,
    Path(game): Path<String>,
    player: Player,
    CsrfForm(form): CsrfForm<OrdersForm>,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    let text = textarea(&form.orders);
    let refuse = |why: String| FormState {
        orders: Some(text.clone()),
        orders_error: Some(why),
        ..FormState::default()
    };
    if text.trim().is_empty() {
        let why = "No orders were written, so nothing was changed.".to_owned();
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    if let Err(why) = turns::may_play(&holder) {
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    let outcome = turns::submit_checked_orders(
        &state.pool,
        &state.states,
        state.clock.now(),
        &holder,
        &text,
        state.limits.press,
        &state.mail_domain,
    )
    .await;
    let parsed = match outcome {
        Ok(turns::Checked::Saved(taken)) => {
            let done = if !taken.press.iter().all(|p| p.verdict == PressVerdict::Kept) {
                "orders-press-cut"
            } else if taken.press_withdrawn > 0 {
                "orders-press-withdrawn"
            } else {
                "orders"
            };
            return Ok(
                Redirect::to(&format!("{}?done={done}", game_url(holder.game_id))).into_response(),
            );
        }
        Ok(turns::Checked::Refused(parsed)) => parsed,
        Err(
            error @ (LifecycleError::DeadlinePassed(_)
            | LifecycleError::NoOpenTurn(_)
            | LifecycleError::LaterOrdersStand),
        ) => {
            let why = format!("Your orders were NOT accepted: {error}.");
            return refused(&state, &player, &holder, refuse(why)).await;
        }
        Err(error) => return Err(internal(error)),
    };
    // A set with an error is stored nowhere: the player fixes it and sends it again.
    let issues: Vec<IssueView> = parsed
        .errors
        .iter()
        .map(|e| IssueView::new("Error", e))
        .chain(parsed.warnings.iter().map(|w| IssueView::new("Warning", w)))
        .collect();
    let line_count = text.lines().count();
    let (on_lines, other_issues): (Vec<IssueView>, Vec<IssueView>) = issues
        .into_iter()
        .partition(|issue| (1..=line_count).contains(&issue.line));
    let mut lines: Vec<SubmittedLine> = text
        .lines()
        .enumerate()
        .map(|(index, line)| SubmittedLine {
            number: index + 1,
            text: line.to_owned(),
            issues: Vec::new(),
        })
        .collect();
    for issue in on_lines {
        if let Some(line) = lines.get_mut(issue.line - 1) {
            line.issues.push(issue);
        }
    }
    let form = FormState {
        orders: Some(text.clone()),
        lines,
        other_issues,
        orders_error: Some(issues::refusal(&parsed.errors, line_count)),
        ..FormState::default()
    };
    refused(&state, &player, &holder, form).await
}

#[derive(Debug, Deserialize)]
pub(crate) struct PressForm {
    #[serde(default)]
    press: String,
    /// `on`: the press replaces the player's earlier press for the turn.
    #[serde(default)]
    replace: String,
}

pub(crate) async fn post_press(
    State(state): State<AppState>,
    Path(game): Path<String>,
    player: Player,
    CsrfForm(form): CsrfForm<PressForm>,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    let text = textarea(&form.press).trim().to_owned();
    let refuse = |why: String| FormState {
        press: text.clone(),
        press_error: Some(why),
        ..FormState::default()
    };
    if text.is_empty() {
        let why = "The press was empty, so nothing was sent.".to_owned();
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    if let Err(why) = turns::may_play(&holder) {
        return refused(&state, &player, &holder, refuse(why)).await;
    }
    let limits = state.limits.press;
    let sent = if form.replace == "on" {
        turns::replace_press(
            &state.pool,
            &state.states,
            state.clock.now(),
            &holder,
            &text,
            limits,
        )
        .await
    } else {
        turns::send_press(
            &state.pool,
            &state.states,
            state.clock.now(),
            &holder,
            &text,
            limits,
        )
        .await
    };
    match sent {
        Ok(admitted) => {
            let done = match admitted.verdict {
                PressVerdict::Kept => "press",
                PressVerdict::Cut { .. } => "press-cut",
                PressVerdict::TooManyEntries => {
                    let why = format!(
                        "Your press was not accepted: you have sent the {} press entries a \
                         player may have printed with this turn's report.",
                        limits.entries_per_turn
                    );
                    return refused(&state, &player, &holder, refuse(why)).await;
                }
                PressVerdict::NoRoom { left } => {
                    let why = format!(
                        "Your press was not accepted: only {left} of the {} characters of press \
                         a player may have printed with this turn's report are left.",
                        limits.chars_per_turn
                    );
                    return refused(&state, &player, &holder, refuse(why)).await;
                }
            };
            Ok(Redirect::to(&format!("{}?done={done}", game_url(holder.game_id))).into_response())
        }
        Err(error @ (LifecycleError::NoOpenTurn(_) | LifecycleError::DeadlinePassed(_))) => {
            let why = format!("Your press was not accepted: {error}.");
            refused(&state, &player, &holder, refuse(why)).await
        }
        Err(error) => Err(internal(error)),
    }
}
