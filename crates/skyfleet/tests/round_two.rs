#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The second audit's findings (issue 19), each test citing the rule it checks: hidden wings
//! that must read as made-up names, names with filler words, Target Lock on one weapon, a
//! refused lock never paid, a Broken ship's Emergency Repairs, and the order check after Stall.

use engine::{Engine, GameSecret, ParsedOrders, Player, PlayerId, TurnDice, TurnInput};
use skyfleet::orders::{Activation, CmdAction, CmdOrder, Orders, Skip, Target};
use skyfleet::state::{Morale, Place};
use skyfleet::{Point, Setup, Skyfleet, State, UnitId};

const ALICE: PlayerId = PlayerId(1);
const BOB: PlayerId = PlayerId(2);

fn players() -> [Player; 2] {
    [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: ["Alice", "Bob"][id as usize - 1].into(),
    })
}

fn start(setup: &Setup) -> State {
    Skyfleet::new_game(setup, &players(), &mut TurnDice::scripted([], [])).unwrap()
}

fn standard() -> State {
    start(&Setup::default())
}

fn id(state: &State, name: &str) -> UnitId {
    state.units.iter().find(|u| u.name == name).unwrap().id
}

/// Everything the writer reads back about their orders, as lines.
fn echo(parsed: &ParsedOrders<Orders>) -> Vec<String> {
    let mut lines = Vec::new();
    for issue in &parsed.errors {
        lines.push(format!(
            "error {}: {} | {} | {}",
            issue.line, issue.text, issue.problem, issue.expected
        ));
    }
    for issue in &parsed.warnings {
        lines.push(format!(
            "warning {}: {} | {} | {}",
            issue.line, issue.text, issue.problem, issue.expected
        ));
    }
    lines.extend(parsed.understood.iter().map(|u| format!("understood {u}")));
    lines
}

fn swap(text: &str, from: &str, to: &str) -> String {
    text.replace(from, to)
        .replace(&from.to_lowercase(), &to.to_lowercase())
        .replace(&from.to_uppercase(), &to.to_uppercase())
}

fn resolve(state: &State, orders: &[(PlayerId, &str)], seed: u8) -> engine::Resolution<State> {
    let mut input = TurnInput::default();
    for (player, text) in orders {
        let parsed = Skyfleet::parse_orders(state, *player, text);
        input.orders.insert(*player, parsed.orders);
    }
    let secret = GameSecret::from_bytes([seed; 32]);
    Skyfleet::resolve(state, &input, &mut secret.turn_dice(state.turn)).unwrap()
}

/// Every order form that takes a unit's name, with `{X}` for the name.
const NAMING: &[&str] = &[
    "ACTIVATE {X}",
    "{X}: MOVE F 3",
    "{X} MOVE F 3",
    "FIRE ALL AT {X}",
    "Valiant FIRE fwd AT {X}",
    "Valiant FIRE fwd AT {X} / NEAREST",
    "Valiant FIRE ALL AT NEAREST / {X}",
    "Valiant FIRE port AT the {X}",
    "Valiant MOVE F 3 TOWARD {X} F 2",
    "Valiant CMD HARDAROUND TOWARD {X}",
    "Valiant CMD RALLY {X}",
    "Valiant CMD FULLAHEAD FROM {X}",
    "Resolute CMD LAUNCHWING {X}",
    "STANDING BRACE {X}",
    "STANDING CHAFF {X}",
    "STANDING COUNTERMEASURES {X} LEFT",
    "DEPLOY {X} AT 6,24",
    "TORPEDO {X}",
    "Valiant CMD TARGETLOCK {X}",
    "Valiant FIRE {X} AT Tempest",
];

