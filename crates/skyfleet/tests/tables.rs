#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failure should stop the test loudly"
)]
//! The text's tables, row by row: weapons (with their keywords), modules, stat blocks and
//! movement classes. Each test names the catalogue IDs of the rows it checks.

use skyfleet::tables::{Class, Mount, Size, WeaponKind};
use skyfleet::{Length, ModuleKind, Turn};

/// (weapon, tables, range in inches (None: unlimited), dice, cost)
fn row(kind: WeaponKind) -> (Vec<Size>, Option<Length>, u8, u32) {
    let s = kind.stats();
    (s.sizes.to_vec(), s.range, s.dice, s.cost)
}

fn inches(n: i64) -> Option<Length> {
    Some(Length::inches(n))
}

#[test]
fn sky_wpn_ul_1_2_3_the_ultralight_table_sky_gm_04() {
    use Size::Ultralight as UL;
    assert_eq!(row(WeaponKind::MachineGuns), (vec![UL], inches(6), 1, 5));
    assert_eq!(row(WeaponKind::Bombs), (vec![UL], inches(1), 1, 10));
    assert_eq!(row(WeaponKind::Rockets), (vec![UL], inches(3), 2, 15));
    // SKY-WPN-UL-1: cannot Crit. SKY-WPN-UL-2: not vs Ultralights, Crit on 5+.
    // SKY-WPN-UL-3: cannot Flyover.
    assert_eq!(WeaponKind::MachineGuns.stats().critical_from, None);
    assert!(WeaponKind::Bombs.stats().no_ultralights);
    assert_eq!(WeaponKind::Bombs.stats().critical_from, Some(5));
    assert!(WeaponKind::Rockets.stats().no_flyover);
}

#[test]
fn sky_wpn_l_1_2_3_4_the_light_table() {
    use Size::Light as L;
    assert_eq!(
        row(WeaponKind::Flak),
        (vec![L], inches(8), 3, 10),
        "SKY-WPN-L-1"
    );
    assert_eq!(row(WeaponKind::Lance), (vec![L], inches(15), 1, 15));
    assert_eq!(row(WeaponKind::Cannon), (vec![L], inches(12), 2, 10));
    assert_eq!(
        row(WeaponKind::Missile),
        (vec![L], inches(20), 1, 15),
        "SKY-WPN-L-4"
    );
    // SKY-WPN-L-2 Lance; SKY-WPN-L-3 Cannon.
    assert!(WeaponKind::Flak.stats().flak, "SKY-WPN-L-1: Flak");
    let lance = WeaponKind::Lance.stats();
    assert!(lance.piercing == 1 && lance.fixed && lance.forward_only);
    let cannon = WeaponKind::Cannon.stats();
    assert!(cannon.level && cannon.battery);
    let missile = WeaponKind::Missile.stats();
    assert!(
        missile.fixed && missile.forward_only && missile.impact && missile.no_ultralights,
        "SKY-WPN-L-4: Fixed, Forward, Impact, not vs Ultralights"
    );
}

#[test]
fn sky_wpn_m_1_2_3_4_5_the_medium_table() {
    use Size::Medium as M;
    assert_eq!(row(WeaponKind::FlakCannon), (vec![M], inches(12), 5, 25));
    assert_eq!(row(WeaponKind::HeavyLance), (vec![M], inches(22), 2, 35));
    assert_eq!(row(WeaponKind::NavalBattery), (vec![M], inches(18), 4, 25));
    assert_eq!(row(WeaponKind::HeavyMissile), (vec![M], inches(28), 2, 35));
    assert_eq!(
        row(WeaponKind::TorpedoLauncher),
        (vec![M, Size::Large], None, 1, 60)
    );
    // SKY-WPN-M-1 Flak Cannon; SKY-WPN-M-2 Heavy Lance; SKY-WPN-M-3 Naval Battery;
    // SKY-WPN-M-4 Heavy Missile; SKY-WPN-M-5 Torpedo Launcher.
    let flak = WeaponKind::FlakCannon.stats();
    assert!(flak.flak && flak.turreted);
    let heavy_lance = WeaponKind::HeavyLance.stats();
    assert!(heavy_lance.piercing == 3 && heavy_lance.fixed && heavy_lance.forward_only);
    let battery = WeaponKind::NavalBattery.stats();
    assert!(battery.level && battery.battery);
    let heavy_missile = WeaponKind::HeavyMissile.stats();
    assert!(heavy_missile.impact && heavy_missile.fixed && heavy_missile.forward_only);
    let torpedo = WeaponKind::TorpedoLauncher.stats();
    assert!(torpedo.fixed && torpedo.forward_only && torpedo.torpedo && torpedo.no_ultralights);
}

