//! Gathering what an issue prints, from public rows only: the published reports (the text and
//! HTML every reader sees on the turn's page, its revealed seed), each game's next deadline, the
//! games open for sign-up and the letters the GM approved. Nothing here reads a game's state,
//! orders or unrevealed seeds.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use store::archive::PublicGame;
use store::issues::{Issue, LetterId, UnprintedReport};
use store::status::GameStatus;
use store::zines::Zine;

use super::render::{GameSection, IssueContents, PrintedLetter, ReportSection};
use super::sign_ups::games_open_for_sign_up;

/// An issue's contents, and the rows it prints (so publishing marks exactly these).
pub struct Gathered {
    pub contents: IssueContents,
    pub report_turns: Vec<store::turns::TurnId>,
    pub letters: Vec<LetterId>,
}

/// What the draft `issue` of `zine` prints if it comes out at `date`. Links start with `base`
/// (the site's public URL for mail; empty for the site's own pages).
pub async fn gather(
    db: &mut sqlx::PgConnection,
    zine: &Zine,
    issue: &Issue,
    date: DateTime<Utc>,
    base: &str,
) -> Result<Gathered, store::StoreError> {
    let reports = store::issues::unprinted_reports(&mut *db, zine.id).await?;
    let letters = store::issues::unprinted_letters(&mut *db, zine.id).await?;
    let games = store::archive::games(&mut *db, zine.id).await?;
    let mut sections = Vec::new();
    for game in &games {
        let own: Vec<&UnprintedReport> = reports.iter().filter(|r| r.game_id == game.id).collect();
        let live = matches!(game.status, GameStatus::Running | GameStatus::Paused);
        if own.is_empty() && !live {
            continue;
        }
        let zone = store::games::schedule(&mut *db, game.id)
            .await?
            .map_or(Tz::UTC, |schedule| schedule.zone());
        let game_url = format!("{base}/zines/{}/games/{}", zine.slug, game.id);
        sections.push(GameSection {
            name: game.name.clone(),
            rules: game.engine.title().to_owned(),
            reports: own
                .iter()
                .map(|report| ReportSection {
                    turn: report.number,
                    url: format!("{game_url}/turns/{}", report.number),
                    board_url: format!("{game_url}/turns/{}/board.svg", report.number),
                    text: report.text.clone(),
                    html: report.html.clone(),
                    seed: report.revealed_seed.clone(),
                })
                .collect(),
            url: game_url,
            next_deadline: next_deadline(game, zone),
        });
    }
    let sign_ups = games_open_for_sign_up(&mut *db, zine.id).await?;
    Ok(Gathered {
        contents: IssueContents {
            zine_name: zine.name.clone(),
            number: issue.number,
            date,
            editorial: issue.editorial.clone(),
            games: sections,
            sign_ups,
            letters: letters
                .iter()
                .map(|letter| PrintedLetter {
                    writer: letter.writer.clone(),
                    text: letter.text.clone(),
                })
                .collect(),
        },
        report_turns: reports.iter().map(|r| r.turn_id).collect(),
        letters: letters.iter().map(|l| l.id).collect(),
    })
}

/// The time zone a game's deadlines are set in: a weekly schedule's; otherwise none (UTC).
/// The game's next deadline as the issue prints it: on the local clock of its zone, with UTC
/// beside it; or why there is none.
fn next_deadline(game: &PublicGame, zone: Tz) -> String {
    match (game.status, game.open_deadline) {
        (GameStatus::Finished, _) => "none: the game is over".to_owned(),
        (GameStatus::Paused, _) => "none while the GM has the game paused".to_owned(),
        (_, None) => "not set yet".to_owned(),
        (_, Some(at)) => crate::letters::deadline(at, zone),
    }
}
