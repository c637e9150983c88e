//! Reminders before a deadline, to each active player who has not sent orders yet.

use chrono::{DateTime, Duration, Utc};
use store::PgPool;
use store::games::GameId;
use store::turns::RemindableTurn;

use super::LifecycleError;
use crate::letters::{self, MailSite};
use crate::outbox::post::{Posting, post_each};

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
    site: MailSite<'_>,
) -> Result<Vec<ReminderRound>, LifecycleError> {
    let mut rounds = Vec::new();
    for turn in store::turns::remindable_turns(pool, now).await? {
        let settings = &turn.schedule;
        for offset in settings.reminders() {
            let moment = turn.deadline - *offset;
            let minutes = i32::try_from(offset.num_minutes()).unwrap_or(i32::MAX);
            if moment > now || moment < turn.opened_at || turn.done_minutes.contains(&minutes) {
                continue;
            }
            if let Some(round) = remind(pool, now, site, &turn, *offset).await? {
                rounds.push(round);
            }
        }
    }
    Ok(rounds)
}

async fn remind(
    pool: &PgPool,
    now: DateTime<Utc>,
    site: MailSite<'_>,
    turn: &RemindableTurn,
    offset: Duration,
) -> Result<Option<ReminderRound>, LifecycleError> {
    let minutes = i32::try_from(offset.num_minutes()).unwrap_or(i32::MAX);
    let mut tx = pool.begin().await?;
    // The turn's lock keeps a resolution and a reminder round of one turn apart.
    if !store::turns::lock_open_turn(&mut tx, turn.id).await?
        || !store::turns::claim_reminder_round(&mut *tx, turn.id, minutes, now).await?
    {
        return Ok(None);
    }
    let game_name = store::games::name(&mut *tx, turn.game_id)
        .await?
        .ok_or(LifecycleError::GameNotFound(turn.game_id))?;
    let number = u32::try_from(turn.number).unwrap_or_default();
    // A player absent on the deadline's day gets no reminder (docs/rosters.md, "Absences").
    let zone = turn.schedule.zone();
    let day = crate::turns::absences::day_of(Some(turn.deadline), now, zone);
    let absent: Vec<_> = store::absences::absent_players(&mut *tx, turn.game_id, day)
        .await?
        .into_iter()
        .map(|p| p.player_id)
        .collect();
    let mail_domain = site.domain;
    let readers = super::started::list_readers(&mut tx, turn.game_id).await?;
    let mut reminders = Vec::new();
    for player in store::players::players_without_orders(&mut *tx, turn.game_id, turn.id).await? {
        if absent.contains(&player.id) {
            continue;
        }
        let letter = letters::turns::reminder(
            &player.display_name,
            &game_name,
            number,
            turn.deadline.with_timezone(&turn.schedule.zone()),
            turn.deadline - now,
            &player.reply_token,
            mail_domain,
        );
        reminders.push(Posting {
            to: player.email,
            letter,
            html: None,
            headers: letters::lists::to_many(site, readers.get(&player.id), &player.reply_token),
            key: format!("reminder:{}:{minutes}:{}", turn.id, player.id),
            message_id: format!(
                "<reminder.{}.{minutes}.{}@{mail_domain}>",
                turn.id, player.id
            ),
        });
    }
    let queued = usize::try_from(post_each(&mut tx, &reminders, now).await?).unwrap_or(usize::MAX);
    store::turns::count_reminder_round(
        &mut *tx,
        turn.id,
        minutes,
        i32::try_from(queued).unwrap_or(i32::MAX),
    )
    .await?;
    tx.commit().await?;
    Ok(Some(ReminderRound {
        game: turn.game_id,
        turn: number,
        before_deadline: offset,
        mails_queued: queued,
    }))
}
