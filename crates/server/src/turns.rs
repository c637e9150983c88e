//! The turn lifecycle's core: starting a game, taking orders, and resolving every turn whose
//! deadline has passed — exactly once, even with several `gm serve` processes on one database
//! or a process killed mid-way.
//!
//! Exactly once comes from the database, not from memory: a due turn is claimed with
//! `FOR UPDATE SKIP LOCKED`, and its resolution, report, revealed seed, next turn and queued mail
//! are written in that one transaction. A process killed before the commit leaves the turn as it
//! was; after the commit the turn is no longer open, so nobody claims it again.

use chrono::{DateTime, Duration, Utc};
use engine::{GameSecret, ParsedOrders, Player, PlayerId, TurnInput, Viewer};
use games::{EngineKind, GameError, PressItem};
use serde_json::{Value, json};
use store::games::{
    self as rows, GameId, NewGame, NewOrders, NewPlayer, NewReport, NewTurn, PlayerRowId, TurnId,
};
use store::outbox::{self, NewOutbound};
use store::zines::ZineId;
use store::{PgPool, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("the zine has no active subscriber to play")]
    NoPlayers,
    #[error("game {0} has no open turn")]
    NoOpenTurn(i64),
    #[error("the deadline ({0}) has passed: orders are locked until the turn is resolved")]
    DeadlinePassed(DateTime<Utc>),
    #[error("stored game {game} is inconsistent: {reason}")]
    Inconsistent { game: i64, reason: String },
}

impl From<sqlx::Error> for LifecycleError {
    fn from(error: sqlx::Error) -> Self {
        LifecycleError::Store(StoreError::from(error))
    }
}

/// The engine's id of a player, as stored (a non-negative bigint).
pub(crate) fn player_id(stored: i64) -> PlayerId {
    PlayerId(u64::try_from(stored).unwrap_or_default())
}

/// The game's dice secret, as stored.
fn game_secret(stored: &[u8], game: GameId) -> Result<GameSecret, LifecycleError> {
    let bytes: [u8; 32] = stored
        .try_into()
        .map_err(|_| LifecycleError::Inconsistent {
            game: game.0,
            reason: "secret is not 32 bytes".into(),
        })?;
    Ok(GameSecret::from_bytes(bytes))
}

/// A turn's input as recorded: the orders that count, who had left, and the press in the order
/// received. Resolution and `gm verify` both read it here, so a replay sees what the
/// resolution saw.
async fn recorded_input(
    db: &mut sqlx::PgConnection,
    turn: TurnId,
) -> Result<(TurnInput<Value>, Vec<PressItem>), LifecycleError> {
    let mut input = TurnInput::default();
    for (player, orders) in rows::current_orders(&mut *db, turn).await? {
        input.orders.insert(player_id(player), orders);
    }
    input.leaving = rows::leaving(&mut *db, turn)
        .await?
        .into_iter()
        .map(player_id)
        .collect();
    let press = rows::turn_press(&mut *db, turn)
        .await?
        .into_iter()
        .map(|(player, text)| PressItem {
            player: player_id(player),
            text,
        })
        .collect();
    Ok((input, press))
}

/// How deadlines follow one another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// The GM sets each deadline.
    Manual,
    /// Each deadline falls this many days after the one before.
    EveryDays(u32),
}

impl Schedule {
    pub fn to_json(self) -> Value {
        match self {
            Schedule::Manual => json!({ "kind": "manual" }),
            Schedule::EveryDays(days) => json!({ "kind": "every_days", "days": days }),
        }
    }

    pub fn from_json(value: &Value) -> Schedule {
        match (
            value.get("kind").and_then(Value::as_str),
            value.get("days").and_then(Value::as_u64),
        ) {
            (Some("every_days"), Some(days)) => {
                Schedule::EveryDays(u32::try_from(days).unwrap_or(u32::MAX))
            }
            _ => Schedule::Manual,
        }
    }

