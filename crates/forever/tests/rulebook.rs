#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The rulebook: the GM's switches of the setup, each tested both ways and listed in words by
//! `Forever::rulings`, and the faults of the second audit that the switches sit beside.

mod common;

use common::{ALICE, play, ship};
use engine::Engine;
use forever::{Forever, Setup, State};
use serde_json::{Value, json};

const RAM: &[&str] = &[
    "SHIP Ram",
    "CORE",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) HP+6",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT THRUSTER(thrust 40)",
];

const HULK: &[&str] = &[
    "SHIP Hulk",
    "CORE HP+3",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) HP+4",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) HP+4",
];

/// A game from fleets given as (design, name, x, y, facing) and extra setup fields, past the
/// opening turn.
fn game(
    alice: &[(&[&str], &str, f64, f64, i64)],
    bob: &[(&[&str], &str, f64, f64, i64)],
    extra: Value,
) -> State {
    let fleet = |ships: &[(&[&str], &str, f64, f64, i64)]| {
        let ships: Vec<Value> = ships
            .iter()
            .map(|(design, name, x, y, facing)| {
                json!({"design": design, "name": name, "at": [x, y], "facing": facing})
            })
            .collect();
        json!({ "ships": ships })
    };
    let mut setup = json!({ "fleets": [fleet(alice), fleet(bob)] });
    if let (Some(setup), Some(extra)) = (setup.as_object_mut(), extra.as_object()) {
        setup.extend(extra.clone());
    }
    let mut state = common::start(setup);
    state.round = 1;
    state
}

fn ruling(setup: &Setup, rule: &str) -> String {
    Forever::rulings(setup)
        .into_iter()
        .find(|r| r.rule == rule)
        .unwrap_or_else(|| panic!("no ruling {rule}"))
        .text
}

/// A column: the follower (placed first, so the lower id) 1" behind its leader.
fn column(extra: Value) -> State {
    game(
        &[
            (RAM, "Follower", 10.0, 24.0, 0),
            (RAM, "Leader", 15.0, 24.0, 0),
        ],
        &[(HULK, "Hulk", 60.0, 40.0, 0)],
        extra,
    )
}

const ADVANCE: &str = "MOVE1 Leader BY 5, 0\nMOVE1 Follower BY 5, 0";

#[test]
fn forever_move1_1_a_column_moves_in_the_order_written() {
    let state = column(json!({}));
    let (after, report) = play(&state, &[(ALICE, ADVANCE)], &[]);
    assert_eq!(ship(&after, "Leader").at.x, 2000);
    assert_eq!(ship(&after, "Follower").at.x, 1500, "{}", report.to_text());
    assert!(!report.to_text().contains("rammed"), "{}", report.to_text());
    assert!(
        ruling(&Setup::default(), "FOREVER-MOVE1-1")
            .contains("in the order their movement lines are written")
    );
}

#[test]
fn forever_move1_1_switched_ships_move_by_id() {
    let state = column(json!({"move_order": "by_id"}));
    let (after, report) = play(&state, &[(ALICE, ADVANCE)], &[]);
    // The follower moves first and runs into its leader after 1".
    assert_eq!(ship(&after, "Follower").at.x, 1100);
    assert!(report.to_text().contains("rammed"), "{}", report.to_text());
    assert!(ruling(&state.setup, "FOREVER-MOVE1-1").contains("by ship id"));
}

/// Alice's Ram far away; Bob's Hulk at (60, 40), its S2 spanning x 58..59, y 39.5..40.5.
fn hulk_game(extra: Value) -> State {
    game(
        &[(RAM, "Ram", 10.0, 10.0, 0)],
        &[(HULK, "Hulk", 60.0, 40.0, 0)],
        extra,
    )
}

