//! Resolving every turn whose deadline has passed: the engine's resolution, the published
//! report, the revealed seed, the next turn and the queued mail, in one transaction per turn.

mod publication;
mod seats;

use chrono::{DateTime, Utc};
use engine::{GameSecret, TurnInput};
use games::{AnyOrders, AnyState, PressItem, Resolved};
use store::PgPool;
use store::games::{GameForTurn, GameId};
use store::turns::{DueTurn, TurnId};

use super::{LifecycleError, game_secret, recorded_input};
use crate::fault;

/// Whether a resolution mails what it publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mailing<'a> {
    /// The report to every subscriber and each player's position, Message-IDs at this domain.
    Queue { domain: &'a str },
    /// Published on the web only: the demo game, whose subscribers' addresses are examples.
    WebOnly,
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
        let Some(due) = store::turns::claim_due_turn(&mut tx, now).await? else {
            return Ok(done);
        };
        let (turn, game) = (due.id, due.game_id);
        let started = std::time::Instant::now();
        // The absence policy "the deadline waits": the turn's deadline moves, it is not resolved.
        if crate::turns::absences::wait_if_absent(&mut tx, &due, now, mail_domain)
            .await?
            .is_some()
        {
            tx.commit().await?;
            continue;
        }
        match resolve_claimed(
            &mut tx,
            &due,
            now,
            Mailing::Queue {
                domain: mail_domain,
            },
        )
        .await
        {
            Ok(resolved) => {
                tx.commit().await?;
                crate::measures::turn_resolved(
                    started.elapsed(),
                    due.deadline.map(|deadline| now - deadline),
                );
                fault::point("after_commit").await;
                done.push(resolved);
            }
            Err(error) => {
                tx.rollback().await?;
                put_off_failed_turn(pool, turn, game, &error, now).await?;
            }
        }
    }
}

/// Resolves the game's open turn now, whatever its deadline and grace period, unless a worker
/// got to it first (then it is done already). `slot` is the deadline the turn had before the
/// GM chose Resolve now: the next turn's deadline is the schedule's slot after it (never at or
/// before now), on the schedule's time of day, as when a turn resolves early.
pub(crate) async fn resolve_open_turn_now(
    pool: &PgPool,
    game: GameId,
    now: DateTime<Utc>,
    slot: Option<DateTime<Utc>>,
    mail_domain: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    if let Some(due) = store::turns::claim_open_turn(&mut tx, game).await? {
        let started = std::time::Instant::now();
        let due = DueTurn {
            deadline: slot.or(due.deadline),
            ..due
        };
        resolve_claimed(
            &mut tx,
            &due,
            now,
            Mailing::Queue {
                domain: mail_domain,
            },
        )
        .await?;
        tx.commit().await?;
        // Resolved ahead of its deadline by the GM: no lag to speak of.
        crate::measures::turn_resolved(started.elapsed(), None);
        fault::point("after_commit").await;
    }
    Ok(())
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
    let Some(failures_before) = store::turns::lock_open_turn_failures(&mut tx, turn).await? else {
        return Ok(());
    };
    let retry_at = now + crate::outbox::backoff(failures_before);
    let error = error.to_string();
    store::turns::record_resolve_failure(&mut *tx, turn, &error, retry_at).await?;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            game: Some(game),
            action: store::audit::AuditAction::TurnResolveFailed {
                turn_id: turn,
                error: error.clone(),
                failures: failures_before + 1,
                retry_at,
            },
        },
        now,
    )
    .await?;
    if failures_before == 0 {
        tell_the_gm(&mut tx, game, &error, now).await?;
    }
    tx.commit().await?;
    tracing::error!(
        %game,
        %turn,
        failures = failures_before + 1,
        %retry_at,
        error = %error,
        "resolving a due turn failed; the other due turns go on, this one is retried later"
    );
    Ok(())
}

/// Records for the GM's digest that a due turn could not be resolved (the first failure: the
/// retries that follow are in the audit log and on the game's page).
async fn tell_the_gm(
    tx: &mut sqlx::PgConnection,
    game: GameId,
    error: &str,
    now: DateTime<Utc>,
) -> Result<(), LifecycleError> {
    let name = store::games::summary(&mut *tx, game)
        .await?
        .map_or_else(|| format!("game {game}"), |summary| summary.name);
    let summary = format!("A due turn of {name} could not be resolved: {error}. It is retried.");
    let notice = store::notices::NewNotice {
        kind: store::status::NoticeKind::TurnFailed,
        game: Some(game),
        summary: &summary,
        link: &format!("/gm/games/{game}"),
    };
    store::notices::record(&mut *tx, &notice, now).await?;
    Ok(())
}

