#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The design format and its pricer: the catalogue's priced example ships (FOREVER-EX-01..06,
//! cross-checked against `shared/rules/scripts/forever_costs.py`), every breach reported with
//! its rule, and the text written back unchanged.

use forever::design::hull::show_mass;
use forever::design::{Design, Hull, Item, ModuleSpec, Points, WeaponKind, WeaponSpec};
use forever::fixed::show_hundredths;

fn hull(text: &str) -> Hull {
    let design = Design::parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    Hull::check(&design).unwrap_or_else(|e| panic!("{e:#?}"))
}

fn issues(text: &str) -> Vec<String> {
    let design = Design::parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    let (_, issues) = Hull::build(&design);
    issues
        .iter()
        .map(|i| format!("{} {}", i.rule, i.message))
        .collect()
}

fn part<'a>(hull: &'a Hull, name: &str) -> &'a forever::design::Part {
    &hull.parts[hull.part_index(name).unwrap()]
}

/// The costs of the items mounted on a part, in mount order.
fn item_costs(hull: &Hull, name: &str) -> Vec<String> {
    part(hull, name)
        .items
        .iter()
        .map(|&i| hull.items[i].cost.to_string())
        .collect()
}

const MINIMAL: &str = "SHIP Minimal
CORE
SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN";

const MOVER: &str = "SHIP Mover
CORE
SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT GUN
SECTION S2 PARENT S1 SIZE 1x1 AT (3.5, 0) MOUNT THRUSTER";

const LANCER: &str = "SHIP Lancer
CORE HP+2
SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT RAIL(range 18, damage 4, accuracy 15)
SECTION S2 PARENT S1 SIZE 1x1 AT (3.5, 0) MOUNT THRUSTER(thrust 30)
SECTION S3 PARENT CORE SIZE 1x1 AT (-1.5, 0) HP+1 MOUNT DEFLECTOR";

#[test]
fn forever_ex_01_minimal_ship() {
    let hull = hull(MINIMAL);
    assert_eq!(
        hull.cost().to_string(),
        "7.5",
        "FOREVER-EX-01: core 5 (FOREVER-CORE-1), S1 at distance 1 (FOREVER-GM-05) 1.5 \
         (FOREVER-SEC-1), a base gun 1 (FOREVER-WPN-2) x 1 (FOREVER-WPN-GUN-1)"
    );
    assert_eq!(
        part(&hull, "core").max_hp,
        6,
        "FOREVER-EX-01: 5 + 1 for S1 (FOREVER-CORE-6)"
    );
    assert_eq!(
        part(&hull, "S1").max_hp,
        1,
        "FOREVER-EX-01: a leaf has 1 (FOREVER-SEC-5)"
    );
    assert_eq!(
        show_mass(hull.mass16()),
        "38",
        "FOREVER-EX-01: core 20 + 2 x 6 (FOREVER-CORE-9), S1 5 x 1 + 1 (FOREVER-SEC-7), the gun \
         nothing (FOREVER-GM-11)"
    );
    assert_eq!(hull.speed(), 0, "FOREVER-EX-01: no thruster, no speed");
}

/// FOREVER-EX-02: core; S1 2"x1" (distance 1) with a basic gun; S2 1"x1" (a leaf, distance 2)
/// with a base thruster. Cost 5 + 1.5 + 2 + 1 + 5 = 14.5; HP 7, 2, 1; mass 34 + 12 + 6 = 52;
/// speed 12 x 10 / 52 → 2.30"; S1's capacity 3, of which it uses 2.
#[test]
fn forever_ex_02_ship_that_can_move() {
    let hull = hull(MOVER);
    assert_eq!(hull.cost().to_string(), "14.5", "FOREVER-EX-02");
    assert_eq!(part(&hull, "core").structure_cost.to_string(), "5");
    assert_eq!(part(&hull, "S1").structure_cost.to_string(), "1.5");
    assert_eq!(item_costs(&hull, "S1"), ["1"]);
    assert_eq!(
        item_costs(&hull, "S2"),
        ["5"],
        "FOREVER-EX-02: a base thruster costs 5 (FOREVER-MOD-THR-1)"
    );
    let masses: Vec<String> = ["core", "S1", "S2"]
        .map(|name| show_mass(part(&hull, name).mass16))
        .to_vec();
    assert_eq!(masses, ["34", "12", "6"]);
    assert_eq!(
        hull.thrust(),
        10,
        "FOREVER-EX-02: the thruster on S2, a leaf, is legal (FOREVER-GM-09); base thrust 10 \
         (FOREVER-MOD-THR-3)"
    );
    assert_eq!(part(&hull, "core").max_hp, 7);
    assert_eq!(part(&hull, "S1").max_hp, 2);
    assert_eq!(part(&hull, "S2").max_hp, 1);
    assert_eq!(show_mass(hull.mass16()), "52");
    assert_eq!(show_hundredths(hull.speed()), "2.3");
    assert_eq!(
        hull.speed(),
        230,
        "FOREVER-EX-02: 10 / 52 x 12 (FOREVER-MOD-THR-5)"
    );
    let s1 = part(&hull, "S1");
    assert_eq!(s1.capacity, 3, "FOREVER-EX-02: 1 + 2 sq in (FOREVER-GM-06)");
    assert_eq!(s1.children.len() + s1.items.len(), 2);
    assert_eq!(
        part(&hull, "S2").structure_cost.to_string(),
        "2",
        "FOREVER-EX-02: S2 at distance 2 costs 1 + 2 / 2 (FOREVER-SEC-1)"
    );
}

