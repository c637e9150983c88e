//! One turn, resolved simultaneously against the start-of-turn state (SALVO-GM-02), in the
//! catalogue's order: fleets placed (sealed dice), then each player's dice in ascending id
//! order, then every effect together, then captures and recaptures, then sinking, then the
//! victory check.

use std::collections::{BTreeMap, BTreeSet};

use engine::{PlayerId, Report, Resolution, TurnDice, TurnError, TurnInput};

use crate::announce::{self, SquareResult, Volley};
use crate::board::{Square, bomber_pattern, grow_blast, nuke_pattern, torpedo_run};
use crate::fleet::{Fleet, ShipKind, ShipStatus};
use crate::legality::check_attack;
use crate::orders::{Attack, FleetOrder, Orders};
use crate::rolls::{NukeRoll, ScubaRoll, experimental_rolls};
use crate::state::{Admiral, AdmiralStatus, GameEnd, PlacedBy, State};

pub(crate) fn resolve(
    state: &State,
    input: &TurnInput<Orders>,
    dice: &mut TurnDice,
) -> Result<Resolution<State>, TurnError> {
    if state.end.is_some() {
        return Err(TurnError::GameOver);
    }
    check_consistency(state)?;
    let turn = state.turn;
    let mut notes = Vec::new();

    // The start-of-turn state: leavers out, first-turn fleets placed.
    let mut start = state.clone();
    for id in &input.leaving {
        if let Some(admiral) = start.admiral_mut(*id)
            && admiral.is_active()
        {
            admiral.status = AdmiralStatus::Left { turn };
            notes.push(format!("{} leaves the game.", admiral.name));
        }
    }
    place_fleets(&mut start, input, dice, &mut notes);
    let players_at_start = start.active_ids();
    let many_players = players_at_start.len() > 2;

    // Each player's dice in ascending id order, worked out against the start of the turn.
    let mut volleys: Vec<Volley> = players_at_start
        .iter()
        .map(|id| match input.orders.get(id) {
            Some(orders) => plan_attack(&start, *id, &orders.attack, dice),
            None => plan_missing_orders(&start, *id, dice),
        })
        .collect();

    // Every effect together.
    let mut next = start.clone();
    for volley in &mut volleys {
        apply_volley(&start, &mut next, volley, turn);
    }
    settle_scuba(&start, &mut next, &mut volleys, turn, many_players);
    for volley in &mut volleys {
        apply_recapture_and_backfire(&start, &mut next, volley, turn);
    }
    sink_ships(&mut next, &mut volleys, turn, many_players);
    let defeated = defeat_fleets(&mut next, turn);
    decide_end(&mut next, &defeated, turn, &mut notes);
    for id in &players_at_start {
        if let Some(admiral) = next.admiral_mut(*id) {
            admiral.may_place = false;
        }
    }
    if next.end.is_none() {
        admit_joiners(&mut next, input, dice, &mut notes);
    }
    next.turn = turn.saturating_add(1);

    let report = Report {
        title: format!("{} — turn {turn}", crate::Salvo::TITLE_SHORT),
        rows: announce::rows(&next, &volleys, many_players),
        press: Vec::new(),
        notes: announce::closing_notes(&next, notes),
    };
    Ok(Resolution {
        state: next,
        report,
    })
}

fn check_consistency(state: &State) -> Result<(), TurnError> {
    if state.admirals.is_empty() {
        return Err(TurnError::BadState("the game has no players".into()));
    }
    let ids: BTreeSet<PlayerId> = state.admirals.iter().map(|a| a.id).collect();
    if ids.len() != state.admirals.len() {
        return Err(TurnError::BadState("two players share an id".into()));
    }
    Ok(())
}

