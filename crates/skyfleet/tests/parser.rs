#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Orders as people write them: sloppy but clear input is accepted, every rejected line says
//! why with a correct example, and no input whatever makes the parser panic.

use engine::{Engine, Player, PlayerId, TurnDice};
use proptest::prelude::*;
use skyfleet::orders::{CmdAction, Step, Target};
use skyfleet::{Setup, Skyfleet, State, Turn};

fn standard() -> State {
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: ["Alice", "Bob"][id as usize - 1].into(),
    });
    Skyfleet::new_game(&Setup::default(), &players, &mut TurnDice::scripted([], [])).unwrap()
}

const ALICE: PlayerId = PlayerId(1);

#[test]
fn sloppy_email_orders_are_understood() {
    let state = standard();
    let text = "  1. activate VALIANT:
  - move f3, p+45 ,f 4
  * Fire   Heavy Lance at tempest/nearest
valiant: cmd full ahead
> Bob wrote: surrender!
// a note to myself
Swift move F2 P+90 F8 ; fire all at nearest
Resolute
   CMD LAUNCHWING
   DC priority on fire, broken, repair
STANDING: brace valiant
standing reroll_crit {7, 8}
initiative: second
press: For the King!
--
Alice, Admiral of the Red
ACTIVATE Nonsense";
    let parsed = Skyfleet::parse_orders(&state, ALICE, text);
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert_eq!(parsed.press, vec!["For the King!".to_string()]);
    let orders = &parsed.orders;
    assert_eq!(orders.activations.len(), 3);
    let valiant = &orders.activations[0];
    assert_eq!(
        valiant.steps,
        vec![
            Step::Forward(skyfleet::Length::inches(3)),
            Step::Pivot(Turn::degrees(45)),
            Step::Forward(skyfleet::Length::inches(4))
        ]
    );
    assert_eq!(valiant.fire[0].weapons, vec!["fwd".to_string()]);
    assert_eq!(valiant.fire[0].targets.len(), 2);
    assert_eq!(valiant.fire[0].targets[1], Target::Nearest);
    assert_eq!(valiant.actions[0].action, CmdAction::FullAhead);
    let swift = &orders.activations[1];
    assert_eq!(swift.fire[0].weapons, vec!["turret".to_string()]);
    assert_eq!(orders.standing.len(), 2);
    assert!(orders.initiative.is_some());
    for want in [
        "Valiant (Gunship) activates 1st in your list",
        "Valiant moves F3 P+45 F4",
        "Valiant fires Heavy Lance (fwd) at Tempest, else the nearest",
        "Valiant: Full Ahead (1 CMD)",
        "Swift moves F2 P+90 F8",
        "Resolute: Launch Wing (1 CMD)",
        "Resolute: damage control clear On Fire, then clear Broken, then repair",
        "Valiant braces (1 CMD) the first time it is attacked each turn (SKY-GM-17)",
        "Reinforced Bulkheads re-roll Critical results {7, 8} (SKY-GM-25)",
        "if you win initiative, you activate second (SKY-GM-15)",
    ] {
        assert!(
            parsed.understood.iter().any(|u| u == want),
            "{want:?} not in {:#?}",
            parsed.understood
        );
    }
}

