#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Orders as people write them: sloppy input that must be understood, every way of getting it
//! wrong with the line, the problem and a correct example, and arbitrary text that must never
//! panic.

use engine::{Engine, LineIssue, Player, PlayerId, TurnDice, TurnInput};
use ironclad::{Ironclad, Manoeuvre, Setup, ShipId, State, TorpedoOrder, TurnSide};
use proptest::prelude::*;

/// Alice: Artemis (1) E5 N, Ajax (2) H9 N. Bob: Leonidas (3) G5 N, Hector (4) E3 N,
/// Hermes (5) B7 W.
fn battle() -> State {
    let setup: Setup = serde_json::from_str(
        r#"{"sides": [
            {"name": "Blue", "home_edge": "north", "ships": [
                {"name": "Artemis", "at": "E5", "heading": "N"},
                {"name": "Ajax", "at": "H9", "heading": "N"}]},
            {"name": "Red", "home_edge": "south", "ships": [
                {"name": "Leonidas", "at": "G5", "heading": "N"},
                {"name": "Hector", "at": "E3", "heading": "N"},
                {"name": "Hermes", "at": "B7", "heading": "W"}]}]}"#,
    )
    .unwrap();
    let players = [(1, "Alice"), (2, "Bob")].map(|(id, name)| Player {
        id: PlayerId(id),
        name: name.into(),
    });
    Ironclad::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap()
}

const ALICE: PlayerId = PlayerId(1);

#[test]
fn sloppy_real_world_orders_are_understood() {
    let text = "Dear GM, here are my orders for this turn.
> Ironclad, turn 1 (quoted from your last mail)

Artemis:
   main  ->  LEONIDAS
   stbd sec: leo
   fire torpedo at hector
   move: f,t45r

  1. HMS Ajax - move forward, then turn 45 degrees left
- ajax; main   at g5
Order: ajax then artemis
PRESS: Rule, Britannia!
Artemis WITHDRAW left
--
Alice (sent from my phone)
Artemis MAIN nonsense after the signature";
    let parsed = Ironclad::parse_orders(&battle(), ALICE, text);
    // The greeting is set aside, not refused (issue 27): nothing else is wrong.
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert_eq!(parsed.chat.len(), 1, "{:#?}", parsed.chat);
    assert_eq!(parsed.chat[0].line, 1);
    assert_eq!(parsed.chat[0].problem, "a greeting, not an order");
    let artemis = &parsed.orders.ships[&ShipId(1)];
    assert_eq!(artemis.main, vec![ShipId(3)]);
    assert_eq!(artemis.starboard, vec![ShipId(3)]);
    assert_eq!(
        artemis.torpedo,
        Some(TorpedoOrder {
            targets: vec![ShipId(4)],
            tube: None
        })
    );
    assert_eq!(artemis.movement, Some(Manoeuvre::AheadThenStarboard));
    assert_eq!(artemis.withdraw, Some(TurnSide::Port));
    let ajax = &parsed.orders.ships[&ShipId(2)];
    assert_eq!(ajax.movement, Some(Manoeuvre::AheadThenPort));
    assert_eq!(ajax.main, vec![ShipId(3)]);
    assert_eq!(parsed.orders.move_order, vec![ShipId(2), ShipId(1)]);
    assert_eq!(parsed.press, vec!["Rule, Britannia!".to_string()]);
    assert!(
        parsed
            .understood
            .iter()
            .any(|u| u == "Artemis: moves F, T45R (to E4 heading NE)")
    );
    assert!(parsed.warnings.is_empty(), "{:#?}", parsed.warnings);
}

#[test]
fn several_orders_on_one_line_separated_by_semicolons() {
    let parsed = Ironclad::parse_orders(
        &battle(),
        ALICE,
        "Artemis MAIN Leonidas; STBD Leonidas; MOVE FF\nAjax F",
    );
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    let artemis = &parsed.orders.ships[&ShipId(1)];
    assert_eq!(artemis.movement, Some(Manoeuvre::AheadTwice));
    assert_eq!(
        parsed.orders.ships[&ShipId(2)].movement,
        Some(Manoeuvre::Ahead)
    );
}

