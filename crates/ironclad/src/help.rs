//! The order syntax, for HELP mails and the order form.

use crate::state::{MoveOrder, State};
use crate::tables::{MAIN_RANGE, SECONDARY_RANGE, TORPEDO_RANGE};

/// How to write orders, with the ships of this battle.
pub fn order_help(state: &State) -> String {
    // The GM's switches on IRON-GM-08 and IRON-DMG-02.
    let order_line = match state.rules.move_order {
        MoveOrder::OrderLines => "the order your ships move in",
        MoveOrder::ShipId => "not used in this game: ships move by ship number",
        MoveOrder::LeavingFirst => {
            "the order your ships move in (a ship leaving an area still moves before one entering it)"
        }
    };
    let broken_off = if state.rules.broken_off_ships_fire {
        "A ship at her Critical Point breaks off for home and may still fire."
    } else {
        "A ship at her Critical Point breaks off for home and does not fire in this game."
    };
    let mut text = format!(
        "IRONCLAD ORDERS: one order per line (or several on a line, separated by ; or after a fire order by a comma). \
Start each line with your ship's name, or put the name alone on a line and the orders for her below it. \
Case, extra spaces and punctuation do not matter.

  <ship> MAIN <target>        main armament (range {MAIN_RANGE}); one target a turn
  <ship> PORT <target>        port secondary (range {SECONDARY_RANGE}, port beam only)
  <ship> STBD <target>        starboard secondary (range {SECONDARY_RANGE}, starboard beam only)
  <ship> TORP <target>        one torpedo a turn, four a battle (range {TORPEDO_RANGE}); add TUBE BOW/STERN/PORT/STBD to choose the tube
  <ship> MOVE <path>          HOLD, F, F F, F T45L or F T45R (also FF, FL, FR)
  <ship> WITHDRAW LEFT|RIGHT  which way to turn for home if she must break off and both ways are as short
  ORDER <ship>, <ship>, ...   {order_line}
  PRESS <text>                a message printed under the report

A target is a ship's name (or enough of it to be unique) or the area she is in (G5). \
Write NONE to hold fire. To name a fallback in case the first target sinks before the guns fire, \
write MAIN Dandolo / Erzherzog. Fire comes before movement, so you aim at the positions in the last report. \
A move is up to 2 areas forward; a 45° turn comes after one area forward and uses the second. \
Entering an occupied area rams the ship there. A ship with no orders holds fire and position. \
{broken_off}

Example:
  Agamemnon MAIN Dandolo
  Agamemnon STBD Dandolo
  Agamemnon MOVE F, T45R
"
    );
    for (index, side) in state.sides.iter().enumerate() {
        let ships: Vec<String> = state
            .ships
            .iter()
            .filter(|s| s.side == index && s.afloat())
            .map(|s| {
                format!(
                    "{} ({}, {} {})",
                    s.name,
                    state.player_name(s.player),
                    s.area,
                    s.heading
                )
            })
            .collect();
        text.push_str(&format!("\n{}: {}", side.name, ships.join(", ")));
    }
    text.push('\n');
    text
}