/// Resolves, publishes and mails a turn this transaction holds locked; the caller commits.
pub(crate) async fn resolve_claimed(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    now: DateTime<Utc>,
    mailing: Mailing<'_>,
) -> Result<ResolvedTurn, LifecycleError> {
    let claimed = ClaimedTurn::read(&mut *tx, due).await?;
    fault::point("after_claim").await;
    let (game, number) = (&claimed.game, claimed.number);

    let leaving = seats::settle_who_plays(&mut *tx, due, game, number, now).await?;
    let (input, press) = recorded_input(&mut *tx, game.engine, due.id).await?;
    let joining = input.joining.len();
    let players = store::players::of_game(&mut *tx, game.id).await?;
    let tally = super::missed::tally(&players, &claimed.state, &input);
    let resolved = claimed.resolve(&mut *tx, input, &press).await?;
    fault::point("after_resolve").await;

    let seed = claimed.secret.turn_seed(number).to_hex();
    let text = publication::publish_report(&mut *tx, due, &resolved.report, &seed, now).await?;
    fault::point("after_publish").await;
    store::games::set_state(&mut *tx, game.id, &resolved.state).await?;
    let finished = resolved.state.outcome().finished;
    let next_turn = publication::open_next_turn(&mut *tx, &claimed, due, &resolved, now).await?;

    let domain = match mailing {
        Mailing::Queue { domain } => Some(domain),
        Mailing::WebOnly => None,
    };
    super::missed::count_turn(&mut *tx, game.id, game.engine, &tally, number, now, domain).await?;
    let mails = match domain {
        Some(domain) => {
            let publication = publication::Publication {
                game,
                due,
                number,
                text: &text,
                seed_hex: &seed,
                next_turn,
                state: &resolved.state,
            };
            publication.queue(&mut *tx, now, domain).await?
        }
        None => 0,
    };
    fault::point("after_mail_queued").await;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            game: Some(game.id),
            action: store::audit::AuditAction::TurnResolve {
                turn: number,
                seed,
                finished,
                mails,
                joining,
                leaving,
            },
        },
        now,
    )
    .await?;
    Ok(ResolvedTurn {
        game: game.id,
        turn: number,
        finished,
        mails_queued: usize::try_from(mails).unwrap_or(usize::MAX),
    })
}

/// A due turn's game as its claim found it: the state at this turn and the game's secret.
pub(super) struct ClaimedTurn {
    pub game: GameForTurn,
    pub state: AnyState,
    pub secret: GameSecret,
    pub number: u32,
}

impl ClaimedTurn {
    async fn read(tx: &mut sqlx::PgConnection, due: &DueTurn) -> Result<Self, LifecycleError> {
        let game = store::games::game_for_turn(&mut *tx, due.game_id).await?;
        let state = game.engine.parse_state_text(&game.state)?;
        let secret = game_secret(&game.secret_seed, game.id)?;
        let number = super::turn_number(due.number, game.id)?;
        if state.turn() != number {
            return Err(LifecycleError::inconsistent(
                game.id,
                format!("the state is not at turn {number}"),
            ));
        }
        Ok(Self {
            game,
            state,
            secret,
            number,
        })
    }

    /// The engine's resolution with this turn's dice; rows of seats that changed hands this
    /// turn carry the names their holders had when they played.
    async fn resolve(
        &self,
        tx: &mut sqlx::PgConnection,
        input: TurnInput<AnyOrders>,
        press: &[PressItem],
    ) -> Result<Resolved, LifecycleError> {
        let renames =
            store::replacements::names_at_turn(&mut *tx, self.game.id, self.number).await?;
        let roster = self.state.roster();
        let mut resolved =
            self.state
                .resolve(input, press, &mut self.secret.turn_dice(self.number))?;
        games::renames::rename_rows(
            &mut resolved.report,
            &roster,
            &resolved.state.roster(),
            &renames,
        );
        Ok(resolved)
    }
}