#[test]
fn commas_between_orders_for_one_ship() {
    let parsed = Ironclad::parse_orders(
        &battle(),
        ALICE,
        "Artemis: MAIN Leonidas, STBD Leonidas, TORP Hector, MOVE F, T45R\nPRESS İstanbul – hoş geldiniz",
    );
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    let artemis = &parsed.orders.ships[&ShipId(1)];
    assert_eq!(artemis.main, vec![ShipId(3)]);
    assert_eq!(artemis.starboard, vec![ShipId(3)]);
    assert_eq!(artemis.torpedo.as_ref().unwrap().targets, vec![ShipId(4)]);
    assert_eq!(artemis.movement, Some(Manoeuvre::AheadThenStarboard));
    assert_eq!(parsed.press, vec!["İstanbul – hoş geldiniz".to_string()]);
    // A fallback written with a comma is still refused: one target per armament.
    assert!(
        errors("Artemis MAIN Leonidas, Hector")[0]
            .problem
            .contains("one target per armament")
    );
}

#[test]
fn holding_fire_and_ships_without_orders_are_confirmed() {
    let parsed = Ironclad::parse_orders(&battle(), ALICE, "Artemis MAIN none");
    assert!(parsed.errors.is_empty());
    assert!(parsed.orders.ships[&ShipId(1)].main.is_empty());
    assert!(
        parsed
            .understood
            .contains(&"Artemis: main armament holds fire".to_string())
    );
    assert!(
        parsed
            .understood
            .contains(&"Ajax: no orders: holds fire and position (IRON-GM-18)".to_string())
    );
}

fn errors(text: &str) -> Vec<LineIssue> {
    Ironclad::parse_orders(&battle(), ALICE, text).errors
}

#[test]
fn every_error_names_the_line_the_problem_and_a_correct_example() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "Zeus MAIN Leonidas",
            "\"zeus\" is not one of your ships; start the line with the ship it is for; yours are: Artemis, Ajax",
            "Artemis MAIN Leonidas",
        ),
        (
            "Leonidas MAIN Artemis",
            "Leonidas is not your ship",
            "Artemis MAIN Leonidas",
        ),
        (
            "Artemis dance",
            "did not understand \"dance\"",
            "Artemis MOVE F, T45R",
        ),
        (
            "Artemis secondary Leonidas",
            "say which secondary battery",
            // Leonidas lies on the starboard beam: `Artemis PORT Leonidas` was offered before
            // the examples were tried (issue 28), and was refused in its turn.
            "Artemis PORT Hermes",
        ),
        (
            "Artemis MAIN",
            "name the main armament's target",
            "Artemis MAIN Leonidas",
        ),
        (
            "Artemis MAIN Zeus",
            "there is no ship called \"zeus\"",
            "Artemis MAIN Leonidas",
        ),
        (
            "Artemis MAIN he",
            "\"he\" could be Hector or Hermes",
            "Artemis MAIN Leonidas",
        ),
        (
            "Artemis MAIN K2",
            "there is no ship at K2",
            "Artemis MAIN Leonidas",
        ),
        (
            "Artemis MAIN Leonidas & Hector",
            "one target per armament a turn",
            "Artemis MAIN Leonidas / Hector",
        ),
        (
            "Artemis TORP Leonidas, Hector",
            "one torpedo a turn (IRON-TORP-03)",
            // Only Hector lies in the bow tube's arc, so no fallback pair would be accepted.
            "Artemis TORP Hector",
        ),
        (
            "Artemis MAIN Ajax",
            "Ajax is on your own side",
            "Artemis MAIN Leonidas",
        ),
        (
            "Artemis PORT Leonidas",
            "Leonidas is not in this weapon's arc: she lies on the starboard beam",
            "Artemis PORT Hermes",
        ),
        (
            "Artemis TORP Leonidas",
            "not in this weapon's arc: she lies on the starboard beam",
            "Artemis TORP Hector",
        ),
        (
            "Artemis MOVE zigzag",
            "did not understand \"zigzag\" in the move",
            "Artemis MOVE F, T45R",
        ),
        (
            "Artemis MOVE T45R F",
            "a 45° turn comes only after moving one area forward (IRON-MOV-03)",
            "Artemis MOVE F, T45R",
        ),
        (
            "Artemis MOVE F F F",
            "at most 2 areas a turn",
            "Artemis MOVE F, T45R",
        ),
        (
            "Artemis WITHDRAW sideways",
            "LEFT or RIGHT",
            "Artemis WITHDRAW LEFT",
        ),
        (
            "ORDER Artemis, Zeus",
            "\"zeus\" is not one of your ships",
            "ORDER Artemis, Ajax",
        ),
        (
            "ORDER Leonidas",
            "Leonidas is not your ship",
            "ORDER Artemis, Ajax",
        ),
        (
            "ORDER",
            "list your ships in the order they should move",
            "ORDER Artemis, Ajax",
        ),
    ];
    for (line, problem, expected) in cases {
        let text = format!("Ajax F\n\n{line}");
        let found = errors(&text);
        assert_eq!(found.len(), 1, "{line}: {found:#?}");
        let issue = &found[0];
        assert_eq!(issue.line, 3, "{line}");
        assert_eq!(issue.text, *line);
        assert!(
            issue.problem.contains(problem),
            "{line}: {:?}",
            issue.problem
        );
        // Each example is a whole line in backticks, tried before it is offered (issue 28).
        assert_eq!(issue.expected, format!("`{expected}`"), "{line}");
    }
}

