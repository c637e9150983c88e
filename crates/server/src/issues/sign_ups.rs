//! The "games open for sign-up" section, from one function.
//!
//! What exists today: Barmy games enrol every active subscriber of the zine at their next turn
//! (BARMY-02, BARMY-GM-11), so a running Barmy game is open to any reader who subscribes; the
//! other engines take players only when the GM starts a game. When per-game sign-ups land
//! (issue 18), this function is the one place to read them from.

use games::EngineKind;
use store::status::GameStatus;

use super::render::SignUp;

/// The zine's games a reader may still join, as the issue lists them.
pub async fn games_open_for_sign_up(
    db: &mut sqlx::PgConnection,
    zine: store::zines::ZineId,
) -> Result<Vec<SignUp>, store::StoreError> {
    let games = store::archive::games(&mut *db, zine).await?;
    Ok(games
        .into_iter()
        .filter(|game| game.status == GameStatus::Running)
        .filter(|game| matches!(game.engine.parse::<EngineKind>(), Ok(EngineKind::Barmy)))
        .map(|game| SignUp {
            name: game.name,
            rules: EngineKind::Barmy.title().to_owned(),
            how: "every subscriber of the zine plays: subscribe and you join at the next turn."
                .to_owned(),
        })
        .collect())
}