#[test]
fn forever_jet_3_a_body_that_rams_something_goes_on_drifting() {
    use forever::design::Points;
    use forever::geometry::{Point, Polygon};
    use forever::state::{Body, BodySection};
    let mut state = hulk_game(json!({}));
    // A 1" square 1" short of the Hulk's S2, drifting straight at it (mass 6).
    state.bodies.push(Body {
        id: 90,
        owner: common::BOB,
        ship: "Wreck".into(),
        sections: vec![BodySection {
            name: "S9".into(),
            part: 1,
            hp: 1,
            base_hp: 1,
            mass16: 96,
            shape: Polygon::rect(5600, 3950, 5700, 4050),
            value: Points::ZERO,
            destroyed: false,
        }],
        heading: Point::new(100, 0),
        credit: None,
        towed_by: None,
        gone: false,
    });
    // 3d6 = 3: 3 × 10 ÷ 6 = 5", cut to 1" by the Hulk.
    let (after, report) = play(&state, &[], &[1, 1, 1]);
    assert_eq!(
        after.bodies[0].sections[0].shape.centre(),
        Point::new(5750, 4000)
    );
    assert!(report.to_text().contains("rammed"), "{}", report.to_text());
    // A round later it is touching the Hulk: it glances off and goes on, not "drifted 0"".
    let (later, report) = play(&after, &[], &[1, 1, 1]);
    let centre = later.bodies[0].sections[0].shape.centre();
    assert_ne!(centre, Point::new(5750, 4000), "{}", report.to_text());
    assert_eq!(
        common::result(&report, "Bob: Wreck/J90"),
        "drifted 5\" (3d6 3 × 10 ÷ mass 6), glancing off Hulk.S2"
    );
    assert_eq!(later.bodies[0].heading, Point::new(100, 0));
}

#[test]
fn forever_ter_2_a_meteor_that_survives_a_ram_is_not_pinned() {
    use forever::geometry::Point;
    use forever::state::{Meteor, MeteorGroup};
    let mut state = hulk_game(json!({"meteors": true}));
    state.meteor_groups.push(MeteorGroup {
        id: 91,
        heading: Point::new(100, 0),
        meteors: vec![Meteor {
            id: 92,
            at: Point::new(5700, 4000),
            hp: 3,
        }],
    });
    // The meteor check shows a hit (D6 1: no new shower); the group moves 3d6 = 3", rams the
    // Hulk after 1/2" and survives.
    let (after, report) = play(&state, &[], &[1, 1, 1, 1]);
    assert!(report.to_text().contains("rammed"), "{}", report.to_text());
    let pinned = after.meteor_groups[0].meteors[0].at;
    assert!(after.meteor_groups[0].meteors[0].hp > 0);
    let (later, report) = play(&after, &[], &[1, 1, 1, 1]);
    assert_ne!(
        later.meteor_groups[0].meteors[0].at,
        pinned,
        "{}",
        report.to_text()
    );
    assert!(
        report.to_text().contains("glanced off Hulk"),
        "{}",
        report.to_text()
    );
}

const FLUXER: &[&str] = &[
    "SHIP Fluxer",
    "CORE HP+2",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT FLUX",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) HP+4",
];

#[test]
fn forever_mod_flux_6_the_order_check_counts_the_turns_recharge() {
    let mut state = game(
        &[(FLUXER, "Fluxer", 10.0, 10.0, 0)],
        &[(HULK, "Hulk", 60.0, 40.0, 0)],
        json!({}),
    );
    state.ships[0].items[0].energy = Some(2);
    // 2 left of 8, recharge 1d6: a 5" line may be paid for after the recharge.
    let parsed = Forever::parse_orders(&state, ALICE, "FLUX Fluxer.S1 BEARING 0 LEN 5");
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert!(
        parsed.warnings[0]
            .problem
            .contains("the projector has 2 energy now: the line is drawn only if the recharge at the start of your turn (1d6) brings at least 3 more"),
        "{:#?}",
        parsed.warnings
    );
    // The recharge D6 shows 4: 6 energy, the 5" line is drawn.
    let (after, report) = play(&state, &[(ALICE, "FLUX Fluxer.S1 BEARING 0 LEN 5")], &[4]);
    assert_eq!(after.flux_lines.len(), 1, "{}", report.to_text());
    assert_eq!(after.ships[0].items[0].energy, Some(1));
    // Beyond the pool itself, it is refused.
    let nine = Forever::parse_orders(&state, ALICE, "FLUX Fluxer.S1 BEARING 0 LEN 9");
    assert!(
        nine.errors[0]
            .problem
            .contains("the projector holds at most 8"),
        "{:#?}",
        nine.errors
    );
}

