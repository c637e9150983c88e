//! Orders received by post, entered by the GM for a player: the confirmation shown here is the
//! one mailed to the player (`crate::postal`).

use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use chrono::NaiveDate;
use store::games::GameId;
use store::players::PlayerRowId;

use super::{Chrome, Gm, field, find_game};
use crate::postal::{self, PostedOrders};
use crate::turns::LifecycleError;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "gm/posted.html")]
struct PostedPage {
    chrome: Chrome,
    game: store::games::GameSummary,
    /// The confirmation, or why the orders were not taken.
    confirmation: Option<String>,
    error: Option<String>,
}

pub(crate) async fn post_orders(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<i64>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    let player = field(&pairs, "player")
        .parse::<i64>()
        .map_err(|_| AppError::BadRequest("choose the player".into()))?;
    let received_on = NaiveDate::parse_from_str(field(&pairs, "received_on"), "%Y-%m-%d")
        .map_err(|_| AppError::BadRequest("the day received must be a date (YYYY-MM-DD)".into()))?;
    let text = field(&pairs, "orders");
    let entered = postal::enter_orders(
        &state.pool,
        state.clock.now(),
        &PostedOrders {
            game: GameId(id),
            player: PlayerRowId(player),
            text,
            received_on,
        },
        &gm.actor(),
        &state.mail_domain,
    )
    .await;
    let (status, confirmation, error) = match entered {
        Ok(text) => (StatusCode::OK, Some(text), None),
        Err(
            error @ (LifecycleError::DeadlinePassed(_)
            | LifecycleError::NoOpenTurn(_)
            | LifecycleError::LaterOrdersStand
            | LifecycleError::GameNotFound(_)),
        ) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            Some(format!("The orders were NOT entered: {error}.")),
        ),
        Err(error) => return Err(super::lifecycle_error(error)),
    };
    let page = PostedPage {
        chrome: gm.chrome(None),
        game,
        confirmation,
        error,
    };
    Ok((status, Html(page.render()?)).into_response())
}
