//! Orders received by post, entered by the GM for a player: the confirmation shown here is the
//! one mailed to the player (`crate::postal`).

use crate::web::Path;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use chrono::NaiveDate;
use store::games::GameId;
use store::players::PlayerRowId;

use super::super::{Chrome, Gm};
use super::{field, find_game};
use crate::postal::{self, PostedOrders};
use crate::turns::LifecycleError;
use crate::views::gm_game;
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
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    let player = field(&pairs, "player")
        .parse::<PlayerRowId>()
        .map_err(|_| AppError::BadRequest("choose the player".into()))?;
    let received_on = NaiveDate::parse_from_str(field(&pairs, "received_on"), "%Y-%m-%d")
        .map_err(|_| AppError::BadRequest("the day received must be a date (YYYY-MM-DD)".into()))?;
    let text = field(&pairs, "orders");
    let posted = PostedOrders {
        game: id,
        player,
        text,
        received_on,
    };
    let (now, actor) = (state.clock.now(), gm.actor());
    let entered = match field(&pairs, "kind") {
        "press" if text.trim().is_empty() => {
            return Err(AppError::BadRequest("write the press as received".into()));
        }
        "press" => postal::enter_press(&state.pool, now, &posted, &actor, &state.mail_domain).await,
        "" | "orders" => {
            postal::enter_orders(&state.pool, now, &posted, &actor, &state.mail_domain).await
        }
        _ => return Err(AppError::BadRequest("choose orders or press".into())),
    };
    let (status, confirmation, error) = match entered {
        Ok(text) => (StatusCode::OK, Some(text), None),
        Err(
            error @ (LifecycleError::DeadlinePassed(_)
            | LifecycleError::NoOpenTurn(_)
            | LifecycleError::LaterOrdersStand
            | LifecycleError::Roster(_)
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

/// One player's sheet: their own position, nothing of anyone else's.
struct Sheet {
    player: String,
    /// The player's own view: what their mail would say of their fleet.
    position: Vec<String>,
}

#[derive(Template)]
#[template(path = "gm/print.html")]
struct PrintPage {
    game: String,
    /// Whose sheets these are, for the title.
    whose: String,
    sheets: Vec<Sheet>,
    deadline: Option<String>,
    /// The latest published report, if any.
    report: Option<(i32, String)>,
}

/// The sheets of `players` (rows of the game), in that order, on one page to print.
async fn print_page(
    state: &AppState,
    game: &store::games::GameSummary,
    players: &[PlayerRowId],
    whose: String,
) -> Result<Html<String>, AppError> {
    let printing = gm_game::printing(&state.pool, game.id)
        .await
        .map_err(super::lifecycle_error)?;
    let sheets = players
        .iter()
        .filter_map(|id| printing.players.iter().find(|p| p.id == *id))
        .map(|player| Sheet {
            player: player.display_name.clone(),
            position: printing
                .state
                .view(engine::Viewer::Player(crate::turns::player_id(
                    player.engine_player_id,
                )))
                .lines,
        })
        .collect();
    let page = PrintPage {
        game: game.name.clone(),
        whose,
        sheets,
        deadline: game
            .deadline
            .map(|at| crate::letters::deadline(at, game.schedule.zone())),
        report: printing
            .turns
            .iter()
            .find_map(|t| t.report_text.clone().map(|text| (t.number, text))),
    };
    Ok(Html(page.render()?))
}

/// A printable sheet for a postal player: their own position (the engine's view for that
/// player, nothing more) and the latest report, to send by post.
pub(crate) async fn get_print(
    State(state): State<AppState>,
    _gm: Gm,
    Path((id, player)): Path<(GameId, PlayerRowId)>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let name = gm_game::players(&state.pool, game.id)
        .await?
        .into_iter()
        .find(|p| p.id == player)
        .ok_or(AppError::NotFound)?
        .display_name;
    print_page(&state, &game, &[player], name).await
}

/// Every postal player's sheet of the game on one page, one sheet a printed page: the GM
/// prints the post at once.
pub(crate) async fn get_print_postal(
    State(state): State<AppState>,
    _gm: Gm,
    Path(id): Path<GameId>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let postal = gm_game::postal_players(&state.pool, game.id).await?;
    print_page(&state, &game, &postal, "every postal player".into()).await
}
