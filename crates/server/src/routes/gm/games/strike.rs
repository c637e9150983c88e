//! The GM strikes a press entry of the open turn (`crate::turns::strike`): a page that shows
//! the entry and asks for a reason, and the form that strikes it (`confirm=yes` from that page
//! only). A reason missing or too long shows the page again with what was typed; an entry
//! whose report is out is refused in words.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use store::games::GameId;
use store::ids::PressId;

use super::super::{Chrome, Gm, field};
use super::{confirm, find_game, lifecycle_error};
use crate::turns::strike::{MAX_REASON_CHARS, Strike, StrikeError, strike_press};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "gm/strike.html")]
struct StrikePage {
    chrome: Chrome,
    game: String,
    name: String,
    text: String,
    turn: i32,
    action: String,
    back: String,
    reason: String,
    max_reason: usize,
    error: Option<String>,
    refusal: Option<String>,
}

/// What the page is drawn from, and what the form typed.
struct Shown<'a> {
    reason: &'a str,
    error: Option<String>,
    refusal: Option<String>,
}

async fn page(
    state: &AppState,
    gm: &Gm,
    id: GameId,
    press: PressId,
    shown: Shown<'_>,
) -> Result<Response, AppError> {
    let game = find_game(state, id).await?;
    let Some(entry) = crate::views::gm_game::press_to_strike(&state.pool, id, press).await? else {
        let refusal = StrikeError::NotFound.to_string();
        return Err(AppError::Conflict(format!("{}.", capitalised(&refusal))));
    };
    let refusal = shown.refusal.or_else(|| {
        (entry.turn_status != store::status::TurnStatus::Open)
            .then(|| StrikeError::Published(entry.turn_number).to_string())
    });
    let status = match (&refusal, &shown.error) {
        (Some(_), _) => StatusCode::CONFLICT,
        (None, Some(_)) => StatusCode::UNPROCESSABLE_ENTITY,
        (None, None) => StatusCode::OK,
    };
    let page = StrikePage {
        chrome: gm.chrome(None),
        game: game.name,
        name: entry.display_name,
        text: entry.text,
        turn: entry.turn_number,
        action: format!("/gm/games/{id}/press/{press}/strike"),
        back: format!("/gm/games/{id}"),
        reason: shown.reason.to_owned(),
        max_reason: MAX_REASON_CHARS,
        error: shown.error.map(|e| capitalised(&e)),
        refusal: refusal.map(|r| format!("{}.", capitalised(&r))),
    };
    Ok((status, Html(page.render()?)).into_response())
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

pub(crate) async fn get_strike(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, press)): Path<(GameId, PressId)>,
) -> Result<Response, AppError> {
    let shown = Shown {
        reason: "",
        error: None,
        refusal: None,
    };
    page(&state, &gm, id, press, shown).await
}

pub(crate) async fn post_strike(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, press)): Path<(GameId, PressId)>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let path = format!("/gm/games/{id}/press/{press}/strike");
    if !confirm::confirmed(&pairs) {
        return Ok(confirm::ask_first(&path));
    }
    let reason = field(&pairs, "reason");
    let actor = gm.actor();
    let strike = Strike {
        game: id,
        press,
        reason,
        actor: &actor,
    };
    let shown = |error: Option<String>, refusal: Option<String>| Shown {
        reason,
        error,
        refusal,
    };
    match strike_press(&state.pool, state.clock.now(), &strike, &state.mail_domain).await {
        Ok(_) => Ok(Redirect::to(&format!("/gm/games/{id}?done=press-struck")).into_response()),
        Err(error @ (StrikeError::NoReason | StrikeError::ReasonTooLong(_))) => {
            page(&state, &gm, id, press, shown(Some(error.to_string()), None)).await
        }
        Err(error @ StrikeError::Published(_)) => {
            page(&state, &gm, id, press, shown(None, Some(error.to_string()))).await
        }
        Err(StrikeError::NotFound) => Err(AppError::Conflict(format!(
            "{}.",
            capitalised(&StrikeError::NotFound.to_string())
        ))),
        Err(StrikeError::Lifecycle(error)) => Err(lifecycle_error(error)),
    }
}
