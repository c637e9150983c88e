//! Movement and ramming (IRON-MOV-*, IRON-RAM-*, IRON-GM-07, IRON-GM-09, IRON-GM-10,
//! IRON-GM-14, IRON-GM-15).

use engine::Dice;
use serde::{Deserialize, Serialize};

use crate::grid::{Area, Edge, Heading, TurnSide};
use crate::orders::Manoeuvre;
use crate::state::{CRITICAL_POINT, Fate, Ship, ShipId, State};
use crate::tables::{RamKind, ram_die_fp};

/// Why the move carried out differs from the move ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "why")]
pub enum Change {
    /// Engines damaged or flooded: 1 area a turn (IRON-GM-07, IRON-GM-14).
    Slowed,
    /// Bridge or rudder hit: no turning (IRON-GM-07, IRON-GM-11).
    HoldsCourse { until: u32 },
    /// A pivot is only for a slowed ship, and only when the GM allows it (IRON-GM-07).
    PivotNotAllowed,
    /// At or below the Critical Point: steered for home (IRON-GM-10).
    BrokenOff { home: Edge },
}

/// Where a move ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "stop")]
pub enum Stop {
    /// The next step would leave the board (IRON-GM-15).
    Edge { edge: Edge },
    /// The next step would enter marked terrain (IRON-ADM-03).
    Terrain { area: Area },
    /// A broken-off ship does not ram: she stops short (IRON-GM-10).
    ShipInTheWay { ship: ShipId },
    /// The rammer's movement ends; she stays where she was (IRON-GM-09(a)).
    Rammed { ship: ShipId },
}

/// One ramming: both ships throw their dice, each taking its own dice as damage
/// (IRON-RAM-01..10, IRON-GM-09).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ram {
    pub rammer: ShipId,
    pub rammed: ShipId,
    /// The area the rammer struck from: always adjacent to `at` (IRON-RAM-10).
    pub from: Area,
    pub at: Area,
    pub kind: RamKind,
    pub rammer_has_ram: bool,
    pub rammed_dice: Vec<u32>,
    pub rammer_dice: Vec<u32>,
    /// FP actually lost (after the floor at 0).
    pub rammed_lost: u8,
    pub rammer_lost: u8,
    /// Was the rammer broken off when she rammed? Never, by IRON-DMG-02; kept for the tests.
    pub rammer_was_broken_off: bool,
    /// Did the ram bring either ship to her Critical Point (IRON-GM-10) or sink her
    /// (IRON-GM-09(e))?
    pub rammed_fate: RamFate,
    pub rammer_fate: RamFate,
}

/// What a ram left a ship fit for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RamFate {
    Fighting,
    /// Reached her Critical Point with this ram: she breaks off from her next move.
    BrokeOff,
    /// Already broken off, or undamaged by it: nothing new.
    Unchanged,
    Sunk,
}

/// One ship's movement this turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    pub ship: ShipId,
    pub ordered: Option<Manoeuvre>,
    pub carried: Manoeuvre,
    pub change: Option<Change>,
    pub from: Area,
    pub end: Area,
    pub heading: Heading,
    pub stop: Option<Stop>,
    pub ram: Option<Ram>,
    pub escaped: Option<Edge>,
}

