//! The mail each player of a new game gets when it starts (docs/rosters.md): the game, its
//! rules, their seat and who else plays, the open turn, their own position and how to order.

use super::Letter;

/// What one player's start mail says. Everything here is theirs to see: the roster is the
/// public one, the position is the engine's view for their seat only.
#[derive(Debug, Clone)]
pub struct GameStarted<'a> {
    pub game: &'a str,
    pub player: &'a str,
    /// The engine's title and its rules page.
    pub rules_title: &'a str,
    pub rules_url: String,
    /// The player's named seat (an ironclad side, a skyfleet fleet), where the engine has them.
    pub seat: Option<&'a str>,
    /// The other players on the same named seat (ironclad captains sharing a side).
    pub fellows: Vec<&'a str>,
    /// Everyone else, each with their named seat where the engine has them.
    pub others: Vec<(&'a str, Option<&'a str>)>,
    pub turn: u32,
    /// The open turn's deadline as mails write it, in the game's time zone.
    pub deadline: Option<String>,
    pub position: &'a [String],
    pub order_help: &'a str,
}

/// The start mail: subject and body.
pub fn game_started(letter: &GameStarted<'_>) -> Letter {
    let mut body = format!(
        "Dear {},\n\n{} has started, and you play in it.\n\nRules: {}\nThe rules page: {}\n",
        letter.player, letter.game, letter.rules_title, letter.rules_url
    );
    if let Some(seat) = letter.seat {
        body.push_str(&format!("Your seat: {seat}\n"));
    }
    if !letter.fellows.is_empty() {
        body.push_str(&format!(
            "Your fellow captains on {}: {}\n",
            letter.seat.unwrap_or("your side"),
            letter.fellows.join(", ")
        ));
    }
    let others: Vec<String> = letter
        .others
        .iter()
        .map(|(name, seat)| match seat {
            Some(seat) => format!("{name} ({seat})"),
            None => (*name).to_owned(),
        })
        .collect();
    if others.is_empty() {
        body.push_str("You are the only player.\n");
    } else {
        body.push_str(&format!("The other players: {}\n", others.join(", ")));
    }
    match &letter.deadline {
        Some(deadline) => body.push_str(&format!(
            "Turn {} is open; its deadline is {deadline}.\n",
            letter.turn
        )),
        None => body.push_str(&format!(
            "Turn {} is open; it has no deadline yet: the GM resolves it.\n",
            letter.turn
        )),
    }
    body.push_str(&format!(
        "\nReply to this message with your orders: its reply address is yours alone, so keep it \
         to yourself.\n\nYour position in {}:\n{}\n\n{}\n",
        letter.game,
        letter.position.join("\n"),
        letter.order_help
    ));
    let subject = match letter.seat {
        Some(seat) => format!("{} has started: you play {seat}", letter.game),
        None => format!("{} has started: you play in it", letter.game),
    };
    Letter { subject, body }
}
