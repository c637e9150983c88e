//! `skyfleet`: the airship-fleet wargame (seed 002) as an Admiralty rule engine. Two fleets of
//! airships and wings, built to a points limit, fight over a table measured in inches with an
//! elevation band, among floating islands, cloud banks and storms; initiative, a torpedo step
//! and alternating activations are resolved from written orders.
//!
//! Rule IDs (`SKY-…`) refer to the catalogue `shared/rules/skyfleet.md`; the engine's own
//! rulings (`SKY-ADM-…`) are in `docs/rules/skyfleet.md`. Nothing of the rules text is
//! reproduced here, only its mechanics.

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Resolution, SetupError, TurnDice, TurnError,
    TurnInput, View, Viewer,
};

pub mod battle;
pub mod combat;
pub mod command;
pub mod fire;
pub mod fleet;
pub mod geometry;
pub mod help;
pub mod log;
pub mod movement;
pub mod orders;
pub mod outcome;
pub mod parse;
pub mod report;
pub mod state;
pub mod tables;
pub mod terrain;
pub mod torpedo;
pub mod turn;
pub mod view;

pub use fleet::{FleetCost, FleetError, Setup, ShipSetup, SideSetup, WingSetup};
pub use geometry::{Angle, Length, Point, Turn};
pub use orders::Orders;
pub use state::{State, Unit, UnitId};
pub use tables::{Class, ModuleKind, WeaponKind};
pub use view::{MapPicture, map};

/// The engine.
pub struct Skyfleet;

impl Engine for Skyfleet {
    const NAME: &'static str = "skyfleet";
    const TITLE: &'static str = "Skyfleet: airship fleets with elevation, command and criticals";

    type Setup = Setup;
    type State = State;
    type Orders = Orders;

    fn new_game(
        setup: &Setup,
        players: &[Player],
        _dice: &mut TurnDice,
    ) -> Result<State, SetupError> {
        // Every starting fact is in the setup and deployment is by turn-1 orders: no dice.
        setup.start(players)
    }

    fn parse_orders(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
        parse::parse(state, player, text)
    }

    fn resolve(
        state: &State,
        input: &TurnInput<Orders>,
        dice: &mut TurnDice,
    ) -> Result<Resolution<State>, TurnError> {
        let (next, log) = turn::resolve_turn(state, input, dice)?;
        let mut report = report::build(state, &next, &log);
        for player in &input.joining {
            report.notes.push(format!(
                "{} cannot join a battle in progress: the fleets are fixed at the start (SKY-ADM-07).",
                engine::report::one_line(&player.name)
            ));
        }
        Ok(Resolution {
            state: next,
            report,
        })
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    fn outcome(state: &State) -> Outcome {
        outcome::outcome(state)
    }

    fn turn(state: &State) -> u32 {
        state.turn
    }

    fn roster(state: &State) -> Vec<Player> {
        state.sides.iter().map(|s| s.player.clone()).collect()
    }

    fn order_help(state: &State) -> String {
        help::order_help(state)
    }
}
