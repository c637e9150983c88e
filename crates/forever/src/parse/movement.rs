//! MOVE1 and MOVE2 (a destination, a facing or a turn, swivels, a tow), TOW and RELEASE
//! (FOREVER-MOVE1-*, FOREVER-MOVE2-*, FOREVER-GM-30).

use crate::fixed::{Degrees, show_hundredths};
use crate::orders::{Destination, Facing, Move};

use super::{Cursor, MOVE_EXAMPLE, Parser, Refusal};

impl Parser<'_> {
    pub(super) fn destination(cursor: &mut Cursor) -> Option<Result<Destination, String>> {
        if cursor.peek_is(&["TO", "AT"]) {
            cursor.next();
            return Some(
                cursor
                    .point()
                    .map(Destination::To)
                    .ok_or_else(|| "TO needs a point x, y".to_string()),
            );
        }
        if cursor.peek_is(&["BY"]) {
            cursor.next();
            return Some(
                cursor
                    .point()
                    .map(Destination::By)
                    .ok_or_else(|| "BY needs an offset dx, dy".to_string()),
            );
        }
        None
    }

    pub(super) fn movement(
        &mut self,
        cursor: &mut Cursor,
        first: bool,
        line: usize,
        raw: &str,
    ) -> Result<(), Refusal> {
        let name = cursor
            .next()
            .ok_or(("name the ship to move".to_string(), MOVE_EXAMPLE))?;
        let ship = self.own_ship(&name).map_err(|e| (e, MOVE_EXAMPLE))?;
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(name.clone(), |s| s.name.clone());
        let (order, said) = self.move_parts(cursor, ship, &ship_name)?;
        if order == Move::default() {
            return Err((
                "the move says nothing: give TO, BY, FACE, TURN, SWIVEL or TOW".to_string(),
                MOVE_EXAMPLE,
            ));
        }
        self.record_move(line, raw, &ship_name, &order, first)?;
        let speed = self.check_speed(line, raw, ship, &ship_name, &order);
        let opening = self.state.round == 0 && self.state.seating.first() == Some(&self.player);
        if first && opening {
            // The same move as movement 2, which this turn has.
            let as_second = raw
                .split_once(char::is_whitespace)
                .filter(|_| !raw.contains(';'))
                .map_or("MOVE2 Lancer TO 30, 20".to_string(), |(_, rest)| {
                    format!("MOVE2 {}", rest.trim())
                });
            self.warn(line, raw, "you open the battle in the shooting phase: movement 1 is skipped this turn (FOREVER-PLAY-3)", &as_second);
        }
        self.understood.push(format!(
            "{ship_name}: movement {} {} (speed {}\")",
            if first { 1 } else { 2 },
            said.join(", "),
            show_hundredths(speed)
        ));
        Ok(())
    }

    /// What a move says, part by part: the order and each part in words.
    fn move_parts(
        &self,
        cursor: &mut Cursor,
        ship: usize,
        ship_name: &str,
    ) -> Result<(Move, Vec<String>), Refusal> {
        let mut order = Move::default();
        let mut said = Vec::new();
        while !cursor.done() {
            if let Some(go) = Self::destination(cursor) {
                let go = go.map_err(|e| (e, MOVE_EXAMPLE))?;
                said.push(match go {
                    Destination::To(p) => format!("to {}", p.show()),
                    Destination::By(p) => format!("by {}", p.show()),
                });
                order.go = Some(go);
            } else if cursor.peek_is(&["FACE", "FACING", "ROT", "ROTATE", "HEADING"]) {
                cursor.next();
                let angle = cursor
                    .number()
                    .ok_or(("FACE needs whole degrees".to_string(), MOVE_EXAMPLE))?;
                said.push(format!("face {}", Degrees::new(angle)));
                order.facing = Some(Facing::To(Degrees::new(angle)));
            } else if cursor.peek_is(&["TURN"]) {
                cursor.next();
                let angle = cursor.number().ok_or((
                    "TURN needs whole degrees, + to the left".to_string(),
                    MOVE_EXAMPLE,
                ))?;
                said.push(format!("turn {angle:+}°"));
                order.facing = Some(Facing::By(angle));
            } else if cursor.peek_is(&["SWIVEL"]) {
                cursor.next();
                let (part_name, angle) = self.swivel(cursor, ship, ship_name)?;
                said.push(format!("swivel {part_name} to {angle}°"));
                order.swivels.push((part_name, angle));
            } else if cursor.peek_is(&["TOW"]) {
                cursor.next();
                let target = cursor
                    .next()
                    .ok_or(("TOW needs what to tow".to_string(), "TOW Wreck/J7"))?;
                said.push(format!("take {target} in tow"));
                order.tow = Some(target);
            } else if cursor.peek_is(&["THEN", "AND", ","]) {
                cursor.next();
            } else {
                return Err((
                    format!(
                        "{} is not understood in a move",
                        cursor.peek().unwrap_or("")
                    ),
                    MOVE_EXAMPLE,
                ));
            }
        }
        Ok((order, said))
    }

    /// `SWIVEL S3 45`: the swivel joint's section and its angle.
    fn swivel(
        &self,
        cursor: &mut Cursor,
        ship: usize,
        ship_name: &str,
    ) -> Result<(String, i64), Refusal> {
        let section = cursor.next().ok_or((
            "SWIVEL needs a section and an angle".to_string(),
            "SWIVEL S3 45",
        ))?;
        let angle = cursor
            .number()
            .ok_or(("SWIVEL needs whole degrees".to_string(), "SWIVEL S3 45"))?;
        let hull = self
            .hull(ship)
            .ok_or(("the ship's design does not check".to_string(), MOVE_EXAMPLE))?;
        let part = hull
            .part_index(&section)
            .filter(|p| hull.parts.get(*p).is_some_and(|s| s.swivel.is_some()))
            .ok_or((
                format!("{ship_name} has no swivel joint at {section}"),
                "SWIVEL S3 45",
            ))?;
        let part_name = hull
            .parts
            .get(part)
            .map_or(section.clone(), |p| p.name.clone());
        // The same check the movement phase makes (FOREVER-GM-32): it depends only on the
        // ship's own shape, so the turn would refuse this swivel whatever else happens.
        if let Some(covered) = self
            .state
            .ships
            .get(ship)
            .and_then(|data| data.swivel_overcovers(hull, part, angle))
        {
            let covered = hull.parts.get(covered).map_or("?", |p| p.name.as_str());
            return Err((
                format!(
                    "a swivel of {part_name} to {angle}° would leave {covered} more than 25% covered (FOREVER-GM-32)"
                ),
                MOVE_EXAMPLE,
            ));
        }
        Ok((part_name, angle))
    }

    /// Records the move as the ship's movement 1 or 2, which it may have only once.
    fn record_move(
        &mut self,
        line: usize,
        raw: &str,
        ship_name: &str,
        order: &Move,
        first: bool,
    ) -> Result<(), Refusal> {
        let entry = self.orders.moves.entry(ship_name.to_string()).or_default();
        let slot = if first {
            &mut entry.first
        } else {
            &mut entry.second
        };
        if slot.is_some() {
            return Err((
                format!(
                    "{ship_name} already has a movement {} order",
                    if first { 1 } else { 2 }
                ),
                MOVE_EXAMPLE,
            ));
        }
        *slot = Some(order.clone());
        if !first
            && let (Some(first_move), Some(_)) = (&entry.first, order.facing)
            && first_move.facing.is_some()
        {
            self.warn(line, raw, "it rotates in movement 1 too: the second rotation will be refused (FOREVER-MOVE2-2)", MOVE_EXAMPLE);
        }
        self.orders.written_move(ship_name, first);
        Ok(())
    }

    /// The ship's speed, with a warning when the move goes further: it will be cut short.
    fn check_speed(
        &mut self,
        line: usize,
        raw: &str,
        ship: usize,
        ship_name: &str,
        order: &Move,
    ) -> i64 {
        let speed = self
            .hull(ship)
            .zip(self.state.ships.get(ship))
            .map_or(0, |(h, s)| s.speed(h));
        if let (Some(go), Some(data)) = (order.go, self.state.ships.get(ship)) {
            let distance = match go {
                Destination::To(p) => (p - data.at).length(),
                Destination::By(p) => p.length(),
            };
            if distance > speed {
                self.warn(
                    line,
                    raw,
                    format!(
                        "{}\" is more than {ship_name}'s speed of {}\": the move will be cut short",
                        show_hundredths(distance),
                        show_hundredths(speed)
                    ),
                    MOVE_EXAMPLE,
                );
            }
        }
        speed
    }

    pub(super) fn tow(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        const EXAMPLE: &str = "TOW Tug Wreck/J7";
        let name = cursor
            .next()
            .ok_or(("TOW needs your ship and what to tow".to_string(), EXAMPLE))?;
        let ship = self.own_ship(&name).map_err(|e| (e, EXAMPLE))?;
        let target = cursor
            .next()
            .ok_or(("TOW needs what to tow".to_string(), EXAMPLE))?;
        let ship_name = self.state.ships.get(ship).map_or(name, |s| s.name.clone());
        let entry = self.orders.moves.entry(ship_name.clone()).or_default();
        let first = entry.first.get_or_insert_with(Move::default);
        first.tow = Some(target.clone());
        self.orders.written_move(&ship_name, true);
        self.understood.push(format!(
            "{ship_name}: take {target} in tow after movement 1"
        ));
        Ok(())
    }

    pub(super) fn release(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        let name = cursor
            .next()
            .ok_or(("RELEASE needs your ship".to_string(), "RELEASE Tug"))?;
        let ship = self.own_ship(&name).map_err(|e| (e, "RELEASE Tug"))?;
        let ship_name = self.state.ships.get(ship).map_or(name, |s| s.name.clone());
        self.orders
            .moves
            .entry(ship_name.clone())
            .or_default()
            .release = true;
        self.understood
            .push(format!("{ship_name}: release the tow"));
        Ok(())
    }
}
