//! The mail commands besides orders (docs/mail.md): each carried out and answered with a
//! paragraph of the confirmation.

use chrono::{DateTime, Utc};
use engine::Viewer;
use mail::Reading;
use mail::commands::{Command, CommandLine};
use store::audit::{AuditAction, Via};
use store::outbox::Headers;
use store::players::TokenHolder;
use store::status::{MailChoice, OfferReason, PlayerStatus, Source, SubscriberStatus};
use store::zines::ZineId;

use super::budget::{self, Relay, Relayed};
use super::identify::{Proof, Sender};
use super::seat_offers::Answering;
use super::{Batch, Settings, audit};
use crate::entropy::OsEntropy;
use crate::issues;
use crate::letters::{self, replies};
use crate::limits::{Budgeted, Over};
use crate::offers::Answer;
use crate::outbox::post::Posting;
use crate::secrets::{self, PasswordError, Wait};
use crate::turns::{self, LifecycleError};

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
        && matches!(
            command.command,
            Command::Press { .. }
                | Command::PressWithdraw
                | Command::Tell { .. }
                | Command::Letter { .. }
        )
    {
        return Ok(Some(letters::copies::not_again(line, earlier)));
    }
    let target = cx.sender.game(command.game.as_deref());
    let answer = match &command.command {
        Command::Help | Command::Game { .. } => return Ok(None),
        Command::Password { secret } => {
            return password(cx, line, secret.expose_secret()).await;
        }
        Command::Press { text } => match target.and_then(playing) {
            Ok(holder) => press(cx, line, holder, text).await?,
            Err(why) => replies::line_refused(line, Some("press not accepted"), &why),
        },
        Command::PressWithdraw => match target.and_then(playing) {
            Ok(holder) => withdraw_press(cx, line, holder).await?,
            Err(why) => replies::line_refused(line, Some("press not withdrawn"), &why),
        },
        Command::Position => match target {
            Ok(holder) => position(cx, holder).await?,
            Err(why) => replies::line_refused(line, None, &why),
        },
        Command::Status => match target {
            Ok(holder) => {
                let current = store::orders::current_raw_orders(
                    &mut *cx.tx,
                    holder.game_id,
                    holder.player_id,
                )
                .await?;
                replies::status(holder, current.as_deref())
            }
            Err(why) => replies::line_refused(line, None, &why),
        },
        Command::Tell { to, text } => match target.and_then(playing) {
            Ok(holder) => tell(cx, holder, line, to, text).await?,
            Err(why) => replies::line_refused(line, Some("your message was not relayed"), &why),
        },
        Command::Join { game } => match cx.sender.game(Some(game)) {
            Ok(holder) => replies::join(holder),
            Err(_) => sign_up(cx, game).await?,
        },
        Command::List => list(cx).await?,
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
            Ok(holder) if holder.status == PlayerStatus::Active => resign(cx, holder).await?,
            Ok(holder) => replies::already_left(line, holder.status, &holder.game_name),
            Err(why) => replies::line_refused(line, None, &why),
        },
        Command::Standby { on } => standby(cx, *on).await?,
        Command::Accept | Command::Decline => {
            let answer = if command.command == Command::Accept {
                Answer::Accept
            } else {
                Answer::Decline
            };
            let answering = Answering {
                tx: &mut *cx.tx,
                sender: cx.sender,
                now: cx.now,
                domain: &cx.settings.domain,
            };
            super::seat_offers::answer(answering, line, command.game.as_deref(), answer).await?
        }
        Command::Unsubscribe => unsubscribe(cx).await?,
        Command::Letter { text } => letter(cx, line, text).await?,
        Command::Receive { issue } => receive(cx, *issue).await?,
    };
    Ok(Some(answer))
}

/// The sender's zine: every subscription belongs to one.
async fn zine_of_sender(cx: &mut Context<'_, '_>) -> Result<Option<ZineId>, LifecycleError> {
    Ok(store::subscribers::find(&mut *cx.tx, cx.sender.subscriber)
        .await?
        .filter(|s| s.status == SubscriberStatus::Active)
        .map(|s| s.zine_id))
}

