#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! What the audit of issue 19 found in the state and the scores: a hand-edited state is read
//! whole and consistent or refused (BARMY-ADM-06); the GM may place ships (BARMY-GM-04); scores
//! stay exact however many players share squares (BARMY-09, BARMY-GM-12); the switches are
//! listed as rulings.

use barmy::{Barmy, Placement, Setup, Square, State};
use engine::{Engine, GameSecret, Player, PlayerId, TurnInput};
use num_bigint::BigInt;
use num_rational::BigRational;
use serde_json::{Value, json};

fn player(id: u64, name: &str) -> Player {
    Player {
        id: PlayerId(id),
        name: name.into(),
    }
}

fn ship(text: &str) -> [Square; 4] {
    text.split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect::<Vec<_>>()
        .try_into()
        .unwrap()
}

fn three() -> State {
    State::with_ships(
        Setup::default(),
        vec![
            (player(1, "Fred Bloggs"), ship("B2 C3 D4 E5")),
            (player(2, "John Smith"), ship("E13 F13 G13 H13")),
            (player(3, "Eve Ryman"), ship("S1 S2 S3 S4")),
        ],
    )
    .unwrap()
}

/// The state as JSON, edited by `edit`, read back: the error's text if refused.
fn edited(edit: impl FnOnce(&mut Value)) -> Result<State, String> {
    let mut value = serde_json::to_value(three()).unwrap();
    edit(&mut value);
    serde_json::from_value::<State>(value).map_err(|e| e.to_string())
}

mod state_validation {
    use super::*;

    #[test]
    fn a_consistent_state_reads_back_as_it_was() {
        let state = three();
        let back: State = serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
        assert_eq!(
            back, state,
            "BARMY-ADM-06: a consistent state reads back whole"
        );
    }

    #[test]
    fn overlapping_ships_are_refused_naming_both() {
        // BARMY-06, BARMY-ADM-06.
        let error =
            edited(|v| v["captains"][2]["ship"] = json!(["E12", "F13", "G14", "H15"])).unwrap_err();
        assert!(error.contains("John Smith (player 2)"), "{error}");
        assert!(error.contains("Eve Ryman (player 3)"), "{error}");
        assert!(
            error.contains("both cover F13"),
            "BARMY-06: two ships may not share a square: {error}"
        );
        // A player who left has taken the ship off the board: another may stand there.
        edited(|v| {
            v["captains"][2]["ship"] = json!(["E12", "F13", "G14", "H15"]);
            v["captains"][2]["fate"] = json!({"state": "left", "turn": 1});
            v["turn"] = json!(2);
        })
        .unwrap_or_else(|e| {
            panic!("BARMY-05: a diagonal ship, on the squares of a ship gone from the board: {e}")
        });
    }

    #[test]
    fn a_ship_off_the_board_or_out_of_line_is_refused() {
        // BARMY-03, BARMY-04, BARMY-05, BARMY-ADM-06.
        let error =
            edited(|v| v["captains"][0]["ship"] = json!(["S5", "T5", "U5", "V5"])).unwrap_err();
        assert!(error.contains("Fred Bloggs (player 1)'s ship S5 T5 U5 V5 is not four squares in a line on the 19x19 board"), "{error}");
        let error =
            edited(|v| v["captains"][0]["ship"] = json!(["A1", "B2", "C3", "E5"])).unwrap_err();
        assert!(
            error.contains("A1 B2 C3 E5"),
            "BARMY-05: a ship runs in a straight line: {error}"
        );
    }

    #[test]
    fn a_player_id_given_twice_is_refused() {
        let error = edited(|v| v["captains"][2]["id"] = json!(1)).unwrap_err();
        assert!(
            error.contains("player id 1 is given twice, to Fred Bloggs and to Eve Ryman"),
            "BARMY-ADM-06: an inconsistent state is not read: {error}"
        );
    }

