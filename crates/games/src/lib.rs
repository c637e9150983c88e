//! Every rule engine behind one enum, with a game's setup, state and orders typed
//! ([`AnySetup`], [`AnyState`], [`AnyOrders`]) and JSON as their storage and wire form. The
//! service stores and passes these values and never needs to know an engine's insides.

use std::fmt;
use std::str::FromStr;

use engine::{
    Engine, Outcome, ParsedOrders, Player, PlayerId, Report, SetupError, TurnDice, TurnError,
    TurnInput, View, Viewer,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Runs `$body` with `$engine` bound to the engine type of `$kind`.
macro_rules! dispatch {
    ($kind:expr, $engine:ident => $body:expr) => {
        match $kind {
            $crate::EngineKind::Barmy => {
                type $engine = barmy::Barmy;
                $body
            }
            $crate::EngineKind::Salvo => {
                type $engine = salvo::Salvo;
                $body
            }
            $crate::EngineKind::Ironclad => {
                type $engine = ironclad::Ironclad;
                $body
            }
            $crate::EngineKind::Skyfleet => {
                type $engine = skyfleet::Skyfleet;
                $body
            }
            $crate::EngineKind::Forever => {
                type $engine = forever::Forever;
                $body
            }
        }
    };
}

pub mod adjudicate;
pub mod renames;

/// The closed set of engines, one per rules text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    Barmy,
    Salvo,
    Ironclad,
    Skyfleet,
    Forever,
}

impl EngineKind {
    pub const ALL: [EngineKind; 5] = [
        EngineKind::Barmy,
        EngineKind::Salvo,
        EngineKind::Ironclad,
        EngineKind::Skyfleet,
        EngineKind::Forever,
    ];

    pub fn name(self) -> &'static str {
        dispatch!(self, E => E::NAME)
    }

    pub fn title(self) -> &'static str {
        dispatch!(self, E => E::TITLE)
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EngineKind {
    type Err = GameError;
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        EngineKind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| GameError::UnknownEngine(name.to_owned()))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error(
        "there is no engine called {0:?}; the engines are: barmy, salvo, ironclad, skyfleet, forever"
    )]
    UnknownEngine(String),
    #[error("the {what} is not valid {engine} JSON: {error}")]
    Json {
        engine: EngineKind,
        what: &'static str,
        error: serde_json::Error,
    },
    #[error("{orders} orders cannot be carried out in a {engine} game")]
    OrdersOfAnotherEngine {
        engine: EngineKind,
        orders: EngineKind,
    },
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Turn(#[from] TurnError),
}

/// Press to publish under a turn's report, in the order it was received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PressItem {
    pub player: PlayerId,
    pub text: String,
}

/// A resolved turn: the new state and the report with its press.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub state: AnyState,
    pub report: Report,
}

fn from_json<T: DeserializeOwned>(
    engine: EngineKind,
    what: &'static str,
    value: &Value,
) -> Result<T, GameError> {
    T::deserialize(value).map_err(|error| GameError::Json {
        engine,
        what,
        error,
    })
}

fn to_json<T: Serialize>(
    engine: EngineKind,
    what: &'static str,
    value: &T,
) -> Result<Value, GameError> {
    serde_json::to_value(value).map_err(|error| GameError::Json {
        engine,
        what,
        error,
    })
}

impl EngineKind {
    /// The engine's standard settings, as a starting point for the GM's form.
    pub fn default_setup(self) -> AnySetup {
        dispatch!(self, E => E::wrap_setup(<E as Engine>::Setup::default()))
    }

    /// Reads settings (the GM's form, a file, a stored row): the one place a setup's JSON
    /// becomes a typed setup. Settings left out take their defaults, so what is stored is
    /// complete; a setting the engine does not know, or of the wrong kind, is an error.
    pub fn parse_setup(self, setup: &Value) -> Result<AnySetup, GameError> {
        dispatch!(self, E => Ok(E::wrap_setup(from_json(self, "setup", setup)?)))
    }

    /// The settings the GM's form shows for this engine, each with its limits, default, help
    /// and rule (`Engine::settings`).
    pub fn settings(self) -> Vec<engine::settings::Setting> {
        dispatch!(self, E => E::settings())
    }

