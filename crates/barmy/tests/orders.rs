#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Order lines as people write them (BARMY-07, BARMY-19), and the errors they get back.

use barmy::{Barmy, Setup, Square, State, Target};
use engine::{Engine, Player, PlayerId};
use proptest::prelude::*;

fn state(setup: Setup) -> State {
    let ship = |text: &str| -> [Square; 4] {
        text.split_whitespace()
            .map(|s| s.parse().unwrap())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap()
    };
    State::with_ships(
        setup,
        vec![
            (
                Player {
                    id: PlayerId(1),
                    name: "Fred Bloggs".into(),
                },
                ship("B2 C3 D4 E5"),
            ),
            (
                Player {
                    id: PlayerId(2),
                    name: "John Smith".into(),
                },
                ship("E13 F13 G13 H13"),
            ),
        ],
    )
    .unwrap()
}

fn shots(text: &str) -> (Vec<String>, Vec<String>, usize) {
    let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), text);
    (
        parsed
            .orders
            .shots
            .iter()
            .map(|s| s.written.clone())
            .collect(),
        parsed.press,
        parsed.errors.len(),
    )
}

#[test]
fn the_texts_sample_order_line_gives_two_shots_and_press() {
    // BARMY-19: name, two co-ordinates, then press.
    let (shots, press, errors) =
        shots("Fred Bloggs G13, K19 One more shot and John Smith's rust bucket goes down!");
    assert_eq!(shots, ["G13", "K19"]);
    assert_eq!(
        press,
        ["One more shot and John Smith's rust bucket goes down!"]
    );
    assert_eq!(errors, 0);
}

#[test]
fn sloppy_but_clear_orders_are_understood() {
    // BARMY-07: two squares by x and y, however they are typed.
    for text in [
        "FIRE G13 K19",
        "fire g13 k19",
        "  Fire:   G13 ,  K19  ",
        "g13,k19",
        "G13; K19.",
        "G13 and K19",
        "Shots: G13 / K19",
        "fred bloggs: fire G13, K19",
        "G 13, K 19",
        "G13\nK19",
        "G-13 & K19",
    ] {
        let (shots, press, errors) = shots(text);
        assert_eq!(shots, ["G13", "K19"], "{text:?}");
        assert!(press.is_empty(), "{text:?} gave press {press:?}");
        assert_eq!(errors, 0, "{text:?}");
    }
}

#[test]
fn press_wraps_onto_following_lines_and_press_lines_count() {
    let (shots, press, errors) = shots(
        "G13, K19 One more shot and\nhis rust bucket goes down!\n\nPRESS: Hello zine.\nSee you all.",
    );
    assert_eq!(shots, ["G13", "K19"]);
    assert_eq!(
        press,
        [
            "One more shot and his rust bucket goes down!",
            "Hello zine. See you all."
        ]
    );
    assert_eq!(errors, 0);
}

#[test]
fn a_third_shot_is_rejected_with_a_clear_message() {
    // BARMY-07: two shots a turn. BARMY-ADM-02: the first two stand, the third is an error.
    let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), "G13, K19, A1");
    assert_eq!(
        parsed.orders.shots.len(),
        2,
        "BARMY-ADM-02: the first two shots stand"
    );
    let [error] = parsed.errors.as_slice() else {
        panic!("{:?}", parsed.errors)
    };
    assert_eq!(error.line, 1);
    assert_eq!(error.text, "G13, K19, A1");
    assert!(
        error.problem.contains("A1 would be a third shot"),
        "BARMY-ADM-02: the third is an error: {}",
        error.problem
    );
    assert!(error.expected.contains("G13, K19"));
    assert!(error.expected.contains("columns A–S, rows 1–19"));
    // Across lines too.
    let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), "G13\nK19\nA1");
    assert_eq!(parsed.errors.len(), 1);
    assert_eq!(parsed.errors[0].line, 3);
}