/// The move a broken-off ship makes (IRON-GM-10): straight on at her best speed if her
/// heading has a homeward component, else a turn toward home by the shorter way round (the
/// player's preference, or starboard, on a tie), else straight on if she may not turn.
pub fn forced_manoeuvre(
    ship: &Ship,
    home: Edge,
    turn: u32,
    preference: Option<TurnSide>,
    allow_pivot_when_slowed: bool,
) -> Manoeuvre {
    let best_speed = if ship.slowed() {
        Manoeuvre::Ahead
    } else {
        Manoeuvre::AheadTwice
    };
    if home.is_homeward(ship.heading) {
        return best_speed;
    }
    let may_turn = ship.holds_course_until(turn).is_none();
    let turns_needed = |side: TurnSide| {
        Heading::ALL
            .iter()
            .filter(|h| home.is_homeward(**h))
            .map(|h| ship.heading.turns_to(*h, side))
            .min()
            .unwrap_or(u8::MAX)
    };
    let (port, starboard) = (
        turns_needed(TurnSide::Port),
        turns_needed(TurnSide::Starboard),
    );
    let side = if port < starboard {
        TurnSide::Port
    } else if starboard < port {
        TurnSide::Starboard
    } else {
        preference.unwrap_or(TurnSide::Starboard)
    };
    match (may_turn, ship.slowed()) {
        (true, false) => Manoeuvre::ahead_then(side),
        // A slowed ship can turn only by pivoting, where the GM allows it (IRON-ADM-06).
        (true, true) if allow_pivot_when_slowed => Manoeuvre::pivot(side),
        _ => best_speed,
    }
}

/// What an ordered move becomes under the limits in force at resolution (IRON-GM-07): a
/// slowed ship's two-area moves become `F`; a course-holding ship's turns become `F` (a pivot,
/// `HOLD`).
pub fn limited(
    ship: &Ship,
    ordered: Manoeuvre,
    turn: u32,
    allow_pivot_when_slowed: bool,
) -> (Manoeuvre, Option<Change>) {
    if ordered.is_pivot() && !(allow_pivot_when_slowed && ship.slowed()) {
        return (Manoeuvre::Hold, Some(Change::PivotNotAllowed));
    }
    if ship.slowed() && ordered.cost() > 1 {
        // Still checked for a course hold below: `F` has no turn, so it stands.
        return (Manoeuvre::Ahead, Some(Change::Slowed));
    }
    if let Some(until) = ship.holds_course_until(turn)
        && ordered.turn().is_some()
    {
        let carried = if ordered.is_pivot() {
            Manoeuvre::Hold
        } else {
            Manoeuvre::Ahead
        };
        return (carried, Some(Change::HoldsCourse { until }));
    }
    (ordered, None)
}

/// Moves one ship through `manoeuvre`, ramming whatever she runs into unless `forced` (a
/// broken-off ship never rams). Rams throw the rammed ship's dice, then the rammer's
/// (catalogue RNG order). Credits ramming damage to the players' scores.
pub fn carry_out(
    state: &mut State,
    dice: &mut Dice,
    id: ShipId,
    ordered: Option<Manoeuvre>,
    manoeuvre: Manoeuvre,
    change: Option<Change>,
) -> Option<Move> {
    let forced = matches!(change, Some(Change::BrokenOff { .. }));
    let (start, start_heading) = state.ship(id).map(|s| (s.area, s.heading))?;
    let board = state.rules.board;
    let mut record = Move {
        ship: id,
        ordered,
        carried: manoeuvre,
        change,
        from: start,
        end: start,
        heading: start_heading,
        stop: None,
        ram: None,
        escaped: None,
    };
    let mut area = start;
    let mut completed = true;
    for _ in 0..manoeuvre.forward_steps() {
        let next = match board.step(area, start_heading) {
            Ok(next) => next,
            Err(edge) if forced => {
                record.escaped = Some(edge);
                completed = false;
                break;
            }
            Err(edge) => {
                record.stop = Some(Stop::Edge { edge });
                completed = false;
                break;
            }
        };
        if state.rules.terrain.contains(&next) {
            record.stop = Some(Stop::Terrain { area: next });
            completed = false;
            break;
        }
        if let Some(other) = state
            .ship_at(next)
            .map(|s| s.id)
            .filter(|other| *other != id)
        {
            completed = false;
            if forced {
                record.stop = Some(Stop::ShipInTheWay { ship: other });
            } else {
                record.stop = Some(Stop::Rammed { ship: other });
                record.ram = ram(state, dice, id, area, other);
            }
            break;
        }
        area = next;
    }
    let mut heading = start_heading;
    if completed && let Some(side) = manoeuvre.turn() {
        heading = heading.turned(side);
    }
    record.end = area;
    record.heading = heading;
    let turn = state.turn;
    if let Some(moved) = state.ship_mut(id) {
        if let Some(edge) = record.escaped {
            moved.fate = Fate::Escaped { turn, edge };
        }
        moved.area = area;
        moved.heading = heading;
    }
    Some(record)
}

