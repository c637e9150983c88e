//! The command language of mail to Admiralty: one command a line, several a message,
//! case-insensitive, lenient on punctuation (`PRESS:`, `Press -`, `tell Fred Bloggs: hi`).
//! Every line that is not a command is an order line for the game's engine, passed on as text
//! with its original line number: the engine parses it. [`HELP`] is the text a player gets back.
//!
//! | command | meaning |
//! |---|---|
//! | `JOIN <game>` (`SIGNON`, `SIGN ON`) | sign up for a game open for sign-up |
//! | `LIST` | the zine's games open for sign-up, with their free seats |
//! | `ABSENT <first day> <last day>` | away on those days (ISO dates, both included); the game's absence policy applies |
//! | `ABSENT NONE` (`PRESENT`) | cancel my absences to come |
//! | `GAME <game>` | the lines after it are for that game (a player in several games) |
//! | `PRESS <text>` | public press; following lines continue it until a blank line |
//! | `PRESS WITHDRAW` | withdraw the press sent in earlier messages this turn |
//! | `TELL <player>: <text>` | a private message relayed to another player (name or number); following lines continue it |
//! | `POSITION` (`WHERE`) | mail me my own fleet's position |
//! | `STATUS` | my game, my current orders, the deadline |
//! | `RESIGN` | leave the game |
//! | `STANDBY`, `STANDBY OFF` | volunteer as a standby, or stop |
//! | `ACCEPT`, `DECLINE` | take, or let go, the seat offered to me (alone on the line; in a reply to the offer, or after `GAME <game>`) |
//! | `UNSUBSCRIBE` | no more mail |
//! | `LETTER <text>` | a letter to the editor, printed in the zine's issue once the GM approves it; following lines continue it until a blank line |
//! | `RECEIVE ISSUE` / `RECEIVE REPORTS` | by mail, the zine's issue, or each game's report |
//! | `HELP` | this list |
//! | `PASSWORD <secret>` | in a reply: sets the password; in a new message from the subscribed address: proves who wrote it; never shown back (Debug, Display and Serialize redact it) |
//!
//! Lines that look like a command but are not one are order lines: `POSITION carrier A1 H` is
//! Salvo's placement order, so POSITION and WHERE are commands only alone on their line.
//! HELP and STATUS ignore words after them. RESIGN and UNSUBSCRIBE must be alone on their line
//! (anything after them is reported as a problem, not acted on): they cannot be undone.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::quotes::{Line, number_lines};

/// What HELP returns: every command with an example.
pub const HELP: &str = "\
ADMIRALTY BY EMAIL: THE COMMANDS

Write one command on each line; one message may hold several. Capitals do not
matter, and PRESS:, Press - and press are all the same. Reply to any mail from
Admiralty: your personal reply address (orders+...@...) tells us who you are.
Quoted text, signatures and \"Sent from my phone\" lines are ignored.

JOIN <game>            sign up for a game open for sign-up (also SIGNON); the
                       answer gives your place in the queue
                       JOIN spring-salvo
LIST                   the games open for sign-up and their free seats
ABSENT <from> <to>     away from the first day to the last (both included);
                       each game's absence policy says what happens then
                       ABSENT 2026-12-20 2027-01-03
ABSENT NONE            cancel your absences to come (also PRESENT)
GAME <game>            the lines after it are for that game, when you play in
                       several
                       GAME spring-salvo
PRESS <text>           a public message, printed with the next report; the
                       lines after it continue it until a blank line
                       PRESS Steady, lads. The fleet sails at dawn.
PRESS WITHDRAW         withdraw the press you sent before this message, this
                       turn (with a new PRESS after it: replace it)
TELL <player>: <text>  a private message to another player, by name or number;
                       the lines after it continue it until a blank line
                       TELL Fred Bloggs: meet me off the Dogger Bank?
                       TELL 2: truce until turn 6?
POSITION               mail me my own fleet's position (also WHERE)
STATUS                 my game, my current orders and the deadline
RESIGN                 leave the game (alone on its line)
STANDBY                volunteer to take over a seat when a player leaves
                       (STANDBY OFF to stop)
ACCEPT                 take the seat offered to you (alone on its line, in a
                       reply to the offer; or after GAME <game>)
DECLINE                let the seat offered to you go to someone else
UNSUBSCRIBE            no more mail from Admiralty (alone on its line)
LETTER <text>          a letter to the editor, printed in the zine's next issue
                       once the GM approves it; the lines after it continue it
                       until a blank line
RECEIVE ISSUE          by mail, the zine's issue (every game in one mail)
RECEIVE REPORTS        by mail, each game's report as its turn resolves
HELP                   this text
PASSWORD <secret>      in a reply to Admiralty: sets your password; in a new
                       message from your subscribed address, when you cannot
                       reply to one of ours: proves it is you
                       PASSWORD correct-horse-battery