#[test]
fn a_square_off_the_board_is_rejected_but_kept_as_a_miss() {
    // BARMY-GM-01: rejected when checked, a miss at the deadline.
    let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), "T12, M20");
    assert_eq!(parsed.errors.len(), 2);
    assert!(parsed.errors[0].problem.contains("T12 is off the board"));
    // What it comes to if the set stands (by mail) is said apart from the problem, so that
    // the web form, which refuses the set, does not say it.
    assert!(!parsed.errors[0].problem.contains("if not corrected"));
    assert_eq!(
        parsed.errors[0].problem_if_it_stands(),
        "T12 is off the board (BARMY-GM-01); if not corrected it counts as a miss"
    );
    assert!(
        parsed
            .orders
            .shots
            .iter()
            .all(|s| s.target == Target::OffBoard)
    );
    // On a 20x20 board the same squares are fine.
    let wide = Setup {
        width: 20,
        height: 20,
        ..Setup::default()
    };
    let parsed = Barmy::parse_orders(&state(wide), PlayerId(1), "T12, M20");
    assert!(parsed.errors.is_empty());
}

#[test]
fn columns_beyond_z_work_on_a_wide_board() {
    // A large zine's board may be wider than 26 columns (overrules BARMY-GM-14).
    let wide = Setup {
        width: 40,
        height: 40,
        ..Setup::default()
    };
    let parsed = Barmy::parse_orders(&state(wide.clone()), PlayerId(1), "AB7, an40");
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(
        parsed
            .orders
            .shots
            .iter()
            .map(|s| s.target)
            .collect::<Vec<_>>(),
        [
            Target::Square(Square::new(27, 6)),
            Target::Square(Square::new(39, 39))
        ]
    );
    let parsed = Barmy::parse_orders(&state(wide), PlayerId(1), "AO1");
    assert!(parsed.errors[0].problem.contains("AO1 is off the board"));
    assert!(parsed.errors[0].expected.contains("columns A–AN"));
}

#[test]
fn the_players_own_name_before_the_squares_is_skipped_and_any_other_text_is_an_error() {
    // BARMY-ADM-01: the sample order line starts with the sender's name, which is skipped.
    let parsed = Barmy::parse_orders(
        &state(Setup::default()),
        PlayerId(1),
        "Fred Bloggs G13, K19",
    );
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(
        parsed.orders.shots.len(),
        2,
        "BARMY-ADM-01: the sender's own name before the squares is skipped"
    );
    // Another player's name is not skipped: the line is an error, not a guess.
    let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), "John Smith G13, K19");
    assert!(parsed.orders.shots.is_empty(), "{:?}", parsed.orders.shots);
    let [error] = parsed.errors.as_slice() else {
        panic!("{:?}", parsed.errors)
    };
    assert_eq!(error.line, 1);
}

#[test]
fn a_line_without_squares_is_an_error_that_says_what_would_do() {
    let parsed = Barmy::parse_orders(
        &state(Setup::default()),
        PlayerId(1),
        "my shots are below\nG13 K19",
    );
    assert_eq!(parsed.orders.shots.len(), 2);
    let [error] = parsed.errors.as_slice() else {
        panic!("{:?}", parsed.errors)
    };
    assert_eq!(error.line, 1);
    assert!(error.problem.contains("no squares"));
    assert!(error.expected.contains("PRESS"));
}

#[test]
fn a_greeting_above_the_squares_is_set_aside_not_refused() {
    // Issue 27: a greeting is not an order and not an error either (engine::chat).
    let parsed = Barmy::parse_orders(
        &state(Setup::default()),
        PlayerId(1),
        "Dear GM, my shots are below\nG13 K19",
    );
    assert_eq!(parsed.orders.shots.len(), 2);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let [aside] = parsed.chat.as_slice() else {
        panic!("{:?}", parsed.chat)
    };
    assert_eq!(aside.line, 1);
    assert!(aside.problem.contains("greeting"), "{}", aside.problem);
}

