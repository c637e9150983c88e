//! A game open for sign-up, for its GM: the queue, the seating seed's commitment, and starting
//! it now (with the seats the GM gives, when the GM seats the players).

use crate::web::Path;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use engine::SeatPlan;
use store::signups::{Opening, OpeningId, Signup};
use store::status::{OpeningStatus, Seating};
use store::subscribers::SubscriberId;

use super::home::DoneQuery;
use super::{Chrome, Gm, field};
use crate::rosters::signups;
use crate::turns::{LifecycleError, RosterPick};
use crate::views::gm_game::OpeningDesk;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "gm/signup.html")]
struct SignupPage {
    chrome: Chrome,
    opening: Opening,
    zine_slug: String,
    queue: Vec<Signup>,
    /// The seats the GM may give (when the GM seats the players): value and name.
    seats: Vec<(String, String)>,
    commitment: Option<String>,
    errors: Vec<String>,
}

impl SignupPage {
    fn open(&self) -> bool {
        self.opening.status == OpeningStatus::Open
    }

    fn gm_seats(&self) -> bool {
        self.opening.seating == Seating::Gm
    }

    fn seating(&self) -> &'static str {
        match self.opening.seating {
            Seating::Order => "in order of sign-up",
            Seating::Random => "at random, with the committed seating seed",
            Seating::Gm => "by the GM, when starting",
        }
    }
}

async fn signup_page(
    state: &AppState,
    gm: &Gm,
    id: OpeningId,
    notice: Option<&str>,
    errors: Vec<String>,
) -> Result<String, AppError> {
    let OpeningDesk {
        opening,
        queue,
        zine_slug,
    } = crate::views::gm_game::opening(&state.pool, id)
        .await?
        .ok_or(AppError::NotFound)?;
    let seats = match opening.setup.seat_plan() {
        SeatPlan::Named { seats } => seats
            .iter()
            .enumerate()
            .map(|(i, s)| (i.to_string(), s.name.clone()))
            .collect(),
        _ => vec![("0".into(), "plays".into())],
    };
    Ok(SignupPage {
        chrome: gm.chrome(notice),
        commitment: signups::seating_commitment(&opening),
        opening,
        zine_slug,
        queue,
        seats,
        errors,
    }
    .render()?)
}

pub(crate) async fn get_signup(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<OpeningId>,
    Query(query): Query<DoneQuery>,
) -> Result<Html<String>, AppError> {
    let notice = super::notice(query.done.as_deref());
    Ok(Html(
        signup_page(&state, &gm, id, notice, Vec::new()).await?,
    ))
}

/// Starts the game now with whoever signed up; the GM's seats when the GM seats the players.
pub(crate) async fn post_start(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<OpeningId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Response, AppError> {
    let mut picks = Vec::new();
    let mut errors = Vec::new();
    for (name, value) in &pairs {
        let Some(subscriber) = name.strip_prefix("seat.") else {
            continue;
        };
        if value.is_empty() {
            continue;
        }
        match (subscriber.parse::<SubscriberId>(), value.parse::<u32>()) {
            (Ok(subscriber), Ok(seat)) => picks.push(RosterPick { subscriber, seat }),
            _ => errors.push(format!("Seat {value:?} for {subscriber:?} is not a seat.")),
        }
    }
    let gm_seats = (field(&pairs, "seating") == "gm").then_some(picks.as_slice());
    if errors.is_empty() {
        let started = signups::start(
            &state.pool,
            state.clock.now(),
            id,
            gm_seats,
            &gm.actor(),
            state.mail_site(),
        )
        .await;
        match started {
            Ok(game) => {
                return Ok(
                    Redirect::to(&format!("/gm/games/{}?done=game-created", game)).into_response(),
                );
            }
            Err(error @ (LifecycleError::Roster(_) | LifecycleError::Game(_))) => {
                errors.push(format!("Not started: {error}."));
            }
            Err(LifecycleError::Store(store::StoreError::AlreadyExists { what })) => {
                errors.push(format!("Not started: there is already {what}."));
            }
            Err(error) => return Err(AppError::Conflict(format!("{error}."))),
        }
    }
    let html = signup_page(&state, &gm, id, None, errors).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(html)).into_response())
}