/// FOREVER-EX-03, the "Lancer": core +2 HP (9 points); S1 2"x1" with a rail gun of range 18,
/// damage 4, accuracy 15 ((1 + 1 + 6 + 1) x 1.5 = 13.5, under the cap of 16 at distance 1);
/// S2 1"x1" with a +20 thruster (2 + 15); S3 1"x1" +1 HP (2.5) with a base deflector (20).
/// Total 63.5; HP 10 (capped), 2, 1, 2; mass 40 + 12 + 6 + 7 = 65; speed 12 x 30 / 65 → 5.53".
#[test]
fn forever_ex_03_lancer() {
    let hull = hull(LANCER);
    assert_eq!(hull.cost().to_string(), "63.5", "FOREVER-EX-03");
    assert_eq!(
        part(&hull, "core").structure_cost.to_string(),
        "9",
        "FOREVER-EX-03: core 5 + 2 HP at 2 each (FOREVER-CORE-7)"
    );
    assert_eq!(part(&hull, "S1").structure_cost.to_string(), "1.5");
    assert_eq!(part(&hull, "S2").structure_cost.to_string(), "2");
    assert_eq!(
        item_costs(&hull, "S1"),
        ["13.5"],
        "FOREVER-EX-03: (1 + 1 + 6 + 1) x 1.5 (FOREVER-GM-10, FOREVER-WPN-RAIL-1)"
    );
    assert_eq!(
        item_costs(&hull, "S2"),
        ["15"],
        "FOREVER-EX-03: thruster 5 + 20 thrust at 1 per 2 (FOREVER-MOD-THR-4)"
    );
    assert_eq!(
        item_costs(&hull, "S3"),
        ["20"],
        "FOREVER-EX-03: a base deflector costs 20 (FOREVER-MOD-DEF-1)"
    );
    let masses: Vec<String> = ["core", "S1", "S2", "S3"]
        .map(|name| show_mass(part(&hull, name).mass16))
        .to_vec();
    assert_eq!(masses, ["40", "12", "6", "7"]);
    assert_eq!(show_hundredths(hull.speed()), "5.53");
    assert_eq!(
        part(&hull, "core").max_hp,
        10,
        "FOREVER-EX-03: 5 + 3 sections + 2 bought is 10, at the cap (FOREVER-GM-07)"
    );
    assert_eq!(part(&hull, "S1").max_hp, 2);
    assert_eq!(part(&hull, "S2").max_hp, 1);
    assert_eq!(part(&hull, "S3").max_hp, 2);
    assert_eq!(
        part(&hull, "S3").structure_cost.to_string(),
        "2.5",
        "FOREVER-EX-03: 1.5 + 1 for the extra HP (FOREVER-SEC-6)"
    );
    let rail = &hull.items[hull.weapon("S1").unwrap()];
    assert_eq!(rail.cost.to_string(), "13.5");
    assert_eq!(show_mass(hull.mass16()), "65");
    assert_eq!(hull.thrust(), 30);
    assert_eq!(hull.speed(), 553);
}

fn weapon(
    kind: WeaponKind,
    range: u32,
    damage: u32,
    accuracy: u32,
    sweep: u32,
    hp: u32,
) -> WeaponSpec {
    WeaponSpec {
        kind,
        range_steps: range,
        damage_steps: damage,
        accuracy_steps: accuracy,
        sweep_steps: sweep,
        hp_steps: hp,
    }
}

