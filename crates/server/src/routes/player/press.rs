//! Withdrawing one's press for the open turn from the player's page (mail: PRESS WITHDRAW).

use crate::web::Path;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::Player;
use super::games::{game_url, own_game};
use crate::turns::{self, LifecycleError};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Debug, Deserialize)]
pub(crate) struct WithdrawForm {}

pub(crate) async fn post_press_withdraw(
    State(state): State<AppState>,
    Path(game): Path<String>,
    player: Player,
    CsrfForm(_form): CsrfForm<WithdrawForm>,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    if let Err(why) = turns::may_play(&holder) {
        return Err(AppError::Conflict(why));
    }
    match turns::withdraw_press(&state.pool, &state.states, state.clock.now(), &holder).await {
        Ok(_) => Ok(Redirect::to(&format!(
            "{}?done=press-withdrawn",
            game_url(holder.game_id)
        ))
        .into_response()),
        Err(error @ (LifecycleError::NoOpenTurn(_) | LifecycleError::DeadlinePassed(_))) => Err(
            AppError::Conflict(format!("Your press was not withdrawn: {error}.")),
        ),
        Err(LifecycleError::Store(error)) => Err(AppError::Store(error)),
        Err(error) => Err(AppError::Conflict(format!("{error}."))),
    }
}
