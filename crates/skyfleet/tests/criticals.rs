#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Every row of the Critical and Super Critical tables, applied to a ship through the turn's
//! own machinery with scripted dice, and the modules and rulings that change them.

use engine::{Dice, Player, PlayerId};
use serde_json::json;
use skyfleet::battle::Battle;
use skyfleet::state::{Morale, Place};
use skyfleet::{Setup, State, UnitId};

/// Red: Valiant (a Gunship with Heavy Lance, two Naval Batteries, Sonar and Hangar, wing
/// Hawk aboard) and Resolute (a Command Ship, 3" away); Blue: Tempest, 3" from Valiant.
fn battle_state() -> State {
    let setup: Setup = serde_json::from_value(json!({
        "budget": 5000, "deployment_depth": 72, "terrain": {},
        "sides": [
            {"name": "Red", "fleet": [
                {"name": "Valiant", "class": "gunship", "at": [20, 20], "heading": 90, "elevation": 5,
                 "weapons": {"fwd": "Heavy Lance", "port": "Naval Battery", "stbd": "Naval Battery"},
                 "utilities": ["Sonar", "Hangar"],
                 "wings": [{"name": "Hawk", "weapons": ["MG"]}]},
                {"name": "Resolute", "class": "command", "at": [20, 25], "heading": 90, "elevation": 5,
                 "utilities": ["Armored Bridge", "Reinforced Bulkheads", "DC Center", "Signal Array"]}
            ]},
            {"name": "Blue", "fleet": [
                {"name": "Tempest", "class": "gunship", "at": [25, 20], "heading": 270, "elevation": 5}
            ]}
        ]
    }))
    .unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    setup.start(&players).unwrap()
}

const VALIANT: UnitId = UnitId(0);
const HAWK: UnitId = UnitId(1);
const RESOLUTE: UnitId = UnitId(2);
const TEMPEST: UnitId = UnitId(3);

/// Applies one Critical to `target` with the given dice, every one of which must be drawn;
/// returns the battle's state, the extra damage and the words.
fn critical(state: State, target: UnitId, dice: &[u32]) -> (State, u32, String, Vec<String>) {
    let mut dice = rulecases::dice::stream(dice);
    let mut battle = Battle::new(state, &mut dice);
    let (extra, words) = battle.critical(target, true);
    battle.morale_checks();
    let rows: Vec<String> = battle
        .log
        .rows
        .iter()
        .flat_map(|r| r.results.iter().cloned())
        .collect();
    let state = battle.state;
    rulecases::dice::drawn(&mut dice).unwrap_or_else(|e| panic!("{words}: {e}"));
    (state, extra, words, rows)
}

/// SKY-CRIT-1: Flash Fire, 1d6 more Hull.
#[test]
fn sky_crit_1_flash_fire_does_1d6_more() {
    let (state, extra, words, _) = critical(battle_state(), VALIANT, &[1, 4]);
    assert_eq!(extra, 4);
    assert_eq!(words, "CRIT [1] Flash Fire +4");
    assert_eq!(state.unit(VALIANT).unwrap().hull, 31);
}

/// SKY-CRIT-2, SKY-GM-21: Weapon Jam jams a random working weapon.
#[test]
fn sky_crit_2_weapon_jam_picks_a_working_weapon_sky_gm_21() {
    // Three working weapons: the pick (index 1) jams the port Naval Battery.
    let (state, _, words, _) = critical(battle_state(), VALIANT, &[2, 1]);
    assert_eq!(words, "CRIT [2] Weapon Jam (Naval Battery)");
    let valiant = state.unit(VALIANT).unwrap();
    assert!(
        valiant.weapons[1].jammed,
        "SKY-CRIT-2: the picked weapon jams"
    );
    assert!(
        !valiant.weapons[0].jammed && !valiant.weapons[2].jammed,
        "SKY-CRIT-2: one weapon only"
    );
    // With one working weapon it jams that one and draws no pick; with none it does nothing
    // and draws nothing (`critical` checks that exactly the scripted dice are drawn).
    let mut one = battle_state();
    one.units[0].weapons[0].jammed = true;
    one.units[0].weapons[1].jammed = true;
    let (state, _, words, _) = critical(one, VALIANT, &[2]);
    assert!(
        state.unit(VALIANT).unwrap().weapons[2].jammed,
        "SKY-ADM-12: no pick among one: {words}"
    );
    let mut none = battle_state();
    none.units[0].status.weapons_down = true;
    let (_, _, words, _) = critical(none, VALIANT, &[2]);
    assert_eq!(
        words, "CRIT [2] Weapon Jam (no working weapon)",
        "SKY-ADM-12: no pick among none"
    );
}

