//! Games in the console, by capability: a game's page ([`desk`]); what only the GM may see
//! of it, the resolution's preview and every position ([`peek`]); the schedule, the absence
//! policy and the lifecycle actions ([`actions`]), the irreversible ones asked first
//! ([`confirm`]); creating one ([`new`], its seats in [`roster`], its setup in
//! [`setup_form`], its schedule, which the game's page changes too, in [`schedule_form`]);
//! orders by post and printed sheets ([`postal`]); replacing a player ([`replace`]) and
//! offering seats to standbys ([`standbys`]); striking a press entry ([`strike`]).

mod actions;
mod confirm;
mod confirm_roster;
mod desk;
mod new;
mod peek;
mod postal;
mod replace;
mod roster;
mod schedule_form;
mod setup_form;
mod standbys;
mod strike;

pub(crate) use actions::{post_absence, post_action, post_missed, post_schedule};
pub(crate) use confirm::{get_confirm_game, get_confirm_unsubscribe, post_delete};
pub(crate) use desk::get_game;
pub(crate) use new::{get_new_game, post_new_game};
pub(crate) use peek::{get_positions, get_preview};
pub(crate) use postal::{
    get_print as get_postal_print, get_print_postal, post_orders as post_postal_orders,
    post_sheets_posted,
};
pub(crate) use replace::post_replace;
pub(crate) use schedule_form::{ScheduleForm, WEEKDAYS, rule_from_form};
pub(crate) use standbys::{post_offer, post_reinstate, post_withdraw};
pub(crate) use strike::{get_strike, post_strike};

use store::games::GameId;

use super::field;
use crate::turns::LifecycleError;
use crate::{AppError, AppState};

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

async fn find_game(state: &AppState, id: GameId) -> Result<store::games::GameSummary, AppError> {
    crate::views::gm_game::game(&state.pool, id)
        .await?
        .ok_or(AppError::NotFound)
}