    /// The engine's default limit of turns missed in a row before a seat wants a standby
    /// (`Engine::missed_turns_limit`); `None` where seats are never handed over.
    pub fn missed_turns_limit(self) -> Option<u32> {
        dispatch!(self, E => E::missed_turns_limit())
    }

    /// Reads a stored state: the one place a state's JSON becomes a typed state.
    pub fn parse_state(self, state: &Value) -> Result<AnyState, GameError> {
        dispatch!(self, E => Ok(E::wrap(from_json(self, "state", state)?)))
    }

    /// Reads orders as stored (the JSON [`AnyOrders`] serialise to).
    pub fn parse_stored_orders(self, orders: &Value) -> Result<AnyOrders, GameError> {
        dispatch!(self, E => Ok(E::wrap_orders(from_json(self, "orders", orders)?)))
    }

    /// [`EngineKind::parse_state`] from the JSON's text, without building a `Value` first (a
    /// big game's state is megabytes).
    pub fn parse_state_text(self, state: &str) -> Result<AnyState, GameError> {
        dispatch!(self, E => Ok(E::wrap(serde_json::from_str(state).map_err(|error| GameError::Json {
            engine: self,
            what: "state",
            error,
        })?)))
    }
}

/// A game's settings, typed: what the GM chose, read once ([`EngineKind::parse_setup`]) and
/// carried so. JSON stays the storage and wire form. It may name hidden things (fleets before
/// they are revealed): show only what the engine draws from it.
#[derive(Debug, Clone)]
pub enum AnySetup {
    Barmy(barmy::Setup),
    Salvo(salvo::Setup),
    Ironclad(ironclad::Setup),
    Skyfleet(skyfleet::Setup),
    Forever(forever::Setup),
}

/// Runs `$body` with `$setup` bound to the typed setup inside `$any` and `$engine` to its
/// engine type.
macro_rules! with_setup {
    ($any:expr, $engine:ident, $setup:ident => $body:expr) => {
        match $any {
            AnySetup::Barmy($setup) => {
                #[allow(dead_code, reason = "an arm may need only the setup")]
                type $engine = barmy::Barmy;
                $body
            }
            AnySetup::Salvo($setup) => {
                #[allow(dead_code, reason = "an arm may need only the setup")]
                type $engine = salvo::Salvo;
                $body
            }
            AnySetup::Ironclad($setup) => {
                #[allow(dead_code, reason = "an arm may need only the setup")]
                type $engine = ironclad::Ironclad;
                $body
            }
            AnySetup::Skyfleet($setup) => {
                #[allow(dead_code, reason = "an arm may need only the setup")]
                type $engine = skyfleet::Skyfleet;
                $body
            }
            AnySetup::Forever($setup) => {
                #[allow(dead_code, reason = "an arm may need only the setup")]
                type $engine = forever::Forever;
                $body
            }
        }
    };
}

/// A setup serialises as its engine's setup: the storage form.
impl Serialize for AnySetup {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        with_setup!(self, E, setup => setup.serialize(serializer))
    }
}

impl AnySetup {
    pub fn kind(&self) -> EngineKind {
        match self {
            AnySetup::Barmy(_) => EngineKind::Barmy,
            AnySetup::Salvo(_) => EngineKind::Salvo,
            AnySetup::Ironclad(_) => EngineKind::Ironclad,
            AnySetup::Skyfleet(_) => EngineKind::Skyfleet,
            AnySetup::Forever(_) => EngineKind::Forever,
        }
    }

    /// The storage form, as a value.
    pub fn to_json(&self) -> Result<Value, GameError> {
        to_json(self.kind(), "setup", self)
    }

    /// The switches this setup chose, in words with their rule IDs (`Engine::rulings`).
    pub fn rulings(&self) -> Vec<engine::Ruling> {
        with_setup!(self, E, setup => E::rulings(setup))
    }

    /// The seats a game of this setup offers (`Engine::seats`).
    pub fn seat_plan(&self) -> engine::SeatPlan {
        with_setup!(self, E, setup => E::seats(setup))
    }

    /// Starts a game with this setup and the player list, with turn 0's dice.
    pub fn new_game(&self, players: &[Player], dice: &mut TurnDice) -> Result<AnyState, GameError> {
        with_setup!(self, E, setup => Ok(E::wrap(E::new_game(setup, players, dice)?)))
    }

