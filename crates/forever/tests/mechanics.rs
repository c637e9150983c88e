#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The text's worked examples (FOREVER-EX-07 to FOREVER-EX-20, each test citing its own) and
//! hand-computed geometry: a line hitting
//! the first of two rectangles, a rotated ship, a blast touching some sections and not others.

mod common;

use common::{ALICE, BOB, battle, hp, play, renamed, result, ship};
use engine::TurnDice;
use forever::battle::damage::explosion_damage;
use forever::battle::movement::ram_damage;
use forever::battle::shooting::{battery_offsets, missile_damage, shot_marker};
use forever::battle::terrain::{black_hole_pull, drift_distance};
use forever::battle::{Battle, Thing};
use forever::fixed::Degrees;
use forever::geometry::Point;

/// A gun at the front: S1's centre is 1.5" ahead of the core.
const SNIPER: &[&str] = &[
    "SHIP Sniper",
    "CORE",
    "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN(range 24, accuracy 20)",
];

/// A target whose S1 lies 2" behind its core (facing 0: to the left of it).
const TARGET: &[&str] = &[
    "SHIP Target",
    "CORE HP+3",
    "SECTION S1 PARENT CORE SIZE 2x1 AT (-2, 0)",
];

/// FOREVER-EX-15: the scatter geometry, shifted to (10, 24): hit on a grazing line, miss at 2",
/// miss with accuracy 10, straight at the aim with accuracy 0.
#[test]
fn forever_ex_15_scatter_geometry() {
    // The gun at (10, 24), the target's S1 spans x 20..22,
    // y 23.5..24.5 and is aimed at its centre (21, 24). Accuracy 20: marker (30, 24); bearing
    // 90°, D6 2 → 1" → (30, 25); the line y = 24 + (x - 10)/20 grazes (20, 24.5): a hit.
    let state = battle(&[(SNIPER, 8.5, 24.0, 0)], &[(TARGET, 23.0, 24.0, 0)]);
    let (after, report) = play(&state, &[(ALICE, "FIRE Sniper.S1 AT Target.S1")], &[90, 2]);
    assert_eq!(hp(&after, "Target", "S1"), 0, "{}", report.to_text());
    assert_eq!(
        result(&report, "Alice: Sniper"),
        "S1: 90°/1\", hit at (20, 24.5): Target.S1 −1, Target.S1 destroyed, feedback: core −1, \
         Target core has no sections left, Target core destroyed, Target core explodes (8)",
        "FOREVER-EX-15: the marker 20\" out (FOREVER-SHOOT-2), moved 1\" at 90° (FOREVER-SHOOT-3); \
         the line from the gun through it (FOREVER-SHOOT-4), exactly (FOREVER-ADM-02), grazes S1"
    );
    // D6 3 → 2": y = 24 + (x - 10)/10 is 25 at x = 20: over the top; a miss.
    let (after, report) = play(&state, &[(ALICE, "FIRE Sniper.S1 AT Target.S1")], &[90, 3]);
    assert_eq!(
        hp(&after, "Target", "S1"),
        1,
        "FOREVER-EX-15: a scatter of 2\" (FOREVER-SHOOT-3) misses"
    );
    assert!(
        result(&report, "Alice: Sniper").ends_with("miss"),
        "{}",
        report.to_text()
    );
    // Accuracy 10: the marker (20, 24) moved 1" is (20, 25): the same line, a miss.
    let plain = [
        "SHIP Sniper",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN(range 24)",
    ];
    let state = battle(&[(&plain, 8.5, 24.0, 0)], &[(TARGET, 23.0, 24.0, 0)]);
    let (after, _) = play(&state, &[(ALICE, "FIRE Sniper.S1 AT Target.S1")], &[90, 2]);
    assert_eq!(
        hp(&after, "Target", "S1"),
        1,
        "FOREVER-EX-15: accuracy 10 puts the marker 10\" out (FOREVER-SHOOT-2): a miss"
    );
    let gun = Point::inches(10, 24);
    let aim = Point::inches(21, 24);
    assert_eq!(
        shot_marker(gun, aim, 0, Degrees::new(90), 5),
        Some(aim),
        "FOREVER-EX-15, FOREVER-SHOOT-6: accuracy 0 is straight at the aim"
    );
    assert_eq!(
        shot_marker(gun, aim, 20, Degrees::new(90), 1),
        Some(Point::inches(30, 25))
    );
}

