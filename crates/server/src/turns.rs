//! The turn lifecycle's core: starting a game, taking orders, and resolving every turn whose
//! deadline has passed — exactly once, even with several `gm serve` processes on one database
//! or a process killed mid-way.
//!
//! Exactly once comes from the database, not from memory: a due turn is claimed with
//! `FOR UPDATE SKIP LOCKED`, and its resolution, report, revealed seed, next turn and queued mail
//! are written in that one transaction. A process killed before the commit leaves the turn as it
//! was; after the commit the turn is no longer open, so nobody claims it again.

use chrono::{DateTime, Duration, Utc};
use engine::{GameSecret, ParsedOrders, Player, PlayerId, TurnInput};
use games::{EngineKind, GameError, PressItem};
use serde_json::{Value, json};
use store::games::{
    self as rows, GameId, NewGame, NewOrders, NewPlayer, NewReport, NewTurn, PlayerRowId, TurnId,
};
use store::outbox::{self, NewOutbound};
use store::subscribers::PlayerLock;
use store::zines::ZineId;
use store::{PgPool, StoreError};

use crate::fault;
pub use crate::schedule::{Schedule, ScheduleError, ScheduleSettings, Weekly};

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
    #[error(
        "the deadline has passed (orders closed at {0}, the end of any grace period): orders are locked until the turn is resolved"
    )]
    DeadlinePassed(DateTime<Utc>),
    #[error(
        "a set of orders that arrived after this one was already accepted, and the last set received counts"
    )]
    LaterOrdersStand,
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    #[error("game {0} is over")]
    GameOver(i64),
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
    input.joining = serde_json::from_value(rows::joining(&mut *db, turn).await?).map_err(|e| {
        LifecycleError::Inconsistent {
            game: 0,
            reason: format!("turn {}: joining is not a player list: {e}", turn.0),
        }
    })?;
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
    rows::set_schedule(
        &mut *tx,
        game,
        &ScheduleSettings::from(spec.schedule).to_json(),
    )
    .await?;
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
            deadline: spec
                .first_deadline
                .or_else(|| spec.schedule.next_deadline(None, now)),
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
    let lock = store::subscribers::lock_player(&mut tx, player.0).await?;
    let engine_player: Option<i64> =
        sqlx::query_scalar("SELECT engine_player_id FROM players WHERE id = $1 AND game_id = $2")
            .bind(player)
            .bind(game)
            .fetch_optional(&mut *tx)
            .await?;
    let Some(engine_player) = engine_player else {
        return Err(LifecycleError::Inconsistent {
            game: game.0,
            reason: format!("player row {} is not in this game", player.0),
        });
    };
    let orders = Submission {
        game,
        engine_player,
        text,
        source,
    };
    match submit_orders_in(&mut tx, &mut OpenTurns::default(), &lock, now, &orders).await {
        Ok(parsed) => {
            tx.commit().await?;
            Ok(parsed)
        }
        Err(error) => {
            // Release the turn's row lock now, not when the pool next reuses the connection:
            // a worker looking for due turns skips locked ones.
            tx.rollback().await?;
            Err(error)
        }
    }
}

/// A game's open turn as orders are checked against it, share-locked by the transaction that
/// looked it up: resolution, which locks it for update, waits until that transaction ends, so
/// the turn stays open and its state unchanged until then.
#[derive(Debug)]
pub struct OpenTurn {
    pub id: TurnId,
    engine: EngineKind,
    state: Value,
    /// When orders close (the deadline and its grace period), if a deadline is set.
    closes: Option<DateTime<Utc>>,
}

/// The open turns one transaction has looked up and share-locked, by game, so that a batch of
/// messages reads each game's turn (and its state) once. Valid only in that transaction, and
/// only while the lookups stand: after a rollback to a savepoint, [`OpenTurns::forget`] (the
/// locks taken inside it were released).
#[derive(Debug, Default)]
pub struct OpenTurns {
    by_game: std::collections::HashMap<GameId, Option<std::sync::Arc<OpenTurn>>>,
}