const CARRIER: &[&str] = &[
    "SHIP Carrier",
    "CORE",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT LAUNCHER",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT CONTROL",
];

const GUARD: &[&str] = &[
    "SHIP Guard",
    "CORE HP+2",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) HP+4 MOUNT GUN",
    "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT DEFLECTOR",
];

#[test]
fn forever_mod_def_2_a_demeters_shot_triggers_a_standing_deflector() {
    let mut state = game(
        &[(CARRIER, "Carrier", 10.0, 24.0, 0)],
        &[(GUARD, "Guard", 22.0, 24.0, 180)],
        json!({}),
    );
    state.round = 0;
    let (state, _) = play(
        &state,
        &[
            (ALICE, "LAUNCH Carrier.S1 TO 20, 24"),
            (common::BOB, "DEFLECT Guard.S2 PROTECT S1"),
        ],
        &[],
    );
    // The spent deflector rolls to recharge at the start of Bob's player-turn: D6 6, no.
    let (after, report) = play(
        &state,
        &[(ALICE, "DEMETER Carrier/D1 FIRE AT Guard.S1")],
        &[6],
    );
    let text = report.to_text();
    assert_eq!(common::hp(&after, "Guard", "S1"), 5, "{text}");
    assert!(
        common::result(&report, "Alice: Carrier/D1").contains("Guard's deflector"),
        "{text}"
    );
}

#[test]
fn forever_gm_26_a_ship_swallowed_by_a_black_hole_loses_its_demeters() {
    use forever::geometry::Point;
    use forever::state::Demeter;
    // The Carrier's nearest edge is 1.5" from the Maw: it is swallowed at the start of
    // Alice's player-turn (FOREVER-GM-41, FOREVER-ADM-06). Its demeter is 20" away.
    let mut state = game(
        &[(CARRIER, "Carrier", 30.0, 24.0, 0)],
        &[(HULK, "Hulk", 60.0, 40.0, 0)],
        json!({"black_holes": [{"name": "Maw", "at": [33.5, 24]}]}),
    );
    let id = state.ships[0].id;
    state.demeters.push(Demeter {
        name: "Carrier/D1".into(),
        owner: ALICE,
        ship: id,
        at: Point::new(1000, 1000),
        hp: 1,
        speed: 600,
        expires_after: 9,
        gone: false,
    });
    let (after, report) = play(&state, &[], &[]);
    assert!(ship(&after, "Carrier").destroyed, "{}", report.to_text());
    assert!(after.demeters.is_empty(), "{}", report.to_text());
    assert!(
        common::result(&report, "Alice: Carrier").contains("Carrier/D1 lost with its ship"),
        "{}",
        report.to_text()
    );
}

#[test]
fn forever_gm_43_the_winner_stands_above_a_player_who_resigned_with_more_points() {
    use forever::design::Points;
    let mut state = hulk_game(json!({}));
    state.seats[0].score = Points::whole(50);
    state.seats[1].score = Points::whole(3);
    let (after, report) = play(&state, &[(ALICE, "RESIGN")], &[]);
    let outcome = Forever::outcome(&after);
    assert!(outcome.finished, "{}", report.to_text());
    assert_eq!(outcome.winners, vec![common::BOB]);
    let places: Vec<(&str, u32, &str)> = outcome
        .standings
        .iter()
        .map(|s| (s.name.as_str(), s.place, s.status.as_str()))
        .collect();
    assert_eq!(
        places,
        [("Bob", 1, "1 ship in play"), ("Alice", 2, "resigned")]
    );
}

