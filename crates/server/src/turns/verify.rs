//! Replaying published turns (`gm verify`), and the GM's preview of the open turn.

use store::PgPool;
use store::games::GameId;
use store::status::PlayerStatus;

use super::{LifecycleError, game_secret, player_id, recorded_input, turn_number};

/// What `gm verify` found for one published turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnCheck {
    pub turn: u32,
    /// Where the sealed seed came from: the published one (a finished game) or the GM's secret.
    pub sealed_from: &'static str,
    pub matches: bool,
}

/// Replays every published turn of a game from its stored state, orders, press and seeds, and
/// compares the report byte for byte with what was published. Stops at the first mismatch.
/// The open seed is always the published one, checked against its commitment; for a game still
/// running the sealed seed comes from the game's secret (the GM's view).
pub async fn verify_game(pool: &PgPool, game: GameId) -> Result<Vec<TurnCheck>, LifecycleError> {
    let stored = store::games::for_replay(pool, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    let engine = stored.engine;
    let secret = game_secret(&stored.secret_seed, game)?;
    let inconsistent = |reason: String| LifecycleError::inconsistent(game, reason);
    let mut db = pool.acquire().await?;
    let mut checks = Vec::new();
    for turn in store::turns::published_for_replay(pool, game).await? {
        let number = turn_number(turn.number, game)?;
        let seed = engine::TurnSeed::parse_hex(&turn.revealed_seed)
            .map_err(|e| inconsistent(e.to_string()))?;
        let (sealed, sealed_from) = match &turn.revealed_sealed_seed {
            Some(hex) => (
                engine::TurnSeed::parse_hex(hex).map_err(|e| inconsistent(e.to_string()))?,
                "published",
            ),
            None => (secret.sealed_seed(number), "secret"),
        };
        let commitments_hold = seed.matches(&turn.seed_commitment)
            && turn
                .sealed_commitment
                .as_deref()
                .is_none_or(|c| sealed.matches(c));
        let (input, press) = recorded_input(&mut db, engine, turn.id).await?;
        let state = engine.parse_state_text(&turn.state_before)?;
        let renames = store::replacements::names_at_turn(&mut *db, game, number).await?;
        let roster = state.roster();
        let mut replay = state.resolve(
            input,
            &press,
            &mut engine::TurnDice::from_seeds(&seed, &sealed),
        )?;
        games::renames::rename_rows(
            &mut replay.report,
            &roster,
            &replay.state.roster(),
            &renames,
        );
        let matches = commitments_hold && replay.report.to_text() == turn.text;
        checks.push(TurnCheck {
            turn: number,
            sealed_from,
            matches,
        });
        if !matches {
            break;
        }
    }
    Ok(checks)
}

/// What resolving the open turn now would give: the engine run in memory on the stored state,
/// the orders and press in so far, the players who have left, and the turn's own dice, so the
/// preview is what the resolution would publish if nothing else arrived. Nothing is written.
/// For the GM's eyes only (it uses the sealed dice).
pub async fn preview_turn(
    pool: &PgPool,
    game: GameId,
) -> Result<(u32, games::Resolved), LifecycleError> {
    let mut db = pool.acquire().await?;
    let stored = store::games::for_replay(&mut *db, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    let turn = store::turns::open_of_game(&mut *db, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game))?;
    let engine = stored.engine;
    let secret = game_secret(&stored.secret_seed, game)?;
    let number = turn_number(turn.number, game)?;
    let (mut input, press) = recorded_input(&mut db, engine, turn.id).await?;
    // As the resolution will: whoever is not active by then has left.
    input.leaving = store::players::of_game(&mut *db, game)
        .await?
        .into_iter()
        .filter(|p| p.status != PlayerStatus::Active)
        .map(|p| player_id(p.engine_player_id))
        .collect();
    input.renames = store::replacements::taking_effect(&mut *db, game, number)
        .await?
        .into_iter()
        .map(|(id, name)| engine::Player {
            id: player_id(id),
            name,
        })
        .collect();
    let state = engine.parse_state_text(&stored.state)?;
    let renames = store::replacements::names_at_turn(&mut *db, game, number).await?;
    let roster = state.roster();
    let mut resolved = state.resolve(input, &press, &mut secret.turn_dice(number))?;
    games::renames::rename_rows(
        &mut resolved.report,
        &roster,
        &resolved.state.roster(),
        &renames,
    );
    Ok((number, resolved))
}
