//! The confirmation of orders received by post: the same words the player would get by mail,
//! shown to the GM who entered them and mailed to the player.

use chrono::NaiveDate;
use engine::ParsedOrders;
use games::AnyOrders;

use super::{Letter, replies};
use crate::config::PressLimits;
use crate::limits::AdmittedPress;

/// Who entered what from the post, and when it was received.
pub struct Posted<'a> {
    pub game: &'a str,
    pub player: &'a str,
    pub received_on: NaiveDate,
    /// The GM's name.
    pub gm: &'a str,
}

/// What the orders the GM entered did: as read, the player's earlier press they withdrew, and
/// each line of press they carried with what became of it.
pub struct Entered<'a> {
    pub parsed: &'a ParsedOrders<AnyOrders>,
    pub press_withdrawn: u64,
    pub press: Vec<(&'a str, &'a AdmittedPress)>,
    pub limits: &'a PressLimits,
}

/// The confirmation of orders the GM entered from the post, with what became of their press
/// (said as a mailed set's confirmation says it).
pub fn confirmation(posted: &Posted<'_>, entered: &Entered<'_>) -> Letter {
    let mut body = orders_as_understood(
        posted.game,
        posted.player,
        posted.received_on,
        posted.gm,
        entered.parsed,
    );
    if entered.press_withdrawn > 0 {
        body.push_str("\n\n");
        body.push_str(&replies::press_replaced(
            posted.game,
            entered.press_withdrawn,
        ));
    }
    for (sent, admitted) in &entered.press {
        body.push_str("\n\n");
        body.push_str(&replies::press(posted.game, sent, admitted, entered.limits));
    }
    Letter {
        subject: format!("{}: your orders received by post", posted.game),
        body,
    }
}

fn orders_as_understood(
    game: &str,
    player: &str,
    received_on: NaiveDate,
    gm: &str,
    parsed: &ParsedOrders<AnyOrders>,
) -> String {
    let mut out = format!(
        "{player}'s orders for {game}, received by post on {}, entered by the GM ({gm}), as understood:\n",
        received_on.format("%A %-d %B %Y")
    );
    for line in &parsed.understood {
        out.push_str(&format!("  - {line}\n"));
    }
    for (kind, issues) in [("Error", &parsed.errors), ("Warning", &parsed.warnings)] {
        for issue in issues {
            out.push_str(&format!(
                "{kind} on line {}: \"{}\"\n    {}\n    Would be accepted: {}\n",
                issue.line, issue.text, issue.problem, issue.expected
            ));
        }
    }
    out.push_str(
        "\nIf nothing more arrives before the deadline, these orders stand. A complete new set \
         (by post, mail or the web) replaces them: the last set received counts.",
    );
    out
}

/// The confirmation of press the GM entered from the post, on its own: the player's orders
/// stay as they were. `sent` is the press, `admitted` what became of it.
pub fn press_confirmation(
    posted: &Posted<'_>,
    sent: &str,
    admitted: &AdmittedPress,
    limits: &PressLimits,
) -> Letter {
    let Posted {
        game,
        player,
        received_on,
        gm,
    } = posted;
    let press = replies::press(game, sent, admitted, limits);
    Letter {
        subject: format!("{game}: your press received by post"),
        body: format!(
            "{player}'s press for {game}, received by post on {}, entered by the GM ({gm}).\n{press}\n\n\
             Your orders for the turn are as they were: press alone changes none of them.",
            received_on.format("%A %-d %B %Y")
        ),
    }
}