/// JOIN a game the sender does not play: a sign-up for the zine's game of that name.
async fn sign_up(cx: &mut Context<'_, '_>, game: &str) -> Result<String, LifecycleError> {
    let Some(zine) = zine_of_sender(cx).await? else {
        return Ok(letters::signups::not_subscribed(game));
    };
    use crate::rosters::signups::Joined;
    let joined = crate::rosters::signups::join_in(
        &mut *cx.tx,
        cx.now,
        zine,
        cx.sender.subscriber,
        game,
        letters::MailSite {
            domain: &cx.settings.domain,
            base_url: cx.settings.base_url.as_str(),
        },
    )
    .await?;
    Ok(match joined {
        Joined::Queued {
            game,
            place,
            seats,
            already,
            seating,
        } => letters::signups::queued(&game, place, seats, already, seating),
        Joined::Started { game, .. } => letters::signups::started(&game),
        Joined::Full { game, seats } => letters::signups::full(&game, seats),
        Joined::Closed { game } => letters::signups::closed(&game),
        Joined::NotOpen { game } => {
            let open = store::signups::open_for_signup(&mut *cx.tx, zine).await?;
            letters::signups::not_open(&game, &open)
        }
    })
}

/// LIST: the sender's zine's games open for sign-up.
async fn list(cx: &mut Context<'_, '_>) -> Result<String, LifecycleError> {
    let Some(zine) = zine_of_sender(cx).await? else {
        return Ok(letters::signups::listed(&[]));
    };
    let open = store::signups::open_for_signup(&mut *cx.tx, zine).await?;
    Ok(letters::signups::listed(&open))
}

/// The player row, if it may play now.
fn playing(holder: &TokenHolder) -> Result<&TokenHolder, String> {
    turns::may_play(holder).map(|()| holder)
}

/// PASSWORD in a reply to a personal address sets the password (elsewhere it only proved who
/// wrote).
async fn password(
    cx: &mut Context<'_, '_>,
    line: usize,
    secret: &str,
) -> Result<Option<String>, LifecycleError> {
    if cx.sender.proof != Proof::ReplyToken {
        return Ok(None);
    }
    // Argon2 is 19 MiB and tens of milliseconds: through the process's gate, off the async
    // threads; mail waits its turn.
    let hash = match secrets::hash_new(secrets::gate(), Wait::Always, secret.to_owned()).await {
        Ok(hash) => hash,
        Err(PasswordError::TooShort(min)) => {
            return Ok(Some(letters::passwords::too_short(line, min)));
        }
        Err(error) => {
            return Err(LifecycleError::Internal(error.to_string()));
        }
    };
    store::subscribers::set_password_hash(&mut *cx.tx, cx.sender.subscriber, &hash).await?;
    audit(
        cx.tx,
        None,
        AuditAction::PasswordSet {
            subscriber: cx.sender.subscriber,
            via: Via::Mail,
        },
        cx.now,
    )
    .await?;
    Ok(Some(replies::password_set(line, &cx.sender.email)))
}

/// PRESS WITHDRAW: the press sent in earlier messages for the turn goes; this message's stands.
async fn withdraw_press(
    cx: &mut Context<'_, '_>,
    line: usize,
    holder: &TokenHolder,
) -> Result<String, LifecycleError> {
    let lock = match cx
        .batch
        .senders
        .player(holder.player_id, holder.subscriber_id)
    {
        Some(lock) => lock,
        None => store::subscribers::lock_player(&mut *cx.tx, holder.player_id).await?,
    };
    match turns::withdraw_press_in(
        cx.tx,
        &mut cx.batch.open_turns,
        &lock,
        cx.received,
        holder.game_id,
    )
    .await
    {
        Ok(withdrawn) => {
            turns::audit_withdrawal(cx.tx, cx.now, holder, withdrawn).await?;
            Ok(replies::press_withdrawn(line, &holder.game_name, withdrawn))
        }
        Err(error @ (LifecycleError::NoOpenTurn(_) | LifecycleError::DeadlinePassed(_))) => Ok(
            replies::line_refused(line, Some("press not withdrawn"), &error),
        ),
        Err(error) => Err(error),
    }
}