Every other line is an order for your game, for example FIRE B7; the game's
own rules list its orders. You may send new orders until the deadline: the
last set received counts. New orders replace your earlier orders and the
press sent before them: send the press again with them to keep it.
";

/// A secret from a PASSWORD line. Debug, Display and Serialize show `[redacted]`; only
/// [`Password::expose_secret`] gives the text, for checking it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// The secret, to check against the stored hash. Never log or mail it.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password([redacted])")
    }
}

impl fmt::Display for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl Serialize for Password {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("[redacted]")
    }
}

/// One command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// JOIN or SIGNON: join this game.
    Join {
        /// The game's name as written.
        game: String,
    },
    /// LIST: the zine's games open for sign-up.
    List,
    /// ABSENT <first day> <last day>: away on those days, both included.
    Absent {
        first_day: chrono::NaiveDate,
        last_day: chrono::NaiveDate,
    },
    /// ABSENT NONE or PRESENT: the absences to come are cancelled.
    Present,
    /// GAME: the following lines are for this game.
    Game {
        /// The game's name as written.
        game: String,
    },
    /// PRESS: public press, continuation lines joined with `\n`.
    Press {
        /// The press, its lines joined with `\n`.
        text: String,
    },
    /// PRESS WITHDRAW (alone on its line): the press sent in earlier messages for the turn is
    /// withdrawn; press in this message stands (so WITHDRAW with new PRESS replaces it).
    PressWithdraw,
    /// TELL: a private message to another player, `to` as written (a name or a number).
    Tell {
        /// The player's name or number, as written.
        to: String,
        /// The message, its lines joined with `\n`.
        text: String,
    },
    /// POSITION or WHERE.
    Position,
    /// STATUS: my game, my current orders, the deadline.
    Status,
    /// RESIGN: leave the game.
    Resign,
    /// STANDBY (on the standby list) or STANDBY OFF (off it).
    Standby {
        /// True for STANDBY, false for STANDBY OFF.
        on: bool,
    },
    /// ACCEPT: take the seat offered to me (the offer of the reply address, or the game of a
    /// GAME line).
    Accept,
    /// DECLINE: let the seat offered to me go.
    Decline,
    /// UNSUBSCRIBE: no more mail.
    Unsubscribe,
    /// LETTER: a letter to the editor of the zine, continuation lines joined with `\n`.
    Letter {
        /// The letter, its lines joined with `\n`.
        text: String,
    },
    /// RECEIVE ISSUE or RECEIVE REPORTS: what the subscriber gets by mail.
    Receive {
        /// True for the issue, false for each game's report.
        issue: bool,
    },
    /// HELP: mail back [`HELP`].
    Help,
    /// PASSWORD: fallback authentication.
    Password {
        /// Redacted in every output.
        secret: Password,
    },
}

/// A command and where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandLine {
    /// Original line number of the command's first line.
    pub line: usize,
    /// The game chosen by the last GAME line before it, if any.
    pub game: Option<String>,
    #[serde(flatten)]
    /// The command itself.
    pub command: Command,
}

/// A line for the game's engine, as written (trailing spaces trimmed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrderLine {
    /// Original line number.
    pub line: usize,
    /// The game chosen by the last GAME line before it, if any.
    pub game: Option<String>,
    /// The line, trailing spaces trimmed.
    pub text: String,
}

/// A line that looked like a command but could not be read; shaped like the engines'
/// `LineIssue` so the confirmation lists both alike.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Original line number.
    pub line: usize,
    /// The line as written (a PASSWORD line redacted).
    pub text: String,
    /// What is wrong, for the confirmation.
    pub problem: String,
    /// What would have been accepted.
    pub expected: String,
}

/// Everything in one message: commands and order lines in the order written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Commands {
    /// Commands in line order.
    pub commands: Vec<CommandLine>,
    /// Order lines in line order, for the engine.
    pub orders: Vec<OrderLine>,
    /// Command lines that could not be read.
    pub problems: Vec<Problem>,
}

/// The order lines for one game as one text for `Engine::parse_orders`, and the way back from
/// the engine's line numbers to the message's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OrderText {
    /// The order lines joined with `\n`.
    pub text: String,
    /// `lines[i]` is the message line number of the text's line `i + 1`.
    pub lines: Vec<usize>,
}

impl OrderText {
    /// The message line number of the engine's 1-based `engine_line`.
    pub fn original_line(&self, engine_line: usize) -> Option<usize> {
        self.lines.get(engine_line.checked_sub(1)?).copied()
    }