/// FOREVER-EX-16: a torpedo declared at 15", scatter 0", then its own D6 5 (+2") or 1 (−2").
#[test]
fn forever_ex_16_torpedo_hits_where_it_lands() {
    // The gun at (10, 24) declares 15" toward (25, 24); scatter D6 1 (0") at bearing 0; the torpedo D6 5
    // moves the mark +2" to (27, 24), onto the core there, passing over a ship across (18, 24).
    let torpedo = [
        "SHIP Torp",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT TORPEDO(range 18)",
    ];
    let blocker = [
        "SHIP Blocker",
        "CORE HP+3",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (0, 1)",
    ];
    let target = [
        "SHIP Far",
        "CORE HP+3",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)",
    ];
    let state = battle(
        &[(&torpedo, 8.5, 24.0, 0)],
        &[(&blocker, 18.0, 23.5, 0), (&target, 27.0, 24.0, 0)],
    );
    let order = "FIRE Torp.S1 AT 25, 24 RANGE 15";
    let (after, report) = play(&state, &[(ALICE, order)], &[0, 1, 5]);
    assert_eq!(
        hp(&after, "Far", "core"),
        8,
        "FOREVER-EX-16, FOREVER-WPN-TORP-5: one bullet of damage 1 where the mark lands\n{}",
        report.to_text()
    );
    assert_eq!(
        hp(&after, "Blocker", "core"),
        9,
        "FOREVER-EX-16, FOREVER-WPN-TORP-7: the torpedo passes over the ship on its way"
    );
    assert_eq!(
        result(&report, "Alice: Torp"),
        "S1: 0°/0\", run 15\" +2\" to (27, 24), hit Far.core −1",
        "FOREVER-EX-16, FOREVER-WPN-TORP-8: 15\" along the line, then D6 5 − 3 = +2\""
    );
    // D6 1: −2" to (23, 24): nothing there.
    let (after, report) = play(&state, &[(ALICE, order)], &[0, 1, 1]);
    assert_eq!(hp(&after, "Far", "core"), 9);
    assert_eq!(
        result(&report, "Alice: Torp"),
        "S1: 0°/0\", run 15\" -2\" to (23, 24), miss",
        "FOREVER-EX-16, FOREVER-WPN-TORP-8: D6 1 − 3 = −2\""
    );
    assert_eq!(hp(&after, "Blocker", "core"), 9);
}

/// FOREVER-EX-17: a laser of damage 2 and sweep 2, `SWEEP R 0.75`: A takes 2 + 2, B 2.
#[test]
fn forever_ex_17_laser_sweep() {
    // A laser (damage 2, sweep 2) fires along +x and hits
    // A at (20, 24.4); SWEEP R 0.75 stops at (20, 23.65) on A and (20, 22.9) on B below.
    let laser = [
        "SHIP Lance",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT LASER(damage 2, sweep 2)",
    ];
    let wall = [
        "SHIP Wall",
        "CORE",
        "SECTION A PARENT CORE SIZE 2x1 AT (-2, 0) HP+3",
        "SECTION B PARENT A SIZE 2x1 AT (-2, -1) HP+2",
    ];
    let state = battle(&[(&laser, 8.5, 24.4, 0)], &[(&wall, 23.0, 24.0, 0)]);
    let (after, report) = play(
        &state,
        &[(ALICE, "FIRE Lance.S1 AT 30, 24.4 SWEEP R 0.75")],
        &[0, 1],
    );
    assert_eq!(
        result(&report, "Alice: Lance"),
        "S1: 0°/0\", hit at (20, 24.4): Wall.A −2, sweep (20, 23.65) Wall.A −2, \
         sweep (20, 22.9) Wall.B −2",
        "FOREVER-EX-17, FOREVER-WPN-LASER-4: the section hit, then one step of 0.75\" to the \
         side the order names (FOREVER-GM-15) per point of sweep"
    );
    assert_eq!(hp(&after, "Wall", "A"), 5 - 4);
    assert_eq!(hp(&after, "Wall", "B"), 3 - 2);
}

