//! The GM replaces a player with a standby or any active subscriber (`crate::rosters::replace`);
//! who may take a seat is read in `views::gm_game`. Only from its confirmation page.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use store::games::GameId;
use store::subscribers::SubscriberId;

use super::super::Gm;
use super::{field, find_game};
use crate::rosters::replace::{Replacement, replace_player};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

pub(crate) async fn post_replace(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    if let Some(ask) =
        super::confirm_roster::before_roster_action(&state, &game, "replace", &pairs).await?
    {
        return Ok(ask);
    }
    let subscriber = field(&pairs, "subscriber")
        .parse::<SubscriberId>()
        .map_err(|_| AppError::BadRequest("choose who takes the seat".into()))?;
    replace_player(
        &state.pool,
        state.clock.now(),
        &Replacement {
            game: id,
            player: field(&pairs, "player"),
            subscriber,
        },
        &gm.actor(),
        &state.mail_domain,
        &mut crate::entropy::OsEntropy,
    )
    .await
    .map_err(super::lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{}?done=replaced", game.id)).into_response())
}