    fn next_deadline(self, previous: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
        match self {
            Schedule::Manual => None,
            Schedule::EveryDays(days) => previous.map(|at| at + Duration::days(i64::from(days))),
        }
    }
}

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

/// Where randomness comes from: the operating system in service, a fixed stream in tests.
pub trait Entropy {
    fn fill(&mut self, bytes: &mut [u8]);
}

/// The operating system's randomness.
pub struct OsEntropy;

impl Entropy for OsEntropy {
    fn fill(&mut self, bytes: &mut [u8]) {
        // The OS generator failing is not something a game can carry on from.
        #[allow(clippy::expect_used, reason = "no randomness, no secure game")]
        getrandom::fill(bytes).expect("the operating system's random number generator failed");
    }
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
    let subscribers: Vec<_> = store::subscribers::list_for_zine(&mut *tx, spec.zine)
        .await?
        .into_iter()
        .filter(|s| s.status == store::subscribers::SubscriberStatus::Active)
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
    let game = rows::insert_game(
        &mut *tx,
        &NewGame {
            zine_id: spec.zine,
            name: spec.name,
            engine: spec.engine.name(),
            setup: &setup,
            state: &state,
            secret: &secret,
        },
        now,
    )
    .await?;
    rows::set_schedule(&mut *tx, game, &spec.schedule.to_json()).await?;
    for (subscriber, player) in subscribers.iter().zip(&roster) {
        let mut token = [0u8; 20];
        entropy.fill(&mut token);
        let token = hex::encode(token);
        let new = NewPlayer {
            game_id: game,
            subscriber_id: subscriber.id,
            display_name: &player.name,
            engine_player_id: player.id.0,
            reply_token: &token,
            joined_turn: 1,
        };
        rows::insert_player(&mut *tx, &new).await?;
    }
    let first = spec.engine.turn(&state)?;
    rows::open_turn(
        &mut *tx,
        &NewTurn {
            game_id: game,
            number: first,
            deadline: spec.first_deadline,
            seed_commitment: &game_secret.turn_seed(first).commitment(),
            sealed_commitment: &game_secret.sealed_seed(first).commitment(),
            state_before: &state,
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
    tx.commit().await?;
    Ok(game)
}

/// Takes one player's orders for the game's open turn: stored raw and parsed, superseding any
/// earlier set, with the press they carry. Returns how the engine read them, for the
/// confirmation.
pub async fn submit_orders(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    player: PlayerRowId,
    text: &str,
    source: &str,
) -> Result<ParsedOrders<Value>, LifecycleError> {
    let mut tx = pool.begin().await?;
    let parsed = submit_orders_in(&mut tx, now, game, player, text, source).await?;
    tx.commit().await?;
    Ok(parsed)
}

/// [`submit_orders`] inside the caller's transaction (mail: with the message's other effects).
pub async fn submit_orders_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    game: GameId,
    player: PlayerRowId,
    text: &str,
    source: &str,
) -> Result<ParsedOrders<Value>, LifecycleError> {
    type OpenTurn = (TurnId, String, Value, i64, Option<DateTime<Utc>>);
    let (turn_id, engine, state, engine_player_id, deadline): OpenTurn = sqlx::query_as(
        "SELECT t.id, g.engine, t.state_before, p.engine_player_id, t.deadline FROM turns t \
         JOIN games g ON g.id = t.game_id JOIN players p ON p.game_id = g.id AND p.id = $2 \
         WHERE t.game_id = $1 AND t.status = 'open' FOR UPDATE OF t",
    )
    .bind(game)
    .bind(player)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    // At the deadline orders are locked, even before the worker has resolved the turn.
    if let Some(deadline) = deadline
        && deadline <= now
    {
        return Err(LifecycleError::DeadlinePassed(deadline));
    }
    let engine: EngineKind = engine.parse()?;
    let engine_player = player_id(engine_player_id);
    let parsed = engine.parse_orders(&state, engine_player, text)?;
    rows::save_orders(
        &mut *tx,
        &NewOrders {
            game_id: game,
            turn_id,
            player_id: player,
            raw_text: text,
            parsed: &parsed.orders,
            source,
        },
        now,
    )
    .await?;
    for press in &parsed.press {
        rows::save_press(&mut *tx, game, turn_id, player, press, source, now).await?;
    }
    Ok(parsed)
}

/// Press sent on its own (a PRESS command), for the game's open turn.
pub async fn submit_press_in(
    tx: &mut sqlx::PgConnection,
    now: DateTime<Utc>,
    game: GameId,
    player: PlayerRowId,
    text: &str,
    source: &str,
) -> Result<(), LifecycleError> {
    let turn: TurnId =
        sqlx::query_scalar("SELECT id FROM turns WHERE game_id = $1 AND status = 'open'")
            .bind(game)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    rows::save_press(&mut *tx, game, turn, player, text, source, now).await?;
    Ok(())
}

/// One turn resolved by this call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedTurn {
    pub game: GameId,
    pub turn: u32,
    pub finished: bool,
    pub mails_queued: usize,
}

