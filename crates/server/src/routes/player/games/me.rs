//! `/me`: the player's games, their zine's games open for sign-up, their absences, the
//! standby list and the seats offered to them.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::super::Player;
use super::super::absence_error;
use super::super::signups::{self, OfferRow, SignupRow};
use super::{game_url, turn_line};
use crate::views::player::OwnGame;
use crate::web::field_errors::FieldErrors;
use crate::{AppError, AppState};

struct GameRow {
    /// The zine the game belongs to: a person may play in several.
    zine: String,
    name: String,
    url: String,
    rules: String,
    you: String,
    status: String,
    now: String,
    /// Whether orders are in for the open turn.
    ordered: bool,
    open: bool,
}

impl GameRow {
    fn new(game: &OwnGame) -> Self {
        let holder = &game.holder;
        GameRow {
            zine: holder.zine_name.clone(),
            name: holder.game_name.clone(),
            url: game_url(holder.game_id),
            rules: holder.engine.title().to_owned(),
            you: holder.display_name.clone(),
            status: holder.status.to_string(),
            now: turn_line(holder),
            ordered: game.ordered,
            open: holder.turn_number.is_some(),
        }
    }
}

#[derive(Template)]
#[template(path = "player/me.html")]
struct MePage {
    csrf: String,
    games: Vec<GameRow>,
    /// The zine's games open for sign-up, with the player's place in each queue.
    signups: Vec<SignupRow>,
    /// The player's absences and each game's absence policy, in words.
    absences: String,
    /// Whether the player is on the standby list (docs/rosters.md).
    standby: bool,
    /// Seats offered to the player, and what came of their last answer.
    offers: Vec<OfferRow>,
    offer_notice: Option<&'static str>,
    /// The absence form as sent back (empty days and no errors otherwise).
    absence: SentAbsence,
    errors: FieldErrors,
    /// Delivery to their address suspended after bounces: since when and why.
    suspended: Option<(String, String)>,
}

/// The absence form sent back: the days as typed and the errors beside them.
#[derive(Default)]
pub(crate) struct SentAbsence {
    pub first_day: String,
    pub last_day: String,
    pub errors: FieldErrors,
}

/// `/me?offer=...`: what came of the player's answer to an offer. Codes, not text.
#[derive(Debug, Deserialize)]
pub(crate) struct MeQuery {
    offer: Option<String>,
}

fn offer_notice(code: Option<&str>) -> Option<&'static str> {
    match code {
        Some("accepted") => Some(
            "You took the seat: it is in your games above, and your position and reply address are on their way by mail.",
        ),
        Some("declined") => Some("You declined the seat; it goes to someone else."),
        Some("closed") => Some("That seat is no longer offered to you; nothing was changed."),
        _ => None,
    }
}

pub(crate) async fn get_me(
    State(state): State<AppState>,
    player: Player,
    Query(query): Query<MeQuery>,
) -> Result<Response, AppError> {
    let notice = offer_notice(query.offer.as_deref());
    let html = me_page(&state, player, notice, SentAbsence::default()).await?;
    Ok(Html(html).into_response())
}

/// `/me` again with the absence form as sent and its errors: 422, nothing recorded.
pub(crate) async fn send_back_me(
    state: &AppState,
    player: Player,
    sent: SentAbsence,
) -> Result<Response, AppError> {
    let html = me_page(state, player, None, sent).await?;
    Ok((axum::http::StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}

async fn me_page(
    state: &AppState,
    player: Player,
    offer_notice: Option<&'static str>,
    mut absence: SentAbsence,
) -> Result<String, AppError> {
    let me = crate::views::player::me_page(&state.pool, player.subscriber, state.clock.now())
        .await
        .map_err(absence_error)?;
    Ok(MePage {
        games: me.games.iter().map(GameRow::new).collect(),
        signups: signups::rows(me.openings),
        absences: me.absences,
        standby: me.standby,
        offers: signups::offers(me.offers),
        offer_notice,
        suspended: me.bounces.as_ref().and_then(|b| {
            let at = b.suspended_at?.format("%Y-%m-%d %H:%M UTC").to_string();
            Some((at, b.suspended_reason.clone().unwrap_or_default()))
        }),
        csrf: player.csrf,
        errors: std::mem::take(&mut absence.errors),
        absence,
    }
    .render()?)
}