/// First orders may place the fleet; `PLACE RANDOM` re-places it with the sealed dice, in
/// ascending player order (SALVO-GM-18).
fn place_fleets(
    start: &mut State,
    input: &TurnInput<Orders>,
    dice: &mut TurnDice,
    notes: &mut Vec<String>,
) {
    for id in start.active_ids() {
        let Some(fleet_order) = input.orders.get(&id).and_then(|o| o.fleet.as_ref()) else {
            continue;
        };
        let Some(admiral) = start.admiral_mut(id) else {
            continue;
        };
        if !admiral.may_place {
            notes.push(format!(
                "{}'s placement was ignored: ships are placed only with a player's first orders.",
                admiral.name
            ));
            continue;
        }
        match fleet_order {
            FleetOrder::Random => {
                admiral.fleet = Fleet::random(&mut dice.sealed);
                admiral.placed_by = PlacedBy::Server;
            }
            FleetOrder::Placed(plan) => {
                admiral.fleet = Fleet::from_plan(plan);
                admiral.placed_by = PlacedBy::Player;
            }
        }
    }
}

/// Draws the attack's dice and works out what it strikes, against the start of the turn.
fn plan_attack(start: &State, me: PlayerId, attack: &Attack, dice: &mut TurnDice) -> Volley {
    let mut volley = Volley::new(me, announce::coord(start, attack));
    if let Err(error) = check_attack(start, me, attack) {
        // SALVO-GM-14: an order that cannot be carried out is a pass.
        volley.lead.push(format!("order void ({error}): pass"));
        return volley;
    }
    let mode = start.setup.dice_mode;
    volley.spent = attack.special();
    volley.targets = attack.targets();
    match attack {
        Attack::Pass => volley.lead.push("pass".into()),
        Attack::Fire { shots } => {
            volley.strikes = shots.iter().map(|s| (s.at, s.square)).collect();
        }
        Attack::Nuke { at, centre } => {
            let throw = mode.throw(&mut dice.open);
            match mode.nuke(throw.total()) {
                NukeRoll::Fails => volley.lead.push(format!(
                    "{throw}: the nuke fails to deploy or is intercepted ({} fails)",
                    mode.lowest()
                )),
                NukeRoll::Explodes => {
                    volley.lead.push(format!("{throw}: the nuke explodes"));
                    volley.strike_all(*at, nuke_pattern(*centre, false));
                }
                NukeRoll::ConditionBravo => {
                    volley.lead.push(format!(
                        "{throw}: Condition Bravo! the full 5x5 block ({} needed)",
                        mode.highest()
                    ));
                    volley.strike_all(*at, nuke_pattern(*centre, true));
                }
            }
        }
        Attack::Scuba { at } => {
            let throw = mode.throw(&mut dice.open);
            let (destroy, capture) = mode.scuba_thresholds();
            let target_ship = start.admiral(*at).and_then(|a| a.fleet.smallest_afloat());
            match (mode.scuba(throw.total()), target_ship) {
                (ScubaRoll::Nothing, _) | (_, None) => volley.lead.push(format!(
                    "{throw}: the SCUBA commandos fail ({destroy}+ destroys, {capture}+ captures)"
                )),
                (roll, Some(ship)) => {
                    let verb = if roll == ScubaRoll::Capture {
                        format!("{capture}+ captures")
                    } else {
                        format!("{destroy}-{} destroys", capture.saturating_sub(1))
                    };
                    volley.lead.push(format!(
                        "{throw}: SCUBA attack on the smallest ship ({verb})"
                    ));
                    volley.scuba = Some((*at, ship, roll));
                }
            }
        }
        Attack::Recapture { ship } => {
            let throw = mode.throw(&mut dice.open);
            let (_, capture) = mode.scuba_thresholds();
            if mode.scuba(throw.total()) == ScubaRoll::Capture {
                volley.lead.push(format!(
                    "{throw}: the commandos retake the {ship} ({capture}+ needed)"
                ));
                volley.recapture = Some(*ship);
            } else {
                volley
                    .lead
                    .push(format!("{throw}: the recapture fails ({capture}+ needed)"));
            }
        }
        Attack::Torpedo {
            at,
            start: from,
            heading,
        } => {
            plan_torpedo(start, &mut volley, *at, *from, *heading, dice);
        }
        Attack::Experimental {
            at,
            pattern,
            sacrifice,
        } => {
            let rolls = experimental_rolls(&mut dice.open);
            let size: u32 = rolls.iter().sum();
            let shown = rolls
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("+");
            let throw = if rolls.len() > 1 {
                format!("d6={shown}={size}")
            } else {
                format!("d6={size}")
            };
            let blast = grow_blast(pattern.squares(), usize::try_from(size).unwrap_or(0));
            if blast.len() > pattern.squares().len() {
                volley.coord.push_str("(+auto)");
            }
            if rolls.first() == Some(&1) {
                // SALVO-EXP-04 / SALVO-GM-12: the blast still goes off, at its one square.
                let choices = start
                    .admiral(me)
                    .map(|a| a.fleet.backfire_choices())
                    .unwrap_or_default();
                let ship = sacrifice
                    .filter(|s| choices.contains(s))
                    .or_else(|| choices.first().copied());
                volley
                    .lead
                    .push(format!("{throw}: backfire! blast of 1 square"));
                volley.backfire = ship;
            } else if rolls.len() > 1 {
                volley.lead.push(format!(
                    "{throw}: Massive Criticality! blast of {} squares",
                    blast.len()
                ));
            } else {
                volley.lead.push(format!(
                    "{throw}: blast of {} square{}",
                    blast.len(),
                    if blast.len() == 1 { "" } else { "s" }
                ));
            }
            volley.strike_all(*at, blast);
        }
        Attack::Bomber { at, centre } => {
            let throw = mode.throw(&mut dice.open);
            let needs = mode.bomber_needs();
            if throw.total() >= needs {
                volley.lead.push(format!(
                    "{throw}: the bombers get through ({needs}+ needed)"
                ));
                volley.strike_all(*at, bomber_pattern(*centre));
            } else {
                volley.lead.push(format!(
                    "{throw}: the bombers are driven off ({needs}+ needed)"
                ));
            }
        }
    }
    volley
}

