//! Whether a weapon can fire at a target and what it needs to hit: range, arcs, the Level
//! band, cloud banks, line of sight by elevation span, and the to-hit modifiers, clamped to
//! 2+..6+. Pure: used by the parser to warn and by the turn to shoot.

use crate::geometry::{Angle, Length, Point, cos, segment_within, sin, within};
use crate::state::{State, Unit, UnitId, Weapon};
use crate::tables::{Mount, WeaponStats};
use crate::terrain::IslandEffect;

/// The four 90° arcs (SKY-ARC-01).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Arc {
    Forward,
    Starboard,
    Aft,
    Port,
}

impl Arc {
    pub fn name(self) -> &'static str {
        match self {
            Arc::Forward => "forward",
            Arc::Starboard => "starboard",
            Arc::Aft => "aft",
            Arc::Port => "port",
        }
    }
}

/// The arc a point lies in, seen from a unit at `from` facing `heading`. Boundary bearings
/// (±45°, ±135°) belong to the forward and aft arcs (SKY-GM-10). Exact: the comparison is of
/// the point's forward and rightward components, not of an angle.
pub fn arc_of(from: Point, heading: Angle, to: Point) -> Arc {
    let dx = i128::from(to.x.0) - i128::from(from.x.0);
    let dy = i128::from(to.y.0) - i128::from(from.y.0);
    let (s, c) = (i128::from(sin(heading)), i128::from(cos(heading)));
    let ahead = dx * s + dy * c;
    let right = dx * c - dy * s;
    if right.abs() <= ahead {
        Arc::Forward
    } else if right.abs() <= -ahead {
        Arc::Aft
    } else if right > 0 {
        Arc::Starboard
    } else {
        Arc::Port
    }
}

/// Does a weapon in this mount cover this arc? VLS fires all round; Fixed only into its
/// slot's arc (the Escort's turret counting as forward); Turreted weapons, the Escort's
/// turret and wings' hardpoints all round (SKY-GM-10, SKY-KW-VLS, SKY-ADM-03).
pub fn covers(mount: Mount, stats: &WeaponStats, arc: Arc) -> bool {
    if stats.vls {
        return true;
    }
    let slot_arc = match mount {
        Mount::Forward | Mount::Turret => Arc::Forward,
        Mount::Port => Arc::Port,
        Mount::Starboard => Arc::Starboard,
        Mount::Aft => Arc::Aft,
        Mount::Hardpoint => return true,
    };
    if stats.fixed {
        return arc == slot_arc;
    }
    if stats.turreted || mount == Mount::Turret {
        return true;
    }
    arc == slot_arc
}

/// The final target number: base Skill less the sum of quality modifiers, never better than
/// 2+ nor worse than 6+ (SKY-HIT-01, SKY-GM-05, SKY-FLOOR-02).
pub fn to_hit(skill: u8, quality: i32) -> u8 {
    (i32::from(skill) - quality).clamp(2, 6) as u8
}

/// Range: the gap between the two bases' nearest edges, ignoring height unless the GM adds
/// inches per level (SKY-GM-08).
pub fn range_between(state: &State, a: &Unit, b: &Unit) -> Length {
    let centres = crate::geometry::distance(a.at, b.at);
    let vertical = Length(
        state.rules.vertical_range_per_level.hundredths()
            * i64::from(a.elevation.abs_diff(b.elevation)),
    );
    Length((centres - a.radius - b.radius).hundredths().max(0)) + vertical
}

/// Is `b` within `reach` of `a`, base edge to base edge (SKY-CMD-01, SKY-GM-19, SKY-GM-24)?
pub fn bases_within(a: &Unit, b: &Unit, reach: Length) -> bool {
    within(a.at, b.at, reach + a.radius + b.radius)
}

/// A shot that may be taken, with its arithmetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shot {
    pub target: UnitId,
    pub range: Length,
    /// The final target number.
    pub skill: u8,
    /// The modifiers applied, as shown in the report: `above +1`, `Evasive −3`.
    pub modifiers: Vec<String>,
    /// Flyover: every die hits (SKY-KW-FLYOVER, SKY-GM-26).
    pub flyover: bool,
    /// Target Lock applied.
    pub locked: bool,
}

/// Why a weapon cannot fire at a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The Torpedo Launcher only launches (SKY-GM-10).
    LaunchOnly,
    Jammed,
    WeaponsDown,
    Gone,
    Itself,
    Friendly,
    Ultralight,
    OutOfRange {
        range: Length,
        max: Length,
    },
    OutOfArc {
        arc: Arc,
    },
    NotLevel {
        difference: u8,
    },
    FromCloud,
    Blocked {
        by: String,
    },
}

