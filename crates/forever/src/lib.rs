//! `forever`: the Battleships Forever tabletop rules (seed 000) as an Admiralty rule engine.
//! Players design ships as trees of rectangles, price them in points, and fight in continuous
//! 2-D space with scatter-die ray casting, blasts, sweeps, reactions and terrain.
//!
//! Modules: [`design`] (the ship-design text format, its validator and pricer), [`fixed`] and
//! [`geometry`] (fixed-point numbers, a sine table, exact ray casting), [`battle`] (weapons,
//! modules, movement, damage, terrain), [`turn`] (the PBEM turn mapped onto written orders),
//! [`parse`] (orders from email), [`report`] and [`view`] (the report table, the public view
//! and the battlefield as shapes for an SVG: [`view::map`]).
//!
//! Rule IDs (`FOREVER-…`) refer to the catalogue `shared/rules/forever.md`; the engine's own
//! rulings (`FOREVER-ADM-…`) are in `docs/rules/forever.md`. Nothing of the rules text is
//! reproduced here, only its mechanics.

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Resolution, SetupError, Standing, TurnDice,
    TurnError, TurnInput, View, Viewer,
};

pub mod battle;
pub mod design;
pub mod fixed;
pub mod geometry;
pub mod help;
pub mod orders;
pub mod parse;
pub mod report;
pub mod setup;
pub mod start;
pub mod state;
pub mod turn;
pub mod view;

pub use orders::Orders;
pub use setup::Setup;
pub use state::State;
pub use view::{BattleMap, map};

/// The engine.
pub struct Forever;

impl Engine for Forever {
    const NAME: &'static str = "forever";
    const TITLE: &'static str = "Battleships Forever";

    type Setup = Setup;
    type State = State;
    type Orders = Orders;

    fn new_game(
        setup: &Setup,
        players: &[Player],
        dice: &mut TurnDice,
    ) -> Result<State, SetupError> {
        start::start(setup, players, dice)
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
            "fleets are built at the start (FOREVER-ADM-07)",
        );
        Ok(Resolution {
            state: next,
            report,
        })
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    /// Standings (FOREVER-GM-43): the winners first, then admirals still fighting, then those
    /// out of the battle (wiped out or resigned); by score within each. Score alone would let a
    /// player who resigned with more points stand above the winner.
    fn outcome(state: &State) -> Outcome {
        let winners: Vec<PlayerId> = state
            .finish
            .as_ref()
            .map(|f| f.winners.clone())
            .unwrap_or_default();
        let mut entries: Vec<(u8, engine::Score, PlayerId, String, String)> = state
            .seats
            .iter()
            .map(|seat| {
                let ships = state
                    .ships
                    .iter()
                    .filter(|s| s.owner == seat.player.id && !s.destroyed)
                    .count();
                let status = match seat.status {
                    state::SeatStatus::Playing => {
                        format!("{ships} ship{} in play", if ships == 1 { "" } else { "s" })
                    }
                    state::SeatStatus::Resigned => "resigned".to_string(),
                    state::SeatStatus::WipedOut => "wiped out".to_string(),
                };
                let tier = if winners.contains(&seat.player.id) {
                    2
                } else if seat.status == state::SeatStatus::Playing {
                    1
                } else {
                    0
                };
                let score = engine::Score::ratio(seat.score.quarters(), 4);
                (
                    tier,
                    score,
                    seat.player.id,
                    seat.player.name.clone(),
                    status,
                )
            })
            .collect();
        entries.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut standings: Vec<Standing> = Vec::with_capacity(entries.len());
        let mut previous: Option<(u8, engine::Score, u32)> = None;
        for (index, (tier, score, player, name, status)) in entries.into_iter().enumerate() {
            let place = match &previous {
                Some((t, s, place)) if *t == tier && *s == score => *place,
                _ => u32::try_from(index + 1).unwrap_or(u32::MAX),
            };
            previous = Some((tier, score, place));
            standings.push(Standing {
                player,
                name,
                score,
                place,
                status,
            });
        }
        Outcome {
            finished: state.finish.is_some(),
            standings,
            winners,
        }
    }