/// SALVO-TORP-04 with SALVO-GM-08: the torpedo passes over water, wrecks and captured hulks
/// and stops at the first square of a ship afloat, hit before or not; the bonus roll
/// (SALVO-TORP-06, SALVO-GM-09) is thrown on every torpedo when the GM enables it.
fn plan_torpedo(
    start: &State,
    volley: &mut Volley,
    at: PlayerId,
    from: Square,
    heading: crate::board::Heading,
    dice: &mut TurnDice,
) {
    let fleet = start.admiral(at).map(|a| &a.fleet);
    let path = torpedo_run(from, heading);
    let stop = path.iter().position(|square| {
        fleet
            .and_then(|f| f.ship_at(*square))
            .is_some_and(|ship| ship.is_afloat())
    });
    let passed: Vec<Square> = match stop {
        Some(index) => path.iter().take(index).copied().collect(),
        None => path.clone(),
    };
    volley.torpedo = Some(announce::TorpedoRun {
        passed: passed.clone(),
        stopped: stop.is_some(),
    });
    volley.passed = passed.into_iter().map(|s| (at, s)).collect();
    let hit = stop.and_then(|index| path.get(index).copied());
    if let Some(square) = hit {
        volley.strikes.push((at, square));
    }
    volley
        .lead
        .push(format!("torpedo runs {heading} from {from}"));
    if start.setup.torpedo_bonus {
        let mode = start.setup.dice_mode;
        let throw = mode.throw(&mut dice.open);
        let bonus = mode.torpedo_bonus(throw.total());
        let ship = hit.and_then(|s| fleet.and_then(|f| f.ship_at(s)).map(|ship| ship.kind()));
        match (bonus, ship) {
            (true, Some(kind)) => {
                volley.bonus = Some(format!("bonus {throw}: the ship is destroyed completely"));
                volley.torpedo_kill = Some((at, kind));
            }
            (true, None) => volley.bonus = Some(format!("bonus {throw}, but nothing was hit")),
            (false, _) => {
                volley.bonus = Some(format!("bonus {throw}: no ({} needed)", mode.highest()));
            }
        }
    }
}

