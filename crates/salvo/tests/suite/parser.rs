//! The order parser: sloppy real-world input accepted, every error a clear LineIssue with a
//! working example, and no input at all able to make it panic.

use engine::Engine;
use proptest::prelude::*;
use salvo::{Attack, FleetOrder, Heading, Salvo, Setup, ShipKind, ShotRule, Special};

use crate::common::*;

fn attack(text: &str) -> Attack {
    let state = new_game(&Setup::default(), 2, 5);
    orders(&state, ANN, text).attack
}

#[test]
fn sloppy_shots_are_understood() {
    for text in [
        "FIRE B7",
        "fire b7",
        "  Fire   at   B7.  ",
        "Fire: B-7!",
        "b7",
        "shoot b 7",
        "> quoted reply\nFIRE B7\n-- \nsignature FIRE C3",
    ] {
        match attack(text) {
            Attack::Fire { shots } => {
                assert_eq!(shots.len(), 1, "{text}");
                assert_eq!(shots[0].square, square("B7"), "{text}");
                assert_eq!(shots[0].at, BOB);
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn sloppy_extras_are_understood() {
    assert!(
        matches!(attack("Tactical Nuke on d4"), Attack::Nuke { centre, .. } if centre == square("D4"))
    );
    assert!(matches!(
        attack("I'm making a SCUBA attack."),
        Attack::Scuba { .. }
    ));
    assert!(matches!(
        attack("fire a torpedo from a1 heading east"),
        Attack::Torpedo { start, heading: Heading::East, .. } if start == square("A1")
    ));
    assert!(matches!(
        attack("torpedo attack starting on F10!"),
        Attack::Torpedo {
            heading: Heading::West,
            ..
        }
    ));
    assert!(matches!(
        attack("Experimental weapon: g2, h3, h4, h5, g6 (sacrifice the sub)"),
        Attack::Experimental { sacrifice: Some(ShipKind::Submarine), ref pattern, .. } if pattern.squares().len() == 5
    ));
    assert!(
        matches!(attack("bomber flight over G6"), Attack::Bomber { centre, .. } if centre == square("G6"))
    );
    assert!(matches!(attack("pass"), Attack::Pass));
    assert!(matches!(attack("Nuke D4 on Bob's fleet"), Attack::Nuke { at, .. } if at == BOB));
    assert!(matches!(attack(""), Attack::Pass));
}

#[test]
fn placements_in_many_spellings() {
    let state = new_game(&Setup::default(), 2, 6);
    let parsed = Salvo::parse_orders(
        &state,
        ANN,
        "place aircraft carrier a1 horizontal\nBattleship: C1 - C4\nplace cruiser e1 across\nSub G1 right\npatrol boat J9-J10\nFIRE A1",
    );
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let Some(FleetOrder::Placed(plan)) = parsed.orders.fleet else {
        panic!("no placement");
    };
    let spans: Vec<String> = plan.placements().iter().map(|p| p.describe()).collect();
    assert_eq!(
        spans,
        vec![
            "Carrier A1-A5",
            "Battleship C1-C4",
            "Cruiser E1-E3",
            "Submarine G1-G3",
            "Destroyer J9-J10"
        ]
    );
    assert!(matches!(parsed.orders.attack, Attack::Fire { .. }));
}

#[test]
fn every_refused_line_says_why_and_shows_an_example() {
    let state = new_game(&Setup::default(), 3, 7);
    let text = "FIRE\nFIRE K4\nFIRE A11\nNUKE\nNUKE D4 E5\nSCUBA D4\nTORPEDO\nTORPEDO E5 AT Bob\nEXPERIMENTAL\nBOMBER AT Bob\nwhat is this\nPLACE\nFIRE B7 AT Nobody\nFIRE B7\nRECAPTURE\nFIRE B7 at Bob sacrifice";
    let parsed = Salvo::parse_orders(&state, ANN, text);
    let lines: Vec<usize> = parsed.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, (1..=16).collect::<Vec<_>>(), "{:#?}", parsed.errors);
    for issue in &parsed.errors {
        assert!(!issue.problem.is_empty());
        assert!(!issue.expected.is_empty(), "{issue:?}");
        assert_eq!(issue.text, text.lines().nth(issue.line - 1).unwrap());
    }
    // With two opponents the examples name a target.
    assert!(
        parsed.errors[0].expected.contains("AT Bob"),
        "{:?}",
        parsed.errors[0]
    );
    assert!(matches!(parsed.orders.attack, Attack::Pass));
}

#[test]
fn the_help_lists_what_is_in_play() {
    let state = new_game(
        &Setup {
            shots: ShotRule::Salvo,
            ..Setup::default()
        },
        3,
        8,
    );
    let help = Salvo::order_help(&state);
    for piece in [
        "PLACE Carrier A1 H",
        "FIRE B7 C3 E5 AT <player>",
        "NUKE D4",
        "SCUBA RECAPTURE",
        "TORPEDO F10",
        "EXPERIMENTAL B2 B3 B4",
        "BOMBER G6",
        "PASS",
        "PRESS",
        "Players: Ann, Bob, Cy",
    ] {
        assert!(help.contains(piece), "help lacks {piece}:\n{help}");
    }
    let mut setup = Setup::default();
    setup.specials_enabled.remove(&Special::Nuke);
    let help = Salvo::order_help(&new_game(&setup, 2, 8));
    assert!(!help.contains("NUKE"));
}

#[test]
fn press_lines_are_collected_not_parsed() {
    let state = new_game(&Setup::default(), 2, 9);
    let parsed = Salvo::parse_orders(
        &state,
        ANN,
        "PRESS: You sank my battleship!\nFIRE A1\npress   Ha",
    );
    assert!(parsed.errors.is_empty());
    assert_eq!(parsed.press, vec!["You sank my battleship!", "Ha"]);
}

// The order-line reader every engine shares (`engine::order_text`): what it changed for Salvo
// (SALVO-ADM-14), in the three tests below.

#[test]
fn numbered_and_bulleted_orders_are_read() {
    for text in ["1. FIRE B7", "2) fire b7", "• FIRE B7", "- 1. FIRE B7"] {
        let parsed = Salvo::parse_orders(&new_game(&Setup::default(), 2, 5), ANN, text);
        assert!(
            parsed.errors.is_empty(),
            "SALVO-ADM-14: {text}: {:?}",
            parsed.errors
        );
        match parsed.orders.attack {
            Attack::Fire { shots } => assert_eq!(shots[0].square, square("B7"), "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    // A refused line is quoted as written, marker and all.
    let refused = Salvo::parse_orders(&new_game(&Setup::default(), 2, 5), ANN, "1. FIRE K4");
    assert_eq!(
        refused.errors[0].text, "1. FIRE K4",
        "SALVO-ADM-14: a refused line is quoted as written"
    );
}

#[test]
fn a_sign_off_after_dashes_ends_the_orders() {
    // `-- Ann` used to be read as an order (and refused); a line of dashes alone is skipped.
    let parsed = Salvo::parse_orders(
        &new_game(&Setup::default(), 2, 5),
        ANN,
        "---
FIRE B7
-- Ann
NUKE D4",
    );
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert!(matches!(parsed.orders.attack, Attack::Fire { .. }));
}

#[test]
fn press_is_kept_whole_and_on_one_line() {
    let long = "word ".repeat(150);
    let text = format!("PRESS-  Two   spaces\nnews: {long}");
    let parsed = Salvo::parse_orders(&new_game(&Setup::default(), 2, 5), ANN, &text);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(parsed.press[0], "Two spaces");
    // Orders are read up to 500 characters a line; press is no longer cut there.
    assert_eq!(parsed.press[1], long.trim());
}

const WORDS: &[&str] = &[
    "fire",
    "nuke",
    "scuba",
    "recapture",
    "torpedo",
    "experimental",
    "bomber",
    "pass",
    "place",
    "random",
    "at",
    "on",
    "to",
    "-",
    "->",
    "sacrifice",
    "carrier",
    "sub",
    "h",
    "v",
    "n",
    "s",
    "e",
    "w",
    "a1",
    "j10",
    "k3",
    "b",
    "7",
    "bob",
    "ann",
    "cy",
    "d4",
    "f10",
    ",",
    ":",
    "!",
    "'",
    "é",
    "\u{202e}",
    "0",
    "999999999999",
    "a-",
    "-b",
    "b2-b4",
    "→",
    "press",
];

fn word_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::collection::vec(prop::sample::select(WORDS), 0..10).prop_map(|w| w.join(" ")),
        0..6,
    )
    .prop_map(|lines| lines.join("\n"))
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>(), count in 2usize..=4) {
        let state = new_game(&Setup::default(), count, 10);
        let parsed = Salvo::parse_orders(&state, ANN, &text);
        for issue in &parsed.errors {
            prop_assert!(issue.line >= 1);
        }
    }

    #[test]
    fn order_word_soup_never_panics_and_always_resolves(text in word_soup(), count in 2usize..=4, salvo in any::<bool>()) {
        let setup = Setup { shots: if salvo { ShotRule::Salvo } else { ShotRule::One }, ..Setup::default() };
        let state = new_game(&setup, count, 11);
        let parsed = Salvo::parse_orders(&state, ANN, &text);
        for issue in &parsed.errors {
            prop_assert!(!issue.expected.is_empty());
        }
        // Whatever was accepted resolves.
        let turn = input(vec![(ANN, parsed.orders)]);
        let secret = engine::GameSecret::from_bytes([3; 32]);
        prop_assert!(Salvo::resolve(&state, &turn, &mut secret.turn_dice(1)).is_ok());
    }
}

/// Found by the `engine_orders` fuzz target: a fleet that cannot be placed was reported on the
/// first placement line quoting "PLACE" rather than the line the player wrote.
#[test]
fn an_unplaceable_fleet_is_reported_on_the_line_as_written() {
    let state = new_game(&Setup::default(), 2, 10);
    let text = "Place carrier a1\u{1}\0\0\0 h\nbattleship C1-C4\nCruiser: E1 to E3";
    let parsed = Salvo::parse_orders(&state, ANN, text);
    let fleet = parsed
        .errors
        .iter()
        .find(|issue| issue.problem.contains("SALVO-GM-18"))
        .unwrap_or_else(|| panic!("{:?}", parsed.errors));
    assert_eq!(fleet.line, 2);
    assert_eq!(fleet.text, "battleship C1-C4");
    for issue in &parsed.errors {
        let written = text.lines().nth(issue.line - 1).unwrap().trim();
        assert_eq!(issue.text, written, "{issue:?}");
    }
}

fn refusals(text: &str) -> Vec<engine::LineIssue> {
    let state = new_game(&Setup::default(), 2, 5);
    Salvo::parse_orders(&state, ANN, text).errors
}

/// SALVO-CL-01, SALVO-CL-04: a square is the row letter, then the column number. One written
/// number first is refused with the square turned round, in the line as written, wherever it
/// stands and however it is spelled.
#[test]
fn a_square_written_number_first_gets_the_letter_first_hint() {
    for (text, square, expected) in [
        ("FIRE 10J", "J10", "FIRE J10"),
        ("fire 10 j", "J10", "fire J10"),
        ("FIRE 10-J", "J10", "FIRE J10"),
        ("shoot at 7b", "B7", "shoot at B7"),
        ("10J", "J10", "J10"),
        ("NUKE 4d", "D4", "NUKE D4"),
        ("BOMBER 6G", "G6", "BOMBER G6"),
        ("TORPEDO 10F", "F10", "TORPEDO F10"),
        ("EXPERIMENTAL B2 B3 4B", "B4", "EXPERIMENTAL B2 B3 B4"),
    ] {
        let errors = refusals(text);
        assert_eq!(errors.len(), 1, "{text}: {errors:#?}");
        assert!(
            errors[0].problem.contains("has the number first")
                && errors[0].problem.contains(&format!("write {square}")),
            "{text}: {errors:#?}"
        );
        // Issue 28: the line turned round is the example, in backticks, and it works.
        assert_eq!(errors[0].expected, format!("`{expected}`"), "{text}");
    }
    // Turned round it would still be off the board: said so, with a good square as example.
    let errors = refusals("FIRE 11J");
    assert!(
        errors[0].problem.contains("J11 would be off the board too"),
        "{errors:#?}"
    );
    assert_eq!(errors[0].expected, "`FIRE B7`");
    // Turned round it would repeat a square the line already fires: an example instead, never
    // a line that would be refused in its turn.
    let errors = refusals("FIRE J10 10J");
    assert!(
        errors[0].problem.contains("has the number first"),
        "{errors:#?}"
    );
    assert!(!errors[0].expected.contains("J10 J10"), "{errors:#?}");
    assert_eq!(refusals(&errors[0].expected), Vec::new(), "{errors:#?}");
}

/// SALVO-EXP-03, SALVO-EXP-05: the text's own sentences for the experimental weapon are orders,
/// lists with "and" and the Oxford comma included.
#[test]
fn the_texts_own_blast_sentences_are_understood() {
    for (text, squares_written) in [
        (
            "This experimental weapon has a blast pattern of B2, B3, and B4.",
            "B2 B3 B4",
        ),
        (
            "\"This experimental weapon has a blast pattern of B2, B3, and B4,\"",
            "B2 B3 B4",
        ),
        ("experimental: B2, B3 and B4", "B2 B3 B4"),
        (
            "They could say that the blast pattern was G2, H3, H4, H5, and G6.",
            "G2 H3 H4 H5 G6",
        ),
        ("EXPERIMENTAL G2, H3, H4, H5, and G6", "G2 H3 H4 H5 G6"),
    ] {
        match attack(text) {
            Attack::Experimental { pattern, .. } => {
                assert_eq!(pattern.squares(), squares(squares_written), "{text}")
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

/// SALVO-GM-01, SALVO-CL-04: a refused second attack, extra shot or repeated square never
/// suggests the refused line itself: it says which line to keep or what to write instead.
#[test]
fn no_refusal_suggests_the_refused_line_itself() {
    let salvo: Setup = serde_json::from_str(r#"{"shots": "salvo"}"#).unwrap();
    for (setup, text) in [
        (Setup::default(), "FIRE B7\nNUKE D4"),
        (Setup::default(), "NUKE D4\nFIRE B7"),
        (Setup::default(), "NUKE D4\nNUKE D4"),
        (Setup::default(), "BOMBER G6\nBOMBER G6"),
        (Setup::default(), "SCUBA\nSCUBA"),
        (Setup::default(), "TORPEDO F10\nTORPEDO F10"),
        (Setup::default(), "EXPERIMENTAL B2 B3\nEXPERIMENTAL B2 B3"),
        (Setup::default(), "FIRE B7\nFIRE B7"),
        (Setup::default(), "FIRE B7\nFIRE C3"),
        (Setup::default(), "FIRE B7 C3"),
        (salvo.clone(), "FIRE B7 C3\nFIRE B7"),
        (salvo.clone(), "FIRE B7 B7"),
        (salvo.clone(), "FIRE A1 A2 A3 A4 A5 A6"),
        (salvo, "FIRE A1 A2 A3 A4 A5\nFIRE B7"),
    ] {
        let state = new_game(&setup, 2, 5);
        let errors = Salvo::parse_orders(&state, ANN, text).errors;
        assert!(!errors.is_empty(), "{text}");
        for error in errors {
            assert!(
                !error.expected.eq_ignore_ascii_case(&error.text),
                "{text}: line {} suggests itself: {error:#?}",
                error.line
            );
            assert!(!error.expected.is_empty(), "{text}: {error:#?}");
        }
    }
    let errors = refusals("FIRE B7\nNUKE D4");
    assert_eq!(
        errors[0].expected,
        "one attack a turn: keep line 1 (FIRE B7) or this line (NUKE D4), and leave the other out"
    );
    let errors = refusals("BOMBER G6\nBOMBER G6");
    assert_eq!(
        errors[0].expected,
        "leave this line out: line 1 already orders the same attack"
    );
}

/// Issue 28, SALVO-ADM-16: every example works in the refused line's place, with the lines
/// before it. Found by the `engine_orders` fuzz target: a square written number first on a
/// second FIRE line was answered with the line turned round, which repeats the first line's
/// square (`A2` twice) and is refused in its turn.
#[test]
fn examples_work_with_the_lines_before_them() {
    let salvo = Setup {
        shots: ShotRule::Salvo,
        ..Setup::default()
    };
    for (setup, players, text) in [
        (&salvo, 3, "A2 AT Bob\n2A AT Bob"),
        (&salvo, 2, "FIRE A2\nFIRE 2A"),
        (&salvo, 2, "A1\nA5 A4 A5 A6 A7 A8"),
        (&Setup::default(), 2, "FIRE A2\nFIRE 3A"),
        (&Setup::default(), 2, "NUKE D4\nFIRE 3A"),
        (&Setup::default(), 2, "NUKE D4\nkraken"),
        (&Setup::default(), 3, "FIRE B7 AT Bob\nFIRE 7C AT Bob"),
    ] {
        let state = new_game(setup, players, 5);
        let parsed = Salvo::parse_orders(&state, ANN, text);
        assert!(!parsed.errors.is_empty(), "{text}");
        let broken = engine::corrections::failures::<Salvo>(&state, ANN, text);
        assert!(broken.is_empty(), "{text}: {broken:#?}");
    }
}
