#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Issue 28's skyfleet samples, one named test each, citing the rule it checks: the order
//! check refuses what the turn would refuse (SKY-ADM-22), the turn never charges for an action
//! it cannot make, previews print the turn's figures, and every refusal's example, written in
//! the refused line's place, is accepted (`engine::corrections`).

use std::collections::BTreeMap;

use engine::{Engine, GameSecret, LineIssue, ParsedOrders, Player, PlayerId, TurnInput};
use serde_json::{Value, json};
use skyfleet::orders::{Activation, CmdAction, CmdOrder, Orders, Skip};
use skyfleet::{Skyfleet, State};

mod support;

const ALICE: PlayerId = PlayerId(1);

/// Red's ships in a row 5" apart down the west strip, Tempest and Arrow 15" east of Locker;
/// `before` patches units' state (statuses, places) by name.
fn battle(before: Value) -> State {
    let gunship = |name: &str, y: i32| {
        json!({"name": name, "class": "gunship", "at": [10, y], "heading": 90, "elevation": 5,
               "weapons": {"fwd": "Heavy Lance", "port": "Naval Battery", "stbd": "Naval Battery"},
               "utilities": []})
    };
    let setup = json!({
        "budget": 5000, "deployment_depth": 72,
        "sides": [
            {"name": "Red", "edge": "west", "fleet": [
                gunship("Valiant", 4),
                gunship("Rudder", 9),
                gunship("Drifter", 14),
                {"name": "Launcher", "class": "command", "at": [10, 19], "heading": 90, "elevation": 5,
                 "weapons": {"fwd": "Torpedo Launcher", "aft": "Flak Cannon"},
                 "utilities": ["Hangar", "Compressed Gas"],
                 "wings": [{"name": "Hawk", "weapons": ["Machine Guns", "Bombs", "Rockets"]}]},
                gunship("Locker", 24),
                {"name": "Lamed", "class": "escort", "at": [10, 29], "heading": 90, "elevation": 5,
                 "weapons": {"turret": "Flak"}, "utilities": []},
                gunship("Far", 44)
            ]},
            {"name": "Blue", "edge": "east", "fleet": [
                {"name": "Tempest", "class": "gunship", "at": [25, 24], "heading": 270, "elevation": 5,
                 "weapons": {"fwd": "Heavy Lance"}, "utilities": []},
                {"name": "Arrow", "class": "escort", "at": [25, 30], "heading": 270, "elevation": 5,
                 "weapons": {"turret": "Flak"}, "utilities": []}
            ]}
        ]
    });
    let start: support::Start =
        serde_json::from_value(json!({"setup": setup, "before": before})).unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: ["Alice", "Bob"][id as usize - 1].into(),
    });
    support::start(&start, &players).unwrap()
}

/// Alice's orders, read; every example of every refusal must be accepted in its place.
fn read(state: &State, text: &str) -> ParsedOrders<Orders> {
    let broken = engine::corrections::failures::<Skyfleet>(state, ALICE, text);
    assert!(
        broken.is_empty(),
        "{text:?}: corrections refused in their turn: {broken:#?}"
    );
    Skyfleet::parse_orders(state, ALICE, text)
}

/// The one refusal of `text`, which must contain `problem`; its examples are returned.
fn refused(state: &State, text: &str, problem: &str) -> LineIssue {
    let parsed = read(state, text);
    let issue = parsed
        .errors
        .iter()
        .find(|e| e.problem.contains(problem))
        .unwrap_or_else(|| panic!("{text:?}: no refusal {problem:?} in {:#?}", parsed.errors))
        .clone();
    // A refused line is never also confirmed.
    for understood in &parsed.understood {
        assert!(
            !understood.contains(": Full Ahead")
                || !problem.contains("Full Ahead")
                || !understood.starts_with(text.split(':').next().unwrap()),
            "{understood:?} confirmed beside {issue:#?}"
        );
    }
    issue
}

