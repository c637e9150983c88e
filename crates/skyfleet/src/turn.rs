//! One turn: deployment (turn 1), start-of-turn effects, initiative, the Torpedo Step, then
//! alternating activations from each side's list, and the end of the turn (SKY-INIT-01,
//! SKY-TSTEP-01, SKY-ACT-01, SKY-DC-01, SKY-GM-14..17, SKY-GM-31, SKY-GM-32).

use std::collections::{BTreeSet, VecDeque};

use engine::{PlayerId, TurnDice, TurnError, TurnInput};

use crate::battle::Battle;
use crate::command::{fires, unable};
use crate::fleet::deployment_problem;
use crate::geometry::within;
use crate::log::TurnLog;
use crate::movement::{MovePlan, flight_plan};
use crate::orders::{
    Activation, CmdAction, DcChoice, Orders, PivotSpec, Skip, StandingChange, Target,
};
use crate::state::{ActionName, Morale, Place, State, TurnRecord, UnitId};

/// Resolves the turn `state.turn` from the players' orders and the turn's dice.
pub fn resolve_turn(
    state: &State,
    input: &TurnInput<Orders>,
    dice: &mut TurnDice,
) -> Result<(State, TurnLog), TurnError> {
    if state.finished {
        return Err(TurnError::GameOver);
    }
    if state.sides.len() != 2 {
        return Err(TurnError::BadState(format!(
            "a battle has two sides, this one {}",
            state.sides.len()
        )));
    }
    let mut battle = Battle::new(state.clone(), &mut dice.open);
    battle.run(input);
    let Battle { state, log, .. } = battle;
    Ok((state, log))
}

/// The orders each side is working from this turn; `None`: holds (NMR or left).
fn side_orders<'o>(state: &State, input: &'o TurnInput<Orders>, side: u8) -> Option<&'o Orders> {
    let side = state.side(side)?;
    if side.left || input.leaving.contains(&side.player.id) {
        return None;
    }
    input.orders.get(&side.player.id)
}