async fn press(
    cx: &mut Context<'_, '_>,
    line: usize,
    holder: &TokenHolder,
    text: &str,
) -> Result<String, LifecycleError> {
    let lock = match cx
        .batch
        .senders
        .player(holder.player_id, holder.subscriber_id)
    {
        Some(lock) => lock,
        None => store::subscribers::lock_player(&mut *cx.tx, holder.player_id).await?,
    };
    let limits = cx.settings.limits.press;
    match turns::press_for_open_turn(
        cx.tx,
        &mut cx.batch.open_turns,
        &lock,
        cx.received,
        holder.game_id,
        text,
        Source::Email,
        limits,
    )
    .await
    {
        Ok(taken) => {
            cx.batch.press.extend(taken.press);
            Ok(replies::press(
                &holder.game_name,
                text,
                &taken.admitted,
                &limits,
            ))
        }
        Err(error @ LifecycleError::NoOpenTurn(_)) => Ok(replies::line_refused(
            line,
            Some("press not accepted"),
            &error,
        )),
        Err(error) => Err(error),
    }
}

/// POSITION: what the player may see of the game now.
async fn position(
    cx: &mut Context<'_, '_>,
    holder: &TokenHolder,
) -> Result<String, LifecycleError> {
    let state = turns::game_state(&mut *cx.tx, holder.game_id).await?;
    let me = turns::player_id(holder.engine_player_id);
    Ok(replies::position(
        &holder.game_name,
        &state.view(Viewer::Player(me)).lines,
    ))
}

async fn resign(cx: &mut Context<'_, '_>, holder: &TokenHolder) -> Result<String, LifecycleError> {
    crate::rosters::resign::resign_in(
        &mut *cx.tx,
        holder.game_id,
        holder.player_id,
        crate::rosters::resign::Via::Mail,
        cx.now,
        &cx.settings.domain,
    )
    .await?;
    // The batch's player rows read before no longer say who plays.
    cx.batch.holders_by_token.clear();
    Ok(replies::resigned(&holder.game_name))
}

/// STANDBY / STANDBY OFF: the sender's place on the standby list (docs/rosters.md).
async fn standby(cx: &mut Context<'_, '_>, on: bool) -> Result<String, LifecycleError> {
    let subscriber = cx.sender.subscriber;
    let changed = if on {
        store::replacements::standby_on(&mut *cx.tx, subscriber).await?
    } else {
        store::replacements::standby_off(&mut *cx.tx, subscriber).await?
    };
    if changed {
        let via = Via::Mail;
        let action = if on {
            AuditAction::StandbyOn { subscriber, via }
        } else {
            AuditAction::StandbyOff { subscriber, via }
        };
        audit(cx.tx, None, action, cx.now).await?;
    }
    Ok(if on {
        crate::letters::replacements::standby_on(changed)
    } else {
        crate::letters::replacements::standby_off(changed)
    })
}

async fn unsubscribe(cx: &mut Context<'_, '_>) -> Result<String, LifecycleError> {
    let sender = cx.sender;
    store::subscribers::set_status(
        &mut *cx.tx,
        sender.subscriber,
        SubscriberStatus::Unsubscribed,
    )
    .await?;
    cx.batch.holders_by_token.clear();
    let mut left = Vec::new();
    for holder in sender
        .games
        .iter()
        .filter(|g| g.status == PlayerStatus::Active)
    {
        store::players::set_status(&mut *cx.tx, holder.player_id, PlayerStatus::Resigned).await?;
        crate::offers::seat_left(
            &mut *cx.tx,
            holder.game_id,
            holder.player_id,
            OfferReason::Resigned,
            cx.now,
            &cx.settings.domain,
        )
        .await?;
        left.push(holder.game_name.clone());
    }
    let revoked = secrets::revoke_subscriber(cx.tx, sender.subscriber, &mut OsEntropy).await?;
    audit(
        cx.tx,
        None,
        AuditAction::SubscriberUnsubscribeByMail {
            subscriber: sender.subscriber,
            resigned_from: left.clone(),
            via: Via::Mail,
            revoked,
        },
        cx.now,
    )
    .await?;
    Ok(replies::unsubscribed(&left))
}

