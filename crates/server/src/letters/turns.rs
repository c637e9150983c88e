//! What a turn's publication mails: the report to every subscriber, each player's own
//! position, and the reminders before a deadline.

use chrono::{DateTime, Duration, Utc};

use super::{Letter, deadline, reply_address};
use schedule::format_duration;

/// The report, as every subscriber of the zine gets it (readers too): the table and press as
/// published, then the turn's revealed dice seed, then when the next turn's orders are due
/// (`next`: its number and deadline, as [`deadline`] writes it; none when the game is over).
pub fn report(
    game: &str,
    number: u32,
    text: &str,
    seed_hex: &str,
    next: Option<(u32, Option<String>)>,
) -> Letter {
    let next = match next {
        Some((turn, Some(due))) => format!("Turn {turn}: orders are due {due}.\n"),
        Some((turn, None)) => format!("Turn {turn}: the GM will set the deadline.\n"),
        None => String::new(),
    };
    Letter {
        subject: format!("{game}: turn {number} report"),
        body: format!(
            "{text}\n--\nTurn {number} dice seed: {seed_hex} (commitment published before the turn).\n{next}"
        ),
    }
}

/// The Message-ID every copy of a turn's report shares (see docs/delivery.md).
pub fn report_message_id(turn: store::turns::TurnId, domain: &str) -> String {
    format!("<report.{turn}@{domain}>")
}

/// A player's own position after turn `number` (what only they may see), with their reply
/// address.
pub fn position(
    game: &str,
    number: u32,
    lines: &[String],
    reply_token: &str,
    domain: &str,
) -> Letter {
    let reply_to = reply_address(reply_token, domain);
    Letter {
        subject: format!("{game}: your position after turn {number}"),
        body: format!(
            "{}\n\nThe standings and every shot are in the turn's report.\n\
             Your orders for the next turn: reply to this message (it goes to {reply_to}).\n",
            lines.join("\n")
        ),
    }
}

/// A reminder to a player who has no orders in yet.
pub fn reminder(
    player: &str,
    game: &str,
    number: u32,
    due: DateTime<chrono_tz::Tz>,
    left: Duration,
    reply_token: &str,
    domain: &str,
) -> Letter {
    let reply_to = reply_address(reply_token, domain);
    let left = format_duration(left);
    Letter {
        subject: format!("{game}: turn {number}, deadline in {left}"),
        body: format!(
            "{player}, we have no orders from you for turn {number} of {game}.\n\n\
             The deadline is {deadline} (in {left}). Without orders you are NMR (no moves \
             received), with whatever that costs in this game.\n\n\
             To send orders, reply to this message (it goes to {reply_to}).\n",
            deadline = deadline(due.with_timezone(&Utc), due.timezone()),
        ),
    }
}

/// To every player of a game whose turn waits for a player who is away (the absence policy
/// "the deadline waits"): the new deadline, as [`deadline`] writes it. The absent player is not
/// named: their absence is theirs to tell.
pub fn deadline_waits(game: &str, turn: u32, before: &str, after: &str) -> Letter {
    Letter {
        subject: format!("{game}: turn {turn}'s deadline moves to {after}"),
        body: format!(
            "Turn {turn} of {game} waits for a player who is away, as the game's absence policy \
             says: its deadline moves from {before} to {after}.\n\nOrders you have sent for the \
             turn stand; you may change them until the new deadline.\n"
        ),
    }
}