#[test]
fn forever_gm_02_alternate_orders_out_of_turn_are_refused_saying_whose_turn_it_is() {
    let state = game(
        &[(RAM, "Ram", 10.0, 10.0, 0)],
        &[(GUARD, "Guard", 60.0, 40.0, 0)],
        json!({"turn_mode": "alternate"}),
    );
    // This PBEM turn is Alice's player-turn (she goes first).
    let bob = Forever::parse_orders(
        &state,
        common::BOB,
        "MOVE1 Guard BY 1, 0\nFIRE Guard.S1 AT Ram.core\nDEFLECT Guard.S2 PROTECT S1",
    );
    assert_eq!(bob.errors.len(), 2, "{:#?}", bob.errors);
    for error in &bob.errors {
        assert!(
            error
                .problem
                .starts_with("this turn is Alice's player-turn"),
            "{error:?}"
        );
    }
    assert!(
        bob.understood.iter().any(|u| u.contains("deflector")),
        "{:#?}",
        bob.understood
    );
    let alice = Forever::parse_orders(&state, ALICE, "MOVE1 Ram BY 1, 0");
    assert!(alice.errors.is_empty(), "{:#?}", alice.errors);
}

#[test]
fn forever_adm_21_examples_name_the_players_own_ships_and_a_blank_line_does_not_end_a_design() {
    let state = game(
        &[(RAM, "Ram", 10.0, 10.0, 0)],
        &[(GUARD, "Guard", 60.0, 40.0, 0)],
        json!({}),
    );
    // Bob's examples name his Guard, and Alice's Ram as the enemy: never Lancer or Anvil.
    let bob = Forever::parse_orders(&state, common::BOB, "FIRE Guard.S1\nMOVE1 Nowhere BY 1, 0");
    assert_eq!(bob.errors.len(), 2, "{:#?}", bob.errors);
    // Ram has no S3: the example names a section she has (issue 28: `Ram.S3` was offered).
    assert_eq!(bob.errors[0].expected, "`FIRE Guard.S1 AT Ram.core`");
    assert_eq!(bob.errors[1].expected, "`MOVE1 Guard BY 1, 0`");
    assert_eq!(
        engine::corrections::failures::<Forever>(
            &state,
            common::BOB,
            "FIRE Guard.S1\nMOVE1 Nowhere BY 1, 0"
        ),
        vec![]
    );
    // FOREVER-GM-44 with the examples: while building, only the player's own design is named.
    let building = common::start(json!({}));
    let design = "SHIP Scout\nCORE\n\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN\n\nDEPLOY Scout AT 10, 24\nFIRE Scout.S1 AT 1, 1";
    let parsed = Forever::parse_orders(&building, ALICE, design);
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    // The middle of Alice's strip, the left half of the 72" table (FOREVER-ADM-17).
    assert_eq!(
        parsed.errors[0].expected,
        "`DEPLOY Scout AT 18, 24 FACING 0`"
    );
    // The blank lines inside the design did not cut it short: its section is there.
    assert!(
        parsed
            .understood
            .iter()
            .any(|u| u.starts_with("design Scout: 7.5 points, 1 section,")),
        "{:#?}",
        parsed.understood
    );
}

#[test]
fn forever_gm_46_an_nmr_is_noted_in_the_report() {
    let state = hulk_game(json!({}));
    let (_, report) = play(&state, &[(ALICE, "MOVE1 Ram BY 1, 0")], &[]);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n == "Bob sent no orders (NMR): their ships hold; automatic effects and standing orders still apply (FOREVER-GM-46)."),
        "{}",
        report.to_text()
    );
    assert!(
        !report
            .notes
            .iter()
            .any(|n| n.starts_with("Alice sent no orders"))
    );
}

