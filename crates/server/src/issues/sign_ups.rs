//! The "games open for sign-up" section, from one function: the games a GM opened for
//! sign-up with free seats (issue 18, docs/rosters.md), and the running Barmy games, which every
//! subscriber of the zine joins at their next turn (BARMY-02, BARMY-GM-11).

use games::EngineKind;
use store::status::GameStatus;

use super::render::SignUp;

/// The zine's games a reader may still join, as the issue lists them: openings first, in the
/// order they were opened, then the running Barmy games.
pub async fn games_open_for_sign_up(
    db: &mut sqlx::PgConnection,
    zine: store::zines::ZineId,
) -> Result<Vec<SignUp>, store::StoreError> {
    let openings = store::signups::open_for_signup(&mut *db, zine).await?;
    let mut sign_ups: Vec<SignUp> = openings
        .into_iter()
        .filter_map(|opening| {
            let free = i64::from(opening.seats).saturating_sub(opening.signed);
            (free > 0).then(|| SignUp {
                rules: opening.engine.title().to_owned(),
                how: format!(
                    "{free} of {} seats free: send \"JOIN {}\" by mail, or use Sign up on your \
                     player page.",
                    opening.seats, opening.name
                ),
                name: opening.name,
            })
        })
        .collect();
    let games = store::archive::games(&mut *db, zine).await?;
    sign_ups.extend(
        games
            .into_iter()
            .filter(|game| game.status == GameStatus::Running)
            .filter(|game| game.engine == EngineKind::Barmy)
            .map(|game| SignUp {
                name: game.name,
                rules: EngineKind::Barmy.title().to_owned(),
                how: "every subscriber of the zine plays: subscribe and you join at the next turn."
                    .to_owned(),
            }),
    );
    Ok(sign_ups)
}
