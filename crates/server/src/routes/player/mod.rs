//! The players' pages: a login by a link mailed to the subscriber (`/login`), then their games
//! (`/me`), each with what they alone may see, their orders and press forms, and their own
//! past orders. Every page needs a subscriber's session (GET pages redirect to the login, forms
//! without one are refused; a GM's session is refused), every form its CSRF token, and a game
//! is found only among the player's own games: any other is "not found", whether or not it
//! exists.

mod absences;
mod auth;
mod bounces;
mod data;
mod games;
mod issues;
mod press;
mod resign;
mod signups;
mod zine;

use axum::Router;
use axum::extract::{FromRequestParts, Request};
use axum::http::Method;
use axum::http::request::Parts;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use store::sessions::Principal;
use store::subscribers::SubscriberId;

use crate::turns::LifecycleError;
use crate::web::session::CurrentSession;
use crate::{AppError, AppState};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/login", get(auth::get_login).post(auth::post_login))
        .route("/login/{token}", get(auth::get_link).post(auth::post_link))
        .route("/logout", post(auth::post_logout))
        .route("/me", get(games::get_me))
        .route("/me/data", get(data::get_data))
        .route("/me/erase", get(data::get_erase).post(data::post_erase))
        .route("/me/zine", get(zine::get_zine))
        .route("/me/zine/letter", post(zine::post_letter))
        .route("/me/zine/mail", post(zine::post_mail))
        .route("/me/signups/{opening}", post(signups::post_join))
        .route("/me/absences", post(absences::post_absence))
        .route("/me/resume", post(bounces::post_resume))
        .route("/me/standby", post(signups::post_standby))
        .route("/me/offers/{offer}", post(signups::post_offer))
        .route("/me/games/{game}", get(games::get_game))
        .route("/me/games/{game}/orders", post(games::post_orders))
        .route("/me/games/{game}/press", post(games::post_press))
        .route(
            "/me/games/{game}/press/withdraw",
            post(press::post_press_withdraw),
        )
        .route(
            "/me/games/{game}/resign",
            get(resign::get_resign).post(resign::post_resign),
        )
        .layer(middleware::from_fn(player_headers))
}

/// Player pages show what one player alone may see, and login links carry a secret in their
/// path: never cached, never framed, no referrer, nothing loaded from elsewhere.
async fn player_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    crate::web::set_private_page_headers(
        &mut response,
        "no-referrer",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    response
}

/// The logged-in player (a subscriber). As an extractor it is the player pages'
/// authorisation: without a subscriber's live session a GET is redirected to `/login`, a form
/// refused; a GM's session is refused (a GM is not a player).
#[derive(Debug, Clone)]
pub(crate) struct Player {
    pub subscriber: SubscriberId,
    pub csrf: String,
}

impl FromRequestParts<AppState> for Player {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let CurrentSession(session) = CurrentSession::from_request_parts(parts, state).await?;
        match session {
            Some(session) => match session.principal {
                Principal::Subscriber(subscriber) => Ok(Player {
                    subscriber,
                    csrf: session.csrf_token,
                }),
                Principal::Gm { .. } => Err(AppError::Forbidden),
            },
            None if parts.method == Method::GET || parts.method == Method::HEAD => {
                Err(AppError::RedirectToLogin {
                    login: "/login",
                    next: parts
                        .uri
                        .path_and_query()
                        .map_or("/me", |p| p.as_str())
                        .to_owned(),
                })
            }
            None => Err(AppError::LoginRequired),
        }
    }
}

/// The `?done=` codes a redirect after a form may carry, and what the page then says (codes,
/// not text, so that no link can make a page say words of someone else's choosing).
fn notice(code: Option<&str>) -> Option<&'static str> {
    Some(match code? {
        "orders" => {
            "Your orders were received. They stand unless you send a new set before the deadline: the last set received counts."
        }
        "press" => "Your press was received: it is published with the turn's report.",
        "press-withdrawn" => {
            "Your press for this turn is withdrawn: none of it will be printed unless you send press again."
        }
        "orders-press-withdrawn" => {
            "Your orders were received. They replace everything you sent before for this turn: the press you sent before them is withdrawn (send it again to keep it)."
        }
        "press-cut" => {
            "Your press was longer than the room this turn's report has left for your press, so it was cut: below is how it will be printed."
        }
        "orders-press-cut" => {
            "Your orders were received. The press in them was more than this turn's report has room for from you, so some of it was cut or left out: below is your press as it will be printed."
        }
        "resigned" => {
            "You have resigned from this game. Your fleet leaves when the open turn resolves; until then the GM can take your resignation back if you ask."
        }
        _ => return None,
    })
}

/// Readable times, in UTC.
fn when(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.format("%A %-d %B %Y, %H:%M UTC").to_string()
}

/// Refusals of an absence are the player's to read; storage failures are logged and hidden.
pub(super) fn absence_error(error: LifecycleError) -> AppError {
    match error {
        LifecycleError::Store(error) => AppError::Store(error),
        other => AppError::Conflict(format!("{other}.")),
    }
}
