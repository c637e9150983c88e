//! Gunfire and torpedoes: whether a weapon can engage a target, the dice, the criticals and
//! their effects (IRON-GUN-*, IRON-TORP-*, IRON-GM-01..06, IRON-GM-12, IRON-GM-13, IRON-GM-16).

use std::fmt;

use engine::{Dice, PlayerId};
use serde::{Deserialize, Serialize};

use crate::grid::{Arc, Area, arc_of, bearing_products, first_blocker};
use crate::state::{Burning, Ship, ShipId, State, TubeMount};
use crate::tables::{
    DieResult, GunCritical, MAIN_RANGE, SECONDARY_RANGE, TORPEDO_RANGE, TorpedoCritical,
};

/// A weapon group: each fires at one target a turn (IRON-GUN-05..07, IRON-TORP-03). Their
/// order here is the fire steps' order (IRON-SEQ-01..03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    Main,
    Port,
    Starboard,
    Torpedo,
}

impl Group {
    pub const ALL: [Group; 4] = [Group::Main, Group::Port, Group::Starboard, Group::Torpedo];

    /// The report's one-letter tag.
    pub fn letter(self) -> char {
        match self {
            Group::Main => 'M',
            Group::Port => 'P',
            Group::Starboard => 'S',
            Group::Torpedo => 'T',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Group::Main => "main armament",
            Group::Port => "port secondary",
            Group::Starboard => "starboard secondary",
            Group::Torpedo => "torpedo",
        }
    }

    fn reach(self) -> u32 {
        match self {
            Group::Main => MAIN_RANGE,
            Group::Port | Group::Starboard => SECONDARY_RANGE,
            Group::Torpedo => TORPEDO_RANGE,
        }
    }
}

/// How a weapon group bears on a target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Solution {
    /// The target's arc as seen from the firer (IRON-GM-02).
    pub arc: Arc,
    pub range: u32,
    /// Dice to throw: the table's dice times the guns bearing (IRON-GM-01, IRON-GM-03).
    pub dice: u32,
    /// Live main turrets bearing (main only).
    pub turrets: u8,
    /// The tube used (torpedo only).
    pub tube: Option<TubeMount>,
}

/// Why a weapon group cannot engage a target: shown to players when orders are checked and in
/// the report when fire is held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "problem")]
pub enum FireProblem {
    FirerGone,
    /// IRON-GUN-11: no fire for three turns after a bridge hit.
    BridgeHit {
        until: u32,
    },
    /// IRON-DMG-02 under the GM's switch: a broken-off ship does not fire.
    BrokenOff,
    /// IRON-GM-17: only enemy ships may be targeted.
    Friendly {
        target: String,
    },
    TargetGone {
        target: String,
    },
    /// IRON-GUN-01, IRON-GUN-02, IRON-TORP-01.
    OutOfRange {
        target: String,
        range: u32,
        reach: u32,
    },
    /// IRON-GUN-04, IRON-GUN-09, IRON-GM-02, IRON-GM-16.
    NotInArc {
        target: String,
        arc: Arc,
    },
    /// IRON-GUN-12: every turret that could bear is destroyed.
    NoTurretBears {
        target: String,
        arc: Arc,
    },
    NoBattery,
    /// IRON-GUN-14: the battery was destroyed.
    BatteryLost,
    /// IRON-TORP-03: four torpedoes already fired (or none carried).
    NoTorpedoesLeft,
    /// IRON-GM-16: the ship type has no tubes.
    NoTubes,
    NoSuchTube {
        tube: TubeMount,
    },
    /// IRON-GM-01: the table gives no dice there.
    NoDice {
        target: String,
        range: u32,
        arc: Arc,
    },
    /// IRON-GUN-08, IRON-GM-04.
    NoLineOfSight {
        target: String,
        blocker: String,
    },
}