    /// Whether there are no order lines.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

impl Commands {
    /// The first PASSWORD given.
    pub fn password(&self) -> Option<&Password> {
        self.commands.iter().find_map(|c| match &c.command {
            Command::Password { secret } => Some(secret),
            _ => None,
        })
    }

    /// Whether any command matches.
    pub fn any(&self, predicate: impl Fn(&Command) -> bool) -> bool {
        self.commands.iter().any(|c| predicate(&c.command))
    }

    /// The games the order lines are for, in order of first appearance (`None`: no GAME line
    /// before them, so the player's only game, or the reply address's game).
    pub fn order_games(&self) -> Vec<Option<&str>> {
        let mut games: Vec<Option<&str>> = Vec::new();
        for order in &self.orders {
            let game = order.game.as_deref();
            if !games.contains(&game) {
                games.push(game);
            }
        }
        games
    }

    /// The order lines for `game`, each with its line number (compared as in
    /// [`Commands::order_text`]).
    pub fn orders_of(&self, game: Option<&str>) -> Vec<&OrderLine> {
        self.orders
            .iter()
            .filter(|o| match (o.game.as_deref(), game) {
                (None, None) => true,
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                _ => false,
            })
            .collect()
    }

    /// The order lines for `game` (as in [`OrderLine::game`], compared case-insensitively).
    pub fn order_text(&self, game: Option<&str>) -> OrderText {
        let mut out = OrderText::default();
        let same = |g: Option<&str>| match (g, game) {
            (None, None) => true,
            (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
            _ => false,
        };
        for order in self.orders.iter().filter(|o| same(o.game.as_deref())) {
            if let Some(&previous) = out.lines.last() {
                // Something stood between (a blank line, a command, quoted text): the engine
                // is shown a blank line, as the web form's text would show it, so that a
                // press ends there at both doors.
                if order.line > previous + 1 {
                    out.text.push('\n');
                    out.lines.push(previous + 1);
                }
                out.text.push('\n');
            }
            out.text.push_str(&order.text);
            out.lines.push(order.line);
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyword {
    Join,
    List,
    Absent,
    Present,
    Game,
    Press,
    Tell,
    Position,
    Status,
    Resign,
    Standby,
    Accept,
    Decline,
    Unsubscribe,
    Help,
    Password,
    Letter,
    Receive,
}

/// `STANDBY OFF`'s argument: the word alone (any case, a full stop after it).
fn is_off(argument: &str) -> bool {
    argument
        .trim()
        .trim_end_matches(['.', '!'])
        .eq_ignore_ascii_case("off")
}

/// `PRESS WITHDRAW`'s argument: the word alone (any case, a full stop or `!` after it).
fn is_withdraw(argument: &str) -> bool {
    argument
        .trim()
        .trim_end_matches(['.', '!'])
        .eq_ignore_ascii_case("withdraw")
}

/// The command word at the start of `text`, and what follows it.
fn keyword(text: &str) -> Option<(Keyword, &str)> {
    let text = text.trim_start();
    let word_end = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let word = text.get(..word_end)?;
    let rest = text.get(word_end..)?;
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '@') {
        return None;
    }
    let keyword = match word.to_ascii_lowercase().as_str() {
        "join" | "signon" => Keyword::Join,
        "sign" => {
            let after = rest.trim_start_matches([' ', '-', '\t']);
            let on = after.get(..2).filter(|w| w.eq_ignore_ascii_case("on"))?;
            let after = after.get(on.len()..)?;
            if after.starts_with(|c: char| c.is_alphanumeric()) {
                return None;
            }
            return Some((Keyword::Join, after));
        }
        "game" => Keyword::Game,
        "list" => Keyword::List,
        "absent" => Keyword::Absent,
        "present" => Keyword::Present,
        "press" => Keyword::Press,
        "tell" => Keyword::Tell,
        "position" | "where" => Keyword::Position,
        "status" => Keyword::Status,
        "resign" => Keyword::Resign,
        "standby" => Keyword::Standby,
        "accept" => Keyword::Accept,
        "decline" => Keyword::Decline,
        "unsubscribe" => Keyword::Unsubscribe,
        "help" => Keyword::Help,
        "password" => Keyword::Password,
        "letter" => Keyword::Letter,
        "receive" => Keyword::Receive,
        _ => return None,
    };
    Some((keyword, rest))
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, ':' | '-' | '–' | '—' | '.' | ',' | ';' | '=' | '>')
}

/// The argument after a command word: leading separators and trailing spaces removed.
fn argument(rest: &str) -> &str {
    rest.trim_start_matches(is_separator).trim_end()
}

/// A game's name: the argument less trailing punctuation.
fn game_name(rest: &str) -> &str {
    argument(rest).trim_end_matches(['.', ',', ';', ':', '!', '?'])
}

/// The secret after PASSWORD: one separator (`:`, `=`, or a dash followed by a space) is
/// dropped, the rest kept as written, so a secret may start with punctuation.
fn secret(rest: &str) -> &str {
    let rest = rest.trim_start();
    let rest = if let Some(after) = rest.strip_prefix([':', '=']) {
        after
    } else if let Some(after) = rest.strip_prefix(['-', '–', '—'])
        && (after.is_empty() || after.starts_with(char::is_whitespace))
    {
        after
    } else {
        rest
    };
    rest.trim()
}

/// Whether only punctuation and "please" follow a command word.
fn nothing_after(rest: &str) -> bool {
    let words = rest.trim_matches(|c: char| is_separator(c) || matches!(c, '!' | '?'));
    words.is_empty() || words.eq_ignore_ascii_case("please") || words.eq_ignore_ascii_case("pls")
}

/// ABSENT's argument: NONE, or two ISO dates (the first no later than the second).
fn absence(rest: &str) -> Read {
    const EXPECTED: &str =
        "ABSENT <first day> <last day>, for example ABSENT 2026-12-20 2027-01-03, or ABSENT NONE";
    let words: Vec<&str> = argument(rest)
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';'))
        .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("to") && *w != "-")
        .collect();
    let day = |w: &str| chrono::NaiveDate::parse_from_str(w.trim_end_matches('.'), "%Y-%m-%d");
    match words.as_slice() {
        [none] if none.trim_end_matches('.').eq_ignore_ascii_case("none") => {
            Read::Command(Command::Present)
        }
        [first, last] => match (day(first), day(last)) {
            (Ok(first_day), Ok(last_day)) if first_day <= last_day => {
                Read::Command(Command::Absent {
                    first_day,
                    last_day,
                })
            }
            (Ok(_), Ok(_)) => problem("ABSENT's first day is after its last day", EXPECTED),
            _ => problem("ABSENT needs two dates written YYYY-MM-DD", EXPECTED),
        },
        _ => problem("ABSENT needs a first and a last day, or NONE", EXPECTED),
    }
}