/// Each bad line, alone, gives exactly one error with this problem.
#[test]
fn every_error_says_why_and_shows_an_example() {
    let state = standard();
    let cases = [
        (
            "FIRE ALL AT Tempest",
            "which unit is this for? Start its orders with ACTIVATE and its name",
        ),
        (
            "ACTIVATE Nonesuch",
            "which unit? name one of your ships or wings",
        ),
        (
            "Valiant MOVE F 20",
            "that move needs 20\" but Valiant has 7\"",
        ),
        (
            "Valiant FIRE lazer AT Tempest",
            "Valiant has no weapon \"lazer\" (it has: fwd (Heavy Lance), port (Naval Battery), stbd (Naval Battery))",
        ),
        ("Valiant FIRE fwd AT Swift", "Swift is one of yours"),
        (
            "Valiant FIRE fwd",
            "say what to fire at: AT a unit, or AT NEAREST",
        ),
        (
            "Valiant FIRE fwd AT the moon",
            "\"moon\" is not a unit in this battle",
        ),
        ("Tempest MOVE F 3", "Tempest is not one of yours"),
        (
            "Valiant CMD WARP",
            "\"warp\" is not an order or a CMD action",
        ),
        ("Valiant WARP", "\"warp\" is not an order for Valiant"),
        (
            "INITIATIVE maybe",
            "say FIRST or SECOND: who activates first if you win initiative",
        ),
        (
            "STANDING CHAFF Valiant",
            "Valiant has no Chaff Launcher (SKY-MOD-1)",
        ),
        (
            "STANDING COUNTERMEASURES Valiant",
            "Valiant has no Acoustic Decoys (SKY-GM-18)",
        ),
        (
            "STANDING DANCE Valiant",
            "\"dance\" is not a standing order (BRACE, CHAFF, COUNTERMEASURES, REROLL_CRIT, CLEAR)",
        ),
        (
            "STANDING REROLL_CRIT 9",
            "REROLL_CRIT takes Critical Table results 1 to 8",
        ),
        ("TORPEDO #9 PIVOT +22.5", "there is no Torpedo #9"),
        (
            "Hawk MOVE F 3",
            "Hawk is still aboard its carrier: launch it with CMD LAUNCHWING first (it flies from the next turn)",
        ),
        (
            "Resolute CMD LAUNCHTORPEDO",
            "Resolute has no Torpedo Launcher",
        ),
        ("Valiant CMD LAUNCHWING", "Valiant has no Hangar"),
        (
            "Valiant CMD COMPRESSEDGAS",
            "Valiant has no Compressed Gas (SKY-MOD-7)",
        ),
        (
            "Valiant CMD EMERGENCY",
            "Emergency Repairs gives up moving or shooting: say which",
        ),
        (
            "Valiant DC PRIORITY fish",
            "\"fish\" is not something damage control can do",
        ),
        (
            "Valiant MOVE F 3 P +30",
            "ships turn in steps of 22.5° (SKY-GM-11)",
        ),
        (
            "Valiant MOVE F 3 P +90",
            "a Gunship pivots at most 45° (SKY-CLASS-01)",
        ),
        (
            "Valiant MOVE F 3 P +45 P +45",
            "one pivot a move; CMD HARDAROUND adds one more at the end (SKY-GM-11)",
        ),
        (
            "Valiant MOVE F 2 P +45 F 1",
            "Valiant must move 3\" (Inertia) before it pivots; P+45 comes after only 2\" (SKY-KW-INERTIA)",
        ),
        (
            "Valiant MOVE CLIMB 9",
            "that move needs 27\" but Valiant has 7\"",
        ),
        (
            "Valiant MOVE DIVE 4",
            "that would dive below elevation 1 and crash (SKY-GM-06)",
        ),
        (
            "Valiant MOVE SIDEWAYS 3",
            "\"sideways\" is not a movement step",
        ),
        ("Valiant MOVE F far", "f needs a distance in inches"),
        (
            "Valiant MOVE F 1 DIVEBRAKES",
            "Valiant has no working Dive Brakes (SKY-MOD-8)",
        ),
        (
            "Valiant CMD RALLY Tempest",
            "Tempest is not one of your ships",
        ),
        (
            "Valiant CMD FULLAHEAD FROM Tempest",
            "FROM needs one of your ships, which pays the CMD",
        ),
        (
            "Valiant CMD HARDAROUND P +90",
            "a Gunship pivots at most 45°",
        ),
        (
            "Valiant FIRE port AND torpedo AT Tempest",
            "Valiant has no weapon \"torpedo\"",
        ),
        (
            "Resolute FIRE all AT Tempest\nResolute CMD TARGETLOCK fwd\nResolute FIRE fwd AT Falcon",
            "Dominion",
        ),
        (
            "DEPLOY Tempest AT 66,10",
            "Tempest is not one of your ships",
        ),
        (
            "DEPLOY Valiant AT 40,10",
            "Valiant: (40.0, 10.0) is outside side \"Red Fleet\"'s deployment strip (12\" from the west edge)",
        ),
        ("DEPLOY Valiant HEADING 90", "say where: AT x,y"),
        ("Hawk: CMD BRACE", "Hawk is still aboard"),
    ];
    for (line, problem) in cases {
        let parsed = Skyfleet::parse_orders(&state, ALICE, line);
        if problem == "Dominion" {
            // Falcon is aboard Dominion: not a target yet; errors name the wing.
            assert!(!parsed.errors.is_empty(), "{line:?} was accepted");
            continue;
        }
        assert_eq!(parsed.errors.len(), 1, "{line:?}: {:#?}", parsed.errors);
        let issue = &parsed.errors[0];
        assert!(
            issue.problem.contains(problem),
            "{line:?}: {:?} lacks {problem:?}",
            issue.problem
        );
        assert_eq!(issue.line, 1);
        assert_eq!(issue.text, line);
        assert!(!issue.expected.is_empty(), "{line:?} shows no example");
    }
}

