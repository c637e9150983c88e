//! The pages that ask before an irreversible action: resolve a turn now, end a game, delete a
//! game made by mistake, unsubscribe a subscriber. Each says what will happen and holds the
//! one form that does it (with `confirm=yes`); the action's handler refuses to act without it
//! and sends the GM here instead. No JavaScript: a page of its own.

use crate::web::Path;
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use store::games::GameId;
use store::status::{PlayerStatus, SubscriberStatus, TurnStatus};
use store::subscribers::SubscriberId;

use super::super::{Chrome, Gm, field};
use super::{find_game, lifecycle_error};
use crate::turns;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "gm/confirm.html")]
struct ConfirmPage {
    chrome: Chrome,
    title: String,
    lead: String,
    consequences: Vec<String>,
    /// Why it cannot be done, instead of the form.
    refusal: Option<String>,
    action: String,
    extra: Vec<(&'static str, String)>,
    button: &'static str,
    /// Whether, and how, it can be undone.
    undo: &'static str,
    back: String,
    back_label: String,
}

/// Whether a form carries the confirmation page's `confirm=yes`.
pub(crate) fn confirmed(pairs: &[(String, String)]) -> bool {
    field(pairs, "confirm") == "yes"
}

/// Where a GM is sent when an irreversible form arrives without its confirmation.
pub(crate) fn ask_first(path: &str) -> Response {
    Redirect::to(path).into_response()
}

pub(crate) async fn get_confirm_game(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, action)): Path<(GameId, String)>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    let turns_of_game = store::turns::turn_summaries(&state.pool, game.id).await?;
    let open = turns_of_game.iter().find(|t| t.status == TurnStatus::Open);
    let published = turns_of_game
        .iter()
        .filter(|t| t.status != TurnStatus::Open)
        .count();
    let (players, ordered) = match open {
        Some(turn) => {
            let rows = store::players::player_turn_status(&state.pool, game.id, turn.id).await?;
            let active = rows
                .iter()
                .filter(|p| p.status == PlayerStatus::Active)
                .count();
            let ordered = rows
                .iter()
                .filter(|p| p.orders_answer_turn == Some(true))
                .count();
            (active, ordered)
        }
        None => (0, 0),
    };
    let subscribers = store::subscribers::list_for_zine(&state.pool, game.zine_id)
        .await?
        .into_iter()
        .filter(|s| s.status == SubscriberStatus::Active)
        .count();
    // Who gets the report by mail: a subscriber who takes the zine's issue reads it there.
    let readers = store::issues::report_readers(&state.pool, game.zine_id)
        .await?
        .len();
    let report_mail = if readers == subscribers {
        format!("mailed to every active subscriber ({readers})")
    } else {
        format!(
            "mailed to the {readers} subscriber(s) who take each game's report; the other {} read it in the zine's next issue",
            subscribers.saturating_sub(readers)
        )
    };
    let name = game.name.clone();
    let mut refusal = None;
    let (title, lead, consequences, button, path) = match action.as_str() {
        "resolve-now" => {
            let Some(turn) = open else {
                return Err(AppError::Conflict(format!("{name} has no open turn.")));
            };
            (
                format!("Resolve turn {} of {name} now", turn.number),
                format!(
                    "Turn {} is resolved now, before its deadline, with the orders in so far.",
                    turn.number
                ),
                vec![
                    format!(
                        "{ordered} of {players} active player(s) have sent orders; the other {} count as having sent none.",
                        players.saturating_sub(ordered)
                    ),
                    format!(
                        "The report is published on the zine's public pages and {report_mail}; each player is mailed their position."
                    ),
                    "The turn's dice seed is revealed and the next turn opens on the schedule."
                        .to_owned(),
                ],
                "Resolve and publish now",
                format!("/gm/games/{id}/actions/resolve-now"),
            )
        }
        "end" => (
            format!("End {name}"),
            format!("{name} ends now: no further turn is played."),
            vec![
                match open {
                    Some(turn) => format!(
                        "The open turn {} is abandoned: its orders and press are not published.",
                        turn.number
                    ),
                    None => "No turn is open.".to_owned(),
                },
                "Every sealed seed is revealed, so anyone can check every published turn."
                    .to_owned(),
                format!("Its {published} published turn(s) stay on the public pages."),
            ],
            "End the game",
            format!("/gm/games/{id}/actions/end"),
        ),
        "delete" => {
            if published > 0 {
                refusal = Some(format!(
                    "{name} has published {published} turn(s): a game on the record cannot be deleted. End it instead."
                ));
            }
            (
                format!("Delete {name}"),
                format!("{name} is deleted, as if it had never been made."),
                vec![
                    format!(
                        "Its {players} player(s), its open turn and any orders and press sent are removed; nothing is mailed."
                    ),
                    "Its pages are gone, and its name is free for a new game.".to_owned(),
                    "The audit log keeps a record that it was made and deleted.".to_owned(),
                ],
                "Delete the game",
                format!("/gm/games/{id}/delete"),
            )
        }
        _ => return Err(AppError::NotFound),
    };
    let page = ConfirmPage {
        chrome: gm.chrome(None),
        title,
        lead,
        consequences,
        action: path,
        extra: Vec::new(),
        button,
        undo: "This cannot be undone.",
        back: format!("/gm/games/{id}"),
        back_label: name,
        refusal,
    };
    let status = if page.refusal.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    Ok((status, Html(page.render()?)).into_response())
}