/// A missing order: a pass, or with `nmr_autoshot` one shot at a random square this player
/// has not called on a random opponent (SALVO-GM-17, SALVO-ADM-05).
fn plan_missing_orders(start: &State, me: PlayerId, dice: &mut TurnDice) -> Volley {
    let mut volley = Volley::new(me, "NMR".into());
    if !start.setup.nmr_autoshot {
        volley.lead.push("no orders: pass".into());
        return volley;
    }
    let opponents = start.opponents_of(me);
    let target = if opponents.len() > 1 {
        opponents.get(dice.open.pick(opponents.len())).copied()
    } else {
        opponents.first().copied()
    };
    let Some(target) = target else {
        volley.lead.push("no orders: pass".into());
        return volley;
    };
    let called = start
        .admiral(me)
        .and_then(|a| a.calls.get(&target.id))
        .cloned()
        .unwrap_or_default();
    let open: Vec<Square> = Square::all().filter(|s| !called.contains(s)).collect();
    if open.is_empty() {
        volley.lead.push("no orders: pass".into());
        return volley;
    }
    if let Some(square) = open.get(dice.open.pick(open.len())).copied() {
        volley.coord = format!("NMR: {square}");
        volley
            .lead
            .push("no orders: one automatic shot".to_string());
        volley.strikes.push((target.id, square));
        volley.targets = vec![target.id];
    }
    volley
}

/// What a square held at the start of the turn (SALVO-GM-06c, SALVO-GM-15). A captured
/// hulk's square reads as what everyone already knows of it: a miss, or `hit already` where
/// it was hit before the capture; never "captured hulk", which would tell every player where
/// a ship lies that a recapture brings back (SALVO-ADM-15).
fn classify(start: &State, target: PlayerId, square: Square) -> (SquareResult, Option<ShipKind>) {
    let ship = start.admiral(target).and_then(|a| a.fleet.ship_at(square));
    match ship {
        None => (SquareResult::Miss, None),
        Some(ship) => match ship.status() {
            ShipStatus::Captured { .. } if ship.is_hit(square) => (SquareResult::AlreadyHit, None),
            ShipStatus::Captured { .. } => (SquareResult::Miss, None),
            _ if ship.is_hit(square) => (SquareResult::AlreadyHit, Some(ship.kind())),
            _ => (SquareResult::Hit, Some(ship.kind())),
        },
    }
}

/// Uses spent, squares struck and the torpedo bonus, all against the start of the turn.
fn apply_volley(start: &State, next: &mut State, volley: &mut Volley, turn: u32) {
    let attacker = volley.attacker;
    if let Some(special) = volley.spent
        && let Some(admiral) = next.admiral_mut(attacker)
    {
        admiral.uses_left.spend(special);
    }
    for (target, square) in volley.strikes.clone() {
        let (result, ship) = classify(start, target, square);
        if result == SquareResult::Hit
            && let Some(kind) = ship
        {
            hit_square(next, target, kind, square, turn, Some(attacker));
        }
        volley.results.push((target, square, result));
    }
    if let Some(admiral) = next.admiral_mut(attacker) {
        for (target, square) in volley.strikes.iter().chain(volley.passed.iter()) {
            admiral.calls.entry(*target).or_default().insert(*square);
        }
    }
    if let Some((target, kind)) = volley.torpedo_kill {
        destroy_ship(start, next, volley, target, kind, turn, Some(attacker));
    }
}

fn hit_square(
    next: &mut State,
    target: PlayerId,
    kind: ShipKind,
    square: Square,
    turn: u32,
    by: Option<PlayerId>,
) {
    if let Some(ship) = next
        .admiral_mut(target)
        .and_then(|a| a.fleet.ship_mut(kind))
    {
        ship.hit(square, turn, by);
    }
}

/// Every square of the ship hit (SALVO-GM-09): squares un-hit at the start of the turn are
/// new hits credited to `by`; the rest are reported as hit already.
fn destroy_ship(
    start: &State,
    next: &mut State,
    volley: &mut Volley,
    target: PlayerId,
    kind: ShipKind,
    turn: u32,
    by: Option<PlayerId>,
) {
    let Some(ship) = start.admiral(target).and_then(|a| a.fleet.ship(kind)) else {
        return;
    };
    for square in ship.squares() {
        let already_listed = volley
            .results
            .iter()
            .any(|(t, s, _)| *t == target && *s == square);
        let result = if ship.is_hit(square) {
            SquareResult::AlreadyHit
        } else {
            hit_square(next, target, kind, square, turn, by);
            SquareResult::Hit
        };
        if !already_listed {
            volley.results.push((target, square, result));
        }
        if let Some(attacker) = by
            && let Some(admiral) = next.admiral_mut(attacker)
        {
            admiral.calls.entry(target).or_default().insert(square);
        }
    }
}