/// A line as it should appear in any output: a PASSWORD line's secret replaced.
pub fn redact(text: &str) -> Cow<'_, str> {
    match keyword(text) {
        Some((Keyword::Password, _)) => Cow::Owned("PASSWORD [redacted]".to_owned()),
        _ => Cow::Borrowed(text),
    }
}

enum Read {
    Blank,
    Order,
    Command(Command),
    /// PRESS or TELL whose text may continue on the following lines.
    Open(Command),
    Problem {
        problem: String,
        expected: String,
    },
}

fn problem(problem: &str, expected: &str) -> Read {
    Read::Problem {
        problem: problem.to_owned(),
        expected: expected.to_owned(),
    }
}

fn read_line(text: &str) -> Read {
    if text.trim().is_empty() {
        return Read::Blank;
    }
    let Some((keyword, rest)) = keyword(text) else {
        return Read::Order;
    };
    match keyword {
        Keyword::Join => match game_name(rest) {
            "" => problem(
                "JOIN needs the name of the game",
                "JOIN <game>, for example JOIN spring-salvo",
            ),
            game => Read::Command(Command::Join {
                game: game.to_owned(),
            }),
        },
        Keyword::Game => match game_name(rest) {
            "" => problem(
                "GAME needs the name of the game the following lines are for",
                "GAME <game>, for example GAME spring-salvo",
            ),
            game => Read::Command(Command::Game {
                game: game.to_owned(),
            }),
        },
        Keyword::Press if is_withdraw(argument(rest)) => Read::Command(Command::PressWithdraw),
        Keyword::Press => Read::Open(Command::Press {
            text: argument(rest).to_owned(),
        }),
        Keyword::Letter => Read::Open(Command::Letter {
            text: argument(rest).to_owned(),
        }),
        Keyword::Receive => match game_name(rest).to_ascii_lowercase().as_str() {
            "issue" | "issues" | "the issue" => Read::Command(Command::Receive { issue: true }),
            "report" | "reports" => Read::Command(Command::Receive { issue: false }),
            _ => problem(
                "RECEIVE needs ISSUE or REPORTS",
                "RECEIVE ISSUE (the zine's issue) or RECEIVE REPORTS (each game's report)",
            ),
        },
        Keyword::Tell => {
            let rest = argument(rest);
            // "TELL to Fred: hi"
            let rest = match rest.get(..3) {
                Some(word) if word.eq_ignore_ascii_case("to ") => rest.get(3..).unwrap_or(""),
                _ => rest,
            }
            .trim_start();
            let (to, text) = match rest.split_once(':') {
                Some((to, text)) => (to.trim(), text),
                None => match rest.split_once(char::is_whitespace) {
                    Some((to, text)) => (to, text),
                    None => (rest, ""),
                },
            };
            if to.is_empty() {
                return problem(
                    "TELL needs the player's name or number",
                    "TELL <player>: <text>, for example TELL Fred Bloggs: truce?",
                );
            }
            Read::Open(Command::Tell {
                to: to.to_owned(),
                text: argument(text).to_owned(),
            })
        }
        Keyword::Position if nothing_after(rest) => Read::Command(Command::Position),
        // POSITION carrier A1 H is Salvo's placement order.
        Keyword::Position => Read::Order,
        Keyword::Status => Read::Command(Command::Status),
        // Alone on its line, as an engine's order might start with the word.
        Keyword::List if nothing_after(rest) => Read::Command(Command::List),
        Keyword::List => Read::Order,
        Keyword::Absent => absence(rest),
        Keyword::Present if nothing_after(rest) => Read::Command(Command::Present),
        Keyword::Present => Read::Order,
        Keyword::Help => Read::Command(Command::Help),
        Keyword::Resign if nothing_after(rest) => Read::Command(Command::Resign),
        Keyword::Resign => problem(
            "RESIGN must be alone on its line: nothing was done",
            "RESIGN",
        ),
        Keyword::Standby if nothing_after(rest) => Read::Command(Command::Standby { on: true }),
        Keyword::Standby if is_off(rest) => Read::Command(Command::Standby { on: false }),
        Keyword::Standby => problem(
            "STANDBY takes nothing after it but OFF: nothing was done",
            "STANDBY, or STANDBY OFF",
        ),
        // Alone on their line: Forever's ACCEPT DRAW is an order.
        Keyword::Accept if nothing_after(rest) => Read::Command(Command::Accept),
        Keyword::Decline if nothing_after(rest) => Read::Command(Command::Decline),
        Keyword::Accept | Keyword::Decline => Read::Order,
        Keyword::Unsubscribe if nothing_after(rest) => Read::Command(Command::Unsubscribe),
        Keyword::Unsubscribe => problem(
            "UNSUBSCRIBE must be alone on its line: nothing was done",
            "UNSUBSCRIBE",
        ),
        Keyword::Password => match secret(rest) {
            "" => problem(
                "PASSWORD needs your password after it",
                "PASSWORD <your password>",
            ),
            secret => Read::Command(Command::Password {
                secret: Password(secret.to_owned()),
            }),
        },
    }
}