#[test]
fn sky_cmd_02_a_named_action_twice_and_sky_cmd_01_affordability() {
    let state = standard();
    let parsed = Skyfleet::parse_orders(
        &state,
        ALICE,
        "Swift: CMD FULLAHEAD; CMD FULLAHEAD\nSwift: CMD BRACE\nSwift: CMD HARDAROUND P +90 FROM Swift",
    );
    let problems: Vec<&str> = parsed.errors.iter().map(|e| e.problem.as_str()).collect();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains("already has Full Ahead this turn"));
    // An Escort has 1 CMD: a second point named FROM it cannot be paid...
    assert!(problems[1].contains("Swift has only 1 CMD this turn"));
    assert_eq!(parsed.errors[1].line, 3);
    // ...while one left to the nearest friend within 12" (Valiant) is a warning.
    assert_eq!(parsed.warnings.len(), 1, "{:#?}", parsed.warnings);
    assert!(parsed.warnings[0].problem.contains(
        "Swift has only 1 CMD: this point will come from a friendly ship within 12\" if one has CMD left"
    ));
}

#[test]
fn sky_ul_01_no_target_lock_on_an_ultralight() {
    let mut state = standard();
    // Put Falcon (Blue's wing) in the air.
    let falcon = state.find_unit("Falcon").unwrap();
    state.units[falcon.index()].place = skyfleet::state::Place::InPlay;
    let parsed = Skyfleet::parse_orders(
        &state,
        ALICE,
        "Valiant\nCMD TARGETLOCK stbd\nFIRE stbd AT Falcon",
    );
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert!(
        parsed.errors[0].problem.contains(
            "Falcon is an Ultralight: it cannot be Target Locked (SKY-UL-01, SKY-CMD-05)"
        )
    );
}

#[test]
fn an_empty_or_blank_mail_is_no_orders_and_no_errors() {
    let state = standard();
    for text in ["", "\n\n   \n", "-- \nsig", "> quoted\n> more"] {
        let parsed = Skyfleet::parse_orders(&state, ALICE, text);
        assert!(parsed.errors.is_empty());
        assert!(parsed.orders.activations.is_empty());
    }
}

#[test]
fn a_stranger_gets_an_error_per_line() {
    let state = standard();
    let parsed = Skyfleet::parse_orders(&state, PlayerId(99), "Valiant MOVE F 3\n\nHOLD");
    assert_eq!(parsed.errors.len(), 2);
    assert_eq!(parsed.errors[1].line, 3);
}

#[test]
fn order_help_names_the_battles_units() {
    let help = Skyfleet::order_help(&standard());
    assert!(help.contains("ACTIVATE Resolute"));
    assert!(help.contains("Dominion"));
    assert!(help.contains("STANDING BRACE"));
}

const WORDS: &[&str] = &[
    "activate",
    "valiant",
    "swift",
    "resolute",
    "hawk",
    "tempest",
    "move",
    "f",
    "p",
    "+45",
    "-22.5",
    "climb",
    "dive",
    "toward",
    "fire",
    "all",
    "at",
    "nearest",
    "/",
    "cmd",
    "fullahead",
    "hardaround",
    "targetlock",
    "rally",
    "brace",
    "emergency",
    "skip",
    "launchtorpedo",
    "launchwing",
    "compressedgas",
    "from",
    "dc",
    "priority",
    "repair",
    "standing",
    "chaff",
    "countermeasures",
    "reroll_crit",
    "torpedo",
    "#1",
    "deploy",
    "heading",
    "elev",
    "hold",
    "initiative",
    "first",
    "press",
    ";",
    ":",
    ",",
    "3",
    "99999999999999",
    "0.5",
    "-1",
    "é",
    "🚀",
    "\u{0}",
    "\t",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        let state = standard();
        let parsed = Skyfleet::parse_orders(&state, ALICE, &text);
        for issue in parsed.errors.iter().chain(&parsed.warnings) {
            prop_assert!(issue.line >= 1);
            prop_assert!(!issue.expected.is_empty());
        }
    }

    #[test]
    fn order_shaped_nonsense_never_panics(lines in prop::collection::vec(
        prop::collection::vec(prop::sample::select(WORDS), 0..10), 0..12)) {
        let state = standard();
        let text: Vec<String> = lines.iter().map(|l| l.join(" ")).collect();
        let text = text.join("\n");
        let parsed = Skyfleet::parse_orders(&state, ALICE, &text);
        // Whatever was accepted can be resolved.
        let mut input = engine::TurnInput::default();
        input.orders.insert(ALICE, parsed.orders);
        let secret = engine::GameSecret::from_bytes([9; 32]);
        let resolution = Skyfleet::resolve(&state, &input, &mut secret.turn_dice(1));
        prop_assert!(resolution.is_ok());
    }
}