impl fmt::Display for FireProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FireProblem::FirerGone => write!(f, "she was lost before the fire steps (IRON-GM-13)"),
            FireProblem::BridgeHit { until } => {
                write!(
                    f,
                    "bridge hit: she may not fire until after turn {until} (IRON-GUN-11)"
                )
            }
            FireProblem::BrokenOff => write!(
                f,
                "she has broken off, and in this game a ship that has broken off does not fire (IRON-DMG-02)"
            ),
            FireProblem::Friendly { target } => {
                write!(
                    f,
                    "{target} is on your own side; only enemy ships may be targeted (IRON-GM-17)"
                )
            }
            FireProblem::TargetGone { target } => {
                write!(f, "{target} is no longer afloat on the board")
            }
            FireProblem::OutOfRange {
                target,
                range,
                reach,
            } => write!(
                f,
                "{target} is out of range: {range} areas, and this weapon reaches {reach}"
            ),
            FireProblem::NotInArc { target, arc } => {
                write!(
                    f,
                    "{target} is not in this weapon's arc: she lies {}",
                    arc_phrase(*arc)
                )
            }
            FireProblem::NoTurretBears { target, arc } => write!(
                f,
                "no main turret left can bear on {target}, who lies {}",
                arc_phrase(*arc)
            ),
            FireProblem::NoBattery => write!(f, "she has no secondary guns on that side"),
            FireProblem::BatteryLost => write!(f, "that secondary battery has been destroyed"),
            FireProblem::NoTorpedoesLeft => write!(
                f,
                "no torpedoes left: a ship fires at most 4 in a battle (IRON-TORP-03)"
            ),
            FireProblem::NoTubes => write!(f, "she has no torpedo tubes"),
            FireProblem::NoSuchTube { tube } => write!(f, "she has no {} tube", tube.name()),
            FireProblem::NoDice { target, range, arc } => write!(
                f,
                "the dice table gives no dice at range {range} {} ({target})",
                arc_phrase(*arc)
            ),
            FireProblem::NoLineOfSight { target, blocker } => {
                write!(
                    f,
                    "{blocker} blocks the line of sight to {target} (IRON-GUN-08)"
                )
            }
        }
    }
}

fn arc_phrase(arc: Arc) -> &'static str {
    match arc {
        Arc::Forward => "ahead",
        Arc::Aft => "astern",
        Arc::Port => "on the port beam",
        Arc::Starboard => "on the starboard beam",
    }
}

