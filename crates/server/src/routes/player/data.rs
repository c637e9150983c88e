//! `/me/data` and `/me/erase`: the subscriber's data, downloaded as one JSON file, and erased
//! after they type their address (`crate::personal`; docs/web-players.md#your-data).

use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;
use store::audit::Via;

use super::Player;
use crate::personal::{self, PersonalError};
use crate::turns::LifecycleError;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

pub(crate) async fn get_data(
    State(state): State<AppState>,
    player: Player,
) -> Result<Response, AppError> {
    let json = personal::download(&state.pool, player.subscriber, state.clock.now())
        .await
        .map_err(internal)?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"admiralty-my-data.json\"",
            ),
        ],
        json,
    )
        .into_response())
}

#[derive(Template)]
#[template(path = "player/erase.html")]
struct ErasePage {
    csrf: String,
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "player/erased.html")]
struct ErasedPage {
    subscriptions: usize,
    resigned_from: Vec<String>,
}

pub(crate) async fn get_erase(player: Player) -> Result<Response, AppError> {
    let page = ErasePage {
        csrf: player.csrf,
        error: None,
    };
    Ok(Html(page.render()?).into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct EraseForm {
    /// The subscriber's address, typed again: the second step that confirms the erasure.
    #[serde(default)]
    address: String,
}

pub(crate) async fn post_erase(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(form): CsrfForm<EraseForm>,
) -> Result<Response, AppError> {
    let done = personal::erase(
        &state.pool,
        state.clock.now(),
        player.subscriber,
        &form.address,
        Via::Web,
        &state.mail_domain,
    )
    .await;
    match done {
        Ok(done) => {
            let page = ErasedPage {
                subscriptions: done.subscriptions,
                resigned_from: done.resigned_from,
            };
            Ok(Html(page.render()?).into_response())
        }
        Err(PersonalError::NotConfirmed) => {
            let page = ErasePage {
                csrf: player.csrf,
                error: Some(PersonalError::NotConfirmed.to_string()),
            };
            Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(page.render()?)).into_response())
        }
        Err(other) => Err(internal(other)),
    }
}

fn internal(error: PersonalError) -> AppError {
    match error {
        PersonalError::NotFound => AppError::NotFound,
        PersonalError::Lifecycle(LifecycleError::Store(error)) => AppError::Store(error),
        other => AppError::Conflict(other.to_string()),
    }
}
