//! A zine's front page: its games with their state, each game's latest report, its issues
//! and its games open for sign-up.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use store::zines::Zine;

use super::super::find_zine;
use super::{GameSummary, HTML, ReportView, cached, report_view, turn_path};
use crate::web::Path;
use crate::{AppError, AppState};

#[derive(Template)]
#[template(path = "public/zine.html")]
struct ZinePage {
    zine: Zine,
    /// The published issues, newest first: (number, date).
    issues: Vec<(i32, String)>,
    games: Vec<GameSummary>,
    latest: Vec<ReportView>,
    /// Games open for sign-up: name, rules, free seats, seats, the seating commitment.
    signups: Vec<SignupView>,
}

/// A game open for sign-up, as readers of the zine see it (no queue names, no secret).
struct SignupView {
    name: String,
    engine: String,
    free: i64,
    seats: i32,
    seating_commitment: Option<String>,
}

/// A zine's games with their state, and each game's latest report.
pub(crate) async fn get_zine(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    cached(&state, &uri, &headers, HTML, || async {
        let zine = find_zine(&state, &slug).await?;
        let front = crate::views::archive::zine_front(&state.pool, zine.id).await?;
        let latest = front
            .latest
            .iter()
            .map(|latest| {
                report_view(
                    format!("{}, turn {}", latest.game_name, latest.number),
                    turn_path(&zine, latest.game, latest.number),
                    &latest.turn,
                )
            })
            .collect();
        let games = front
            .games
            .iter()
            .map(|g| GameSummary::new(&zine, g))
            .collect();
        let issues = front
            .issues
            .iter()
            .filter_map(|i| Some((i.number, i.published_at?.format("%-d %B %Y").to_string())))
            .collect();
        let signups = front
            .signups
            .iter()
            .map(|o| SignupView {
                name: o.name.clone(),
                engine: o.engine.name().to_owned(),
                free: i64::from(o.seats).saturating_sub(o.signed).max(0),
                seats: o.seats,
                seating_commitment: crate::rosters::signups::seating_commitment(o),
            })
            .collect();
        Ok(ZinePage {
            signups,
            zine,
            issues,
            games,
            latest,
        }
        .render()?)
    })
    .await
}