/// FOREVER-EX-08: a rail gun of damage 5 and range 24 through three plates: 5, 2, 1.
#[test]
fn forever_ex_08_rail_gun_chain() {
    // FOREVER-WPN-RAIL-2, FOREVER-GM-17: damage 5, range 24. First contact 10" out → 5; the
    // range left is (24 − 10)/2 = 7; the next 3" further → ⌊2.5⌋ = 2; range (7 − 3)/2 = 2; the
    // next within 2" → ⌊1.25⌋ = 1; then 0.625 < 1: the bullet stops.
    // Damage 5 and range 24 cost (1 + 2 + 8) × 1.5 = 16.5: the gun needs distance 2.
    let rail = [
        "SHIP Rail",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)",
        "SECTION S2 PARENT S1 SIZE 1x1 AT (2.5, 0) MOUNT RAIL(range 24, damage 5)",
    ];
    // Plates: a 0.5" x 2" section hanging below a core above the line (or above one below),
    // so only the plate stands on the line y = 24.
    let up = [
        "SHIP Up",
        "CORE HP+4",
        "SECTION S1 PARENT CORE SIZE 0.5x2 AT (0, -1.5) HP+9",
    ];
    let down = [
        "SHIP Down",
        "CORE HP+4",
        "SECTION S1 PARENT CORE SIZE 0.5x2 AT (0, 1.5) HP+9",
    ];
    let (p1, p2, p3) = (renamed(&up, "P1"), renamed(&down, "P2"), renamed(&up, "P3"));
    // Plate faces at x = 20 (10" from the gun), 23 and 24.5.
    let state = battle(
        &[(&rail, 7.5, 24.0, 0)],
        &[
            (&p1, 20.25, 26.0, 0),
            (&p2, 23.25, 22.0, 0),
            (&p3, 24.75, 26.0, 0),
        ],
    );
    let (after, report) = play(&state, &[(ALICE, "FIRE Rail.S2 AT 30, 24")], &[0, 1]);
    assert_eq!(hp(&after, "P1", "S1"), 10 - 5, "{}", report.to_text());
    assert_eq!(
        hp(&after, "P2", "S1"),
        10 - 2,
        "FOREVER-EX-08: 5 x 3.5 / 7, rounded down"
    );
    assert_eq!(
        hp(&after, "P3", "S1"),
        10 - 1,
        "FOREVER-EX-08: 2.5 x 1 / 2, rounded down"
    );
    // Three contacts and no more: the next would do 0.625, under 1.
    assert_eq!(
        result(&report, "Alice: Rail"),
        "S2: 0°/0\", rail at (20, 24): P1.S1 −5, rail at (23, 24): P2.S1 −2, \
         rail at (24.5, 24): P3.S1 −1"
    );
    // With the third plate 2.5" beyond the second, out of the 2" left, it is not reached.
    let state = battle(
        &[(&rail, 7.5, 24.0, 0)],
        &[
            (&p1, 20.25, 26.0, 0),
            (&p2, 23.25, 22.0, 0),
            (&p3, 25.75, 26.0, 0),
        ],
    );
    let (after, report) = play(&state, &[(ALICE, "FIRE Rail.S2 AT 30, 24")], &[0, 1]);
    assert_eq!(hp(&after, "P2", "S1"), 10 - 2, "{}", report.to_text());
    assert_eq!(hp(&after, "P3", "S1"), 10);
}

/// FOREVER-EX-09: a blast of 3 does 3, 3, 1, 1, 0, 0 at 0, 0.5, 1, 1.4, 1.6 and 2.5".
#[test]
fn forever_ex_09_missile_fall_off() {
    // D = 3, radius 3".
    for (distance, damage) in [
        (0, 3),
        (50, 3),
        (100, 1),
        (140, 1),
        (160, 0),
        (250, 0),
        (301, 0),
    ] {
        assert_eq!(
            missile_damage(3, distance),
            damage,
            "FOREVER-EX-09: D / (2 d) (FOREVER-WPN-MSL-6), D at the centre and rounded down \
             (FOREVER-GM-16), nothing beyond 3\" (FOREVER-WPN-MSL-5); d = {distance}"
        );
    }
}