    /// Starts a game with the GM's roster: each player in the seat given, checked against the
    /// engine's seat plan first (`Engine::new_game_seated`).
    pub fn new_game_seated(
        &self,
        roster: &[engine::Seated],
        dice: &mut TurnDice,
    ) -> Result<AnyState, GameError> {
        with_setup!(self, E, setup => {
            let seats = E::seats(setup).seat(roster)?;
            Ok(E::wrap(E::new_game_seated(setup, &seats, dice)?))
        })
    }
}

/// A game's state, typed: what the service holds and passes by reference once it has read a
/// stored state ([`EngineKind::parse_state`]). JSON stays the storage and wire form.
#[derive(Debug, Clone)]
pub enum AnyState {
    Barmy(barmy::State),
    Salvo(salvo::State),
    Ironclad(ironclad::State),
    Skyfleet(skyfleet::State),
    Forever(forever::State),
}

/// An engine whose typed state [`AnyState`] and orders [`AnyOrders`] hold.
trait Wrap: Engine {
    fn wrap_setup(setup: Self::Setup) -> AnySetup;
    fn wrap(state: Self::State) -> AnyState;
    fn wrap_orders(orders: Self::Orders) -> AnyOrders;
    fn into_orders(orders: AnyOrders) -> Option<Self::Orders>;
}

impl Wrap for barmy::Barmy {
    fn wrap_setup(setup: Self::Setup) -> AnySetup {
        AnySetup::Barmy(setup)
    }
    fn wrap(state: Self::State) -> AnyState {
        AnyState::Barmy(state)
    }
    fn wrap_orders(orders: Self::Orders) -> AnyOrders {
        AnyOrders::Barmy(orders)
    }
    fn into_orders(orders: AnyOrders) -> Option<Self::Orders> {
        match orders {
            AnyOrders::Barmy(orders) => Some(orders),
            _ => None,
        }
    }
}
impl Wrap for salvo::Salvo {
    fn wrap_setup(setup: Self::Setup) -> AnySetup {
        AnySetup::Salvo(setup)
    }
    fn wrap(state: Self::State) -> AnyState {
        AnyState::Salvo(state)
    }
    fn wrap_orders(orders: Self::Orders) -> AnyOrders {
        AnyOrders::Salvo(orders)
    }
    fn into_orders(orders: AnyOrders) -> Option<Self::Orders> {
        match orders {
            AnyOrders::Salvo(orders) => Some(orders),
            _ => None,
        }
    }
}
impl Wrap for ironclad::Ironclad {
    fn wrap_setup(setup: Self::Setup) -> AnySetup {
        AnySetup::Ironclad(setup)
    }
    fn wrap(state: Self::State) -> AnyState {
        AnyState::Ironclad(state)
    }
    fn wrap_orders(orders: Self::Orders) -> AnyOrders {
        AnyOrders::Ironclad(orders)
    }
    fn into_orders(orders: AnyOrders) -> Option<Self::Orders> {
        match orders {
            AnyOrders::Ironclad(orders) => Some(orders),
            _ => None,
        }
    }
}
impl Wrap for skyfleet::Skyfleet {
    fn wrap_setup(setup: Self::Setup) -> AnySetup {
        AnySetup::Skyfleet(setup)
    }
    fn wrap(state: Self::State) -> AnyState {
        AnyState::Skyfleet(state)
    }
    fn wrap_orders(orders: Self::Orders) -> AnyOrders {
        AnyOrders::Skyfleet(orders)
    }
    fn into_orders(orders: AnyOrders) -> Option<Self::Orders> {
        match orders {
            AnyOrders::Skyfleet(orders) => Some(orders),
            _ => None,
        }
    }
}
impl Wrap for forever::Forever {
    fn wrap_setup(setup: Self::Setup) -> AnySetup {
        AnySetup::Forever(setup)
    }
    fn wrap(state: Self::State) -> AnyState {
        AnyState::Forever(state)
    }
    fn wrap_orders(orders: Self::Orders) -> AnyOrders {
        AnyOrders::Forever(orders)
    }
    fn into_orders(orders: AnyOrders) -> Option<Self::Orders> {
        match orders {
            AnyOrders::Forever(orders) => Some(orders),
            _ => None,
        }
    }
}

/// One player's orders for a turn, typed: what the engine read from their text, or read back
/// from storage ([`EngineKind::parse_stored_orders`]). JSON is their storage form.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyOrders {
    Barmy(barmy::Orders),
    Salvo(salvo::Orders),
    Ironclad(ironclad::Orders),
    Skyfleet(skyfleet::Orders),
    Forever(forever::Orders),
}