#[test]
fn the_examples_given_are_themselves_accepted() {
    for example in [
        "Artemis MAIN Leonidas",
        "Artemis PORT Hermes",
        "Artemis TORP Hector",
        "Artemis MOVE F, T45R",
        "Artemis WITHDRAW LEFT",
        "ORDER Artemis, Ajax",
        "Artemis MAIN Leonidas / Hector",
    ] {
        assert!(
            errors(example).is_empty(),
            "{example}: {:#?}",
            errors(example)
        );
    }
}

#[test]
fn a_repeated_order_keeps_the_first_and_says_why() {
    // IRON-GUN-05..07 and IRON-TORP-03: one target per armament, one torpedo a turn; a repeat
    // is refused and the first kept.
    let parsed = Ironclad::parse_orders(
        &battle(),
        ALICE,
        "Artemis MAIN Leonidas\nArtemis MAIN Hector\nArtemis TORP Hector\nArtemis TORP Hector\nArtemis F\nArtemis FF",
    );
    let problems: Vec<&str> = parsed.errors.iter().map(|e| e.problem.as_str()).collect();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("already has a target on line 1"));
    assert!(problems[1].contains("already fires a torpedo on line 3"));
    assert!(problems[2].contains("already has a move on line 5"));
    let artemis = &parsed.orders.ships[&ShipId(1)];
    assert_eq!(
        artemis.main,
        vec![ShipId(3)],
        "IRON-ADM-11: the first target is kept"
    );
    assert_eq!(
        artemis.movement,
        Some(Manoeuvre::Ahead),
        "IRON-ADM-11: the first move is kept"
    );
}

#[test]
fn lost_ships_finished_battles_and_strangers_get_clear_refusals() {
    let mut state = battle();
    state.ship_mut(ShipId(2)).unwrap().fate = ironclad::state::Fate::Sunk { turn: 1 };
    let found = Ironclad::parse_orders(&state, ALICE, "Ajax F").errors;
    assert!(found[0].problem.contains("Ajax has sunk"));

    let stranger = Ironclad::parse_orders(&state, PlayerId(9), "Artemis F").errors;
    assert!(
        stranger[0]
            .problem
            .contains("not commanding in this battle")
    );

    state.finished = true;
    let over = Ironclad::parse_orders(&state, ALICE, "Artemis F").errors;
    assert!(over[0].problem.contains("the battle is over"));
}

#[test]
fn help_describes_the_syntax_and_lists_the_ships() {
    let help = Ironclad::order_help(&battle());
    for needle in [
        "MAIN",
        "PORT",
        "STBD",
        "TORP",
        "MOVE",
        "F T45R",
        "WITHDRAW",
        "ORDER",
        "PRESS",
        "Artemis (Alice, E5 N)",
    ] {
        assert!(help.contains(needle), "help lacks {needle}");
    }
}