#[test]
fn a_blast_touches_some_sections_and_not_others() {
    // FOREVER-WPN-MSL-6 in the battle: a blast of 3 at (30, 24) against a row of sections
    // whose near edges are 0, 0.5, 1 and 1.6" away; a section 3.5" away is out of reach.
    let row = [
        "SHIP Row",
        "CORE HP+3",
        "SECTION A PARENT CORE SIZE 0.5x1 AT (1.25, 0) HP+9",
        "SECTION B PARENT A SIZE 0.5x1 AT (1.75, 0) HP+9",
    ];
    let far = [
        "SHIP Far",
        "CORE HP+4",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)",
    ];
    let state = battle(
        &[(&row, 30.0, 26.0, 270), (&far, 40.0, 24.0, 0)],
        &[(&renamed(&far, "Other"), 60.0, 24.0, 0)],
    );
    // Row faces down: its core spans y 25..27 (x 29.5..30.5), A spans y 24.5..25, B 24..24.5.
    let mut dice = TurnDice::scripted([], []);
    let mut fight = Battle::new(state, &mut dice).unwrap();
    let mut out = Vec::new();
    fight.blast(Point::new(3000, 2350), 3, Some(ALICE), &mut out);
    let after = fight.state;
    // B is 0.5" away → 3; A 1" → 1; the core 1.5" → 1; Far is 9.5" away → nothing.
    assert_eq!(hp(&after, "Row", "B"), 10 - 3, "{out:?}");
    assert_eq!(hp(&after, "Row", "A"), 11 - 1);
    assert_eq!(hp(&after, "Row", "core"), 10 - 1);
    assert_eq!(hp(&after, "Far", "S1"), 1);
    assert_eq!(hp(&after, "Far", "core"), 10);
}

#[test]
fn a_line_hits_the_first_of_two_ships_and_a_rotated_ship_where_expected() {
    // FOREVER-SHOOT-5: two targets on one line: the nearer is touched first.
    let state = battle(
        &[(SNIPER, 8.5, 24.0, 0)],
        &[
            (TARGET, 23.0, 24.0, 0),
            (&renamed(TARGET, "Second"), 33.0, 24.0, 0),
        ],
    );
    let mut dice = TurnDice::scripted([], []);
    let fight = Battle::new(state, &mut dice).unwrap();
    let (_, first) = fight
        .trace(Point::inches(10, 24), Point::inches(40, 24), &|t| {
            t == Thing::Part(0, 1)
        })
        .unwrap();
    assert_eq!(fight.name(first), "Target.S1");
    // A ship turned 90° at (20, 30): its S1 (local (-2, 0)) lies below the core, at y 27..29.
    let state = battle(&[(SNIPER, 8.5, 24.0, 0)], &[(TARGET, 20.0, 30.0, 90)]);
    let mut dice = TurnDice::scripted([], []);
    let fight = Battle::new(state, &mut dice).unwrap();
    let (_, thing) = fight
        .trace(Point::inches(10, 28), Point::inches(30, 28), &|_| false)
        .unwrap();
    assert_eq!(fight.name(thing), "Target.S1");
    let (_, thing) = fight
        .trace(Point::inches(10, 30), Point::inches(30, 30), &|_| false)
        .unwrap();
    assert_eq!(fight.name(thing), "Target.core");
    assert!(
        fight
            .trace(Point::inches(10, 32), Point::inches(30, 32), &|_| false)
            .is_none()
    );
}

/// FOREVER-EX-07: ⌊12 × 4 / 6⌋ = 8 and ⌊6 × 2.5 / 40⌋ = 0.
#[test]
fn forever_ex_07_ramming() {
    // FOREVER-RAM-1, FOREVER-GM-33: a mass-12 section moves 8" into a mass-6 section.
    assert_eq!(ram_damage(12 * 16, 800, 6 * 16), 8);
    // A mass-6 section moves 5" into a mass-40 section: ⌊6 × 2.5 ÷ 40⌋ = 0.
    assert_eq!(ram_damage(6 * 16, 500, 40 * 16), 0);
}

/// FOREVER-EX-10: a core at −3 HP does 2, 2, 1, 0 at 0.5, 1, 2 and 3"; at exactly 0, no blast.
#[test]
fn forever_ex_10_core_explosion() {
    for (distance, damage) in [(50, 2), (100, 2), (200, 1), (300, 0), (400, 0)] {
        assert_eq!(
            explosion_damage(-3, distance),
            damage,
            "FOREVER-EX-10, FOREVER-DEST-1: |core HP| − distance; d = {distance}"
        );
    }
    assert_eq!(
        explosion_damage(0, 0),
        0,
        "a core at exactly 0 HP does no blast damage"
    );
}