/// FOREVER-EX-04: the weapon cost table, step by step (pre-modifier cost, type modifier, cost),
/// and the lowest mount each weapon may have under the cap of 15 + distance and the core's 5.
#[test]
fn forever_ex_04_weapon_cost_table() {
    // Each row's cost before the type's modifier (base 1, FOREVER-WPN-2; +1 a range step,
    // FOREVER-WPN-4; +2 a damage step, FOREVER-WPN-6; +1 an accuracy step, FOREVER-WPN-8),
    // and the cost once multiplied by the modifier (FOREVER-WPN-9) the rules name.
    let table = [
        (
            weapon(WeaponKind::Gun, 0, 0, 0, 0, 0),
            1,
            "1",
            "FOREVER-WPN-GUN-1",
        ),
        (
            weapon(WeaponKind::Gun, 0, 1, 0, 0, 0),
            3,
            "3",
            "FOREVER-WPN-6",
        ),
        (
            weapon(WeaponKind::Laser, 0, 0, 0, 0, 0),
            1,
            "1.75",
            "FOREVER-WPN-LASER-1",
        ),
        (
            weapon(WeaponKind::Laser, 2, 2, 2, 1, 0),
            9,
            "22.5",
            "1 + 2 (FOREVER-WPN-4) + 4 + 2 (FOREVER-WPN-8), x (1.75 + 0.75) (FOREVER-WPN-LASER-3)",
        ),
        (
            weapon(WeaponKind::Rail, 1, 3, 1, 0, 0),
            9,
            "13.5",
            "FOREVER-WPN-RAIL-1",
        ),
        (
            weapon(WeaponKind::Missile, 0, 2, 0, 0, 1),
            6,
            "12",
            "1 + 4 + 1 HP (FOREVER-WPN-MSL-3), x 2 (FOREVER-WPN-MSL-1)",
        ),
        (
            weapon(WeaponKind::Torpedo, 1, 1, 0, 0, 1),
            6,
            "9",
            "1 + 1 + 2 + 2 HP (FOREVER-WPN-TORP-3), x 1.5 (FOREVER-WPN-TORP-1)",
        ),
        (
            weapon(WeaponKind::TorpedoMissile, 0, 1, 0, 0, 1),
            5,
            "15",
            "1 + 2 + 2 HP at torpedo prices, x 3 (FOREVER-WPN-TORP-6, FOREVER-GM-19)",
        ),
    ];
    for (spec, pre, cost, rules) in table {
        assert_eq!(spec.base_cost(), pre, "FOREVER-EX-04 {rules}: {spec:?}");
        assert_eq!(
            spec.cost().to_string(),
            cost,
            "FOREVER-EX-04, FOREVER-WPN-9 {rules}: {spec:?}"
        );
    }
    let laser = weapon(WeaponKind::Laser, 2, 2, 2, 1, 0);
    assert_eq!(
        (
            laser.range(),
            laser.damage(),
            laser.accuracy(),
            laser.sweep()
        ),
        (2400, 3, 20, 2),
        "FOREVER-EX-04: two steps each from range 12 (FOREVER-WPN-3), damage 1 (FOREVER-WPN-5) \
         and accuracy 10 (FOREVER-WPN-7), one from sweep 1 (FOREVER-WPN-LASER-2)"
    );

    // The mount cap 15 + distance (FOREVER-WPN-1): the big laser needs distance 8.
    let chain = |depth: usize| {
        let mut text = String::from("SHIP Chain\nCORE\n");
        for i in 1..=depth {
            let parent = if i == 1 {
                "CORE".to_string()
            } else {
                format!("S{}", i - 1)
            };
            let mount = if i == depth {
                " MOUNT LASER(range 24, damage 3, accuracy 20, sweep 2)"
            } else {
                ""
            };
            text.push_str(&format!(
                "SECTION S{i} PARENT {parent} SIZE 1x1 AT ({}, 0){mount}\n",
                i as f64 + 0.5
            ));
        }
        text
    };
    let at_seven = issues(&chain(7));
    assert_eq!(at_seven.len(), 1, "{at_seven:#?}");
    assert!(at_seven[0].starts_with("FOREVER-WPN-1"), "{at_seven:#?}");
    assert!(issues(&chain(8)).is_empty());

    // Core limit 5 (FOREVER-CORE-4): the rail gun needs a section; so does the torpedo-missile.
    let on_core = |mount: &str| {
        issues(&format!(
            "SHIP T\nCORE MOUNT {mount}\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)"
        ))
    };
    assert!(on_core("RAIL(range 18, damage 4, accuracy 15)")[0].starts_with("FOREVER-CORE-4"));
    assert!(on_core("TORPEDO-MISSILE(damage 2, hp 2)")[0].starts_with("FOREVER-CORE-4"));
    assert!(on_core("MISSILE(damage 3, hp 2)")[0].starts_with("FOREVER-CORE-4"));
    assert!(on_core("TORPEDO(range 18, damage 2, hp 2)")[0].starts_with("FOREVER-CORE-4"));
    assert!(on_core("GUN").is_empty());
    assert!(on_core("GUN(damage 2)").is_empty());
    assert!(on_core("LASER").is_empty());
    let on_section = |mount: &str| {
        issues(&format!(
            "SHIP T\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT {mount}"
        ))
    };
    assert!(on_section("RAIL(range 18, damage 4, accuracy 15)").is_empty());
    assert!(on_section("TORPEDO-MISSILE(damage 2, hp 2)").is_empty());
    assert!(on_section("MISSILE(damage 3, hp 2)").is_empty());
    assert!(on_section("TORPEDO(range 18, damage 2, hp 2)").is_empty());
    assert!(on_section("TORPEDO(range 18, damage 2, hp 2, payload missile)").len() == 1);
}

