#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The order parser: sloppy real-world mail is understood; every refused line says why and
//! shows an example; no input at all can make it panic.

mod common;

use common::{ALICE, BOB, battle, start};
use engine::{Engine, TurnDice, TurnInput};
use forever::orders::{Action, Aim, Destination, Facing, Side};
use forever::{Forever, State};
use proptest::prelude::*;

const LANCER: &[&str] = &[
    "SHIP Lancer",
    "CORE HP+1",
    "SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT LASER(damage 2, sweep 2)",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT THRUSTER(thrust 30)",
    "SECTION S3 PARENT CORE SIZE 1x1 AT (0, 1) MOUNT DEFLECTOR",
    "SECTION S4 PARENT CORE SIZE 1x1 AT (0, -1) MOUNT TORPEDO(range 18)",
];

const ANVIL: &[&str] = &[
    "SHIP Anvil",
    "CORE",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT FLUX",
    "SECTION S3 PARENT CORE SIZE 2x1 AT (0, 1)",
];

fn game() -> State {
    battle(&[(LANCER, 10.0, 24.0, 0)], &[(ANVIL, 40.0, 24.0, 180)])
}

#[test]
fn sloppy_mail_is_understood() {
    let state = game();
    let text = "> Bob wrote: FIRE everything\n\
Hi GM, my orders:\n\
- move2 lancer to (30 , 20) face 90\n\
* FIRE lancer.s1 at anvil.s3 sweep left 0.75 ; fire Lancer.S4 at 40 30 range 15\n\
1. deflect LANCER.S3 protect s1,s2\n\
   // a comment\n\
press: Good luck, Bob!\n\
--\n\
FIRE Lancer.S1 AT Anvil.core";
    let parsed = Forever::parse_orders(&state, ALICE, text);
    // The greeting is set aside, not refused (issue 27).
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert_eq!(parsed.chat.len(), 1, "{:#?}", parsed.chat);
    assert_eq!(parsed.chat[0].line, 2);
    assert_eq!(parsed.press, vec!["Good luck, Bob!"]);
    let orders = &parsed.orders;
    let moves = &orders.moves["Lancer"];
    let second = moves.second.as_ref().unwrap();
    assert_eq!(
        second.go,
        Some(Destination::To(forever::geometry::Point::inches(30, 20)))
    );
    assert_eq!(
        second.facing,
        Some(Facing::To(forever::fixed::Degrees::new(90)))
    );
    assert_eq!(orders.actions.len(), 2);
    match &orders.actions[0] {
        Action::Fire {
            weapon, aim, sweep, ..
        } => {
            assert_eq!(weapon, "S1");
            assert_eq!(
                aim,
                &Aim::Section {
                    ship: "Anvil".into(),
                    section: "S3".into()
                }
            );
            let sweep = sweep.unwrap();
            assert_eq!((sweep.side, sweep.step), (Side::Left, 75));
        }
        other => panic!("{other:?}"),
    }
    match &orders.actions[1] {
        Action::Fire {
            weapon, range, aim, ..
        } => {
            assert_eq!(weapon, "S4");
            assert_eq!(*range, Some(1500));
            assert_eq!(aim, &Aim::Point(forever::geometry::Point::inches(40, 30)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(orders.deflect.len(), 1);
    assert!(parsed.understood.iter().any(|u| u.contains(
        "Lancer.S1 (laser (range 12, damage 2, accuracy 10, sweep 2)) fires at Anvil.S3"
    )));
    assert!(
        parsed
            .understood
            .iter()
            .any(|u| u.contains("standing order: Lancer.S3 deflector shields S1, S2"))
    );
    // Nothing after "--" was read; the long move and the distant aim are warned about.
    let warnings: Vec<&str> = parsed.warnings.iter().map(|w| w.problem.as_str()).collect();
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert!(warnings[0].contains("more than Lancer's speed"));
    assert!(warnings[1].contains("beyond the range of 12\""));
}

#[test]
fn every_refused_line_says_why_and_shows_an_example() {
    let state = game();
    let cases: &[(&str, &str)] = &[
        ("FROB Lancer", "FROB is not an order"),
        ("FIRE Nemo.S1 AT Anvil.S1", "there is no ship Nemo"),
        ("FIRE Anvil.S1 AT Lancer.S1", "Anvil is not yours"),
        (
            "FIRE Lancer.S9 AT Anvil.S1",
            "Lancer has no weapon called S9; it has S1, S4",
        ),
        (
            "FIRE Lancer.S3 AT Anvil.S1",
            "Lancer has no weapon called S3",
        ),
        ("FIRE Lancer.S1 Anvil.S1", "FIRE needs AT and an aim"),
        (
            "FIRE Lancer.S1 AT Anvil.S7",
            "Anvil has no section S7; it has core, S1, S2, S3",
        ),
        (
            "FIRE Lancer.S1 AT Anvil",
            "aim at a section such as Anvil.core or Anvil.S1",
        ),
        (
            "FIRE Lancer.S1 AT Anvil.S1 RANGE 10",
            "only a torpedo declares a range",
        ),
        (
            "FIRE Lancer.S4 AT Anvil.S1 RANGE 19",
            "the declared range must be 0 to the torpedo's range of 18\"",
        ),
        ("FIRE Lancer.S4 AT Anvil.S1 SWEEP L", "only a laser sweeps"),
        (
            "FIRE Lancer.S1 AT Anvil.S1 SWEEP R 2",
            "the sweep step is 0.5 to 1 inch",
        ),
        (
            "FIRE Lancer.S1 AT Anvil.S1 LOUDLY",
            "LOUDLY is not understood after the aim",
        ),
        ("MOVE2 Lancer", "the move says nothing"),
        ("MOVE2 Lancer TO 30", "TO needs a point x, y"),
        (
            "MOVE2 Lancer SWIVEL S1 20",
            "Lancer has no swivel joint at S1",
        ),
        ("MOVE2 Lancer WIGGLE", "WIGGLE is not understood in a move"),
        ("FACE 90", "facing and swivels go on a MOVE1 or MOVE2 line"),
        (
            "DEFLECT Lancer.S3 PROTECT core",
            "a deflector cannot shield the core",
        ),
        (
            "DEFLECT Lancer.S3 PROTECT S3",
            "a deflector cannot shield its own section",
        ),
        ("DEFLECT Lancer.S3 PROTECT S8", "Lancer has no section S8"),
        (
            "DEFLECT Lancer.S1 PROTECT S2",
            "Lancer has no deflector called S1",
        ),
        ("EMP Lancer.S1 AT Anvil.S1", "Lancer has no EMP"),
        ("LAUNCH Lancer.S1", "Lancer has no demeter launcher"),
        (
            "NANO Lancer.S1 HEAL Lancer.S2 2",
            "Lancer has no nano matrix",
        ),
        (
            "DEMETER Lancer/D1 FIRE AT Anvil.S1",
            "there is no demeter Lancer/D1 in play",
        ),
        ("TOW Lancer", "TOW needs what to tow"),
        (
            "BATTERY Lancer.S1, S4 AT Anvil.S1",
            "a battery's weapons must have the same type and stats",
        ),
        ("SHIP Extra", "fleets are fixed once the battle has begun"),
        (
            "CORE HP+1",
            "a CORE or SECTION line belongs under a SHIP line",
        ),
        (
            "DEPLOY Lancer AT 1, 1",
            "the fleets are already on the table",
        ),
        ("OFFER PEACE", "write OFFER DRAW or ACCEPT DRAW"),
    ];
    for (line, problem) in cases {
        let parsed = Forever::parse_orders(&state, ALICE, line);
        assert_eq!(parsed.errors.len(), 1, "{line}: {:#?}", parsed.errors);
        let issue = &parsed.errors[0];
        assert!(
            issue.problem.contains(problem),
            "{line}: {:?} lacks {problem:?}",
            issue.problem
        );
        assert_eq!(issue.line, 1);
        assert_eq!(issue.text, *line);
        assert!(!issue.expected.is_empty(), "{line}: no example");
    }
    // Bob's flux line may not be longer than its pool (full, so no recharge comes).
    let parsed = Forever::parse_orders(&state, BOB, "FLUX Anvil.S2 BEARING 90 LEN 9");
    assert!(
        parsed.errors[0]
            .problem
            .contains("a 9\" line needs 9 energy; the projector holds at most 8")
    );
    // A weapon used twice (FOREVER-GM-50).
    let parsed = Forever::parse_orders(
        &state,
        ALICE,
        "FIRE Lancer.S1 AT Anvil.S1\nFIRE Lancer.S1 AT Anvil.S3",
    );
    assert_eq!(parsed.errors.len(), 1);
    assert_eq!(parsed.errors[0].line, 2);
    assert!(parsed.errors[0].problem.contains("FOREVER-GM-50"));
}

#[test]
fn warnings_flag_lines_that_may_disappoint() {
    let state = game();
    let parsed = Forever::parse_orders(
        &state,
        ALICE,
        "MOVE1 Lancer BY 3, 0\nMOVE2 Lancer BY 40, 0\nFIRE Lancer.S1 AT Anvil.S1",
    );
    let problems: Vec<&str> = parsed.warnings.iter().map(|w| w.problem.as_str()).collect();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("movement 1 is skipped this turn (FOREVER-PLAY-3)")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("40\" is more than Lancer's speed")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("beyond the range of 12\"")),
        "{problems:?}"
    );
    assert!(parsed.errors.is_empty());
}

/// FOREVER-ADM-20: ship, section and item names are one word; ship names are unique.
#[test]
fn forever_adm_20_names_are_one_word_and_unique() {
    // Building by mail: a two-word ship name is refused; so is a name another fleet already has.
    let state = start(serde_json::json!({}));
    let parsed = Forever::parse_orders(
        &state,
        ALICE,
        "SHIP Big Ship\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)\nDEPLOY Big AT 5, 5",
    );
    assert!(
        parsed
            .errors
            .iter()
            .any(|e| e.problem.contains("a name is one word")),
        "FOREVER-ADM-20: a two-word ship name is refused: {:#?}",
        parsed.errors
    );
    let alice = Forever::parse_orders(
        &state,
        ALICE,
        "SHIP Scout\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)\nDEPLOY Scout AT 5, 5",
    );
    assert!(alice.errors.is_empty(), "{:#?}", alice.errors);
    let mut input = TurnInput::default();
    input.orders.insert(ALICE, alice.orders);
    let state = Forever::resolve(&state, &input, &mut TurnDice::scripted([], []))
        .unwrap()
        .state;
    let bob = Forever::parse_orders(
        &state,
        BOB,
        "SHIP Scout\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)\nDEPLOY Scout AT 50, 5",
    );
    // Alice's fleet is hidden, so its names are not refused to Bob: that would tell him one
    // (FOREVER-GM-44); the clash is settled when the fleets are placed (tests/hidden.rs).
    assert!(bob.errors.is_empty(), "{:#?}", bob.errors);
}

#[test]
fn a_design_block_in_an_order_mail_reports_its_own_lines() {
    let state = start(serde_json::json!({}));
    let text = "Hello\nSHIP Scout\nCORE\nSECTION S1 PARENT CORE SIZE 3x1 AT (2, 0)\nSECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT BLASTER\n\nDEPLOY Scout AT 5, 5";
    let parsed = Forever::parse_orders(&state, ALICE, text);
    let lines: Vec<usize> = parsed.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![5], "{:#?}", parsed.errors);
    // "Hello" is a greeting, set aside (issue 27).
    assert_eq!(parsed.chat.len(), 1);
    assert!(
        parsed.errors[0]
            .problem
            .contains("BLASTER is not a weapon or module")
    );
    // A design that reads but breaks a building rule is refused at its SHIP line.
    let text =
        "SHIP Scout\nCORE\nSECTION S1 PARENT CORE SIZE 3x1 AT (2.5, 0)\nDEPLOY Scout AT 5, 5";
    let parsed = Forever::parse_orders(&state, ALICE, text);
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert_eq!(parsed.errors[0].line, 1);
    assert!(
        parsed.errors[0]
            .problem
            .contains("covers 3 square inches; a section may cover at most 2 (FOREVER-SEC-4)"),
        "{}",
        parsed.errors[0].problem
    );
}

const WORDS: &[&str] = &[
    "MOVE1",
    "MOVE2",
    "FIRE",
    "BATTERY",
    "EMP",
    "FLUX",
    "NANO",
    "HEAL",
    "LAUNCH",
    "TC",
    "FOR",
    "ELSE",
    "DEMETER",
    "DEFLECT",
    "PROTECT",
    "TOW",
    "RELEASE",
    "AT",
    "TO",
    "BY",
    "FACE",
    "TURN",
    "SWIVEL",
    "RANGE",
    "SWEEP",
    "L",
    "R",
    "BEARING",
    "LEN",
    "Lancer",
    "Lancer.S1",
    "Lancer.S3",
    "Lancer.S4",
    "Anvil.S1",
    "Anvil.core",
    "Lancer/D1",
    "ANY",
    "OFF",
    "SHIP",
    "CORE",
    "SECTION",
    "PARENT",
    "SIZE",
    "MOUNT",
    "DEPLOY",
    "OFFER",
    "DRAW",
    "RESIGN",
    "PRESS",
    "1",
    "-3",
    "2.5",
    "0.75",
    "90",
    "999999999999",
    ",",
    "(",
    ")",
    ";",
    "\n",
    "#",
    ">",
    "--",
    "S1/2",
    "HP+2",
    "2x1",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,300}") {
        let state = game();
        let parsed = Forever::parse_orders(&state, ALICE, &text);
        for issue in &parsed.errors {
            prop_assert!(issue.line >= 1);
        }
        let building = start(serde_json::json!({}));
        let _ = Forever::parse_orders(&building, BOB, &text);
    }

    #[test]
    fn order_shaped_word_salad_never_panics_and_resolves(words in proptest::collection::vec(0..WORDS.len(), 0..40)) {
        let text: Vec<&str> = words.iter().map(|i| WORDS[*i]).collect();
        let text = text.join(" ");
        let state = game();
        let parsed = Forever::parse_orders(&state, ALICE, &text);
        let mut input = TurnInput::default();
        input.orders.insert(ALICE, parsed.orders);
        // Whatever was accepted resolves without panicking, on a seeded stream.
        let secret = engine::GameSecret::from_bytes([9; 32]);
        let _ = Forever::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
        // And the same words while fleets are being built.
        let building = start(serde_json::json!({}));
        let parsed = Forever::parse_orders(&building, BOB, &text);
        let mut input = TurnInput::default();
        input.orders.insert(BOB, parsed.orders);
        let _ = Forever::resolve(&building, &input, &mut secret.turn_dice(1)).unwrap();
    }
}

