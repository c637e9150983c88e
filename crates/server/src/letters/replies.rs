//! The answers to players' mail: the confirmation (each order as understood, each error with
//! the line as written and what would be accepted, each command's result), the refusal of
//! unauthenticated mail, and the private messages relayed by TELL.

use engine::ParsedOrders;
use games::AnyOrders;
use store::players::TokenHolder;
use store::status::PlayerStatus;

use super::{Letter, REPLY_LOCAL_PART, deadline};
use crate::config::PressLimits;
use crate::limits::{AdmittedPress, Budgeted, Over, PressVerdict};

/// The body of the answer to mail that proved no sender: why, and how to authenticate, in a
/// few lines. Its From: may be forged, so the answer is kept short (no HELP) and says so: it
/// Why mail to a reply address proves no sender: the address is not one Admiralty gave out.
pub fn unknown_reply_address() -> String {
    "the reply address you wrote to is not one Admiralty gave out (or no longer is).".into()
}

/// Why mail proves no sender: neither a reply address nor a PASSWORD line.
pub fn no_proof() -> String {
    "Admiralty could not tell which game and player your message is for.".into()
}

/// Why mail proves no sender: its PASSWORD is not the address's.
pub fn password_mismatch() -> String {
    "the password does not match the one set for this address (or none is set).".into()
}

/// may reach someone who never wrote.
pub fn refusal(why: &str, domain: &str) -> Letter {
    Letter {
        subject: "Your message was not accepted".to_owned(),
        body: format!(
            "Admiralty changed nothing: {why}\n\n\
             To play, reply to a mail from Admiralty keeping its personal reply address \
             ({REPLY_LOCAL_PART}+...@{domain}), or write from your subscribed address with a \
             line PASSWORD <your password>.\n\
             If you did not write to Admiralty, someone else used your address: ignore this.\n"
        ),
    }
}

/// The confirmation of an authenticated message: its paragraphs, one for each thing done or
/// refused, under a subject naming the games whose orders were taken (or the default game).
pub fn confirmation(
    ordered_games: &[String],
    default_game: Option<&str>,
    paragraphs: &[String],
) -> Letter {
    let subject = if ordered_games.is_empty() {
        format!(
            "{}: your message was received",
            default_game.unwrap_or("Admiralty")
        )
    } else {
        format!("{}: your orders were received", ordered_games.join(", "))
    };
    Letter {
        subject,
        body: paragraphs.join("\n\n") + "\n",
    }
}

/// A command line that was not carried out, and why: `what` says what was not done ("press
/// not accepted"), or none when `why` says it all.
pub fn line_refused(line: usize, what: Option<&str>, why: &dyn std::fmt::Display) -> String {
    match what {
        Some(what) => format!("Line {line}: {what}: {why}"),
        None => format!("Line {line}: {why}"),
    }
}

/// RESIGN from a game the sender no longer plays.
pub fn already_left(line: usize, status: PlayerStatus, game: &str) -> String {
    format!("Line {line}: you are already {status} in {game}.")
}

/// POSITION: what the player may see of the game now.
pub fn position(game: &str, lines: &[String]) -> String {
    format!("Your position in {game}:\n{}", lines.join("\n"))
}

/// TELL to a name no active player of the game has.
pub fn tell_no_such_player(line: usize, wanted: &str, game: &str, players: &[String]) -> String {
    format!(
        "Line {line}: your message was not relayed: no active player \"{wanted}\" in {game}. \
         Players: {}.",
        players.join(", ")
    )
}

/// TELL to oneself.
pub fn tell_to_yourself(line: usize) -> String {
    format!("Line {line}: your message was not relayed: it was addressed to yourself.")
}

/// TELL, relayed.
pub fn tell_relayed(line: usize, recipient: &str) -> String {
    format!(
        "Line {line}: your private message was relayed to {recipient} (your address is not shown)."
    )
}

/// TELL to a player whose address Admiralty never writes to.
pub fn tell_unanswerable(line: usize, recipient: &str) -> String {
    format!(
        "Line {line}: your message was not relayed: Admiralty cannot write to {recipient}'s \
         address. Tell the GM."
    )
}