    #[test]
    fn fates_that_contradict_the_damage_are_refused() {
        // BARMY-11, BARMY-ADM-06.
        let error = edited(|v| {
            v["turn"] = json!(3);
            v["captains"][0]["damage"] = json!([{"by": "shot", "turn": 1}, {"by": "shot", "turn": 1}, {"by": "shot", "turn": 2}, {"by": "penalty", "turn": 2}]);
        })
        .unwrap_err();
        assert!(
            error.contains("all four squares hit but is marked afloat"),
            "{error}"
        );
        let error =
            edited(|v| v["captains"][1]["fate"] = json!({"state": "sunk", "turn": 1})).unwrap_err();
        assert!(
            error.contains("marked sunk with 0 of its four squares hit"),
            "{error}"
        );
        let error = edited(|v| v["captains"][1]["damage"][0] = json!({"by": "shot", "turn": 5}))
            .unwrap_err();
        assert!(error.contains("marked hit in turn 5"), "{error}");
        let error = edited(|v| v["captains"][1]["score"] = json!("-1/2")).unwrap_err();
        assert!(error.contains("negative score"), "{error}");
        let error = edited(|v| v["shots"] = json!(["Z40"])).unwrap_err();
        assert!(
            error.contains("Z40, which is off the 19x19 board"),
            "{error}"
        );
        let error = edited(|v| v["setup"]["width"] = json!(2)).unwrap_err();
        assert!(error.contains("2 columns wide"), "{error}");
    }

    #[test]
    fn gm_adjudicate_refuses_an_edited_state_before_resolving_it() {
        // BARMY-ADM-06: the same path `gm adjudicate` and stored games take.
        let text = serde_json::to_string(&three()).unwrap().replace(
            "\"S1\",\"S2\",\"S3\",\"S4\"",
            "\"E13\",\"E14\",\"E15\",\"E16\"",
        );
        let error = serde_json::from_str::<State>(&text)
            .unwrap_err()
            .to_string();
        assert!(error.contains("both cover E13"), "{error}");
    }

    #[test]
    fn a_big_game_reads_in_time() {
        // BARMY-02, BARMY-ADM-06: the checks are linear or a sort, for 10,000 players.
        let players: Vec<Player> = (1..=10_000)
            .map(|id| player(id, &format!("Player {id}")))
            .collect();
        let secret = GameSecret::from_bytes([3; 32]);
        let setup = Setup {
            width: 632,
            height: 632,
            ..Setup::default()
        };
        let state = Barmy::new_game(&setup, &players, &mut secret.turn_dice(0)).unwrap();
        let text = serde_json::to_string(&state).unwrap();
        let started = std::time::Instant::now();
        let back: State = serde_json::from_str(&text).unwrap();
        // Generous for a debug build on a shared machine; quadratic checks took minutes.
        assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
        assert_eq!(back.captains.len(), 10_000);
    }
}

mod placements {
    use super::*;

    fn roster() -> Vec<Player> {
        vec![
            player(1, "Fred Bloggs"),
            player(2, "John Smith"),
            player(3, "Eve Ryman"),
        ]
    }

    fn placed(placements: Vec<(u64, &str)>) -> Setup {
        Setup {
            placements: placements
                .into_iter()
                .map(|(id, squares)| Placement {
                    player: PlayerId(id),
                    ship: ship(squares),
                })
                .collect(),
            ..Setup::default()
        }
    }

