//! Signing up on the player pages: the zine's games open for sign-up on `/me`, each with a
//! button that queues the player (`rosters::signups::join`) and their place once queued.

use crate::web::Path;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use games::EngineKind;
use store::offers::{Offer, OfferId};
use store::signups::OpeningId;

use super::Player;
use crate::rosters::signups;
use crate::views;
use crate::views::player::OpenOpening;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// A game open for sign-up, as the player sees it on `/me`.
pub(crate) struct SignupRow {
    pub id: OpeningId,
    pub name: String,
    pub engine: EngineKind,
    pub free: i64,
    pub seats: i32,
    /// The player's place in the queue, once signed up.
    pub place: Option<i32>,
}

/// The player's zine's games open for sign-up, as `/me` lists them.
pub(crate) fn rows(openings: Vec<OpenOpening>) -> Vec<SignupRow> {
    openings
        .into_iter()
        .map(|OpenOpening { opening, place }| SignupRow {
            place,
            id: opening.id,
            free: i64::from(opening.seats)
                .saturating_sub(opening.signed)
                .max(0),
            seats: opening.seats,
            name: opening.name,
            engine: opening.engine,
        })
        .collect()
}

/// Signs the player up for an opening of their own zine; back to `/me`, which shows the place
/// (or, when the last seat was theirs, the game).
pub(crate) async fn post_join(
    State(state): State<AppState>,
    player: Player,
    Path(id): Path<OpeningId>,
    CsrfForm(_form): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let subscriber = views::player::active_subscriber(&state.pool, player.subscriber)
        .await?
        .ok_or(AppError::Forbidden)?;
    let opening = views::player::open_opening(&state.pool, &subscriber, id)
        .await?
        .ok_or(AppError::NotFound)?;
    signups::join(
        &state.pool,
        state.clock.now(),
        subscriber.zine_id,
        player.subscriber,
        &opening.name,
        state.mail_site(),
    )
    .await
    .map_err(|error| AppError::Conflict(format!("{error}.")))?;
    Ok(Redirect::to("/me").into_response())
}

/// Volunteers the player as a standby (`standby=on`) or takes them off the list; back to `/me`.
pub(crate) async fn post_standby(
    State(state): State<AppState>,
    player: Player,
    CsrfForm(form): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    views::player::active_subscriber(&state.pool, player.subscriber)
        .await?
        .ok_or(AppError::Forbidden)?;
    let on = match form
        .iter()
        .find(|(k, _)| k == "standby")
        .map(|(_, v)| v.as_str())
    {
        Some("on") => true,
        Some("off") => false,
        _ => return Err(AppError::BadRequest("standby must be on or off".into())),
    };
    crate::rosters::replace::set_standby(
        &state.pool,
        state.clock.now(),
        player.subscriber,
        on,
        store::audit::Via::Web,
    )
    .await
    .map_err(|error| AppError::Conflict(format!("{error}.")))?;
    Ok(Redirect::to("/me").into_response())
}

/// A seat offered to the player, as `/me` shows it: nothing of the position.
pub(crate) struct OfferRow {
    pub id: OfferId,
    pub game: String,
    pub why: String,
    /// When it expires unanswered.
    pub answer_by: String,
}

/// The seats offered to the player, as `/me` lists them.
pub(crate) fn offers(offers: Vec<Offer>) -> Vec<OfferRow> {
    offers
        .into_iter()
        .map(|offer| OfferRow {
            id: offer.id,
            why: crate::letters::offers::why_free(offer.reason, &offer.holder_name, None),
            answer_by: offer
                .expires_at
                .format("%A %-d %B %Y, %H:%M UTC")
                .to_string(),
            game: offer.game_name,
        })
        .collect()
}

/// The player's answer to an offer of a seat (`answer=accept` or `decline`); back to `/me`,
/// which says what came of it.
pub(crate) async fn post_offer(
    State(state): State<AppState>,
    player: Player,
    Path(id): Path<OfferId>,
    CsrfForm(form): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    use crate::offers::{Answer, Answered, answer};
    let answer_given = match form
        .iter()
        .find(|(k, _)| k == "answer")
        .map(|(_, v)| v.as_str())
    {
        Some("accept") => Answer::Accept,
        Some("decline") => Answer::Decline,
        _ => {
            return Err(AppError::BadRequest(
                "answer must be accept or decline".into(),
            ));
        }
    };
    // Only the player's own offers: another's is answered as not found.
    let Some(offer) = views::player::own_offer(&state.pool, player.subscriber, id).await? else {
        return Ok(Redirect::to("/me?offer=closed").into_response());
    };
    let answered = answer(
        &state.pool,
        state.clock.now(),
        offer.id,
        player.subscriber,
        answer_given,
        &state.mail_domain,
    )
    .await
    .map_err(|error| AppError::Conflict(format!("{error}.")))?;
    let code = match answered {
        Answered::Took(_) => "accepted",
        Answered::Declined(_) => "declined",
        Answered::NotOpen(_) => "closed",
    };
    Ok(Redirect::to(&format!("/me?offer={code}")).into_response())
}
