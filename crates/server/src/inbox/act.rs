//! Carrying out an authenticated message: its orders for each game it names, then its
//! commands, each adding a paragraph to the confirmation. A re-sent copy of a message already
//! carried out (see `copies`) is carried out again without what would be done twice: its press
//! (PRESS lines, and press written with the orders) and its TELLs.

use chrono::{DateTime, Utc};
use mail::Reading;
use mail::commands::Command;
use store::players::TokenHolder;
use store::status::Source;

use super::commands::{self, Context};
use super::identify::Sender;
use super::{Batch, Settings};
use crate::config::PressLimits;
use crate::letters::{Letter, replies};
use crate::turns::{self, LifecycleError};

/// When a message arrived, and when the message it is a re-sent copy of did.
pub(super) struct Arrival {
    pub received: DateTime<Utc>,
    pub copy_of: Option<DateTime<Utc>>,
}

/// Carries out the commands and orders of an authenticated message; returns the
/// confirmation.
pub(super) async fn act(
    tx: &mut sqlx::PgConnection,
    batch: &mut Batch,
    reading: &Reading,
    sender: &Sender,
    arrival: Arrival,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Result<Letter, LifecycleError> {
    let Arrival { received, copy_of } = arrival;
    let commands = &reading.commands;
    let mut out = Vec::new();
    if let Some(default) = &sender.default {
        out.push(replies::heading(default));
    }
    if let Some(earlier) = copy_of {
        out.push(crate::letters::copies::copy_note(earlier));
    }
    if reading.mail.truncated.any() {
        out.push(replies::truncated());
    }
    out.extend(commands.problems.iter().map(replies::problem));
    // Orders first, then the commands: press written with the orders comes before PRESS lines.
    let arrival = Arrival { received, copy_of };
    let ordered_games =
        take_orders(tx, batch, reading, sender, &arrival, settings, &mut out).await?;
    let mut context = Context {
        tx,
        batch,
        reading,
        sender,
        received,
        copy_of,
        now,
        settings,
        tells_spent: None,
    };
    if let Some(conversation) = &sender.conversation
        && let Some(answer) = commands::answer_tell(&mut context, conversation).await?
    {
        out.push(answer);
    }
    let mut helped = false;
    for command in &commands.commands {
        // However many HELP lines a message has, the help is sent once.
        if matches!(command.command, Command::Help) {
            if !helped {
                helped = true;
                out.push(mail::HELP.to_owned());
            }
            continue;
        }
        if let Some(answer) = commands::carry_out(&mut context, command).await? {
            out.push(answer);
        }
    }
    if !reading.mail.attachments.is_empty() {
        out.push(replies::attachments_ignored(reading.mail.attachments.len()));
    }
    if commands.commands.is_empty() && commands.orders.is_empty() && commands.problems.is_empty() {
        out.push(replies::NOTHING_TO_DO.to_owned());
    }
    Ok(replies::confirmation(
        &ordered_games,
        sender.default.as_ref().map(|d| d.game_name.as_str()),
        &out,
    ))
}

/// Takes the message's orders, game by game; returns the names of the games whose orders were
/// taken. A copy's orders are taken without the press written with them.
async fn take_orders(
    tx: &mut sqlx::PgConnection,
    batch: &mut Batch,
    reading: &Reading,
    sender: &Sender,
    arrival: &Arrival,
    settings: &Settings,
    out: &mut Vec<String>,
) -> Result<Vec<String>, LifecycleError> {
    let received = arrival.received;
    let press_limits = settings.limits.press;
    let commands = &reading.commands;
    let mut ordered_games = Vec::new();
    for game in commands.order_games() {
        // In a reply to a relayed TELL, the lines that would be orders are the reply
        // (`commands::answer_tell`); only lines under a GAME line are orders.
        if game.is_none() && sender.conversation.is_some() {
            continue;
        }
        let orders = commands.order_text(game);
        let first_line = orders.lines.first().copied().unwrap_or_default();
        let holder = match sender.game(game) {
            Ok(holder) => holder,
            Err(why) => {
                out.push(replies::orders_not_for_you(first_line, &why));
                continue;
            }
        };
        if let Err(why) = turns::may_play(holder) {
            out.push(replies::orders_not_accepted(&holder.game_name, &why));
            continue;
        }
        // A RESIGN answers the message for its game: the lines beside it are not orders
        // ("Sorry all, work has swallowed me."), and a player leaving sends none.
        if resigns_from(commands, game) {
            out.push(replies::not_read_as_orders_resigning(
                &holder.game_name,
                &commands.orders_of(game),
            ));
            continue;
        }
        let lock = match batch.senders.player(holder.player_id, holder.subscriber_id) {
            Some(lock) => lock,
            // Not among the batch's senders (a row added since): lock it now.
            None => store::subscribers::lock_player(&mut *tx, holder.player_id).await?,
        };
        let submission = turns::Submission {
            game: holder.game_id,
            engine_player: holder.engine_player_id,
            text: &orders.text,
            source: Source::Email,
            press_limits,
            with_press: arrival.copy_of.is_none(),
            mail_domain: Some(&settings.domain),
        };
        match turns::submit_orders_in(tx, &mut batch.open_turns, &lock, received, &submission).await
        {
            Ok(taken) => {
                if taken.stored {
                    ordered_games.push(holder.game_name.clone());
                }
                answer_taken(holder, &taken, &orders, &press_limits, out);
            }
            Err(
                error @ (LifecycleError::DeadlinePassed(_)
                | LifecycleError::NoOpenTurn(_)
                | LifecycleError::LaterOrdersStand),
            ) => {
                out.push(replies::orders_not_accepted(&holder.game_name, &error));
            }
            Err(error) => return Err(error),
        }
    }
    Ok(ordered_games)
}

/// The reply's words for a set taken in: the verdict line by line, then what became of press.
fn answer_taken(
    holder: &TokenHolder,
    taken: &turns::Taken,
    orders: &mail::commands::OrderText,
    press_limits: &PressLimits,
    out: &mut Vec<String>,
) {
    out.push(replies::orders_confirmation(
        holder,
        &taken.parsed,
        taken.stored,
        orders,
    ));
    if taken.press_withdrawn > 0 {
        out.push(replies::press_replaced(
            &holder.game_name,
            taken.press_withdrawn,
        ));
    }
    for (sent, admitted) in taken.parsed.press.iter().zip(&taken.press) {
        out.push(replies::press(
            &holder.game_name,
            sent,
            admitted,
            press_limits,
        ));
    }
}

/// Whether the message resigns from the game its order lines for `game` go to (a RESIGN
/// under the same GAME line, or under none).
fn resigns_from(commands: &mail::commands::Commands, game: Option<&str>) -> bool {
    commands.commands.iter().any(|c| {
        matches!(c.command, Command::Resign)
            && match (c.game.as_deref(), game) {
                (None, None) => true,
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                _ => false,
            }
    })
}
