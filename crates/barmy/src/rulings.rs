//! The GM's switches as this game set them, in words for the game's public page
//! (docs/rules/barmy.md, "Switches").

use engine::Ruling;

use crate::Setup;

pub(crate) fn rulings(setup: &Setup) -> Vec<Ruling> {
    let ruling = |rule: &str, text: &str| Ruling {
        rule: rule.into(),
        text: text.into(),
    };
    let placed = setup.placements.len();
    vec![
        if setup.press_only_is_nmr {
            ruling(
                "BARMY-17",
                "Orders that fire no shot are a missed turn (NMR), even with press: from a \
                 player's second turn each missed turn costs a hit on their own ship unless \
                 someone hits it that turn (the rules text's wording).",
            )
        } else {
            ruling(
                "BARMY-17",
                "Press alone answers a turn: a player who sends press but no shot is not \
                 penalised as a missed turn (orders with neither shots nor press still are).",
            )
        },
        if setup.one_shot_allowed {
            ruling(
                "BARMY-07",
                "An order naming one square is accepted, with a warning: the second shot is \
                 simply not fired.",
            )
        } else {
            ruling(
                "BARMY-07",
                "An order naming one square is refused: each player names two squares a turn. \
                 The order form will not store it; a mailed one-square order that still stands \
                 at the deadline fires its one shot.",
            )
        },
        if placed == 0 {
            ruling(
                "BARMY-GM-04",
                "Every ship is placed at random by the server.",
            )
        } else {
            ruling(
                "BARMY-GM-04",
                &format!(
                    "The GM placed {placed} ship{} by hand; every other ship is placed at random \
                     by the server.",
                    if placed == 1 { "" } else { "s" }
                ),
            )
        },
    ]
}