/// SKY-CRIT-3, SKY-FLOOR-01, SKY-FLOOR-02, SKY-EX-08: Speed Loss stacks, down to 0".
#[test]
fn sky_crit_3_speed_loss_stacks_sky_floor_01_and_floors_at_0_sky_floor_02() {
    let (state, _, _, _) = critical(battle_state(), VALIANT, &[3]);
    let (state, _, _, _) = critical(state, VALIANT, &[3]);
    let valiant = state.unit(VALIANT).unwrap();
    assert_eq!(valiant.status.speed_loss, 2);
    // EX-08: two Speed Loss leave a Gunship 3".
    assert_eq!(valiant.speed(false), skyfleet::Length::inches(3));
    let (state, _, _, _) = critical(state, VALIANT, &[3]);
    let (state, _, _, _) = critical(state, VALIANT, &[3]);
    assert_eq!(
        state.unit(VALIANT).unwrap().speed(false),
        skyfleet::Length::ZERO
    );
    // Full Ahead adds its 2" to the stacked losses before the floor: 7 + 2 - 8.
    assert_eq!(
        state.unit(VALIANT).unwrap().speed(true),
        skyfleet::Length::inches(1)
    );
}

/// SKY-CRIT-4: Rudder Loss: the unit cannot turn.
#[test]
fn sky_crit_4_rudder_loss() {
    let (state, _, words, _) = critical(battle_state(), VALIANT, &[4]);
    assert_eq!(words, "CRIT [4] Rudder Loss");
    assert!(
        state.unit(VALIANT).unwrap().status.rudder_loss,
        "SKY-CRIT-4: the unit cannot turn"
    );
}

/// SKY-CRIT-5: Crew Casualties, Morale −1.
#[test]
fn sky_crit_5_crew_casualties_lower_morale() {
    let (state, _, _, _) = critical(battle_state(), VALIANT, &[5]);
    assert_eq!(state.unit(VALIANT).unwrap().morale(), 5);
}

/// SKY-CRIT-6: Utility Failure disables a random working utility.
#[test]
fn sky_crit_6_utility_failure_picks_a_working_utility() {
    let (state, _, words, _) = critical(battle_state(), VALIANT, &[6, 0]);
    assert_eq!(words, "CRIT [6] Utility Failure (Sonar)");
    let valiant = state.unit(VALIANT).unwrap();
    assert!(
        valiant.modules[0].failed,
        "SKY-CRIT-6: the picked utility fails"
    );
    assert!(!valiant.has_sonar());
}

/// SKY-CRIT-7, SKY-GM-21: Panic: no activation next turn.
#[test]
fn sky_crit_7_panic_stops_the_next_turns_activation_sky_gm_21() {
    let (state, _, _, _) = critical(battle_state(), VALIANT, &[7]);
    assert_eq!(state.unit(VALIANT).unwrap().status.panic_turn, Some(2));
}

/// SKY-CRIT-8, SKY-DMG-04: an 8 rolls on the Super Critical Table.
#[test]
fn sky_crit_8_and_sky_dmg_04_roll_on_the_super_table() {
    let (state, _, words, _) = critical(battle_state(), VALIANT, &[8, 4]);
    assert_eq!(
        words, "CRIT [8] Super Critical → SUPER [4] Drifting",
        "SKY-CRIT-8: an 8 rolls on the Super Critical Table"
    );
    assert!(state.unit(VALIANT).unwrap().status.drifting);
}