#[test]
fn the_missed_turn_warning_never_quotes_a_greeting_as_the_set() {
    // Issue 27: "these orders fire no shot" (BARMY-17) is said on the set's first line; when
    // that line is a greeting set aside as chat, it is said on the press line under it.
    let parsed = Barmy::parse_orders(
        &state(Setup::default()),
        PlayerId(1),
        "Hi all,\nPRESS Good luck everyone",
    );
    assert!(parsed.orders.shots.is_empty());
    let [aside] = parsed.chat.as_slice() else {
        panic!("{:?}", parsed.chat)
    };
    assert_eq!(aside.line, 1);
    let [warning] = parsed.warnings.as_slice() else {
        panic!("{:?}", parsed.warnings)
    };
    assert!(
        warning.problem.contains("fire no shot"),
        "{}",
        warning.problem
    );
    assert_eq!(
        (warning.line, warning.text.as_str()),
        (2, "PRESS Good luck everyone")
    );
}

#[test]
fn where_asks_for_the_position_and_is_not_an_order() {
    // BARMY-14, BARMY-GM-13: the private position reply is the mail server's job.
    let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), "WHERE");
    assert!(parsed.orders.shots.is_empty());
    assert!(parsed.errors.is_empty());
    assert!(
        parsed.warnings[0].problem.contains("not an order"),
        "BARMY-14: asking where one's ship is is not an order"
    );
}

#[test]
fn understood_lists_each_order_in_plain_words() {
    let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), "G13, K19 Hello!");
    assert_eq!(
        parsed.understood,
        ["fire at G13", "fire at K19", "press: \"Hello!\""]
    );
}

#[test]
fn the_help_names_the_board() {
    let help = Barmy::order_help(&state(Setup::default()));
    assert!(help.contains("columns A–S, rows 1–19"));
    assert!(help.contains("G13, K19"));
}

proptest! {
    #[test]
    fn any_text_parses_without_panicking(text in "\\PC{0,200}") {
        let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), &text);
        prop_assert!(parsed.orders.shots.len() <= 2);
        for error in &parsed.errors {
            prop_assert!(error.line >= 1);
        }
    }

    #[test]
    fn any_two_squares_on_the_board_are_read_back(x1 in 0u16..19, y1 in 0u16..19, x2 in 0u16..19, y2 in 0u16..19, sep in "(, |,| |; | and )") {
        let (a, b) = (Square::new(x1, y1), Square::new(x2, y2));
        let parsed = Barmy::parse_orders(&state(Setup::default()), PlayerId(1), &format!("{a}{sep}{b}"));
        prop_assert!(parsed.errors.is_empty());
        let targets: Vec<Target> = parsed.orders.shots.iter().map(|s| s.target).collect();
        prop_assert_eq!(targets, vec![Target::Square(a), Target::Square(b)]);
    }
}

/// The order-line reader every engine shares (`engine::order_text`): what it changed for Barmy
/// (BARMY-ADM-04).
mod shared_reader {
    use super::*;

    #[test]
    fn a_signature_ends_the_orders_and_the_press() {
        // Before the shared reader a signature was a "no squares" error, or joined the press.
        let (shots_read, press, errors) = shots("G13, K19 Hi all\n-- \nFred Bloggs\nA1");
        assert_eq!(
            shots_read,
            ["G13", "K19"],
            "BARMY-ADM-04: a signature ends the orders, as in every engine"
        );
        assert_eq!(press, ["Hi all"]);
        assert_eq!(errors, 0);
        let (_, press, errors) = shots("G13 K19\n-- Fred");
        assert!(press.is_empty());
        assert_eq!(errors, 0);
    }

    #[test]
    fn quoted_and_comment_lines_are_skipped_and_do_not_end_a_press() {
        let (shots_read, press, errors) =
            shots("> A1, A2 from last turn\n# my shots\nG13, K19 Hello\n> quoted\nzine");
        assert_eq!(shots_read, ["G13", "K19"]);
        assert_eq!(press, ["Hello zine"]);
        assert_eq!(errors, 0);
    }

