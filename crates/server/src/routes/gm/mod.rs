//! The GM console, `/gm/...`: every page needs a GM's session (GET pages redirect to the login,
//! forms without one are refused), and every form its CSRF token (`web::csrf::CsrfForm`). Every
//! change is written to the audit log with the GM's name as actor, in the change's transaction.

mod audit;
mod auth;
mod dns;
mod games;
mod home;
mod issues;
mod mail;
mod settings;
mod signups;
mod subscribers;
mod zines;

use axum::Router;
use axum::extract::{FromRequestParts, OriginalUri, Request};
use axum::http::Method;
use axum::http::request::Parts;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use store::accounts::GmAccountId;
use store::sessions::Principal;

use crate::web::session::CurrentSession;
use crate::{AppError, AppState};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(home::get_home))
        .route("/login", get(auth::get_login).post(auth::post_login))
        .route("/logout", post(auth::post_logout))
        .merge(zine_routes())
        .merge(game_routes())
        .route("/inbox", get(mail::get_inbox))
        .route("/inbox/{id}/retry", post(mail::post_inbox_retry))
        .route("/outbox", get(mail::get_outbox))
        .route("/outbox/{id}/resend", post(mail::post_outbox_resend))
        .route("/audit", get(audit::get_audit))
        .route("/dns", get(dns::get_dns))
        .route(
            "/settings",
            get(settings::get_settings).post(settings::post_settings),
        )
        .layer(middleware::from_fn(console_headers))
}

/// The zines: their issues and letters, their subscribers.
fn zine_routes() -> Router<AppState> {
    Router::new()
        .route("/zines", get(zines::get_zines).post(zines::post_zine))
        .route("/zines/{slug}", get(subscribers::get_zine))
        .route("/zines/{slug}/issues", get(issues::get_issues))
        .route(
            "/zines/{slug}/issues/preview",
            get(issues::get_issue_preview),
        )
        .route("/zines/{slug}/issues/rhythm", post(issues::post_rhythm))
        .route("/zines/{slug}/issues/first", post(issues::post_first_issue))
        .route(
            "/zines/{slug}/issues/editorial",
            post(issues::post_editorial),
        )
        .route(
            "/zines/{slug}/issues/publish",
            get(issues::get_confirm_publish).post(issues::post_publish),
        )
        .route("/zines/{slug}/letters/{letter}", post(issues::post_letter))
        .route(
            "/zines/{slug}/subscribers",
            post(subscribers::post_subscriber),
        )
        .route(
            "/zines/{slug}/subscribers/import",
            post(subscribers::post_import),
        )
        .route(
            "/zines/{slug}/subscribers.csv",
            get(subscribers::get_export),
        )
        .route(
            "/subscribers/{id}",
            get(subscribers::get_subscriber).post(subscribers::post_subscriber_edit),
        )
        .route(
            "/subscribers/{id}/postal",
            post(subscribers::post_subscriber_postal),
        )
        .route(
            "/subscribers/{id}/resume",
            post(subscribers::post_subscriber_resume),
        )
        .route(
            "/subscribers/{id}/status",
            post(subscribers::post_subscriber_status),
        )
        .route(
            "/subscribers/{id}/unsubscribe",
            get(games::get_confirm_unsubscribe),
        )
}

/// The games: making one (or opening it for sign-up), and everything on a game's page.
fn game_routes() -> Router<AppState> {
    Router::new()
        .route(
            "/zines/{slug}/games/new",
            get(games::get_new_game).post(games::post_new_game),
        )
        .route("/signups/{id}", get(signups::get_signup))
        .route("/signups/{id}/start", post(signups::post_start))
        .route("/games/{id}", get(games::get_game))
        .route("/games/{id}/preview", get(games::get_preview))
        .route("/games/{id}/positions", get(games::get_positions))
        .route("/games/{id}/schedule", post(games::post_schedule))
        .route("/games/{id}/absence", post(games::post_absence))
        .route("/games/{id}/post-orders", post(games::post_postal_orders))
        .route("/games/{id}/replace", post(games::post_replace))
        .route("/games/{id}/missed", post(games::post_missed))
        .route("/games/{id}/offer", post(games::post_offer))
        .route(
            "/games/{id}/offers/{offer}/withdraw",
            post(games::post_withdraw),
        )
        .route(
            "/games/{id}/players/{player}/reinstate",
            post(games::post_reinstate),
        )
        .route("/games/{id}/print/{player}", get(games::get_postal_print))
        .route("/games/{id}/print-postal", get(games::get_print_postal))
        .route("/games/{id}/sheets-posted", post(games::post_sheets_posted))
        .route("/games/{id}/actions/{action}", post(games::post_action))
        .route("/games/{id}/confirm/{action}", get(games::get_confirm_game))
        .route("/games/{id}/delete", post(games::post_delete))
        .route(
            "/games/{id}/press/{press}/strike",
            get(games::get_strike).post(games::post_strike),
        )
}

/// Console pages show hidden facts: never cached, never framed, no referrer to other sites.
async fn console_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    crate::web::set_private_page_headers(
        &mut response,
        "same-origin",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    response
}

/// The logged-in GM. As an extractor it is the console's authorisation: without a GM's live
/// session a GET is redirected to the login page, anything else refused.
#[derive(Debug, Clone)]
pub(crate) struct Gm {
    pub id: GmAccountId,
    pub name: String,
    pub csrf: String,
}

