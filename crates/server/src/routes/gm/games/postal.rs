//! Orders received by post, entered by the GM for a player: the confirmation shown here is the
//! one mailed to the player (`crate::postal`).

use crate::web::Path;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::NaiveDate;
use store::games::GameId;
use store::players::PlayerRowId;

use super::super::{Chrome, Gm};
use super::desk::{PostForm, SentBack, send_back};
use super::{field, find_game};
use crate::postal::{self, PostedOrders};
use crate::turns::LifecycleError;
use crate::views::gm_game;
use crate::web::csrf::CsrfForm;
use crate::web::field_errors::FieldErrors;
use crate::{AppError, AppState};

/// The post form's player, day received and kind (`orders` or `press`), each mistake beside
/// its field.
fn posted_fields(
    pairs: &[(String, String)],
) -> Result<(PlayerRowId, NaiveDate, &'static str), FieldErrors> {
    let mut errors = FieldErrors::default();
    let player = field(pairs, "player")
        .parse::<PlayerRowId>()
        .map_err(|_| errors.push("post-player", "Choose the player whose letter this is."))
        .ok();
    let typed = field(pairs, "received_on");
    let received_on = NaiveDate::parse_from_str(typed, "%Y-%m-%d")
        .map_err(|_| {
            let said = if typed.is_empty() {
                "Give the day it was received (YYYY-MM-DD).".to_owned()
            } else {
                format!("The day received must be a date (YYYY-MM-DD), not {typed:?}.")
            };
            errors.push("post-received", said);
        })
        .ok();
    let kind = match field(pairs, "kind") {
        "press" if field(pairs, "orders").is_empty() => {
            errors.push("post-text", "Write the press as received.");
            None
        }
        "press" => Some("press"),
        "" | "orders" => Some("orders"),
        _ => {
            errors.push("post-kind", "Choose orders or press.");
            None
        }
    };
    match (player, received_on, kind) {
        (Some(player), Some(received_on), Some(kind)) => Ok((player, received_on, kind)),
        _ => Err(errors),
    }
}

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
    let (player, received_on, kind) = match posted_fields(&pairs) {
        Ok(fields) => fields,
        Err(errors) => {
            let sent = SentBack {
                errors,
                post: Some(PostForm {
                    player: field(&pairs, "player").to_owned(),
                    received_on: field(&pairs, "received_on").to_owned(),
                    kind: field(&pairs, "kind").to_owned(),
                    text: field(&pairs, "orders").to_owned(),
                }),
                ..SentBack::default()
            };
            return send_back(&state, &gm, id, sent).await;
        }
    };
    let text = field(&pairs, "orders");
    let posted = PostedOrders {
        game: id,
        player,
        text,
        received_on,
    };
    let (now, actor) = (state.clock.now(), gm.actor());
    let entered = if kind == "press" {
        postal::enter_press(&state.pool, now, &posted, &actor, &state.mail_domain).await
    } else {
        postal::enter_orders(&state.pool, now, &posted, &actor, &state.mail_domain).await
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

/// One player's sheet: their own position, nothing of anyone else's, and every report they
/// have not had on paper.
struct Sheet {
    player: String,
    /// The player's own view: what their mail would say of their fleet.
    position: Vec<String>,
    /// (turn, report text), oldest first.
    reports: Vec<(i32, String)>,
    /// The last turn whose report they have had on paper (0: none).
    had_through: i32,
}

#[derive(Template)]
#[template(path = "gm/print.html")]
struct PrintPage {
    game: String,
    game_id: GameId,
    /// Whose sheets these are, for the title.
    whose: String,
    sheets: Vec<Sheet>,
    deadline: Option<String>,
    /// How to write orders for the game as it stands (the engine's order help).
    order_help: String,
    /// The players whose sheets these are, and the latest report they print: what "posted"
    /// records.
    players: Vec<PlayerRowId>,
    latest: i32,
    csrf: String,
}

/// The sheets of `players` (rows of the game), in that order, on one page to print.
async fn print_page(
    state: &AppState,
    gm: &Gm,
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
            reports: printing.reports_not_on_paper(player.id),
            had_through: printing.paper_through.get(&player.id).copied().unwrap_or(0),
        })
        .collect();
    let page = PrintPage {
        game: game.name.clone(),
        game_id: game.id,
        whose,
        sheets,
        deadline: game
            .deadline
            .map(|at| crate::letters::deadline(at, game.schedule.zone())),
        order_help: printing.state.order_help(),
        players: players.to_vec(),
        latest: printing.latest_report(),
        csrf: gm.chrome(None).csrf,
    };
    Ok(Html(page.render()?))
}

/// The GM posted the sheets shown: the players shown have had every report up to `through`.
/// A resubmitted form finds them there already and changes nothing.
pub(crate) async fn post_sheets_posted(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    let through = field(&pairs, "through")
        .parse::<i32>()
        .ok()
        .filter(|n| *n >= 0)
        .ok_or_else(|| AppError::BadRequest("which turn's report was printed last?".into()))?;
    let players = pairs
        .iter()
        .filter(|(name, _)| name == "player")
        .map(|(_, value)| value.parse::<PlayerRowId>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    let (now, actor) = (state.clock.now(), gm.actor());
    postal::mark_sheets_posted(&state.pool, now, game.id, &players, through, &actor)
        .await
        .map_err(super::lifecycle_error)?;
    let back = match players.as_slice() {
        [one] => format!("/gm/games/{}/print/{one}", game.id),
        _ => format!("/gm/games/{}/print-postal", game.id),
    };
    Ok(Redirect::to(&back).into_response())
}

/// A printable sheet for a postal player: their own position (the engine's view for that
/// player, nothing more), the order help and every report they have not had on paper.
pub(crate) async fn get_print(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, player)): Path<(GameId, PlayerRowId)>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let name = gm_game::players(&state.pool, game.id)
        .await?
        .into_iter()
        .find(|p| p.id == player)
        .ok_or(AppError::NotFound)?
        .display_name;
    print_page(&state, &gm, &game, &[player], name).await
}

/// Every postal player's sheet of the game on one page, one sheet a printed page: the GM
/// prints the post at once.
pub(crate) async fn get_print_postal(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
) -> Result<Html<String>, AppError> {
    let game = find_game(&state, id).await?;
    let postal = gm_game::postal_players(&state.pool, game.id).await?;
    print_page(&state, &gm, &game, &postal, "every postal player".into()).await
}