    #[test]
    fn numbered_and_bulleted_shots_are_read() {
        for text in [
            "1. G13\n2. K19",
            "- G13\n- K19",
            "* G13, K19",
            "• FIRE G13 K19",
        ] {
            let (shots_read, press, errors) = shots(text);
            assert_eq!(shots_read, ["G13", "K19"], "{text:?}");
            assert!(press.is_empty(), "{text:?}");
            assert_eq!(errors, 0, "{text:?}");
        }
    }

    #[test]
    fn message_and_news_lines_are_press_like_press_lines() {
        let (_, press, errors) = shots("G13 K19\nMESSAGE: Hello zine.\nNEWS - Fred sinks all");
        assert_eq!(press, ["Hello zine.", "Fred sinks all"]);
        assert_eq!(errors, 0);
    }

    #[test]
    fn a_bare_press_line_opens_a_press_for_the_lines_below() {
        // It used to give an empty press, and the lines below joined it after a space.
        let (_, press, errors) = shots("G13 K19\nPRESS\n\nPRESS:\nHello   zine,\nsee you.");
        assert_eq!(press, ["Hello zine, see you."]);
        assert_eq!(errors, 0);
        // Press without letters or digits on a PRESS line is press.
        let (_, press, _) = shots("PRESS: !!!");
        assert_eq!(press, ["!!!"]);
    }
}

/// Where the shots end and the press begins (BARMY-ADM-05), found wanting by the audit of
/// issue 19: a square written as a shot is fired or reported as an error, never printed as press.
mod shots_and_press {
    use super::*;

    fn read(text: &str) -> engine::ParsedOrders<barmy::Orders> {
        Barmy::parse_orders(&state(Setup::default()), PlayerId(1), text)
    }

    fn written(parsed: &engine::ParsedOrders<barmy::Orders>) -> Vec<String> {
        parsed
            .orders
            .shots
            .iter()
            .map(|s| s.written.clone())
            .collect()
    }

    #[test]
    fn two_squares_are_two_shots_whatever_stands_between_them() {
        // BARMY-07, BARMY-19, BARMY-21, BARMY-ADM-05: the audit's `J10 - K10`, `J10. K10`,
        // `L10, then M10`, `A11 (A9)`, and more of their kind.
        for text in [
            "J10 - K10",
            "J10. K10",
            "J10, then K10",
            "J10 (K10)",
            "J10-K10",
            "J10 -> K10",
            "J10 => K10",
            "J10 | K10",
            "J10 -- K10",
            "J10 ... K10",
            "J10; next K10",
            "J10 & also K10",
            "J10 and then K10",
            "J10 plus K10",
            "J10 + K10",
            "J10 [K10]",
            "J10 or K10",
            "J10 — K10",
            "J10 · K10",
            "FIRE J10, then fire K10",
            "first J10, second K10",
            "J10\tK10",
        ] {
            let parsed = read(text);
            assert_eq!(
                written(&parsed),
                ["J10", "K10"],
                "BARMY-ADM-05: the second square fires: {text:?}"
            );
            assert!(
                parsed.press.is_empty(),
                "BARMY-ADM-05: {text:?} gave press {:?}",
                parsed.press
            );
            assert!(parsed.errors.is_empty(), "{text:?}: {:?}", parsed.errors);
            assert!(
                parsed.warnings.is_empty(),
                "{text:?}: {:?}",
                parsed.warnings
            );
        }
    }

    #[test]
    fn words_between_squares_do_not_hide_the_second_shot() {
        // BARMY-ADM-05: the second square fires; the words are not press, and a warning says so.
        for text in [
            "J10 my second shot is K10",
            "J10 followed by K10",
            "J10, and for my next trick, K10",
        ] {
            let parsed = read(text);
            assert_eq!(
                written(&parsed),
                ["J10", "K10"],
                "BARMY-ADM-05: the second square fires: {text:?}"
            );
            assert!(
                parsed.press.is_empty(),
                "BARMY-ADM-05: {text:?} gave press {:?}",
                parsed.press
            );
            assert!(parsed.errors.is_empty(), "{text:?}: {:?}", parsed.errors);
            let [warning] = parsed.warnings.as_slice() else {
                panic!("{text:?}: {:?}", parsed.warnings)
            };
            assert!(
                warning.problem.contains("is not press"),
                "{}",
                warning.problem
            );
        }
        // Press after the last square is still press.
        let parsed = read("J10 then K10 and John's rust bucket goes down!");
        assert_eq!(written(&parsed), ["J10", "K10"]);
        assert_eq!(parsed.press, ["and John's rust bucket goes down!"]);
    }

