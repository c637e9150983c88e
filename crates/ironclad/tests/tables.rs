#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! Every row of the text's result tables, one test each, citing the rule it checks; then the
//! exact odds of IRON-EX-01 worked out by throwing every face through the engine.

use engine::{Dice, Player, PlayerId, Score};
use ironclad::fire::{self, Applied, Group};
use ironclad::state::State;
use ironclad::tables::{DieResult, FireCheck, GunCritical, RamKind, TorpedoCritical, ram_die_fp};
use ironclad::{Area, Heading, Setup};

fn battle() -> State {
    let setup: Setup = serde_json::from_str(
        r#"{"sides": [
            {"name": "Blue", "home_edge": "north", "ships": [{"name": "Artemis", "at": "E5", "heading": "N"}]},
            {"name": "Red", "home_edge": "south", "ships": [{"name": "Leonidas", "at": "G5", "heading": "N"}]}]}"#,
    )
    .unwrap();
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    setup.start(&players).unwrap()
}

/// Artemis fires `group` at Leonidas with the given dice; returns the volley applied and
/// Leonidas afterwards.
fn fire_with(group: Group, damage: &[u32], then: &[u32]) -> (fire::Volley, ironclad::Ship) {
    let mut state = battle();
    if group == Group::Torpedo {
        // Put Leonidas dead ahead at range 1, where the bow tube bears.
        let leonidas = state.ship_mut(ironclad::ShipId(2)).unwrap();
        leonidas.area = Area::parse("E4").unwrap();
    }
    let firer = state.ship(ironclad::ShipId(1)).unwrap().clone();
    let target = state.ship(ironclad::ShipId(2)).unwrap().clone();
    let mut solution = fire::solve(&state, &firer, &target, group, None).unwrap();
    // The table's dice count is checked by the case table; here each test throws its own.
    solution.dice = damage.len() as u32;
    let mut dice = Dice::scripted(damage.iter().chain(then).copied());
    let mut volley = fire::throw(&mut dice, firer.id, group, &target, solution);
    assert_eq!(
        dice.rolls().len(),
        damage.len() + then.len(),
        "all scripted dice used"
    );
    let mut target = target;
    fire::apply(&mut target, &mut volley, firer.area, Some(firer.player), 1);
    (volley, target)
}

// ---- Gunfire: the first die (IRON-GUN-10, IRON-GUN-17, IRON-GUN-18) ----

#[test]
fn gun_die_6_is_a_major_hit_costing_1_fp_and_a_critical_iron_gun_10() {
    assert_eq!(DieResult::of(6), DieResult::Major);
    let (volley, target) = fire_with(Group::Main, &[6], &[3]);
    assert_eq!(volley.criticals.len(), 1);
    assert_eq!(target.fp, 11);
}

#[test]
fn gun_die_4_or_5_is_a_minor_hit_costing_1_fp_iron_gun_17() {
    for face in [4, 5] {
        assert_eq!(DieResult::of(face), DieResult::Minor);
        let (volley, target) = fire_with(Group::Main, &[face], &[]);
        assert!(volley.criticals.is_empty());
        assert_eq!(target.fp, 11);
    }
}

#[test]
fn gun_die_1_to_3_is_ineffective_iron_gun_18() {
    for face in [1, 2, 3] {
        assert_eq!(DieResult::of(face), DieResult::Ineffective);
        let (_, target) = fire_with(Group::Main, &[face], &[]);
        assert_eq!(target.fp, 12);
    }
}

// ---- Gunfire criticals (IRON-GUN-11 to IRON-GUN-16) ----

#[test]
fn gun_critical_6_hits_the_bridge_iron_gun_11() {
    assert_eq!(GunCritical::of(6), GunCritical::Bridge);
    let (volley, target) = fire_with(Group::Main, &[6], &[6]);
    assert_eq!(volley.applied, vec![Applied::BridgeHit]);
    // IRON-GM-11: no fire in turns 2-4, no turning in the movement of turns 1-3.
    assert!(!target.bridge_silences(1));
    assert!(target.bridge_silences(2) && target.bridge_silences(4));
    assert!(!target.bridge_silences(5));
    assert_eq!(target.holds_course_until(1), Some(3));
    assert_eq!(target.holds_course_until(3), Some(3));
    assert_eq!(target.holds_course_until(4), None);
}

