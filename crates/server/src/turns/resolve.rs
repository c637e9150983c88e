//! Resolving every turn whose deadline has passed: the engine's resolution, the published
//! report, the revealed seed, the next turn and the queued mail, in one transaction per turn.

use chrono::{DateTime, Utc};
use engine::{Player, PlayerId};
use games::{AnyState, EngineKind};
use store::PgPool;
use store::games::{GameForTurn, GameId};
use store::outbox::Headers;
use store::players::NewPlayer;
use store::status::PlayerStatus;
use store::turns::{DueTurn, NewReport, NewTurn, TurnId};

use super::{LifecycleError, game_secret, player_id, recorded_input};
use crate::entropy::{Entropy, OsEntropy, new_reply_token};
use crate::outbox::post::{Circular, Posting, post_circular, post_each};
use crate::{fault, letters};

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
/// got to it first (then it is done already).
pub(crate) async fn resolve_open_turn_now(
    pool: &PgPool,
    game: GameId,
    now: DateTime<Utc>,
    mail_domain: &str,
) -> Result<(), LifecycleError> {
    let mut tx = pool.begin().await?;
    if let Some(due) = store::turns::claim_open_turn(&mut tx, game).await? {
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

/// Resolves, publishes and mails a turn this transaction holds locked; the caller commits.
pub(crate) async fn resolve_claimed(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    now: DateTime<Utc>,
    mailing: Mailing<'_>,
) -> Result<ResolvedTurn, LifecycleError> {
    let game = store::games::game_for_turn(&mut *tx, due.game_id).await?;
    let engine = game.engine;
    let state = engine.parse_state_text(&game.state)?;
    let secret = game_secret(&game.secret_seed, game.id)?;
    let number = super::turn_number(due.number, game.id)?;
    if state.turn() != number {
        return Err(LifecycleError::inconsistent(
            game.id,
            format!("the state is not at turn {number}"),
        ));
    }

    fault::point("after_claim").await;
    let settings = &game.schedule;

    // Who plays this turn: a subscriber who is no longer active leaves; in an engine where
    // every subscriber plays, a new subscriber joins (BARMY-02, BARMY-GM-11). Both are recorded
    // with the turn, so `gm verify` replays the same input.
    store::players::retire_lapsed_subscribers(&mut *tx, game.id).await?;
    let leaving: Vec<i64> = store::players::of_game(&mut *tx, game.id)
        .await?
        .iter()
        .filter(|p| p.status != PlayerStatus::Active)
        .map(|p| p.engine_player_id)
        .collect();
    store::turns::set_leaving(&mut *tx, due.id, &leaving).await?;
    // Seats that changed hands with this turn take their new holders' names in the engine.
    let renaming: Vec<engine::Player> =
        store::replacements::taking_effect(&mut *tx, game.id, number)
            .await?
            .into_iter()
            .map(|(id, name)| engine::Player {
                id: player_id(id),
                name,
            })
            .collect();
    store::turns::set_renaming(&mut *tx, due.id, &renaming).await?;
    if enrols_every_subscriber(engine) {
        let joining = enrol_new_subscribers(&mut *tx, game.id, number + 1, &mut OsEntropy).await?;
        store::turns::set_joining(&mut *tx, due.id, &joining).await?;
    }
    crate::turns::absences::apply_at_resolution(&mut *tx, due, engine, settings.zone(), now)
        .await?;
    let (input, press) = recorded_input(&mut *tx, engine, due.id).await?;

    let joining = input.joining.len();
    let players = store::players::of_game(&mut *tx, game.id).await?;
    let tally = super::missed::tally(&players, &state, &input);
    let renames = store::replacements::names_at_turn(&mut *tx, game.id, number).await?;
    let roster = state.roster();
    let mut resolved = state.resolve(input, &press, &mut secret.turn_dice(number))?;
    super::renames::rename_rows(
        &mut resolved.report,
        &roster,
        &resolved.state.roster(),
        &renames,
    );
    fault::point("after_resolve").await;
    let seed = secret.turn_seed(number);
    store::turns::mark_resolved(&mut *tx, due.id, &seed.to_hex(), now).await?;
    let text = resolved.report.to_text();
    store::turns::publish_report(
        &mut *tx,
        &NewReport {
            turn_id: due.id,
            text: &text,
            markdown: &resolved.report.to_markdown(),
            html: &resolved.report.to_html(),
            report: &resolved.report,
        },
        now,
    )
    .await?;
    fault::point("after_publish").await;
    store::games::set_state(&mut *tx, game.id, &resolved.state).await?;

    let outcome = resolved.state.outcome();
    // The next turn and its deadline, for the report's mail.
    let mut next_turn = None;
    if outcome.finished {
        // Every fact is public now: reveal every sealed seed, so anyone can check every turn.
        let sealed: Vec<(u32, String)> = (0..=number)
            .map(|n| (n, secret.sealed_seed(n).to_hex()))
            .collect();
        store::games::finish_game(&mut *tx, game.id, &sealed).await?;
    } else {
        let next = resolved.state.turn();
        let next_deadline = settings.deadlines().next_deadline(due.deadline, now);
        next_turn = Some((
            next,
            next_deadline.map(|at| letters::deadline(at, settings.zone())),
        ));
        store::turns::open_turn(
            &mut *tx,
            &NewTurn {
                game_id: game.id,
                number: next,
                deadline: next_deadline,
                seed_commitment: &secret.turn_seed(next).commitment(),
                sealed_commitment: &secret.sealed_seed(next).commitment(),
                state_before: &resolved.state,
            },
            now,
        )
        .await?;
    }

    let domain = match mailing {
        Mailing::Queue { domain } => Some(domain),
        Mailing::WebOnly => None,
    };
    super::missed::count_turn(&mut *tx, game.id, engine, &tally, number, now, domain).await?;

    let queued = match mailing {
        Mailing::Queue { domain } => {
            queue_publication(
                &mut *tx,
                &game,
                due,
                number,
                &text,
                &seed.to_hex(),
                next_turn,
                &resolved.state,
                now,
                domain,
            )
            .await?
        }
        Mailing::WebOnly => 0,
    };
    fault::point("after_mail_queued").await;
    store::audit::append(
        &mut *tx,
        &store::audit::NewAuditEntry {
            actor: "system",
            game: Some(game.id),
            action: store::audit::AuditAction::TurnResolve {
                turn: number,
                seed: seed.to_hex(),
                finished: outcome.finished,
                mails: queued,
                joining,
                leaving: leaving.len(),
            },
        },
        now,
    )
    .await?;
    Ok(ResolvedTurn {
        game: game.id,
        turn: number,
        finished: outcome.finished,
        mails_queued: usize::try_from(queued).unwrap_or(usize::MAX),
    })
}

/// Queues a turn's publication: the report to every subscriber of the zine (readers too), and
/// each player their own position with their personal reply address. Returns how many mails.
#[allow(
    clippy::too_many_arguments,
    reason = "one publication's parts, all needed"
)]
async fn queue_publication(
    tx: &mut sqlx::PgConnection,
    game: &GameForTurn,
    due: &DueTurn,
    number: u32,
    text: &str,
    seed_hex: &str,
    next_turn: Option<(u32, Option<String>)>,
    state: &AnyState,
    now: DateTime<Utc>,
    domain: &str,
) -> Result<u64, LifecycleError> {
    // Publication: the report to every subscriber of the zine (readers too), and each player
    // their own position with their personal reply address. Queued in this transaction, once.
    // The report's body is stored once and shared by every copy; the copies are one message,
    // with one Message-ID, which the outbox sends to many subscribers at a time.
    let report = letters::turns::report(&game.name, number, text, seed_hex, next_turn);
    // Subscribers who chose the zine's issue get this report there instead (docs/issues.md).
    let copies: Vec<(String, String)> = store::issues::report_readers(&mut *tx, game.zine_id)
        .await?
        .into_iter()
        .map(|(id, email)| (format!("report:{}:{}", due.id, id), email))
        .collect();
    let circular = Circular {
        message_id: letters::turns::report_message_id(due.id, domain),
        letter: &report,
        html: None,
        copies,
    };
    let mut queued = post_circular(&mut *tx, &circular, now).await?;

    // Read again: this turn's joiners get their position too.
    let players = store::players::of_game(&mut *tx, game.id).await?;
    let active: Vec<_> = players
        .iter()
        .filter(|p| p.status == PlayerStatus::Active)
        .collect();
    let ids: Vec<PlayerId> = active
        .iter()
        .map(|p| player_id(p.engine_player_id))
        .collect();
    let views = state.private_lines(&ids);
    let positions: Vec<Posting> = active
        .iter()
        .zip(views)
        .map(|(player, lines)| Posting {
            to: player.email.clone(),
            letter: letters::turns::position(
                &game.name,
                number,
                &lines,
                &player.reply_token,
                domain,
            ),
            html: None,
            headers: Headers::reply_to(letters::reply_address(&player.reply_token, domain)),
            key: format!("position:{}:{}", due.id, player.id),
            message_id: format!("<position.{}.{}@{domain}>", due.id, player.id),
        })
        .collect();
    queued += post_each(&mut *tx, &positions, now).await?;
    Ok(queued)
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