/// Resolves, publishes and mails every turn whose deadline is at or before `now`, one
/// transaction per turn. Several processes may run this at once: each turn is done once.
pub async fn resolve_due(
    pool: &PgPool,
    now: DateTime<Utc>,
    mail_domain: &str,
) -> Result<Vec<ResolvedTurn>, LifecycleError> {
    let mut done = Vec::new();
    while let Some(turn) = resolve_one_due(pool, now, mail_domain).await? {
        done.push(turn);
    }
    Ok(done)
}

async fn resolve_one_due(
    pool: &PgPool,
    now: DateTime<Utc>,
    mail_domain: &str,
) -> Result<Option<ResolvedTurn>, LifecycleError> {
    let mut tx = pool.begin().await?;
    let Some(due) = rows::claim_due_turn(&mut tx, now).await? else {
        return Ok(None);
    };
    let game = rows::game_for_turn(&mut tx, due.game_id).await?;
    let inconsistent = |reason: String| LifecycleError::Inconsistent {
        game: game.id.0,
        reason,
    };
    let engine: EngineKind = game.engine.parse()?;
    let secret = game_secret(&game.secret_seed, game.id)?;
    let number =
        u32::try_from(due.number).map_err(|_| inconsistent("negative turn number".into()))?;
    if engine.turn(&game.state)? != number {
        return Err(inconsistent(format!("the state is not at turn {number}")));
    }

    let players = rows::players(&mut *tx, game.id).await?;
    let leaving: Vec<i64> = players
        .iter()
        .filter(|p| p.status != "active")
        .map(|p| p.engine_player_id)
        .collect();
    rows::set_leaving(&mut *tx, due.id, &leaving).await?;
    let (input, press) = recorded_input(&mut tx, due.id).await?;

    let resolved = engine.resolve(&game.state, &input, &press, &mut secret.turn_dice(number))?;
    let seed = secret.turn_seed(number);
    rows::mark_resolved(&mut *tx, due.id, &seed.to_hex(), now).await?;
    let text = resolved.report.to_text();
    let report_json =
        serde_json::to_value(&resolved.report).map_err(|e| inconsistent(e.to_string()))?;
    rows::publish_report(
        &mut tx,
        &NewReport {
            turn_id: due.id,
            text: &text,
            markdown: &resolved.report.to_markdown(),
            html: &resolved.report.to_html(),
            report: &report_json,
        },
        now,
    )
    .await?;
    rows::set_state(&mut *tx, game.id, &resolved.state).await?;

    let outcome = engine.outcome(&resolved.state)?;
    if outcome.finished {
        // Every fact is public now: reveal every sealed seed, so anyone can check every turn.
        let sealed: Vec<(u32, String)> = (0..=number)
            .map(|n| (n, secret.sealed_seed(n).to_hex()))
            .collect();
        rows::finish_game(&mut tx, game.id, &sealed).await?;
    } else {
        let next = engine.turn(&resolved.state)?;
        let schedule = Schedule::from_json(&game.schedule);
        rows::open_turn(
            &mut *tx,
            &NewTurn {
                game_id: game.id,
                number: next,
                deadline: schedule.next_deadline(due.deadline),
                seed_commitment: &secret.turn_seed(next).commitment(),
                sealed_commitment: &secret.sealed_seed(next).commitment(),
                state_before: &resolved.state,
            },
            now,
        )
        .await?;
    }

    // Publication: the report to every subscriber of the zine (readers too), and each player
    // their own position with their personal reply address. Queued in this transaction, once.
    let mut queued = 0;
    let subject = format!("{}: turn {number} report", game.name);
    let footer = format!(
        "\n--\nTurn {number} dice seed: {} (commitment published before the turn).\n",
        seed.to_hex()
    );
    let body = format!("{text}{footer}");
    for subscriber in store::subscribers::list_for_zine(&mut *tx, ZineId(game.zine_id)).await? {
        if subscriber.status != store::subscribers::SubscriberStatus::Active {
            continue;
        }
        let key = format!("report:{}:{}", due.id.0, subscriber.id.0);
        let message_id = format!("<report.{}.{}@{mail_domain}>", due.id.0, subscriber.id.0);
        let new = NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: subscriber.email.as_str(),
            subject: &subject,
            body_text: &body,
            body_html: None,
            headers: &json!({}),
        };
        queued += usize::from(outbox::enqueue(&mut *tx, &new, now).await?);
    }
    let active: Vec<_> = players.iter().filter(|p| p.status == "active").collect();
    let viewers: Vec<Viewer> = active
        .iter()
        .map(|p| Viewer::Player(player_id(p.engine_player_id)))
        .collect();
    let views = engine.views(&resolved.state, &viewers)?;
    for (player, view) in active.into_iter().zip(views) {
        let key = format!("position:{}:{}", due.id.0, player.id.0);
        let message_id = format!("<position.{}.{}@{mail_domain}>", due.id.0, player.id.0);
        let reply_to = format!("orders+{}@{mail_domain}", player.reply_token);
        let body = format!(
            "{}\n\nYour orders for the next turn: reply to this message (it goes to {reply_to}).\n",
            view.lines.join("\n")
        );
        let new = NewOutbound {
            message_id: &message_id,
            idempotency_key: &key,
            to_address: &player.email,
            subject: &format!("{}: your position after turn {number}", game.name),
            body_text: &body,
            body_html: None,
            headers: &json!({ "Reply-To": reply_to }),
        };
        queued += usize::from(outbox::enqueue(&mut *tx, &new, now).await?);
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            action: "turn.resolve",
            game_id: Some(game.id.0),
            details: json!({ "turn": number, "seed": seed.to_hex(), "finished": outcome.finished, "mails": queued }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(Some(ResolvedTurn {
        game: game.id,
        turn: number,
        finished: outcome.finished,
        mails_queued: queued,
    }))
}

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
    let (engine, secret): (String, Vec<u8>) =
        sqlx::query_as("SELECT engine, secret_seed FROM games WHERE id = $1")
            .bind(game)
            .fetch_optional(pool)
            .await?
            .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    let engine: EngineKind = engine.parse()?;
    let inconsistent = |reason: String| LifecycleError::Inconsistent {
        game: game.0,
        reason,
    };
    let secret = game_secret(&secret, game)?;
    let mut db = pool.acquire().await?;
    type PublishedTurn = (
        TurnId,
        i32,
        Value,
        String,
        String,
        Option<String>,
        Option<String>,
        String,
    );
    let published: Vec<PublishedTurn> = sqlx::query_as(
        "SELECT t.id, t.number, t.state_before, t.seed_commitment, t.revealed_seed, t.sealed_commitment, \
         t.revealed_sealed_seed, r.text FROM turns t JOIN published_reports r ON r.turn_id = t.id \
         WHERE t.game_id = $1 ORDER BY t.number",
    )
    .bind(game)
    .fetch_all(pool)
    .await?;
    let mut checks = Vec::new();
    for (
        turn_id,
        number,
        state_before,
        commitment,
        revealed,
        sealed_commitment,
        revealed_sealed,
        text,
    ) in published
    {
        let number =
            u32::try_from(number).map_err(|_| inconsistent("negative turn number".into()))?;
        let seed =
            engine::TurnSeed::parse_hex(&revealed).map_err(|e| inconsistent(e.to_string()))?;
        let (sealed, sealed_from) = match revealed_sealed {
            Some(hex) => (
                engine::TurnSeed::parse_hex(&hex).map_err(|e| inconsistent(e.to_string()))?,
                "published",
            ),
            None => (secret.sealed_seed(number), "secret"),
        };
        let commitments_hold = seed.matches(&commitment)
            && sealed_commitment
                .as_deref()
                .is_none_or(|c| sealed.matches(c));
        let (input, press) = recorded_input(&mut db, turn_id).await?;
        let replay = engine.resolve(
            &state_before,
            &input,
            &press,
            &mut engine::TurnDice::from_seeds(&seed, &sealed),
        )?;
        let matches = commitments_hold && replay.report.to_text() == text;
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

/// What the GM can do to a running game. Every action is written to the audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GmAction {
    /// Resolve the open turn now, whatever its deadline.
    ResolveNow,
    /// Move the open turn's deadline later (or set one, counted from now, if it had none).
    Extend(Duration),
    /// Stop the clock: no turn resolves while paused; orders are still taken.
    Pause,
    /// Start the clock again. A deadline that passed during the pause is moved to `now`
    /// plus the time that was left when the game was paused, so no player loses time.
    Resume,
    /// End the game now: no further turn, the open one is abandoned, and every sealed seed is
    /// revealed so that every published turn can be checked.
    End,
}

impl GmAction {
    fn name(self) -> &'static str {
        match self {
            GmAction::ResolveNow => "game.resolve_now",
            GmAction::Extend(_) => "game.extend",
            GmAction::Pause => "game.pause",
            GmAction::Resume => "game.resume",
            GmAction::End => "game.end",
        }
    }
}

