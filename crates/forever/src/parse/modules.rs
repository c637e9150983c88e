//! Orders for modules: EMP, NANO (a nano matrix heals), LAUNCH (a demeter launcher), TC (a
//! targeting computer) and FLUX (a flux projector's line, paid in energy).

use crate::design::{Item, ModuleSpec};
use crate::fixed::Degrees;
use crate::orders::{Action, Destination};

use super::{Cursor, Parser, Refusal};

const FLUX_EXAMPLE: &str = "FLUX Lancer.S7 BEARING 45 LEN 6";

impl Parser<'_> {
    pub(super) fn module_order(
        &mut self,
        cursor: &mut Cursor,
        wanted: fn(&Item) -> bool,
        what: &str,
        example: &'static str,
    ) -> Result<(usize, usize, String, String), Refusal> {
        let word = cursor
            .next()
            .ok_or((format!("name the {what}: Ship.Section"), example))?;
        let (ship, item) = self
            .own_item(&word, wanted, what)
            .map_err(|e| (e, example))?;
        self.may_act(ship).map_err(|e| (e, example))?;
        // A nano matrix may heal several sections while its energy lasts; everything else
        // acts once a phase (FOREVER-GM-50).
        let repeatable = self
            .hull(ship)
            .and_then(|h| h.items.get(item))
            .is_some_and(|slot| matches!(slot.item, Item::Module(ModuleSpec::NanoMatrix { .. })));
        if !repeatable {
            self.mark_used(ship, item, &word)
                .map_err(|e| (e, example))?;
        }
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(String::new(), |s| s.name.clone());
        Ok((ship, item, ship_name, self.item_label(ship, item)))
    }

    pub(super) fn emp(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        const EXAMPLE: &str = "EMP Lancer.S6 AT Anvil.S2";
        let (_, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::Emp { .. })),
            "EMP",
            EXAMPLE,
        )?;
        if !cursor.peek_is(&["AT"]) {
            return Err(("EMP needs AT and an aim".to_string(), EXAMPLE));
        }
        cursor.next();
        let aim = self.aim(cursor).map_err(|e| (e, EXAMPLE))?;
        self.understood
            .push(format!("{ship}.{module} EMP fires at {}", aim.show()));
        self.orders.actions.push(Action::Emp { ship, module, aim });
        Ok(())
    }

    pub(super) fn nano(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        const EXAMPLE: &str = "NANO Lancer.S8 HEAL Lancer.S1 3";
        let (_, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::NanoMatrix { .. })),
            "nano matrix",
            EXAMPLE,
        )?;
        if cursor.peek_is(&["HEAL"]) {
            cursor.next();
        }
        let target = cursor
            .next()
            .ok_or(("name the section to heal".to_string(), EXAMPLE))?;
        let (target_ship, target_section) = Self::split_ref(&target).ok_or((
            "name the section to heal: Ship.Section".to_string(),
            EXAMPLE,
        ))?;
        let index = self
            .state
            .ship_index(&target_ship)
            .ok_or((format!("there is no ship {target_ship}"), EXAMPLE))?;
        let hull = self
            .hull(index)
            .ok_or(("the ship's design does not check".to_string(), EXAMPLE))?;
        let part = hull.part_index(&target_section).ok_or((
            format!("{target_ship} has no section {target_section}"),
            EXAMPLE,
        ))?;
        let amount = cursor
            .number()
            .filter(|n| *n > 0)
            .ok_or(("say how many HP to heal".to_string(), EXAMPLE))?;
        let target_ship = self
            .state
            .ships
            .get(index)
            .map_or(target_ship, |s| s.name.clone());
        let target_section = hull
            .parts
            .get(part)
            .map_or(target_section, |p| p.name.clone());
        self.understood.push(format!(
            "{ship}.{module} heals {target_ship}.{target_section} by up to {amount}"
        ));
        self.orders.actions.push(Action::Heal {
            ship,
            module,
            target_ship,
            target_section,
            amount,
        });
        Ok(())
    }

    pub(super) fn launch(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        const EXAMPLE: &str = "LAUNCH Lancer.S9 TO 40, 20";
        let (_, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::DemeterLauncher { .. })),
            "demeter launcher",
            EXAMPLE,
        )?;
        let go = match Self::destination(cursor) {
            Some(go) => Some(go.map_err(|e| (e, EXAMPLE))?),
            None => None,
        };
        if !cursor.done() {
            return Err((
                format!("{} is not understood", cursor.peek().unwrap_or("")),
                EXAMPLE,
            ));
        }
        self.understood.push(format!(
            "{ship}.{module} launches a demeter{}",
            go.map_or(String::new(), |g| match g {
                Destination::To(p) => format!(" that moves to {}", p.show()),
                Destination::By(p) => format!(" that moves by {}", p.show()),
            })
        ));
        self.orders
            .actions
            .push(Action::Launch { ship, module, go });
        Ok(())
    }

    pub(super) fn computer(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        const EXAMPLE: &str = "TC Lancer.S10 FOR S1 ELSE AT Anvil.S4";
        let (ship_index, _, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::TargetingComputer)),
            "targeting computer",
            EXAMPLE,
        )?;
        if !cursor.peek_is(&["FOR"]) {
            return Err(("TC needs FOR and the weapon".to_string(), EXAMPLE));
        }
        cursor.next();
        let weapon = cursor
            .next()
            .ok_or(("name the weapon".to_string(), EXAMPLE))?;
        let weapon = weapon
            .split_once('.')
            .map_or(weapon.clone(), |(_, w)| w.to_string());
        let hull = self
            .hull(ship_index)
            .ok_or(("the ship's design does not check".to_string(), EXAMPLE))?;
        let gun = hull
            .weapon(&weapon)
            .ok_or((format!("{ship} has no weapon {weapon}"), EXAMPLE))?;
        let weapon = hull.items.get(gun).map_or(weapon, |s| s.name.clone());
        let mut fallback = None;
        if cursor.peek_is(&["ELSE", "OR"]) {
            cursor.next();
            if cursor.peek_is(&["AT"]) {
                cursor.next();
            }
            fallback = Some(self.aim(cursor).map_err(|e| (e, EXAMPLE))?);
        }
        self.understood.push(format!(
            "{ship}.{module} watches {weapon}'s range{}",
            fallback
                .as_ref()
                .map_or(String::from(": holds fire if out of range"), |a| format!(
                    ", else fires at {}",
                    a.show()
                ))
        ));
        self.orders.actions.push(Action::Computer {
            ship,
            module,
            weapon,
            fallback,
        });
        Ok(())
    }

    pub(super) fn flux(
        &mut self,
        cursor: &mut Cursor,
        line: usize,
        raw: &str,
    ) -> Result<(), Refusal> {
        let (ship_index, item, ship, module) = self.module_order(
            cursor,
            |i| matches!(i, Item::Module(ModuleSpec::FluxProjector { .. })),
            "flux projector",
            FLUX_EXAMPLE,
        )?;
        let (bearing, length) = flux_line(cursor)?;
        self.flux_energy(line, raw, ship_index, item, length)?;
        self.understood.push(format!(
            "{ship}.{module} draws a flux line {length}\" at {bearing}"
        ));
        self.orders.actions.push(Action::Flux {
            ship,
            module,
            bearing,
            length,
        });
        Ok(())
    }

    /// Whether the projector can pay for a line of `length`: the line is drawn after the turn's
    /// recharge (FOREVER-MOD-FLUX-6, FOREVER-DEF-ENERGY), so what is left now plus the dice may
    /// pay for it, up to the pool's size. Refused when even the best recharge cannot; a
    /// warning when only a recharge can.
    fn flux_energy(
        &mut self,
        line: usize,
        raw: &str,
        ship_index: usize,
        item: usize,
        length: i64,
    ) -> Result<(), Refusal> {
        let (max, dice) = self
            .hull(ship_index)
            .and_then(|h| h.items.get(item))
            .and_then(|slot| match &slot.item {
                Item::Module(module) => module.energy(),
                Item::Weapon(_) => None,
            })
            .unwrap_or((0, 0));
        let energy = self
            .state
            .ships
            .get(ship_index)
            .and_then(|s| s.items.get(item))
            .and_then(|s| s.energy)
            .unwrap_or(max);
        let best = if energy >= max {
            energy
        } else {
            (energy + 6 * i64::from(dice)).min(max)
        };
        if length > best {
            return Err((
                if best == max {
                    format!(
                        "a {length}\" line needs {length} energy; the projector holds at most {max} (FOREVER-MOD-FLUX-3/4)"
                    )
                } else {
                    format!(
                        "a {length}\" line needs {length} energy; the projector has {energy} now and its recharge ({dice}d6) can bring it to {best} at most (FOREVER-MOD-FLUX-3/6)"
                    )
                },
                FLUX_EXAMPLE,
            ));
        }
        if length > energy {
            self.warn(
                line,
                raw,
                format!(
                    "the projector has {energy} energy now: the line is drawn only if the recharge at the start of your turn ({dice}d6) brings at least {} more (FOREVER-MOD-FLUX-6)",
                    length - energy
                ),
                FLUX_EXAMPLE,
            );
        }
        Ok(())
    }
}

/// FLUX's `BEARING b` and `LEN l`, in either order.
fn flux_line(cursor: &mut Cursor) -> Result<(Degrees, i64), Refusal> {
    let mut bearing = None;
    let mut length = None;
    while !cursor.done() {
        if cursor.peek_is(&["BEARING", "DIRECTION", "ANGLE"]) {
            cursor.next();
            bearing = cursor.number();
        } else if cursor.peek_is(&["LEN", "LENGTH"]) {
            cursor.next();
            length = cursor.number();
        } else {
            return Err((
                format!("{} is not understood", cursor.peek().unwrap_or("")),
                FLUX_EXAMPLE,
            ));
        }
    }
    let bearing = Degrees::new(bearing.ok_or((
        "FLUX needs BEARING in whole degrees".to_string(),
        FLUX_EXAMPLE,
    ))?);
    let length = length
        .filter(|l| *l >= 1)
        .ok_or(("FLUX needs LEN in whole inches".to_string(), FLUX_EXAMPLE))?;
    Ok((bearing, length))
}
