//! The words orders are written in: command words, directions, ships' names, and the words
//! that carry no meaning in an order.

use crate::board::Heading;
use crate::fleet::ShipKind;
use crate::legality::OrderError;

use super::tokens::Tok;

/// What one line is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Command {
    Place,
    Fire,
    Nuke,
    Scuba,
    Recapture,
    Torpedo,
    Experimental,
    Bomber,
    Pass,
}

impl Command {
    pub(super) fn of_word(word: &str) -> Option<Command> {
        Some(match word {
            "place" | "placed" | "placing" | "position" | "deploy" | "put" | "placement"
            | "random" | "randomly" | "randomise" | "randomize" => Command::Place,
            "fire" | "firing" | "shoot" | "shot" | "shots" | "salvo" | "call" | "calling"
            | "target" => Command::Fire,
            "nuke" | "nuclear" | "tactical" | "tacnuke" | "atomic" => Command::Nuke,
            "scuba" | "commando" | "commandos" | "divers" | "diver" | "frogmen" => Command::Scuba,
            "recapture" | "retake" | "rescue" => Command::Recapture,
            "torpedo" | "torpedoes" | "torpedos" | "torp" | "torps" => Command::Torpedo,
            "experimental" | "exp" | "experiment" | "xp" => Command::Experimental,
            "bomber" | "bombers" | "bomb" | "bombs" | "bombing" | "airstrike" | "air" => {
                Command::Bomber
            }
            "pass" | "hold" | "skip" | "none" | "nothing" | "wait" => Command::Pass,
            _ => return None,
        })
    }

    pub(super) fn what(self) -> &'static str {
        match self {
            Command::Place => "PLACE",
            Command::Fire => "FIRE",
            Command::Nuke => "NUKE",
            Command::Scuba => "SCUBA",
            Command::Recapture => "SCUBA RECAPTURE",
            Command::Torpedo => "TORPEDO",
            Command::Experimental => "EXPERIMENTAL",
            Command::Bomber => "BOMBER",
            Command::Pass => "PASS",
        }
    }
}

/// Words that carry no meaning in an order ("I'm making a SCUBA attack").
const FILLER_WORDS: &[&str] = &[
    "i",
    "im",
    "m",
    "ll",
    "re",
    "am",
    "now",
    "time",
    "here",
    "we",
    "will",
    "shall",
    "to",
    "please",
    "pls",
    "make",
    "making",
    "launch",
    "launching",
    "use",
    "using",
    "a",
    "an",
    "the",
    "my",
    "our",
    "attack",
    "attacks",
    "weapon",
    "weapons",
    "flight",
    "strike",
    "starting",
    "start",
    "from",
    "square",
    "squares",
    "and",
    "with",
    "go",
    "going",
    "heading",
    "head",
    "direction",
    "toward",
    "towards",
    "then",
    "run",
    "running",
    "pattern",
    "blast",
    "of",
    "centre",
    "center",
    "centred",
    "centered",
    "middle",
    "coordinate",
    "coordinates",
    "coord",
    "point",
    "send",
    "sending",
    "drop",
    "dropping",
    "order",
    "orders",
    "turn",
    "this",
    "fleet",
    "ship",
    "ships",
    "team",
    "diving",
    "team's",
    "backfire",
    "own",
    "is",
    "it",
    "for",
    "in",
    "mode",
    "ocean",
    "over",
    "onto",
    "into",
    "aimed",
    "aim",
    "board",
    "grid",
    // The text's own sentences: "This experimental weapon has a blast pattern of B2,
    // B3, and B4", "they could say that the blast pattern was ..." (SALVO-EXP-05).
    "has",
    "have",
    "had",
    "was",
    "were",
    "be",
    "are",
    "would",
    "could",
    "they",
    "say",
    "says",
    "announce",
    "announces",
    "that",
];

/// Is the word one of [`FILLER_WORDS`]?
pub(super) fn is_filler(word: &str) -> bool {
    FILLER_WORDS.contains(&word)
}

pub(super) fn is_range_word(word: &str) -> bool {
    matches!(word, "to" | "through" | "thru" | "till" | "until")
}

/// A direction or orientation word: compass for torpedoes, H or V for placing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    Compass(Heading),
    Horizontal,
    Vertical,
}

pub(super) fn direction_of(word: &str) -> Option<Direction> {
    Some(match word {
        "n" | "north" | "up" | "northward" | "northwards" => Direction::Compass(Heading::North),
        "s" | "south" | "down" | "southward" | "southwards" => Direction::Compass(Heading::South),
        "e" | "east" | "right" | "eastward" | "eastwards" => Direction::Compass(Heading::East),
        "w" | "west" | "left" | "westward" | "westwards" => Direction::Compass(Heading::West),
        "h" | "horizontal" | "horizontally" | "across" | "horiz" | "hor" => Direction::Horizontal,
        "v" | "vertical" | "vertically" | "vert" | "ver" => Direction::Vertical,
        _ => return None,
    })
}

/// A ship named at `tokens[at]`, and how many words it took.
pub(super) fn ship_at(tokens: &[Tok], at: usize) -> Option<(ShipKind, usize)> {
    let word = |i: usize| match tokens.get(i) {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let first = word(at)?;
    let second = word(at + 1);
    match (first, second) {
        ("aircraft", Some("carrier")) => Some((ShipKind::Carrier, 2)),
        ("battle", Some("ship")) => Some((ShipKind::Battleship, 2)),
        ("patrol", Some("boat")) => Some((ShipKind::Destroyer, 2)),
        _ => {
            let kind = match first {
                "carrier" | "ac" | "cv" => ShipKind::Carrier,
                "battleship" | "bb" => ShipKind::Battleship,
                "cruiser" | "ca" | "cl" => ShipKind::Cruiser,
                "submarine" | "sub" | "ss" => ShipKind::Submarine,
                "destroyer" | "dd" | "patrol" | "pt" => ShipKind::Destroyer,
                _ => return None,
            };
            Some((kind, 1))
        }
    }
}

/// The command word of a line, and where its arguments begin. A line starting with a square
/// is a shot; one starting with a ship's name is a placement.
pub(super) fn find_command(tokens: &[Tok]) -> Result<(Command, usize), OrderError> {
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        match token {
            Tok::Square(_) | Tok::BadSquare(_) => return Ok((Command::Fire, i)),
            Tok::Dash => i += 1,
            Tok::Word(word) => {
                if let Some(command) = Command::of_word(word) {
                    // "random" is an argument of PLACE: keep it.
                    let args = if command == Command::Place && word.starts_with("random") {
                        i
                    } else {
                        i + 1
                    };
                    return Ok((command, args));
                }
                if ship_at(tokens, i).is_some() {
                    return Ok((Command::Place, i));
                }
                // "the blast pattern was G2, H3, ..." names the experimental weapon (SALVO-EXP-05).
                if word == "blast"
                    && matches!(tokens.get(i + 1), Some(Tok::Word(next)) if next == "pattern")
                {
                    return Ok((Command::Experimental, i + 1));
                }
                if is_filler(word) {
                    i += 1;
                    continue;
                }
                return Err(OrderError::UnknownOrder(word.clone()));
            }
        }
    }
    Err(OrderError::UnknownOrder(String::new()))
}

/// Words with a meaning of their own, which "at" or "on" before them does not make a name.
pub(super) fn is_keyword(word: &str) -> bool {
    is_filler(word)
        || is_range_word(word)
        || direction_of(word).is_some()
        || Command::of_word(word).is_some()
        || matches!(word, "sacrifice" | "sac" | "lose")
}
