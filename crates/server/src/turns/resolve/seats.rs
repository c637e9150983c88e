//! Who plays the turn being resolved: subscribers who left, seats that changed hands, new
//! subscribers who join, players away. Each is recorded with the turn, so `gm verify` replays
//! the same input.

use chrono::{DateTime, Utc};
use engine::{Player, PlayerId};
use games::EngineKind;
use store::games::{GameForTurn, GameId};
use store::players::NewPlayer;
use store::status::PlayerStatus;
use store::turns::DueTurn;

use crate::entropy::{Entropy, OsEntropy, new_reply_token};
use crate::lifecycle::{LifecycleError, player_id};

/// Records with the turn who leaves, who is renamed and who joins, and applies absences.
/// Returns how many players leave.
pub(super) async fn settle_who_plays(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    game: &GameForTurn,
    number: u32,
    now: DateTime<Utc>,
) -> Result<usize, LifecycleError> {
    // A subscriber who is no longer active leaves; in an engine where every subscriber plays,
    // a new subscriber joins (BARMY-02, BARMY-GM-11).
    store::players::retire_lapsed_subscribers(&mut *tx, game.id).await?;
    let leaving: Vec<i64> = store::players::of_game(&mut *tx, game.id)
        .await?
        .iter()
        .filter(|p| p.status != PlayerStatus::Active)
        .map(|p| p.engine_player_id)
        .collect();
    store::turns::set_leaving(&mut *tx, due.id, &leaving).await?;
    // Seats that changed hands with this turn take their new holders' names in the engine.
    let renaming: Vec<Player> = store::replacements::taking_effect(&mut *tx, game.id, number)
        .await?
        .into_iter()
        .map(|(id, name)| Player {
            id: player_id(id),
            name,
        })
        .collect();
    store::turns::set_renaming(&mut *tx, due.id, &renaming).await?;
    if enrols_every_subscriber(game.engine) {
        let joining = enrol_new_subscribers(&mut *tx, game.id, number + 1, &mut OsEntropy).await?;
        store::turns::set_joining(&mut *tx, due.id, &joining).await?;
    }
    crate::turns::absences::apply_at_resolution(
        &mut *tx,
        due,
        game.engine,
        game.schedule.zone(),
        now,
    )
    .await?;
    Ok(leaving.len())
}

/// Engines in which every subscriber of the zine plays, whether they asked or not (BARMY-02):
/// a new subscriber joins at the next turn (BARMY-GM-11). The others take players by sign-up.
fn enrols_every_subscriber(engine: EngineKind) -> bool {
    matches!(engine, EngineKind::Barmy)
}

/// Makes every active subscriber of the zine who has never played the game a player from turn
/// `first_turn`, with a fresh reply token, as `create_game` does. Returns them as the engine's
/// joiners, in the order of their engine ids.
async fn enrol_new_subscribers(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    first_turn: u32,
    entropy: &mut impl Entropy,
) -> Result<Vec<Player>, LifecycleError> {
    let newcomers = store::players::unenrolled_subscribers(&mut *tx, game).await?;
    if newcomers.is_empty() {
        return Ok(Vec::new());
    }
    let last = store::players::max_engine_player_id(&mut *tx, game).await?;
    let mut joining = Vec::with_capacity(newcomers.len());
    for (newcomer, id) in newcomers.iter().zip(last.saturating_add(1)..) {
        let engine_id = u64::try_from(id)
            .map_err(|_| LifecycleError::inconsistent(game, "negative player id"))?;
        joining.push((newcomer, engine_id, new_reply_token(entropy)));
    }
    let rows: Vec<NewPlayer<'_>> = joining
        .iter()
        .map(|(newcomer, engine_id, token)| NewPlayer {
            game_id: game,
            subscriber_id: newcomer.subscriber_id,
            display_name: &newcomer.display_name,
            engine_player_id: *engine_id,
            reply_token: token,
            joined_turn: first_turn,
            seat: None,
        })
        .collect();
    store::players::insert_many(&mut *tx, &rows).await?;
    Ok(joining
        .into_iter()
        .map(|(newcomer, engine_id, _)| Player {
            id: PlayerId(engine_id),
            name: newcomer.display_name.clone(),
        })
        .collect())
}