    #[test]
    fn a_square_inside_press_does_not_cut_it_short() {
        // BARMY-07, BARMY-21, BARMY-ADM-07 (issue 28): once the line has its two shots, words
        // then a square are press going on; the square is published as written, not fired,
        // and a warning says so.
        let parsed = read("G13, K19 One more shot at E13 and down he goes");
        assert_eq!(written(&parsed), ["G13", "K19"]);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        assert_eq!(parsed.press, ["One more shot at E13 and down he goes"]);
        let [warning] = parsed.warnings.as_slice() else {
            panic!("{:?}", parsed.warnings)
        };
        assert!(
            warning.problem.contains("E13 in your press is not fired"),
            "{}",
            warning.problem
        );
        // With one shot so far, the square is the second shot (BARMY-ADM-05).
        let parsed = read("G13 I bet John is at E13");
        assert_eq!(written(&parsed), ["G13", "E13"]);
        assert!(parsed.press.is_empty(), "{:?}", parsed.press);
        // A third square straight after the two is a third shot, never press (BARMY-ADM-02).
        let parsed = read("G13, K19, E13");
        assert_eq!(written(&parsed), ["G13", "K19"]);
        assert!(
            parsed.errors[0]
                .problem
                .contains("E13 would be a third shot")
        );
        // A wrapped press line with a square on it goes on with the press.
        for second in ["John at E13 goes down", "at E13 next turn, John"] {
            let parsed = read(&format!("G13, K19 One more shot and\n{second}"));
            assert_eq!(written(&parsed), ["G13", "K19"]);
            assert_eq!(parsed.press, [format!("One more shot and {second}")]);
            assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
            assert_eq!(parsed.warnings[0].line, 2);
        }
        // A line that starts with a square, or FIRE, is orders even under a press.
        let parsed = read("G13 Bye\nK19 hi");
        assert_eq!(written(&parsed), ["G13", "K19"]);
        assert_eq!(parsed.press, ["Bye", "hi"]);
        // On a PRESS line a square is press.
        let parsed = read("G13, K19\nPRESS: See you at E13, John!");
        assert_eq!(parsed.press, ["See you at E13, John!"]);
        assert!(parsed.errors.is_empty());
    }

    #[test]
    fn a_line_of_words_with_squares_in_it_names_them_in_an_error() {
        // BARMY-ADM-01, BARMY-ADM-05: neither fired nor press.
        let parsed = read("Dear GM: G13, K19");
        assert!(parsed.orders.shots.is_empty());
        assert!(parsed.press.is_empty());
        let [error] = parsed.errors.as_slice() else {
            panic!("{:?}", parsed.errors)
        };
        assert!(error.problem.contains("G13, K19"), "{}", error.problem);
        assert!(
            error.problem.contains("were not fired"),
            "{}",
            error.problem
        );
    }