/// Head-on when the rammer strikes from the rammed ship's bow or stern area, else side-on
/// (IRON-RAM-02, IRON-RAM-06, IRON-GM-09(c)); the rammer's own heading does not matter.
pub fn ram_kind(rammed: &Ship, from: Area) -> RamKind {
    let offset = rammed.area.offset_to(from);
    let (hx, hy) = rammed.heading.vector();
    if (offset.dx, offset.dy) == (hx, hy) || (offset.dx, offset.dy) == (-hx, -hy) {
        RamKind::HeadOn
    } else {
        RamKind::SideOn
    }
}

fn ram(
    state: &mut State,
    dice: &mut Dice,
    rammer: ShipId,
    from: Area,
    rammed: ShipId,
) -> Option<Ram> {
    let (has_ram, rammer_side, rammer_player, rammer_was_broken_off) = state
        .ship(rammer)
        .map(|s| (s.ram, s.side, s.player, s.broken_off))?;
    let rammed_ship = state.ship(rammed)?;
    let (at, rammed_side, rammed_player) = (rammed_ship.area, rammed_ship.side, rammed_ship.player);
    let kind = ram_kind(rammed_ship, from);
    let (rammed_count, rammer_count) = kind.dice(has_ram);
    let rammed_dice: Vec<u32> = (0..rammed_count).map(|_| dice.d6()).collect();
    let rammer_dice: Vec<u32> = (0..rammer_count).map(|_| dice.d6()).collect();
    let loss = |faces: &[u32]| {
        faces
            .iter()
            .fold(0u8, |total, face| total.saturating_add(ram_die_fp(*face)))
    };
    let (rammed_lost, rammed_fate) = damage(state, rammed, loss(&rammed_dice));
    let (rammer_lost, rammer_fate) = damage(state, rammer, loss(&rammer_dice));
    // Each player is credited with the enemy FP their ship's collision took off (IRON-ADM-04).
    if rammer_side != rammed_side {
        credit(state, rammer_player, rammed_lost);
        credit(state, rammed_player, rammer_lost);
    }
    Some(Ram {
        rammer,
        rammed,
        from,
        at,
        kind,
        rammer_has_ram: has_ram,
        rammed_dice,
        rammer_dice,
        rammed_lost,
        rammer_lost,
        rammer_was_broken_off,
        rammed_fate,
        rammer_fate,
    })
}

/// Takes FP off a ship at once: at 0 she sinks and leaves the board straight away
/// (IRON-GM-09(e)); at or below the Critical Point she breaks off from her next move on
/// (IRON-GM-10).
fn damage(state: &mut State, id: ShipId, fp: u8) -> (u8, RamFate) {
    let turn = state.turn;
    let Some(ship) = state.ship_mut(id) else {
        return (0, RamFate::Unchanged);
    };
    let before = ship.fp;
    ship.fp = ship.fp.saturating_sub(fp);
    let fate = if ship.fp == 0 {
        ship.fate = Fate::Sunk { turn };
        RamFate::Sunk
    } else if ship.fp <= CRITICAL_POINT && !ship.broken_off {
        ship.broken_off = true;
        RamFate::BrokeOff
    } else if ship.broken_off {
        RamFate::Unchanged
    } else {
        RamFate::Fighting
    };
    (before.saturating_sub(ship.fp), fate)
}

pub(crate) fn credit(state: &mut State, player: engine::PlayerId, fp: u8) {
    if let Some(commander) = state.commanders.iter_mut().find(|c| c.player.id == player) {
        commander.score = commander.score.saturating_add(u32::from(fp));
    }
}