/// FOREVER-EX-11: 3d6 11 at mass 12 drifts 9.16"; 5 at mass 40 is 1.25, clamped to 3"; 18 at
/// mass 5 is 36, clamped to 18".
#[test]
fn forever_ex_11_jettison_drift() {
    // FOREVER-JET-4, FOREVER-GM-34.
    assert_eq!(
        drift_distance(11, 12 * 16),
        916,
        "FOREVER-EX-11: 110 / 12 = 9.1666…, floored to the hundredth (FOREVER-GM-03)"
    );
    assert_eq!(
        drift_distance(5, 40 * 16),
        300,
        "FOREVER-EX-11: 1.25, clamped to 3"
    );
    assert_eq!(
        drift_distance(18, 5 * 16),
        1800,
        "FOREVER-EX-11: 36, clamped to 18"
    );
}

/// FOREVER-EX-12: pulled 7" from 10", 0 at 24", 11.75" from 0.5", untouched at 25".
#[test]
fn forever_ex_12_black_hole() {
    // FOREVER-TER-3, FOREVER-GM-41.
    assert_eq!(black_hole_pull(1000), Some(700));
    assert_eq!(black_hole_pull(2400), None, "at 24\": 0");
    assert_eq!(black_hole_pull(2399), Some(1));
    assert_eq!(black_hole_pull(50), Some(1175));
    assert_eq!(black_hole_pull(2500), None);
}

/// FOREVER-EX-14: six guns [0, 0, +1, −1, 0, 0]; twelve [0, 0, +1, −1, 0, 0, +1, −1, +2, −2, +3, −3].
#[test]
fn forever_ex_14_battery_offsets() {
    // FOREVER-BAT-1, FOREVER-GM-38.
    assert_eq!(
        battery_offsets(6),
        vec![0, 0, 1, -1, 0, 0],
        "FOREVER-EX-14: six guns"
    );
    assert_eq!(
        battery_offsets(12),
        vec![0, 0, 1, -1, 0, 0, 1, -1, 2, -2, 3, -3],
        "FOREVER-EX-14: twelve guns"
    );
    assert_eq!(battery_offsets(14)[12..], [4, -4]);
}

/// A chain core–A–B–C with HP 8/3/2/1 (FOREVER-EX-20).
const CHAIN: &[&str] = &[
    "SHIP Chain",
    "CORE",
    "SECTION A PARENT CORE SIZE 1x1 AT (1.5, 0)",
    "SECTION B PARENT A SIZE 1x1 AT (2.5, 0)",
    "SECTION C PARENT B SIZE 1x1 AT (3.5, 0)",
];

/// FOREVER-EX-20: feedback down a chain core–A–B–C, ending in the core's explosion.
#[test]
fn forever_ex_20_feedback() {
    // FOREVER-FB-1, FOREVER-FB-3, FOREVER-GM-35: C destroyed → B 2→1, A 3→2,
    // core 8→7; then B → A 1, core 6; then A, the core's only child → the core is destroyed at
    // once and explodes with its 5 HP.
    let bystander = [
        "SHIP Near",
        "CORE HP+4",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) HP+9",
    ];
    let state = battle(&[(CHAIN, 30.0, 24.0, 0)], &[(&bystander, 30.0, 27.0, 0)]);
    assert_eq!(hp(&state, "Chain", "core"), 8);
    let mut dice = TurnDice::scripted([], []);
    let mut fight = Battle::new(state, &mut dice).unwrap();
    fight.begin_player_turn(BOB);
    let mut out = Vec::new();
    fight.damage(Thing::Part(0, 3), 1, Some(BOB), &mut out);
    let hps = |f: &Battle| {
        f.state.ships[0]
            .parts
            .iter()
            .map(|p| p.hp)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        hps(&fight),
        vec![7, 2, 1, 0],
        "FOREVER-EX-20: C destroyed: feedback 1 to each ancestor"
    );
    fight.damage(Thing::Part(0, 2), 1, Some(BOB), &mut out);
    assert_eq!(
        hps(&fight)[..2],
        [6, 1],
        "FOREVER-EX-20, FOREVER-FB-2: B destroyed; A at 1 is not destroyed by the feedback"
    );
    fight.damage(Thing::Part(0, 1), 1, Some(BOB), &mut out);
    assert!(fight.state.ships[0].destroyed, "{out:?}");
    assert_eq!(
        hps(&fight)[0],
        5,
        "FOREVER-EX-20: feedback took the core to 5, never below 1 (FOREVER-FB-2)"
    );
    assert!(
        out.iter().any(|o| o.contains("Chain core explodes (5)")),
        "{out:?}"
    );
    // The bystander's core is 1.5" from the exploded core's centre (edge at y 26.5): ⌊5 − 2.5⌋ … the
    // nearest point is (30, 26.5), 2.5" away → 2.
    assert_eq!(fight.state.ships[1].parts[0].hp, 10 - 2, "{out:?}");
    // Bob destroyed three sections and the core: 1.5 + 2 + 2.5 + 5 = 11 points.
    assert_eq!(fight.state.seat(BOB).unwrap().score.to_string(), "11");
}