#[test]
fn forever_wpn_msl_5_the_blast_reaches_the_bought_damage_or_the_base_1_inch() {
    use forever::battle::shooting::{missile_damage, missile_damage_within};
    // Damage 4, a section 1.5" away: ⌊4 ÷ 3⌋ = 1 within a 4" blast; nothing within 1".
    assert_eq!(missile_damage(4, 150), 1);
    assert_eq!(missile_damage_within(4, 100, 150), 0);
    assert_eq!(missile_damage_within(4, 100, 100), 2);
    assert!(ruling(&Setup::default(), "FOREVER-WPN-MSL-5").contains("the damage bought"));
    let base: Setup = serde_json::from_value(json!({"missile_radius": "base"})).unwrap();
    assert!(ruling(&base, "FOREVER-WPN-MSL-5").contains("reaches 1\""));
}

/// A ship whose core leads: its only section is behind it, its thruster on the core.
const BUTT: &[&str] = &[
    "SHIP Butt",
    "CORE MOUNT THRUSTER",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (-1.5, 0)",
];

fn core_first(extra: Value) -> State {
    game(
        &[(BUTT, "Butt", 10.0, 24.0, 0)],
        &[(HULK, "Hulk", 15.0, 24.0, 0)],
        extra,
    )
}

#[test]
fn forever_ram_2_a_move_that_would_ram_with_the_core_is_refused() {
    let (after, report) = play(
        &core_first(json!({})),
        &[(ALICE, "MOVE1 Butt BY 3, 0")],
        &[],
    );
    assert_eq!(ship(&after, "Butt").at.x, 1000);
    assert!(
        report.to_text().contains("FOREVER-RAM-2"),
        "{}",
        report.to_text()
    );
    assert!(ruling(&Setup::default(), "FOREVER-RAM-2").contains("may not ram with its core"));
}

#[test]
fn forever_ram_2_switched_the_core_rams() {
    let state = core_first(json!({"core_ramming": "allowed"}));
    let (after, report) = play(&state, &[(ALICE, "MOVE1 Butt BY 3, 0")], &[]);
    assert_eq!(ship(&after, "Butt").at.x, 1200, "{}", report.to_text());
    assert!(
        common::result(&report, "Alice: Butt").contains("Butt.core rammed Hulk.S2"),
        "{}",
        report.to_text()
    );
    assert!(ruling(&state.setup, "FOREVER-RAM-2").contains("may ram with its core"));
}

#[test]
fn forever_play_1_the_first_player_is_fixed_or_alternates_by_round() {
    let fixed = hulk_game(json!({}));
    let (after, _) = play(&fixed, &[], &[]);
    assert_eq!(after.seating, [ALICE, common::BOB]);
    assert!(ruling(&fixed.setup, "FOREVER-PLAY-1").contains("holds for the whole game"));
    let turning = hulk_game(json!({"first_player": "alternating"}));
    let (after, _) = play(&turning, &[], &[]);
    assert_eq!(after.seating, [common::BOB, ALICE]);
    let (after, _) = play(&after, &[], &[]);
    assert_eq!(after.seating, [ALICE, common::BOB]);
    assert!(ruling(&turning.setup, "FOREVER-PLAY-1").contains("turns by one seat every round"));
}

fn drifting(extra: Value) -> State {
    use forever::design::Points;
    use forever::geometry::{Point, Polygon};
    use forever::state::{Body, BodySection};
    let mut state = hulk_game(extra);
    state.bodies.push(Body {
        id: 90,
        owner: common::BOB,
        ship: "Wreck".into(),
        sections: vec![BodySection {
            name: "S9".into(),
            part: 1,
            hp: 1,
            base_hp: 1,
            mass16: 96,
            shape: Polygon::rect(3000, 2000, 3100, 2100),
            value: Points::ZERO,
            destroyed: false,
        }],
        heading: Point::new(0, 100),
        credit: None,
        towed_by: None,
        gone: false,
    });
    state
}

