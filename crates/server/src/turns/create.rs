//! Starting a game: the roster, the dice secret, the engine's first state and turn 1 opened
//! with the public commitments to its seeds.

use chrono::{DateTime, Utc};
use engine::{GameSecret, Player, PlayerId};
use games::EngineKind;
use serde_json::{Value, json};
use store::PgPool;
use store::games::{GameId, NewGame};
use store::players::NewPlayer;
use store::status::SubscriberStatus;
use store::turns::NewTurn;
use store::zines::ZineId;

use super::{LifecycleError, ScheduleSettings};
use crate::entropy::{Entropy, new_reply_token};
use crate::schedule::Schedule;

/// A game the GM starts.
#[derive(Debug, Clone)]
pub struct GameSpec<'a> {
    pub zine: ZineId,
    pub name: &'a str,
    pub engine: EngineKind,
    pub setup: &'a Value,
    pub first_deadline: Option<DateTime<Utc>>,
    pub schedule: Schedule,
}

/// Starts a game with every active subscriber of the zine as a player (BARMY-02), and opens
/// turn 1 with the public commitments to its seeds.
pub async fn create_game(
    pool: &PgPool,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    entropy: &mut impl Entropy,
) -> Result<GameId, LifecycleError> {
    create_game_as(pool, now, spec, entropy, "gm").await
}

/// [`create_game`], audited as done by `actor` (the GM console names the GM).
pub async fn create_game_as(
    pool: &PgPool,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    entropy: &mut impl Entropy,
    actor: &str,
) -> Result<GameId, LifecycleError> {
    let mut tx = pool.begin().await?;
    let game = create_game_in(&mut tx, now, spec, entropy, actor).await?;
    tx.commit().await?;
    Ok(game)
}

/// [`create_game_as`] for a game whose deadlines are shown and typed in `zone` (a weekly
/// schedule keeps its own zone), in one transaction.
pub async fn create_game_in_zone(
    pool: &PgPool,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    zone: chrono_tz::Tz,
    entropy: &mut impl Entropy,
    actor: &str,
) -> Result<GameId, LifecycleError> {
    let mut tx = pool.begin().await?;
    let game = create_game_in(&mut tx, now, spec, entropy, actor).await?;
    let settings = ScheduleSettings::from(spec.schedule).with_zone(zone);
    store::games::set_schedule(&mut *tx, game, &settings.to_json()).await?;
    tx.commit().await?;
    Ok(game)
}

/// [`create_game_as`] inside the caller's transaction.
pub(crate) async fn create_game_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    spec: &GameSpec<'_>,
    entropy: &mut impl Entropy,
    actor: &str,
) -> Result<GameId, LifecycleError> {
    let subscribers: Vec<_> = store::subscribers::list_for_zine(&mut *tx, spec.zine)
        .await?
        .into_iter()
        .filter(|s| s.status == SubscriberStatus::Active)
        .collect();
    if subscribers.is_empty() {
        return Err(LifecycleError::NoPlayers);
    }
    let roster: Vec<Player> = subscribers
        .iter()
        .zip(1u64..)
        .map(|(s, id)| Player {
            id: PlayerId(id),
            name: s.display_name.as_str().to_owned(),
        })
        .collect();
    let mut secret = [0u8; 32];
    entropy.fill(&mut secret);
    let game_secret = GameSecret::from_bytes(secret);
    let setup = spec.engine.parse_setup(spec.setup)?;
    let state = spec
        .engine
        .new_game(&setup, &roster, &mut game_secret.turn_dice(0))?;
    let state_json = state.to_json()?;
    let game = store::games::insert_game(
        &mut *tx,
        &NewGame {
            zine_id: spec.zine,
            name: spec.name,
            engine: spec.engine.name(),
            setup: &setup,
            state: &state_json,
            secret: &secret,
        },
        now,
    )
    .await?;
    store::games::set_schedule(
        &mut *tx,
        game,
        &ScheduleSettings::from(spec.schedule).to_json(),
    )
    .await?;
    let tokens: Vec<String> = roster.iter().map(|_| new_reply_token(entropy)).collect();
    let players: Vec<NewPlayer<'_>> = subscribers
        .iter()
        .zip(&roster)
        .zip(&tokens)
        .map(|((subscriber, player), token)| NewPlayer {
            game_id: game,
            subscriber_id: subscriber.id,
            display_name: &player.name,
            engine_player_id: player.id.0,
            reply_token: token,
            joined_turn: 1,
        })
        .collect();
    store::players::insert_many(&mut *tx, &players).await?;
    let first = state.turn();
    store::turns::open_turn(
        &mut *tx,
        &NewTurn {
            game_id: game,
            number: first,
            deadline: spec
                .first_deadline
                .or_else(|| spec.schedule.next_deadline(None, now)),
            seed_commitment: &game_secret.turn_seed(first).commitment(),
            sealed_commitment: &game_secret.sealed_seed(first).commitment(),
            state_before: &state_json,
        },
        now,
    )
    .await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "game.create",
            game_id: Some(game.0),
            details: json!({ "name": spec.name, "engine": spec.engine.name(), "players": roster.len() }),
        },
        now,
    )
    .await?;
    Ok(game)
}