/// Reads the commands and order lines of a message's kept lines (from [`crate::quotes::strip`]).
///
/// A PRESS or TELL continues on every following line until a blank line or a command, so
/// `PRESS hello` directly followed by `FIRE B7` makes `FIRE B7` part of the press (the
/// confirmation shows it). [`parse_with`] lets the engine end the press at an order instead.
pub fn parse(lines: &[Line]) -> Commands {
    parse_with(lines, |_| false)
}

/// [`parse`], where `is_order` tells whether a line is a valid order of the player's game
/// (the server can ask the engine: no error from `parse_orders` on that one line); such a line
/// ends a PRESS or TELL instead of continuing it.
pub fn parse_with(lines: &[Line], is_order: impl Fn(&str) -> bool) -> Commands {
    let mut out = Commands::default();
    let mut game: Option<String> = None;
    let mut index = 0;
    while let Some(line) = lines.get(index) {
        index += 1;
        match read_line(&line.text) {
            Read::Blank => {}
            Read::Order => out.orders.push(OrderLine {
                line: line.number,
                game: game.clone(),
                text: line.text.trim_end().to_owned(),
            }),
            Read::Command(command) => {
                if let Command::Game { game: chosen } = &command {
                    game = Some(chosen.clone());
                }
                out.commands.push(CommandLine {
                    line: line.number,
                    game: game.clone(),
                    command,
                });
            }
            Read::Open(mut command) => {
                // Following order-like lines, with no blank line or removed lines between,
                // continue the text.
                let mut previous = line.number;
                while let Some(next) = lines.get(index) {
                    if next.number != previous + 1
                        || !matches!(read_line(&next.text), Read::Order)
                        || is_order(&next.text)
                    {
                        break;
                    }
                    if let Command::Press { text }
                    | Command::Tell { text, .. }
                    | Command::Letter { text } = &mut command
                    {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(next.text.trim());
                    }
                    previous = next.number;
                    index += 1;
                }
                match &command {
                    Command::Press { text } if text.is_empty() => out.problems.push(Problem {
                        line: line.number,
                        text: line.text.trim_end().to_owned(),
                        problem: "PRESS needs the text to publish".to_owned(),
                        expected: "PRESS <text>, for example PRESS Steady, lads.".to_owned(),
                    }),
                    Command::Letter { text } if text.is_empty() => out.problems.push(Problem {
                        line: line.number,
                        text: line.text.trim_end().to_owned(),
                        problem: "LETTER needs the text of the letter".to_owned(),
                        expected: "LETTER <text>, for example LETTER Sir, the dice are rigged."
                            .to_owned(),
                    }),
                    Command::Tell { text, .. } if text.is_empty() => out.problems.push(Problem {
                        line: line.number,
                        text: line.text.trim_end().to_owned(),
                        problem: "TELL needs the message after the player's name".to_owned(),
                        expected: "TELL <player>: <text>, for example TELL Fred Bloggs: truce?"
                            .to_owned(),
                    }),
                    _ => out.commands.push(CommandLine {
                        line: line.number,
                        game: game.clone(),
                        command,
                    }),
                }
            }
            Read::Problem { problem, expected } => out.problems.push(Problem {
                line: line.number,
                text: redact(line.text.trim_end()).into_owned(),
                problem,
                expected,
            }),
        }
    }
    cap(&mut out, lines);
    out
}