/// FOREVER-EX-13: electric feedback: 3 of 8 sections lost in one player-turn disables, 2 does
/// not; a section of base HP 2 at 1 HP taking 4 (to −3, under −2) disables. The third figure
/// (3 sections, losing 1) is `forever_ef_2_losing_one_section_is_exempt`.
#[test]
fn forever_ex_13_electric_feedback() {
    // FOREVER-EF-1, FOREVER-GM-37: a ship with 8 non-core sections losing 3 in one
    // player-turn is disabled; losing 2 is not.
    // Four children of the core, each carrying one more: eight sections.
    let eight = [
        "SHIP Eight",
        "CORE",
        "SECTION S0 PARENT CORE SIZE 1x1 AT (1.5, 0)",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (-1.5, 0)",
        "SECTION S2 PARENT CORE SIZE 2x1 AT (0, 1)",
        "SECTION S3 PARENT CORE SIZE 2x1 AT (0, -1)",
        "SECTION S4 PARENT S0 SIZE 1x1 AT (2.5, 0)",
        "SECTION S5 PARENT S1 SIZE 1x1 AT (-2.5, 0)",
        "SECTION S6 PARENT S2 SIZE 2x1 AT (0, 2)",
        "SECTION S7 PARENT S3 SIZE 2x1 AT (0, -2)",
    ];
    let other = [
        "SHIP Other",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)",
    ];
    let fresh = || {
        let state = battle(&[(&eight, 30.0, 24.0, 0)], &[(&other, 50.0, 24.0, 0)]);
        let dice = TurnDice::scripted([], []);
        (state, dice)
    };
    let (state, mut dice) = fresh();
    let mut fight = Battle::new(state, &mut dice).unwrap();
    fight.begin_player_turn(BOB);
    let mut out = Vec::new();
    for part in [5, 6] {
        fight.damage(Thing::Part(0, part), 1, Some(BOB), &mut out);
    }
    assert_eq!(
        fight.state.ships[0].disabled_through, None,
        "FOREVER-EX-13: 2 of 8 is not more than a quarter"
    );
    fight.damage(Thing::Part(0, 7), 1, Some(BOB), &mut out);
    assert_eq!(
        fight.state.ships[0].disabled_through,
        Some(1),
        "FOREVER-EX-13: 3 of 8: disabled through Alice's next turn"
    );
    // A section with base HP 2 at 1 HP takes 4 → −3 < −2: electric feedback.
    // S0 has base HP 2 (1 + its one child).
    let below = |damage: i64| {
        let (state, _) = fresh();
        let mut dice = rulecases::dice::scripted(&[0, 1], &[]);
        let mut fight = Battle::new(state, &mut dice).unwrap();
        fight.begin_player_turn(BOB);
        fight.state.ships[0].parts[1].hp = 1;
        let mut out = Vec::new();
        fight.damage(Thing::Part(0, 1), damage, Some(BOB), &mut out);
        let after = fight.state;
        rulecases::dice::all_used(&mut dice).unwrap();
        (
            after.ships[0].parts[1].hp,
            after.ships[0].disabled_through,
            out,
        )
    };
    let (hp_left, disabled, out) = below(4);
    assert_eq!(
        (hp_left, disabled),
        (-3, Some(1)),
        "FOREVER-EX-13, FOREVER-EF-3: below −(base HP 2): {out:?}"
    );
    assert!(
        out.contains(&"Eight disabled (electric feedback: Eight.S0 at -3 HP)".to_string()),
        "{out:?}"
    );
    // Taking 3 leaves it at −2, not below −2: it is destroyed but the ship is not disabled.
    let (hp_left, disabled, out) = below(3);
    assert_eq!(
        (hp_left, disabled),
        (-2, None),
        "FOREVER-EX-13, FOREVER-EF-3: −2 is not below −2: {out:?}"
    );
}