#[test]
fn gun_critical_5_destroys_a_main_turret_iron_gun_12() {
    assert_eq!(GunCritical::of(5), GunCritical::Turret);
    let (volley, target) = fire_with(Group::Main, &[6], &[5]);
    assert_eq!(
        volley.applied,
        vec![Applied::TurretLost { turret: "A".into() }]
    );
    assert!(target.turrets[0].destroyed && !target.turrets[1].destroyed);
}

#[test]
fn gun_critical_4_damages_the_engines_iron_gun_13_and_gm_19() {
    assert_eq!(
        GunCritical::of(4),
        GunCritical::Engines,
        "IRON-GM-19: the text's \"Dice score = 4\" is the same second die as the other rows"
    );
    let (volley, target) = fire_with(Group::Main, &[6], &[4]);
    assert_eq!(volley.applied, vec![Applied::EnginesDamaged]);
    assert_eq!(target.max_areas(), 1);
}

#[test]
fn gun_critical_3_destroys_the_nearest_secondary_battery_iron_gun_14() {
    assert_eq!(GunCritical::of(3), GunCritical::Secondary);
    // Artemis lies on Leonidas's port side (IRON-GM-12).
    let (volley, target) = fire_with(Group::Main, &[6], &[3]);
    assert_eq!(volley.applied, vec![Applied::BatteryLost { port: true }]);
    assert!(target.port_battery.destroyed && !target.starboard_battery.destroyed);
}

#[test]
fn gun_critical_2_starts_a_fire_iron_gun_15() {
    assert_eq!(GunCritical::of(2), GunCritical::Fire);
    let (volley, target) = fire_with(Group::Main, &[6], &[2]);
    assert_eq!(volley.applied, vec![Applied::FireStarted]);
    let fire = target.fire.unwrap();
    assert_eq!((fire.since_turn, fire.started_by), (1, Some(PlayerId(1))));
    // IRON-GM-13: burning costs no FP by itself.
    assert_eq!(target.fp, 11);
}

#[test]
fn gun_critical_1_costs_one_more_fp_iron_gun_16() {
    assert_eq!(GunCritical::of(1), GunCritical::ExtraFp);
    let (volley, target) = fire_with(Group::Main, &[6], &[1]);
    assert_eq!(volley.applied, vec![Applied::MoreFp { fp: 1 }]);
    assert_eq!(target.fp, 10);
}

#[test]
fn the_fire_roll_each_turn_iron_gun_15() {
    // 5-6 out, 2-4 burns on, 1 the magazine (IRON-GUN-15, IRON-EX-05).
    let rolls: Vec<FireCheck> = (1..=6).map(FireCheck::of).collect();
    assert_eq!(
        rolls,
        vec![
            FireCheck::MagazineExplodes,
            FireCheck::Burning,
            FireCheck::Burning,
            FireCheck::Burning,
            FireCheck::Extinguished,
            FireCheck::Extinguished
        ]
    );
}

// ---- Torpedoes (IRON-TORP-04 to IRON-TORP-10) ----

#[test]
fn torpedo_die_6_is_a_major_hit_iron_torp_04() {
    let (volley, target) = fire_with(Group::Torpedo, &[6], &[2]);
    assert_eq!(volley.criticals.len(), 1);
    assert_eq!(target.fp, 10); // 1 for the hit, 1 for critical 2
}

#[test]
fn torpedo_critical_6_jams_the_rudder_for_d6_turns_iron_torp_05() {
    assert_eq!(TorpedoCritical::of(6), TorpedoCritical::Rudder);
    let (volley, target) = fire_with(Group::Torpedo, &[6], &[6, 4]);
    assert_eq!(
        volley.applied,
        vec![Applied::RudderJammed { turns: 4, until: 4 }]
    );
    assert_eq!(target.holds_course_until(4), Some(4));
    assert_eq!(target.holds_course_until(5), None);
    assert_eq!(target.fp, 11);
}

