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
    /// Everyone else, each with their named seat where the engine has them; empty when they
    /// are too many to name (`others_count` says how many).
    pub others: Vec<(&'a str, Option<&'a str>)>,
    pub others_count: usize,
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
    if letter.others_count == 0 {
        body.push_str("You are the only player.\n");
    } else if others.is_empty() {
        body.push_str(&format!(
            "{} other players: the roster is on the game's public page.\n",
            letter.others_count
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn letter<'a>(position: &'a [String]) -> GameStarted<'a> {
        GameStarted {
            game: "Trafalgar",
            player: "Hardy",
            rules_title: "Barmy Battleships",
            rules_url: "https://admiralty.example.org/rules/barmy".into(),
            seat: None,
            fellows: Vec::new(),
            others: vec![("Nelson", None), ("Collingwood", None)],
            others_count: 2,
            turn: 1,
            deadline: None,
            position,
            order_help: "FIRE A1",
        }
    }

    #[test]
    fn a_game_without_seats_or_deadline_says_so() {
        let position = vec!["Your ship: B2 to B4".to_owned()];
        let started = game_started(&letter(&position));
        assert_eq!(started.subject, "Trafalgar has started: you play in it");
        assert!(!started.body.contains("Your seat"), "{}", started.body);
        assert!(
            started
                .body
                .contains("The other players: Nelson, Collingwood\n"),
            "{}",
            started.body
        );
        assert!(
            started
                .body
                .contains("Turn 1 is open; it has no deadline yet: the GM resolves it.\n"),
            "{}",
            started.body
        );
        assert!(
            started
                .body
                .contains("Your position in Trafalgar:\nYour ship: B2 to B4\n\nFIRE A1\n"),
            "{}",
            started.body
        );
    }

    #[test]
    fn a_captain_is_told_their_side_and_who_shares_it() {
        let position = Vec::new();
        let mut seated = letter(&position);
        seated.seat = Some("North");
        seated.fellows = vec!["Nelson"];
        seated.others = vec![("Villeneuve", Some("South"))];
        seated.deadline = Some("Friday 27 November 2026, 18:00 GMT (18:00 UTC)".into());
        let started = game_started(&seated);
        assert_eq!(started.subject, "Trafalgar has started: you play North");
        assert!(started.body.contains("Your seat: North\nYour fellow captains on North: Nelson\nThe other players: Villeneuve (South)\nTurn 1 is open; its deadline is Friday 27 November 2026, 18:00 GMT (18:00 UTC).\n"), "{}", started.body);
    }

    #[test]
    fn a_big_game_counts_the_other_players() {
        let position = Vec::new();
        let mut big = letter(&position);
        big.others = Vec::new();
        big.others_count = 9_999;
        let started = game_started(&big);
        assert!(
            started
                .body
                .contains("9999 other players: the roster is on the game's public page.\n"),
            "{}",
            started.body
        );
    }
}
