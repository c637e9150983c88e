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
                "{} cannot join a battle in progress: fleets are built at the start (FOREVER-ADM-07).",
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

    fn roster(state: &State) -> Vec<Player> {
        state.seats.iter().map(|s| s.player.clone()).collect()
    }

    fn order_help(state: &State) -> String {
        help::order_help(state)
    }

    fn rulings(setup: &Setup) -> Vec<engine::Ruling> {
        setup::rulings(setup)
    }
}
