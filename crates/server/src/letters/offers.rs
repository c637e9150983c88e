//! Letters of seats offered to standbys, and of missed turns (docs/rosters.md).

use store::status::OfferReason;

use super::Letter;

/// Why a seat is free, in words.
pub fn why_free(reason: OfferReason, holder: &str, missed: Option<i32>) -> String {
    match reason {
        OfferReason::Missed => match missed {
            Some(missed) => format!("{holder} has missed {} in a row", turns(missed)),
            None => format!("{holder} has missed too many turns in a row"),
        },
        OfferReason::Resigned => format!("{holder} has resigned"),
        OfferReason::Gm => format!("the GM wants a new player for {holder}'s seat"),
    }
}

/// What an offer tells the standby: nothing of the position (a standby sees nothing until they
/// take the seat), only the game, the seat, why it is free, when the open turn is due, and how
/// to answer.
pub struct OfferLetter<'a> {
    pub name: &'a str,
    pub game: &'a str,
    pub rules: &'a str,
    pub seat: Option<&'a str>,
    pub why: &'a str,
    pub turn: u32,
    pub deadline: Option<&'a str>,
    /// When the offer expires unanswered, as mails write a time.
    pub answer_by: &'a str,
}

pub fn offer(letter: &OfferLetter<'_>) -> Letter {
    let seat = letter
        .seat
        .map(|seat| format!(" (seat: {seat})"))
        .unwrap_or_default();
    let due = letter
        .deadline
        .map(|at| format!(", due {at}"))
        .unwrap_or_default();
    let body = format!(
        "Dear {name},\n\nA seat in {game} ({rules}){seat} is offered to you: {why}. If you \
         accept, you play it from turn {turn}, which is open now{due}: you get the position by \
         mail, with a reply address of your own.\n\nTo take the seat, reply to this message with\n\n\
         ACCEPT\n\nTo let it go to someone else, reply with\n\nDECLINE\n\nOr answer on your \
         player page, by {answer_by}: unanswered then, the offer expires. The first standby to \
         accept takes the seat.\n",
        name = letter.name,
        game = letter.game,
        rules = letter.rules,
        why = letter.why,
        turn = letter.turn,
        answer_by = letter.answer_by,
    );
    Letter {
        subject: format!("{}: a seat is offered to you", letter.game),
        body,
    }
}

/// ACCEPT or DECLINE (`word`) by mail when no seat is offered (in `game`, when named).
pub fn none_offered(line: usize, word: &str, game: Option<&str>) -> String {
    let in_game = game.map(|g| format!(" in {g}")).unwrap_or_default();
    format!("Line {line}: {word}: no seat{in_game} is offered to you; nothing was changed.")
}

/// ACCEPT or DECLINE (`word`) by mail when `count` seats of `games` are offered: which one?
pub fn which_offer(line: usize, word: &str, count: usize, games: &[&str]) -> String {
    match games {
        [game] => format!(
            "Line {line}: {word}: {count} seats in {game} are offered to you; answer in a \
             reply to the offer of the seat you want (each has its own address), or on your \
             player page. Nothing was changed."
        ),
        _ => format!(
            "Line {line}: {word}: seats in {} are offered to you; put GAME <name> on the line \
             before {word} to say which. Nothing was changed.",
            games.join(", ")
        ),
    }
}

/// ACCEPT, done.
pub fn accepted(game: &str, old_name: &str, from_turn: u32) -> String {
    format!(
        "You take {old_name}'s seat in {game} from turn {from_turn}. Your position and your own \
         reply address for the game come in a separate mail."
    )
}

/// DECLINE, done.
pub fn declined(game: &str, on_the_list: bool) -> String {
    format!(
        "You declined the seat in {game}; it goes to someone else.{}",
        standby_list(on_the_list)
    )
}

/// Where the subscriber stands on the standby list, for the end of an offer's letters: only a
/// standby is told they stay on it.
fn standby_list(on_the_list: bool) -> &'static str {
    if on_the_list {
        " You stay on the standby list (STANDBY OFF leaves it)."
    } else {
        ""
    }
}

/// An answer to an offer that is not the subscriber's, or does not exist.
pub fn not_yours() -> String {
    "No seat is offered to you there; nothing was changed.".to_owned()
}

