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
                "SKY-ADM-09: {with_real:?} reads differently from {with_fake:?}"
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
        fake.report.to_text_width(200),
        "SKY-ADM-09: the public report is the same for the real name and a made-up one"
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
    assert!(
        parsed.errors.is_empty(),
        "SKY-ADM-09: Val is not ambiguous: {:#?}",
        parsed.errors
    );
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
    assert!(
        !text.contains("Falcon"),
        "SKY-ADM-09: the report names no hidden wing: {text}"
    );
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
    let mut setup = Setup {
        budget: 5000,
        ..Setup::default()
    };
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
        // The example opens the ship's block again, as the refused line did, and works there.
        assert_eq!(
            engine::corrections::examples(&parsed.errors[0]),
            [format!("{}: {example}", line.split(' ').next().unwrap())],
            "{line}"
        );
        assert!(engine::corrections::failures::<Skyfleet>(&state, ALICE, line).is_empty());
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
        "Valiant is Broken and flees at full speed toward the nearest edge whatever is written (SKY-MOR-06)"
    ));
    assert!(
        parsed.errors[0]
            .expected
            .ends_with("`Valiant: CMD EMERGENCY SKIP SHOOT`"),
        "{:#?}",
        parsed.errors
    );
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
            "Emergency Repairs: refused, Valiant is Broken and flees at full speed toward the nearest edge whatever is written (SKY-MOR-06)"
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

// The rulebook: the GM's switches, each tested both ways.

mod switches {
    use super::*;
    use skyfleet::fire::assess;
    use skyfleet::geometry::Length;
    use skyfleet::state::{DamageControl, OverIsland, TorpedoInfo};
    use skyfleet::terrain::{Band, Island, Shape};
    use skyfleet::{Angle, Class};

    fn started(change: impl FnOnce(&mut Setup)) -> State {
        let mut setup = Setup::default();
        change(&mut setup);
        start(&setup)
    }

    /// Valiant (no Sonar) fires its Heavy Lance east from (10,24) e9 at Tempest at (28,24) e9,
    /// across the island Crag (centre (20,24), 2") whose band is 6-8.
    fn over_the_island(state: &mut State) -> skyfleet::fire::Shot {
        state.terrain.islands = vec![Island {
            name: "Crag".into(),
            shape: Shape::Circle {
                centre: Point::inches(20, 24),
                radius: Length::inches(2),
            },
            band: Band::ISLAND,
        }];
        let (valiant, tempest) = (id(state, "Valiant"), id(state, "Tempest"));
        for (unit, x, heading) in [(valiant, 10, Angle::EAST), (tempest, 28, Angle::WEST)] {
            let unit = state.unit_mut(unit).unwrap();
            unit.at = Point::inches(x, 24);
            unit.heading = heading;
            unit.elevation = 9;
            unit.modules.clear();
        }
        let attacker = state.unit(valiant).unwrap().clone();
        let target = state.unit(tempest).unwrap().clone();
        let lance = attacker.weapons.iter().find(|w| w.slot == "fwd").unwrap();
        assess(state, &attacker, lance, &target, false, false).unwrap()
    }

    /// SKY-ISL-04, SKY-EX-10 (switch `shot_over_island`): by default a shot from 9 to 9 across
    /// an island at 6-8 is clear of it; under `near_miss` it is −1.
    #[test]
    fn sky_isl_04_a_shot_over_an_island_is_clear_by_default_or_a_near_miss() {
        let mut state = standard();
        assert_eq!(state.rules.shot_over_island, OverIsland::Clear);
        let shot = over_the_island(&mut state);
        assert_eq!(shot.skill, 4, "{shot:?}");
        assert!(shot.modifiers.is_empty(), "{shot:?}");
        let mut state = started(|s| s.shot_over_island = OverIsland::NearMiss);
        let shot = over_the_island(&mut state);
        assert_eq!(shot.skill, 5, "{shot:?}");
        assert_eq!(shot.modifiers, vec!["near Crag −1".to_string()]);
    }