/// Carries out a GM action, audited as done by `actor`.
pub async fn gm_action(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    action: GmAction,
    actor: &str,
    mail_domain: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    let (status, secret): (String, Vec<u8>) =
        sqlx::query_as("SELECT status, secret_seed FROM games WHERE id = $1 FOR UPDATE")
            .bind(game)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    if status == "finished" {
        return Err(LifecycleError::Inconsistent {
            game: game.0,
            reason: "the game is over".into(),
        });
    }
    if status == "paused" && action == GmAction::ResolveNow {
        return Err(LifecycleError::Inconsistent {
            game: game.0,
            reason: "the game is paused: resume it first".into(),
        });
    }
    type OpenTurn = (TurnId, i32, Option<DateTime<Utc>>);
    let open: Option<OpenTurn> = sqlx::query_as(
        "SELECT id, number, deadline FROM turns WHERE game_id = $1 AND status = 'open' FOR UPDATE",
    )
    .bind(game)
    .fetch_optional(&mut *tx)
    .await?;
    let mut details = json!({ "status_before": status });
    match action {
        GmAction::ResolveNow | GmAction::Extend(_) => {
            let (turn, number, deadline) = open.ok_or(LifecycleError::NoOpenTurn(game.0))?;
            let new_deadline = match action {
                GmAction::Extend(by) => deadline.unwrap_or(now) + by,
                _ => now,
            };
            sqlx::query("UPDATE turns SET deadline = $2 WHERE id = $1")
                .bind(turn)
                .bind(new_deadline)
                .execute(&mut *tx)
                .await?;
            details =
                json!({ "turn": number, "deadline_before": deadline, "deadline": new_deadline });
        }
        GmAction::Pause => {
            sqlx::query("UPDATE games SET status = 'paused' WHERE id = $1")
                .bind(game)
                .execute(&mut *tx)
                .await?;
            if let Some((_, number, Some(deadline))) = open {
                // Remember the time left, so that resuming gives it back.
                details = json!({ "turn": number, "time_left_seconds": (deadline - now).num_seconds().max(0) });
            }
        }
        GmAction::Resume => {
            let left: Option<i64> = sqlx::query_scalar(
                "SELECT (details->>'time_left_seconds')::bigint FROM audit_log \
                 WHERE game_id = $1 AND action = 'game.pause' ORDER BY id DESC LIMIT 1",
            )
            .bind(game.0)
            .fetch_optional(&mut *tx)
            .await?
            .flatten();
            sqlx::query("UPDATE games SET status = 'running' WHERE id = $1")
                .bind(game)
                .execute(&mut *tx)
                .await?;
            if let (Some((turn, number, Some(deadline))), Some(left)) = (open, left)
                && deadline <= now + Duration::seconds(left)
            {
                let new_deadline = now + Duration::seconds(left);
                sqlx::query("UPDATE turns SET deadline = $2 WHERE id = $1")
                    .bind(turn)
                    .bind(new_deadline)
                    .execute(&mut *tx)
                    .await?;
                details = json!({ "turn": number, "deadline_before": deadline, "deadline": new_deadline });
            }
        }
        GmAction::End => {
            let secret = game_secret(&secret, game)?;
            let last: Option<i32> =
                sqlx::query_scalar("SELECT max(number) FROM turns WHERE game_id = $1")
                    .bind(game)
                    .fetch_one(&mut *tx)
                    .await?;
            if let Some((turn, _, _)) = open {
                sqlx::query("UPDATE turns SET status = 'locked' WHERE id = $1")
                    .bind(turn)
                    .execute(&mut *tx)
                    .await?;
            }
            let last = u32::try_from(last.unwrap_or(0)).unwrap_or(0);
            let sealed: Vec<(u32, String)> = (0..=last)
                .map(|n| (n, secret.sealed_seed(n).to_hex()))
                .collect();
            rows::finish_game(&mut tx, game, &sealed).await?;
        }
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: action.name(),
            game_id: Some(game.0),
            details,
        },
        now,
    )
    .await?;
    tx.commit().await?;
    if action == GmAction::ResolveNow {
        resolve_due(pool, now, mail_domain).await?;
    }
    Ok(())
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
    let (engine, state, secret): (String, Value, Vec<u8>) =
        sqlx::query_as("SELECT engine, state, secret_seed FROM games WHERE id = $1")
            .bind(game)
            .fetch_optional(&mut *db)
            .await?
            .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    let (turn, number): (TurnId, i32) =
        sqlx::query_as("SELECT id, number FROM turns WHERE game_id = $1 AND status = 'open'")
            .bind(game)
            .fetch_optional(&mut *db)
            .await?
            .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    let engine: EngineKind = engine.parse()?;
    let secret = game_secret(&secret, game)?;
    let number = u32::try_from(number).map_err(|_| LifecycleError::Inconsistent {
        game: game.0,
        reason: "negative turn number".into(),
    })?;
    let (mut input, press) = recorded_input(&mut db, turn).await?;
    // As the resolution will: whoever is not active by then has left.
    input.leaving = rows::players(&mut *db, game)
        .await?
        .into_iter()
        .filter(|p| p.status != "active")
        .map(|p| player_id(p.engine_player_id))
        .collect();
    let resolved = engine.resolve(&state, &input, &press, &mut secret.turn_dice(number))?;
    Ok((number, resolved))
}