    #[test]
    fn a_reversed_square_is_read_and_the_good_one_still_fires() {
        // BARMY-03, BARMY-19: the audit's `10J, K10` dropped both shots.
        let parsed = read("10J, K10");
        assert_eq!(written(&parsed), ["J10", "K10"]);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let [warning] = parsed.warnings.as_slice() else {
            panic!("{:?}", parsed.warnings)
        };
        assert!(
            warning.problem.contains("10J was read as J10"),
            "{}",
            warning.problem
        );
        let parsed = read("K10, 10j");
        assert_eq!(written(&parsed), ["K10", "J10"]);
        // Not a square at all: named in the error, and the good square still fires.
        let parsed = read("10AB, K10");
        assert_eq!(written(&parsed), ["K10"]);
        let [error] = parsed.errors.as_slice() else {
            panic!("{:?}", parsed.errors)
        };
        assert!(
            error.problem.contains("10AB is not a square"),
            "{}",
            error.problem
        );
        // Spaced, and after a mangled first square the good one still fires.
        for text in ["10 J, K10", "10-J K10", "10 j, K10"] {
            let parsed = read(text);
            assert_eq!(
                written(&parsed),
                ["J10", "K10"],
                "{text:?}: {:?}",
                parsed.errors
            );
            assert!(parsed.errors.is_empty(), "{text:?}: {:?}", parsed.errors);
        }
        let parsed = read("10 AB, K10");
        assert_eq!(written(&parsed), ["K10"]);
        assert!(
            parsed.errors[0].problem.contains("10 is not a square"),
            "{:?}",
            parsed.errors
        );
        // A wrapped press line starting with a number still continues the press.
        let parsed = read(
            "G13, K19 Down in
2 turns, or 3",
        );
        assert_eq!(parsed.press, ["Down in 2 turns, or 3"]);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        // Number-first words in press stay press.
        let parsed = read("G13, K19 10k men cheer");
        assert_eq!(written(&parsed), ["G13", "K19"]);
        assert_eq!(parsed.press, ["10k men cheer"]);
    }

    #[test]
    fn a_line_starting_with_another_players_name_says_whose_it_is() {
        // BARMY-ADM-01: probably press or a TELL meant elsewhere.
        let parsed = read("John Smith, your rust bucket is doomed");
        let [error] = parsed.errors.as_slice() else {
            panic!("{:?}", parsed.errors)
        };
        assert!(
            error
                .problem
                .contains("starts with John Smith, another player's name"),
            "{}",
            error.problem
        );
        assert!(error.problem.contains("PRESS"), "{}", error.problem);
        assert!(
            error.problem.contains("TELL John Smith:"),
            "{}",
            error.problem
        );
        assert!(error.expected.contains("PRESS:"), "{}", error.expected);
        let parsed = read("john smith G13, K19");
        assert!(parsed.orders.shots.is_empty());
        let [error] = parsed.errors.as_slice() else {
            panic!("{:?}", parsed.errors)
        };
        assert!(
            error.problem.contains("John Smith, another player's name"),
            "{}",
            error.problem
        );
        assert!(error.problem.contains("G13, K19"), "{}", error.problem);
        // A wrapped press that starts with the name is still press.
        let parsed = read("G13, K19 Look out\nJohn Smith, here I come");
        assert_eq!(parsed.press, ["Look out John Smith, here I come"]);
        assert!(parsed.errors.is_empty());
    }

    #[test]
    fn a_one_square_order_warns_that_the_second_shot_is_missing() {
        // BARMY-07, switch one_shot_allowed: on (the default) a warning, off an error.
        let parsed = read("G13");
        assert_eq!(written(&parsed), ["G13"]);
        assert!(parsed.errors.is_empty());
        assert!(
            parsed.warnings[0]
                .problem
                .contains("your second shot is not fired"),
            "{:?}",
            parsed.warnings
        );
        let strict = Setup {
            one_shot_allowed: false,
            ..Setup::default()
        };
        let parsed = Barmy::parse_orders(&state(strict), PlayerId(1), "G13");
        assert_eq!(parsed.orders.shots.len(), 1);
        assert!(
            parsed.errors[0]
                .problem
                .contains("each order names two squares"),
            "{:?}",
            parsed.errors
        );
    }

