//! What a player is told about their press by the GM.

use super::Letter;

/// What the player is told when the GM strikes their press: it will not be printed.
pub fn press_struck(name: &str, game: &str, turn: i32, text: &str, reason: &str) -> Letter {
    Letter {
        subject: format!("{game}, turn {turn}: your press was struck"),
        body: format!(
            "Hello {name},\n\nThe GM struck this press of yours for turn {turn} of {game}; it \
             will not be printed with the report:\n\n  \"{text}\"\n\nThe GM's reason: {reason}\n\n\
             Your orders are not changed. You may send other press before the deadline.\n"
        ),
    }
}
