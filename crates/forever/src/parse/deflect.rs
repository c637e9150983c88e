//! DEFLECT: a deflector's standing order, the sections it shields (FOREVER-MOD-DEF-3).

use crate::design::{Hull, Item, ModuleSpec};
use crate::state::Protect;

use super::{Cursor, Parser, Refusal};

const EXAMPLE: &str = "DEFLECT Lancer.S3 PROTECT S1, S2";

impl Parser<'_> {
    pub(super) fn deflect(&mut self, cursor: &mut Cursor) -> Result<(), Refusal> {
        let word = cursor
            .next()
            .ok_or(("name the deflector: Ship.Section".to_string(), EXAMPLE))?;
        let (ship, item) = self
            .own_item(
                &word,
                |i| matches!(i, Item::Module(ModuleSpec::Deflector { .. })),
                "deflector",
            )
            .map_err(|e| (e, EXAMPLE))?;
        let hull = self
            .hull(ship)
            .ok_or(("the ship's design does not check".to_string(), EXAMPLE))?;
        let own_part = hull.items.get(item).map_or(0, |s| s.part);
        let ship_name = self
            .state
            .ships
            .get(ship)
            .map_or(String::new(), |s| s.name.clone());
        let module = self.item_label(ship, item);
        if cursor.peek_is(&["PROTECT", "PROTECTS", "ON"]) {
            cursor.next();
        }
        let rest: Vec<String> = std::iter::from_fn(|| cursor.next())
            .flat_map(|w| {
                w.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .filter(|w| !w.eq_ignore_ascii_case("and"))
            .collect();
        let protect = protection(hull, &ship_name, own_part, &rest)?;
        self.understood.push(match &protect {
            Some(Protect::Any) => format!("standing order: {ship_name}.{module} deflector shields the first section of {ship_name} an enemy shot aims at"),
            Some(Protect::Sections(names)) => format!("standing order: {ship_name}.{module} deflector shields {} when an enemy shot aims at it", names.join(", ")),
            None => format!("standing order for {ship_name}.{module} cancelled"),
        });
        self.orders.deflect.push(crate::orders::Deflect {
            ship: ship_name,
            module,
            protect,
        });
        Ok(())
    }
}

/// What the deflector shields: ANY section, the sections named (never the core nor its own
/// section, FOREVER-MOD-DEF-3), or nothing (OFF).
fn protection(
    hull: &Hull,
    ship_name: &str,
    own_part: usize,
    rest: &[String],
) -> Result<Option<Protect>, Refusal> {
    match rest {
        [] => Err((
            "say what it protects: section names, ANY or OFF".to_string(),
            EXAMPLE,
        )),
        [one] if one.eq_ignore_ascii_case("ANY") || one.eq_ignore_ascii_case("ALL") => {
            Ok(Some(Protect::Any))
        }
        [one] if one.eq_ignore_ascii_case("OFF") || one.eq_ignore_ascii_case("NONE") => Ok(None),
        names => {
            let mut sections = Vec::new();
            for name in names {
                let part = hull
                    .part_index(name)
                    .ok_or((format!("{ship_name} has no section {name}"), EXAMPLE))?;
                if part == 0 {
                    return Err((
                        "a deflector cannot shield the core (FOREVER-MOD-DEF-3)".to_string(),
                        EXAMPLE,
                    ));
                }
                if part == own_part {
                    return Err((
                        "a deflector cannot shield its own section (FOREVER-MOD-DEF-3)".to_string(),
                        EXAMPLE,
                    ));
                }
                sections.push(
                    hull.parts
                        .get(part)
                        .map_or(name.clone(), |p| p.name.clone()),
                );
            }
            Ok(Some(Protect::Sections(sections)))
        }
    }
}