    #[test]
    fn orders_that_fire_nothing_say_they_are_a_missed_turn() {
        // BARMY-17, BARMY-GM-13, switch press_only_is_nmr.
        for text in [
            "WHERE",
            "",
            "hello GM",
            "PRESS: hello",
            "G13 K19 hi\n",
            "\n\n",
        ] {
            let parsed = read(text);
            let said = parsed.warnings.iter().any(|w| {
                w.problem
                    .contains("counts as a missed turn (NMR, BARMY-17)")
            });
            assert_eq!(
                said,
                parsed.orders.shots.is_empty(),
                "{text:?}: {:?}",
                parsed.warnings
            );
        }
        let lenient = Setup {
            press_only_is_nmr: false,
            ..Setup::default()
        };
        let parsed = Barmy::parse_orders(&state(lenient.clone()), PlayerId(1), "PRESS: hello");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert!(parsed.orders.answer_the_turn(&lenient));
        assert!(!parsed.orders.answer_the_turn(&Setup::default()));
        let parsed = Barmy::parse_orders(&state(lenient.clone()), PlayerId(1), "WHERE");
        assert!(!parsed.orders.answer_the_turn(&lenient));
        // Orders stored before the switch existed answered their turn, and still do.
        let stored: barmy::Orders = serde_json::from_str(r#"{"shots":[]}"#).unwrap();
        assert!(stored.answer_the_turn(&Setup::default()));
        // A sunk player's press is not a missed turn: they cannot fire.
        let mut sunk = state(Setup::default());
        sunk.captains[0].fate = barmy::Fate::Sunk(1);
        sunk.captains[0].damage = [Some(barmy::Damage::Shot(1)); 4];
        let parsed = Barmy::parse_orders(&sunk, PlayerId(1), "PRESS: glug");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    }

    proptest! {
        #[test]
        fn no_square_on_an_order_line_is_press_unsaid(
            lines in prop::collection::vec(
                prop::collection::vec(
                    prop::sample::select(vec![
                        "G13", "k19", "AB7", "10J", "10AB", "E13.", "(A9)", "and", "then", "John",
                        "Smith", "hello", "rust", "-", ",", ".", "...", "!", "at", "a", "10", "",
                    ]),
                    0..8,
                ),
                0..5,
            ),
        ) {
            // BARMY-ADM-05, BARMY-ADM-07: any line not starting PRESS/MESSAGE/NEWS; every
            // square-shaped word of the press it gives is named in a warning (published, not
            // fired), so no square is quietly taken for press.
            let text = lines.iter().map(|words| words.join(" ")).collect::<Vec<_>>().join("\n");
            let parsed = read(&text);
            for press in &parsed.press {
                for word in press.split(|c: char| !c.is_alphanumeric()) {
                    let square = word.len() >= 2
                        && word.parse::<Square>().is_ok()
                        && word.starts_with(|c: char| c.is_ascii_alphabetic());
                    let said = parsed.warnings.iter().any(|w| {
                        w.problem.contains("in your press") && w.problem.contains(&word.to_uppercase())
                    });
                    prop_assert!(!square || said, "{:?} printed {:?} as press unsaid: {:?}", text, word, parsed.press);
                }
            }
        }

        #[test]
        fn two_squares_joined_by_any_punctuation_are_both_fired(
            x1 in 0u16..19, y1 in 0u16..19, x2 in 0u16..19, y2 in 0u16..19,
            sep in "[ ,.;:/|&+()\\[\\]<>=~*-]{1,4}",
            filler in prop::sample::select(vec!["", "and", "then", "also", "and then", "next", "plus"]),
        ) {
            // BARMY-07, BARMY-ADM-05.
            let (a, b) = (Square::new(x1, y1), Square::new(x2, y2));
            let text = format!("{a}{sep}{filler} {b}");
            let parsed = read(&text);
            let targets: Vec<Target> = parsed.orders.shots.iter().map(|s| s.target).collect();
            prop_assert_eq!(targets, vec![Target::Square(a), Target::Square(b)], "{:?}", text);
            prop_assert!(parsed.press.is_empty(), "{:?}: {:?}", text, parsed.press);
            prop_assert!(parsed.errors.is_empty(), "{:?}: {:?}", text, parsed.errors);
        }
    }
}