/// The order-line reader every engine shares (`engine::order_text`): what it changed for
/// Skyfleet (SKY-ADM-20).
mod shared_reader {
    use super::*;

    #[test]
    fn a_sign_off_after_dashes_ends_the_orders() {
        // `-- x` used to be read as the order `x` (a dash bullet).
        let parsed = Skyfleet::parse_orders(
            &standard(),
            ALICE,
            "Valiant MOVE F 3\n-- Alice, Admiral of the Red\nActivate Nonsense",
        );
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        assert_eq!(
            parsed.orders.activations.len(),
            1,
            "SKY-ADM-20: a sign-off after dashes ends the orders"
        );
    }

    #[test]
    fn hash_comments_are_skipped() {
        let parsed = Skyfleet::parse_orders(&standard(), ALICE, "# my orders\nValiant MOVE F 3");
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    }

    #[test]
    fn message_and_news_lines_are_press() {
        let parsed = Skyfleet::parse_orders(
            &standard(),
            ALICE,
            "news: For   the King!\nValiant MOVE F 3\nMESSAGE Steady.",
        );
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        assert_eq!(
            parsed.press,
            ["For the King!", "Steady."],
            "SKY-ADM-20: MESSAGE and NEWS lines are press, as in every engine"
        );
    }

    #[test]
    fn a_stranger_is_refused_only_the_lines_read() {
        // Quoted lines and the signature used to be refused one by one as well.
        let parsed = Skyfleet::parse_orders(
            &standard(),
            PlayerId(99),
            "> Bob wrote:\nValiant MOVE F 3\nPRESS hi\n--\nBob",
        );
        let lines: Vec<usize> = parsed.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 3]);
        assert!(parsed.press.is_empty());
    }
}

/// The order check is a dry run of the turn's own move planner (SKY-ADM-16, SKY-GM-11,
/// SKY-GM-06): legality is decided in one place.
mod moves_checked_by_the_turns_planner {
    use super::*;
    use skyfleet::movement::{MovePlan, MoveProblem, Walk, plan_move};
    use skyfleet::orders::{Activation, Aim};
    use skyfleet::parse::check_move;
    use skyfleet::{Length, UnitId};

    fn valiant(state: &State) -> UnitId {
        state.units.iter().find(|u| u.name == "Valiant").unwrap().id
    }

    #[test]
    fn a_dive_below_1_on_the_way_is_refused_even_if_the_move_climbs_back() {
        // Valiant is at elevation 4. Only the end of the move used to be checked, so this was
        // accepted, and the turn crashed the ship at DIVE 4.
        let parsed = Skyfleet::parse_orders(&standard(), ALICE, "Valiant MOVE DIVE 4 CLIMB 1");
        assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
        assert!(
            parsed.errors[0]
                .problem
                .contains("that would dive below elevation 1 and crash (SKY-GM-06)")
        );
        assert!(parsed.orders.activations[0].steps.is_empty());
    }

    #[test]
    fn a_climb_above_the_ceiling_on_the_way_is_refused() {
        // At elevation 12 of 12, Stall(8) takes Valiant to 11 before it moves (SKY-KW-STALL);
        // CLIMB 2 then stops at 12 and DIVE 1 ends at 11, not at 12.
        let mut state = standard();
        let id = valiant(&state);
        state.unit_mut(id).unwrap().elevation = 12;
        let parsed = Skyfleet::parse_orders(&state, ALICE, "Valiant MOVE CLIMB 2 DIVE 1");
        assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
        assert!(
            parsed.errors[0]
                .problem
                .contains("that would climb above elevation 12 (SKY-GM-06)"),
            "{:#?}",
            parsed.errors
        );
    }