impl OpenTurns {
    /// The game's open turn, share-locked; `None` when the game has none.
    pub async fn get(
        &mut self,
        tx: &mut sqlx::PgConnection,
        game: GameId,
    ) -> Result<Option<std::sync::Arc<OpenTurn>>, LifecycleError> {
        if let Some(known) = self.by_game.get(&game) {
            return Ok(known.clone());
        }
        self.fetch(tx, &[game]).await?;
        Ok(self.by_game.get(&game).cloned().flatten())
    }

    /// Looks up and share-locks the open turns of `games` not looked up yet, in one statement.
    pub async fn fetch(
        &mut self,
        tx: &mut sqlx::PgConnection,
        games: &[GameId],
    ) -> Result<(), LifecycleError> {
        let mut wanted: Vec<i64> = games
            .iter()
            .filter(|game| !self.by_game.contains_key(game))
            .map(|game| game.0)
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.is_empty() {
            return Ok(());
        }
        // In ascending order, as every other taker of several turn locks would.
        /// Game, turn, engine, state, deadline, schedule.
        type Row = (GameId, TurnId, String, Value, Option<DateTime<Utc>>, Value);
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT t.game_id, t.id, g.engine, t.state_before, t.deadline, g.schedule FROM turns t \
                 JOIN games g ON g.id = t.game_id \
                 WHERE t.game_id = ANY($1) AND t.status = 'open' ORDER BY t.game_id FOR SHARE OF t",
        )
        .bind(&wanted)
        .fetch_all(&mut *tx)
        .await?;
        for game in wanted {
            self.by_game.insert(GameId(game), None);
        }
        for (game, id, engine, state, deadline, schedule) in rows {
            let closes = match deadline {
                Some(deadline) => Some(ScheduleSettings::from_json(&schedule)?.closes_at(deadline)),
                None => None,
            };
            let turn = OpenTurn {
                id,
                engine: engine.parse()?,
                state,
                closes,
            };
            self.by_game.insert(game, Some(std::sync::Arc::new(turn)));
        }
        Ok(())
    }

    /// Forgets every lookup (their locks may have been released by a rollback).
    pub fn forget(&mut self) {
        self.by_game.clear();
    }
}

/// One player's set of orders, as [`submit_orders_in`] takes it.
#[derive(Debug, Clone, Copy)]
pub struct Submission<'a> {
    pub game: GameId,
    /// The engine's id of the player in that game (the locked player row's).
    pub engine_player: i64,
    pub text: &'a str,
    /// `email` or `web`.
    pub source: &'a str,
}