/// Order lines passed to the engine from one message; the rest are not read (and the
/// confirmation says so). Far more than any game's orders, and it bounds the reply: every
/// order line may come back with an error, every command with an answer.
pub const MAX_ORDER_LINES: usize = 1000;
/// Commands acted on from one message (each may add a HELP text or a position to the reply).
pub const MAX_COMMANDS: usize = 50;
/// Unreadable command lines listed from one message.
pub const MAX_PROBLEMS: usize = 50;

/// Cuts what a message asks for to the limits above, saying where each cut was.
fn cap(out: &mut Commands, lines: &[Line]) {
    let first_lines = [
        out.orders.get(MAX_ORDER_LINES).map(|o| o.line),
        out.commands.get(MAX_COMMANDS).map(|c| c.line),
        out.problems.get(MAX_PROBLEMS).map(|p| p.line),
    ];
    let ignored = [
        out.orders.len().saturating_sub(MAX_ORDER_LINES),
        out.commands.len().saturating_sub(MAX_COMMANDS),
        out.problems.len().saturating_sub(MAX_PROBLEMS),
    ];
    out.orders.truncate(MAX_ORDER_LINES);
    out.commands.truncate(MAX_COMMANDS);
    out.problems.truncate(MAX_PROBLEMS);
    let kinds = [
        ("order lines", MAX_ORDER_LINES),
        ("commands", MAX_COMMANDS),
        ("unreadable command lines", MAX_PROBLEMS),
    ];
    for ((first, ignored), (what, max)) in first_lines.into_iter().zip(ignored).zip(kinds) {
        let Some(line) = first else { continue };
        let text = lines
            .iter()
            .find(|l| l.number == line)
            .map(|l| redact(l.text.trim_end()).into_owned())
            .unwrap_or_default();
        out.problems.push(Problem {
            line,
            text,
            problem: format!(
                "one message is read for at most {max} {what}: this line and the {} after it were ignored",
                ignored.saturating_sub(1)
            ),
            expected: format!("at most {max} {what} in one message"),
        });
    }
}

