//! How to write orders, for HELP and the order form.

use crate::state::State;

/// The order syntax with examples using this battle's own units.
pub fn order_help(state: &State) -> String {
    let ship = |side: u8| {
        state
            .units
            .iter()
            .find(|u| u.side == side && u.is_ship())
            .map(|u| u.name.clone())
            .unwrap_or_else(|| "Valiant".into())
    };
    let (mine, theirs) = (ship(0), ship(1));
    format!(
        "\
Skyfleet orders: one per line (or several separated by ;), any case.

Activations alternate between the sides, starting with the side the initiative winner
chooses. List your units in the order you want them to activate; units you leave out
activate last, holding position and firing at the nearest targets.

ACTIVATE {mine}                 start a unit's orders (or begin a line with its name)
  MOVE F 3 P +45 F 4 CLIMB 1    forward inches, one pivot after Inertia, climb/dive levels
  MOVE F 2 TOWARD {theirs} F 5  pivot to face a unit or a point x,y (as far as allowed)
  MOVE DIVE 2 F 9 DIVEBRAKES    Drop adds inches per level dived (Dive Brakes decline it)
  HOLD                          no move
  FIRE fwd AT {theirs} / NEAREST   weapons by slot (fwd, port, stbd, aft, turret, w1)
                                or by name (Naval Battery), or ALL; fallbacks after /
  HOLD FIRE                     weapons without FIRE orders stay silent (else: nearest)
  CMD FULLAHEAD                 +2\" this activation (1 CMD)
  CMD HARDAROUND P -45          one more pivot at the end of the move
  CMD TARGETLOCK fwd            +1 to hit with that weapon (not against wings)
  CMD RALLY <ship>              remove Shaken from a friendly ship within 12\"
  CMD BRACE                     the next enemy attack this turn does 1 less damage
  CMD EMERGENCY SKIP MOVE|SHOOT +2 damage-control dice
  CMD LAUNCHTORPEDO | LAUNCHWING [wing] | COMPRESSEDGAS
  CMD ... FROM <ship>           another ship within 12\" pays
  DC PRIORITY ONFIRE BROKEN RUDDER SPEED JAM REPAIR
TORPEDO #1 PIVOT +22.5 AFTER 6 CLIMB 1      your torpedo's run in the Torpedo Step
STANDING BRACE <ship> | CHAFF <ship> | COUNTERMEASURES <ship> [LEFT|RIGHT]
STANDING REROLL_CRIT 7, 8 | STANDING CLEAR  reactions that hold until changed
INITIATIVE FIRST|SECOND         what you choose when you win initiative
DEPLOY {mine} AT 6,24 HEADING 90 ELEV 4     turn 1 only, inside your strip
PRESS <text>                    printed under the report

Distances are inches, angles degrees (+ is clockwise), elevations 1 to {max}.
",
        max = state.rules.max_elevation
    )
}
