//! Missed turns and offers of seats to standbys on the game's page (`crate::offers`):
//! the game's limit and who makes offers, the seats that want a player, the open offers.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use store::games::GameId;
use store::offers::OfferId;
use store::players::PlayerRowId;
use store::status::StandbyOffers;
use store::subscribers::SubscriberId;

use super::super::Gm;
use super::{field, find_game, lifecycle_error};
use crate::offers::{self, Want};
use crate::views::gm_game::Standbys;
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// One open offer as the GM sees it: its id, to whom, when and by whom.
pub(super) struct OfferRow {
    pub id: OfferId,
    pub to: String,
    pub when: String,
    pub by: String,
    /// When it expires unanswered.
    pub until: String,
}

/// A seat that wants a player.
pub(super) struct WantedRow {
    pub player: PlayerRowId,
    pub name: String,
    pub why: String,
    pub offers: Vec<OfferRow>,
}

/// The page's part on missed turns and standbys; `None` for Barmy (no seat is handed over).
pub(super) struct StandbyPanel {
    /// The limit in force.
    pub limit: u32,
    pub engine_default: u32,
    /// The GM's own limit as the form shows it: empty for the engine's default.
    pub custom: String,
    pub automatic: bool,
    /// How many days an offer stands.
    pub offer_days: u32,
    /// The days field: the days saved, or as typed when the form comes back.
    pub offer_days_field: String,
    pub max_offer_days: u32,
    pub wanted: Vec<WantedRow>,
}

/// The panel of the game's page on missed turns and standbys.
pub(super) fn panel(standbys: &Standbys) -> StandbyPanel {
    let policy = standbys.policy;
    let wanted = standbys
        .wanted
        .iter()
        .map(|seat| WantedRow {
            player: seat.player,
            why: match seat.want {
                Want::Resigned => "resigned".to_owned(),
                Want::OfferedByGm => {
                    "still playing; you offered the seat (withdraw the offer to keep them)"
                        .to_owned()
                }
                Want::Missed { turns: 1, limit } => {
                    format!("missed 1 turn in a row (the limit is {limit})")
                }
                Want::Missed { turns, limit } => {
                    format!("missed {turns} turns in a row (the limit is {limit})")
                }
            },
            name: seat.name.clone(),
            offers: seat
                .offers
                .iter()
                .map(|offer| OfferRow {
                    id: offer.id,
                    by: offer_reason(offer.reason).to_owned(),
                    when: super::super::when(&offer.offered_at),
                    until: super::super::when(&offer.expires_at),
                    to: offer.subscriber_name.clone(),
                })
                .collect(),
        })
        .collect();
    StandbyPanel {
        limit: crate::offers::limit(standbys.engine, policy).unwrap_or(standbys.engine_default),
        engine_default: standbys.engine_default,
        custom: policy.limit.map(|n| n.to_string()).unwrap_or_default(),
        automatic: policy.offers == StandbyOffers::Automatic,
        offer_days: policy.offer_days,
        offer_days_field: policy.offer_days.to_string(),
        max_offer_days: offers::MAX_OFFER_DAYS,
        wanted,
    }
}

fn offer_reason(reason: store::status::OfferReason) -> &'static str {
    use store::status::OfferReason;
    match reason {
        OfferReason::Gm => "by the GM",
        OfferReason::Missed => "for the missed turns",
        OfferReason::Resigned => "after the resignation",
    }
}

/// The GM offers a seat to a standby (or any active subscriber who does not play the game).
pub(crate) async fn post_offer(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    if let Some(ask) =
        super::confirm_roster::before_roster_action(&state, &game, "offer", &pairs).await?
    {
        return Ok(ask);
    }
    let choose = |what: &str| AppError::BadRequest(format!("choose {what}"));
    let player = field(&pairs, "player")
        .parse::<PlayerRowId>()
        .map_err(|_| choose("the seat"))?;
    let subscriber = field(&pairs, "subscriber")
        .parse::<SubscriberId>()
        .map_err(|_| choose("who is offered the seat"))?;
    offers::offer_seat(
        &state.pool,
        state.clock.now(),
        game.id,
        player,
        subscriber,
        &gm.actor(),
        &state.mail_domain,
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{id}?done=offered")).into_response())
}

/// The GM takes back an open offer.
pub(crate) async fn post_withdraw(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, offer)): Path<(GameId, OfferId)>,
    CsrfForm(mut pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let game = find_game(&state, id).await?;
    pairs.push(("offer".to_owned(), offer.to_string()));
    if let Some(ask) =
        super::confirm_roster::before_roster_action(&state, &game, "withdraw", &pairs).await?
    {
        return Ok(ask);
    }
    offers::withdraw(
        &state.pool,
        state.clock.now(),
        game.id,
        offer,
        &gm.actor(),
        &state.mail_domain,
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{id}?done=offer-withdrawn")).into_response())
}

/// The GM takes a player's resignation back while their fleet is still in the battle.
pub(crate) async fn post_reinstate(
    State(state): State<AppState>,
    gm: Gm,
    Path((id, player)): Path<(GameId, PlayerRowId)>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Redirect, AppError> {
    let game = find_game(&state, id).await?;
    // A form from before the roster moved on (the resignation already taken back) is refused.
    super::confirm_roster::before_roster_action(&state, &game, "reinstate", &pairs).await?;
    crate::rosters::resign::reinstate(
        &state.pool,
        state.clock.now(),
        game.id,
        player,
        &gm.actor(),
        &state.mail_domain,
    )
    .await
    .map_err(lifecycle_error)?;
    Ok(Redirect::to(&format!("/gm/games/{id}?done=reinstated")))
}
