//! A game's portable record (docs/record.md): `gm game ID export` and the public page's
//! download. Only what a reader may see while the game runs; a finished game's states, orders
//! and sealed seeds besides, so anyone can replay it (`admiralty-verify`, the `record` crate).

use record::{GameInfo, GameRecord, OpenTurn, Replay, ReportName, TurnRecord};
use serde_json::value::RawValue;
use store::PgPool;
use store::archive::PublicGame;
use store::games::GameId;
use store::status::GameStatus;

use super::{LifecycleError, player_id, recorded_input, turn_number};

/// The record of a game by its id alone (the command line), or `None` when there is no such game.
pub async fn export_game(
    pool: &PgPool,
    game: GameId,
) -> Result<Option<GameRecord>, LifecycleError> {
    let Some(summary) = store::games::summary(pool, game).await? else {
        return Ok(None);
    };
    let Some(public) = store::archive::game(pool, summary.zine_id, game).await? else {
        return Ok(None);
    };
    Ok(Some(
        export_public(pool, &summary.zine_slug, &public).await?,
    ))
}

/// The record of a game as its public page knows it. While the game runs, the record holds
/// exactly what the public pages show: each published report, its commitments and revealed
/// open seed, and the open turn's commitments; no state, no orders, no sealed seed.
pub async fn export_public(
    pool: &PgPool,
    zine_slug: &str,
    public: &PublicGame,
) -> Result<GameRecord, LifecycleError> {
    let game = public.id;
    let finished = public.status == GameStatus::Finished;
    let engine = public.engine;
    let raw = |text: String| {
        RawValue::from_string(text).map_err(|e| LifecycleError::inconsistent(game, e.to_string()))
    };
    let mut db = pool.acquire().await?;
    let mut turns = Vec::new();
    for turn in store::turns::published_for_replay(&mut *db, game).await? {
        let number = turn_number(turn.number, game)?;
        let replay = if finished {
            let state_before = raw(turn.state_before)?;
            Some(replay_input(&mut db, engine, game, (turn.id, number), state_before).await?)
        } else {
            None
        };
        turns.push(TurnRecord {
            number,
            seed_commitment: turn.seed_commitment,
            revealed_seed: turn.revealed_seed,
            sealed_commitment: turn.sealed_commitment,
            // Revealed only when the game ends; never the secret's while it runs.
            revealed_sealed_seed: turn.revealed_sealed_seed.filter(|_| finished),
            report: turn.text,
            replay,
        });
    }
    let open_turn = match (public.open_turn, &public.open_seed_commitment) {
        (Some(number), Some(commitment)) if !finished => Some(OpenTurn {
            number: turn_number(number, game)?,
            seed_commitment: commitment.clone(),
            sealed_commitment: public.open_sealed_commitment.clone(),
        }),
        _ => None,
    };
    let final_state = if finished {
        let stored = store::games::for_replay(&mut *db, game)
            .await?
            .ok_or(LifecycleError::GameNotFound(game))?;
        Some(raw(stored.state)?)
    } else {
        None
    };
    Ok(GameRecord {
        format: record::FORMAT.to_owned(),
        version: record::VERSION,
        game: GameInfo {
            // The store keeps ids opaque; their text is the number.
            id: game.to_string().parse().unwrap_or_default(),
            name: public.name.clone(),
            zine: zine_slug.to_owned(),
            engine,
            finished,
        },
        turns,
        open_turn,
        final_state,
    })
}

/// A published turn's input as the resolution read it.
async fn replay_input(
    db: &mut sqlx::PgConnection,
    engine: games::EngineKind,
    game: GameId,
    (turn, number): (store::turns::TurnId, u32),
    state_before: Box<RawValue>,
) -> Result<Replay, LifecycleError> {
    let (input, press) = recorded_input(db, engine, turn).await?;
    let mut orders = std::collections::BTreeMap::new();
    for (player, any) in input.orders {
        orders.insert(player, any.to_json()?);
    }
    let report_names = store::replacements::names_at_turn(&mut *db, game, number)
        .await?
        .into_iter()
        .map(|(id, name, replacing)| ReportName {
            player: player_id(id),
            name,
            replacing,
        })
        .collect();
    Ok(Replay {
        state_before,
        orders,
        joining: input.joining,
        leaving: input.leaving,
        excused: input.excused,
        renames: input.renames,
        press,
        report_names,
    })
}