/// FOREVER-EX-05: module costs straight from the text: deflector with both upgrades 50, EMP at
/// range 18 with recharge 1–4 26, flux 12 energy 2d6 recharge 34, Demeter launcher 7, control
/// unit for 2 3, nano matrix range 5 energy 8 33, thruster 30 15, defensive gunner 3 shots 3.
#[test]
fn forever_ex_05_module_costs() {
    let cost = |text: &str| {
        let design = Design::parse(&format!(
            "SHIP T\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT {text}"
        ))
        .unwrap_or_else(|e| panic!("{text}: {e:?}"));
        design.sections[0].mounts[0].item.cost().to_string()
    };
    for (module, wanted, rules) in [
        (
            "DEFLECTOR(fast, double)",
            "50",
            "20 + 15 (FOREVER-MOD-DEF-5) + 15 (FOREVER-MOD-DEF-6)",
        ),
        ("DEFLECTOR(recharge 1-4, duration)", "50", "the same"),
        ("DEFLECTOR", "20", "FOREVER-MOD-DEF-1"),
        (
            "EMP(range 18, recharge 1-4)",
            "26",
            "5 (FOREVER-MOD-EMP-1) + 1 (FOREVER-MOD-EMP-5) + 20 (FOREVER-MOD-EMP-9)",
        ),
        ("EMP(accuracy 13)", "6", "5 + 1 (FOREVER-MOD-EMP-7)"),
        (
            "FLUX(energy 12, recharge 2d6)",
            "34",
            "20 (FOREVER-MOD-FLUX-1) + 4 (FOREVER-MOD-FLUX-5) + 10 (FOREVER-MOD-FLUX-7)",
        ),
        (
            "LAUNCHER(speed 12, hp 2, rounds 2)",
            "7",
            "2 (FOREVER-MOD-DL-1) + 2 (FOREVER-MOD-DL-7) + 1 (FOREVER-MOD-DL-9) + 2 \
             (FOREVER-MOD-DL-11)",
        ),
        (
            "CONTROL(control 2)",
            "3",
            "1 (FOREVER-MOD-DCU-1) + 2 (FOREVER-MOD-DCU-3)",
        ),
        (
            "NANO(range 5, energy 8)",
            "33",
            "25 (FOREVER-MOD-NANO-1) + 2 (FOREVER-MOD-NANO-6) + 6 (FOREVER-MOD-NANO-7)",
        ),
        ("NANO(recharge+1d6)", "35", "25 + 10 (FOREVER-MOD-NANO-8)"),
        ("THRUSTER(thrust 30)", "15", "5 + 10 (FOREVER-MOD-THR-4)"),
        ("THRUSTER(thrust+20)", "15", "the same"),
        (
            "GUNNER(shots 3)",
            "3",
            "1 (FOREVER-MOD-DGN-1) + 2 (FOREVER-MOD-DGN-5)",
        ),
        ("TOW", "3", "FOREVER-MOD-TOW-1"),
        ("COMPUTER", "10", "FOREVER-MOD-TC-1"),
    ] {
        assert_eq!(cost(module), wanted, "FOREVER-EX-05: {module}: {rules}");
    }
    assert!(
        Design::parse(
            "SHIP T\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT LAUNCHER(speed 33)"
        )
        .is_err(),
        "FOREVER-MOD-DL-7: a launcher's speed tops out at 30"
    );
}