/// FOREVER-EX-13's third figure, FOREVER-EF-2: a ship with 3 sections losing 1 (a third) is
/// exempt: only one section lost.
#[test]
fn forever_ef_2_losing_one_section_is_exempt() {
    let three = [
        "SHIP Three",
        "CORE",
        "SECTION A PARENT CORE SIZE 1x1 AT (1.5, 0)",
        "SECTION B PARENT CORE SIZE 1x1 AT (-1.5, 0)",
        "SECTION C PARENT CORE SIZE 2x1 AT (0, 1)",
    ];
    let other = [
        "SHIP Other",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)",
    ];
    let state = battle(&[(&three, 30.0, 24.0, 0)], &[(&other, 50.0, 24.0, 0)]);
    let mut dice = TurnDice::scripted([], []);
    let mut fight = Battle::new(state, &mut dice).unwrap();
    fight.begin_player_turn(BOB);
    let mut out = Vec::new();
    fight.damage(Thing::Part(0, 1), 1, Some(BOB), &mut out);
    assert_eq!(
        fight.state.ships[0].disabled_through, None,
        "FOREVER-EX-13, FOREVER-EF-2: a third, but only one section: {out:?}"
    );
}

/// FOREVER-EX-18: the opening turn. A ship of speed 8: the first player has no phase 1 and at
/// most half speed, 4", in phase 3; the second player has the whole 8" over phases 1 and 3.
#[test]
fn forever_ex_18_opening_turn() {
    // FOREVER-PLAY-3, FOREVER-GM-31.
    // Mass: core 20 + 2·6 = 32, S1 (2"×1", 3 HP) 10 + 3 = 13 → 45; speed 12 × 30 ÷ 45 = 8".
    let runner = [
        "SHIP Runner",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 2x1 AT (-2, 0) HP+2 MOUNT THRUSTER(thrust 30)",
    ];
    let dash = renamed(&runner, "Dash");
    let state = battle(&[(&runner, 10.0, 10.0, 0)], &[(&dash, 60.0, 40.0, 180)]);
    let hull = forever::design::Hull::check(&ship(&state, "Runner").design).unwrap();
    assert_eq!(ship(&state, "Runner").speed(&hull), 800);
    // The first player has no phase 1: a MOVE1 is warned about and skipped.
    let alice = "MOVE1 Runner BY 2, 0\nMOVE2 Runner BY 10, 0";
    let parsed = engine_parse(&state, ALICE, alice);
    let warnings: Vec<&str> = parsed.warnings.iter().map(|w| w.problem.as_str()).collect();
    assert_eq!(
        warnings,
        [
            "you open the battle in the shooting phase: movement 1 is skipped this turn (FOREVER-PLAY-3)",
            "10\" is more than Runner's speed of 8\": the move will be cut short"
        ]
    );
    let (after, report) = play(
        &state,
        &[
            (ALICE, alice),
            (BOB, "MOVE1 Dash BY -5, 0\nMOVE2 Dash BY -10, 0"),
        ],
        &[],
    );
    // Alice: 4" in phase 3 only. Bob: 5" in phase 1 and the 3" left in phase 3.
    assert_eq!(
        ship(&after, "Runner").at,
        Point::new(1000 + 400, 1000),
        "FOREVER-EX-18: the first player moves at most half speed, in phase 3\n{}",
        report.to_text()
    );
    assert_eq!(
        result(&report, "Alice: Runner"),
        "move 2: Runner to (14, 10) (4\", cut to 4\")"
    );
    assert_eq!(
        ship(&after, "Dash").at,
        Point::new(6000 - 800, 4000),
        "FOREVER-EX-18: the second player's phases 1 and 3 share the 8\""
    );
}

fn engine_parse(
    state: &forever::State,
    player: engine::PlayerId,
    text: &str,
) -> engine::ParsedOrders<forever::Orders> {
    <forever::Forever as engine::Engine>::parse_orders(state, player, text)
}