/// SKY-SCRIT-1: Structural Failure, 2d6 more Hull.
#[test]
fn sky_scrit_1_structural_failure_does_2d6() {
    let (state, extra, words, _) = critical(battle_state(), VALIANT, &[8, 1, 5, 6]);
    assert_eq!(extra, 11, "SKY-SCRIT-1: 2d6 more Hull");
    assert_eq!(
        words,
        "CRIT [8] Super Critical → SUPER [1] Structural Failure +[5,6]"
    );
    assert_eq!(state.unit(VALIANT).unwrap().hull, 24);
}

/// SKY-SCRIT-2, SKY-GM-06, SKY-GM-19, SKY-GM-30: Lift Failure drops 1d3; below 1 the ship
/// crashes.
#[test]
fn sky_scrit_2_lift_failure_drops_1d3_and_below_1_crashes_sky_gm_06() {
    let (state, _, words, _) = critical(battle_state(), VALIANT, &[8, 2, 3]);
    assert_eq!(
        words,
        "CRIT [8] Super Critical → SUPER [2] Lift Failure −3 → e2"
    );
    assert_eq!(
        state.unit(VALIANT).unwrap().elevation,
        2,
        "SKY-SCRIT-2: 1d3 lower"
    );
    let (state, _, _, _) = critical(state, VALIANT, &[8, 2, 2]);
    let valiant = state.unit(VALIANT).unwrap();
    assert_eq!(valiant.place, Place::Crashed);
    // Crashed counts as destroyed for VP (SKY-GM-30), and the wing aboard goes with it
    // (SKY-GM-19): Valiant 70+35+50+15+10 = 180, Hawk 20+5 = 25.
    assert_eq!(state.sides[1].vp.display(), "205");
    assert_eq!(state.unit(HAWK).unwrap().place, Place::Destroyed);
}

/// SKY-SCRIT-3, SKY-MOR-02: a Bridge Hit zeroes CMD and checks morale.
#[test]
fn sky_scrit_3_bridge_hit_zeroes_cmd_and_checks_morale_sky_mor_02() {
    let (state, _, words, rows) = critical(battle_state(), VALIANT, &[8, 3, 6, 6]);
    assert_eq!(
        words,
        "CRIT [8] Super Critical → SUPER [3] Bridge Hit CMD 0"
    );
    let valiant = state.unit(VALIANT).unwrap();
    assert!(valiant.status.bridge_hit);
    assert_eq!(valiant.cmd_max(), 0);
    assert_eq!(valiant.status.morale, Morale::Shaken);
    assert!(
        rows.iter()
            .any(|r| r == "morale (Bridge Hit) 2d6 [6,6] = 12 vs 6: failed → Shaken"),
        "SKY-MOR-02: a Bridge Hit checks morale: {rows:?}"
    );
}

/// SKY-MOD-5, SKY-GM-25: the Armored Bridge ignores the first Bridge Hit.
#[test]
fn sky_mod_5_armored_bridge_ignores_the_first_bridge_hit() {
    // Resolute's Bulkheads re-roll the 8 first (SKY-GM-25); the second 8 stands.
    let (state, _, words, _) = critical(battle_state(), RESOLUTE, &[8, 8, 3]);
    assert_eq!(
        words,
        "CRIT [8→8 Bulkheads] Super Critical → SUPER [3] Bridge Hit ignored (Armored Bridge)"
    );
    assert_eq!(
        state.unit(RESOLUTE).unwrap().cmd_max(),
        5,
        "SKY-MOD-5: the first Bridge Hit is ignored"
    );
    let (state, _, _, _) = critical(state, RESOLUTE, &[8, 8, 3, 1, 1]);
    assert_eq!(
        state.unit(RESOLUTE).unwrap().cmd_max(),
        0,
        "SKY-MOD-5: the second is not"
    );
}

