//! A resolved turn made public: the report stored in its three forms, the next turn opened
//! (or the game finished and every seed revealed), and the mail queued.

use chrono::{DateTime, Utc};
use engine::{PlayerId, Report};
use games::{AnyState, Resolved};
use store::games::GameForTurn;
use store::outbox::Headers;
use store::status::PlayerStatus;
use store::turns::{DueTurn, NewReport, NewTurn};

use super::ClaimedTurn;
use crate::letters;
use crate::lifecycle::{LifecycleError, player_id};
use crate::outbox::post::{Circular, Posting, post_circular, post_each};

/// Marks the turn resolved with its seed and stores its report as text, Markdown and HTML.
/// Returns the text, which the report's mail carries.
pub(super) async fn publish_report(
    tx: &mut sqlx::PgConnection,
    due: &DueTurn,
    report: &Report,
    seed_hex: &str,
    now: DateTime<Utc>,
) -> Result<String, LifecycleError> {
    store::turns::mark_resolved(&mut *tx, due.id, seed_hex, now).await?;
    let text = report.to_text();
    store::turns::publish_report(
        &mut *tx,
        &NewReport {
            turn_id: due.id,
            text: &text,
            markdown: &report.to_markdown(),
            html: &report.to_html(),
            report,
        },
        now,
    )
    .await?;
    Ok(text)
}

/// Opens the next turn with its deadline, or, when the game is over, finishes it and reveals
/// every sealed seed so anyone can check every turn. Returns the next turn's number and
/// deadline as the report's mail states them.
pub(super) async fn open_next_turn(
    tx: &mut sqlx::PgConnection,
    claimed: &ClaimedTurn,
    due: &DueTurn,
    resolved: &Resolved,
    now: DateTime<Utc>,
) -> Result<Option<(u32, Option<String>)>, LifecycleError> {
    let (game, secret, number) = (&claimed.game, &claimed.secret, claimed.number);
    if resolved.state.outcome().finished {
        let sealed: Vec<(u32, String)> = (0..=number)
            .map(|n| (n, secret.sealed_seed(n).to_hex()))
            .collect();
        store::games::finish_game(&mut *tx, game.id, &sealed).await?;
        return Ok(None);
    }
    let settings = &game.schedule;
    let next = resolved.state.turn();
    let next_deadline = settings.next_deadline(due.deadline, now);
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
    Ok(Some((
        next,
        next_deadline.map(|at| letters::deadline(at, settings.zone())),
    )))
}

/// What a resolved turn's mail says.
pub(super) struct Publication<'a> {
    pub game: &'a GameForTurn,
    pub due: &'a DueTurn,
    pub number: u32,
    pub text: &'a str,
    pub seed_hex: &'a str,
    pub next_turn: Option<(u32, Option<String>)>,
    pub state: &'a AnyState,
}

impl Publication<'_> {
    /// Queues the report to every subscriber of the zine (readers too), and each player their
    /// own position with their personal reply address. Returns how many mails.
    pub(super) async fn queue(
        &self,
        tx: &mut sqlx::PgConnection,
        now: DateTime<Utc>,
        domain: &str,
    ) -> Result<u64, LifecycleError> {
        let Self {
            game,
            due,
            number,
            text,
            seed_hex,
            ref next_turn,
            state,
        } = *self;
        // Queued in this transaction, once. The report's body is stored once and shared by every copy; the copies are one message,
        // with one Message-ID, which the outbox sends to many subscribers at a time.
        let report = letters::turns::report(&game.name, number, text, seed_hex, next_turn.clone());
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
}
