//! `skyfleet`: the airship-fleet wargame (seed 002) as an Admiralty rule engine. Two fleets of
//! airships and wings, built to a points limit, fight over a table measured in inches with an
//! elevation band, among floating islands, cloud banks and storms; initiative, a torpedo step
//! and alternating activations are resolved from written orders.
//!
//! Rule IDs (`SKY-…`) refer to the catalogue `shared/rules/skyfleet.md`; the engine's own
//! rulings (`SKY-ADM-…`) are in `docs/rules/skyfleet.md`. Nothing of the rules text is
//! reproduced here, only its mechanics.

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Resolution, Ruling, SetupError, TurnDice,
    TurnError, TurnInput, View, Viewer,
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

    /// Each side's fleet is one player's (SKY-GM-03: one points limit per side).
    fn seats(setup: &Setup) -> engine::SeatPlan {
        engine::SeatPlan::Named {
            seats: setup
                .sides
                .iter()
                .map(|side| engine::NamedSeat {
                    name: side.name.clone(),
                    captains: 1,
                })
                .collect(),
        }
    }

    fn parse_orders(state: &State, player: PlayerId, text: &str) -> ParsedOrders<Orders> {
        let mut parsed = parse::parse(state, player, text);
        let refused = parsed.errors.clone();
        engine::chat::set_aside(text, &mut parsed);
        parse::keep_orders_from_chat(state, player, &refused, &mut parsed);
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
            "the fleets are fixed at the start (SKY-ADM-07)",
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

    /// A player who left gives no more orders: their side holds (SKY-ADM-07).
    fn expects_orders(state: &State, player: PlayerId) -> bool {
        state.side_of(player).is_some_and(|side| {
            state.sides.get(usize::from(side)).is_some_and(|s| !s.left)
                && state.in_play().any(|unit| unit.side == side)
        })
    }

    fn missed_turns_limit() -> Option<u32> {
        Some(2)
    }

    fn roster(state: &State) -> Vec<Player> {
        state.sides.iter().map(|s| s.player.clone()).collect()
    }

    fn rename(state: &mut State, player: &Player) {
        for side in &mut state.sides {
            if side.player.id == player.id {
                side.player.name.clone_from(&player.name);
            }
        }
    }

    fn order_help(state: &State) -> String {
        help::order_help(state)
    }

    fn settings() -> Vec<engine::settings::Setting> {
        use engine::settings::Setting;
        vec![
            Setting::number("board.width", "Table width (inches)", (12, 1_000, 72), "The table's width.")
                .rule("SKY-GM-01"),
            Setting::number("board.height", "Table depth (inches)", (12, 1_000, 48), "The table's depth.")
                .rule("SKY-GM-01"),
            Setting::number(
                "max_elevation",
                "Highest elevation",
                (1, 99, 12),
                "Elevations run from 1 to this.",
            )
            .rule("SKY-GM-06"),
            Setting::number("budget", "Points a side", (1, 100_000, 500), "The points limit of each fleet.")
                .rule("SKY-GM-03"),
            Setting::number(
                "level_tolerance",
                "Level tolerance",
                (0, 99, 1),
                "Elevations apart that still count as level.",
            )
            .rule("SKY-GM-10"),
            Setting::number(
                "vertical_range_per_level",
                "Range per level of height (inches)",
                (0, 99, 0),
                "Added to a shot's range for each level between firer and target; 0: height costs no range.",
            )
            .rule("SKY-GM-08"),
            Setting::number("turn_limit", "Turns", (1, 1_000, 6), "The game ends after this turn.")
                .rule("SKY-GM-01"),
            Setting::number(
                "deployment_depth",
                "Deployment strip (inches)",
                (1, 500, 12),
                "How deep each side's deployment strip is.",
            )
            .rule("SKY-GM-01"),
            Setting::switch(
                "allow_downsize",
                "A slot may take a smaller weapon",
                false,
                "A weapon slot may hold a smaller weapon (never an Ultralight).",
            )
            .rule("SKY-GM-04"),
            Setting::switch(
                "harmonise_missiles",
                "Heavy Missiles only for ships",
                false,
                "On: wings may not carry the Heavy Missile.",
            )
            .rule("SKY-GM-28"),
            Setting::choice(
                "shot_over_island",
                "A shot over or under an island",
                &[("clear", "passes clear"), ("near_miss", "is a near miss")],
                "clear",
                "What an island between firer and target does to a shot passing above or below it.",
            )
            .rule("SKY-ISL-04"),
            Setting::switch(
                "torpedo_contact_in_movement",
                "Torpedoes hit on contact while moving",
                true,
                "A ship that moves into a torpedo's base at its elevation is hit by it.",
            )
            .rule("SKY-TORP-05"),
            Setting::choice(
                "damage_control",
                "Damage-control successes",
                &[("pool", "spent from a pool"), ("tiers", "in tiers")],
                "pool",
                "How a ship spends its damage-control successes.",
            )
            .rule("SKY-GM-22"),
            Setting::switch(
                "wing_morale",
                "Wings take morale checks",
                true,
                "The Wing's Morale 6 is used.",
            )
            .rule("SKY-GM-23"),
        ]
    }

    fn rulings(setup: &Setup) -> Vec<Ruling> {
        rulings(setup)
    }
}

