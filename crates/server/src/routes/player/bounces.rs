//! `/me/resume`: a player whose address was suspended after bounces resumes delivery (their
//! score starts again), audited.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};

use super::Player;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

pub(crate) async fn post_resume(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(_form): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let subscriber = crate::views::player::active_subscriber(&state.pool, player.subscriber)
        .await?
        .ok_or(AppError::Forbidden)?;
    let actor = format!("subscriber:{}", subscriber.id);
    let via = store::audit::Via::Web;
    crate::bounces::resume(&state.pool, &subscriber, &actor, via, state.clock.now())
        .await
        .map_err(|e| AppError::Conflict(format!("{e}.")))?;
    Ok(Redirect::to("/me").into_response())
}