/// TELL: relays a private message to another player of the same game, from Admiralty's
/// address, so that no one learns another's address. Returns the line for the confirmation.
async fn tell(
    cx: &mut Context<'_, '_>,
    from: &TokenHolder,
    line: usize,
    to: &str,
    text: &str,
) -> Result<String, LifecycleError> {
    let wanted = to.trim();
    let max = cx.settings.limits.tell_max_chars;
    let length = text.chars().count();
    if length > usize::try_from(max).unwrap_or(usize::MAX) {
        audit(
            cx.tx,
            Some(from.game_id),
            AuditAction::TellTooLong {
                from_player: from.player_id,
                to: wanted.to_owned(),
                limit: "ADMIRALTY_TELL_MAX_CHARS",
                allowed: max,
                characters: length,
            },
            cx.now,
        )
        .await?;
        return Ok(replies::tell_too_long(line, wanted, length, max));
    }
    if let Some(over) = cx.tells_spent {
        budget::audit_tell_over(cx.tx, from, wanted, &over, cx.now).await?;
        return Ok(replies::tell_not_relayed(line, wanted, &over));
    }
    let players = store::players::player_rows_of_game(&mut *cx.tx, from.game_id).await?;
    let recipient = players.iter().find(|p| {
        p.display_name.trim().eq_ignore_ascii_case(wanted)
            || wanted.parse::<i64>().is_ok_and(|n| n == p.engine_player_id)
    });
    let Some(recipient) = recipient.filter(|p| p.status == PlayerStatus::Active) else {
        let names: Vec<String> = players
            .iter()
            .filter(|p| p.status == PlayerStatus::Active && p.player_id != from.player_id)
            .map(|p| format!("{} ({})", p.display_name, p.engine_player_id))
            .collect();
        return Ok(replies::tell_no_such_player(
            line,
            wanted,
            &from.game_name,
            &names,
        ));
    };
    if recipient.player_id == from.player_id {
        return Ok(replies::tell_to_yourself(line));
    }
    let inbound_id = cx.batch.message_key(cx.reading);
    let domain = cx.settings.domain.as_str();
    let letter = replies::relayed_tell(&from.display_name, &from.game_name, text);
    let relay = Relay {
        mail: Posting::once(
            "tell",
            &format!("{inbound_id}|tell|{line}"),
            domain,
            &recipient.email,
            letter,
        )
        .with_headers(Headers::reply_to(letters::reply_address(
            &recipient.reply_token,
            domain,
        ))),
        sender: from.subscriber_id,
        game: from.game_id,
        from_player: from.player_id,
        to_player: recipient.player_id,
    };
    Ok(
        match budget::relay_tell(cx.tx, &relay, cx.settings, cx.now).await? {
            Relayed::Queued => replies::tell_relayed(line, &recipient.display_name),
            Relayed::Over(over) => {
                if over.budget == Budgeted::TellsSent {
                    cx.tells_spent = Some(over);
                }
                replies::tell_not_relayed(line, &recipient.display_name, &over)
            }
            Relayed::Unanswerable => replies::tell_unanswerable(line, &recipient.display_name),
        },
    )
}

/// LETTER: a letter to the editor of the sender's zine, waiting for the GM's approval.
async fn letter(
    cx: &mut Context<'_, '_>,
    line: usize,
    text: &str,
) -> Result<String, LifecycleError> {
    match issues::submit_letter(
        cx.tx,
        cx.sender.subscriber,
        text,
        Source::Email,
        cx.received,
    )
    .await
    {
        Ok(_) => Ok(replies::letter_received(line)),
        Err(why @ (issues::IssueError::EmptyLetter | issues::IssueError::LetterTooLong(_))) => {
            Ok(replies::letter_refused(line, &why))
        }
        Err(issues::IssueError::Store(error)) => Err(error.into()),
        Err(issues::IssueError::Database(error)) => Err(error.into()),
        Err(other) => Ok(replies::letter_refused(line, &other)),
    }
}

/// RECEIVE ISSUE / RECEIVE REPORTS: what the subscriber gets by mail from now on.
async fn receive(cx: &mut Context<'_, '_>, issue: bool) -> Result<String, LifecycleError> {
    let choice = if issue {
        MailChoice::Issue
    } else {
        MailChoice::Reports
    };
    match issues::choose_mail(cx.tx, cx.sender.subscriber, choice, cx.now).await {
        Ok(()) => Ok(replies::receiving(issue)),
        Err(issues::IssueError::Database(error)) => Err(error.into()),
        Err(issues::IssueError::Store(error)) => Err(error.into()),
        Err(other) => Err(LifecycleError::Store(store::StoreError::InvalidRow {
            column: "subscribers.mail_choice",
            reason: other.to_string(),
        })),
    }
}