/// Can `firer`'s `group` engage `target` this turn, and with how many dice? Uses the positions
/// in `state`, which are those of the fire steps: fire comes before movement (IRON-GM-06).
pub fn solve(
    state: &State,
    firer: &Ship,
    target: &Ship,
    group: Group,
    tube: Option<TubeMount>,
) -> Result<Solution, FireProblem> {
    if !firer.afloat() {
        return Err(FireProblem::FirerGone);
    }
    if firer.bridge_silences(state.turn) {
        return Err(FireProblem::BridgeHit {
            until: firer.bridge_silent_until().unwrap_or(state.turn),
        });
    }
    // Broken off before this turn's fire steps: a ship breaking off in them still fires, as
    // all fire is simultaneous (IRON-SEQ-04).
    if firer.broken_off && !state.rules.broken_off_ships_fire {
        return Err(FireProblem::BrokenOff);
    }
    let name = || target.name.clone();
    if target.side == firer.side {
        return Err(FireProblem::Friendly { target: name() });
    }
    if !target.afloat() {
        return Err(FireProblem::TargetGone { target: name() });
    }
    let range = firer.area.range_to(target.area);
    let Some(arc) = arc_of(firer.heading, firer.area.offset_to(target.area)) else {
        return Err(FireProblem::TargetGone { target: name() });
    };
    // Weapon-specific limits first: having no battery matters more than the range.
    match group {
        Group::Port | Group::Starboard => {
            let battery = if group == Group::Port {
                firer.port_battery
            } else {
                firer.starboard_battery
            };
            if battery.guns == 0 {
                return Err(FireProblem::NoBattery);
            }
            if battery.destroyed {
                return Err(FireProblem::BatteryLost);
            }
        }
        Group::Torpedo => {
            if firer.tubes.is_empty() {
                return Err(FireProblem::NoTubes);
            }
            if firer.torpedoes_left == 0 {
                return Err(FireProblem::NoTorpedoesLeft);
            }
            if let Some(tube) = tube.filter(|t| !firer.tubes.contains(t)) {
                return Err(FireProblem::NoSuchTube { tube });
            }
        }
        Group::Main => {}
    }
    // Arc before range: "she is astern" says more than "she is too far".
    let table = &state.rules.dice_table;
    let mut solution = Solution {
        arc,
        range,
        dice: 0,
        turrets: 0,
        tube: None,
    };
    match group {
        Group::Main => {
            let bearing = firer.turrets.iter().filter(|t| t.bears_on(arc)).count();
            solution.turrets = u8::try_from(bearing).unwrap_or(u8::MAX);
            if bearing == 0 {
                let could = firer.turrets.iter().any(|t| t.bears.contains(&arc));
                return Err(if could {
                    FireProblem::NoTurretBears {
                        target: name(),
                        arc,
                    }
                } else {
                    FireProblem::NotInArc {
                        target: name(),
                        arc,
                    }
                });
            }
            solution.dice =
                u32::from(table.main.dice(arc, range)).saturating_mul(u32::from(solution.turrets));
        }
        Group::Port | Group::Starboard => {
            let (wanted, battery) = if group == Group::Port {
                (Arc::Port, firer.port_battery)
            } else {
                (Arc::Starboard, firer.starboard_battery)
            };
            if arc != wanted {
                return Err(FireProblem::NotInArc {
                    target: name(),
                    arc,
                });
            }
            solution.dice =
                u32::from(table.secondary_dice(range)).saturating_mul(u32::from(battery.guns));
        }
        Group::Torpedo => {
            let usable = |mount: &TubeMount| mount.arc() == arc;
            let chosen = match tube {
                Some(mount) => Some(mount).filter(usable),
                None => firer.tubes.iter().copied().find(usable),
            };
            let Some(mount) = chosen else {
                return Err(FireProblem::NotInArc {
                    target: name(),
                    arc,
                });
            };
            solution.tube = Some(mount);
            solution.dice = u32::from(table.torpedo.dice(arc, range));
        }
    }
    if range > group.reach() {
        return Err(FireProblem::OutOfRange {
            target: name(),
            range,
            reach: group.reach(),
        });
    }
    if solution.dice == 0 {
        return Err(FireProblem::NoDice {
            target: name(),
            range,
            arc,
        });
    }
    if let Some(blocker) = blocker(state, firer, target) {
        return Err(FireProblem::NoLineOfSight {
            target: name(),
            blocker,
        });
    }
    Ok(solution)
}

/// The first ship (by ID) or terrain area in the way: every other afloat ship blocks, friend or
/// foe, and so does marked terrain (IRON-GUN-08, IRON-GM-04). A torpedo's run is blocked the
/// same way (IRON-ADM-10).
fn blocker(state: &State, firer: &Ship, target: &Ship) -> Option<String> {
    let ships = state
        .ships
        .iter()
        .filter(|s| s.afloat() && s.id != firer.id && s.id != target.id)
        .map(|s| (s.area, Some(s.id)));
    let terrain = state.rules.terrain.iter().map(|area| (*area, None));
    match first_blocker(firer.area, target.area, ships.chain(terrain))? {
        Some(id) => Some(
            state
                .ship(id)
                .map(|s| s.name.clone())
                .unwrap_or_else(|| id.to_string()),
        ),
        None => Some("terrain".into()),
    }
}

/// One critical die and what it rolled (IRON-GUN-10, IRON-TORP-04, IRON-GM-20).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "table")]
pub enum CriticalRoll {
    Gun {
        face: u32,
        effect: GunCritical,
    },
    Torpedo {
        face: u32,
        effect: TorpedoCritical,
        /// The D6 of turns a rudder hit lasts, thrown right after its critical die.
        rudder_turns: Option<u32>,
    },
}