/// FOREVER-EX-19: deflector recharge.
#[test]
fn forever_ex_19_recharge() {
    // FOREVER-DEF-RECHARGE, FOREVER-GM-20, FOREVER-GM-24, FOREVER-ADM-08: a spent deflector
    // rolls at the start of its owner's turn.
    let guard = |fast: bool, double: bool| -> Vec<String> {
        vec![
            "SHIP Guard".into(),
            "CORE HP+3".into(),
            "SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) HP+5".into(),
            format!(
                "SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT DEFLECTOR({}{}{})",
                if fast { "fast" } else { "" },
                if fast && double { ", " } else { "" },
                if double { "double" } else { "" }
            ),
        ]
    };
    let shooter = [
        "SHIP Shooter",
        "CORE",
        "SECTION S1 PARENT CORE SIZE 1x1 AT (-1.5, 0) MOUNT GUN(range 24)",
    ];
    let run = |fast: bool, double: bool, recharge: Option<u32>| {
        let lines = guard(fast, double);
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let state = battle(&[(&lines, 20.0, 24.0, 0)], &[(&shooter, 33.5, 24.0, 0)]);
        // Round 1: Bob shoots at Guard.S1, which the standing order shields.
        let (state, report) = play(
            &state,
            &[
                (ALICE, "DEFLECT Guard.S2 PROTECT S1"),
                (BOB, "FIRE Shooter.S1 AT Guard.S1"),
            ],
            &[0, 1],
        );
        assert_eq!(hp(&state, "Guard", "S1"), 6, "{}", report.to_text());
        assert!(result(&report, "Alice: Guard").contains("deflector S2 shielded S1"));
        let dice: Vec<u32> = recharge.into_iter().collect();
        let (state, report) = play(&state, &[], &dice);
        (ship(&state, "Guard").items[0].charges, report)
    };
    assert_eq!(
        run(false, false, Some(2)).0,
        Some(1),
        "FOREVER-EX-19, FOREVER-MOD-DEF-4: D6 2: recharged"
    );
    assert_eq!(
        run(false, false, Some(3)).0,
        Some(0),
        "FOREVER-EX-19, FOREVER-MOD-DEF-4: D6 3: not recharged"
    );
    assert_eq!(
        run(true, false, Some(3)).0,
        Some(1),
        "FOREVER-EX-19, FOREVER-MOD-DEF-5: D6 3 with the 1–4 upgrade: recharged"
    );
    assert_eq!(
        run(false, true, None).0,
        Some(1),
        "FOREVER-MOD-DEF-6: two uses: one left, no roll"
    );
    let (_, report) = run(false, false, Some(3));
    assert!(result(&report, "Alice: Guard").contains("not recharged (D6 3, needs 1–2)"));
    let (_, report) = run(false, false, Some(2));
    assert!(result(&report, "Alice: Guard").contains("recharged (D6 2, needs 1–2)"));

    // With the duration upgrade: the second use spends the last charge, and only then does the
    // start of the owner's turn roll to recharge it.
    let lines = guard(false, true);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let state = battle(&[(&lines, 20.0, 24.0, 0)], &[(&shooter, 33.5, 24.0, 0)]);
    let shield = [
        (ALICE, "DEFLECT Guard.S2 PROTECT S1"),
        (BOB, "FIRE Shooter.S1 AT Guard.S1"),
    ];
    let (state, _) = play(&state, &shield, &[0, 1]);
    assert_eq!(ship(&state, "Guard").items[0].charges, Some(1));
    // Round 2: no recharge roll (a charge is left); Bob's shot spends the second.
    let (state, report) = play(&state, &shield, &[0, 1]);
    assert_eq!(hp(&state, "Guard", "S1"), 6, "{}", report.to_text());
    assert_eq!(
        ship(&state, "Guard").items[0].charges,
        Some(0),
        "FOREVER-MOD-DEF-6: the second use spends the last charge"
    );
    // Round 3: now it rolls, D6 2: both charges back.
    let (state, report) = play(&state, &[], &[2]);
    assert_eq!(ship(&state, "Guard").items[0].charges, Some(2));
    assert!(
        result(&report, "Alice: Guard").contains("recharged (D6 2, needs 1–2)"),
        "{}",
        report.to_text()
    );
}