    #[test]
    fn the_gm_places_ships_and_the_rest_are_random_around_them() {
        // BARMY-GM-04: a tournament or a replay places ships by hand.
        for seed in 0..20u8 {
            let setup = placed(vec![(2, "E13 F13 G13 H13"), (3, "S4 S3 S2 S1")]);
            let secret = GameSecret::from_bytes([seed; 32]);
            let state = Barmy::new_game(&setup, &roster(), &mut secret.turn_dice(0)).unwrap();
            let names: Vec<&str> = state.captains.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names, ["Fred Bloggs", "John Smith", "Eve Ryman"]);
            assert_eq!(state.captains[1].ship, ship("E13 F13 G13 H13"));
            assert_eq!(state.captains[2].ship, ship("S4 S3 S2 S1"));
            let fred = state.captains[0].ship;
            assert!(fred.iter().all(
                |s| !state.captains[1].ship.contains(s) && !state.captains[2].ship.contains(s)
            ));
            // The setup with its placements is stored in the state and reads back.
            let back: State =
                serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
            assert_eq!(back, state);
        }
    }

    #[test]
    fn ships_run_any_way_side_by_side_and_diagonals_may_cross() {
        // Fred across, John down, Eve diagonally through the gap between them: side by side
        // with Fred, and crossing an X with a fourth, diagonal, ship nobody shares a square with.
        let mut roster = roster();
        roster.push(player(4, "Ann Other"));
        let setup = placed(vec![
            (1, "A1 B1 C1 D1"),
            (2, "A3 A4 A5 A6"),
            (3, "B2 C3 D4 E5"),
            (4, "B5 C4 D3 E2"),
        ]);
        let secret = GameSecret::from_bytes([1; 32]);
        let state =
            Barmy::new_game(&setup, &roster, &mut secret.turn_dice(0)).unwrap_or_else(|e| {
                panic!(
                    "BARMY-05 (across, down, diagonal), BARMY-06 (adjacent squares), BARMY-GM-05 \
                 (diagonals crossing without a shared square): {e}"
                )
            });
        let ships: Vec<[Square; 4]> = state.captains.iter().map(|c| c.ship).collect();
        assert_eq!(
            ships,
            [
                ship("A1 B1 C1 D1"),
                ship("A3 A4 A5 A6"),
                ship("B2 C3 D4 E5"),
                ship("B5 C4 D3 E2")
            ],
            "BARMY-05, BARMY-06, BARMY-GM-05: every ship where the GM placed it"
        );
    }

    #[test]
    fn bad_placements_are_refused_with_what_is_wrong() {
        // BARMY-04, BARMY-05, BARMY-06, BARMY-GM-04.
        let secret = GameSecret::from_bytes([1; 32]);
        let start = |setup: Setup| {
            Barmy::new_game(&setup, &roster(), &mut secret.turn_dice(0))
                .unwrap_err()
                .to_string()
        };
        let error = start(placed(vec![(1, "R1 S1 T1 U1")]));
        assert!(error.contains("placement for player 1, R1 S1 T1 U1, is not four squares in a line on the 19x19 board"), "{error}");
        let error = start(placed(vec![(1, "A1 B1 C1 D1"), (2, "D1 D2 D3 D4")]));
        assert!(error.contains("players 1 and 2 both cover D1"), "{error}");
        let error = start(placed(vec![(1, "A1 B1 C1 D1"), (1, "A3 B3 C3 D3")]));
        assert!(error.contains("player 1 is placed twice"), "{error}");
        let error = start(placed(vec![(9, "A1 B1 C1 D1")]));
        assert!(
            error.contains("player 9, who is not in the game"),
            "{error}"
        );
        // A setup's placements are checked when it is read by the server too.
        let bad: Result<Setup, _> = serde_json::from_value(
            json!({"placements": [{"player": 1, "ship": ["A1", "B1", "C1"]}]}),
        );
        assert!(bad.is_err());
    }

    #[test]
    fn a_joiner_with_a_placement_gets_it_if_it_is_free() {
        // BARMY-GM-04, BARMY-GM-11.
        let mut setup = placed(vec![(4, "K10 K11 K12 K13"), (5, "E13 E14 E15 E16")]);
        setup.placements.retain(|_| true);
        let state = State::with_ships(
            setup,
            vec![
                (player(1, "Fred Bloggs"), ship("B2 C3 D4 E5")),
                (player(2, "John Smith"), ship("E13 F13 G13 H13")),
            ],
        )
        .unwrap();
        let input = TurnInput::<barmy::Orders> {
            joining: vec![player(4, "Newbie Nell"), player(5, "Late Larry")],
            ..TurnInput::default()
        };
        let secret = GameSecret::from_bytes([2; 32]);
        let next = Barmy::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
        let nell = next.state.captain(PlayerId(4)).unwrap();
        assert_eq!(nell.ship, ship("K10 K11 K12 K13"));
        let larry = next.state.captain(PlayerId(5)).unwrap();
        assert_ne!(larry.ship, ship("E13 E14 E15 E16"), "E13 is John Smith's");
        // Hidden information: the public report does not tell that Larry's placement was
        // taken (that a ship stands on one of its squares); both joiners read alike.
        assert_eq!(
            next.report.notes,
            [
                "Newbie Nell joins the game and fires from turn 2.",
                "Late Larry joins the game and fires from turn 2."
            ]
        );
    }
}

mod exact_scores {
    use super::*;

