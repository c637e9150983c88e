//! The confirmation pages of the roster's actions that mail people and cannot be undone:
//! replacing a player, offering a seat to a standby, withdrawing an offer. The game's page
//! sends its choices here (a GET form whose selects start on "— choose —"); the page says who
//! is mailed and holds the one form that acts, carrying the roster's version it was shown for
//! (`GameDesk::roster_version`): a form from before the roster moved on is refused, never
//! applied to the roster as it is now.

use serde::Deserialize;
use store::games::GameId;
use store::offers::OfferId;
use store::players::PlayerRowId;
use store::subscribers::SubscriberId;

use axum::response::{IntoResponse, Redirect, Response};
use store::games::GameSummary;

use super::super::field;
use crate::offers::Want;
use crate::views::gm_game::{self, GameDesk};
use crate::web::field_errors::FieldErrors;
use crate::{AppError, AppState};

/// What a roster confirmation page is asked for (the game page's form, as a query).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RosterQuery {
    #[serde(default)]
    pub player: String,
    #[serde(default)]
    pub subscriber: String,
    #[serde(default)]
    pub offer: String,
    #[serde(default)]
    pub roster: String,
    #[serde(default)]
    pub turn: String,
}

/// A roster confirmation: what it says, and the fields its form carries.
pub(super) struct RosterAsk {
    pub title: String,
    pub lead: String,
    pub consequences: Vec<String>,
    pub button: &'static str,
    pub path: String,
    pub extra: Vec<(&'static str, String)>,
    pub refusal: Option<String>,
}

/// The refusal of a form shown for a roster that has changed since.
pub(crate) fn moved_on() -> String {
    "Already done, or the roster has moved on since this form was shown: nothing was done. \
     Look at the game's page as it is now, and choose again there."
        .to_owned()
}

/// What a roster action's handler does first: without its confirmation, the GM is sent to the
/// confirmation page with the form's choices; a form from before the roster moved on is
/// refused. `Ok(None)`: the action may run.
pub(crate) async fn before_roster_action(
    state: &AppState,
    game: &GameSummary,
    action: &str,
    pairs: &[(String, String)],
) -> Result<Option<Response>, AppError> {
    let desk = gm_game::game_desk(&state.pool, game)
        .await
        .map_err(super::lifecycle_error)?;
    if action != "reinstate" && field(pairs, "confirm") != "yes" {
        let choices: Vec<(&str, &str)> = ["player", "subscriber", "offer", "roster"]
            .into_iter()
            .map(|name| (name, field(pairs, name)))
            .filter(|(_, value)| !value.is_empty())
            .collect();
        let query = serde_urlencoded::to_string(choices).unwrap_or_default();
        let path = format!("/gm/games/{}/confirm/{action}?{query}", game.id);
        return Ok(Some(Redirect::to(&path).into_response()));
    }
    check_roster(&desk, pairs)?;
    Ok(None)
}

/// Refuses a roster form whose roster version is not the game's (see the module's comment).
pub(crate) fn check_roster(desk: &GameDesk, pairs: &[(String, String)]) -> Result<(), AppError> {
    if field(pairs, "roster") == desk.roster_version() {
        Ok(())
    } else {
        Err(AppError::Conflict(moved_on()))
    }
}

fn taker_name(desk: &GameDesk, subscriber: SubscriberId) -> Option<String> {
    desk.takers
        .iter()
        .find(|t| t.id == subscriber)
        .map(|t| t.name.clone())
}

/// A refusal page's words when a choice is missing or no longer possible.
fn refused(title: String, path: String, why: String) -> RosterAsk {
    RosterAsk {
        title,
        lead: String::new(),
        consequences: Vec::new(),
        button: "",
        path,
        extra: Vec::new(),
        refusal: Some(why),
    }
}

/// The subscriber the form chose to take the seat, with their name; `None` if none was chosen
/// or the one chosen may not take it.
fn chosen_taker(desk: &GameDesk, query: &RosterQuery) -> Option<(SubscriberId, String)> {
    let subscriber = query.subscriber.parse::<SubscriberId>().ok()?;
    taker_name(desk, subscriber).map(|name| (subscriber, name))
}

/// What the game page's Replace or Offer form left unchosen (its selects start on
/// "— choose —"; a browser that honours `required` never sends one empty), each beside its
/// select for the game's page to come back with: empty when everything was chosen, or when the
/// roster has moved on (which the confirmation page refuses in words).
pub(super) fn missing_choices(action: &str, desk: &GameDesk, query: &RosterQuery) -> FieldErrors {
    let mut errors = FieldErrors::default();
    if query.roster != desk.roster_version() {
        return errors;
    }
    let taker = |errors: &mut FieldErrors, id: String| {
        if chosen_taker(desk, query).is_none() {
            errors.push(id, no_taker(query));
        }
    };
    match action {
        "replace" => {
            let seat =
                query.player.parse::<i64>().ok().filter(|&engine_id| {
                    desk.seats.iter().any(|s| s.engine_player_id == engine_id)
                });
            if seat.is_none() {
                errors.push(
                    "replace-player",
                    "Choose the seat to hand over: nothing was done.",
                );
            }
            taker(&mut errors, "replace-by".to_owned());
        }
        "offer" => {
            let seat = query
                .player
                .parse::<PlayerRowId>()
                .ok()
                .filter(|&row| desk.players.iter().any(|p| p.player_id == row));
            // A seat that wants a player has its own form, with only the standby to choose.
            let wanted = seat.filter(|&row| {
                desk.standbys
                    .iter()
                    .flat_map(|s| &s.wanted)
                    .any(|w| w.player == row)
            });
            match wanted {
                Some(row) => taker(&mut errors, format!("offer-to-{row}")),
                None => {
                    if seat.is_none() {
                        errors.push(
                            "offer-any-seat",
                            "Choose the seat to offer: nothing was done.",
                        );
                    }
                    taker(&mut errors, "offer-any-to".to_owned());
                }
            }
        }
        _ => {}
    }
    errors
}

/// Why the subscriber the form names cannot be the one who takes a seat.
fn no_taker(query: &RosterQuery) -> String {
    if query.subscriber.is_empty() {
        "Choose who takes the seat: nothing was done.".to_owned()
    } else {
        "The subscriber chosen can no longer take a seat (they took one, or left the zine): choose again. Nothing was done.".to_owned()
    }
}

pub(super) fn ask_replace(id: GameId, desk: &GameDesk, query: &RosterQuery) -> RosterAsk {
    let path = format!("/gm/games/{id}/replace");
    let title = "Replace a player".to_owned();
    let seat = query
        .player
        .parse::<i64>()
        .ok()
        .and_then(|engine_id| desk.seats.iter().find(|s| s.engine_player_id == engine_id));
    let taker = chosen_taker(desk, query);
    if query.roster != desk.roster_version() {
        return refused(title, path, moved_on());
    }
    let (Some(seat), Some((taker, taker_name))) = (seat, taker) else {
        return refused(
            title,
            path,
            "Choose both the seat and who takes it over: nothing was chosen for one of them, so nothing was done.".to_owned(),
        );
    };
    let name = &seat.display_name;
    RosterAsk {
        title: format!("Replace {name} by {taker_name}"),
        lead: format!("{taker_name} takes over {name}'s seat from the open turn on."),
        consequences: vec![
            format!("{name} leaves the game and is mailed that their seat was handed on."),
            format!("{taker_name} is mailed the seat's position and their own reply address."),
            "The report names the seat's new holder from this turn.".to_owned(),
        ],
        button: "Replace from this turn",
        path,
        extra: vec![
            ("player", seat.engine_player_id.to_string()),
            ("subscriber", taker.to_string()),
            ("roster", query.roster.clone()),
        ],
        refusal: None,
    }
}

pub(super) fn ask_offer(id: GameId, desk: &GameDesk, query: &RosterQuery) -> RosterAsk {
    let path = format!("/gm/games/{id}/offer");
    let title = "Offer a seat".to_owned();
    let seat = query
        .player
        .parse::<PlayerRowId>()
        .ok()
        .and_then(|row| desk.players.iter().find(|p| p.player_id == row));
    let taker = chosen_taker(desk, query);
    if query.roster != desk.roster_version() {
        return refused(title, path, moved_on());
    }
    let (Some(seat), Some((taker, taker_name))) = (seat, taker) else {
        return refused(
            title,
            path,
            "Choose both the seat and whom to offer it to: nothing was chosen for one of them, so nothing was done.".to_owned(),
        );
    };
    let name = &seat.display_name;
    RosterAsk {
        title: format!("Offer {name}'s seat to {taker_name}"),
        lead: format!("{taker_name} is offered {name}'s seat."),
        consequences: vec![
            format!(
                "{taker_name} is mailed the offer now, and takes the seat if they accept before it expires."
            ),
            offered_seat_words(desk, seat.player_id, name),
        ],
        button: "Offer the seat",
        path,
        extra: vec![
            ("player", seat.player_id.to_string()),
            ("subscriber", taker.to_string()),
            ("roster", query.roster.clone()),
        ],
        refusal: None,
    }
}

/// What happens to the offered seat's holder meanwhile: it depends on why the seat is offered
/// (a player still playing keeps playing; a resigned seat or one at its missed-turns limit has
/// nobody playing it).
fn offered_seat_words(desk: &GameDesk, seat: PlayerRowId, name: &str) -> String {
    let want = desk
        .standbys
        .as_ref()
        .and_then(|s| s.wanted.iter().find(|w| w.player == seat))
        .map(|w| w.want);
    match want {
        Some(Want::Resigned) => format!(
            "{name} has resigned: the seat has no player until it is taken; from then the report names its new holder."
        ),
        Some(Want::Missed { turns, limit }) => {
            let turns = if turns == 1 {
                "1 turn".to_owned()
            } else {
                format!("{turns} turns")
            };
            format!(
                "The seat wants a player because {name} has missed {turns} in a row (the limit is {limit}); when the seat is taken {name} is mailed that it was handed on."
            )
        }
        Some(Want::OfferedByGm) | None => format!(
            "{name} keeps playing until then (withdraw the offer to keep them); when the seat is taken they are mailed that it was handed on."
        ),
    }
}

pub(super) fn ask_withdraw(id: GameId, desk: &GameDesk, query: &RosterQuery) -> RosterAsk {
    let title = "Withdraw an offer".to_owned();
    let offer_id = query.offer.parse::<OfferId>().ok();
    let path = match offer_id {
        Some(offer) => format!("/gm/games/{id}/offers/{offer}/withdraw"),
        None => format!("/gm/games/{id}"),
    };
    let found = desk
        .standbys
        .iter()
        .flat_map(|s| &s.wanted)
        .find_map(|seat| {
            seat.offers
                .iter()
                .find(|o| Some(o.id) == offer_id)
                .map(|o| (seat, o))
        });
    if query.roster != desk.roster_version() {
        return refused(title, path, moved_on());
    }
    let Some((seat, offer)) = found else {
        return refused(title, path, moved_on());
    };
    let to = &offer.subscriber_name;
    RosterAsk {
        title: format!("Withdraw the offer of {}'s seat to {to}", seat.name),
        lead: format!("The offer to {to} ends now: they can no longer take the seat."),
        consequences: vec![
            format!("{to} is mailed that the offer was withdrawn."),
            format!(
                "{}'s seat stays as it is: a player still playing keeps it; a seat that wants a player stays listed on the game's page.",
                seat.name
            ),
        ],
        button: "Withdraw the offer",
        path,
        extra: vec![("roster", query.roster.clone())],
        refusal: None,
    }
}