impl Battle<'_> {
    fn run(&mut self, input: &TurnInput<Orders>) {
        let leaving: Vec<PlayerId> = input.leaving.clone();
        for side in &mut self.state.sides {
            if leaving.contains(&side.player.id) {
                side.left = true;
            }
        }
        let orders: [Option<Orders>; 2] =
            [0u8, 1].map(|side| side_orders(&self.state, input, side).cloned());
        for (index, side_orders) in orders.iter().enumerate() {
            let Some(side) = self.state.sides.get(index) else {
                continue;
            };
            match side_orders {
                None if side.left => self.log.note(format!(
                    "{} has left: {} holds (SKY-ADM-07).",
                    side.player.name, side.name
                )),
                None => self.log.note(format!(
                    "{} sent no orders: {} holds, firing at the nearest targets (SKY-GM-32).",
                    side.player.name, side.name
                )),
                Some(_) => {}
            }
        }
        for (index, side_orders) in orders.iter().enumerate() {
            if let Some(side_orders) = side_orders {
                self.apply_standing(index as u8, side_orders);
            }
        }
        if self.turn() == 1 {
            self.deploy(&orders);
        }
        self.start_of_turn();
        self.initiative();
        // A side steers only its own torpedoes.
        let state = &self.state;
        let programs: Vec<_> = orders
            .iter()
            .enumerate()
            .filter_map(|(side, o)| Some((side, o.as_ref()?)))
            .flat_map(|(side, o)| {
                o.torpedoes
                    .iter()
                    .filter(move |p| {
                        state
                            .unit(p.torpedo)
                            .is_some_and(|t| usize::from(t.side) == side)
                    })
                    .cloned()
            })
            .collect();
        self.torpedo_step(&programs);
        self.activations(&orders);
        self.end_of_turn();
    }

    /// Standing orders and the initiative choice, which hold until changed (SKY-GM-15,
    /// SKY-GM-17, SKY-GM-25).
    fn apply_standing(&mut self, side: u8, orders: &Orders) {
        let units: Vec<(UnitId, u8)> = self.state.units.iter().map(|u| (u.id, u.side)).collect();
        let owns = |id: UnitId| units.iter().any(|(u, s)| *u == id && *s == side);
        let Some(entry) = self.state.side_mut(side) else {
            return;
        };
        if let Some(choice) = orders.initiative {
            entry.standing.initiative = choice;
        }
        for change in &orders.standing {
            match change {
                StandingChange::Brace(id, on) if owns(*id) => {
                    if *on {
                        entry.standing.brace.insert(*id);
                    } else {
                        entry.standing.brace.remove(id);
                    }
                }
                StandingChange::Chaff(id, on) if owns(*id) => {
                    if *on {
                        entry.standing.chaff.insert(*id);
                    } else {
                        entry.standing.chaff.remove(id);
                    }
                }
                StandingChange::Countermeasures(id, choice) if owns(*id) => match choice {
                    Some(choice) => {
                        entry.standing.countermeasures.insert(*id, *choice);
                    }
                    None => {
                        entry.standing.countermeasures.remove(id);
                    }
                },
                StandingChange::RerollCrit(set) => entry.standing.reroll_crit = set.clone(),
                StandingChange::Clear => {
                    entry.standing.brace.clear();
                    entry.standing.chaff.clear();
                    entry.standing.countermeasures.clear();
                }
                _ => {}
            }
        }
    }

    /// Turn 1: each side's DEPLOY orders move its ships within its strip, both at once;
    /// an order that breaks a deployment rule, or ends overlapping, is refused
    /// (SKY-GM-01, SKY-ADM-01).
    fn deploy(&mut self, orders: &[Option<Orders>; 2]) {
        let mut moved = Vec::new();
        for (side, side_orders) in orders.iter().enumerate() {
            let Some(side_orders) = side_orders else {
                continue;
            };
            for deploy in &side_orders.deploy {
                let Some(unit) = self.unit(deploy.unit).cloned() else {
                    continue;
                };
                if usize::from(unit.side) != side || !unit.is_ship() || !unit.in_play() {
                    continue;
                }
                let mut placed = unit.clone();
                placed.at = deploy.at;
                placed.heading = deploy.heading.unwrap_or(unit.heading);
                placed.elevation = deploy.elevation.unwrap_or(unit.elevation);
                let Some(entry) = self.state.side(unit.side) else {
                    continue;
                };
                if let Some(problem) = deployment_problem(
                    &self.state.rules,
                    &self.state.terrain,
                    entry.edge,
                    &entry.name,
                    &placed,
                ) {
                    self.log
                        .result(unit.id, format!("deployment refused: {problem}"));
                    continue;
                }
                moved.push((unit.clone(), placed));
            }
        }
        // Settled in unit order: each deployment is checked against where the others stand
        // at that moment, and one that would overlap stays where the setup put it.
        moved.sort_by_key(|(original, _)| original.id);
        for (original, placed) in &moved {
            let clash = self
                .state
                .units
                .iter()
                .find(|u| {
                    u.in_play()
                        && u.id != placed.id
                        && u.elevation == placed.elevation
                        && within(
                            u.at,
                            placed.at,
                            u.radius + placed.radius - crate::geometry::Length(1),
                        )
                })
                .map(|u| u.name.clone());
            match clash {
                Some(other) => self.log.result(
                    original.id,
                    format!("deployment refused: it would overlap {other}"),
                ),
                None => {
                    if let Some(unit) = self.unit_mut(placed.id) {
                        unit.at = placed.at;
                        unit.heading = placed.heading;
                        unit.elevation = placed.elevation;
                    }
                    self.log.result(
                        placed.id,
                        format!(
                            "deployed at {} {}° e{}",
                            placed.at.display(),
                            placed.heading.display(),
                            placed.elevation
                        ),
                    );
                }
            }
        }
        // Wings aboard follow their carriers.
        let carriers: Vec<(UnitId, UnitId)> = self
            .state
            .units
            .iter()
            .filter(|u| u.place == Place::Aboard)
            .filter_map(|u| Some((u.id, u.carrier?)))
            .collect();
        for (wing, carrier) in carriers {
            if let Some(ship) = self.unit(carrier).cloned()
                && let Some(unit) = self.unit_mut(wing)
            {
                unit.at = ship.at;
                unit.heading = ship.heading;
                unit.elevation = ship.elevation;
            }
        }
    }

    /// CMD refills and per-turn records clear (SKY-CMD-01, SKY-CMD-02); storms strike
    /// (SKY-STORM-01); Stall (SKY-GM-31).
    fn start_of_turn(&mut self) {
        for unit in &mut self.state.units {
            unit.this_turn = TurnRecord::default();
        }
        self.storms();
        self.stall();
    }

    /// Initiative: 1d6 + the side's highest CMD, ties rerolled; the winner's standing choice
    /// says who activates first (SKY-INIT-01, SKY-GM-15, SKY-EX-07).
    fn initiative(&mut self) {
        let best = |battle: &Self, side: u8| -> u32 {
            battle
                .state
                .in_play()
                .filter(|u| u.side == side && u.is_ship())
                .map(|u| u32::from(u.cmd_max()))
                .max()
                .unwrap_or(0)
        };
        let (cmd_a, cmd_b) = (best(self, 0), best(self, 1));
        let names: Vec<String> = self.state.sides.iter().map(|s| s.name.clone()).collect();
        let name = |side: u8| names.get(usize::from(side)).cloned().unwrap_or_default();
        let mut throws = Vec::new();
        // Ties are thrown again; a hundred ties in a row is taken as a win for the first side.
        let mut winner = 0u8;
        for _ in 0..100 {
            let (a, b) = (self.dice.d6(), self.dice.d6());
            throws.push(format!(
                "{} {a}+{cmd_a}={}, {} {b}+{cmd_b}={}",
                name(0),
                a + cmd_a,
                name(1),
                b + cmd_b
            ));
            if a + cmd_a != b + cmd_b {
                winner = u8::from(b + cmd_b > a + cmd_a);
                break;
            }
        }
        let choice = self
            .state
            .side(winner)
            .map(|s| s.standing.initiative)
            .unwrap_or_default();
        self.first = match choice {
            crate::state::InitiativeChoice::First => winner,
            crate::state::InitiativeChoice::Second => 1 - winner,
        };
        self.log.note(format!(
            "Initiative: {}; {} wins and {} activates first (SKY-INIT-01).",
            throws.join("; tie, again: "),
            name(winner),
            name(self.first)
        ));
    }

    /// Alternating activations: each side's list in order, then its unlisted units in unit
    /// order holding; Panicked units skipped; when one side runs out the other goes on
    /// (SKY-ACT-01, SKY-GM-14, SKY-CRIT-7).
    fn activations(&mut self, orders: &[Option<Orders>; 2]) {
        let turn = self.turn();
        let mut queues: [VecDeque<Activation>; 2] = [VecDeque::new(), VecDeque::new()];
        for (side, queue) in queues.iter_mut().enumerate() {
            let eligible: Vec<UnitId> = self
                .state
                .units
                .iter()
                .filter(|u| {
                    usize::from(u.side) == side
                        && u.in_play()
                        && u.activates()
                        && u.launched_turn.is_none_or(|t| t < turn)
                })
                .map(|u| u.id)
                .collect();
            let mut listed = BTreeSet::new();
            if let Some(Some(side_orders)) = orders.get(side) {
                for activation in &side_orders.activations {
                    if eligible.contains(&activation.unit) && listed.insert(activation.unit) {
                        queue.push_back(activation.clone());
                    }
                }
            }
            for id in eligible {
                if !listed.contains(&id) {
                    queue.push_back(Activation::hold(id));
                }
            }
        }
        let mut current = usize::from(self.first.min(1));
        loop {
            let next = self.next_ready(&mut queues, current);
            match next {
                Some(activation) => {
                    self.activate(&activation);
                    current = 1 - current;
                }
                None => {
                    let other = 1 - current;
                    match self.next_ready(&mut queues, other) {
                        Some(activation) => {
                            self.activate(&activation);
                            // `current` still has none; keep going with `other`.
                            current = other;
                        }
                        None => break,
                    }
                }
            }
        }
    }

    /// The side's next unit that can activate now, skipping the destroyed and the Panicked.
    fn next_ready(
        &mut self,
        queues: &mut [VecDeque<Activation>; 2],
        side: usize,
    ) -> Option<Activation> {
        let turn = self.turn();
        let queue = queues.get_mut(side)?;
        while let Some(activation) = queue.pop_front() {
            let Some(unit) = self.unit(activation.unit) else {
                continue;
            };
            if !unit.in_play() {
                continue;
            }
            if unit.status.panic_turn == Some(turn) {
                self.log.result(
                    activation.unit,
                    "Panic: may not activate this turn (SKY-CRIT-7)",
                );
                continue;
            }
            return Some(activation);
        }
        None
    }

    /// One unit's activation: On Fire, CMD actions, movement, launches, shooting, damage
    /// control (SKY-ACT-01, SKY-DC-01, SKY-SCRIT-7).
    fn activate(&mut self, activation: &Activation) {
        let id = activation.unit;
        let Some(unit) = self.unit(id) else {
            return;
        };
        let side = unit.side;
        self.log.touch(id);
        self.log.tally(side, |t| t.activations += 1);
        self.on_fire(id);
        if !self.in_play(id) {
            return;
        }
        let mut full_ahead = false;
        let mut emergency = None;
        let mut locks: BTreeSet<String> = BTreeSet::new();
        let mut hard_around: Option<PivotSpec> = None;
        let mut launches = Vec::new();
        for order in &activation.actions {
            let (beneficiary, name) = match &order.action {
                CmdAction::Rally(target) => (*target, ActionName::Rally),
                CmdAction::EmergencyRepairs(_) => (id, ActionName::EmergencyRepairs),
                CmdAction::Brace => (id, ActionName::Brace),
                CmdAction::TargetLock(_) => (id, ActionName::TargetLock),
                CmdAction::FullAhead => (id, ActionName::FullAhead),
                CmdAction::HardAround(_) => (id, ActionName::HardAround),
                CmdAction::LaunchTorpedo => (id, ActionName::LaunchTorpedo),
                CmdAction::LaunchWing(_) => (id, ActionName::LaunchWing),
                CmdAction::CompressedGas => (id, ActionName::CompressedGas),
            };
            if matches!(
                order.action,
                CmdAction::LaunchTorpedo | CmdAction::LaunchWing(_)
            ) {
                launches.push(order.clone());
                continue;
            }
            // Requirements first, so that nothing is paid for an action that cannot happen:
            // the status by the judge the order check asks too (`command::unable`).
            let unable = self.unit(id).and_then(|u| unable(u, &order.action));
            let check = match (&order.action, unable) {
                (_, Some(unable)) => Err(unable.why),
                (CmdAction::Rally(target), None) => self.rally_check(id, *target),
                (CmdAction::CompressedGas, None) => self.gas_check(id).map(|_| ()),
                (CmdAction::TargetLock(weapons), None) => match weapons.first() {
                    Some(slot) if !fires(activation, slot) => Err(format!(
                        "the {slot} does not fire this activation (HOLD FIRE or Emergency Repairs)"
                    )),
                    Some(_) => Ok(()),
                    None => Err("no weapon named".to_string()),
                },
                _ => Ok(()),
            };
            let paid = check.and_then(|()| self.pay(beneficiary, name, order.payer, id));
            let payer = match paid {
                Ok(payer) => payer,
                Err(why) => {
                    self.log
                        .result(id, format!("{}: refused, {why}", name.name()));
                    continue;
                }
            };
            let cost = self.paid_text(id, payer);
            let words = match &order.action {
                CmdAction::EmergencyRepairs(skip) => {
                    emergency = Some(*skip);
                    let skip = match skip {
                        Skip::Move => "move",
                        Skip::Shoot => "shooting",
                    };
                    format!("Emergency Repairs ({cost}): no {skip}, +2 DC dice")
                }
                CmdAction::Brace => {
                    self.brace(id);
                    format!("Brace ({cost})")
                }
                CmdAction::TargetLock(weapons) => {
                    // SKY-CMD-05: one weapon (orders that named more lock the first).
                    let weapon = weapons.first().cloned().unwrap_or_default();
                    locks.insert(weapon.clone());
                    format!("Target Lock on {weapon} ({cost})")
                }
                CmdAction::FullAhead => {
                    full_ahead = true;
                    format!("Full Ahead ({cost})")
                }
                CmdAction::HardAround(spec) => {
                    hard_around = Some(*spec);
                    format!("Hard Around ({cost})")
                }
                CmdAction::Rally(target) => {
                    self.rally(*target);
                    self.log
                        .result(*target, format!("rallied by {}", self.name(id)));
                    format!("Rally {} ({cost})", self.name(*target))
                }
                CmdAction::CompressedGas => {
                    let height = self.gas_check(id).unwrap_or(0);
                    if let Some(unit) = self.unit_mut(id)
                        && height > 0
                    {
                        unit.elevation = height;
                    }
                    format!("Compressed Gas ({cost}): up to e{height}")
                }
                CmdAction::LaunchTorpedo | CmdAction::LaunchWing(_) => String::new(),
            };
            self.log.result(id, words);
        }

        // Movement (SKY-GM-11); a Broken unit flees whatever was written (SKY-MOR-06).
        let mut flown_over = BTreeSet::new();
        let broken = self
            .unit(id)
            .is_some_and(|u| u.status.morale == Morale::Broken);
        if broken {
            let plan = self
                .unit(id)
                .map(|u| flight_plan(&self.state, u))
                .unwrap_or_default();
            let moved = self.move_unit(
                id,
                &MovePlan {
                    steps: plan,
                    ..MovePlan::default()
                },
            );
            flown_over = moved.flown_over;
        } else if emergency != Some(Skip::Move) {
            let plan = MovePlan {
                steps: activation.steps.clone(),
                full_ahead,
                dive_brakes: activation.dive_brakes,
                hard_around,
            };
            if !plan.steps.is_empty() || plan.hard_around.is_some() {
                let moved = self.move_unit(id, &plan);
                flown_over = moved.flown_over;
            }
        }
        if !self.in_play(id) {
            return;
        }

        // Launches happen where the ship has come to (SKY-CMD-09, SKY-MOD-10).
        for order in launches {
            match order.action {
                CmdAction::LaunchTorpedo => {
                    let unable = self.unit(id).and_then(|u| unable(u, &order.action));
                    let result = unable
                        .map_or(Ok(()), |u| Err(u.why))
                        .and_then(|()| self.pay(id, ActionName::LaunchTorpedo, order.payer, id));
                    match result {
                        Ok(payer) => {
                            let cost = self.paid_text(id, payer);
                            if let Some(torpedo) = self.launch_torpedo(id) {
                                let name = self.name(torpedo);
                                self.log
                                    .result(id, format!("Launch Torpedo ({cost}): {name}"));
                                self.log.result(
                                    torpedo,
                                    "launched; moves from next turn's Torpedo Step",
                                );
                            }
                        }
                        Err(why) => self
                            .log
                            .result(id, format!("Launch Torpedo: refused, {why}")),
                    }
                }
                CmdAction::LaunchWing(wanted) => {
                    let wing = self.wing_to_launch(id, wanted);
                    let result = wing.and_then(|wing| {
                        let payer = self.pay(id, ActionName::LaunchWing, order.payer, id)?;
                        Ok((wing, payer))
                    });
                    match result {
                        Ok((wing, payer)) => {
                            let cost = self.paid_text(id, payer);
                            match self.place_wing(id, wing) {
                                Ok(()) => {
                                    let name = self.name(wing);
                                    self.log.result(id, format!("Launch Wing ({cost}): {name}"));
                                    self.log.result(wing, "launched; first activates next turn");
                                }
                                Err(why) => {
                                    self.log.result(id, format!("Launch Wing: {why}"));
                                }
                            }
                        }
                        Err(why) => self.log.result(id, format!("Launch Wing: refused, {why}")),
                    }
                }
                _ => {}
            }
        }

        // Shooting: FIRE orders as written, then the other weapons at the nearest target.
        if emergency != Some(Skip::Shoot) {
            let weapons: Vec<String> = self
                .unit(id)
                .map(|u| u.weapons.iter().map(|w| w.slot.clone()).collect())
                .unwrap_or_default();
            let mut fired = BTreeSet::new();
            for order in &activation.fire {
                for slot in &order.weapons {
                    if !fired.insert(slot.clone()) {
                        continue;
                    }
                    if let Some(index) = weapons.iter().position(|w| w == slot) {
                        self.fire_weapon(
                            id,
                            index,
                            &order.targets,
                            locks.contains(slot),
                            &flown_over,
                            true,
                        );
                    }
                }
            }
            if !activation.hold_fire {
                for (index, slot) in weapons.iter().enumerate() {
                    if fired.contains(slot) {
                        continue;
                    }
                    let launcher = self
                        .unit(id)
                        .and_then(|u| u.weapons.get(index))
                        .is_some_and(|w| w.kind.stats().torpedo);
                    if launcher {
                        continue;
                    }
                    self.fire_weapon(
                        id,
                        index,
                        &[Target::Nearest],
                        locks.contains(slot),
                        &flown_over,
                        false,
                    );
                }
            }
        }
        if !self.in_play(id) {
            return;
        }
        let priority: Vec<DcChoice> = activation
            .dc_priority
            .clone()
            .unwrap_or_else(|| DcChoice::DEFAULT.to_vec());
        self.damage_control(id, emergency.is_some(), &priority);
    }

    /// The end of the turn: Panic spent, the game over at the turn limit or when a side has
    /// no ships or wings left (SKY-GM-01, SKY-GM-21).
    fn end_of_turn(&mut self) {
        self.report_fates();
        let turn = self.turn();
        for unit in &mut self.state.units {
            if unit.status.panic_turn.is_some_and(|t| t <= turn) {
                unit.status.panic_turn = None;
            }
        }
        let wiped: Vec<u8> = [0u8, 1]
            .into_iter()
            .filter(|side| !self.state.side_has_forces(*side))
            .collect();
        if turn >= self.state.rules.turn_limit || !wiped.is_empty() {
            self.state.finished = true;
            let why = if wiped.is_empty() {
                format!(
                    "the turn limit ({}) is reached",
                    self.state.rules.turn_limit
                )
            } else {
                let names: Vec<String> = wiped
                    .iter()
                    .filter_map(|s| self.state.side(*s).map(|s| s.name.clone()))
                    .collect();
                format!("{} has no ships or wings left", names.join(" and "))
            };
            self.log
                .note(format!("The battle is over: {why} (SKY-GM-01, SKY-GM-30)."));
        }
        self.state.turn = turn + 1;
    }
}