#[test]
fn forever_jet_4_bodies_drift_once_a_round_or_every_player_turn() {
    use forever::geometry::Point;
    // 3d6 = 3 with mass 6: 5" a drift.
    let state = drifting(json!({}));
    let (after, _) = play(&state, &[], &[1, 1, 1]);
    assert_eq!(
        after.bodies[0].sections[0].shape.centre(),
        Point::new(3050, 2550)
    );
    assert!(ruling(&state.setup, "FOREVER-JET-4").contains("once a round"));
    let state = drifting(json!({"drift": "per_player_turn"}));
    let (after, _) = play(&state, &[], &[1, 1, 1, 1, 1, 1]);
    assert_eq!(
        after.bodies[0].sections[0].shape.centre(),
        Point::new(3050, 3050)
    );
    assert!(ruling(&state.setup, "FOREVER-JET-4").contains("every player-turn"));
}

#[test]
fn every_switch_is_listed_in_the_rulebook() {
    let rules: Vec<String> = Forever::rulings(&Setup::default())
        .into_iter()
        .map(|r| r.rule)
        .collect();
    assert_eq!(
        rules,
        [
            "FOREVER-MOVE1-1",
            "FOREVER-WPN-MSL-5",
            "FOREVER-PLAY-1",
            "FOREVER-RAM-2",
            "FOREVER-GM-38",
            "FOREVER-JET-4"
        ]
    );
}

/// Four identical guns of range 30": two ahead of the core, two on the section beside them.
const GUNLINE: &[&str] = &[
    "SHIP Gunline",
    "CORE",
    "SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT GUN(range 30) MOUNT GUN(range 30)",
    "SECTION S2 PARENT S1 SIZE 2x1 AT (2, 1) MOUNT GUN(range 30) MOUNT GUN(range 30)",
];

/// How many of the battery's four shots hit the Hulk, and the report.
fn battery_shots(extra: Value) -> (String, usize) {
    // S1's guns at (12, 24) place the marker 10" (their accuracy) toward the aim, at (22, 24)
    // with no scatter; S2's guns at (12, 25) fire the shifted shots. The Hulk's S2, nearer,
    // spans x 16..17, y 23.5..24.5.
    let state = game(
        &[(GUNLINE, "Gunline", 10.0, 24.0, 0)],
        &[(HULK, "Hulk", 18.0, 24.0, 0)],
        extra,
    );
    let order = "BATTERY Gunline.S1/1, S1/2, S2/1, S2/2 AT 40, 24";
    let (_, report) = play(&state, &[(ALICE, order)], &[0, 1]);
    let row = report
        .rows
        .iter()
        .find(|row| row.coord.contains("battery"))
        .expect("the battery's row");
    (report.to_text(), row.result.matches(": Hulk.").count())
}

#[test]
fn forever_gm_38_battery_offsets_at_the_marker_three_shots_hit_the_near_target() {
    // The centre shots hit; the +1" shot, from (12, 25) through (22, 23), crosses the Hulk's
    // front at y 24.2 and hits; the −1" one, through (22, 25), passes above.
    let (text, hits) = battery_shots(json!({}));
    assert_eq!(hits, 3, "{text}");
    assert!(ruling(&Setup::default(), "FOREVER-GM-38").contains("at the marker"));
}

#[test]
fn forever_gm_38_switched_battery_offsets_at_the_impact_spread_the_shots_where_they_land() {
    // The first shot lands at (16, 24): the shifted shots go through (16, 23) and (16, 25),
    // beside the Hulk's 1"-wide section; only the two centre shots hit.
    let (text, hits) = battery_shots(json!({"battery_offsets": "impact"}));
    assert_eq!(hits, 2, "{text}");
    let switched: Setup = serde_json::from_value(json!({"battery_offsets": "impact"})).unwrap();
    assert!(ruling(&switched, "FOREVER-GM-38").contains("where they land"));
}