/// An answer to an offer that is no longer open.
pub fn not_open(game: &str, status: store::status::OfferStatus) -> String {
    use store::status::OfferStatus;
    let why = match status {
        OfferStatus::Accepted => "you accepted it already",
        OfferStatus::Declined => "you declined it",
        OfferStatus::Withdrawn => "the GM withdrew it",
        OfferStatus::Expired => "it expired unanswered",
        OfferStatus::Lapsed | OfferStatus::Open => {
            "the seat was filled, its player came back, it left the game, or the game ended"
        }
    };
    format!("The seat in {game} is no longer offered to you: {why}. Nothing was changed.")
}

/// To a standby whose offer the GM withdrew.
pub fn withdrawn(name: &str, game: &str, on_the_list: bool) -> Letter {
    Letter {
        subject: format!("{game}: the offer of a seat is withdrawn"),
        body: format!(
            "Dear {name},\n\nThe GM has withdrawn the offer of a seat in {game}; there is \
             nothing for you to do.{}\n",
            standby_list(on_the_list)
        ),
    }
}

/// Why the open offers of a seat lapsed, for the standbys' letters.
#[derive(Debug, Clone, Copy)]
pub enum SeatKept<'a> {
    /// Its player ordered again.
    CameBack,
    /// The GM took its player's resignation back.
    Reinstated,
    /// Someone else took it.
    TakenBy(&'a str),
}

/// To a standby whose offer of `holder`'s seat in `game` lapsed, and why.
pub fn no_longer_offered(
    name: &str,
    holder: &str,
    game: &str,
    why: SeatKept<'_>,
    on_the_list: bool,
) -> Letter {
    let what = match why {
        SeatKept::CameBack => {
            format!("{holder} has sent orders for {game} again, so they keep their seat")
        }
        SeatKept::Reinstated => format!(
            "the GM has taken back {holder}'s resignation from {game}, so they keep their seat"
        ),
        SeatKept::TakenBy(taker) => format!("{taker} has taken {holder}'s seat in {game}"),
    };
    Letter {
        subject: format!("{game}: the seat is no longer offered"),
        body: format!(
            "Dear {name},\n\n{}{}: the seat is no longer offered to you, and there is nothing \
             for you to do.{}\n",
            what.get(..1).map(str::to_uppercase).unwrap_or_default(),
            what.get(1..).unwrap_or_default(),
            standby_list(on_the_list)
        ),
    }
}

/// To the player who was replaced.
pub fn you_were_replaced(old_name: &str, game: &str, new_name: &str, from_turn: u32) -> Letter {
    Letter {
        subject: format!("{game}: {new_name} takes your seat"),
        body: format!(
            "Dear {old_name},\n\n{new_name} takes your seat in {game} from turn {from_turn}. \
             Your reply address for {game} no longer takes orders. Thank you for playing; ask \
             the GM if you think this is a mistake.\n"
        ),
    }
}

/// To a standby whose offer expired unanswered.
pub fn expired(name: &str, game: &str, on_the_list: bool) -> Letter {
    Letter {
        subject: format!("{game}: the offer of a seat expired"),
        body: format!(
            "Dear {name},\n\nThe offer of a seat in {game} expired without an answer, and the \
             seat may go to someone else.{}\n",
            standby_list(on_the_list)
        ),
    }
}

/// To a player who reached the game's limit of missed turns.
pub fn missed_limit(name: &str, game: &str, missed: i32, next_deadline: Option<&str>) -> Letter {
    let next = next_deadline
        .map(|at| format!(" (its deadline: {at})"))
        .unwrap_or_default();
    Letter {
        subject: format!("{game}: you have missed {} in a row", turns(missed)),
        body: format!(
            "Dear {name},\n\nYou have sent no orders for {} of {game} in a row, the \
             game's limit: your seat may now be offered to a standby, who would take it over. \
             To keep it, reply to this message with your orders for the open turn{next}; a \
             player who orders again keeps their seat until someone has accepted it. If you are \
             going away, ABSENT <first day> <last day> tells the GM; RESIGN hands the seat on.\n",
            turns(missed)
        ),
    }
}

/// "1 turn", "3 turns".
pub fn turns(count: i32) -> String {
    if count == 1 {
        "1 turn".to_owned()
    } else {
        format!("{count} turns")
    }
}