    fn turn(state: &State) -> u32 {
        state.turn
    }

    fn expects_orders(state: &State, player: PlayerId) -> bool {
        state.active_players().contains(&player)
    }

    /// A campaign of many players and long turns: one more miss than a duel.
    fn missed_turns_limit() -> Option<u32> {
        Some(3)
    }

    fn roster(state: &State) -> Vec<Player> {
        state.seats.iter().map(|s| s.player.clone()).collect()
    }

    fn rename(state: &mut State, player: &Player) {
        for seat in &mut state.seats {
            if seat.player.id == player.id {
                seat.player.name.clone_from(&player.name);
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
                "points_limit",
                "Points a fleet",
                (1, 100_000, 200),
                "Each fleet's points.",
            )
            .rule("FOREVER-GEN-2"),
            Setting::number(
                "table.0",
                "Table width (inches)",
                (12, 1_000, 72),
                "The table's width.",
            )
            .rule("FOREVER-GM-45"),
            Setting::number(
                "table.1",
                "Table depth (inches)",
                (12, 1_000, 48),
                "The table's depth.",
            )
            .rule("FOREVER-GM-45"),
            Setting::choice(
                "turn_mode",
                "Turns",
                &[
                    ("round", "whole rounds: every player moves each turn"),
                    ("alternate", "players take turns"),
                ],
                "round",
                "How a turn of mail is played.",
            ),
            Setting::choice(
                "deploy_mode",
                "Deployment",
                &[("blind", "blind: all at once"), ("alternate", "in turn")],
                "blind",
                "How the fleets deploy.",
            ),
            Setting::switch(
                "meteors",
                "Meteor showers",
                false,
                "Meteors cross the table each round.",
            )
            .rule("FOREVER-TER-2"),
            Setting::number(
                "meteor_hit_faces",
                "Meteor check: faces that hit",
                (0, 6, 2),
                "Faces of the meteor check's D6 that are a hit.",
            )
            .rule("FOREVER-GM-13"),
            Setting {
                path: "turn_limit",
                label: "Last round",
                help: "The game ends after this round; empty: it goes on until one fleet is left.",
                rule: Some("FOREVER-GM-43"),
                kind: SettingKind::OptionalNumber {
                    min: 1,
                    max: 1_000,
                    default: None,
                    none: "no limit",
                },
            },
            Setting::choice(
                "move_order",
                "Ships move",
                &[
                    ("written", "in the order written"),
                    ("by_id", "by ship number"),
                ],
                "written",
                "The order a player's ships move in.",
            )
            .rule("FOREVER-MOVE1-1"),
            Setting::choice(
                "missile_radius",
                "A missile's blast radius",
                &[("bought", "the damage bought"), ("base", "the base damage")],
                "bought",
                "What the text's \"base damage\" of a missile's blast means.",
            )
            .rule("FOREVER-WPN-MSL-5"),
            Setting::choice(
                "first_player",
                "First player",
                &[
                    ("fixed", "fixed by the roll-off"),
                    ("alternating", "alternating each round"),
                ],
                "fixed",
                "Who moves first after the opening roll-off.",
            )
            .rule("FOREVER-PLAY-1"),
            Setting::choice(
                "core_ramming",
                "Ramming with the core",
                &[("refused", "refused"), ("allowed", "allowed")],
                "refused",
                "Whether a ship may ram with its core.",
            )
            .rule("FOREVER-RAM-2"),
            Setting::choice(
                "drift",
                "Loose things drift",
                &[
                    ("per_round", "once a round"),
                    ("per_player_turn", "every player's turn"),
                ],
                "per_round",
                "How often jettisoned sections and meteors move.",
            )
            .rule("FOREVER-JET-4"),
            Setting::choice(
                "battery_offsets",
                "A battery's later shots",
                &[
                    ("marker", "measured from the marker"),
                    ("impact", "measured from the impact"),
                ],
                "marker",
                "Where the ±1\" offsets of a battery's later shots are measured from.",
            )
            .rule("FOREVER-BAT-1"),
        ]
    }

    fn rulings(setup: &Setup) -> Vec<engine::Ruling> {
        setup::rulings(setup)
    }
}