/// SKY-SCRIT-4: Drifting.
#[test]
fn sky_scrit_4_drifting() {
    let (state, _, _, _) = critical(battle_state(), VALIANT, &[8, 4]);
    assert!(
        state.unit(VALIANT).unwrap().status.drifting,
        "SKY-SCRIT-4: Drifting"
    );
}

/// SKY-SCRIT-5: Weapons Down disables every weapon.
#[test]
fn sky_scrit_5_weapons_down() {
    let (state, _, _, _) = critical(battle_state(), VALIANT, &[8, 5]);
    let valiant = state.unit(VALIANT).unwrap();
    assert!(
        valiant.weapons.iter().all(|w| !valiant.weapon_works(w)),
        "SKY-SCRIT-5: every weapon is down"
    );
}

/// SKY-SCRIT-6: Utilities Down disables every utility.
#[test]
fn sky_scrit_6_utilities_down() {
    let (state, _, _, _) = critical(battle_state(), VALIANT, &[8, 6]);
    let valiant = state.unit(VALIANT).unwrap();
    assert!(!valiant.has_sonar(), "SKY-SCRIT-6: every utility is down");
    assert!(
        !valiant.has_working(skyfleet::ModuleKind::Hangar),
        "SKY-SCRIT-6: every utility is down"
    );
}

/// SKY-SCRIT-7: On Fire.
#[test]
fn sky_scrit_7_on_fire() {
    let (state, _, _, _) = critical(battle_state(), VALIANT, &[8, 7]);
    assert!(state.unit(VALIANT).unwrap().status.on_fire);
}

/// SKY-SCRIT-8, SKY-GM-24, SKY-MOR-03: Citadel Blowout: destroyed; each unit within 4" rolls
/// its own 2d6; friends within 12" check morale.
#[test]
fn sky_scrit_8_citadel_blowout_sky_ex_03_sky_gm_24_sky_mor_03() {
    // Valiant blows up: Tempest (3" between bases) and Resolute (3") each take their own
    // 2d6; Resolute, a friend within 12", checks morale; the wing aboard is lost.
    let (state, _, words, rows) = critical(battle_state(), VALIANT, &[8, 8, 3, 4, 6, 6, 2, 3]);
    assert_eq!(
        words,
        "CRIT [8] Super Critical → SUPER [8] Citadel Blowout destroyed"
    );
    assert_eq!(
        state.unit(VALIANT).unwrap().place,
        Place::Destroyed,
        "SKY-SCRIT-8: the ship is destroyed"
    );
    assert_eq!(state.unit(HAWK).unwrap().place, Place::Destroyed);
    assert_eq!(
        state.unit(RESOLUTE).unwrap().hull,
        55 - 7,
        "SKY-SCRIT-8, SKY-GM-24: Resolute's own 2d6"
    );
    assert_eq!(
        state.unit(TEMPEST).unwrap().hull,
        35 - 12,
        "SKY-SCRIT-8, SKY-GM-24: Tempest's own 2d6"
    );
    assert!(
        rows.iter()
            .any(|r| r == "2d6 [3,4] = 7 from Valiant's Citadel Blowout")
    );
    assert!(
        rows.iter()
            .any(|r| r == "2d6 [6,6] = 12 from Valiant's Citadel Blowout")
    );
    assert!(
        rows.iter()
            .any(|r| r == "morale (Valiant's Citadel Blowout) 2d6 [2,3] = 5 vs 7: passed"),
        "SKY-MOR-03: a friend within 12\" checks morale: {rows:?}"
    );
}