const VOCABULARY: &[&str] = &[
    "Artemis",
    "Ajax",
    "Leonidas",
    "Hector",
    "Hermes",
    "main",
    "port",
    "stbd",
    "torp",
    "move",
    "order",
    "press",
    "withdraw",
    "secondary",
    "tube",
    "bow",
    "F",
    "FF",
    "FL",
    "FR",
    "T45R",
    "T45L",
    "turn",
    "left",
    "right",
    "hold",
    "none",
    "/",
    ",",
    ";",
    "&",
    "and",
    "or",
    ":",
    "->",
    "G5",
    "E3",
    "K99",
    "Z0",
    "2",
    "two",
    "-",
    "--",
    ">",
    "\n",
    " ",
    "É",
    "🚢",
    "\t",
    "\r",
];

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let parsed = Ironclad::parse_orders(&battle(), ALICE, &text);
        let lines = text.lines().count();
        for issue in parsed.errors.iter().chain(&parsed.warnings) {
            prop_assert!(issue.line >= 1 && issue.line <= lines);
        }
    }

    #[test]
    fn order_shaped_text_never_panics(words in proptest::collection::vec(proptest::sample::select(VOCABULARY), 0..40)) {
        let text = words.join(" ");
        let parsed = Ironclad::parse_orders(&battle(), ALICE, &text);
        // Whatever was accepted is for Alice's own ships only.
        for id in parsed.orders.ships.keys() {
            prop_assert!([ShipId(1), ShipId(2)].contains(id));
        }
        for issue in &parsed.errors {
            prop_assert!(!issue.problem.is_empty());
        }
    }
}

/// The order-line reader every engine shares (`engine::order_text`): what it changed for
/// Ironclad (IRON-ADM-14).
mod shared_reader {
    use super::*;

    #[test]
    fn message_and_news_lines_are_press() {
        let parsed = Ironclad::parse_orders(
            &battle(),
            ALICE,
            "MESSAGE: Rule,   Britannia!\nArtemis MAIN Leonidas\nnews - all quiet",
        );
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        assert_eq!(
            parsed.press,
            ["Rule, Britannia!", "all quiet"],
            "IRON-ADM-14: MESSAGE and NEWS lines are press, as in every engine"
        );
    }

    #[test]
    fn press_starts_its_line() {
        // "(PRESS) hi" was press ") hi"; PRESS must now begin the line (after a list marker).
        let parsed = Ironclad::parse_orders(&battle(), ALICE, "(PRESS) hi\n- PRESS: ho");
        assert_eq!(parsed.press, ["ho"]);
        assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
        assert_eq!(parsed.errors[0].line, 1);
    }

    #[test]
    fn a_line_that_is_only_a_list_marker_is_skipped() {
        // It used to be refused for naming no ship.
        let parsed = Ironclad::parse_orders(&battle(), ALICE, "---\n*\nArtemis F\n1.");
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    }

    #[test]
    fn ships_may_not_be_named_after_a_press_word() {
        for name in ["News", "Message", "Press"] {
            let setup: Setup = serde_json::from_str(&format!(
                r#"{{"sides": [
                    {{"name": "Blue", "home_edge": "north", "ships": [
                        {{"name": "{name}", "at": "E5", "heading": "N"}}]}},
                    {{"name": "Red", "home_edge": "south", "ships": [
                        {{"name": "Hector", "at": "E3", "heading": "N"}}]}}]}}"#
            ))
            .unwrap();
            let players = [(1, "Alice"), (2, "Bob")].map(|(id, name)| Player {
                id: PlayerId(id),
                name: name.into(),
            });
            assert!(
                Ironclad::new_game(&setup, &players, &mut TurnDice::scripted([], [])).is_err(),
                "{name}"
            );
        }
    }
}

/// Every word the reader passes over before a name or an order word. A ship's name may begin
/// with any of them ("The Ram", "Her Majesty"), and must still be found.
const FILLER_WORDS: &[&str] = &[
    "fire", "fires", "firing", "open", "shoot", "engage", "at", "on", "target", "targets", "to",
    "the", "with", "armament", "hms", "sms", "uss", "ss", "ship", "her", "his", "its", "please",
];

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Alice: `<W> Pride` (1) E5 N, Ajax (2) H9 N. Bob: `<W> Ram` (3) G5 N, `<W> Majesty` (4) E3
/// N, Ram (5) B7 W.
fn filler_battle(filler: &str) -> State {
    let w = capitalised(filler);
    let setup: Setup = serde_json::from_value(serde_json::json!({"sides": [
        {"name": "Blue", "home_edge": "north", "ships": [
            {"name": format!("{w} Pride"), "at": "E5", "heading": "N"},
            {"name": "Ajax", "at": "H9", "heading": "N"}]},
        {"name": "Red", "home_edge": "south", "ships": [
            {"name": format!("{w} Ram"), "at": "G5", "heading": "N"},
            {"name": format!("{w} Majesty"), "at": "E3", "heading": "N"},
            {"name": "Ram", "at": "B7", "heading": "W"}]}]}))
    .unwrap();
    let players = [(1, "Alice"), (2, "Bob")].map(|(id, name)| Player {
        id: PlayerId(id),
        name: name.into(),
    });
    Ironclad::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap()
}

