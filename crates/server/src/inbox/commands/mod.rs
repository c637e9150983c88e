//! The mail commands besides orders (docs/mail.md): each carried out and answered with a
//! paragraph of the confirmation.

mod in_game;
mod issue;
mod subscription;
mod tell;
mod tell_names;
mod tell_reply;

pub(super) use tell_reply::answer_tell;

use chrono::{DateTime, Utc};
use mail::Reading;
use mail::commands::{Command, CommandLine};
use store::status::PlayerStatus;

use super::identify::Sender;
use super::seat_offers::Answering;
use super::{Batch, Settings};
use crate::letters::{self, replies};
use crate::limits::Over;
use crate::offers::Answer;
use crate::turns::LifecycleError;

/// What every command may need: the message's transaction and batch, and who sent it.
pub(super) struct Context<'a, 'c> {
    pub tx: &'c mut sqlx::PgConnection,
    pub batch: &'c mut Batch,
    pub reading: &'a Reading,
    pub sender: &'a Sender,
    /// When the message arrived: press counts as of then.
    pub received: DateTime<Utc>,
    /// When the message this one is a re-sent copy of arrived: its press and TELLs were sent
    /// then, and are not again.
    pub copy_of: Option<DateTime<Utc>>,
    pub now: DateTime<Utc>,
    pub settings: &'a Settings,
    /// Set once a TELL of this message was over the sender's hourly budget: the message's
    /// later TELLs are refused without looking their recipients up.
    pub tells_spent: Option<Over>,
}

/// Carries out one command (not HELP, which the caller answers once); returns its paragraph of
/// the confirmation, if it has one.
pub(super) async fn carry_out(
    cx: &mut Context<'_, '_>,
    command: &CommandLine,
) -> Result<Option<String>, LifecycleError> {
    let line = command.line;
    if let Some(earlier) = cx.copy_of
        && sends_something(&command.command)
    {
        return Ok(Some(letters::copies::not_again(line, earlier)));
    }
    let target = cx.sender.game(command.game.as_deref());
    let answer = match &command.command {
        Command::Help | Command::Game { .. } => return Ok(None),
        Command::Password { secret } => {
            return subscription::password(cx, line, secret.expose_secret()).await;
        }
        Command::Press { text } => match target.and_then(in_game::playing) {
            Ok(holder) => in_game::press(cx, line, holder, text).await?,
            Err(why) => replies::line_refused(line, Some("press not accepted"), &why),
        },
        Command::PressWithdraw => match target.and_then(in_game::playing) {
            Ok(holder) => in_game::withdraw_press(cx, line, holder).await?,
            Err(why) => replies::line_refused(line, Some("press not withdrawn"), &why),
        },
        Command::Position => match target {
            Ok(holder) => in_game::position(cx, holder).await?,
            Err(why) => replies::line_refused(line, None, &why),
        },
        Command::Status => match target {
            Ok(holder) => in_game::status(cx, holder).await?,
            Err(why) => replies::line_refused(line, None, &why),
        },
        Command::Tell { to, text } => match target.and_then(in_game::playing) {
            Ok(holder) => tell::tell(cx, holder, line, to, text).await?,
            Err(why) => replies::line_refused(line, Some("your message was not relayed"), &why),
        },
        Command::Join { game } => match cx.sender.game(Some(game)) {
            Ok(holder) => replies::join(holder),
            Err(_) => subscription::sign_up(cx, game).await?,
        },
        Command::List => subscription::list(cx).await?,
        Command::Absent {
            first_day,
            last_day,
        } => {
            let absence = store::absences::Absence {
                first_day: *first_day,
                last_day: *last_day,
            };
            crate::turns::absences::declare(&mut *cx.tx, cx.sender.subscriber, absence, cx.now)
                .await?
        }
        Command::Present => {
            crate::turns::absences::cancel(&mut *cx.tx, cx.sender.subscriber, cx.now).await?
        }
        Command::Resign => match target {
            Ok(holder) if holder.status == PlayerStatus::Active => {
                in_game::resign(cx, holder).await?
            }
            Ok(holder) => replies::already_left(line, holder.status, &holder.game_name),
            Err(why) => replies::line_refused(line, None, &why),
        },
        Command::Standby { on } => subscription::standby(cx, *on).await?,
        Command::Accept => answer_offer(cx, command, Answer::Accept).await?,
        Command::Decline => answer_offer(cx, command, Answer::Decline).await?,
        Command::Unsubscribe => subscription::unsubscribe(cx).await?,
        Command::Letter { text } => issue::letter(cx, line, text).await?,
        Command::Receive { issue } => issue::receive(cx, *issue).await?,
    };
    Ok(Some(answer))
}

/// Commands that send or publish something: a re-sent copy of a message does not do them again.
fn sends_something(command: &Command) -> bool {
    matches!(
        command,
        Command::Press { .. }
            | Command::PressWithdraw
            | Command::Tell { .. }
            | Command::Letter { .. }
    )
}

/// ACCEPT / DECLINE: the sender's answer to the offer of a seat.
async fn answer_offer(
    cx: &mut Context<'_, '_>,
    command: &CommandLine,
    answer: Answer,
) -> Result<String, LifecycleError> {
    let answering = Answering {
        tx: &mut *cx.tx,
        sender: cx.sender,
        now: cx.now,
        domain: &cx.settings.domain,
    };
    super::seat_offers::answer(answering, command.line, command.game.as_deref(), answer).await
}