impl Refusal {
    pub fn describe(&self, target: &str, weapon: &str) -> String {
        match self {
            Refusal::LaunchOnly => format!("{weapon} only launches torpedoes (CMD LAUNCHTORPEDO)"),
            Refusal::Jammed => format!("{weapon} jammed"),
            Refusal::WeaponsDown => format!("{weapon}: weapons down"),
            Refusal::Gone => format!("{target} is not in play"),
            Refusal::Itself => "cannot fire at itself".into(),
            Refusal::Friendly => format!("{target} is friendly"),
            Refusal::Ultralight => format!("{weapon} cannot target Ultralights ({target})"),
            Refusal::OutOfRange { range, max } => {
                format!(
                    "{target} out of range ({}\" > {}\")",
                    range.display(),
                    max.display()
                )
            }
            Refusal::OutOfArc { arc } => {
                format!("{target} out of arc ({} arc)", arc.name())
            }
            Refusal::NotLevel { difference } => {
                format!("{target} not level ({difference} levels apart; Level weapons shoot flat)")
            }
            Refusal::FromCloud => format!("cannot fire out of the cloud bank at {target}"),
            Refusal::Blocked { by } => format!("{target} blocked by {by}"),
        }
    }
}

/// Can `attacker`'s `weapon` fire at `target` now, and at what? `locked`: Target Lock bought
/// for this weapon; `flown_over`: the attacker's move this activation passed over the target.
/// (SKY-LOS-01, SKY-ARC-01, SKY-HGT-01/02, SKY-UL-01, SKY-HIT-01, SKY-CLOUD-01/02,
/// SKY-ISL-03/04, SKY-KW-*, SKY-GM-05, -07, -08, -10, -12, -26, -27.)
pub fn assess(
    state: &State,
    attacker: &Unit,
    weapon: &Weapon,
    target: &Unit,
    locked: bool,
    flown_over: bool,
) -> Result<Shot, Refusal> {
    let stats = weapon.kind.stats();
    if stats.torpedo {
        return Err(Refusal::LaunchOnly);
    }
    if attacker.status.weapons_down {
        return Err(Refusal::WeaponsDown);
    }
    if weapon.jammed {
        return Err(Refusal::Jammed);
    }
    if target.id == attacker.id {
        return Err(Refusal::Itself);
    }
    if !target.in_play() {
        return Err(Refusal::Gone);
    }
    if target.side == attacker.side {
        return Err(Refusal::Friendly);
    }
    if target.is_ultralight()
        && !weapon
            .kind
            .may_target_ultralights(state.rules.harmonise_missiles)
    {
        return Err(Refusal::Ultralight);
    }
    let range = range_between(state, attacker, target);
    if let Some(max) = stats.range
        && range > max
    {
        return Err(Refusal::OutOfRange { range, max });
    }
    let arc = arc_of(attacker.at, attacker.heading, target.at);
    if attacker.is_ship() && !covers(weapon.mount, &stats, arc) {
        return Err(Refusal::OutOfArc { arc });
    }
    let difference = attacker.elevation.abs_diff(target.elevation);
    if stats.level && difference > state.rules.level_tolerance {
        return Err(Refusal::NotLevel { difference });
    }
    let sonar = attacker.has_sonar();
    let attacker_cloud = state.terrain.cloud_at(attacker.at, attacker.elevation);
    let target_cloud = state.terrain.cloud_at(target.at, target.elevation);
    // SKY-CLOUD-01, SKY-GM-12: no shooting out of a cloud bank, except at a unit in the
    // same bank; Sonar lifts the ban (SKY-CLOUD-02).
    if !sonar && attacker_cloud.is_some() && attacker_cloud != target_cloud {
        return Err(Refusal::FromCloud);
    }
    // SKY-GM-07: ships in the elevation span whose base meets the line block it; wings and
    // torpedoes never do.
    let (low, high) = (
        attacker.elevation.min(target.elevation),
        attacker.elevation.max(target.elevation),
    );
    if let Some(blocker) = state.units.iter().find(|u| {
        u.in_play()
            && u.is_ship()
            && u.id != attacker.id
            && u.id != target.id
            && (low..=high).contains(&u.elevation)
            && segment_within(attacker.at, target.at, u.at, u.radius)
    }) {
        return Err(Refusal::Blocked {
            by: blocker.name.clone(),
        });
    }
    let islands = state.terrain.island_effect(
        attacker.at,
        attacker.elevation,
        target.at,
        target.elevation,
        state.rules.shot_over_island,
    );
    if let IslandEffect::Blocked(name) = &islands {
        return Err(Refusal::Blocked {
            by: format!("island {name}"),
        });
    }

    let mut quality = 0;
    let mut modifiers = Vec::new();
    let mut add = |value: i32, why: &str| {
        quality += value;
        let sign = if value > 0 { "+" } else { "−" };
        modifiers.push(format!("{why} {sign}{}", value.abs()));
    };
    // SKY-HGT-01/02, SKY-GM-27: no height modifier for Flak or if either is Ultralight.
    if !stats.flak && !attacker.is_ultralight() && !target.is_ultralight() {
        if attacker.elevation > target.elevation {
            add(1, "above");
        } else if attacker.elevation < target.elevation {
            add(-1, "below");
        }
    }
    // SKY-CMD-05, SKY-UL-01: Target Lock never helps against an Ultralight.
    let locked = locked && !target.is_ultralight();
    if locked {
        add(1, "Target Lock");
    }
    // SKY-KW-EVASIVE: −3, ignored by Flak.
    if target.stats().evasive && !stats.flak {
        add(-3, "Evasive");
    }
    // SKY-MOR-05, SKY-GM-23.
    if attacker.is_shaken() {
        add(-1, "Shaken");
    }
    // SKY-CLOUD-01, SKY-MOD-9.
    if target_cloud.is_some() && !sonar {
        add(-1, "cloud");
    }
    // SKY-ISL-04, SKY-MOD-9.
    if let IslandEffect::NearMiss(name) = &islands
        && !sonar
    {
        add(-1, &format!("near {name}"));
    }
    let skill = to_hit(attacker.stats().skill, quality);
    // SKY-KW-FLYOVER, SKY-GM-26: not Rockets, not against Ultralights.
    let flyover =
        flown_over && attacker.is_ultralight() && !stats.no_flyover && !target.is_ultralight();
    Ok(Shot {
        target: target.id,
        range,
        skill,
        modifiers,
        flyover,
        locked,
    })
}