/// LETTER, received for the GM.
pub fn letter_received(line: usize) -> String {
    format!(
        "Line {line}: your letter to the editor is received. The GM reads every letter \
         before it is printed; if approved, it appears in the zine's next issue."
    )
}

/// LETTER, not taken.
pub fn letter_refused(line: usize, why: &dyn std::fmt::Display) -> String {
    format!("Line {line}: your letter was not taken: {why}.")
}

/// RECEIVE ISSUE or RECEIVE REPORTS, done.
pub fn receiving(issue: bool) -> String {
    if issue {
        "From now on you get the zine's issue by mail (every game in one mail), and no \
         longer each game's report. Your own position still comes after each turn."
            .to_owned()
    } else {
        "From now on you get each game's report by mail as its turn resolves, and no \
         longer the zine's issue."
            .to_owned()
    }
}

/// Lines for a game the sender cannot be read for: `named` when a GAME line named one they do
/// not play, none when they play several and named none; `games` are the ones they play.
pub fn which_game(named: Option<&str>, games: &[&str]) -> String {
    let yours = if games.is_empty() {
        "you play in no game yet".to_owned()
    } else {
        format!("your games: {}", games.join(", "))
    };
    match named {
        None => format!("which game is this for? Put a line GAME <name> before it ({yours})."),
        Some(name) => format!("you play in no game called \"{name}\" ({yours})."),
    }
}

/// A message's attachments, which carry no orders.
pub fn attachments_ignored(count: usize) -> String {
    format!("{count} attachment(s) were ignored: write orders in the message itself.")
}

/// Order lines for a game the sender does not play, from line `first_line`.
pub fn orders_not_for_you(first_line: usize, why: &str) -> String {
    format!("The order lines from line {first_line} were NOT accepted: {why}")
}

/// Orders for `game` that the game did not take, and why.
pub fn orders_not_accepted(game: &str, why: &dyn std::fmt::Display) -> String {
    format!("Your orders for {game} were NOT accepted: {why}")
}

/// The confirmation's first line: which game and player the mail was read for.
pub fn heading(holder: &TokenHolder) -> String {
    format!(
        "Game: {}. You are {}.{}",
        holder.game_name,
        holder.display_name,
        turn_and_deadline(holder)
    )
}

/// Where the game's turn stands, as a sentence starting with a space.
pub fn turn_and_deadline(holder: &TokenHolder) -> String {
    match (holder.turn_number, holder.deadline) {
        (Some(turn), Some(due)) => {
            format!(" Turn {turn}, deadline {}.", deadline(due, holder.zone))
        }
        (Some(turn), None) => format!(" Turn {turn}; the GM sets the deadline."),
        (None, _) => " No turn is open.".to_owned(),
    }
}

/// PRESS WITHDRAW's line of the confirmation.
pub fn press_withdrawn(line: usize, game: &str, withdrawn: u64) -> String {
    if withdrawn == 0 {
        format!(
            "Line {line}: you had no earlier press for this turn of {game}: nothing was withdrawn. Any press in this message stands."
        )
    } else {
        format!(
            "Line {line}: your earlier press for this turn of {game} ({withdrawn} entr{}) is withdrawn and will not be printed. Any press in this message stands.",
            if withdrawn == 1 { "y" } else { "ies" }
        )
    }
}

/// Said when new orders withdrew the press sent before them.
pub fn press_replaced(game: &str, withdrawn: u64) -> String {
    format!(
        "These orders replace everything you sent before for this turn of {game}: your earlier press ({withdrawn} entr{}) is withdrawn and will not be printed. To keep it, send it again (with PRESS lines).",
        if withdrawn == 1 { "y" } else { "ies" }
    )
}

/// Said when a message was cut to what Admiralty reads.
pub fn truncated() -> String {
    format!(
        "Your message was longer than Admiralty reads (at most {} KB of mail and {} KB of \
         text): only its beginning was read, and anything after that was ignored.",
        mail::inbound::MAX_MESSAGE_BYTES / 1024,
        mail::inbound::MAX_BODY_BYTES / 1024
    )
}