/// [`submit_orders`] inside the caller's transaction (mail: with the message's other effects),
/// which holds the lock of the player's subscriber: one player's submissions are taken one
/// after the other, so the check against later orders and the save below are one step.
pub async fn submit_orders_in(
    tx: &mut sqlx::PgConnection,
    open_turns: &mut OpenTurns,
    lock: &PlayerLock,
    now: DateTime<Utc>,
    orders: &Submission<'_>,
) -> Result<ParsedOrders<Value>, LifecycleError> {
    let player = PlayerRowId(lock.player());
    let game = orders.game;
    // The turn row is only share-locked, so that other players' orders go in parallel while
    // resolution, which locks it for update, waits.
    let turn = open_turns
        .get(&mut *tx, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    // Once the deadline and its grace period are over, orders are locked, even before the
    // worker has resolved the turn.
    if let Some(closes) = turn.closes
        && closes <= now
    {
        return Err(LifecycleError::DeadlinePassed(closes));
    }
    let engine_player = player_id(orders.engine_player);
    let parsed = turn
        .engine
        .parse_orders(&turn.state, engine_player, orders.text)?;
    // Mail is processed by several workers, so a later message may be processed first: the
    // player's lock makes the save's check for a later set and the save one step. The press
    // the orders carry is saved by the same statement.
    let saved = rows::save_orders(
        &mut *tx,
        &NewOrders {
            game_id: game,
            turn_id: turn.id,
            player_id: player,
            raw_text: orders.text,
            parsed: &parsed.orders,
            source: orders.source,
        },
        &parsed.press,
        now,
    )
    .await?;
    if let rows::SavedOrders::LaterStand(_) = saved {
        return Err(LifecycleError::LaterOrdersStand);
    }
    Ok(parsed)
}

/// The game's current state (after its last resolved turn), from which each viewer's view is
/// drawn: the POSITION mail and the player pages read it here.
pub async fn game_state<'e>(
    db: impl sqlx::PgExecutor<'e>,
    game: GameId,
) -> Result<Value, LifecycleError> {
    Ok(sqlx::query_scalar("SELECT state FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(db)
        .await?)
}

/// Press sent on its own (a PRESS command) for the game's open turn, share-locked through
/// `open_turns`: the row to save, with the transaction's other press, by
/// [`store::games::save_press_many`] before it commits.
pub async fn press_for_open_turn(
    tx: &mut sqlx::PgConnection,
    open_turns: &mut OpenTurns,
    now: DateTime<Utc>,
    game: GameId,
    player: PlayerRowId,
    text: &str,
    source: &'static str,
) -> Result<rows::NewPress, LifecycleError> {
    let turn = open_turns
        .get(tx, game)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    Ok(rows::NewPress {
        game_id: game,
        turn_id: turn.id,
        player_id: player,
        text: text.to_owned(),
        source,
        received_at: now,
    })
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
/// A turn whose resolution fails is rolled back, recorded (audit log, tracing, the turn's
/// `resolve_error`) and put off with a growing delay, so it cannot hold up the other games'
/// turns; only an error in claiming a turn stops the round.
pub async fn resolve_due(
    pool: &PgPool,
    now: DateTime<Utc>,
    mail_domain: &str,
) -> Result<Vec<ResolvedTurn>, LifecycleError> {
    let mut done = Vec::new();
    loop {
        let mut tx = pool.begin().await?;
        let Some(due) = rows::claim_due_turn(&mut tx, now).await? else {
            return Ok(done);
        };
        let (turn, game) = (due.id, due.game_id);
        match resolve_claimed(tx, due, now, mail_domain).await {
            Ok(resolved) => done.push(resolved),
            Err(error) => put_off_failed_turn(pool, turn, game, &error, now).await?,
        }
    }
}

/// Records a turn's failed resolution and when it will be tried again.
async fn put_off_failed_turn(
    pool: &PgPool,
    turn: TurnId,
    game: GameId,
    error: &LifecycleError,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    let Some(failures_before) = rows::lock_open_turn_failures(&mut tx, turn).await? else {
        return Ok(());
    };
    let retry_at = now + crate::outbox::backoff(failures_before);
    let error = error.to_string();
    rows::record_resolve_failure(&mut *tx, turn, &error, retry_at).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            action: "turn.resolve_failed",
            game_id: Some(game.0),
            details: json!({
                "turn_id": turn.0,
                "error": error,
                "failures": failures_before + 1,
                "retry_at": retry_at,
            }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    tracing::error!(
        game = game.0,
        turn = turn.0,
        failures = failures_before + 1,
        %retry_at,
        error = %error,
        "resolving a due turn failed; the other due turns go on, this one is retried later"
    );
    Ok(())
}

/// Resolves, publishes and mails a turn this transaction holds locked, and commits.
async fn resolve_claimed(
    mut tx: sqlx::Transaction<'static, sqlx::Postgres>,
    due: rows::DueTurn,
    now: DateTime<Utc>,
    mail_domain: &str,
) -> Result<ResolvedTurn, LifecycleError> {
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

    fault::point("after_claim").await;
    let settings = ScheduleSettings::from_json(&game.schedule)?;

    // Who plays this turn: a subscriber who is no longer active leaves; in an engine where
    // every subscriber plays, a new subscriber joins (BARMY-02, BARMY-GM-11). Both are recorded
    // with the turn, so `gm verify` replays the same input.
    rows::retire_lapsed_subscribers(&mut *tx, game.id).await?;
    let leaving: Vec<i64> = rows::players(&mut *tx, game.id)
        .await?
        .iter()
        .filter(|p| p.status != "active")
        .map(|p| p.engine_player_id)
        .collect();
    rows::set_leaving(&mut *tx, due.id, &leaving).await?;
    if enrols_every_subscriber(engine) {
        let joining = enrol_new_subscribers(&mut tx, game.id, number + 1, &mut OsEntropy).await?;
        let joining = serde_json::to_value(&joining).map_err(|e| inconsistent(e.to_string()))?;
        rows::set_joining(&mut *tx, due.id, &joining).await?;
    }
    let (input, press) = recorded_input(&mut tx, due.id).await?;

    let resolved = engine.resolve(&game.state, &input, &press, &mut secret.turn_dice(number))?;
    fault::point("after_resolve").await;
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
    fault::point("after_publish").await;
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
        rows::open_turn(
            &mut *tx,
            &NewTurn {
                game_id: game.id,
                number: next,
                deadline: settings.deadlines().next_deadline(due.deadline, now),
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
    // The report's body is stored once and shared by every copy; the copies are one message,
    // with one Message-ID, which the outbox sends to many subscribers at a time.
    let subject = format!("{}: turn {number} report", game.name);
    let footer = format!(
        "\n--\nTurn {number} dice seed: {} (commitment published before the turn).\n",
        seed.to_hex()
    );
    let report_body =
        outbox::insert_shared_body(&mut *tx, &format!("{text}{footer}"), None, now).await?;
    let no_headers = json!({});
    let report_id = format!("<report.{}@{mail_domain}>", due.id.0);
    let readers: Vec<(String, String)> =
        store::subscribers::list_for_zine(&mut *tx, ZineId(game.zine_id))
            .await?
            .into_iter()
            .filter(|s| s.status == store::subscribers::SubscriberStatus::Active)
            .map(|s| {
                (
                    format!("report:{}:{}", due.id.0, s.id.0),
                    s.email.as_str().to_owned(),
                )
            })
            .collect();
    let reports: Vec<NewOutbound> = readers
        .iter()
        .map(|(key, to)| NewOutbound {
            message_id: &report_id,
            idempotency_key: key,
            to_address: to,
            subject: &subject,
            body_text: "",
            body_html: None,
            headers: &no_headers,
        })
        .collect();
    let mut queued = outbox::enqueue_many(&mut tx, &reports, Some(report_body), now).await?;

    // Read again: this turn's joiners get their position too.
    let players = rows::players(&mut *tx, game.id).await?;
    let active: Vec<_> = players.iter().filter(|p| p.status == "active").collect();
    let ids: Vec<PlayerId> = active
        .iter()
        .map(|p| player_id(p.engine_player_id))
        .collect();
    let views = engine.private_lines(&resolved.state, &ids)?;
    let position_subject = format!("{}: your position after turn {number}", game.name);
    let positions: Vec<(String, String, String, Value)> = active
        .iter()
        .zip(views)
        .map(|(player, lines)| {
            let reply_to = crate::inbox::reply_address(&player.reply_token, mail_domain);
            let body = format!(
                "{}\n\nThe standings and every shot are in the turn's report.\n\
                 Your orders for the next turn: reply to this message (it goes to {reply_to}).\n",
                lines.join("\n")
            );
            (
                format!("<position.{}.{}@{mail_domain}>", due.id.0, player.id.0),
                format!("position:{}:{}", due.id.0, player.id.0),
                body,
                json!({ "Reply-To": reply_to }),
            )
        })
        .collect();
    let positions: Vec<NewOutbound> = active
        .iter()
        .zip(&positions)
        .map(|(player, (message_id, key, body, headers))| NewOutbound {
            message_id,
            idempotency_key: key,
            to_address: &player.email,
            subject: &position_subject,
            body_text: body,
            body_html: None,
            headers,
        })
        .collect();
    queued += outbox::enqueue_many(&mut tx, &positions, None, now).await?;
    fault::point("after_mail_queued").await;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            action: "turn.resolve",
            game_id: Some(game.id.0),
            details: json!({
                "turn": number,
                "seed": seed.to_hex(),
                "finished": outcome.finished,
                "mails": queued,
                "joining": input.joining.len(),
                "leaving": leaving.len(),
            }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    fault::point("after_commit").await;
    Ok(ResolvedTurn {
        game: game.id,
        turn: number,
        finished: outcome.finished,
        mails_queued: usize::try_from(queued).unwrap_or(usize::MAX),
    })
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
    let newcomers = rows::unenrolled_subscribers(&mut *tx, game).await?;
    if newcomers.is_empty() {
        return Ok(Vec::new());
    }
    let last = rows::max_engine_player_id(&mut *tx, game).await?;
    let mut joining = Vec::with_capacity(newcomers.len());
    for (newcomer, id) in newcomers.into_iter().zip(last.saturating_add(1)..) {
        let mut token = [0u8; 20];
        entropy.fill(&mut token);
        let token = hex::encode(token);
        let engine_id = u64::try_from(id).map_err(|_| LifecycleError::Inconsistent {
            game: game.0,
            reason: "negative player id".into(),
        })?;
        rows::insert_player(
            &mut *tx,
            &NewPlayer {
                game_id: game,
                subscriber_id: newcomer.subscriber_id,
                display_name: &newcomer.display_name,
                engine_player_id: engine_id,
                reply_token: &token,
                joined_turn: first_turn,
            },
        )
        .await?;
        joining.push(Player {
            id: PlayerId(engine_id),
            name: newcomer.display_name,
        });
    }
    Ok(joining)
}

/// One reminder round: the mails queued for one offset of one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReminderRound {
    pub game: GameId,
    pub turn: u32,
    pub before_deadline: Duration,
    pub mails_queued: usize,
}

/// Queues every reminder that is due: for each open turn of a running game and each of its
/// reminder offsets whose moment (deadline minus offset) has come, a mail to each active player
/// who has no orders in yet, with their reply address. Each (turn, offset) round is done once,
/// recorded in `turn_reminders` in the transaction that queues its mail; an offset whose moment
/// came before the turn opened is skipped (the position mail that opened the turn said it all).
pub async fn send_due_reminders(
    pool: &PgPool,
    now: DateTime<Utc>,
    mail_domain: &str,
) -> Result<Vec<ReminderRound>, LifecycleError> {
    let mut rounds = Vec::new();
    for turn in rows::remindable_turns(pool, now).await? {
        let settings = ScheduleSettings::from_json(&turn.schedule)?;
        for offset in settings.reminders() {
            let moment = turn.deadline - *offset;
            let minutes = i32::try_from(offset.num_minutes()).unwrap_or(i32::MAX);
            if moment > now || moment < turn.opened_at || turn.done_minutes.contains(&minutes) {
                continue;
            }
            if let Some(round) = remind(pool, now, mail_domain, &turn, *offset).await? {
                rounds.push(round);
            }
        }
    }
    Ok(rounds)
}

async fn remind(
    pool: &PgPool,
    now: DateTime<Utc>,
    mail_domain: &str,
    turn: &rows::RemindableTurn,
    offset: Duration,
) -> Result<Option<ReminderRound>, LifecycleError> {
    let minutes = i32::try_from(offset.num_minutes()).unwrap_or(i32::MAX);
    let mut tx = pool.begin().await?;
    // The turn's lock keeps a resolution and a reminder round of one turn apart.
    if !rows::lock_open_turn(&mut tx, turn.id).await?
        || !rows::claim_reminder_round(&mut *tx, turn.id, minutes, now).await?
    {
        return Ok(None);
    }
    let game = rows::game_for_turn(&mut tx, turn.game_id).await?;
    let number = u32::try_from(turn.number).unwrap_or_default();
    let deadline = turn.deadline.format("%A %-d %B %Y, %H:%M UTC");
    let left = crate::schedule::format_duration(turn.deadline - now);
    let mut queued = 0;
    for player in rows::players_without_orders(&mut *tx, game.id, turn.id).await? {
        let reply_to = crate::inbox::reply_address(&player.reply_token, mail_domain);
        let body = format!(
            "{name}, we have no orders from you for turn {number} of {game}.\n\n\
             The deadline is {deadline} (in {left}). Without orders you are NMR (no moves \
             received), with whatever that costs in this game.\n\n\
             To send orders, reply to this message (it goes to {reply_to}).\n",
            name = player.display_name,
            game = game.name,
        );
        let new = NewOutbound {
            message_id: &format!(
                "<reminder.{}.{minutes}.{}@{mail_domain}>",
                turn.id.0, player.id.0
            ),
            idempotency_key: &format!("reminder:{}:{minutes}:{}", turn.id.0, player.id.0),
            to_address: &player.email,
            subject: &format!("{}: turn {number}, deadline in {left}", game.name),
            body_text: &body,
            body_html: None,
            headers: &json!({ "Reply-To": reply_to }),
        };
        queued += usize::from(outbox::enqueue(&mut *tx, &new, now).await?);
    }
    rows::count_reminder_round(
        &mut *tx,
        turn.id,
        minutes,
        i32::try_from(queued).unwrap_or(i32::MAX),
    )
    .await?;
    tx.commit().await?;
    Ok(Some(ReminderRound {
        game: game.id,
        turn: number,
        before_deadline: offset,
        mails_queued: queued,
    }))
}

/// A game's deadline settings.
pub async fn schedule_of(pool: &PgPool, game: GameId) -> Result<ScheduleSettings, LifecycleError> {
    let stored: Value = sqlx::query_scalar("SELECT schedule FROM games WHERE id = $1")
        .bind(game)
        .fetch_optional(pool)
        .await?
        .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    Ok(ScheduleSettings::from_json(&stored)?)
}

/// Replaces a game's deadline settings, audited as done by `actor`. They apply from the next
/// deadline on: the open turn keeps its deadline (the GM moves it with `extend`), unless it has
/// none and the new schedule gives one, which it then gets (the first slot after `now`).
pub async fn set_schedule(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    settings: &ScheduleSettings,
    actor: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    let (status, before): (String, Value) =
        sqlx::query_as("SELECT status, schedule FROM games WHERE id = $1 FOR UPDATE")
            .bind(game)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(LifecycleError::NoOpenTurn(game.0))?;
    if status == "finished" {
        return Err(LifecycleError::GameOver(game.0));
    }
    rows::set_schedule(&mut *tx, game, &settings.to_json()).await?;
    let open: Option<(TurnId, Option<DateTime<Utc>>)> = sqlx::query_as(
        "SELECT id, deadline FROM turns WHERE game_id = $1 AND status = 'open' FOR UPDATE",
    )
    .bind(game)
    .fetch_optional(&mut *tx)
    .await?;
    let mut deadline_set = None;
    if let Some((turn, None)) = open
        && let Some(deadline) = settings.deadlines().next_deadline(None, now)
    {
        sqlx::query("UPDATE turns SET deadline = $2 WHERE id = $1")
            .bind(turn)
            .bind(deadline)
            .execute(&mut *tx)
            .await?;
        deadline_set = Some(deadline);
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            action: "game.schedule",
            game_id: Some(game.0),
            details: json!({
                "schedule": settings.to_json(),
                "described": settings.to_string(),
                "before": before,
                "open_turn_deadline_set": deadline_set,
            }),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
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
        return Err(LifecycleError::GameOver(game.0));
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
        // This turn, whatever the grace period; if a worker got to it first, it is done.
        let mut tx = pool.begin().await?;
        if let Some(due) = rows::claim_open_turn(&mut tx, game).await? {
            resolve_claimed(tx, due, now, mail_domain).await?;
        }
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
