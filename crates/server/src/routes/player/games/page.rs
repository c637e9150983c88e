//! One game's page for its player: what this player alone may see (the engine's view for
//! them, as the POSITION mail has it), the public board, their orders of the open turn, the
//! order and press forms (with what a refused form brings back), and their past orders.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use engine::Viewer;
use serde::Deserialize;
use store::players::TokenHolder;

use super::super::issues::{self, IssueView};
use super::super::{Player, notice, when};
use super::{game_url, internal, own_game, turn_line};
use crate::routes::boards;
use crate::turns;
use crate::web::Path;
use crate::{AppError, AppState};

/// A line of a refused set, with the problems found on it.
pub(super) struct SubmittedLine {
    pub number: usize,
    pub text: String,
    pub issues: Vec<IssueView>,
}

/// The orders that stand for the open turn, as the engine reads them.
struct CurrentOrders {
    understood: Vec<String>,
    issues: Vec<IssueView>,
}

struct PastOrdersView {
    turn: i32,
    text: String,
    how: String,
}

/// What a refused form brings back to the page.
#[derive(Default)]
pub(super) struct FormState {
    /// The orders as typed, when they were refused.
    pub orders: Option<String>,
    /// Each line of a refused set with its problems; problems on no line of the text go in
    /// `other_issues`.
    pub lines: Vec<SubmittedLine>,
    pub other_issues: Vec<IssueView>,
    pub orders_error: Option<String>,
    /// How the set the headline speaks of was taken, for the headline's look.
    pub orders_outcome: SetOutcome,
    pub press: String,
    pub press_error: Option<String>,
}

/// What became of a set of orders sent on the form.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum SetOutcome {
    /// Nothing stored: refused, or no line of it was an order.
    #[default]
    NotStored,
    /// Stored, with refused lines left out of it.
    StoredWithRefusals,
    /// Stored; the verdict speaks only of warnings or chat.
    Stored,
}

impl SetOutcome {
    /// The headline's class: red where nothing was stored, amber where lines were left out.
    pub fn class(self) -> &'static str {
        match self {
            SetOutcome::NotStored => "error",
            SetOutcome::StoredWithRefusals => "warning",
            SetOutcome::Stored => "notice",
        }
    }
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
    let read = crate::views::player::game_page(&state.pool, holder).await?;
    let raw = read.orders;
    let current = match &raw {
        Some(text) => {
            let parsed = game_state.parse_orders(me, text);
            Some(CurrentOrders {
                understood: parsed.understood.clone(),
                // The verdict the set got when it came in, mail's words: refused lines left
                // out, warnings, lines taken as chat.
                issues: crate::letters::verdict::Verdict::new(&parsed, true)
                    .entries()
                    .iter()
                    .map(IssueView::from_entry)
                    .collect(),
            })
        }
        None => None,
    };
    let order_help = issues::code_spans(&game_state.order_help());
    let press_sent = read.press_sent;
    let history = read
        .history
        .into_iter()
        .map(|past| PastOrdersView {
            turn: past.turn_number,
            text: past.raw_text,
            how: format!("by {}, {}", past.source, when(&past.received_at)),
        })
        .collect();
    let public_url = read
        .zine
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

pub(super) async fn refused(
    state: &AppState,
    player: &Player,
    holder: &TokenHolder,
    form: FormState,
) -> Result<Response, AppError> {
    let page = game_page(state, player, holder, None, form).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(page.render()?)).into_response())
}

/// The game page with a set that was stored but has lines to report (refused, warned, chat):
/// a success, so not 422.
pub(super) async fn judged(
    state: &AppState,
    player: &Player,
    holder: &TokenHolder,
    form: FormState,
) -> Result<Response, AppError> {
    let page = game_page(state, player, holder, None, form).await?;
    Ok((StatusCode::OK, Html(page.render()?)).into_response())
}