    #[test]
    fn many_players_sharing_squares_keep_exact_scores() {
        // BARMY-09, BARMY-GM-12: over 25 turns player 1 shares squares with 2, 3, ... 51 players
        // in all; the sum of 1/2 ... 1/51 has a denominator beyond 64 bits (from 1/47 on).
        // A 64-bit fraction overflowed here (the audit saw a score drop from 0.26 to 0.22).
        let players = 64u64;
        let setup = Setup {
            width: 30,
            height: 64,
            ..Setup::default()
        };
        // Player i's ship lies across row i, columns A to D.
        let ships = (1..=players)
            .map(|i| {
                (
                    player(i, &format!("Player {i}")),
                    ship(&format!("A{i} B{i} C{i} D{i}")),
                )
            })
            .collect();
        let mut state = State::with_ships(setup, ships).unwrap();
        let secret = GameSecret::from_bytes([7; 32]);
        for turn in 1..=25u64 {
            // Target: players 52.. two squares each turn, on a ship no sharer owns.
            let target = 52 + (turn - 1) / 2;
            let column = if turn % 2 == 1 {
                ["A", "B"]
            } else {
                ["C", "D"]
            };
            let first = format!("{}{target}", column[0]);
            let second = format!("{}{target}", column[1]);
            let mut input = TurnInput::default();
            for id in 1..=players {
                let mut squares = Vec::new();
                // 2t sharers on the first square, 2t + 1 on the second.
                if id <= 2 * turn {
                    squares.push(first.clone());
                }
                if id <= 2 * turn + 1 {
                    squares.push(second.clone());
                }
                while squares.len() < 2 {
                    squares.push(format!("Z{}", 50 + squares.len()));
                }
                let parsed = Barmy::parse_orders(&state, PlayerId(id), &squares.join(", "));
                input.orders.insert(PlayerId(id), parsed.orders);
            }
            state = Barmy::resolve(&state, &input, &mut secret.turn_dice(turn as u32))
                .unwrap()
                .state;
        }
        let exact = (2..=51u32).fold(BigRational::from_integer(BigInt::from(0)), |sum, k| {
            sum + BigRational::new(BigInt::from(1), BigInt::from(k))
        });
        let score = &state.captain(PlayerId(1)).unwrap().score;
        assert_eq!(
            String::from(score.clone()),
            format!("{}/{}", exact.numer(), exact.denom())
        );
        // H(51) - 1 = 3.5188...
        assert_eq!(score.display(), "3.52");
        // The stored state holds it exactly and reads back.
        let back: State = serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
        assert_eq!(&back.captain(PlayerId(1)).unwrap().score, score);
        // Players 1 and 2 shared every square: equal exact scores, one shared first place.
        let outcome = Barmy::outcome(&state);
        assert_eq!(outcome.standings[0].place, 1);
        assert_eq!(outcome.standings[1].place, 1);
        assert_eq!(outcome.standings[0].score.display(), "3.52");
        assert_eq!(outcome.standings[2].place, 3);
    }
}

mod switches {
    use super::*;

    #[test]
    fn every_switch_is_listed_in_words_whether_set_or_not() {
        // BARMY-17, BARMY-07, BARMY-GM-04: each switch, each way.
        let rules = |setup: &Setup| {
            Barmy::rulings(setup)
                .into_iter()
                .map(|r| (r.rule, r.text))
                .collect::<Vec<_>>()
        };
        let default = rules(&Setup::default());
        assert_eq!(
            default
                .iter()
                .map(|(rule, _)| rule.as_str())
                .collect::<Vec<_>>(),
            ["BARMY-17", "BARMY-07", "BARMY-GM-04"]
        );
        assert!(
            default[0]
                .1
                .contains("fire no shot are a missed turn (NMR), even with press")
        );
        assert!(
            default[1]
                .1
                .contains("one square is accepted, with a warning")
        );
        assert!(default[2].1.contains("at random"));
        let switched = rules(&Setup {
            press_only_is_nmr: false,
            one_shot_allowed: false,
            placements: vec![Placement {
                player: PlayerId(1),
                ship: ship("A1 B1 C1 D1"),
            }],
            ..Setup::default()
        });
        assert!(switched[0].1.contains("Press alone answers a turn"));
        assert!(switched[1].1.contains("one square is refused"));
        assert!(switched[2].1.contains("placed 1 ship by hand"));
    }

    #[test]
    fn a_setup_without_the_switches_reads_with_their_defaults_and_writes_as_before() {
        // BARMY-17, BARMY-07: stored setups and requests from before the switches still read,
        // and a game that uses none stores the same JSON as before.
        let setup: Setup = serde_json::from_str(
            r#"{"width":19,"height":19,"final_turn":null,"show_shares":false}"#,
        )
        .unwrap();
        assert_eq!(setup, Setup::default());
        assert!(setup.press_only_is_nmr && setup.one_shot_allowed);
        assert_eq!(
            serde_json::to_string(&setup).unwrap(),
            r#"{"width":19,"height":19,"final_turn":null,"show_shares":false}"#
        );
        let switched = Setup {
            press_only_is_nmr: false,
            ..Setup::default()
        };
        let back: Setup = serde_json::from_str(&serde_json::to_string(&switched).unwrap()).unwrap();
        assert_eq!(back, switched);
    }
}
