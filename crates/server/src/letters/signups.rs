//! What the answers about sign-ups say: JOIN's place in the queue, LIST's games with free seats.

use store::signups::Opening;
use store::status::Seating;

/// One line per game open for sign-up: its name, rules and free seats.
fn open_lines(open: &[Opening]) -> String {
    open.iter()
        .map(|o| {
            let free = i64::from(o.seats).saturating_sub(o.signed).max(0);
            format!(
                "  {} ({}): {} of {} seats free",
                o.name, o.engine, free, o.seats
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// LIST's answer.
pub fn listed(open: &[Opening]) -> String {
    if open.is_empty() {
        return "No game of your zine is open for sign-up now.".to_owned();
    }
    format!(
        "Games open for sign-up (JOIN <game> to sign up):\n{}",
        open_lines(open)
    )
}

fn how_seated(seating: Seating) -> &'static str {
    match seating {
        Seating::Order => "seats are given in order of sign-up",
        Seating::Random => {
            "seats are drawn at random with the committed seating seed (its commitment is on the zine's public page)"
        }
        Seating::Gm => "the GM gives the seats",
    }
}

/// JOIN's answer when the sender is queued.
pub fn queued(game: &str, place: i32, seats: i32, already: bool, seating: Seating) -> String {
    let start = if seating == Seating::Gm {
        "the GM starts the game when it is full or sooner"
    } else {
        "the game starts when every seat is taken, or sooner if the GM starts it"
    };
    format!(
        "{} for {game}: you are number {place} of {seats} in the queue; {start}, and {}.",
        if already {
            "You had already signed up"
        } else {
            "Signed up"
        },
        how_seated(seating)
    )
}

/// JOIN's answer when the sender took the last seat and the game started.
pub fn started(game: &str) -> String {
    format!(
        "Signed up for {game}: yours was the last seat, so the game has started. Send your orders on \
         the player pages, or by mail with a line GAME {game} before them (STATUS says your seat's \
         position and the deadline)."
    )
}

/// JOIN's answer when every seat is taken.
pub fn full(game: &str, seats: i32) -> String {
    format!(
        "Every one of the {seats} seats of {game} is taken: you were not signed up. The GM may open \
         another game; LIST shows the games open for sign-up."
    )
}

/// JOIN's answer for a game whose sign-up closed when it started (the last seat went to
/// someone else first, or the GM started it).
pub fn closed(game: &str) -> String {
    format!(
        "{game} has started, so it takes no more sign-ups: you were not signed up. The GM may \
         open another game; LIST shows the games open for sign-up, and STANDBY offers you a seat \
         when a player leaves one."
    )
}

/// JOIN's answer for a game that is not open for sign-up.
pub fn not_open(game: &str, open: &[Opening]) -> String {
    let others = if open.is_empty() {
        "No game of your zine is open for sign-up now.".to_owned()
    } else {
        format!("Open for sign-up:\n{}", open_lines(open))
    };
    format!(
        "No game called \"{game}\" is open for sign-up in your zine, and you play in none of that \
         name. Every active subscriber plays the zine's Barmy Battleships games from their next turn \
         (BARMY-02, BARMY-GM-11). {others}"
    )
}

/// JOIN from an address that is no active subscription.
pub fn not_subscribed(game: &str) -> String {
    format!("You cannot sign up for {game}: your subscription is not active.")
}
