//! DEMETER: a launched demeter's move or the fire of its gun.

use super::{Cursor, Parser, Refusal};

impl Parser<'_> {
    pub(super) fn demeter(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        const EXAMPLE: &str = "DEMETER Lancer/D1 FIRE AT Anvil.S2";
        let name = cursor
            .next()
            .ok_or(("name the demeter".to_string(), EXAMPLE))?;
        let demeter = self
            .state
            .demeters
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(&name) && !d.gone)
            .ok_or((format!("there is no demeter {name} in play"), EXAMPLE))?;
        if demeter.owner != self.player {
            return Err((format!("{} is not yours", demeter.name), EXAMPLE));
        }
        let controller = self.state.ships.iter().position(|s| s.id == demeter.ship);
        if let Some(ship) = controller {
            self.may_act(ship).map_err(|e| (e, EXAMPLE))?;
        }
        let name = demeter.name.clone();
        let verb = cursor.next().unwrap_or_default().to_ascii_uppercase();
        let entry = self.orders.demeters.entry(name.clone()).or_default();
        match verb.as_str() {
            "MOVE" | "MOVE1" | "MOVE2" => {
                let go = Self::destination(cursor)
                    .ok_or((
                        "MOVE needs TO x, y or BY dx, dy".to_string(),
                        "DEMETER Lancer/D1 MOVE TO 41, 22",
                    ))?
                    .map_err(|e| (e, "DEMETER Lancer/D1 MOVE TO 41, 22"))?;
                if verb == "MOVE2" {
                    entry.second = Some(go);
                } else {
                    entry.first = Some(go);
                }
                self.understood.push(format!(
                    "{name}: movement {}",
                    if verb == "MOVE2" { 2 } else { 1 }
                ));
            }
            "FIRE" => {
                if cursor.peek_is(&["AT"]) {
                    cursor.next();
                }
                let aim = self.aim(cursor).map_err(|e| (e, EXAMPLE))?;
                self.understood
                    .push(format!("{name} fires its gun at {}", aim.show()));
                if let Some(entry) = self.orders.demeters.get_mut(&name) {
                    entry.fire = Some(aim);
                }
            }
            _ => return Err(("a demeter can MOVE, MOVE2 or FIRE".to_string(), EXAMPLE)),
        }
        Ok(())
    }
}
