//! Letters of standbys and replacements (docs/rosters.md).

use super::Letter;

/// To the newcomer: the seat they take, from which turn, their position and how to order.
pub fn position(
    game: &str,
    new_name: &str,
    old_name: &str,
    from_turn: u32,
    lines: &[String],
    order_help: &str,
) -> Letter {
    Letter {
        subject: format!("{game}: you take over from {old_name}"),
        body: format!(
            "Dear {new_name},\n\nYou take {old_name}'s place in {game}: you play it from \
             turn {from_turn}, which is open now. Reply to this message (its reply address is \
             yours alone) with your orders.\n\nYour position in {game}:\n{}\n\n{order_help}\n",
            lines.join("\n")
        ),
    }
}

/// The answer to a mail sent to a reply address given up in a replacement.
pub fn replaced(game: &str, from_turn: i32) -> String {
    format!(
        "you were replaced in {game} on turn {from_turn}: this reply address no longer takes \
         orders for that game. Ask the GM if you think this is a mistake."
    )
}

/// To a player whose resignation the GM took back.
pub fn reinstated(name: &str, game: &str, deadline: Option<&str>) -> Letter {
    let due = deadline.map_or_else(
        || "The GM sets the open turn's deadline.".to_owned(),
        |at| format!("Orders for the open turn are due {at}."),
    );
    Letter {
        subject: format!("{game}: you are back in the game"),
        body: format!(
            "Dear {name},\n\nThe GM has taken back your resignation from {game}: you play on, \
             with your fleet as it stands. {due} Reply to this message with your orders (its \
             reply address is yours, as before); orders you sent before you resigned still \
             stand.\n"
        ),
    }
}

/// STANDBY, done.
pub fn standby_on(newly: bool) -> String {
    if newly {
        "You are on the standby list: when a player leaves a game, the GM may offer you their \
         place, and you would get the position by mail. Send STANDBY OFF to leave the list."
            .to_owned()
    } else {
        "You were already on the standby list. Send STANDBY OFF to leave it.".to_owned()
    }
}

/// STANDBY OFF, done.
pub fn standby_off(was: bool) -> String {
    if was {
        "You are no longer on the standby list.".to_owned()
    } else {
        "You were not on the standby list; nothing changed.".to_owned()
    }
}