#[test]
fn sky_wpn_xl_1_2_3_4_5_the_large_table() {
    use Size::Large as XL;
    assert_eq!(
        row(WeaponKind::MegaFlakArray),
        (vec![XL], inches(15), 8, 45),
        "SKY-WPN-XL-1"
    );
    assert_eq!(row(WeaponKind::SiegeLance), (vec![XL], inches(30), 3, 60));
    assert_eq!(
        row(WeaponKind::DreadnoughtBattery),
        (vec![XL], inches(24), 6, 50)
    );
    assert_eq!(
        row(WeaponKind::SiegeMissileRack),
        (vec![XL], inches(36), 2, 60)
    );
    assert!(
        WeaponKind::TorpedoLauncher.stats().sizes.contains(&XL),
        "SKY-WPN-XL-5: the same Torpedo Launcher as the medium table"
    );
    // SKY-WPN-XL-2 Siege Lance; SKY-WPN-XL-3 Dreadnought Battery; SKY-WPN-XL-4 Siege Missile
    // Rack.
    let mega = WeaponKind::MegaFlakArray.stats();
    assert!(mega.flak && mega.turreted, "SKY-WPN-XL-1: Flak, Turreted");
    let siege = WeaponKind::SiegeLance.stats();
    assert!(siege.piercing == 5 && siege.fixed && siege.forward_only);
    let dreadnought = WeaponKind::DreadnoughtBattery.stats();
    assert!(dreadnought.level && dreadnought.battery);
    let rack = WeaponKind::SiegeMissileRack.stats();
    assert!(rack.impact && rack.fixed && rack.vls && rack.no_ultralights);
}

#[test]
fn sky_wpn_00_attack_dice_are_a_flat_number() {
    for kind in WeaponKind::ALL {
        assert!((1..=8).contains(&kind.stats().dice), "{kind:?}");
    }
}

#[test]
fn sky_mod_1_to_10_module_costs() {
    let costs = [
        (ModuleKind::ChaffLauncher, 10),
        (ModuleKind::AcousticDecoys, 15),
        (ModuleKind::DcCenter, 20),
        (ModuleKind::SignalArray, 10),
        (ModuleKind::ArmoredBridge, 15),
        (ModuleKind::ReinforcedBulkheads, 15),
        (ModuleKind::CompressedGas, 10),
        (ModuleKind::DiveBrakes, 10),
        (ModuleKind::Sonar, 15),
        (ModuleKind::Hangar, 10),
    ];
    for (module, cost) in costs {
        assert_eq!(module.cost(), cost, "{module:?}");
    }
}

#[test]
fn sky_stat_a_to_e_stat_blocks_and_slots_sky_gm_02() {
    // (class, hull, skill, morale, cmd, dc, lift, drop, stall, inertia, slots, utilities)
    let blocks = [
        (Class::Wing, 10, 3, 6, 0, 0, None, None, None, 0, 3, 0),
        (
            Class::Escort,
            15,
            3,
            5,
            1,
            1,
            Some(2),
            Some(1),
            Some(9),
            2,
            1,
            1,
        ),
        (
            Class::Gunship,
            35,
            4,
            6,
            2,
            2,
            Some(3),
            Some(1),
            Some(8),
            3,
            3,
            2,
        ),
        (
            Class::Command,
            55,
            4,
            7,
            4,
            3,
            Some(3),
            Some(1),
            Some(7),
            4,
            2,
            4,
        ),
        (
            Class::Capital,
            80,
            3,
            8,
            5,
            4,
            Some(4),
            Some(1),
            Some(6),
            4,
            6,
            3,
        ),
    ];
    for (class, hull, skill, morale, cmd, dc, lift, drop, stall, inertia, slots, utilities) in
        blocks
    {
        let s = class.stats();
        assert_eq!(
            (s.hull, s.skill, s.morale, s.cmd, s.dc),
            (hull, skill, morale, cmd, dc),
            "{class:?}"
        );
        assert_eq!((s.lift, s.drop, s.stall), (lift, drop, stall), "{class:?}");
        assert_eq!(s.inertia, Length::inches(inertia), "{class:?}");
        assert_eq!(s.weapon_slots.len(), slots, "{class:?}");
        assert_eq!(s.utility_slots, utilities, "{class:?}");
    }
    // SKY-STAT-A: Ultralight, Fragile, Evasive.
    let wing = Class::Wing.stats();
    assert!(wing.fragile && wing.evasive && wing.size == Some(Size::Ultralight));
    // SKY-STAT-B: one turreted Light slot.
    assert_eq!(Class::Escort.stats().weapon_slots[0].mount, Mount::Turret);
    // SKY-STAT-C: Medium forward, port, starboard.
    let gunship: Vec<Mount> = Class::Gunship
        .stats()
        .weapon_slots
        .iter()
        .map(|s| s.mount)
        .collect();
    assert_eq!(gunship, vec![Mount::Forward, Mount::Port, Mount::Starboard]);
    // SKY-STAT-D: Medium forward and aft.
    let command: Vec<Mount> = Class::Command
        .stats()
        .weapon_slots
        .iter()
        .map(|s| s.mount)
        .collect();
    assert_eq!(command, vec![Mount::Forward, Mount::Aft]);
    // SKY-STAT-E: 1 forward, 2 port, 2 starboard, 1 aft, all Large.
    let capital = Class::Capital.stats();
    assert!(capital.weapon_slots.iter().all(|s| s.size == Size::Large));
    let names: Vec<&str> = Class::ALL.iter().map(|c| c.display()).collect();
    assert_eq!(
        names,
        vec![
            "Wing",
            "Escort",
            "Gunship",
            "Command Ship",
            "Capital Ship",
            "Torpedo"
        ],
        "SKY-GM-02: the neutral display names"
    );
}

