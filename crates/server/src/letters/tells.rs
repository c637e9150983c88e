//! The confirmation's words for a reply to a relayed TELL (docs/mail.md).

/// Above the outcome of a reply that answers a private message.
pub fn reply_heading(counterpart: &str, game: &str) -> String {
    format!(
        "Your message answers a private message from {counterpart} in {game}: what you wrote \
         is passed on to {counterpart} alone, as a private message, and is not read as orders."
    )
}

/// A reply that could not be relayed, with its text, so that nothing is lost.
pub fn reply_not_relayed(
    line: usize,
    counterpart: Option<&str>,
    why: &dyn std::fmt::Display,
    text: &str,
) -> String {
    let whom = counterpart.map_or_else(String::new, |name| format!(" to {name}"));
    let why = why.to_string();
    let why = why.trim_end_matches('.');
    let quoted: Vec<String> = text.lines().map(|l| format!("  | {l}")).collect();
    format!(
        "Line {line}: your reply{whom} was NOT relayed: {why}. It was not read as orders \
         either; nothing else was done with it. What you wrote, so that it is not lost:\n{}",
        quoted.join("\n")
    )
}

/// A reply to a relayed TELL with nothing written in it.
pub fn reply_empty() -> String {
    "Your message answers a private message, but has no text of yours to pass on (quoted \
     text is left out): nothing was relayed."
        .to_owned()
}