#[test]
fn a_second_rudder_hit_restarts_but_never_shortens_the_hold_iron_adm_02() {
    // IRON-GM-11: a 5-turn hold from turn 1 runs to turn 5; a 1-turn hit in
    // turn 3 would end it at turn 3, so it stands at 5; a 6-turn hit in turn 3 runs to 8.
    let (_, mut target) = fire_with(Group::Torpedo, &[6], &[6, 5]);
    assert_eq!(target.rudder_until, Some(5));
    let state = battle();
    let firer = state.ship(ironclad::ShipId(1)).unwrap().clone();
    for (turns, until) in [(1, 5), (6, 8)] {
        let mut target_state = state.clone();
        target_state.ship_mut(ironclad::ShipId(2)).unwrap().area = Area::parse("E4").unwrap();
        let leonidas = target_state.ship(ironclad::ShipId(2)).unwrap();
        let mut solution =
            fire::solve(&target_state, &firer, leonidas, Group::Torpedo, None).unwrap();
        let mut dice = Dice::scripted([6, 6, turns]);
        solution.dice = 1;
        let mut volley = fire::throw(&mut dice, firer.id, Group::Torpedo, &target, solution);
        fire::apply(&mut target, &mut volley, firer.area, None, 3);
        assert_eq!(
            target.rudder_until,
            Some(until),
            "IRON-ADM-02: a {turns}-turn hit in turn 3 restarts the hold but never shortens it"
        );
    }
}

#[test]
fn torpedo_critical_5_floods_the_engine_rooms_iron_torp_06() {
    assert_eq!(TorpedoCritical::of(5), TorpedoCritical::Flooding);
    let (volley, target) = fire_with(Group::Torpedo, &[6], &[5]);
    assert_eq!(volley.applied, vec![Applied::Flooded]);
    assert_eq!(target.max_areas(), 1);
}

#[test]
fn torpedo_critical_3_or_4_costs_two_more_fp_iron_torp_07() {
    for face in [3, 4] {
        assert_eq!(TorpedoCritical::of(face), TorpedoCritical::TwoMoreFp);
        let (_, target) = fire_with(Group::Torpedo, &[6], &[face]);
        assert_eq!(target.fp, 9);
    }
}

#[test]
fn torpedo_critical_1_or_2_costs_one_more_fp_iron_torp_08() {
    for face in [1, 2] {
        assert_eq!(TorpedoCritical::of(face), TorpedoCritical::OneMoreFp);
        let (_, target) = fire_with(Group::Torpedo, &[6], &[face]);
        assert_eq!(target.fp, 10, "IRON-TORP-08: critical {face}, one more FP");
    }
}

#[test]
fn torpedo_die_4_or_5_is_a_minor_hit_iron_torp_09() {
    for face in [4, 5] {
        let (volley, target) = fire_with(Group::Torpedo, &[face], &[]);
        assert!(volley.criticals.is_empty());
        assert_eq!(target.fp, 11);
    }
}

#[test]
fn torpedo_die_1_to_3_is_ineffective_iron_torp_10() {
    for face in [1, 2, 3] {
        let (_, target) = fire_with(Group::Torpedo, &[face], &[]);
        assert_eq!(target.fp, 12);
    }
}

// ---- Ramming (IRON-RAM-03 to IRON-RAM-09) ----

#[test]
fn ram_dice_counts_iron_ram_03_04_07_08() {
    // IRON-RAM-03, IRON-RAM-04, IRON-RAM-07, IRON-RAM-08
    // IRON-EX-03: (rammed, rammer).
    assert_eq!(RamKind::HeadOn.dice(true), (4, 2));
    assert_eq!(RamKind::HeadOn.dice(false), (2, 2));
    assert_eq!(RamKind::SideOn.dice(true), (6, 2));
    assert_eq!(RamKind::SideOn.dice(false), (3, 2));
}

#[test]
fn ram_die_results_iron_ram_05_and_09() {
    // Head-on and side-on share one table: 6 major (-2), 4-5 minor (-1), 1-3 nothing.
    let losses: Vec<u8> = (1..=6).map(ram_die_fp).collect();
    assert_eq!(losses, vec![0, 0, 0, 1, 1, 2]);
}