/// SCUBA results on the same ship: capture beats destroy, and the lowest player id is the
/// captor among several (SALVO-GM-16).
fn settle_scuba(
    start: &State,
    next: &mut State,
    volleys: &mut [Volley],
    turn: u32,
    many_players: bool,
) {
    let mut by_ship: BTreeMap<(PlayerId, ShipKind), Vec<(usize, ScubaRoll)>> = BTreeMap::new();
    for (index, volley) in volleys.iter().enumerate() {
        if let Some((target, ship, roll)) = volley.scuba {
            by_ship
                .entry((target, ship))
                .or_default()
                .push((index, roll));
        }
    }
    for ((target, kind), attempts) in by_ship {
        let owner = if many_players {
            format!("{}'s ", start.name_of(target))
        } else {
            String::new()
        };
        // Volleys are in ascending attacker order, so the first capture is the lowest id.
        let captor = attempts
            .iter()
            .find(|(_, roll)| *roll == ScubaRoll::Capture)
            .and_then(|(index, _)| volleys.get(*index))
            .map(|v| v.attacker);
        match captor {
            Some(captor) => {
                if let Some(ship) = next
                    .admiral_mut(target)
                    .and_then(|a| a.fleet.ship_mut(kind))
                {
                    ship.set_status(ShipStatus::Captured { by: captor, turn });
                }
                let captor_name = start.name_of(captor);
                for (index, roll) in attempts {
                    let Some(volley) = volleys.get_mut(index) else {
                        continue;
                    };
                    if volley.attacker == captor {
                        volley.tail.push(format!("captured {owner}{kind}"));
                        if let Some(admiral) = next.admiral_mut(captor) {
                            admiral.calls.entry(target).or_default();
                        }
                    } else if roll == ScubaRoll::Capture {
                        volley.tail.push(format!(
                            "{owner}{kind} captured, but {captor_name}'s commandos got there first"
                        ));
                    } else {
                        volley.tail.push(format!(
                            "{owner}{kind} not destroyed: {captor_name}'s commandos captured it first"
                        ));
                    }
                }
            }
            None => {
                for (index, _) in attempts {
                    if let Some(volley) = volleys.get_mut(index) {
                        let attacker = volley.attacker;
                        destroy_ship(start, next, volley, target, kind, turn, Some(attacker));
                    }
                }
            }
        }
    }
}

/// A recapture frees the ship as it was (SALVO-GM-06); a backfire sinks the attacker's own
/// ship and reveals it (SALVO-EXP-04, SALVO-GM-12), scoring for no one.
fn apply_recapture_and_backfire(start: &State, next: &mut State, volley: &mut Volley, turn: u32) {
    let me = volley.attacker;
    if let Some(kind) = volley.recapture {
        let captor = start
            .admiral(me)
            .and_then(|a| a.fleet.ship(kind))
            .and_then(|s| s.captor());
        if let Some(ship) = next.admiral_mut(me).and_then(|a| a.fleet.ship_mut(kind)) {
            ship.set_status(ShipStatus::Afloat);
        }
        let from = captor.map(|c| format!(" from {}", start.name_of(c)));
        volley
            .tail
            .push(format!("recaptured own {kind}{}", from.unwrap_or_default()));
    }
    if let Some(kind) = volley.backfire {
        let Some(ship) = start.admiral(me).and_then(|a| a.fleet.ship(kind)) else {
            return;
        };
        volley
            .tail
            .push(format!("backfire: own {kind} ({}) destroyed", ship.span()));
        let squares: Vec<Square> = ship.squares().collect();
        for square in squares {
            hit_square(next, me, kind, square, turn, None);
        }
    }
}