impl AnyOrders {
    pub fn kind(&self) -> EngineKind {
        match self {
            AnyOrders::Barmy(_) => EngineKind::Barmy,
            AnyOrders::Salvo(_) => EngineKind::Salvo,
            AnyOrders::Ironclad(_) => EngineKind::Ironclad,
            AnyOrders::Skyfleet(_) => EngineKind::Skyfleet,
            AnyOrders::Forever(_) => EngineKind::Forever,
        }
    }

    /// The storage form, as a value.
    pub fn to_json(&self) -> Result<Value, GameError> {
        to_json(self.kind(), "orders", self)
    }
}

/// Orders serialise as their engine's orders: the storage form.
impl Serialize for AnyOrders {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AnyOrders::Barmy(orders) => orders.serialize(serializer),
            AnyOrders::Salvo(orders) => orders.serialize(serializer),
            AnyOrders::Ironclad(orders) => orders.serialize(serializer),
            AnyOrders::Skyfleet(orders) => orders.serialize(serializer),
            AnyOrders::Forever(orders) => orders.serialize(serializer),
        }
    }
}

/// Runs `$body` with `$state` bound to the typed state inside `$any` and `$engine` to its
/// engine type.
macro_rules! with_state {
    ($any:expr, $engine:ident, $state:ident => $body:expr) => {
        match $any {
            AnyState::Barmy($state) => {
                #[allow(dead_code, reason = "an arm may need only the state")]
                type $engine = barmy::Barmy;
                $body
            }
            AnyState::Salvo($state) => {
                #[allow(dead_code, reason = "an arm may need only the state")]
                type $engine = salvo::Salvo;
                $body
            }
            AnyState::Ironclad($state) => {
                #[allow(dead_code, reason = "an arm may need only the state")]
                type $engine = ironclad::Ironclad;
                $body
            }
            AnyState::Skyfleet($state) => {
                #[allow(dead_code, reason = "an arm may need only the state")]
                type $engine = skyfleet::Skyfleet;
                $body
            }
            AnyState::Forever($state) => {
                #[allow(dead_code, reason = "an arm may need only the state")]
                type $engine = forever::Forever;
                $body
            }
        }
    };
}

/// A state serialises as its engine's state: the storage form, written without an intermediate
/// value.
impl Serialize for AnyState {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        with_state!(self, E, state => state.serialize(serializer))
    }
}

impl AnyState {
    pub fn kind(&self) -> EngineKind {
        match self {
            AnyState::Barmy(_) => EngineKind::Barmy,
            AnyState::Salvo(_) => EngineKind::Salvo,
            AnyState::Ironclad(_) => EngineKind::Ironclad,
            AnyState::Skyfleet(_) => EngineKind::Skyfleet,
            AnyState::Forever(_) => EngineKind::Forever,
        }
    }

    /// The storage form, as a value.
    pub fn to_json(&self) -> Result<Value, GameError> {
        to_json(self.kind(), "state", self)
    }

    /// Reads one player's order text against this state. Costs what the text costs, not what
    /// the game's size does: the engines look up only the player and the board.
    pub fn parse_orders(&self, player: PlayerId, text: &str) -> ParsedOrders<AnyOrders> {
        with_state!(self, E, state => {
            let parsed = E::parse_orders(state, player, text);
            ParsedOrders {
                orders: E::wrap_orders(parsed.orders),
                understood: parsed.understood,
                press: parsed.press,
                errors: parsed.errors,
                warnings: parsed.warnings,
                chat: parsed.chat,
                orders_read: parsed.orders_read,
            }
        })
    }

    /// The examples `text`'s refusals offer that are refused in their turn when written in the
    /// refused line's place (issue 28: every correction works; see [`engine::corrections`]).
    pub fn broken_corrections(
        &self,
        player: PlayerId,
        text: &str,
    ) -> Vec<engine::corrections::BrokenCorrection> {
        with_state!(self, E, state => {
            engine::corrections::failures::<E>(state, player, text)
        })
    }