#[test]
fn huge_numbers_are_refused_or_harmless() {
    let building = start(serde_json::json!({}));
    let text = "SHIP Big\nCORE\nSECTION S1 PARENT CORE SIZE 999999999x999999999 AT (999999999, 999999999)\nDEPLOY Big AT 999999999, -999999999 FACING 9223372036854775807";
    let parsed = Forever::parse_orders(&building, ALICE, text);
    assert!(!parsed.errors.is_empty());
    let state = game();
    let text = "MOVE2 Lancer TO 999999999, 999999999 TURN 9223372036854775807 SWIVEL S1 1\nFIRE Lancer.S4 AT -999999999, 999999999\nFIRE Lancer.S1 AT 999999999.99, 1 SWEEP L 1";
    let parsed = Forever::parse_orders(&state, ALICE, text);
    let mut input = TurnInput::default();
    input.orders.insert(ALICE, parsed.orders);
    let secret = engine::GameSecret::from_bytes([1; 32]);
    let resolution = Forever::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
    assert!(resolution.report.to_text().contains("Lancer"));
}

/// The order-line reader every engine shares (`engine::order_text`): what it changed for
/// Forever (FOREVER-ADM-21).
mod shared_reader {
    use super::*;

    #[test]
    fn press_keeps_hashes_and_slashes() {
        // A `#` or `//` in press used to cut it short, as a comment.
        let parsed = Forever::parse_orders(&game(), ALICE, "PRESS: We're #1 // and proud");
        assert_eq!(
            parsed.press,
            ["We're #1 // and proud"],
            "FOREVER-ADM-21: press keeps # and //"
        );
        // In an order it is still a comment.
        let parsed =
            Forever::parse_orders(&game(), ALICE, "FIRE Lancer.S1 AT Anvil.S3 # the big one");
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    }

    #[test]
    fn press_words_and_separators_are_the_shared_ones() {
        // `PRESS:hi` and `press-hi` used to be refused as unknown orders; MESSAGE and NEWS are
        // press as in every engine.
        let parsed = Forever::parse_orders(
            &game(),
            ALICE,
            "PRESS:hi\npress-ho\nMESSAGE  to   Bob\nNews, today",
        );
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        assert_eq!(
            parsed.press,
            ["hi", "ho", "to Bob", "today"],
            "FOREVER-ADM-21: the press words and separators of every engine"
        );
    }

    #[test]
    fn bullets_without_a_space_and_bare_markers() {
        // `-FIRE ...` used to be refused; a line that is only a marker is skipped.
        let parsed = Forever::parse_orders(&game(), ALICE, "-FIRE Lancer.S1 AT Anvil.S3\n*\n2.");
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        assert_eq!(
            parsed.orders.actions.len(),
            1,
            "FOREVER-ADM-21: a bullet needs no space; a bare marker is skipped: {:#?}",
            parsed.orders
        );
    }
}