/// FOREVER-EX-06: a core with seven sections below it would have 5 + 7 = 12 HP: capped to 10,
/// mass 40; buying +1 HP is refused.
#[test]
fn forever_ex_06_core_cap() {
    let mut text = String::from("SHIP Seven\nCORE\n");
    for i in 1..=7 {
        let parent = if i == 1 {
            "CORE".to_string()
        } else {
            format!("S{}", i - 1)
        };
        text.push_str(&format!(
            "SECTION S{i} PARENT {parent} SIZE 1x1 AT ({}.5, 0)\n",
            i
        ));
    }
    let hull = hull(&text);
    assert_eq!(
        part(&hull, "core").max_hp,
        10,
        "FOREVER-EX-06: seven sections below the core give 12, capped at 10 (FOREVER-GM-07)"
    );
    assert_eq!(
        show_mass(part(&hull, "core").mass16),
        "40",
        "FOREVER-EX-06: the mass counts the capped HP (FOREVER-GM-07)"
    );
    let refused = issues(&text.replace("CORE\n", "CORE HP+1\n"));
    assert_eq!(refused.len(), 1, "FOREVER-EX-06: buying +1 HP is refused");
    assert!(refused[0].starts_with("FOREVER-CORE-8"), "{refused:?}");
}

#[test]
fn every_breach_is_reported_with_its_rule() {
    // One design breaking many rules at once: each breach is listed with the rule it breaks.
    let text = "SHIP Wreck
CORE MOUNT DEFLECTOR
SECTION A PARENT CORE SIZE 1x1 AT (1.5, 0) SWIVEL MOUNT THRUSTER MOUNT GUN MOUNT GUN
SECTION B PARENT A SIZE 2x1.5 AT (3, 0)
SECTION C PARENT CORE SIZE 0.25x1 AT (-1.125, 0)
SECTION D PARENT CORE SIZE 1x1 AT (0, 2)
SECTION E PARENT CORE SIZE 1x1 AT (0, -1) MOUNT TOW MOUNT COMPUTER
SECTION F PARENT CORE SIZE 1x1 AT (-1.5, 0.75)
SECTION G PARENT E SIZE 1x1 AT (0, -1.5)
SECTION H PARENT B SIZE 2x1 AT (5, 0) HP+40 MOUNT GUN(damage 10)";
    let found = issues(text);
    let rules: Vec<&str> = found.iter().map(|i| i.split(' ').next().unwrap()).collect();
    for rule in [
        "FOREVER-CORE-3",     // five children of the core
        "FOREVER-CORE-4",     // a deflector on the core
        "FOREVER-SEC-2",      // A holds a child and three items on one square inch
        "FOREVER-SEC-4",      // B is 3 square inches; C is under 1/2" wide
        "FOREVER-MOD-1",      // E holds two modules
        "FOREVER-MOD-THR-2",  // A's thruster is not outermost
        "FOREVER-SWV-3",      // more than 50 mass outboard of A's swivel
        "FOREVER-DEF-PARENT", // D does not touch the core
        "FOREVER-GM-04",      // G overlaps E
        "FOREVER-WPN-1",      // H's gun (19 points) at distance 3 (cap 18)
    ] {
        assert!(rules.contains(&rule), "{rule} missing from {found:#?}");
    }
    let swivel_mass = found
        .iter()
        .find(|i| i.starts_with("FOREVER-SWV-3"))
        .unwrap();
    assert!(swivel_mass.contains("outboard"), "{swivel_mass}");
}

/// FOREVER-GM-53: the swivel's mass limit counts the section on the far side of the joint.
#[test]
fn forever_gm_53_swivel_mass_counts_the_far_section() {
    // A 2x1 section with 39 bought HP has mass 10 + 40 = 50: allowed (FOREVER-SWV-3); one more
    // HP and the joint carries 51.
    let text = |hp: u32| {
        format!("SHIP Arm\nCORE\nSECTION A PARENT CORE SIZE 2x1 AT (2, 0) HP+{hp} SWIVEL")
    };
    let ok = hull(&text(39));
    assert_eq!(
        part(&ok, "A").structure_cost.to_string(),
        "41.5",
        "1.5 + 39 HP + 1 for the swivel joint (FOREVER-SWV-1)"
    );
    assert_eq!(
        part(&ok, "A").swivel,
        Some(forever::geometry::Point::new(100, 0))
    );
    let over = issues(&text(40));
    assert!(
        over.len() == 1 && over[0].starts_with("FOREVER-SWV-3"),
        "FOREVER-GM-53: the far section's own mass counts: {over:?}"
    );
}

#[test]
fn forever_core_2_exactly_one_core_and_a_named_ship() {
    let two = Design::parse("SHIP T\nCORE\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5,0)")
        .unwrap_err();
    assert!(
        two.iter()
            .any(|i| i.rule == "FOREVER-CORE-2" && i.line == Some(3)),
        "{two:?}"
    );
    let none = Design::parse("SHIP T\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5,0)").unwrap_err();
    assert!(none.iter().any(|i| i.rule == "FOREVER-CORE-2"));
    let core_size = issues("SHIP T\nCORE SIZE 2x2\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5,0)");
    assert!(core_size[0].starts_with("FOREVER-CORE-5"), "{core_size:?}");
    // FOREVER-CORE-5: a core on end is refused, not accepted and drawn 2x1 anyway.
    let on_end = issues("SHIP T\nCORE SIZE 1x2\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5,0)");
    assert!(
        on_end
            .iter()
            .any(|i| i.starts_with("FOREVER-CORE-5") && i.contains("write CORE SIZE 2x1")),
        "{on_end:?}"
    );
    assert!(issues("SHIP T\nCORE SIZE 2x1\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5,0)").is_empty());
}

