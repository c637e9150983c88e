//! The words orders are written in, and a line split into them: words of letters and
//! digits, `/` between a target and its fallback, `,` and `&`.

use crate::fire::Group;
use crate::grid::TurnSide;

/// A name as orders match it: lower-case words of letters and digits, single-spaced.
pub fn normalise(text: &str) -> String {
    words_of(text).join(" ")
}

pub(super) fn words_of(text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(word) => Some(word),
            _ => None,
        })
        .collect()
}

pub(super) const MAIN_WORDS: &[&str] = &[
    "main", "mains", "m", "primary", "guns", "gun", "turrets", "turret",
];
pub(super) const PORT_WORDS: &[&str] = &["port", "p", "larboard"];
pub(super) const STARBOARD_WORDS: &[&str] = &["starboard", "stbd", "stb", "sb", "s"];
pub(super) const TORPEDO_WORDS: &[&str] = &["torpedo", "torpedoes", "torp", "torps", "t", "fish"];
pub(super) const MOVE_WORDS: &[&str] = &[
    "move",
    "moves",
    "mv",
    "steer",
    "course",
    "helm",
    "manoeuvre",
    "maneuver",
    "manoeuver",
    "sail",
];
pub(super) const WITHDRAW_WORDS: &[&str] = &["withdraw", "retire", "escape", "breakoff"];
pub(super) const SECONDARY_WORDS: &[&str] = &["secondary", "secondaries", "sec", "secs", "battery"];
pub(super) const ORDER_WORDS: &[&str] = &["order", "sequence"];
/// The words that start a press line ([`engine::order_text::PRESS_WORDS`]): no ship may be
/// called so.
pub(super) const PRESS_WORDS: &[&str] = &engine::order_text::PRESS_WORDS;
/// Words that may come before an order word or a target and mean nothing more.
pub(super) const FILLER_WORDS: &[&str] = &[
    "fire", "fires", "firing", "open", "shoot", "engage", "at", "on", "target", "targets", "to",
    "the", "with", "armament", "hms", "sms", "uss", "ss", "ship", "her", "his", "its", "please",
];
pub(super) const HOLD_FIRE_WORDS: &[&str] =
    &["none", "nothing", "hold", "cease", "no", "nil", "nobody"];
pub(super) const ALTERNATIVE_WORDS: &[&str] = &["or", "else", "otherwise", "then", "failing"];

/// Is this (normalised) name an order word, which a ship may not be called?
pub fn is_reserved_word(name: &str) -> bool {
    [
        MAIN_WORDS,
        PORT_WORDS,
        STARBOARD_WORDS,
        TORPEDO_WORDS,
        MOVE_WORDS,
        WITHDRAW_WORDS,
        SECONDARY_WORDS,
        ORDER_WORDS,
        PRESS_WORDS,
        FILLER_WORDS,
        HOLD_FIRE_WORDS,
        ALTERNATIVE_WORDS,
    ]
    .iter()
    .any(|list| list.contains(&name))
        || step_word(name).is_some()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Word(String),
    /// `/`: between a target and its fallback.
    Slash,
    /// `,`: between steps of a path or names in a list.
    Comma,
    /// `&` or `+`: joins targets, which one weapon may not have.
    Join,
}

pub(super) fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
            continue;
        }
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(&mut word)));
        }
        match c {
            '/' => out.push(Token::Slash),
            ',' => out.push(Token::Comma),
            '&' | '+' => out.push(Token::Join),
            _ => {}
        }
    }
    if !word.is_empty() {
        out.push(Token::Word(word));
    }
    out
}

pub(super) fn is_word(token: Option<&Token>, list: &[&str]) -> bool {
    matches!(token, Some(Token::Word(word)) if list.contains(&word.as_str()))
}

pub(super) fn skip_fillers(tokens: &[Token]) -> &[Token] {
    let mut rest = tokens;
    while let [first, tail @ ..] = rest {
        if is_word(Some(first), FILLER_WORDS) {
            rest = tail;
        } else {
            break;
        }
    }
    rest
}

/// `tokens` as written, then with one, two, … leading filler words dropped. A ship's name may
/// itself begin with a filler word ("The Ram", "Her Majesty", "HMS Ajax" written "HMS HMS
/// Ajax"), so every name is matched as written first (IRON-GUN-05..07).
pub(super) fn filler_readings(tokens: &[Token]) -> Vec<&[Token]> {
    let mut readings = vec![tokens];
    let mut rest = tokens;
    while let [first, tail @ ..] = rest {
        if !is_word(Some(first), FILLER_WORDS) {
            break;
        }
        rest = tail;
        readings.push(rest);
    }
    readings
}

pub(super) fn joined_words(tokens: &[Token]) -> String {
    tokens
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn starts_with_order_word(tokens: &[Token]) -> bool {
    [
        MAIN_WORDS,
        PORT_WORDS,
        STARBOARD_WORDS,
        TORPEDO_WORDS,
        MOVE_WORDS,
        WITHDRAW_WORDS,
        SECONDARY_WORDS,
    ]
    .iter()
    .any(|list| is_word(tokens.first(), list))
}

pub(super) fn group_word(group: Group) -> &'static str {
    match group {
        Group::Main => "MAIN",
        Group::Port => "PORT",
        Group::Starboard => "STBD",
        Group::Torpedo => "TORP",
    }
}

pub(super) fn skip_secondary(tokens: &[Token]) -> &[Token] {
    match tokens.split_first() {
        Some((first, rest)) if is_word(Some(first), SECONDARY_WORDS) => rest,
        _ => tokens,
    }
}

/// One step of a move as the words of orders name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Forward,
    Turn(TurnSide),
    Hold,
}

/// The steps a word stands for: `f`, `ff`, `fr`, `t45r`, `right`, `hold`...
pub(super) fn step_word(word: &str) -> Option<Vec<Step>> {
    let steps = match word {
        "hold" | "stop" | "stay" | "halt" | "stationary" | "still" | "0" => vec![Step::Hold],
        "forward" | "fwd" | "ahead" | "straight" | "fd" => vec![Step::Forward],
        "right" | "starboard" | "stbd" | "r" | "tr" | "t45r" | "r45" | "45r" => {
            vec![Step::Turn(TurnSide::Starboard)]
        }
        "left" | "port" | "larboard" | "l" | "tl" | "t45l" | "l45" | "45l" => {
            vec![Step::Turn(TurnSide::Port)]
        }
        _ if !word.is_empty()
            && word.chars().all(|c| matches!(c, 'f' | 'l' | 'r'))
            && word.starts_with('f') =>
        {
            word.chars()
                .map(|c| match c {
                    'l' => Step::Turn(TurnSide::Port),
                    'r' => Step::Turn(TurnSide::Starboard),
                    _ => Step::Forward,
                })
                .collect()
        }
        _ => return None,
    };
    Some(steps)
}