/// SKY-EX-03, the critical chain from the damage die: a 6 does 6 and is a Critical; d8 8 →
/// Super d8 8 → Citadel Blowout: Valiant is destroyed (and Hawk aboard), Resolute and Tempest,
/// each within 4", roll their own 2d6 (SKY-GM-24), and Resolute, a friend within 12", checks
/// morale. Then: a Critical d8 of 1 does 1d6 more Hull.
#[test]
fn sky_ex_03_critical_chain_from_a_damage_die_of_6() {
    let mut dice = rulecases::dice::stream(&[6, 8, 8, 3, 4, 6, 6, 2, 3]);
    let mut battle = Battle::new(battle_state(), &mut dice);
    let mut text = String::new();
    let (dealt, criticals) = battle.damage_dice(
        TEMPEST,
        VALIANT,
        1,
        skyfleet::combat::DamageRule::NORMAL,
        true,
        &mut text,
    );
    battle.morale_checks();
    let rows: Vec<String> = battle
        .log
        .rows
        .iter()
        .flat_map(|r| r.results.iter().cloned())
        .collect();
    let state = battle.state;
    rulecases::dice::drawn(&mut dice).unwrap();
    assert_eq!(dealt, 6);
    assert_eq!(
        criticals,
        ["CRIT [8] Super Critical → SUPER [8] Citadel Blowout destroyed"],
        "SKY-EX-03: a damage die of 6 is a Critical: 8, then Super 8"
    );
    assert_eq!(
        text,
        ", dmg [6] = 6, CRIT [8] Super Critical → SUPER [8] Citadel Blowout destroyed"
    );
    assert_eq!(
        rows,
        [
            "2d6 [3,4] = 7 from Valiant's Citadel Blowout",
            "morale (Valiant's Citadel Blowout) 2d6 [2,3] = 5 vs 7: passed",
            "2d6 [6,6] = 12 from Valiant's Citadel Blowout",
            "DESTROYED",
            "DESTROYED",
            "lost with its carrier while aboard (SKY-GM-19)",
        ]
    );
    assert_eq!(state.unit(VALIANT).unwrap().place, Place::Destroyed);
    assert_eq!(state.unit(HAWK).unwrap().place, Place::Destroyed);
    assert_eq!(
        state.unit(RESOLUTE).unwrap().hull,
        55 - 7,
        "SKY-EX-03: each unit within 4\" rolls its own 2d6 (SKY-GM-24)"
    );
    assert_eq!(state.unit(TEMPEST).unwrap().hull, 35 - 12);

    let mut dice = rulecases::dice::stream(&[6, 1, 4]);
    let mut battle = Battle::new(battle_state(), &mut dice);
    let mut text = String::new();
    let (dealt, criticals) = battle.damage_dice(
        TEMPEST,
        VALIANT,
        1,
        skyfleet::combat::DamageRule::NORMAL,
        true,
        &mut text,
    );
    let state = battle.state;
    rulecases::dice::drawn(&mut dice).unwrap();
    assert_eq!(dealt, 10);
    assert_eq!(
        criticals,
        ["CRIT [1] Flash Fire +4"],
        "SKY-EX-03: a Critical of 1 does 1d6 more"
    );
    assert_eq!(text, ", dmg [6] = 10, CRIT [1] Flash Fire +4");
    assert_eq!(state.unit(VALIANT).unwrap().hull, 35 - 6 - 4);
}

/// SKY-KW-FRAGILE and the last figure of SKY-EX-03: any Critical destroys a Wing.
#[test]
fn sky_kw_fragile_any_critical_destroys_a_wing_sky_ex_03() {
    let mut state = battle_state();
    state.units[1].place = Place::InPlay;
    let (state, _, words, _) = critical(state, HAWK, &[]);
    assert_eq!(words, "CRIT: Fragile, destroyed");
    assert_eq!(state.unit(HAWK).unwrap().place, Place::Destroyed);
    assert_eq!(state.sides[1].vp.display(), "25");
}