#[test]
fn forever_sec_3_one_parent_in_a_tree() {
    let unknown = Hull::build(
        &Design::parse("SHIP T\nCORE\nSECTION S1 PARENT S9 SIZE 1x1 AT (1.5,0)").unwrap(),
    );
    assert!(unknown.0.is_none());
    assert_eq!(unknown.1[0].rule, "FOREVER-SEC-3");
    let looped = Hull::build(&Design::parse(
        "SHIP T\nCORE\nSECTION A PARENT B SIZE 1x1 AT (1.5,0)\nSECTION B PARENT A SIZE 1x1 AT (2.5,0)",
    ).unwrap());
    assert!(looped.0.is_none());
    assert!(looped.1[0].message.contains("loop"));
    // A design with no sections at all (FOREVER-GM-35).
    let bare = issues("SHIP T\nCORE");
    assert!(bare[0].starts_with("FOREVER-GM-35"));
}

#[test]
fn forever_def_ancestor_descendants_set_base_hp() {
    // A fork of three below S1: base HP counts every section further out, at any distance.
    let hull = hull(
        "SHIP Fork
CORE
SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0)
SECTION S2 PARENT S1 SIZE 1x1 AT (3.5, 0)
SECTION S3 PARENT S1 SIZE 1x1 AT (2, 1)
SECTION S4 PARENT S3 SIZE 1x0.5 AT (2, 1.75)",
    );
    assert_eq!(
        part(&hull, "S1").max_hp,
        4,
        "FOREVER-SEC-5: 1 + S2, S3 and S4"
    );
    assert_eq!(part(&hull, "S3").max_hp, 2, "FOREVER-SEC-5: 1 + S4");
    assert_eq!(
        part(&hull, "core").max_hp,
        9,
        "FOREVER-CORE-6: 5 + all four"
    );
    assert_eq!(
        hull.ancestors(hull.part_index("S4").unwrap()),
        vec![3, 1, 0],
        "FOREVER-DEF-ANCESTOR: S3, S1 and the core"
    );
    // S4 is 1" x 1/2": room for one item (FOREVER-GM-06); distance 3 costs 2.5.
    assert_eq!(part(&hull, "S4").capacity, 1);
    assert_eq!(part(&hull, "S4").structure_cost.to_string(), "2.5");
}

#[test]
fn designs_are_written_back_in_canonical_form() {
    // Stats as values or additions in the stat's own unit, written back as values.
    let sloppy = "ship lancer
  core hp +2
  section s1 parent core size 2 x 1 at 2,0 mount rail(range+6; dmg=4, acc 15) as Spear
  section s2 parent s1 size 1X1 at (3.5 , 0) mount thruster(thrust+20) swivel
  section s3 parent core size 1x1 at -1.5 0 hp+1 mount deflector(recharge14=no, double=no)";
    let design = Design::parse(sloppy).unwrap_or_else(|e| panic!("{e:?}"));
    let text = design.to_text();
    assert_eq!(
        text,
        "SHIP lancer
CORE HP+2
SECTION s1 PARENT core SIZE 2x1 AT (2, 0) MOUNT RAIL(range 18, damage 4, accuracy 15) AS Spear
SECTION s2 PARENT s1 SIZE 1x1 AT (3.5, 0) SWIVEL MOUNT THRUSTER(thrust 30)
SECTION s3 PARENT core SIZE 1x1 AT (-1.5, 0) HP+1 MOUNT DEFLECTOR",
        "FOREVER-ADM-01: values or additions in the stat's unit, written back as values"
    );
    assert_eq!(
        Design::parse(&text).unwrap(),
        design,
        "FOREVER-ADM-01: the canonical form reads back as the same design"
    );
    let hull = Hull::check(&design).unwrap();
    assert_eq!(hull.cost(), Points(258), "63.5 and a swivel joint");
    assert!(hull.weapon("Spear").is_some());
    assert!(
        hull.module("s3", |m| matches!(m, ModuleSpec::Deflector { .. }))
            .is_some()
    );
    // JSON stores the text.
    let json = serde_json::to_string(&design).unwrap();
    let back: Design = serde_json::from_str(&json).unwrap();
    assert_eq!(back, design);
    let lines: Design = serde_json::from_value(serde_json::json!([
        "SHIP A",
        "CORE",
        "SECTION B PARENT CORE SIZE 1x1 AT (1.5, 0)"
    ]))
    .unwrap();
    assert_eq!(lines.sections.len(), 1);
}