/// What a critical did once applied to the target (IRON-GM-05: after the third fire step).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "effect")]
pub enum Applied {
    /// IRON-GUN-11.
    BridgeHit,
    /// IRON-GUN-12, IRON-GM-12.
    TurretLost {
        turret: String,
    },
    NoTurretLeft,
    /// IRON-GUN-13.
    EnginesDamaged,
    /// IRON-GUN-14, IRON-GM-12.
    BatteryLost {
        port: bool,
    },
    BatteryAlreadyLost {
        port: bool,
    },
    NoBatteryThere {
        port: bool,
    },
    /// IRON-GUN-15.
    FireStarted,
    /// IRON-GM-13: a ship burns at most once.
    AlreadyBurning,
    /// IRON-GUN-16, IRON-TORP-07, IRON-TORP-08.
    MoreFp {
        fp: u8,
    },
    /// IRON-TORP-05, IRON-GM-11.
    RudderJammed {
        turns: u32,
        until: u32,
    },
    /// IRON-TORP-06.
    Flooded,
}

impl fmt::Display for Applied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |port: &bool| if *port { "port" } else { "stbd" };
        match self {
            Applied::BridgeHit => write!(f, "bridge hit"),
            Applied::TurretLost { turret } => write!(f, "turret {turret} lost"),
            Applied::NoTurretLeft => write!(f, "turret hit, none left"),
            Applied::EnginesDamaged => write!(f, "engines damaged"),
            Applied::BatteryLost { port } => write!(f, "{} sec lost", side(port)),
            Applied::BatteryAlreadyLost { port } => write!(f, "{} sec already lost", side(port)),
            Applied::NoBatteryThere { port } => write!(f, "no {} sec to hit", side(port)),
            Applied::FireStarted => write!(f, "fire"),
            Applied::AlreadyBurning => write!(f, "fire, already burning"),
            Applied::MoreFp { fp } => write!(f, "+{fp} FP"),
            Applied::RudderJammed { turns, .. } => write!(f, "rudder d6 [{turns}] → {turns} turns"),
            Applied::Flooded => write!(f, "flooded"),
        }
    }
}

/// One weapon group's fire at one target: the dice, the criticals, and (once applied) what
/// they did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Volley {
    pub firer: ShipId,
    pub group: Group,
    pub target: ShipId,
    pub target_area: Area,
    pub solution: Solution,
    pub dice: Vec<u32>,
    pub criticals: Vec<CriticalRoll>,
    /// FP the dice and criticals take off, before the floor at 0.
    pub fp: u8,
    /// Effects of the criticals, in die order, filled in when applied.
    pub applied: Vec<Applied>,
}

/// Throws one volley: the damage dice, then a critical die for each 6 in die order, a rudder
/// hit's D6 straight after its critical die (catalogue RNG order; IRON-GM-20).
pub fn throw(
    dice: &mut Dice,
    firer: ShipId,
    group: Group,
    target: &Ship,
    solution: Solution,
) -> Volley {
    let faces: Vec<u32> = (0..solution.dice).map(|_| dice.d6()).collect();
    let mut fp: u8 = 0;
    let mut criticals = Vec::new();
    for face in &faces {
        let result = DieResult::of(*face);
        fp = fp.saturating_add(result.fp());
    }
    for _ in faces
        .iter()
        .filter(|face| DieResult::of(**face) == DieResult::Major)
    {
        let face = dice.d6();
        let roll = if group == Group::Torpedo {
            let effect = TorpedoCritical::of(face);
            let rudder_turns = (effect == TorpedoCritical::Rudder).then(|| dice.d6());
            fp = fp.saturating_add(match effect {
                TorpedoCritical::TwoMoreFp => 2,
                TorpedoCritical::OneMoreFp => 1,
                TorpedoCritical::Rudder | TorpedoCritical::Flooding => 0,
            });
            CriticalRoll::Torpedo {
                face,
                effect,
                rudder_turns,
            }
        } else {
            let effect = GunCritical::of(face);
            if effect == GunCritical::ExtraFp {
                fp = fp.saturating_add(1);
            }
            CriticalRoll::Gun { face, effect }
        };
        criticals.push(roll);
    }
    Volley {
        firer,
        group,
        target: target.id,
        target_area: target.area,
        solution,
        dice: faces,
        criticals,
        fp,
        applied: Vec::new(),
    }
}