/// Reads a text whose every line counts (the web form's order box), numbering lines from 1.
pub fn parse_text(text: &str) -> Commands {
    parse(&number_lines(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(text: &str) -> Vec<(usize, Command)> {
        parse_text(text)
            .commands
            .into_iter()
            .map(|c| (c.line, c.command))
            .collect()
    }

    #[test]
    fn letter_continues_like_press_and_receive_takes_issue_or_reports() {
        assert_eq!(
            commands("Letter: Sir,\nthe dice are rigged.\n\nRECEIVE issue\nreceive Reports."),
            [
                (
                    1,
                    Command::Letter {
                        text: "Sir,\nthe dice are rigged.".into()
                    }
                ),
                (4, Command::Receive { issue: true }),
                (5, Command::Receive { issue: false }),
            ]
        );
        let read = parse_text("LETTER\nRECEIVE everything");
        assert!(read.commands.is_empty());
        assert_eq!(read.problems.len(), 2);
        assert!(read.problems[0].problem.contains("LETTER needs the text"));
        assert!(
            read.problems[1]
                .problem
                .contains("RECEIVE needs ISSUE or REPORTS")
        );
    }

    #[test]
    fn a_message_is_read_for_a_bounded_number_of_orders_and_commands() {
        // Found by the hostile-mail tests: a million order lines (or HELP lines) each came back
        // in the confirmation, a 16 MB reply to a 4 MB message.
        let mut text = String::new();
        for _ in 0..MAX_ORDER_LINES + 5 {
            text.push_str("A1\n");
        }
        for _ in 0..MAX_COMMANDS + 7 {
            text.push_str("HELP\n");
        }
        for _ in 0..MAX_PROBLEMS + 3 {
            text.push_str("RESIGN now\n");
        }
        let read = parse_text(&text);
        assert_eq!(read.orders.len(), MAX_ORDER_LINES);
        assert_eq!(read.commands.len(), MAX_COMMANDS);
        assert_eq!(read.problems.len(), MAX_PROBLEMS + 3);
        let notes: Vec<(usize, &str)> = read.problems[MAX_PROBLEMS..]
            .iter()
            .map(|p| (p.line, p.text.as_str()))
            .collect();
        assert_eq!(
            notes,
            [
                (MAX_ORDER_LINES + 1, "A1"),
                (MAX_ORDER_LINES + 5 + MAX_COMMANDS + 1, "HELP"),
                (
                    MAX_ORDER_LINES + 5 + MAX_COMMANDS + 7 + MAX_PROBLEMS + 1,
                    "RESIGN now"
                ),
            ]
        );
        assert!(
            read.problems[MAX_PROBLEMS]
                .problem
                .contains("the 4 after it were ignored")
        );
        // Within the limits nothing is added.
        assert!(parse_text("A1\nHELP\n").problems.is_empty());
    }

    #[test]
    fn absent_takes_two_days_or_none() {
        let day = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let found = commands("ABSENT 2026-12-20 2027-01-03\nabsent: none\nPRESENT\n");
        assert_eq!(
            found,
            vec![
                (
                    1,
                    Command::Absent {
                        first_day: day(2026, 12, 20),
                        last_day: day(2027, 1, 3)
                    }
                ),
                (2, Command::Present),
                (3, Command::Present),
            ]
        );
        let read = parse_text("ABSENT 2027-01-03 2026-12-20\nABSENT next week\n");
        assert_eq!(read.problems.len(), 2);
        assert!(
            read.problems[0]
                .problem
                .contains("first day is after its last day")
        );
        assert!(
            read.problems[1]
                .problem
                .contains("two dates written YYYY-MM-DD")
        );
    }

    #[test]
    fn list_is_a_command_alone_on_its_line() {
        let found = commands("LIST\nlist.\nLIST carrier A1\n");
        assert_eq!(found, vec![(1, Command::List), (2, Command::List)]);
        assert_eq!(parse_text("LIST carrier A1\n").orders.len(), 1);
    }

    #[test]
    fn every_command_and_its_spellings() {
        let text = "JOIN spring-salvo\nsignon Autumn\nSign on: winter\nGame: spring-salvo.\nPRESS: hello\nPress - there\n\npress hi\nTELL Fred Bloggs: hi\ntell 3 truce?\nwhere\nPosition!\nSTATUS\nstatus please\nResign\nUNSUBSCRIBE.\nHelp me\nPASSWORD: s3cret pass\n";
        let found = commands(text);
        let expected = vec![
            (
                1,
                Command::Join {
                    game: "spring-salvo".into(),
                },
            ),
            (
                2,
                Command::Join {
                    game: "Autumn".into(),
                },
            ),
            (
                3,
                Command::Join {
                    game: "winter".into(),
                },
            ),
            (
                4,
                Command::Game {
                    game: "spring-salvo".into(),
                },
            ),
            (
                5,
                Command::Press {
                    text: "hello".into(),
                },
            ),
            (
                6,
                Command::Press {
                    text: "there".into(),
                },
            ),
            (8, Command::Press { text: "hi".into() }),
            (
                9,
                Command::Tell {
                    to: "Fred Bloggs".into(),
                    text: "hi".into(),
                },
            ),
            (
                10,
                Command::Tell {
                    to: "3".into(),
                    text: "truce?".into(),
                },
            ),
            (11, Command::Position),
            (12, Command::Position),
            (13, Command::Status),
            (14, Command::Status),
            (15, Command::Resign),
            (16, Command::Unsubscribe),
            (17, Command::Help),
            (
                18,
                Command::Password {
                    secret: Password("s3cret pass".into()),
                },
            ),
        ];
        assert_eq!(found, expected);
    }

    #[test]
    fn order_lines_keep_their_numbers_and_game() {
        let parsed = parse_text("FIRE B7\nGAME autumn\nposition carrier a1 h\nPRESS x\n\nNUKE D4");
        let orders: Vec<(usize, Option<&str>, &str)> = parsed
            .orders
            .iter()
            .map(|o| (o.line, o.game.as_deref(), o.text.as_str()))
            .collect();
        assert_eq!(
            orders,
            vec![
                (1, None, "FIRE B7"),
                (3, Some("autumn"), "position carrier a1 h"),
                (6, Some("autumn"), "NUKE D4")
            ]
        );
        let text = parsed.order_text(Some("AUTUMN"));
        // The PRESS and the blank line between are shown to the engine as one blank line,
        // as the web form's text would show them (a press ends there at both doors).
        assert_eq!(text.text, "position carrier a1 h\n\nNUKE D4");
        assert_eq!(text.original_line(3), Some(6));
        assert_eq!(text.original_line(0), None);
        assert_eq!(parsed.order_games(), vec![None, Some("autumn")]);
    }

    #[test]
    fn words_that_merely_start_like_commands_are_orders() {
        let parsed = parse_text("Pressure on B4\nhelpful\nGAMES\nstatus_x\njoin@x");
        assert!(parsed.commands.is_empty());
        assert_eq!(parsed.orders.len(), 5);
    }

    #[test]
    fn problems_say_what_would_be_accepted() {
        let parsed = parse_text("JOIN\nPRESS\n\nTELL\nRESIGN from everything\nPASSWORD\nTELL Fred");
        let lines: Vec<usize> = parsed.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![1, 2, 4, 5, 6, 7]);
        assert!(parsed.commands.is_empty());
    }

    #[test]
    fn passwords_are_never_shown() {
        let parsed = parse_text("PASSWORD hunter2");
        assert_eq!(
            parsed.password().map(Password::expose_secret),
            Some("hunter2")
        );
        let debug = format!("{parsed:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        let json = serde_json::to_string(&parsed).unwrap();
        assert!(!json.contains("hunter2"), "{json}");
        assert_eq!(redact("password = hunter2"), "PASSWORD [redacted]");
        assert_eq!(redact("FIRE B7"), "FIRE B7");
        assert_eq!(secret(" -x"), "-x");
        assert_eq!(secret(" - x"), "x");
    }

    #[test]
    fn press_withdraw_alone_is_a_command_and_press_about_withdrawing_is_press() {
        for text in ["PRESS WITHDRAW", "press withdraw.", "Press: Withdraw!"] {
            assert_eq!(
                parse_text(text).commands[0].command,
                Command::PressWithdraw,
                "{text}"
            );
        }
        assert_eq!(
            parse_text("PRESS withdraw your fleet, Bob").commands[0].command,
            Command::Press {
                text: "withdraw your fleet, Bob".into()
            }
        );
    }

    #[test]
    fn press_continues_until_a_blank_line_or_a_command() {
        let parsed = parse_text("PRESS Men of the fleet,\nwe sail at dawn.\nSTATUS\nFIRE B7");
        assert_eq!(
            parsed.commands.first().map(|c| &c.command),
            Some(&Command::Press {
                text: "Men of the fleet,\nwe sail at dawn.".into()
            })
        );
        assert_eq!(parsed.orders.len(), 1);
    }

    #[test]
    fn tell_to_a_name() {
        assert_eq!(
            commands("TELL to Fred Bloggs: hi\ntell TO 2 - ok"),
            vec![
                (
                    1,
                    Command::Tell {
                        to: "Fred Bloggs".into(),
                        text: "hi".into()
                    }
                ),
                (
                    2,
                    Command::Tell {
                        to: "2".into(),
                        text: "ok".into()
                    }
                ),
            ]
        );
    }

    #[test]
    fn the_engine_can_end_a_press_at_an_order() {
        let lines = number_lines("PRESS Ahoy!\nFIRE B2\nmore press");
        let swallowed = parse(&lines);
        assert!(swallowed.orders.is_empty());
        let ended = parse_with(&lines, |line| line.starts_with("FIRE"));
        assert_eq!(
            ended.commands.first().map(|c| &c.command),
            Some(&Command::Press {
                text: "Ahoy!".into()
            })
        );
        let orders: Vec<&str> = ended.orders.iter().map(|o| o.text.as_str()).collect();
        assert_eq!(orders, vec!["FIRE B2", "more press"]);
    }

    #[test]
    fn help_lists_every_command() {
        for word in [
            "JOIN",
            "SIGNON",
            "GAME",
            "PRESS",
            "TELL",
            "POSITION",
            "WHERE",
            "STATUS",
            "RESIGN",
            "STANDBY",
            "ACCEPT",
            "DECLINE",
            "UNSUBSCRIBE",
            "HELP",
            "PASSWORD",
        ] {
            assert!(HELP.contains(word), "{word}");
        }
    }

    #[test]
    fn accept_and_decline_alone_are_commands_and_accept_draw_is_an_order() {
        assert_eq!(
            commands("ACCEPT\ndecline.\nAccept please"),
            vec![
                (1, Command::Accept),
                (2, Command::Decline),
                (3, Command::Accept)
            ]
        );
        // Forever's order to accept a draw, and words after DECLINE, go to the engine.
        let parsed = parse_text("ACCEPT DRAW\nDECLINE the offer");
        assert!(parsed.commands.is_empty(), "{:?}", parsed.commands);
        assert_eq!(parsed.orders.len(), 2);
    }
}