    /// Bob's Torpedo #1 lies at (10,24) e4, launched this turn (it does not run in the Torpedo
    /// Step); Valiant at (6,24) e4 moves 5" east through it.
    fn into_a_torpedo(mut state: State) -> (State, engine::Resolution<State>) {
        let dominion = id(&state, "Dominion");
        let mut token = state.unit(dominion).unwrap().clone();
        token.id = UnitId(state.units.len() as u16);
        token.name = "Torpedo #1".into();
        token.class = Class::Torpedo;
        token.cost = 0;
        token.radius = Length(25);
        token.hull = 4;
        token.max_hull = 4;
        token.at = Point::inches(10, 24);
        token.heading = Angle::WEST;
        token.elevation = 4;
        token.weapons.clear();
        token.modules.clear();
        token.launched_turn = Some(1);
        token.torpedo = Some(TorpedoInfo {
            number: 1,
            launcher: dominion,
            launched_turn: 1,
            steps_moved: 0,
        });
        state.units.push(token);
        state.torpedoes_launched = 1;
        let resolution = resolve(&state, &[(ALICE, "Valiant MOVE F 5; HOLD FIRE")], 11);
        (state, resolution)
    }

    /// SKY-TORP-05 (switch `torpedo_contact_in_movement`): by default a ship that moves into
    /// a torpedo at its elevation is hit by it ("on contact"); switched off, only the Torpedo
    /// Step brings contact and the ship passes.
    #[test]
    fn sky_torp_05_a_ship_moving_into_a_torpedo_is_hit_unless_switched_off() {
        let (state, resolution) = into_a_torpedo(standard());
        let torpedo = UnitId(state.units.len() as u16 - 1);
        let valiant = id(&state, "Valiant");
        let text = resolution.report.to_text_width(200);
        assert_eq!(
            resolution.state.unit(torpedo).unwrap().place,
            Place::Destroyed,
            "{text}"
        );
        assert!(resolution.state.unit(valiant).unwrap().hull < 35, "{text}");
        assert!(
            text.contains("met by Valiant's move; contact with Valiant: 3 damage dice"),
            "{text}"
        );

        let (state, resolution) =
            into_a_torpedo(started(|s| s.torpedo_contact_in_movement = false));
        let text = resolution.report.to_text_width(200);
        assert_eq!(
            resolution.state.unit(torpedo).unwrap().place,
            Place::InPlay,
            "{text}"
        );
        let after = resolution.state.unit(valiant).unwrap();
        assert_eq!(after.hull, 35, "{text}");
        assert_eq!(after.at, Point::inches(11, 24));
        assert!(!text.contains("contact"), "{text}");
        let _ = state;
    }

    /// Valiant with Rudder Loss and a Speed Loss throws its 2 DC dice [5, 6]: 2 successes.
    fn two_successes(mut state: State) -> String {
        let valiant = id(&state, "Valiant");
        let unit = state.unit_mut(valiant).unwrap();
        unit.status.rudder_loss = true;
        unit.status.speed_loss = 1;
        let parsed = Skyfleet::parse_orders(
            &state,
            ALICE,
            "Valiant HOLD FIRE; DC PRIORITY RUDDER SPEED REPAIR",
        );
        assert!(parsed.errors.is_empty(), "{:#?}", parsed.errors);
        let mut input = TurnInput::default();
        input.orders.insert(ALICE, parsed.orders);
        // Initiative 6 and 1, then Valiant's DC dice.
        let mut dice = TurnDice::scripted([6, 1, 5, 6], []);
        let resolution = Skyfleet::resolve(&state, &input, &mut dice).unwrap();
        assert_eq!(dice.open.rolls().len(), 4);
        let row = resolution
            .report
            .rows
            .iter()
            .find(|r| r.name.contains("Valiant"))
            .unwrap();
        row.result.clone()
    }

    /// SKY-GM-22, SKY-DCR-02/03 (switch `damage_control`): by default successes are a pool
    /// (two 1-success effects for 2 successes); in tiers a roll buys one effect.
    #[test]
    fn sky_gm_22_damage_control_as_a_pool_or_in_tiers() {
        assert_eq!(standard().rules.damage_control, DamageControl::Pool);
        let pool = two_successes(standard());
        assert!(
            pool.contains("DC 2d [5,6] → 2 successes: clear Rudder Loss, clear Speed Loss"),
            "{pool}"
        );
        let tiers = two_successes(started(|s| s.damage_control = DamageControl::Tiers));
        assert!(
            tiers.ends_with("DC 2d [5,6] → 2 successes: clear Rudder Loss"),
            "{tiers}"
        );
    }