/// A line the command reader could not use.
pub fn problem(problem: &mail::commands::Problem) -> String {
    format!(
        "Line {}: \"{}\"\n  {}\n  Would be accepted: {}",
        problem.line, problem.text, problem.problem, problem.expected
    )
}

/// Each order as understood, each error with its line as written and what would be accepted,
/// and what happens if nothing more arrives.
pub fn orders_confirmation(
    holder: &TokenHolder,
    parsed: &ParsedOrders<AnyOrders>,
    stored: bool,
    orders: &mail::commands::OrderText,
) -> String {
    let verdict = crate::letters::verdict::Verdict::new(parsed, stored);
    let mut out = format!("{}\n", verdict.headline(&holder.game_name));
    // Nothing stored: what the lines would have meant is not what stands.
    if stored {
        for line in &parsed.understood {
            out.push_str(&format!("  - {line}\n"));
        }
    }
    for entry in verdict.entries() {
        let line = orders.original_line(entry.line).unwrap_or(entry.line);
        out.push_str(&format!(
            "{} on line {line}: \"{}\"\n    {}\n",
            entry.kind, entry.text, entry.problem
        ));
        if let Some(expected) = &entry.expected {
            out.push_str(&format!("    Would be accepted: {expected}\n"));
        }
    }
    out.push_str(&format!("\n{}", verdict.closing()));
    out
}

/// JOIN for a game the sender already plays: where they stand (a game they do not play is a
/// sign-up, `letters::signups`).
pub fn join(holder: &TokenHolder) -> String {
    if holder.status == PlayerStatus::Active {
        format!(
            "You already play in {} as {}.",
            holder.game_name, holder.display_name
        )
    } else {
        format!(
            "You have left {} ({}); only the GM can bring you back.",
            holder.game_name, holder.status
        )
    }
}

/// STATUS: who the sender is in the game, its turn and deadline, and their current orders.
pub fn status(holder: &TokenHolder, current_orders: Option<&str>) -> String {
    format!(
        "{}: you are {} ({}).{}\n{}",
        holder.game_name,
        holder.display_name,
        holder.status,
        turn_and_deadline(holder),
        match current_orders {
            Some(text) => format!("Your current orders:\n{text}"),
            None => "You have no orders in for this turn yet.".to_owned(),
        }
    )
}

/// The lines of a message that resigns from `game`, beside the RESIGN: not read as orders.
pub fn not_read_as_orders_resigning(game: &str, lines: &[&mail::commands::OrderLine]) -> String {
    let mut out = format!("As you resign from {game}, these lines were not read as orders:");
    for line in lines {
        out.push_str(&format!("\n  Line {}: \"{}\"", line.line, line.text));
    }
    out
}

/// RESIGN, done.
pub fn resigned(game: &str) -> String {
    format!(
        "You have resigned from {game}. From the next resolution your fleet is treated as \
         the game's rules treat a player who leaves. Sent by mistake? Ask the GM before the \
         turn resolves: until then they can take your resignation back."
    )
}

/// UNSUBSCRIBE, done: the games left, if any.
pub fn unsubscribed(left: &[String]) -> String {
    format!(
        "You are unsubscribed: this is the last mail Admiralty sends you{}. To come \
         back, ask the GM.",
        if left.is_empty() {
            String::new()
        } else {
            format!(", and you have left {}", left.join(", "))
        }
    )
}

/// PASSWORD, set.
pub fn password_set(line: usize, email: &str) -> String {
    format!(
        "Line {line}: your password is set. When you cannot reply to a mail from \
         Admiralty, write from {email} with a line PASSWORD <your password>."
    )
}

/// Said when a message carried nothing to act on.
pub const NOTHING_TO_DO: &str = "Your message held no orders and no commands, so nothing was \
     changed. Send HELP for the list of commands.";