/// The GM's switches this setup chose, in words with their rule IDs, every one listed whether
/// or not it is the default (the rulebook; `docs/rules/skyfleet.md`, "Switches").
pub fn rulings(setup: &Setup) -> Vec<Ruling> {
    let ruling = |rule: &str, text: &str| Ruling {
        rule: rule.into(),
        text: text.into(),
    };
    vec![
        match setup.shot_over_island {
            state::OverIsland::Clear => ruling(
                "SKY-ISL-04",
                "A shot that crosses an island with its elevations wholly above or below the island's band (9 to 9 over an island at 6-8) is clear of it: neither blocked nor a near miss (the catalogue's example SKY-EX-10). A shot passing beside an island within 2\" is a near miss at -1 (unless Sonar).",
            ),
            state::OverIsland::NearMiss => ruling(
                "SKY-ISL-04",
                "A shot that crosses an island above or below its band (9 to 9 over an island at 6-8) is not blocked but is a near miss at -1 (unless Sonar), like any shot passing within 2\" of an island; only shots through the island's band are blocked.",
            ),
        },
        if setup.torpedo_contact_in_movement {
            ruling(
                "SKY-TORP-05",
                "A torpedo hits a ship whose base touches it at its elevation whenever that happens: in the Torpedo Step, and when a ship moves into it (the text's \"on contact\").",
            )
        } else {
            ruling(
                "SKY-TORP-05",
                "Torpedoes hit ships only in the Torpedo Step, when the torpedo moves; a ship moving into a torpedo is not hit.",
            )
        },
        match setup.damage_control {
            state::DamageControl::Pool => ruling(
                "SKY-GM-22",
                "Damage-control successes are a pool spent down the ship's DC priority: 1 success a Critical cleared or 1d3 Hull repaired, 2 a Super Critical or Broken cleared, as many effects as the successes pay for.",
            ),
            state::DamageControl::Tiers => ruling(
                "SKY-GM-22",
                "Damage control buys one effect a roll: with 1 success a Critical cleared or 1d3 Hull repaired, with 2 or more one effect of either tier (a Super Critical or Broken cleared); further successes buy nothing.",
            ),
        },
        if setup.wing_morale {
            ruling(
                "SKY-GM-23",
                "Wings take morale checks like ships (a wing has Morale 6).",
            )
        } else {
            ruling(
                "SKY-GM-23",
                "Wings take no morale checks: the text's morale rules speak of ships.",
            )
        },
        if setup.harmonise_missiles {
            ruling(
                "SKY-GM-28",
                "The Heavy Missile may not target wings, like the other missiles.",
            )
        } else {
            ruling(
                "SKY-GM-28",
                "The Heavy Missile may target wings: its line in the text does not forbid it, unlike the Missile's and the Siege Missile Rack's.",
            )
        },
    ]
}