#[test]
fn head_on_is_from_the_bow_or_stern_area_iron_ram_02_and_06() {
    // IRON-GM-09(c), IRON-EX-08: the rammed ship's heading decides, not the rammer's.
    let mut state = battle();
    let leonidas = state.ship_mut(ironclad::ShipId(2)).unwrap();
    leonidas.area = Area::parse("F5").unwrap();
    leonidas.heading = Heading::N;
    let leonidas = leonidas.clone();
    let kind = |from: &str| ironclad::movement::ram_kind(&leonidas, Area::parse(from).unwrap());
    assert_eq!(kind("F4"), RamKind::HeadOn);
    assert_eq!(kind("F6"), RamKind::HeadOn);
    for side in ["E5", "G5", "E4", "G4", "E6", "G6"] {
        assert_eq!(kind(side), RamKind::SideOn, "{side}");
    }
}

// ---- The tables as a whole ----

#[test]
fn each_critical_table_covers_every_face_once_iron_meta_01_and_gm_20() {
    // The earlier version's "6 used twice" is gone: six faces, six distinct entries, and the
    // critical die is a separate draw after all the damage dice (IRON-GM-20).
    let gun: Vec<GunCritical> = (1..=6).map(GunCritical::of).collect();
    for (i, a) in gun.iter().enumerate() {
        for b in gun.iter().skip(i + 1) {
            assert_ne!(a, b, "IRON-META-01: the gun criticals use each face once");
        }
    }
    let (volley, _) = fire_with(Group::Main, &[6, 6, 1], &[5, 2]);
    assert_eq!(volley.dice, vec![6, 6, 1]);
    let crit_faces: Vec<u32> = volley
        .criticals
        .iter()
        .map(|c| match c {
            fire::CriticalRoll::Gun { face, .. } | fire::CriticalRoll::Torpedo { face, .. } => {
                *face
            }
        })
        .collect();
    assert_eq!(crit_faces, vec![5, 2]);
}

/// Exact distribution of the FP one die takes off, over every face and every critical face.
fn distribution(group: Group) -> Vec<Score> {
    let mut counts = vec![Score::ZERO; 4];
    for face in 1..=6u32 {
        let crits: Vec<Vec<u32>> = if face == 6 {
            (1..=6)
                .map(|c| {
                    if group == Group::Torpedo && c == 6 {
                        vec![c, 1]
                    } else {
                        vec![c]
                    }
                })
                .collect()
        } else {
            vec![vec![]]
        };
        let weight = Score::ratio(1, 6 * crits.len() as i64);
        for crit in crits {
            let (_, target) = fire_with(group, &[face], &crit);
            counts[usize::from(12 - target.fp)] += weight;
        }
    }
    counts
}

#[test]
fn derived_odds_per_die_iron_ex_01() {
    let gun = distribution(Group::Main);
    assert_eq!(
        gun,
        vec![
            Score::ratio(1, 2),
            Score::ratio(17, 36),
            Score::ratio(1, 36),
            Score::ZERO
        ]
    );
    let torpedo = distribution(Group::Torpedo);
    assert_eq!(
        torpedo,
        vec![
            Score::ratio(1, 2),
            Score::ratio(7, 18),
            Score::ratio(1, 18),
            Score::ratio(1, 18)
        ]
    );
    let mean = |d: &[Score]| -> Score {
        d.iter()
            .enumerate()
            .map(|(fp, p)| Score::ratio(p.numerator() * fp as i64, p.denominator()))
            .sum()
    };
    assert_eq!(mean(&gun), Score::ratio(19, 36));
    assert_eq!(mean(&torpedo), Score::ratio(2, 3));
    let ram: Vec<Score> = (0..=2u8)
        .map(|fp| Score::ratio((1..=6).filter(|f| ram_die_fp(*f) == fp).count() as i64, 6))
        .collect();
    assert_eq!(
        ram,
        vec![Score::ratio(1, 2), Score::ratio(1, 3), Score::ratio(1, 6)]
    );
}
