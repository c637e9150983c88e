//! How to write orders (`order_help`).

use crate::state::{Phase, State};

/// The order syntax, for HELP and the order form.
pub fn order_help(state: &State) -> String {
    let mut text = String::from(
        "Battleships Forever orders: one per line (or separated by ;). Case and extra spaces do not matter. \
Distances in inches; angles in degrees anticlockwise from +x (0 = right, 90 = up).\n",
    );
    if state.phase == Phase::Building {
        text.push_str(
            "\nBUILDING: one SHIP block per ship, then where it goes:\n\
SHIP Lancer\n\
CORE HP+2\n\
SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT RAIL(range 18, damage 4, accuracy 15)\n\
SECTION S2 PARENT S1 SIZE 1x1 AT (3.5, 0) MOUNT THRUSTER(thrust 30)\n\
SECTION S3 PARENT CORE SIZE 1x1 AT (-1.5, 0) HP+1 SWIVEL MOUNT DEFLECTOR(fast, double)\n\
DEPLOY Lancer AT 10, 24 FACING 0\n\
Weapons: GUN, LASER(sweep n), MISSILE(hp n), RAIL, TORPEDO(hp n, payload missile), TORPEDO-MISSILE; \
each takes range (12 + 6s), damage (1 + s), accuracy (10 + 5s). Modules: TOW, THRUSTER(thrust), DEFLECTOR(fast, double), \
GUNNER(shots), EMP(range, accuracy, fast), FLUX(energy, recharge 2d6), CONTROL(control), LAUNCHER(speed, hp, rounds), \
COMPUTER, NANO(range, energy, recharge). Name an item with AS <name>.\n",
        );
    }
    text.push_str(
        "\nMOVEMENT (a waypoint or offset, then a facing, swivels and a tow):\n\
MOVE1 Lancer TO 30, 20 FACE 90 SWIVEL S3 45     (phase 1; MOVE is the same)\n\
MOVE2 Lancer BY 2, -1 TURN -30                  (phase 3: speed left after phase 1)\n\
MOVE1 Tug TO 12, 8 TOW Wreck/J7    RELEASE Tug\n\
\nSHOOTING (resolved in the order written; each weapon once):\n\
FIRE Lancer.S1 AT Anvil.S3         (aim at a section's centre, a demeter, or a point: AT 34.5, 18)\n\
FIRE Lancer.S4 AT Anvil.core RANGE 15   (torpedo: the declared range)\n\
FIRE Lancer.S5 AT Anvil.S2 SWEEP L 0.75 (laser: side L or R, step 0.5 to 1)\n\
BATTERY Lancer.S1/1, S1/2, S1/3 AT Anvil.S3\n\
EMP Lancer.S6 AT Anvil.S2      FLUX Lancer.S7 BEARING 45 LEN 6      NANO Lancer.S8 HEAL Lancer.S1 3\n\
LAUNCH Lancer.S9 TO 40, 20     TC Lancer.S10 FOR S1 ELSE AT Anvil.S4\n\
DEMETER Lancer/D1 MOVE TO 41, 22     DEMETER Lancer/D1 FIRE AT Anvil.S2     DEMETER Lancer/D1 MOVE2 BY 1, 0\n\
\nSTANDING REACTION for the enemy's turns (kept until changed):\n\
DEFLECT Lancer.S3 PROTECT S1, S2     (or ANY; OFF cancels)\n\
\nRESIGN · OFFER DRAW (ACCEPT DRAW is the same) · PRESS <text>\n",
    );
    text
}