#[test]
fn unreadable_design_lines_say_what_was_expected() {
    let errors = Design::parse("SHIP T\nCORE\nSECTION S1 PARENT CORE SIZE 2 AT (1.5,0)\nSECTION S2 PARENT CORE SIZE 1x1 AT (1.5,0) MOUNT BLASTER\nFROB\nSECTION S3 PARENT CORE SIZE 1x1 AT (0,1) MOUNT GUN(range 13)").unwrap_err();
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 4, "{text:#?}");
    assert!(text[0].contains("line 3") && text[0].contains("SIZE"));
    assert!(text[1].contains("line 4") && text[1].contains("BLASTER"));
    assert!(text[2].contains("line 5"));
    assert!(text[3].contains("steps of 6"));
}

#[test]
fn items_are_named_for_orders() {
    let hull = hull(
        "SHIP Twin
CORE MOUNT GUN
SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT GUN MOUNT GUN MOUNT GUNNER",
    );
    let names: Vec<&str> = hull.items.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, vec!["core", "S1/1", "S1/2", "S1"]);
    assert!(
        hull.weapon("S1").is_none(),
        "two weapons on S1: S1 alone is ambiguous"
    );
    assert_eq!(hull.weapon("s1/2"), Some(2));
    assert_eq!(
        hull.module("S1", |m| matches!(m, ModuleSpec::DefensiveGunner { .. })),
        Some(3)
    );
    assert!(matches!(hull.items[0].item, Item::Weapon(_)));
}

#[test]
fn forever_gm_08_core_holds_one_weapon_or_thruster_of_at_most_5() {
    // FOREVER-CORE-4: a thruster on the core is allowed though the core is not a leaf
    // (FOREVER-GM-09 yields to FOREVER-GM-08); a thruster of 7 points is not.
    let core = |mount: &str| {
        issues(&format!(
            "SHIP T\nCORE MOUNT {mount}\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)"
        ))
    };
    assert!(
        core("THRUSTER").is_empty(),
        "FOREVER-GM-08 over FOREVER-GM-09: a thruster on the core"
    );
    let dear = core("THRUSTER(thrust 14)");
    assert!(
        dear.len() == 1 && dear[0].contains("costs 7"),
        "FOREVER-GM-08: at most 5 points: {dear:?}"
    );
    assert!(
        core("NANO")[0].starts_with("FOREVER-CORE-4"),
        "FOREVER-GM-08: a weapon or a thruster only"
    );
    let two =
        issues("SHIP T\nCORE MOUNT GUN MOUNT GUN\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)");
    assert!(
        two[0].starts_with("FOREVER-CORE-4") && two[0].contains("2 items"),
        "FOREVER-GM-08: one item at most: {two:?}"
    );
}

/// FOREVER-MOD-DEF-7: one deflector per section.
#[test]
fn forever_mod_def_7_one_deflector_per_section() {
    // FOREVER-MOD-1: one module per section, so never two deflectors on one section.
    let found = issues(
        "SHIP T\nCORE\nSECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT DEFLECTOR MOUNT DEFLECTOR",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("FOREVER-MOD-1"),
        "FOREVER-MOD-DEF-7: a second deflector on S1 is refused: {found:?}"
    );
}

#[test]
fn forever_gm_01_and_gm_54_the_lost_headings_name_the_items() {
    // The headings lost from the text (FOREVER-GM-01) are the keywords of the format, and the
    // items fall into weapons and modules (FOREVER-GM-54).
    let weapons = [
        "GUN",
        "LASER",
        "MISSILE",
        "RAIL",
        "TORPEDO",
        "TORPEDO-MISSILE",
    ];
    let modules = [
        "TOW",
        "THRUSTER",
        "DEFLECTOR",
        "GUNNER",
        "EMP",
        "FLUX",
        "CONTROL",
        "LAUNCHER",
        "COMPUTER",
        "NANO",
    ];
    for keyword in weapons.iter().chain(&modules) {
        let design = Design::parse(&format!(
            "SHIP T\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT {keyword}"
        ))
        .unwrap_or_else(|e| panic!("{keyword}: {e:?}"));
        let item = design.sections[0].mounts[0].item;
        assert_eq!(
            matches!(item, Item::Weapon(_)),
            weapons.contains(keyword),
            "FOREVER-GM-54: {keyword} is a weapon or a module"
        );
        assert_eq!(
            forever::design::text::item_text(&item),
            *keyword,
            "FOREVER-GM-01: {keyword} names a lost heading's item"
        );
    }
}