#[test]
fn sky_torp_01_02_03_the_torpedo_unit() {
    let torpedo = Class::Torpedo.stats();
    assert_eq!(torpedo.movement, Length::inches(12));
    assert_eq!(torpedo.pivot, Turn(45));
    assert_eq!(torpedo.hull, 4);
    assert_eq!((torpedo.lift, torpedo.drop), (Some(1), Some(1)));
    assert_eq!(torpedo.inertia, Length::inches(5));
    assert!(torpedo.fragile && torpedo.evasive);
}

/// SKY-GM-29: "Heavy" in the movement table is the Large class.
#[test]
fn sky_gm_29_heavy_movement_is_the_large_class() {
    assert_eq!(Class::Capital.stats().size, Some(Size::Large));
    assert_eq!(
        Class::Capital.stats().movement,
        Length::inches(5),
        "SKY-GM-29: the Large class moves as the Heavy row"
    );
    assert_eq!(
        Class::Capital.stats().pivot,
        Turn(45),
        "SKY-GM-29: and pivots 22.5°"
    );
}

#[test]
fn sky_gm_09_default_bases() {
    let diameters: Vec<i64> = Class::ALL
        .iter()
        .map(|c| c.stats().base_diameter.hundredths())
        .collect();
    assert_eq!(diameters, vec![100, 150, 200, 200, 300, 50]);
}

/// SKY-EX-12: the fittings (hull excluded) cost 350, 110 and 30; with SKY-GM-03's default hull
/// costs (2 × Hull) 510, 180 and 50, and the Capital alone is over the default 500-point budget.
#[test]
fn sky_ex_12_fittings_costs_and_sky_gm_03_hull_defaults() {
    let fleet = |hull_costs: serde_json::Value| -> skyfleet::Setup {
        serde_json::from_value(serde_json::json!({
            "hull_costs": hull_costs,
            "sides": [
                {"name": "A", "fleet": [
                    {"name": "Leviathan", "class": "capital",
                     "weapons": {"fwd": "Siege Lance", "port1": "Dreadnought Battery",
                                 "port2": "Dreadnought Battery", "stbd1": "Dreadnought Battery",
                                 "stbd2": "Dreadnought Battery", "aft": "Mega-Flak Array"},
                     "utilities": ["Signal Array", "DC Center", "Armored Bridge"]},
                    {"name": "Valiant", "class": "gunship",
                     "weapons": {"fwd": "Heavy Lance", "port": "Naval Battery",
                                 "stbd": "Naval Battery"},
                     "utilities": ["Sonar", "Hangar"],
                     "wings": [{"name": "Hawk", "weapons": ["MG", "Bombs", "Rockets"]}]}
                ]},
                {"name": "B", "fleet": []}
            ]
        }))
        .unwrap()
    };
    let units = |setup: &skyfleet::Setup| setup.costs()[0].units.clone();
    let free =
        serde_json::json!({"wing": 0, "escort": 0, "gunship": 0, "command": 0, "capital": 0});
    assert_eq!(
        units(&fleet(free)),
        [
            ("Leviathan".to_string(), 350),
            ("Valiant".to_string(), 110),
            ("Hawk".to_string(), 30)
        ],
        "SKY-EX-12: the fittings, hull excluded"
    );
    let standard = fleet(serde_json::json!({}));
    assert_eq!(
        units(&standard),
        [
            ("Leviathan".to_string(), 510),
            ("Valiant".to_string(), 180),
            ("Hawk".to_string(), 50)
        ],
        "SKY-EX-12 with SKY-GM-03's hulls: Capital 160, Gunship 70, Wing 20"
    );
    assert_eq!(standard.budget, 500, "SKY-GM-03: the default budget");
    assert!(
        units(&standard)[0].1 > standard.budget,
        "SKY-EX-12: the Capital alone is over the 500-point budget"
    );
}