/// The nearest enemy the weapon can legally fire at, by range then unit number.
pub fn nearest_target(
    state: &State,
    attacker: &Unit,
    weapon: &Weapon,
    locked: bool,
    flown_over: &dyn Fn(UnitId) -> bool,
) -> Option<Shot> {
    state
        .units
        .iter()
        .filter(|u| u.in_play() && u.side != attacker.side)
        .filter_map(|u| assess(state, attacker, weapon, u, locked, flown_over(u.id)).ok())
        .min_by_key(|shot| (shot.range, shot.target))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::WeaponKind;

    #[test]
    fn sky_gm_10_arcs_with_boundaries_forward_and_aft() {
        let o = Point::inches(10, 10);
        let east = Angle::EAST;
        assert_eq!(arc_of(o, east, Point::inches(20, 10)), Arc::Forward);
        assert_eq!(arc_of(o, east, Point::inches(20, 20)), Arc::Forward);
        assert_eq!(arc_of(o, east, Point::inches(0, 0)), Arc::Aft);
        assert_eq!(arc_of(o, east, Point::inches(10, 0)), Arc::Starboard);
        assert_eq!(arc_of(o, east, Point::inches(11, 20)), Arc::Port);
        assert_eq!(
            arc_of(o, Angle::NORTH, Point::inches(20, 11)),
            Arc::Starboard
        );
    }

    #[test]
    fn sky_arc_01_slot_arcs_fixed_turreted_and_vls() {
        let lance = WeaponKind::Lance.stats();
        let cannon = WeaponKind::Cannon.stats();
        let flak_cannon = WeaponKind::FlakCannon.stats();
        let rack = WeaponKind::SiegeMissileRack.stats();
        // SKY-KW-VLS.
        assert!(covers(Mount::Aft, &rack, Arc::Forward));
        // Fixed in the Escort's turret: forward only.
        assert!(covers(Mount::Turret, &lance, Arc::Forward));
        assert!(!covers(Mount::Turret, &lance, Arc::Port));
        // The turret slot makes an unfixed light weapon all-round.
        assert!(covers(Mount::Turret, &cannon, Arc::Aft));
        // Turreted weapon anywhere.
        assert!(covers(Mount::Aft, &flak_cannon, Arc::Forward));
        // A plain slot covers its own 90°.
        assert!(covers(
            Mount::Port,
            &WeaponKind::NavalBattery.stats(),
            Arc::Port
        ));
        assert!(!covers(
            Mount::Port,
            &WeaponKind::NavalBattery.stats(),
            Arc::Forward
        ));
    }

    #[test]
    fn sky_hit_01_to_hit_is_clamped_to_2_to_6() {
        assert_eq!(to_hit(4, 1), 3);
        assert_eq!(to_hit(4, -3), 6);
        assert_eq!(to_hit(3, 5), 2);
        assert_eq!(to_hit(4, 0), 4);
    }
}