fn examples(issue: &LineIssue) -> Vec<String> {
    engine::corrections::examples(issue)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// Resolves hand-made orders for Alice (as if they had never met the check) and returns her
/// ship's row and the ship after the turn.
fn turn(state: &State, activation: Activation) -> (String, skyfleet::Unit) {
    let unit = activation.unit;
    let mut input: TurnInput<Orders> = TurnInput::default();
    let mut hold = Orders::default();
    for u in &state.units {
        if u.side == 0 && u.id != unit && u.in_play() {
            let mut a = Activation::hold(u.id);
            a.hold_fire = true;
            hold.activations.push(a);
        }
    }
    let mut orders = Orders::default();
    orders.activations.push(activation);
    orders.activations.extend(hold.activations);
    input.orders = BTreeMap::from([(ALICE, orders)]);
    let secret = GameSecret::from_bytes([7; 32]);
    let resolution = Skyfleet::resolve(state, &input, &mut secret.turn_dice(1)).unwrap();
    let name = state.unit(unit).unwrap().name.clone();
    let row = resolution
        .report
        .rows
        .iter()
        .find(|r| r.name.contains(&format!(": {name} (")))
        .map(|r| r.result.clone())
        .unwrap_or_default();
    (row, resolution.state.unit(unit).unwrap().clone())
}

fn id(state: &State, name: &str) -> skyfleet::UnitId {
    state.units.iter().find(|u| u.name == name).unwrap().id
}

#[test]
fn sky_crit_4_hard_around_with_rudder_loss_is_refused_and_never_charged() {
    let state = battle(json!({"Rudder": {"status": {"rudder_loss": true}}}));
    let issue = refused(
        &state,
        "Rudder: CMD HARDAROUND P -45",
        "Rudder has lost its rudder and cannot turn (SKY-CRIT-4)",
    );
    assert_eq!(examples(&issue), ["Rudder: DC PRIORITY RUDDER"]);
    let mut activation = Activation::hold(id(&state, "Rudder"));
    activation.actions.push(CmdOrder {
        action: CmdAction::HardAround(skyfleet::orders::PivotSpec::By(skyfleet::Turn::degrees(
            -45,
        ))),
        payer: None,
    });
    let (row, after) = turn(&state, activation);
    assert!(
        row.contains("Hard Around: refused, Rudder has lost its rudder"),
        "{row}"
    );
    assert_eq!(after.this_turn.cmd_spent, 0, "{row}");
}

#[test]
fn sky_crit_4_a_refused_turn_is_offered_a_straight_move() {
    let state = battle(json!({"Rudder": {"status": {"rudder_loss": true}}}));
    let issue = refused(
        &state,
        "Rudder: MOVE F 3 P +45 F 4",
        "cannot turn (SKY-CRIT-4)",
    );
    assert_eq!(examples(&issue), ["Rudder: MOVE F 7"]);
}

#[test]
fn sky_scrit_4_a_drifting_ship_is_refused_full_ahead_emergency_skip_move_and_a_move() {
    let state = battle(json!({"Drifter": {"status": {"drifting": true}}}));
    let text = "Drifter\nCMD FULLAHEAD\nCMD EMERGENCY SKIP MOVE\nMOVE F 3 P +45 F 4";
    let parsed = read(&state, text);
    let problems: Vec<&str> = parsed.errors.iter().map(|e| e.problem.as_str()).collect();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(
        problems[0].contains("Drifter is Drifting and can no longer move or turn (SKY-SCRIT-4)")
    );
    assert!(problems[1].contains("Drifter is Drifting"));
    assert!(problems[2].contains("Drifter is Drifting and cannot move or turn (SKY-SCRIT-4)"));
    // SKIP SHOOT gives something up; the move's fix is to hold.
    assert_eq!(examples(&parsed.errors[1]), ["CMD EMERGENCY SKIP SHOOT"]);
    assert_eq!(examples(&parsed.errors[2]), ["HOLD"]);
    assert!(
        parsed
            .understood
            .iter()
            .all(|u| !u.contains("Full Ahead") && !u.contains("moves")),
        "{:#?}",
        parsed.understood
    );
    // The turn, given the orders anyway, charges nothing and gives no dice for nothing.
    let mut activation = Activation::hold(id(&state, "Drifter"));
    for action in [
        CmdAction::FullAhead,
        CmdAction::EmergencyRepairs(Skip::Move),
    ] {
        activation.actions.push(CmdOrder {
            action,
            payer: None,
        });
    }
    let (row, after) = turn(&state, activation);
    assert!(
        row.contains("Full Ahead: refused, Drifter is Drifting"),
        "{row}"
    );
    assert!(
        row.contains("Emergency Repairs: refused, Drifter is Drifting"),
        "{row}"
    );
    assert_eq!(after.this_turn.cmd_spent, 0, "{row}");
}

#[test]
fn sky_scrit_5_launch_torpedo_with_weapons_down_and_sky_scrit_6_launch_wing_with_utilities_down() {
    let state =
        battle(json!({"Launcher": {"status": {"weapons_down": true, "utilities_down": true}}}));
    let torpedo = refused(
        &state,
        "Launcher: CMD LAUNCHTORPEDO",
        "Launcher's weapons are down (SKY-SCRIT-5)",
    );
    assert_eq!(examples(&torpedo), ["Launcher: DC PRIORITY WEAPONSDOWN"]);
    let wing = refused(
        &state,
        "Launcher: CMD LAUNCHWING",
        "Launcher's utilities are down (SKY-SCRIT-6)",
    );
    assert_eq!(examples(&wing), ["Launcher: DC PRIORITY UTILITIESDOWN"]);
    // Compressed Gas, disabled by the same critical, was refused already; it still is.
    refused(
        &state,
        "Launcher: CMD COMPRESSEDGAS",
        "Launcher's utilities are down (SKY-SCRIT-6)",
    );
    let mut activation = Activation::hold(id(&state, "Launcher"));
    for action in [CmdAction::LaunchTorpedo, CmdAction::LaunchWing(None)] {
        activation.actions.push(CmdOrder {
            action,
            payer: None,
        });
    }
    let (row, after) = turn(&state, activation);
    assert!(row.contains("Launch Torpedo: refused"), "{row}");
    assert!(row.contains("Launch Wing: refused"), "{row}");
    assert_eq!(after.this_turn.cmd_spent, 0, "{row}");
}

#[test]
fn sky_cmd_03_fire_beside_skip_shoot_is_refused_not_silently_dropped() {
    let state = battle(json!({}));
    let parsed = read(
        &state,
        "Locker: CMD EMERGENCY SKIP SHOOT\nFIRE ALL AT Tempest",
    );
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert!(
        parsed.errors[0].problem.contains(
            "Locker gives up shooting this activation for Emergency Repairs (SKY-CMD-03)"
        )
    );
    assert_eq!(parsed.errors[0].line, 2);
    assert_eq!(examples(&parsed.errors[0]), ["HOLD FIRE"]);
    assert!(
        parsed.understood.iter().all(|u| !u.contains("fires")),
        "{:#?}",
        parsed.understood
    );
    assert!(parsed.orders.activations[0].fire.is_empty());
}

#[test]
fn sky_cmd_05_target_lock_with_hold_fire_is_refused_and_unpaid() {
    let state = battle(json!({}));
    let parsed = read(&state, "Locker: CMD TARGETLOCK fwd\nHOLD FIRE");
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert!(
        parsed.errors[0]
            .problem
            .contains("the fwd does not fire this activation")
    );
    assert_eq!(examples(&parsed.errors[0]), ["Locker: FIRE fwd AT NEAREST"]);
    assert!(parsed.orders.activations[0].actions.is_empty());
    // The turn, given it anyway, refuses it unpaid.
    let mut activation = Activation::hold(id(&state, "Locker"));
    activation.hold_fire = true;
    activation.actions.push(CmdOrder {
        action: CmdAction::TargetLock(vec!["fwd".into()]),
        payer: None,
    });
    let (row, after) = turn(&state, activation);
    assert!(
        row.contains("Target Lock: refused, the fwd does not fire this activation"),
        "{row}"
    );
    assert_eq!(after.this_turn.cmd_spent, 0, "{row}");
}

#[test]
fn sky_cmd_01_from_a_ship_18_inches_away_is_refused() {
    let state = battle(json!({}));
    // 18" between base edges: Far at y 44 and Locker at y 24 (bases 2" wide).
    let issue = refused(
        &state,
        "Locker: CMD FULLAHEAD FROM Far",
        "Far is 18\" from Locker, and CMD reaches 12\" (SKY-CMD-01)",
    );
    assert_eq!(examples(&issue), ["Locker: CMD FULLAHEAD"]);
    let issue = refused(
        &state,
        "Locker\nCMD BRACE FROM Far",
        "Far is 18\" from Locker",
    );
    assert_eq!(examples(&issue), ["CMD BRACE"]);
    // A payer who moves first in the list may come within reach: left to the turn.
    let parsed = read(&state, "Far: MOVE F 3\nLocker: CMD BRACE FROM Far");
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
}

#[test]
fn sky_cmd_08_a_rally_at_13_inches_is_refused_and_a_broken_ship_is_called_broken() {
    let state = battle(
        json!({"Far": {"status": {"morale": "shaken"}}, "Drifter": {"status": {"morale": "broken"}}}),
    );
    // Lamed's base (1.5") and Far's (2") 15" apart at their centres: 13.25" between edges.
    let issue = refused(
        &state,
        "Lamed: CMD RALLY Far",
        "Far is 13.25\" from Lamed, and CMD reaches 12\"",
    );
    assert!(issue.expected.contains("within 12"), "{issue:#?}");
    // Drifter is Broken: not "not Shaken", and the fix is not the same Rally (SKY-ADM-04).
    let issue = refused(
        &state,
        "Rudder: CMD RALLY Drifter",
        "Drifter is Broken, and Rally removes only Shaken",
    );
    assert!(!issue.problem.contains("not Shaken"), "{issue:#?}");
    assert!(!issue.expected.contains("RALLY"), "{issue:#?}");
    let own = refused(&state, "Drifter: CMD RALLY Drifter", "Drifter is Broken");
    assert_eq!(examples(&own), ["Drifter: DC PRIORITY BROKEN"]);
}

#[test]
fn sky_gm_11_refused_moves_are_not_understood_and_sky_crit_3_the_example_fits_the_speed_left() {
    // Two Speed Loss: an Escort's 10" is 6".
    let state = battle(json!({"Lamed": {"status": {"speed_loss": 2}}}));
    let parsed = read(&state, "Lamed: MOVE F 2 P +90 F 8");
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert!(
        parsed.errors[0]
            .problem
            .contains("that move needs 10\" but Lamed has 6\"")
    );
    assert_eq!(examples(&parsed.errors[0]), ["Lamed: MOVE F 3 P +90 F 3"]);
    assert!(
        parsed.understood.iter().all(|u| !u.contains("moves")),
        "{:#?}",
        parsed.understood
    );
    // A second MOVE replaces the first: the first is no longer understood either.
    let parsed = read(&state, "Lamed: MOVE F 2\nMOVE F 20");
    assert!(
        parsed.understood.iter().all(|u| !u.contains("moves")),
        "{:#?}",
        parsed.understood
    );
}

#[test]
fn sky_cmd_05_the_preview_counts_a_target_lock_on_the_same_line() {
    let state = battle(json!({}));
    let parsed = read(&state, "Locker: CMD TARGETLOCK fwd; FIRE fwd AT Tempest");
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    // A Gunship's 4+ with the lock's +1 (SKY-GM-05): the turn fires at 3+.
    assert!(
        parsed.understood.iter().any(|u| u
            .contains("Heavy Lance (fwd) at Tempest (range 13\", 3+ now with the Target Lock)")),
        "{:#?}",
        parsed.understood
    );
    let later = read(&state, "Locker: FIRE fwd AT Tempest\nCMD TARGETLOCK fwd");
    assert!(
        later
            .understood
            .iter()
            .any(|u| u.contains("3+ now with the Target Lock")),
        "{:#?}",
        later.understood
    );
    let unlocked = read(&state, "Locker: FIRE fwd AT Tempest");
    assert!(
        unlocked
            .understood
            .iter()
            .any(|u| u.contains("(range 13\", 4+ now)")),
        "{:#?}",
        unlocked.understood
    );
}
