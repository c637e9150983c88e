//! The GM replaces a player with a standby or any active subscriber (`crate::rosters::replace`).

use axum::extract::State;
use axum::response::Redirect;
use store::games::GameId;
use store::subscribers::SubscriberId;

use super::{Gm, field, find_game};
use crate::rosters::replace::{Replacement, replace_player};
use crate::web::Path;
use crate::web::csrf::CsrfForm;
use crate::{AppError, AppState};

/// Who may take a seat: the zine's standbys first (marked), then every other active
/// subscriber who does not play the game; (subscriber id, label).
pub(super) async fn candidates(
    state: &AppState,
    game: &store::games::GameSummary,
) -> Result<Vec<(SubscriberId, String)>, AppError> {
    let standbys =
        store::replacements::standbys_for_game(&state.pool, game.zine_id, game.id).await?;
    let mut out: Vec<(SubscriberId, String)> = standbys
        .iter()
        .map(|s| (s.subscriber_id, format!("{} (standby)", s.display_name)))
        .collect();
    for other in store::players::unenrolled_subscribers(&state.pool, game.id).await? {
        if !standbys
            .iter()
            .any(|s| s.subscriber_id == other.subscriber_id)
        {
            out.push((other.subscriber_id, other.display_name));
        }
    }
    Ok(out)
}

pub(crate) async fn post_replace(
    State(state): State<AppState>,
    gm: Gm,
    Path(id): Path<GameId>,
    CsrfForm(pairs): CsrfForm<Vec<(String, String)>>,
) -> Result<Redirect, AppError> {
    let game = find_game(&state, id).await?;
    let subscriber = field(&pairs, "subscriber")
        .parse::<SubscriberId>()
        .map_err(|_| AppError::BadRequest("choose who takes the seat".into()))?;
    replace_player(
        &state.pool,
        state.clock.now(),
        &Replacement {
            game: id,
            player: field(&pairs, "player"),
            subscriber,
        },
        &gm.actor(),
        &state.mail_domain,
        &mut crate::entropy::OsEntropy,
    )
    .await
    .map_err(super::lifecycle_error)?;
    Ok(Redirect::to(&format!(
        "/gm/games/{}?done=replaced",
        game.id
    )))
}