pub(crate) async fn post_delete(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    if !confirmed(&pairs) {
        return Ok(ask_first(&format!("/gm/games/{id}/confirm/delete")));
    }
    turns::delete_game(&state.pool, state.clock.now(), id, &gm.actor())
        .await
        .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/zines/{}?done=game-deleted", game.zine_slug)).into_response())
}

/// Asks before unsubscribing: the subscriber leaves every game they play.
pub(crate) async fn get_confirm_unsubscribe(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<SubscriberId>,
) -> Result<Html<String>, AppError> {
    let subscriber = store::subscribers::find(&state.pool, id)
        .await?
        .ok_or(AppError::NotFound)?;
    let zine = store::zines::find(&state.pool, subscriber.zine_id)
        .await?
        .ok_or(AppError::NotFound)?;
    let games: Vec<String> = store::players::player_rows_of_subscriber(&state.pool, subscriber.id)
        .await?
        .into_iter()
        .filter(|p| p.game_status.as_str() != "finished" && p.status == PlayerStatus::Active)
        .map(|p| p.game_name)
        .collect();
    let name = subscriber.display_name.as_str().to_owned();
    let page = ConfirmPage {
        chrome: gm.chrome(None),
        title: format!("Unsubscribe {name}"),
        lead: format!(
            "{name} <{}> is unsubscribed from {}.",
            subscriber.email.as_str(),
            zine.name
        ),
        consequences: vec![
            "They are sent no more reports or mail of the zine.".to_owned(),
            if games.is_empty() {
                "They play in no running game.".to_owned()
            } else {
                format!(
                    "They resign from every game they play, and their fleet leaves at its next \
                     resolution: {}. Where a game hands on seats, the seat is listed for a \
                     standby on the game's page (and offered at once where Admiralty makes the \
                     offers).",
                    games.join(", ")
                )
            },
            "Their login links, web sessions and reply addresses stop working (subscribed again, they get new ones)."
                .to_owned(),
        ],
        refusal: None,
        undo: "To undo it, subscribe them again (they get new reply addresses); a game's \
               resignation can be taken back on its page until its turn resolves.",
        action: format!("/gm/subscribers/{id}/status"),
        extra: vec![("status", "unsubscribed".to_owned())],
        button: "Unsubscribe",
        back: format!("/gm/zines/{}", zine.slug),
        back_label: zine.name.clone(),
    };
    Ok(Html(page.render()?))
}
