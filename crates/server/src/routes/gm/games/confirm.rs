//! The pages that ask before an irreversible action: resolve a turn now, end a game, delete a
//! game made by mistake, unsubscribe a subscriber. Each says what will happen and holds the
//! one form that does it (with `confirm=yes`); the action's handler refuses to act without it
//! and sends the GM here instead. No JavaScript: a page of its own.

use crate::web::Path;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use store::games::GameId;
use store::subscribers::SubscriberId;

use super::super::{Chrome, Gm, field};
use super::confirm_roster::{self, RosterAsk, RosterQuery};
use super::desk::{SentBack, send_back};
use super::{find_game, lifecycle_error};
use crate::turns;
use crate::views::gm_game::{self, Stakes};
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "gm/confirm.html")]
pub(super) struct ConfirmPage {
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

/// What a confirmation page asks: the action, what it does, and why it cannot be done (if so).
struct Asked {
    title: String,
    lead: String,
    consequences: Vec<String>,
    button: &'static str,
    path: String,
    refusal: Option<String>,
}

/// Who gets the report by mail: a subscriber who takes the zine's issue reads it there.
fn report_mail(stakes: &Stakes) -> String {
    let (readers, subscribers) = (stakes.readers, stakes.subscribers);
    if readers == subscribers {
        format!("mailed to every active subscriber ({readers})")
    } else {
        format!(
            "mailed to the {readers} subscriber(s) who take each game's report; the other {} read it in the zine's next issue",
            subscribers.saturating_sub(readers)
        )
    }
}

/// The refusal of a form shown for a turn that is no longer the open one.
fn turn_moved_on(name: &str, shown: &str, open: Option<i32>) -> Option<String> {
    let shown = shown.trim();
    let open_text = open.map(|n| n.to_string()).unwrap_or_default();
    (shown != open_text).then(|| match (shown.is_empty(), open) {
        (true, _) => format!(
            "This form names no turn: open it again from {name}'s page, which shows the turn it acts on. Nothing was done."
        ),
        (false, Some(now)) => format!(
            "Already done: turn {shown} of {name} is no longer open (the game has moved on to turn {now}). Nothing more was done; its report is on the game's page."
        ),
        (false, None) => format!(
            "Already done: turn {shown} of {name} is no longer open and no turn is. Nothing more was done."
        ),
    })
}

/// Refuses a Resolve now or End form shown for another turn than the open one.
pub(crate) fn check_turn(
    name: &str,
    stakes: &Stakes,
    pairs: &[(String, String)],
) -> Result<(), AppError> {
    match turn_moved_on(name, field(pairs, "turn"), stakes.open_turn) {
        Some(refusal) => Err(AppError::Conflict(refusal)),
        None => Ok(()),
    }
}

fn ask_resolve_now(id: GameId, name: &str, stakes: &Stakes) -> Result<Asked, AppError> {
    let Some(number) = stakes.open_turn else {
        return Err(AppError::Conflict(format!(
            "Already done, or not possible: {name} has no open turn."
        )));
    };
    let (players, ordered) = (stakes.players, stakes.ordered);
    Ok(Asked {
        title: format!("Resolve turn {number} of {name} now"),
        lead: format!(
            "Turn {number} is resolved now, before its deadline, with the orders in so far."
        ),
        consequences: vec![
            format!(
                "{ordered} of {players} active player(s) have sent orders; the other {} count as having sent none.",
                players.saturating_sub(ordered)
            ),
            format!(
                "The report is published on the zine's public pages and {}; each player is mailed their position.",
                report_mail(stakes)
            ),
            "The turn's dice seed is revealed and the next turn opens on the schedule.".to_owned(),
        ],
        button: "Resolve and publish now",
        path: format!("/gm/games/{id}/actions/resolve-now"),
        refusal: None,
    })
}

fn ask_end(id: GameId, name: &str, stakes: &Stakes) -> Asked {
    Asked {
        title: format!("End {name}"),
        lead: format!("{name} ends now: no further turn is played."),
        consequences: vec![
            match stakes.open_turn {
                Some(number) => format!(
                    "The open turn {number} is abandoned: its orders and press are not published."
                ),
                None => "No turn is open.".to_owned(),
            },
            "Every sealed seed is revealed, so anyone can check every published turn.".to_owned(),
            format!(
                "Its {} published turn(s) stay on the public pages.",
                stakes.published
            ),
        ],
        button: "End the game",
        path: format!("/gm/games/{id}/actions/end"),
        refusal: None,
    }
}

fn ask_delete(id: GameId, name: &str, stakes: &Stakes) -> Asked {
    let published = stakes.published;
    Asked {
        title: format!("Delete {name}"),
        lead: format!("{name} is deleted, as if it had never been made."),
        consequences: vec![
            format!(
                "Its {} player(s), its open turn and any orders and press sent are removed; nothing is mailed.",
                stakes.players
            ),
            "Its pages are gone, and its name is free for a new game.".to_owned(),
            "The audit log keeps a record that it was made and deleted.".to_owned(),
        ],
        button: "Delete the game",
        path: format!("/gm/games/{id}/delete"),
        refusal: (published > 0).then(|| {
            format!(
                "{name} has published {published} turn(s): a game on the record cannot be deleted. End it instead."
            )
        }),
    }
}

pub(crate) async fn get_confirm_game(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, action)): Path<(GameId, String)>,
    Query(query): Query<RosterQuery>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    if matches!(action.as_str(), "replace" | "offer" | "withdraw") {
        let desk = gm_game::game_desk(&state.pool, &game)
            .await
            .map_err(lifecycle_error)?;
        let missing = confirm_roster::missing_choices(&action, &desk, &query);
        if !missing.is_empty() {
            let sent = SentBack {
                errors: missing,
                ..SentBack::default()
            };
            return send_back(&state, &gm, id, sent).await;
        }
        let asked = match action.as_str() {
            "replace" => confirm_roster::ask_replace(id, &desk, &query),
            "offer" => confirm_roster::ask_offer(id, &desk, &query),
            _ => confirm_roster::ask_withdraw(id, &desk, &query),
        };
        return render_roster(gm, id, game.name, asked);
    }
    let stakes = gm_game::stakes(&state.pool, &game).await?;
    let name = game.name.clone();
    let mut asked = match action.as_str() {
        "resolve-now" => ask_resolve_now(id, &name, &stakes)?,
        "end" => ask_end(id, &name, &stakes),
        "delete" => ask_delete(id, &name, &stakes),
        _ => return Err(AppError::NotFound),
    };
    let mut extra = Vec::new();
    if action != "delete" {
        // The form acts on the turn it was shown for (the game page's link names it).
        let shown = turn_shown(&query, stakes.open_turn);
        asked.refusal = asked
            .refusal
            .or_else(|| turn_moved_on(&name, &shown, stakes.open_turn));
        extra.push(("turn", shown));
    }
    let page = ConfirmPage {
        chrome: gm.chrome(None),
        title: asked.title,
        lead: asked.lead,
        consequences: asked.consequences,
        action: asked.path,
        extra,
        button: asked.button,
        undo: "This cannot be undone.",
        back: format!("/gm/games/{id}"),
        back_label: name,
        refusal: asked.refusal,
    };
    respond(page)
}

/// The turn a confirmation acts on: the one its link named, or (a link without one) the open
/// turn now.
fn turn_shown(query: &RosterQuery, open: Option<i32>) -> String {
    if query.turn.is_empty() {
        open.map(|n| n.to_string()).unwrap_or_default()
    } else {
        query.turn.clone()
    }
}

fn render_roster(gm: Gm, id: GameId, name: String, asked: RosterAsk) -> Result<Response, AppError> {
    respond(ConfirmPage {
        chrome: gm.chrome(None),
        title: asked.title,
        lead: asked.lead,
        consequences: asked.consequences,
        refusal: asked.refusal,
        action: asked.path,
        extra: asked.extra,
        button: asked.button,
        undo: "This cannot be undone: the mail goes out at once.",
        back: format!("/gm/games/{id}"),
        back_label: name,
    })
}

fn respond(page: ConfirmPage) -> Result<Response, AppError> {
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
    let (subscriber, zine, games) = gm_game::unsubscribe_stakes(&state.pool, id)
        .await?
        .ok_or(AppError::NotFound)?;
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