/// What became of one press entry, for the confirmation: what is printed, and when not all
/// of it is, why, with the limits.
pub fn press(game: &str, sent: &str, admitted: &AdmittedPress, limits: &PressLimits) -> String {
    let rule = format!(
        "Each player may have at most {} characters of press, in at most {} entries, printed \
         with each turn's report.",
        limits.chars_per_turn, limits.entries_per_turn
    );
    match (admitted.verdict, admitted.text.as_deref()) {
        (PressVerdict::Kept, Some(text)) => {
            format!("Press accepted for {game}, to be published with the report: \"{text}\"")
        }
        (PressVerdict::Cut { kept, sent }, Some(text)) => format!(
            "Press for {game} was CUT to {kept} of its {sent} characters, and will be published \
             with the report as: \"{text}\"\n  {rule}"
        ),
        (PressVerdict::TooManyEntries, _) => format!(
            "Press for {game} NOT accepted (\"{}\"): you have sent the {} press entries a player \
             may have printed with this turn's report.\n  {rule}",
            beginning(sent),
            limits.entries_per_turn
        ),
        (PressVerdict::NoRoom { left }, _) => format!(
            "Press for {game} NOT accepted (\"{}\"): only {left} of the {} characters of press a \
             player may have printed with this turn's report are left.\n  {rule}",
            beginning(sent),
            limits.chars_per_turn
        ),
        (PressVerdict::Kept | PressVerdict::Cut { .. }, None) => {
            format!("Press for {game} NOT accepted.\n  {rule}")
        }
    }
}

/// The first words of a text that was not used, to say which one it was.
fn beginning(text: &str) -> String {
    const SHOWN: usize = 40;
    let mut shown: String = text.chars().take(SHOWN).collect();
    if text.chars().nth(SHOWN).is_some() {
        shown.push('…');
    }
    shown
}

/// A TELL that its budgets stopped.
pub fn tell_not_relayed(line: usize, recipient: &str, over: &Over) -> String {
    let why = match over.budget {
        Budgeted::TellsReceived => format!(
            "{recipient} has been sent the {} private messages an hour that Admiralty relays to \
             one player",
            over.allowed
        ),
        _ => format!(
            "Admiralty relays at most {} private messages an hour for one player, and yours \
             are sent",
            over.allowed
        ),
    };
    format!("Line {line}: your message to {recipient} was NOT relayed: {why}. Send it again later.")
}

/// A TELL too long to relay.
pub fn tell_too_long(line: usize, recipient: &str, length: usize, max: u32) -> String {
    format!(
        "Line {line}: your message to {recipient} was NOT relayed: it has {length} characters, \
         and Admiralty relays private messages of at most {max}. Shorten it and send it again."
    )
}

/// A private message relayed by TELL, from Admiralty's address, so that no one learns
/// another's address.
pub fn relayed_tell(sender: &str, game: &str, text: &str) -> Letter {
    Letter {
        subject: format!("{game}: a private message from {sender}"),
        body: format!(
            "A private message from {sender} in {game}, relayed by Admiralty:\n\n{text}\n\n\
             To answer, reply to this mail: what you write goes to {sender} alone,\n\
             as a private message (quoted text is left out, and neither of you\n\
             sees the other's address). A reply to this mail is never read as orders.\n"
        ),
    }
}

/// One login link of a login-link mail: which zine and name it logs in as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginLink {
    pub zine: String,
    pub name: String,
    pub url: String,
}

/// The mail with a player's login links (one per zine they subscribe to).
pub fn login_links(address: &str, links: &[LoginLink], lifetime: chrono::Duration) -> Letter {
    let links: String = links
        .iter()
        .map(|link| format!("{} (as {}):\n{}\n\n", link.zine, link.name, link.url))
        .collect();
    Letter {
        subject: "Your Admiralty login link".to_owned(),
        body: format!(
            "Someone (we hope you) asked to log in to Admiralty's player pages as {address}.\n\n\
             {links}Open the link and press \"Log in\". Each link works once, for {minutes} minutes, \
             and shows all your games, in every zine you subscribe to with this address.\n\
             If you did not ask for it, ignore this mail: nothing happens.\n",
            minutes = lifetime.num_minutes(),
        ),
    }
}