/// Applies a volley to its target: FP first, never below 0 (IRON-DMG-01, IRON-DMG-03), then
/// each critical in die order. Returns the FP actually removed.
pub fn apply(
    target: &mut Ship,
    volley: &mut Volley,
    firer_area: Area,
    firer_player: Option<PlayerId>,
    turn: u32,
) -> u8 {
    let before = target.fp;
    target.fp = target.fp.saturating_sub(volley.fp);
    let mut applied = Vec::new();
    for roll in &volley.criticals {
        applied.push(match roll {
            CriticalRoll::Gun { effect, .. } => {
                apply_gun_critical(target, *effect, firer_area, firer_player, turn)
            }
            CriticalRoll::Torpedo {
                effect,
                rudder_turns,
                ..
            } => apply_torpedo_critical(target, *effect, *rudder_turns, turn),
        });
    }
    volley.applied = applied;
    before.saturating_sub(target.fp)
}

fn apply_gun_critical(
    target: &mut Ship,
    effect: GunCritical,
    firer_area: Area,
    firer_player: Option<PlayerId>,
    turn: u32,
) -> Applied {
    let toward_firer = target.area.offset_to(firer_area);
    match effect {
        GunCritical::Bridge => {
            // A repeat hit restarts the count (IRON-GM-11).
            target.bridge_hit_turn = Some(turn);
            Applied::BridgeHit
        }
        GunCritical::Turret => {
            // IRON-GM-12: a live turret bearing on the firer; if both or neither bear, A then Y
            // (generally: the first live turret in the roster).
            let arc = arc_of(target.heading, toward_firer);
            let bearing: Vec<usize> = target
                .turrets
                .iter()
                .enumerate()
                .filter(|(_, t)| arc.is_some_and(|arc| t.bears_on(arc)))
                .map(|(index, _)| index)
                .collect();
            let chosen = match bearing.as_slice() {
                [only] => Some(*only),
                _ => target.turrets.iter().position(|t| !t.destroyed),
            };
            match chosen.and_then(|index| target.turrets.get_mut(index)) {
                Some(turret) => {
                    turret.destroyed = true;
                    Applied::TurretLost {
                        turret: turret.name.clone(),
                    }
                }
                None => Applied::NoTurretLeft,
            }
        }
        GunCritical::Engines => {
            target.engines_damaged = true;
            Applied::EnginesDamaged
        }
        GunCritical::Secondary => {
            // IRON-GM-12: the side given by the sign of r; dead ahead or astern, port if alive.
            let (_, across) = bearing_products(target.heading, toward_firer);
            let port = if across > 0 {
                false
            } else if across < 0 {
                true
            } else {
                target.port_battery.can_fire()
            };
            let battery = if port {
                &mut target.port_battery
            } else {
                &mut target.starboard_battery
            };
            if battery.guns == 0 {
                Applied::NoBatteryThere { port }
            } else if battery.destroyed {
                Applied::BatteryAlreadyLost { port }
            } else {
                battery.destroyed = true;
                Applied::BatteryLost { port }
            }
        }
        GunCritical::Fire => {
            if target.fire.is_some() {
                Applied::AlreadyBurning
            } else {
                target.fire = Some(Burning {
                    since_turn: turn,
                    started_by: firer_player,
                });
                Applied::FireStarted
            }
        }
        GunCritical::ExtraFp => Applied::MoreFp { fp: 1 },
    }
}

fn apply_torpedo_critical(
    target: &mut Ship,
    effect: TorpedoCritical,
    rudder_turns: Option<u32>,
    turn: u32,
) -> Applied {
    match effect {
        TorpedoCritical::Rudder => {
            let turns = rudder_turns.unwrap_or(1).max(1);
            // Holds course in the movement of turns t..=t+k-1 (IRON-GM-11). A repeat hit restarts
            // the count but never shortens a hold already in force (IRON-ADM-02).
            let until = turn.saturating_add(turns - 1);
            target.rudder_until = Some(target.rudder_until.map_or(until, |old| old.max(until)));
            Applied::RudderJammed { turns, until }
        }
        TorpedoCritical::Flooding => {
            target.flooded = true;
            Applied::Flooded
        }
        TorpedoCritical::TwoMoreFp => Applied::MoreFp { fp: 2 },
        TorpedoCritical::OneMoreFp => Applied::MoreFp { fp: 1 },
    }
}