/// SKY-MOD-6, SKY-GM-25: Reinforced Bulkheads re-roll and keep the second result.
#[test]
fn sky_mod_6_reinforced_bulkheads_reroll_and_keep_the_second_sky_gm_25() {
    // Default standing order: re-roll only an 8.
    let (state, _, words, _) = critical(battle_state(), RESOLUTE, &[8, 3]);
    assert_eq!(
        words, "CRIT [8→3 Bulkheads] Speed Loss",
        "SKY-MOD-6: the 8 is re-rolled"
    );
    assert_eq!(state.unit(RESOLUTE).unwrap().status.speed_loss, 1);
    // The second result stands even if it is another 8.
    let (_, _, words, _) = critical(battle_state(), RESOLUTE, &[8, 8, 7]);
    assert_eq!(
        words, "CRIT [8→8 Bulkheads] Super Critical → SUPER [7] On Fire",
        "SKY-MOD-6: the second result must be kept"
    );
    // Results outside the standing set are kept; ships without Bulkheads never re-roll.
    let (_, _, words, _) = critical(battle_state(), RESOLUTE, &[4]);
    assert_eq!(words, "CRIT [4] Rudder Loss");
    let mut wide = battle_state();
    wide.sides[0].standing.reroll_crit = [4, 8].into_iter().collect();
    let (_, _, words, _) = critical(wide, RESOLUTE, &[4, 1, 2]);
    assert_eq!(words, "CRIT [4→1 Bulkheads] Flash Fire +2");
}

/// SKY-GM-23, SKY-MOR-01, SKY-MOR-04: each morale threshold is checked once.
#[test]
fn morale_thresholds_once_each_sky_gm_23_sky_mor_01_sky_mor_04() {
    let mut dice = rulecases::dice::stream(&[3, 3, 6, 6]);
    let mut battle = Battle::new(battle_state(), &mut dice);
    // 35 → 16: under 50% (17.5) — and not yet under 25%.
    battle.hurt(VALIANT, 19, true);
    battle.morale_checks();
    assert_eq!(
        battle.state.unit(VALIANT).unwrap().status.morale,
        Morale::Steady
    );
    // 16 → 8: under 25% (8.75); the 50% check is not taken again.
    battle.hurt(VALIANT, 8, true);
    battle.morale_checks();
    assert_eq!(
        battle.state.unit(VALIANT).unwrap().status.morale,
        Morale::Shaken
    );
    battle.hurt(VALIANT, 1, true);
    battle.morale_checks();
    let rows: Vec<&String> = battle.log.rows.iter().flat_map(|r| &r.results).collect();
    assert_eq!(
        rows,
        vec![
            "morale (under 50%) 2d6 [3,3] = 6 vs 6: passed",
            "morale (under 25%) 2d6 [6,6] = 12 vs 6: failed → Shaken"
        ]
    );
    drop(battle);
    rulecases::dice::drawn(&mut dice).unwrap();
}

/// SKY-ADM-13: damage dice stop once the target is gone.
#[test]
fn sky_adm_13_damage_dice_stop_once_the_target_is_gone() {
    let mut dice = Dice::scripted([6, 6, 6]);
    let mut battle = Battle::new(battle_state(), &mut dice);
    battle.state.units[TEMPEST.index()].hull = 5;
    let mut text = String::new();
    // Three hits, but the first die destroys Tempest: the other two are never thrown.
    let (dealt, criticals) = battle.damage_dice(
        VALIANT,
        TEMPEST,
        3,
        skyfleet::combat::DamageRule::NORMAL,
        true,
        &mut text,
    );
    assert_eq!((dealt, criticals.len()), (6, 0));
    assert_eq!(text, ", dmg [6] = 6");
    assert_eq!(
        battle.dice.rolls().len(),
        1,
        "SKY-ADM-13: the dice after the one that destroys the target are not thrown"
    );
}