    /// Resolves the state's current turn, then puts the press under the report in roster
    /// order (each player's press in the order received) (BARMY-21).
    pub fn resolve(
        &self,
        input: TurnInput<AnyOrders>,
        press: &[PressItem],
        dice: &mut TurnDice,
    ) -> Result<Resolved, GameError> {
        let kind = self.kind();
        with_state!(self, E, state => {
            let mut orders = std::collections::BTreeMap::new();
            for (player, any) in input.orders {
                let orders_kind = any.kind();
                let typed = E::into_orders(any).ok_or(GameError::OrdersOfAnotherEngine {
                    engine: kind,
                    orders: orders_kind,
                })?;
                orders.insert(player, typed);
            }
            // A seat that changed hands takes its new name before the turn resolves.
            let renamed;
            let state = if input.renames.is_empty() {
                state
            } else {
                let mut copy = state.clone();
                for player in &input.renames {
                    E::rename(&mut copy, player);
                }
                renamed = copy;
                &renamed
            };
            let typed = TurnInput {
                orders,
                joining: input.joining,
                leaving: input.leaving,
                excused: input.excused,
                renames: input.renames,
            };
            let resolution = E::resolve(state, &typed, dice)?;
            let mut report = resolution.report;
            report.press = press_in_roster_order(&E::roster(state), press);
            Ok(Resolved { state: E::wrap(resolution.state), report })
        })
    }

    /// Whether these orders answer the state's turn (`Engine::answers_turn`); orders of
    /// another engine answer nothing.
    /// Whether this reading answers the state's turn (`Engine::answers`): it becomes the
    /// player's current set only then.
    pub fn answers(&self, parsed: &ParsedOrders<AnyOrders>) -> bool {
        with_state!(self, E, state => {
            E::into_orders(parsed.orders.clone()).is_some_and(|orders| {
                let typed = ParsedOrders {
                    orders,
                    understood: Vec::new(),
                    press: parsed.press.clone(),
                    errors: Vec::new(),
                    warnings: Vec::new(),
                    chat: Vec::new(),
                    orders_read: parsed.orders_read,
                };
                E::answers(state, &typed)
            })
        })
    }

    pub fn answers_turn(&self, orders: &AnyOrders) -> bool {
        with_state!(self, E, state => {
            E::into_orders(orders.clone()).is_some_and(|orders| E::answers_turn(state, &orders))
        })
    }

    pub fn view(&self, viewer: Viewer) -> View {
        with_state!(self, E, state => E::view(state, viewer))
    }

    /// Each player's private lines (`Engine::private_lines`), for the mail each player gets
    /// after a turn.
    pub fn private_lines(&self, players: &[PlayerId]) -> Vec<Vec<String>> {
        with_state!(self, E, state => players.iter().map(|player| E::private_lines(state, *player)).collect())
    }

    pub fn outcome(&self) -> Outcome {
        with_state!(self, E, state => E::outcome(state))
    }

    /// The number of the turn that resolves next.
    pub fn turn(&self) -> u32 {
        with_state!(self, E, state => E::turn(state))
    }

    /// Whether the player still has something to order (`Engine::expects_orders`).
    pub fn expects_orders(&self, player: PlayerId) -> bool {
        with_state!(self, E, state => E::expects_orders(state, player))
    }

    pub fn roster(&self) -> Vec<Player> {
        with_state!(self, E, state => E::roster(state))
    }

    /// Gives the seat `player.id` the name `player.name` (`Engine::rename`).
    pub fn rename(&mut self, player: &Player) {
        with_state!(self, E, state => E::rename(state, player));
    }

    pub fn order_help(&self) -> String {
        with_state!(self, E, state => E::order_help(state))
    }
}

fn press_in_roster_order(roster: &[Player], press: &[PressItem]) -> Vec<engine::Press> {
    let at: std::collections::HashMap<PlayerId, (usize, &str)> = roster
        .iter()
        .enumerate()
        .map(|(position, player)| (player.id, (position, player.name.as_str())))
        .collect();
    let mut items: Vec<(usize, usize, engine::Press)> = press
        .iter()
        .enumerate()
        .filter_map(|(received, item)| {
            let (position, name) = at.get(&item.player)?;
            let text = engine::report::one_line(&item.text);
            (!text.is_empty()).then(|| {
                let name = (*name).to_owned();
                (*position, received, engine::Press { name, text })
            })
        })
        .collect();
    items.sort_by_key(|(at, received, _)| (*at, *received));
    items.into_iter().map(|(_, _, press)| press).collect()
}