/// Found by the `forever_design` fuzz target: the smallest i64 as a stat's value overflowed
/// when its base was taken off (a panic in debug builds, a wrapped number in release).
#[test]
fn a_stat_far_below_its_base_is_refused() {
    let text = "SHIP Gange\nCORE\nSECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0) MOUNT GUN(range -9223372036854775808)";
    let issues = Design::parse(text).unwrap_err();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].line, Some(3));
    assert!(
        issues[0]
            .message
            .contains("range cannot be below its base of 12"),
        "{issues:?}"
    );
}

/// Found by the `forever_design` fuzz target (in a CI run): the canonical text dropped the
/// core's SIZE, so a design with a sized core read back as another design.
#[test]
fn a_core_size_survives_the_canonical_text() {
    for text in [
        "SHIP arge\n CORE SIZE 1x1  ",
        "SHIP Lancer\nCORE HP+2 SIZE 1.5x0.75 MOUNT GUN(damage 2)",
    ] {
        let design = Design::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        assert!(design.core.size.is_some(), "{text:?}");
        let canonical = design.to_text();
        assert_eq!(Design::parse(&canonical).unwrap(), design, "{canonical:?}");
        assert_eq!(Design::parse(&canonical).unwrap().to_text(), canonical);
    }
}

#[test]
fn forever_def_parent_a_declared_parent_must_be_the_geometric_one() {
    // FOREVER-DEF-PARENT, FOREVER-CORE-3: six sections touch the core; two declared as S1's
    // children would leave the core "parenting" four.
    let six = issues(
        "SHIP Hub
CORE
SECTION S1 PARENT CORE SIZE 1x2 AT (1.5, 0)
SECTION S2 PARENT CORE SIZE 1x1 AT (-1.5, 0)
SECTION S3 PARENT CORE SIZE 1x1 AT (-0.5, 1)
SECTION S5 PARENT CORE SIZE 1x1 AT (-0.5, -1)
SECTION S4 PARENT S1 SIZE 1x1 AT (0.5, 1)
SECTION S6 PARENT S1 SIZE 1x1 AT (0.5, -1)",
    );
    assert!(
        six.iter()
            .any(|i| i.starts_with("FOREVER-DEF-PARENT S4 touches the core")
                && i.ends_with("write PARENT CORE")),
        "{six:#?}"
    );
    assert!(
        six.iter()
            .any(|i| i.starts_with("FOREVER-DEF-PARENT S6 touches the core")),
        "{six:#?}"
    );
    // FOREVER-DEF-PARENT, FOREVER-WPN-1, FOREVER-SEC-1: S2 touches the core, so it is 1
    // section out (cap 16), not 2 (cap 17) as PARENT S1 would make it.
    let deep = issues(
        "SHIP Deep
CORE
SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)
SECTION S2 PARENT S1 SIZE 1x1 AT (0.75, 1) MOUNT RAIL(range 18, damage 5, accuracy 15)",
    );
    assert!(
        deep.iter()
            .any(|i| i.starts_with("FOREVER-DEF-PARENT S2 touches the core")),
        "{deep:#?}"
    );
    // Written as the shape says, the same ship is checked at distance 1.
    let fixed = issues(
        "SHIP Deep
CORE
SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)
SECTION S2 PARENT CORE SIZE 1x1 AT (0.75, 1) MOUNT RAIL(range 18, damage 5, accuracy 15)",
    );
    assert!(
        fixed.iter().any(|i| i.starts_with("FOREVER-WPN-1")),
        "{fixed:#?}"
    );
    assert!(
        !fixed.iter().any(|i| i.contains("DEF-PARENT")),
        "{fixed:#?}"
    );
}

#[test]
fn forever_sec_3_a_section_touching_two_closer_sections_has_two_parents() {
    // FOREVER-SEC-3 with FOREVER-DEF-PARENT: S3 touches S1 and T, both one section out.
    let two = issues(
        "SHIP Fork
CORE
SECTION S1 PARENT CORE SIZE 1x1 AT (1.5, 0)
SECTION T PARENT CORE SIZE 2x1 AT (0, 1)
SECTION S3 PARENT S1 SIZE 1x1 AT (1.5, 1)",
    );
    assert!(
        two.iter().any(|i| i
            == "FOREVER-SEC-3 S3 touches S1 and T, all 1 section from the core, so it would have 2 parents; a section has only one: move it so it touches only one of them"),
        "{two:#?}"
    );
}
