//! The confirmation of orders received by post: the same words the player would get by mail,
//! shown to the GM who entered them and mailed to the player.

use chrono::NaiveDate;
use engine::ParsedOrders;
use games::AnyOrders;

/// The confirmation of orders the GM entered from the post.
pub fn confirmation(
    game: &str,
    player: &str,
    received_on: NaiveDate,
    gm: &str,
    parsed: &ParsedOrders<AnyOrders>,
) -> String {
    let mut out = format!(
        "{player}'s orders for {game}, received by post on {}, entered by the GM ({gm}), as understood:\n",
        received_on.format("%A %-d %B %Y")
    );
    for line in &parsed.understood {
        out.push_str(&format!("  - {line}\n"));
    }
    for (kind, issues) in [("Error", &parsed.errors), ("Warning", &parsed.warnings)] {
        for issue in issues {
            out.push_str(&format!(
                "{kind} on line {}: \"{}\"\n    {}\n    Would be accepted: {}\n",
                issue.line, issue.text, issue.problem, issue.expected
            ));
        }
    }
    out.push_str(
        "\nIf nothing more arrives before the deadline, these orders stand. A complete new set \
         (by post, mail or the web) replaces them: the last set received counts.",
    );
    out
}

/// The confirmation of press the GM entered from the post, on its own: the player's orders
/// stay as they were. `press` is what became of it (`replies::press`).
pub fn press_confirmation(
    game: &str,
    player: &str,
    received_on: NaiveDate,
    gm: &str,
    press: &str,
) -> String {
    format!(
        "{player}'s press for {game}, received by post on {}, entered by the GM ({gm}).\n{press}\n\n\
         Your orders for the turn are as they were: press alone changes none of them.",
        received_on.format("%A %-d %B %Y")
    )
}
