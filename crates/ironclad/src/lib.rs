//! `ironclad`: Bob Cordery's simple late-19th-century battleship rules (seed 004) as an
//! Admiralty rule engine. Two sides on a square grid; ships with eight headings, 12 Flotation
//! Points and a Critical Point of 6; main and secondary gunfire, torpedoes, criticals,
//! movement and ramming, resolved from written orders.
//!
//! Rule IDs (`IRON-…`) refer to the catalogue `shared/rules/ironclad.md`; the engine's own
//! rulings (`IRON-ADM-…`) are in `docs/rules/ironclad.md`. The rules text is for personal use
//! only: nothing of it is reproduced here, only its mechanics.

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Resolution, SetupError, TurnDice, TurnError,
    TurnInput, View, Viewer,
};

pub mod fire;
pub mod grid;
pub mod help;
pub mod movement;
pub mod orders;
pub mod outcome;
pub mod parse;
pub mod report;
pub mod setup;
pub mod state;
pub mod tables;
pub mod turn;
pub mod view;

pub use grid::{Arc, Area, Board, Edge, Heading, TurnSide};
pub use orders::{Manoeuvre, Orders, ShipOrders, TorpedoOrder};
pub use setup::{Setup, ShipSetup, ShipType, SideSetup};
pub use state::{MoveOrder, OverLimitMoves, Ship, ShipId, State};
pub use turn::{TurnLog, resolve_turn};

/// The engine.
pub struct Ironclad;

impl Engine for Ironclad {
    const NAME: &'static str = "ironclad";
    const TITLE: &'static str =
        "Ironclads: simple late-19th-century battleship rules (Bob Cordery)";

    type Setup = Setup;
    type State = State;
    type Orders = Orders;

    fn new_game(
        setup: &Setup,
        players: &[Player],
        _dice: &mut TurnDice,
    ) -> Result<State, SetupError> {
        // Every starting fact is in the setup: no dice are needed, so none are drawn.
        setup.start(players)
    }

    /// The two sides, each shared by as many captains as it has ships (IRON-ADM-01).
    fn seats(setup: &Setup) -> engine::SeatPlan {
        engine::SeatPlan::Named {
            seats: setup
                .sides
                .iter()
                .map(|side| engine::NamedSeat {
                    name: side.name.clone(),
                    captains: side.ships.len().max(1),
                })
                .collect(),
        }
    }

    fn new_game_seated(
        setup: &Setup,
        seats: &[Vec<Player>],
        _dice: &mut TurnDice,
    ) -> Result<State, SetupError> {
        let sides: Vec<Vec<&Player>> = seats.iter().map(|s| s.iter().collect()).collect();
        setup.start_sides(&sides)
    }

    fn parse_orders(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
        let mut parsed = parse::parse(state, player, text);
        engine::chat::set_aside(text, &mut parsed);
        parsed
    }

    fn resolve(
        state: &State,
        input: &TurnInput<Orders>,
        dice: &mut TurnDice,
    ) -> Result<Resolution<State>, TurnError> {
        let (next, log) = turn::resolve_turn(state, input, dice)?;
        let mut report = report::build(state, &next, &log);
        report.refuse_joiners(
            &input.joining,
            "the fleets are fixed at the start (IRON-ADM-09)",
        );
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

    /// A captain whose ships are all sunk, struck or breaking off (their orders are the
    /// engine's, IRON-GM-10) has nothing left to order.
    /// A commander who left gives no more orders: their ships get the NMR treatment
    /// (IRON-GM-18).
    fn expects_orders(state: &State, player: PlayerId) -> bool {
        state.commander(player).is_some_and(|c| !c.left)
            && state
                .ships
                .iter()
                .any(|ship| ship.player == player && ship.in_action())
    }

    fn missed_turns_limit() -> Option<u32> {
        Some(2)
    }

    fn roster(state: &State) -> Vec<Player> {
        state.commanders.iter().map(|c| c.player.clone()).collect()
    }

    fn rename(state: &mut State, player: &Player) {
        for commander in &mut state.commanders {
            if commander.player.id == player.id {
                commander.player.name.clone_from(&player.name);
            }
        }
    }

    fn order_help(state: &State) -> String {
        help::order_help(state)
    }

    fn settings() -> Vec<engine::settings::Setting> {
        use engine::settings::{Setting, SettingKind};
        vec![
            Setting::number(
                "board.columns",
                "Columns",
                (1, i64::from(grid::MAX_COLUMNS), 16),
                "The sea's width in areas, lettered from A.",
            )
            .rule("IRON-GM-15"),
            Setting::number(
                "board.rows",
                "Rows",
                (1, i64::from(grid::MAX_ROWS), 12),
                "The sea's height in areas, numbered from 1.",
            )
            .rule("IRON-GM-15"),
            Setting {
                path: "turn_limit",
                label: "Last turn",
                help: "The game ends after this turn; empty: it goes on until a side is gone.",
                rule: Some("IRON-GM-15"),
                kind: SettingKind::OptionalNumber {
                    min: 1,
                    max: 1_000,
                    default: Some(30),
                    none: "no limit",
                },
            },
            Setting::choice(
                "move_order",
                "Who moves first within a side",
                &[
                    ("order_lines", "the players' ORDER lines, then ship number"),
                    ("ship_id", "ship number only"),
                    (
                        "leaving_first",
                        "a ship leaving an area before one entering it",
                    ),
                ],
                "order_lines",
                "The order ships of one side move in.",
            )
            .rule("IRON-GM-08"),
            Setting::choice(
                "over_limit_moves",
                "A move over a limit in force",
                &[
                    ("refused", "refused, with the reason"),
                    ("cut_down", "cut down as at resolution"),
                ],
                "refused",
                "What becomes of a written move that breaks a limit already in force.",
            )
            .rule("IRON-GM-07"),
            Setting::switch(
                "broken_off_ships_fire",
                "Ships breaking off may fire",
                true,
                "A ship that has broken off still engages enemies as it passes them.",
            )
            .rule("IRON-DMG-02"),
            Setting::switch(
                "allow_pivot_when_slowed",
                "A slowed ship may pivot",
                false,
                "Off: a turn needs a forward area first, as the catalogue rules.",
            )
            .rule("IRON-GM-07"),
        ]
    }

    fn rulings(setup: &Setup) -> Vec<engine::Ruling> {
        setup.rulings()
    }
}