impl Gm {
    /// The audit log's actor for this GM.
    pub fn actor(&self) -> String {
        format!("gm:{}", self.name)
    }

    /// What every console page shows around its content.
    pub fn chrome(&self, notice: Option<&str>) -> Chrome {
        Chrome {
            gm: self.name.clone(),
            csrf: self.csrf.clone(),
            notice: notice.map(str::to_owned),
        }
    }
}

impl FromRequestParts<AppState> for Gm {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let CurrentSession(session) = CurrentSession::from_request_parts(parts, state).await?;
        match session {
            Some(session) => match session.principal {
                Principal::Gm { id, name } => Ok(Gm {
                    id,
                    name,
                    csrf: session.csrf_token,
                }),
                Principal::Subscriber(_) => Err(AppError::Forbidden),
            },
            None if parts.method == Method::GET || parts.method == Method::HEAD => {
                // Inside `nest("/gm", ..)` the request's URI has lost its prefix: use the original.
                let next = parts
                    .extensions
                    .get::<OriginalUri>()
                    .map_or(&parts.uri, |original| &original.0)
                    .path_and_query()
                    .map_or("/gm", |p| p.as_str())
                    .to_owned();
                Err(AppError::RedirectToLogin {
                    login: "/gm/login",
                    next,
                })
            }
            None => Err(AppError::LoginRequired),
        }
    }
}

/// The layout's own data: who is logged in, the logout form's token, a notice to show.
#[derive(Debug, Clone)]
pub(crate) struct Chrome {
    pub gm: String,
    pub csrf: String,
    pub notice: Option<String>,
}

/// The `?done=` codes a redirect after a form may carry, and what the page then says. Codes,
/// not text, so that no link can make the console display words of someone else's choosing.
pub(crate) fn notice(code: Option<&str>) -> Option<&'static str> {
    Some(match code? {
        "zine-added" => "Zine added.",
        "subscriber-added" => "Subscriber added.",
        "subscriber-saved" => "Subscriber saved.",
        "unsubscribed" => "Unsubscribed.",
        "resubscribed" => "Subscribed again.",
        "game-created" => "Game created: turn 1 is open.",
        "signup-opened" => "The game is open for sign-up.",
        "schedule-saved" => "Schedule saved.",
        "absence-saved" => "Absence policy saved.",
        "game-deleted" => "The game was deleted.",
        "resolve-now" => "The turn was resolved and published.",
        "extend" => "The deadline was extended.",
        "deadline" => "The deadline was set.",
        "pause" => "The game is paused.",
        "resume" => "The game is running again.",
        "end" => "The game has ended; every sealed seed is revealed.",
        "retried" => "The message was put back in the queue and processed.",
        "resent" => "The message is queued to be sent again.",
        "replaced" => "The seat has a new player: they were mailed the position.",
        "missed-saved" => "Missed turns and standbys: saved.",
        "offered" => "The seat was offered: they were mailed, and take the seat when they accept.",
        "offer-withdrawn" => "The offer was withdrawn; they were told by mail.",
        "press-struck" => {
            "The press was struck: it will not be printed, and its player was told by mail."
        }
        "settings-saved" => "Settings saved.",
        "reinstated" => {
            "The resignation is taken back: the player plays on, and was told by mail; open offers of the seat lapsed."
        }
        _ => return None,
    })
}

/// `/gm/...` paths only: where a login may send the GM afterwards (no open redirect). A plain
/// path of printable ASCII, so that it is always a valid `Location` (a control character,
/// a space or a non-ASCII letter there made the redirect fail with a 500); anything else sends
/// the GM to the console's front page.
pub(crate) fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(path)
            if (path == "/gm" || path.starts_with("/gm/") || path.starts_with("/gm?"))
                && path.bytes().all(|b| b.is_ascii_graphic())
                && !path.contains("//")
                && !path.contains('\\')
                && !path.contains("/..")
                && !path.starts_with("/gm/login")
                && !path.starts_with("/gm/logout") =>
        {
            path.to_owned()
        }
        _ => "/gm".to_owned(),
    }
}

/// A form's field by name, trimmed ("" when absent).
pub(crate) fn field<'a>(pairs: &'a [(String, String)], name: &str) -> &'a str {
    pairs
        .iter()
        .find(|(key, _)| key == name)
        .map_or("", |(_, value)| value.trim())
}

/// Readable times, in UTC.
pub(crate) fn when(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

pub(crate) fn when_opt(at: &Option<chrono::DateTime<chrono::Utc>>) -> String {
    at.as_ref().map_or_else(|| "none".to_owned(), when)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_stays_in_the_console() {
        assert_eq!(safe_next(Some("/gm/zines/a")), "/gm/zines/a");
        assert_eq!(safe_next(Some("/gm?x=1")), "/gm?x=1");
        for bad in [
            "//evil.example/gm",
            "https://evil.example",
            "/gmx",
            "/gm//evil",
            "/gm/login",
            "/gm/\\evil",
            "/gm/\r\nSet-Cookie: x=1",
            "/gm/\n",
            "/gm/\t",
            "/gm/\u{7f}",
            "/gm/\0",
            "/gm/é",
            "/gm/ x",
            "/gm/../../evil",
            "",
        ] {
            assert_eq!(safe_next(Some(bad)), "/gm", "{bad}");
        }
        assert_eq!(safe_next(None), "/gm");
    }
}
