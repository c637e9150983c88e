//! The GM's actions on a running game and its deadline settings, each written to the audit log.

use chrono::{DateTime, Duration, Utc};
use store::PgPool;
use store::audit::{AuditAction, ClockChange};
use store::games::{GameForGm, GameId};
use store::status::GameStatus;
use store::turns::OpenTurnOfGame;

use super::resolve::resolve_open_turn_now;
use super::{LifecycleError, ScheduleSettings, game_secret};

/// What the GM can do to a running game. Every action is written to the audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GmAction {
    /// Resolve the open turn now, whatever its deadline.
    ResolveNow,
    /// Move the open turn's deadline later (or set one, counted from now, if it had none).
    Extend(Duration),
    /// Set the open turn's deadline to this moment (later or earlier; it must be in the future).
    SetDeadline(DateTime<Utc>),
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
    /// The audit log's entry for this action, with what it changed.
    fn audited(self, change: ClockChange) -> AuditAction {
        match self {
            GmAction::ResolveNow => AuditAction::ResolveNow(change),
            GmAction::Extend(_) => AuditAction::Extend(change),
            GmAction::SetDeadline(_) => AuditAction::SetDeadline(change),
            GmAction::Pause => AuditAction::Pause(change),
            GmAction::Resume => AuditAction::Resume(change),
            GmAction::End => AuditAction::End(change),
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
    let stored = store::games::lock_for_gm(&mut tx, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    match stored.status {
        GameStatus::Finished => return Err(LifecycleError::GameOver(game)),
        GameStatus::Paused if action == GmAction::ResolveNow => {
            return Err(LifecycleError::Paused(game));
        }
        _ => {}
    }
    let open = store::turns::lock_open_of_game(&mut tx, game).await?;
    let status_before = ClockChange::Status {
        status_before: stored.status,
    };
    // The deadline the open turn had: Resolve now keeps the schedule's slots from it.
    let mut slot = None;
    let change = match action {
        GmAction::ResolveNow | GmAction::Extend(_) | GmAction::SetDeadline(_) => {
            let turn = open.ok_or(LifecycleError::NoOpenTurn(game))?;
            slot = turn.deadline;
            move_deadline(&mut tx, game, turn, action, now).await?
        }
        GmAction::Pause => pause(&mut tx, game, open, now)
            .await?
            .unwrap_or(status_before),
        GmAction::Resume => resume(&mut tx, game, &stored, open, now)
            .await?
            .unwrap_or(status_before),
        GmAction::End => {
            end(&mut tx, game, &stored, open).await?;
            status_before
        }
    };
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: Some(game),
            action: action.audited(change),
        },
        now,
    )
    .await?;
    tx.commit().await?;
    if action == GmAction::ResolveNow {
        resolve_open_turn_now(pool, game, now, slot, mail_domain).await?;
    }
    Ok(())
}

/// Resolve now, extend or set the deadline: the open turn's new deadline.
async fn move_deadline(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    turn: OpenTurnOfGame,
    action: GmAction,
    now: DateTime<Utc>,
) -> Result<ClockChange, LifecycleError> {
    let new_deadline = match action {
        GmAction::Extend(by) => turn.deadline.unwrap_or(now) + by,
        GmAction::SetDeadline(at) if at <= now => {
            return Err(LifecycleError::DeadlineInPast(game));
        }
        GmAction::SetDeadline(at) => at,
        _ => now,
    };
    store::turns::set_deadline(&mut *tx, turn.id, new_deadline).await?;
    Ok(ClockChange::Deadline {
        turn: turn.number,
        deadline_before: turn.deadline,
        deadline: new_deadline,
    })
}

/// Pauses the game, keeping the open turn's time left so that resuming gives it back.
async fn pause(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    open: Option<OpenTurnOfGame>,
    now: DateTime<Utc>,
) -> Result<Option<ClockChange>, LifecycleError> {
    let left = open
        .and_then(|turn| turn.deadline)
        .map(|deadline| (deadline - now).num_seconds().max(0));
    store::games::pause(&mut *tx, game, left).await?;
    Ok(match (open, left) {
        (Some(turn), Some(left)) => Some(ClockChange::Paused {
            turn: turn.number,
            time_left_seconds: left,
        }),
        _ => None,
    })
}