/// A ship with every square hit sinks, even one captured this turn (SALVO-ADM-04); each
/// attacker who newly hit it this turn announces it (SALVO-CL-04).
fn sink_ships(next: &mut State, volleys: &mut [Volley], turn: u32, many_players: bool) {
    let names: BTreeMap<PlayerId, String> = next
        .admirals
        .iter()
        .map(|a| (a.id, a.name.clone()))
        .collect();
    for admiral in &mut next.admirals {
        let owner = admiral.id;
        for ship in admiral.fleet.ships_mut() {
            if ship.is_sunk() || !ship.all_hit() {
                continue;
            }
            let captor = ship.captor();
            ship.set_status(ShipStatus::Sunk { turn });
            let sinkers: BTreeSet<PlayerId> = ship
                .damage()
                .values()
                .filter(|record| record.turn == turn)
                .flat_map(|record| record.by.iter().copied())
                .collect();
            let kind = ship.kind();
            let owner_name = names.get(&owner).cloned().unwrap_or_default();
            for volley in volleys.iter_mut() {
                if sinkers.contains(&volley.attacker) {
                    let whose = if many_players {
                        format!("{owner_name}'s ")
                    } else {
                        String::new()
                    };
                    volley.tail.push(format!("sank {whose}{kind}"));
                } else if Some(volley.attacker) == captor {
                    volley
                        .tail
                        .push(format!("the captured {kind} sank under fire"));
                }
            }
        }
    }
}

/// Fleets with no ship afloat are out (SALVO-CL-05, SALVO-SCUBA-06, SALVO-GM-06d).
fn defeat_fleets(next: &mut State, turn: u32) -> Vec<PlayerId> {
    let mut defeated = Vec::new();
    for admiral in &mut next.admirals {
        if admiral.is_active() && admiral.fleet.afloat_count() == 0 {
            admiral.status = AdmiralStatus::Defeated { turn };
            defeated.push(admiral.id);
        }
    }
    defeated.sort();
    defeated
}

/// The last fleet afloat wins; if the last fleets all go down together it is a shared win,
/// or Score decides when the GM says so (SALVO-CL-05, SALVO-GM-02).
fn decide_end(next: &mut State, defeated: &[PlayerId], turn: u32, notes: &mut Vec<String>) {
    let active = next.active_ids();
    if active.len() > 1 {
        return;
    }
    let (mut winners, reason) = match active.as_slice() {
        [winner] => (
            vec![*winner],
            format!("{} has the last fleet afloat", next.name_of(*winner)),
        ),
        _ => (
            defeated.to_vec(),
            "the last fleets went down together".to_string(),
        ),
    };
    if winners.len() > 1 && next.setup.score_breaks_ties {
        let best = winners.iter().map(|w| next.score(*w)).max().unwrap_or(0);
        winners.retain(|w| next.score(*w) == best);
    }
    let names: Vec<String> = winners.iter().map(|w| next.name_of(*w)).collect();
    let verdict = match names.as_slice() {
        [] => "Game over: no winner.".to_string(),
        [one] => format!("Game over: {one} wins ({reason})."),
        many => format!(
            "Game over: a shared win for {} ({reason}).",
            many.join(", ")
        ),
    };
    notes.push(verdict);
    next.end = Some(GameEnd {
        turn,
        winners,
        reason,
    });
}

/// New players get a fleet placed at random with the sealed dice, which their first orders
/// may replace (SALVO-ADM-06).
fn admit_joiners(
    next: &mut State,
    input: &TurnInput<Orders>,
    dice: &mut TurnDice,
    notes: &mut Vec<String>,
) {
    for player in &input.joining {
        if next.admiral(player.id).is_some() {
            continue;
        }
        let fleet = Fleet::random(&mut dice.sealed);
        let uses = next.setup.starting_uses();
        let admiral = Admiral::new(player, fleet, uses);
        notes.push(format!(
            "{} joins the game with a full fleet; their first orders may place it.",
            admiral.name
        ));
        next.admirals.push(admiral);
    }
}
