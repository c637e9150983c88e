//! Resigning from a game on the player's own page (mail: RESIGN). The game page links to a
//! confirmation page that says what resigning does; only its form resigns
//! (`rosters::resign`).

use askama::Template;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::Player;
use super::games::{game_url, own_game};
use crate::rosters::resign::resign_from_web;
use crate::turns::{self, LifecycleError};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "player/resign.html")]
struct ResignPage {
    csrf: String,
    name: String,
    url: String,
    /// Whether the game's seats are handed on (not Barmy, whose every subscriber plays).
    handed_on: bool,
    /// Why the player cannot resign (they no longer play, the game is over), if so.
    refusal: Option<String>,
}

pub(crate) async fn get_resign(
    State(state): State<AppState>,
    Path(game): Path<String>,
    player: Player,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    let page = ResignPage {
        csrf: player.csrf,
        name: holder.game_name.clone(),
        url: game_url(holder.game_id),
        handed_on: holder.engine.missed_turns_limit().is_some(),
        refusal: turns::may_play(&holder).err(),
    };
    Ok(Html(page.render()?).into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct ResignForm {
    /// `yes` from the confirmation page: resigning is done only from there.
    #[serde(default)]
    confirm: String,
}

pub(crate) async fn post_resign(
    State(state): State<AppState>,
    Path(game): Path<String>,
    player: Player,
    CsrfForm(form): CsrfForm<ResignForm>,
) -> Result<Response, AppError> {
    let holder = own_game(&state, &player, &game).await?;
    let url = game_url(holder.game_id);
    if form.confirm != "yes" {
        return Ok(Redirect::to(&format!("{url}/resign")).into_response());
    }
    if let Err(why) = turns::may_play(&holder) {
        return Err(AppError::Conflict(format!("You did not resign: {why}")));
    }
    match resign_from_web(&state.pool, state.clock.now(), &holder, &state.mail_domain).await {
        Ok(()) => Ok(Redirect::to(&format!("{url}?done=resigned")).into_response()),
        Err(LifecycleError::Store(error)) => Err(AppError::Store(error)),
        Err(error) => Err(AppError::Conflict(format!("You did not resign: {error}."))),
    }
}