#[test]
fn names_beginning_with_a_filler_word_are_matched_as_written() {
    // IRON-GUN-05, IRON-GUN-06, IRON-GUN-07, IRON-TORP-03, IRON-GM-06, IRON-GM-08: a ship's name
    // is matched as written first, then without leading filler words, wherever a name is read:
    // the ship a line is for, a gun's and a torpedo's target, a fallback, an ORDER line.
    for filler in FILLER_WORDS {
        let w = capitalised(filler);
        let state = filler_battle(filler);
        let (pride, ajax, ram, majesty, plain_ram) =
            (ShipId(1), ShipId(2), ShipId(3), ShipId(4), ShipId(5));
        let text = format!(
            "{w} Pride MAIN {w} Majesty / {w} Ram\n\
             {w} Pride STBD the {w} Ram\n\
             {w} Pride TORP {w} Majesty TUBE BOW\n\
             {w} Pride PORT NONE\n\
             Ajax MAIN Ram\n\
             ORDER Ajax, {w} Pride"
        );
        let parsed = Ironclad::parse_orders(&state, ALICE, &text);
        assert!(parsed.errors.is_empty(), "{filler}: {:#?}", parsed.errors);
        let orders = &parsed.orders.ships[&pride];
        assert_eq!(orders.main, vec![majesty, ram], "{filler}");
        assert_eq!(orders.starboard, vec![ram], "{filler}");
        assert_eq!(
            orders.torpedo,
            Some(TorpedoOrder {
                targets: vec![majesty],
                tube: Some(ironclad::state::TubeMount::Bow)
            }),
            "{filler}"
        );
        assert_eq!(parsed.orders.ships[&ajax].main, vec![plain_ram], "{filler}");
        assert_eq!(parsed.orders.move_order, vec![ajax, pride], "{filler}");

        // The ship named alone on a line, her orders below; a unique start of a name.
        let text = format!("{w} Pride\n  MAIN at {w} Ra\n  MOVE F\nORDER {w} Pride then Ajax");
        let parsed = Ironclad::parse_orders(&state, ALICE, &text);
        assert!(parsed.errors.is_empty(), "{filler}: {:#?}", parsed.errors);
        assert_eq!(parsed.orders.ships[&pride].main, vec![ram], "{filler}");
        assert_eq!(parsed.orders.move_order, vec![pride, ajax], "{filler}");

        // The enemy's ship, named as written, is still refused as not hers to command.
        let errors = Ironclad::parse_orders(&state, ALICE, &format!("{w} Ram MAIN Ajax")).errors;
        assert_eq!(errors.len(), 1, "{filler}: {errors:#?}");
        assert!(
            errors[0]
                .problem
                .contains(&format!("{w} Ram is not your ship")),
            "{filler}: {errors:#?}"
        );
    }
}

#[test]
fn names_with_joining_words_in_them_are_not_split() {
    // IRON-GUN-05, IRON-GM-06, IRON-GM-08: "and" or "or" inside a ship's name is part of it;
    // between two names it is still two targets, refused.
    let setup: Setup = serde_json::from_str(
        r#"{"sides": [
            {"name": "Blue", "home_edge": "north", "ships": [
                {"name": "Pride and Joy", "at": "E5", "heading": "N"},
                {"name": "Ajax", "at": "H9", "heading": "N"}]},
            {"name": "Red", "home_edge": "south", "ships": [
                {"name": "Death or Glory", "at": "G5", "heading": "N"},
                {"name": "Hector", "at": "E3", "heading": "N"}]}]}"#,
    )
    .unwrap();
    let players = [(1, "Alice"), (2, "Bob")].map(|(id, name)| Player {
        id: PlayerId(id),
        name: name.into(),
    });
    let state = Ironclad::new_game(&setup, &players, &mut TurnDice::scripted([], [])).unwrap();
    let parsed = Ironclad::parse_orders(
        &state,
        ALICE,
        "Pride and Joy MAIN Death or Glory / Hector\nORDER Pride and Joy, Ajax",
    );
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert_eq!(
        parsed.orders.ships[&ShipId(1)].main,
        vec![ShipId(3), ShipId(4)]
    );
    assert_eq!(parsed.orders.move_order, vec![ShipId(1), ShipId(2)]);
    let errors = Ironclad::parse_orders(
        &state,
        ALICE,
        "Pride and Joy MAIN Hector and Death or Glory",
    )
    .errors;
    assert!(
        errors[0].problem.contains("one target per armament"),
        "{errors:#?}"
    );
}