/// Resumes the game; the open turn's deadline moves on by the time it had left when paused
/// (never earlier than it was).
async fn resume(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    stored: &GameForGm,
    open: Option<OpenTurnOfGame>,
    now: DateTime<Utc>,
) -> Result<Option<ClockChange>, LifecycleError> {
    store::games::resume(&mut *tx, game).await?;
    if let (Some(turn), Some(left)) = (open, stored.paused_seconds_left)
        && let Some(deadline) = turn.deadline
        && deadline <= now + Duration::seconds(left)
    {
        let new_deadline = now + Duration::seconds(left);
        store::turns::set_deadline(&mut *tx, turn.id, new_deadline).await?;
        return Ok(Some(ClockChange::Deadline {
            turn: turn.number,
            deadline_before: Some(deadline),
            deadline: new_deadline,
        }));
    }
    Ok(None)
}

/// Ends the game: its open turn is abandoned, and every sealed seed revealed.
async fn end(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    stored: &GameForGm,
    open: Option<OpenTurnOfGame>,
) -> Result<(), LifecycleError> {
    let secret = game_secret(&stored.secret_seed, game)?;
    if let Some(turn) = open {
        store::turns::abandon(&mut *tx, turn.id).await?;
    }
    let last = u32::try_from(store::turns::last_number(&mut *tx, game).await?).unwrap_or(0);
    let sealed: Vec<(u32, String)> = (0..=last)
        .map(|n| (n, secret.sealed_seed(n).to_hex()))
        .collect();
    store::games::finish_game(&mut *tx, game, &sealed).await?;
    Ok(())
}

/// Deletes a game made by mistake, audited as done by `actor`: only while none of its turns
/// has been published (a published turn is on the record: end the game instead). Its players,
/// turns, orders and press go; the audit log keeps what was done.
pub async fn delete_game(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    actor: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    store::games::lock_for_gm(&mut tx, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    if store::games::has_published_turn(&mut tx, game).await? {
        return Err(LifecycleError::AlreadyPublished(game));
    }
    let name = store::games::name(&mut *tx, game)
        .await?
        .unwrap_or_default();
    store::games::delete_unpublished(&mut tx, game, now).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: Some(game),
            action: AuditAction::GameDelete { name },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// A game's deadline settings.
pub async fn schedule_of(pool: &PgPool, game: GameId) -> Result<ScheduleSettings, LifecycleError> {
    store::games::schedule(pool, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))
}

/// The game's deadline settings, read in a transaction.
pub(crate) async fn schedule_of_in(
    db: &mut sqlx::PgConnection,
    game: GameId,
) -> Result<ScheduleSettings, LifecycleError> {
    store::games::schedule(&mut *db, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))
}

/// Replaces a game's deadline settings, audited as done by `actor`. When the deadline rule
/// itself changes (another kind, weekday, time, zone or number of days) to one that gives
/// deadlines, the open turn's deadline moves to the new rule's first slot after `now`, so a
/// game switched to "weekly Friday 18:00" is due on the coming Friday. When only the reminders,
/// grace or early resolution change, or the rule becomes manual, the open turn keeps its
/// deadline (unless it has none and the rule gives one).
pub async fn set_schedule(
    pool: &PgPool,
    now: DateTime<Utc>,
    game: GameId,
    settings: &ScheduleSettings,
    actor: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    let stored = store::games::lock_for_gm(&mut tx, game)
        .await?
        .ok_or(LifecycleError::GameNotFound(game))?;
    if stored.status == GameStatus::Finished {
        return Err(LifecycleError::GameOver(game));
    }
    store::games::set_schedule(&mut *tx, game, settings).await?;
    let open = store::turns::lock_open_of_game(&mut tx, game).await?;
    let rule_changed = stored.schedule.deadlines() != settings.deadlines();
    let mut deadline_set = None;
    if let Some(turn) = open
        && (turn.deadline.is_none() || rule_changed)
        && let Some(deadline) = settings.next_deadline(None, now)
    {
        store::turns::set_deadline(&mut *tx, turn.id, deadline).await?;
        deadline_set = Some(deadline);
    }
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor,
            game: Some(game),
            action: AuditAction::GameSchedule {
                schedule: settings.clone(),
                described: settings.to_string(),
                before: stored.schedule,
                open_turn_deadline_set: deadline_set,
            },
        },
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}