/// SKY-ADM-14: storm damage checks morale at once and hits torpedoes.
#[test]
fn sky_adm_14_storm_damage_checks_morale_at_once_and_hits_torpedoes() {
    let mut state = battle_state();
    state.terrain.storms.push(skyfleet::terrain::Area {
        name: "Squall".into(),
        shape: skyfleet::terrain::Shape::Circle {
            centre: skyfleet::Point::inches(20, 20),
            radius: skyfleet::Length::inches(2),
        },
        band: None,
    });
    state.units[VALIANT.index()].hull = 18;
    let mut dice = Dice::scripted([3, 6, 6, 1, 2]);
    let mut battle = Battle::new(state, &mut dice);
    battle.storms();
    let rows: Vec<&String> = battle.log.rows.iter().flat_map(|r| &r.results).collect();
    assert_eq!(
        rows,
        vec![
            "storm Squall: 1d3 [3] = 3",
            "morale (under 50%) 2d6 [6,6] = 12 vs 6: failed → Shaken"
        ],
        "SKY-ADM-14: the storm's damage checks morale at once"
    );
    // A torpedo is a unit too (SKY-STORM-01): launch one into the storm and strike again.
    let torpedo = battle.launch_torpedo(VALIANT).unwrap();
    battle.storms();
    assert_eq!(battle.state.unit(VALIANT).unwrap().hull, 14);
    assert_eq!(
        battle.state.unit(torpedo).unwrap().hull,
        2,
        "SKY-ADM-14: storms strike torpedoes too"
    );
}

/// SKY-ADM-15: stall and Lift Failure are not stopped by islands.
#[test]
fn sky_adm_15_stall_and_lift_failure_are_not_stopped_by_islands() {
    let mut state = battle_state();
    state.terrain.islands.push(skyfleet::terrain::Island {
        name: "Rock".into(),
        shape: skyfleet::terrain::Shape::Circle {
            centre: skyfleet::Point::inches(20, 20),
            radius: skyfleet::Length::inches(3),
        },
        band: skyfleet::terrain::Band::ISLAND,
    });
    state.units[VALIANT.index()].elevation = 9;
    let mut dice = Dice::scripted([]);
    let mut battle = Battle::new(state, &mut dice);
    battle.stall();
    assert_eq!(
        battle.state.unit(VALIANT).unwrap().elevation,
        8,
        "SKY-ADM-15: over an island, the stall still takes Valiant from e9 to e8"
    );
}

/// SKY-EX-02, every figure: Lance (Piercing 1) die 3 → 4, die 6 → 7 and a Critical; Heavy
/// Missile (Impact) (2, 5) → 5, (6, 1) → 6 and a Critical; MG die 6 → 6 and no Critical; Bombs
/// die 5 → 5 and a Critical; torpedo contact (6, 2, 3) → 11 Hull and one Critical.
#[test]
fn sky_ex_02_damage_dice_of_every_weapon_in_the_example() {
    use skyfleet::combat::{DamageRule, read_damage};
    use skyfleet::tables::WeaponKind;
    let read = |weapon: WeaponKind, faces: &[u32]| read_damage(DamageRule::of(weapon), faces);
    assert_eq!(read(WeaponKind::Lance, &[3]), (4, false));
    assert_eq!(read(WeaponKind::Lance, &[6]), (7, true));
    assert_eq!(read(WeaponKind::HeavyMissile, &[2, 5]), (5, false));
    assert_eq!(read(WeaponKind::HeavyMissile, &[6, 1]), (6, true));
    assert_eq!(read(WeaponKind::MachineGuns, &[6]), (6, false));
    assert_eq!(read(WeaponKind::Bombs, &[5]), (5, true));
    // Torpedo contact: three damage dice read normally, the 6's Critical resolved before the
    // next die (SKY-GM-20); a d8 of 5 (Crew Casualties) adds no Hull.
    let mut dice = rulecases::dice::stream(&[6, 5, 2, 3]);
    let mut battle = Battle::new(battle_state(), &mut dice);
    let mut text = String::new();
    let (dealt, criticals) =
        battle.damage_dice(TEMPEST, VALIANT, 3, DamageRule::NORMAL, true, &mut text);
    let state = battle.state;
    rulecases::dice::drawn(&mut dice).unwrap();
    assert_eq!(dealt, 11);
    assert_eq!(criticals, ["CRIT [5] Crew Casualties"]);
    assert_eq!(text, ", dmg [6,2,3] = 11, CRIT [5] Crew Casualties");
    assert_eq!(state.unit(VALIANT).unwrap().hull, 35 - 11);
}