#[test]
fn a_second_order_for_the_same_slot_says_what_to_write() {
    // IRON-GUN-05, IRON-TORP-03, IRON-ADM-11: the correction names the lines and gives an
    // order to write, never "one line for each".
    let cases: &[(&str, &str)] = &[
        (
            "Artemis MAIN Leonidas\nArtemis MAIN Hector",
            "keep only one of line 1 and this line; for a fallback target put both on one line: Artemis MAIN Leonidas / Hector",
        ),
        (
            "Artemis STBD Leonidas\nArtemis STBD Leonidas",
            "keep only one of line 1 and this line; for a fallback target put both on one line: Artemis STBD Leonidas / Hector",
        ),
        (
            "Artemis TORP Hector\nArtemis TORP Hector",
            "keep only one of line 1 and this line: Artemis TORP Leonidas",
        ),
        (
            "Artemis MOVE F\nArtemis MOVE FF",
            "keep only one of line 1 and this line; the whole move goes on one line: Artemis MOVE F, T45R",
        ),
        (
            "Artemis WITHDRAW LEFT\nArtemis WITHDRAW RIGHT",
            "keep only one of line 1 and this line: Artemis WITHDRAW LEFT or Artemis WITHDRAW RIGHT",
        ),
    ];
    for (text, expected) in cases {
        let errors = errors(text);
        assert_eq!(errors.len(), 1, "{text}: {errors:#?}");
        assert_eq!(errors[0].line, 2);
        assert_eq!(&errors[0].expected, expected, "{text}");
        assert!(!errors[0].expected.contains("one line for each"));
    }
}

#[test]
fn refused_orders_are_said_to_be_refused_with_the_reason() {
    // IRON-GM-18: a ship whose every order was refused is confirmed as refused,
    // with the line and the reason; the public report says her orders were refused, never
    // "no orders for her", and never the reason, which may touch her hidden torpedo stock.
    let mut state = battle();
    state.ship_mut(ShipId(1)).unwrap().torpedoes_left = 0;
    let parsed = Ironclad::parse_orders(
        &state,
        ALICE,
        "Artemis TORP Hector\nAjax MAIN G5\nAjax MAIN Hector",
    );
    assert_eq!(parsed.errors.len(), 2, "{:#?}", parsed.errors);
    assert!(
        parsed.understood.iter().any(|u| u.starts_with(
            "Artemis: her orders were refused (line 1: Artemis's torpedo cannot fire at Hector: no torpedoes left"
        ) && u.ends_with("she holds fire and position (IRON-GM-18)")),
        "{:#?}",
        parsed.understood
    );
    // Ajax's first order stands; her refused line is in the errors only.
    assert!(parsed.errors[1].line == 3, "{:#?}", parsed.errors);
    assert!(!parsed.understood.iter().any(|u| u.contains("no orders")));
    let input = TurnInput {
        orders: [(ALICE, parsed.orders)].into(),
        ..TurnInput::default()
    };
    let report = Ironclad::resolve(&state, &input, &mut TurnDice::scripted([4, 4, 1, 2], []))
        .unwrap()
        .report;
    let text = report.to_text();
    let artemis = report
        .rows
        .iter()
        .find(|r| r.name.ends_with("Artemis"))
        .unwrap();
    assert!(
        artemis
            .result
            .starts_with("her orders were refused when written (her player was told why)"),
        "{text}"
    );
    // Ajax's row shows what she did.
    let ajax = report
        .rows
        .iter()
        .find(|r| r.name.ends_with("Ajax"))
        .unwrap();
    assert!(ajax.result.starts_with("M "), "{text}");
    assert!(!text.contains("no orders for her"), "{text}");
    assert!(!text.contains("torpedoes left"), "{text}");
    assert!(!text.contains("IRON-TORP-03"), "{text}");
}
