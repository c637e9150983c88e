//! A player's games: the list (`/me`, in [`me`]), and one game's page with what this player
//! alone may see ([`page`]), and the forms on it that send orders and press ([`actions`]).
//! Orders go through the same parser as mail (`turns::submit_orders_in`); a set with an error
//! is not stored, and comes back with the text kept and each error beside its line.

mod actions;
mod me;
mod page;

pub(crate) use actions::{post_orders, post_press};
pub(crate) use me::{SentAbsence, get_me, send_back_me};
pub(crate) use page::get_game;

use store::games::GameId;
use store::players::TokenHolder;

use super::Player;
use crate::turns::LifecycleError;
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
    crate::views::player::own_game(&state.pool, player.subscriber, game)
        .await?
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