    #[test]
    fn the_turn_refuses_a_ship_pivot_off_the_22_5_degree_steps() {
        // Orders that never met the order check (written as JSON) used to turn any angle.
        let state = standard();
        let id = valiant(&state);
        let mut activation = Activation::hold(id);
        activation.steps = vec![
            Step::Forward(Length::inches(3)),
            Step::Pivot(Turn::degrees(30)),
        ];
        let mut input = engine::TurnInput::default();
        input.orders.insert(
            ALICE,
            skyfleet::Orders {
                activations: vec![activation],
                ..skyfleet::Orders::default()
            },
        );
        let secret = engine::GameSecret::from_bytes([9; 32]);
        let resolution = Skyfleet::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
        let row = resolution
            .report
            .rows
            .iter()
            .find(|r| r.name.contains("Valiant"))
            .unwrap();
        assert!(
            row.result.contains(
                "moved F3 → (9.0, 24.0) 90° e4; pivot +30 refused (ships turn in steps of 22.5°)"
            ),
            "{}",
            row.result
        );
        assert_eq!(
            resolution.state.unit(id).unwrap().heading,
            state.unit(id).unwrap().heading
        );
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0i64..900).prop_map(|h| Step::Forward(Length(h))),
            (-6i32..=6).prop_map(|k| Step::Pivot(Turn(k * 15))),
            (0u8..4).prop_map(Step::Climb),
            (0u8..5).prop_map(Step::Dive),
            (0u16..8).prop_map(|id| Step::Toward(Aim::Unit(UnitId(id)))),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// What the order check accepts, the turn carries out as written: nothing but the
        /// world (islands, the edge, other bases) changes it.
        #[test]
        fn an_accepted_move_meets_no_rule_when_it_happens(
            steps in prop::collection::vec(step(), 0..6),
            full_ahead in any::<bool>(),
            elevation in 1u8..=12,
        ) {
            let mut state = standard();
            let id = valiant(&state);
            state.unit_mut(id).unwrap().elevation = elevation;
            let unit = state.unit(id).unwrap().clone();
            if check_move(&state, &unit, &steps, full_ahead, false).is_ok() {
                let plan = MovePlan { steps, full_ahead, ..MovePlan::default() };
                let walked = plan_move(&state, &unit, &plan, Walk::AsItHappens);
                for problem in &walked.problems {
                    prop_assert!(
                        matches!(
                            problem,
                            MoveProblem::Island { .. }
                                | MoveProblem::IslandInBand { .. }
                                | MoveProblem::TableEdge { .. }
                                | MoveProblem::CutBack { .. }
                        ),
                        "{problem:?} in an accepted move"
                    );
                }
            }
        }
    }
}

/// Issue 27: "Valiant moves F8 CLIMB 1" was listed as understood and as an error, and the
/// turn did not move Valiant. A move the block's check refuses (SKY-GM-11, SKY-EX-08: a
/// Gunship has 7") is taken back from what was understood; the error says what stands.
#[test]
fn sky_gm_11_a_refused_move_is_not_also_understood() {
    let parsed = Skyfleet::parse_orders(&standard(), ALICE, "Valiant moves F8 CLIMB 1");
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert_eq!(
        parsed.errors[0].if_it_stands.as_deref(),
        Some("Valiant does not move this turn")
    );
    assert!(
        !parsed.understood.iter().any(|u| u.contains("moves")),
        "{:#?}",
        parsed.understood
    );
    assert!(parsed.orders.activations[0].steps.is_empty());
    // The line was refused: nothing was read as an order, so the set answers no turn.
    assert!(!Skyfleet::answers(&standard(), &parsed));
    // A move within the budget is understood, and answers.
    let parsed = Skyfleet::parse_orders(&standard(), ALICE, "Valiant moves F3 CLIMB 1");
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert!(
        parsed
            .understood
            .iter()
            .any(|u| u.starts_with("Valiant moves"))
    );
    assert!(Skyfleet::answers(&standard(), &parsed));
}

/// Issue 27: sign-offs and chat are set aside, never refused as orders (SKY-GM-14: the
/// activation list is what the player's lines order).
#[test]
fn sky_gm_14_sign_offs_and_chat_are_not_orders() {
    let parsed = Skyfleet::parse_orders(&standard(), ALICE, "Valiant MOVE F 3\nRegards,\nAgnes\n");
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert_eq!(
        parsed.chat.iter().map(|c| c.line).collect::<Vec<_>>(),
        [2, 3]
    );
    let parsed = Skyfleet::parse_orders(&standard(), ALICE, "Agreed, Cora. Deal.");
    assert!(parsed.errors.is_empty());
    assert_eq!(parsed.chat.len(), 1);
    assert!(!Skyfleet::answers(&standard(), &parsed));
}