    /// Falcon (Hull 5 of 10) flies in the storm Maelstrom: its 1d3 takes it under half.
    fn storm_struck_wing(mut state: State, dice: &[u32]) -> (String, usize) {
        let falcon = id(&state, "Falcon");
        let unit = state.unit_mut(falcon).unwrap();
        unit.place = Place::InPlay;
        unit.at = Point::inches(50, 38);
        unit.elevation = 4;
        unit.hull = 5;
        let mut turn_dice = TurnDice::scripted(dice.iter().copied(), []);
        let resolution = Skyfleet::resolve(&state, &TurnInput::default(), &mut turn_dice).unwrap();
        let row = resolution
            .report
            .rows
            .iter()
            .find(|r| r.name.contains("Falcon"))
            .unwrap();
        (row.result.clone(), turn_dice.open.rolls().len())
    }

    /// SKY-GM-23 (switch `wing_morale`): by default a wing takes morale checks; switched off it
    /// takes none.
    #[test]
    fn sky_gm_23_wings_take_morale_checks_unless_switched_off() {
        let (row, rolls) = storm_struck_wing(standard(), &[1, 1, 1, 6, 1]);
        assert!(
            row.contains("morale (under 50%) 2d6 [1,1] = 2 vs 6: passed"),
            "{row}"
        );
        assert_eq!(rolls, 5);
        let (row, rolls) = storm_struck_wing(started(|s| s.wing_morale = false), &[1, 6, 1]);
        assert!(!row.contains("morale"), "{row}");
        assert_eq!(rolls, 3);
    }

    /// Every switch is listed on the game's page, default or not, with its rule ID; setups and
    /// states stored before the switches existed read with the defaults.
    #[test]
    fn rulings_list_every_switch_and_old_setups_read_with_the_defaults() {
        let rules = |r: &[engine::Ruling]| r.iter().map(|r| r.rule.clone()).collect::<Vec<_>>();
        let default = Skyfleet::rulings(&Setup::default());
        let ids = [
            "SKY-ISL-04",
            "SKY-TORP-05",
            "SKY-GM-22",
            "SKY-GM-23",
            "SKY-GM-28",
        ];
        assert_eq!(rules(&default), ids);
        let switched = Setup {
            shot_over_island: OverIsland::NearMiss,
            torpedo_contact_in_movement: false,
            damage_control: DamageControl::Tiers,
            wing_morale: false,
            harmonise_missiles: true,
            ..Setup::default()
        };
        let other = Skyfleet::rulings(&switched);
        assert_eq!(rules(&other), ids);
        for (a, b) in default.iter().zip(&other) {
            assert_ne!(a.text, b.text, "{}", a.rule);
        }
        assert!(default[0].text.contains("is clear of it"));
        assert!(other[0].text.contains("is a near miss"));

        let old: Setup = serde_json::from_str(r#"{"budget": 600}"#).unwrap();
        assert_eq!(old.shot_over_island, OverIsland::Clear);
        assert!(old.torpedo_contact_in_movement && old.wing_morale);
        assert_eq!(old.damage_control, DamageControl::Pool);
        let chosen: Setup = serde_json::from_str(
            r#"{"shot_over_island": "near_miss", "torpedo_contact_in_movement": false, "damage_control": "tiers", "wing_morale": false}"#,
        )
        .unwrap();
        assert_eq!(Skyfleet::rulings(&chosen)[..4], other[..4]);
        // A default battle's state is written as before the switches (so old games replay to
        // the same bytes); a switched one keeps its choices through a save and a load.
        let fields = [
            "shot_over_island",
            "torpedo_contact_in_movement",
            "damage_control",
            "wing_morale",
        ];
        let plain = serde_json::to_value(standard()).unwrap();
        for field in fields {
            assert!(plain["rules"].get(field).is_none(), "{field}");
        }
        let read: State = serde_json::from_value(plain).unwrap();
        assert_eq!(read.rules, standard().rules);
        let switched_state = start(&switched);
        let saved = serde_json::to_value(&switched_state).unwrap();
        for field in fields {
            assert!(saved["rules"].get(field).is_some(), "{field}");
        }
        let read: State = serde_json::from_value(saved).unwrap();
        assert_eq!(read.rules, switched_state.rules);
    }
}