/// SKY-GM-19, SKY-ADM-09: the enemy's wings still aboard are its secret. Whatever order names
/// one, the writer reads exactly what a made-up name gets, and the public report is the same.
#[test]
fn sky_gm_19_adm_09_a_wing_aboard_reads_exactly_as_a_made_up_name() {
    let state = standard();
    assert_eq!(
        state.unit(id(&state, "Falcon")).unwrap().place,
        Place::Aboard
    );
    for (real, fake) in [("Falcon", "Zephyr"), ("Falc", "Zeph"), ("falcon", "zephyr")] {
        for template in NAMING {
            let with_real = template.replace("{X}", real);
            let with_fake = template.replace("{X}", fake);
            let seen = echo(&Skyfleet::parse_orders(&state, ALICE, &with_real));
            let seen: Vec<String> = seen.iter().map(|l| swap(l, real, fake)).collect();
            let made_up = echo(&Skyfleet::parse_orders(&state, ALICE, &with_fake));
            assert_eq!(
                seen, made_up,
                "{with_real:?} reads differently from {with_fake:?}"
            );
        }
    }
    // The whole mail, resolved: the public report is word for word the same.
    let mail = |name: &str| {
        NAMING
            .iter()
            .map(|t| t.replace("{X}", name))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let real = resolve(&state, &[(ALICE, &mail("Falcon"))], 7);
    let fake = resolve(&state, &[(ALICE, &mail("Zephyr"))], 7);
    let real_text = real.report.to_text_width(200);
    assert!(!real_text.contains("Falcon"), "{real_text}");
    assert_eq!(
        swap(&real_text, "Falcon", "Zephyr"),
        fake.report.to_text_width(200)
    );
    // The owner still hears about its own wing.
    let own = Skyfleet::parse_orders(&state, BOB, "ACTIVATE Falcon");
    assert!(own.errors[0].problem.contains("Falcon is still aboard"));
}

/// SKY-ADM-09: a wing aboard does not make a start of a name ambiguous either (that too would
/// tell the writer it exists).
#[test]
fn sky_adm_09_a_hidden_wing_makes_no_start_ambiguous() {
    let mut state = standard();
    let falcon = id(&state, "Falcon");
    state.unit_mut(falcon).unwrap().name = "Valkyrie".into();
    let parsed = Skyfleet::parse_orders(&state, ALICE, "ACTIVATE Val\nMOVE F 3");
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    assert_eq!(parsed.orders.activations[0].unit, id(&state, "Valiant"));
}

/// SKY-ADM-09: orders naming a hidden wing that reach the turn some other way (stored before
/// this check) are passed over without a word in the public report.
#[test]
fn sky_adm_09_the_turn_never_names_a_hidden_target() {
    let state = standard();
    let valiant = id(&state, "Valiant");
    let falcon = id(&state, "Falcon");
    let mut activation = Activation::hold(valiant);
    activation.fire.push(skyfleet::orders::FireOrder {
        weapons: vec!["fwd".into()],
        targets: vec![Target::Unit(falcon)],
    });
    let mut input = TurnInput::default();
    input.orders.insert(
        ALICE,
        Orders {
            activations: vec![activation],
            ..Orders::default()
        },
    );
    let secret = GameSecret::from_bytes([3; 32]);
    let resolution = Skyfleet::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
    let text = resolution.report.to_text_width(200);
    assert!(!text.contains("Falcon"), "{text}");
    assert!(text.contains("Heavy Lance: no legal target"), "{text}");
}

/// SKY-GM-14 (with ironclad's IRON-GUN-05..07): a name that starts with a filler word is
/// matched as written before filler words are dropped.
#[test]
fn sky_gm_14_names_with_filler_words_are_matched_as_written() {
    let mut setup = Setup::default();
    setup.sides[1].fleet[1].name = "The Ram".into();
    setup.sides[1].fleet[2].name = "Her Majesty".into();
    let state = start(&setup);
    let ram = id(&state, "The Ram");
    let majesty = id(&state, "Her Majesty");
    let parsed = Skyfleet::parse_orders(
        &state,
        ALICE,
        "Valiant: MOVE F 3 TOWARD The Ram F 2\nValiant FIRE fwd AT The Ram / Her Majesty / NEAREST\nSwift FIRE ALL AT her majesty\nResolute FIRE fwd AT the Dominion",
    );
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
    let valiant = &parsed.orders.activations[0];
    assert_eq!(
        valiant.steps[1],
        skyfleet::orders::Step::Toward(skyfleet::orders::Aim::Unit(ram))
    );
    assert_eq!(
        valiant.fire[0].targets,
        vec![Target::Unit(ram), Target::Unit(majesty), Target::Nearest]
    );
    assert_eq!(
        parsed.orders.activations[1].fire[0].targets,
        vec![Target::Unit(majesty)]
    );
    assert_eq!(
        parsed.orders.activations[2].fire[0].targets,
        vec![Target::Unit(id(&state, "Dominion"))]
    );
}

/// SKY-CMD-05: Target Lock is one weapon: ALL, no weapon, or a word naming several is refused
/// with the way to write it; one slot is accepted.
#[test]
fn sky_cmd_05_target_lock_is_one_weapon() {
    let mut setup = Setup::default();
    setup.budget = 5000;
    let mut titan = setup.sides[0].fleet[1].clone();
    titan.name = "Titan".into();
    titan.class = "capital".into();
    titan.utilities.clear();
    titan.weapons = [
        ("fwd", "Siege Lance"),
        ("port1", "Dreadnought Battery"),
        ("port2", "Dreadnought Battery"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    titan.at = Some(Point::inches(6, 40));
    setup.sides[0].fleet.push(titan);
    let state = start(&setup);
    for (line, problem, example) in [
        (
            "Titan CMD TARGETLOCK ALL",
            "Target Lock is for one weapon (SKY-CMD-05): say which of Titan's weapons, one per CMD",
            "CMD TARGETLOCK fwd",
        ),
        (
            "Titan CMD TARGETLOCK",
            "Target Lock is for one weapon (SKY-CMD-05)",
            "CMD TARGETLOCK fwd",
        ),
        (
            "Titan CMD TARGETLOCK port",
            "Target Lock is for one weapon (SKY-CMD-05), and \"port\" names 2: port1, port2",
            "CMD TARGETLOCK port1",
        ),
        (
            "Valiant CMD TARGETLOCK Naval Battery",
            "names 2: port, stbd",
            "CMD TARGETLOCK port",
        ),
        (
            "Titan CMD TARGET LOCK fwd and port1",
            "names 2: fwd, port1",
            "CMD TARGETLOCK fwd",
        ),
    ] {
        let parsed = Skyfleet::parse_orders(&state, ALICE, line);
        assert_eq!(parsed.errors.len(), 1, "{line}: {:#?}", parsed.errors);
        assert!(
            parsed.errors[0].problem.contains(problem),
            "{line}: {:#?}",
            parsed.errors
        );
        assert_eq!(parsed.errors[0].expected, example, "{line}");
        assert!(
            parsed.orders.activations[0].actions.is_empty(),
            "{line}: a refused lock stays out of the orders"
        );
    }
    for (line, slot) in [
        ("Titan CMD TARGETLOCK port2", "port2"),
        ("Valiant CMD TARGETLOCK port", "port"),
        ("Valiant CMD TARGETLOCK Heavy Lance", "fwd"),
    ] {
        let parsed = Skyfleet::parse_orders(&state, ALICE, line);
        assert!(parsed.errors.is_empty(), "{line}: {:#?}", parsed.errors);
        assert_eq!(
            parsed.orders.activations[0].actions[0].action,
            CmdAction::TargetLock(vec![slot.to_string()])
        );
    }
}

/// SKY-UL-01, SKY-CMD-05: a Target Lock refused because its weapon is fired at an Ultralight
/// is struck from the orders: the turn neither makes it nor takes the CMD.
#[test]
fn sky_ul_01_a_refused_lock_is_neither_made_nor_paid() {
    let mut state = standard();
    let falcon = id(&state, "Falcon");
    let valiant = id(&state, "Valiant");
    state.unit_mut(falcon).unwrap().place = Place::InPlay;
    let text = "Valiant\nCMD TARGETLOCK stbd\nFIRE stbd AT Falcon";
    let parsed = Skyfleet::parse_orders(&state, ALICE, text);
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert!(parsed.errors[0].problem.contains(
        "Falcon is an Ultralight: it cannot be Target Locked (SKY-UL-01, SKY-CMD-05), so the Target Lock on stbd is not made and costs nothing"
    ));
    assert!(parsed.orders.activations[0].actions.is_empty());
    assert!(
        !parsed.understood.iter().any(|u| u.contains("Target Lock")),
        "{:#?}",
        parsed.understood
    );
    let resolution = resolve(&state, &[(ALICE, text)], 4);
    assert!(!resolution.report.to_text().contains("Target Lock"));
    assert_eq!(
        resolution.state.unit(valiant).unwrap().this_turn.cmd_spent,
        0
    );
}

/// SKY-CMD-03, SKY-MOR-06: a Broken ship must fly at full speed for the nearest edge, so it has
/// no move to give up: Emergency Repairs by skipping the move is refused when written and, if
/// it reaches the turn (the ship broke after the orders were written), refused there: not paid,
/// no extra DC dice, and the ship flees.
#[test]
fn sky_cmd_03_mor_06_a_broken_ship_cannot_give_up_its_move() {
    let mut state = standard();
    let valiant = id(&state, "Valiant");
    state.unit_mut(valiant).unwrap().status.morale = Morale::Broken;
    let parsed = Skyfleet::parse_orders(&state, ALICE, "Valiant CMD EMERGENCY SKIP MOVE");
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert!(parsed.errors[0].problem.contains(
        "Valiant is Broken and must move at full speed toward the nearest edge (SKY-MOR-06): it has no move to give up for Emergency Repairs (SKY-CMD-03)"
    ));
    assert_eq!(parsed.errors[0].expected, "CMD EMERGENCY SKIP SHOOT");
    assert!(parsed.orders.activations[0].actions.is_empty());
    let shoot = Skyfleet::parse_orders(&state, ALICE, "Valiant CMD EMERGENCY SKIP SHOOT");
    assert!(shoot.errors.is_empty(), "{:#?}", shoot.errors);

    // The same order reaching the turn.
    let mut activation = Activation::hold(valiant);
    activation.actions.push(CmdOrder {
        action: CmdAction::EmergencyRepairs(Skip::Move),
        payer: None,
    });
    let mut input = TurnInput::default();
    input.orders.insert(
        ALICE,
        Orders {
            activations: vec![activation],
            ..Orders::default()
        },
    );
    let secret = GameSecret::from_bytes([2; 32]);
    let resolution = Skyfleet::resolve(&state, &input, &mut secret.turn_dice(1)).unwrap();
    let row = resolution
        .report
        .rows
        .iter()
        .find(|r| r.name.contains("Valiant"))
        .unwrap();
    assert!(
        row.result.contains(
            "Emergency Repairs: refused, Valiant is Broken and must move at full speed toward the nearest edge (SKY-MOR-06)"
        ),
        "{}",
        row.result
    );
    assert!(row.result.contains("Broken, fled"), "{}", row.result);
    // A Gunship has DC 2: no extra dice.
    assert!(row.result.contains("DC 2d"), "{}", row.result);
    let after = resolution.state.unit(valiant).unwrap();
    assert_eq!(after.this_turn.cmd_spent, 0);
}

/// SKY-KW-STALL, SKY-GM-31, SKY-GM-06: the order check works on the elevation the ship will
/// have after Stall, as the turn does: a dive that Stall turns into a crash is refused (it
/// used to be accepted, and the Escort crashed for 40 VP to the enemy), and a climb that
/// Stall makes room for is accepted (it used to be refused).
#[test]
fn sky_kw_stall_the_order_check_moves_from_the_elevation_after_stall() {
    let mut state = standard();
    let swift = id(&state, "Swift");
    // Escort: Stall(9). At 9 it starts its activation at 8: DIVE 8 would crash.
    state.unit_mut(swift).unwrap().elevation = 9;
    let parsed = Skyfleet::parse_orders(&state, ALICE, "Swift MOVE DIVE 8 F 3");
    assert_eq!(parsed.errors.len(), 1, "{:#?}", parsed.errors);
    assert!(
        parsed.errors[0]
            .problem
            .contains("that would dive below elevation 1 and crash (SKY-GM-06)")
    );
    let resolution = resolve(&state, &[(ALICE, "Swift MOVE DIVE 8 F 3")], 5);
    assert_eq!(resolution.state.unit(swift).unwrap().place, Place::InPlay);
    assert_eq!(resolution.state.sides[1].vp, engine::Score::whole(0));
    // At 12 of 12 it starts at 11: CLIMB 1 is within the ceiling.
    state.unit_mut(swift).unwrap().elevation = 12;
    let parsed = Skyfleet::parse_orders(&state, ALICE, "Swift MOVE CLIMB 1 F 3");
    assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
}

/// SKY-KW-STALL with SKY-GM-10 (Level): the "as things stand" preview of a shot works after
/// Stall too. Valiant at 9 (Stall 8) fires from 8 at Tempest at 7: level, and from above.
#[test]
fn sky_kw_stall_fire_previews_work_after_stall() {
    let mut state = standard();
    let valiant = id(&state, "Valiant");
    let tempest = id(&state, "Tempest");
    {
        let unit = state.unit_mut(valiant).unwrap();
        unit.at = Point::inches(30, 24);
        unit.heading = skyfleet::Angle::EAST;
        unit.elevation = 9;
    }
    {
        let unit = state.unit_mut(tempest).unwrap();
        unit.at = Point::inches(30, 14);
        unit.elevation = 7;
    }
    let parsed = Skyfleet::parse_orders(&state, ALICE, "Valiant FIRE stbd AT Tempest");
    assert!(parsed.warnings.is_empty(), "{:#?}", parsed.warnings);
    assert!(
        parsed
            .understood
            .iter()
            .any(|u| u.contains("Naval Battery (stbd) at Tempest (range 8\", 3+ now)")),
        "{:#?}",
        parsed.understood
    );
}

/// Messages: ordinals are English ("its 2nd point", SKY-CMD-01), and no hint names a ship that
/// is not in this battle.
#[test]
fn messages_use_ordinals_and_name_only_this_battles_ships() {
    let mut setup = Setup::default();
    let names = [
        ["Ajax", "Boreas", "Comet", "Drake"],
        ["Eagle", "Fury", "Gale", "Harrier"],
    ];
    for (side, names) in setup.sides.iter_mut().zip(names) {
        for (ship, name) in side.fleet.iter_mut().zip(names) {
            ship.name = name.into();
        }
        side.fleet[0].wings[0].name = names[3].into();
    }
    let state = start(&setup);
    let parsed = Skyfleet::parse_orders(
        &state,
        ALICE,
        "Comet: CMD FULLAHEAD; CMD BRACE FROM Comet\nBoreas CMD WARP\nBoreas CMD FULLAHEAD FROM Nobody\nDrake MOVE F 3\nBoreas MOVE F 40\nAjax CMD",
    );
    assert!(
        parsed.errors[0]
            .problem
            .contains("Comet has only 1 CMD this turn and this would be its 2nd point"),
        "{:#?}",
        parsed.errors
    );
    for issue in parsed.errors.iter().chain(&parsed.warnings) {
        for stranger in [
            "Valiant", "Resolute", "Dominion", "Tempest", "Swift", "Arrow", "Hawk", "Falcon",
        ] {
            assert!(
                !issue.expected.contains(stranger) && !issue.problem.contains(stranger),
                "{issue:#?} names {stranger}, not in this battle"
            );
        }
    }
    let warp = parsed
        .errors
        .iter()
        .find(|e| e.text.contains("WARP"))
        .unwrap();
    assert!(warp.expected.contains("RALLY Ajax"), "{warp:#?}");
    assert!(warp.expected.contains("TARGETLOCK fwd"), "{warp:#?}");
    let from = parsed
        .errors
        .iter()
        .find(|e| e.text.contains("Nobody"))
        .unwrap();
    assert!(from.expected.contains("FROM "), "{from:#?}");
}
