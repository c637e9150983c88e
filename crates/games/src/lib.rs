//! Every rule engine behind one enum, with game state, setup and orders as JSON. The service
//! stores and passes these values and never needs to know an engine's insides.

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

/// A resolved turn: the new state (JSON) and the report with its press.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resolved {
    pub state: Value,
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
    pub fn default_setup(self) -> Value {
        dispatch!(self, E => serde_json::to_value(<E as Engine>::Setup::default()).unwrap_or(Value::Null))
    }

    /// Checks the GM's settings and fills in defaults, so what is stored is complete.
    pub fn parse_setup(self, setup: &Value) -> Result<Value, GameError> {
        dispatch!(self, E => {
            let setup: <E as Engine>::Setup = from_json(self, "setup", setup)?;
            to_json(self, "setup", &setup)
        })
    }

    pub fn new_game(
        self,
        setup: &Value,
        players: &[Player],
        dice: &mut TurnDice,
    ) -> Result<Value, GameError> {
        dispatch!(self, E => {
            let setup: <E as Engine>::Setup = from_json(self, "setup", setup)?;
            let state = E::new_game(&setup, players, dice)?;
            to_json(self, "state", &state)
        })
    }

    pub fn parse_orders(
        self,
        state: &Value,
        player: PlayerId,
        text: &str,
    ) -> Result<ParsedOrders<Value>, GameError> {
        dispatch!(self, E => {
            let state: <E as Engine>::State = from_json(self, "state", state)?;
            let parsed = E::parse_orders(&state, player, text);
            Ok(ParsedOrders {
                orders: to_json(self, "orders", &parsed.orders)?,
                understood: parsed.understood,
                press: parsed.press,
                errors: parsed.errors,
                warnings: parsed.warnings,
            })
        })
    }

    /// Resolves the state's current turn, then puts the press under the report in roster
    /// order (each player's press in the order received) (BARMY-21).
    pub fn resolve(
        self,
        state: &Value,
        input: &TurnInput<Value>,
        press: &[PressItem],
        dice: &mut TurnDice,
    ) -> Result<Resolved, GameError> {
        dispatch!(self, E => {
            let state: <E as Engine>::State = from_json(self, "state", state)?;
            let mut orders = std::collections::BTreeMap::new();
            for (player, value) in &input.orders {
                orders.insert(*player, from_json(self, "orders", value)?);
            }
            let typed = TurnInput { orders, joining: input.joining.clone(), leaving: input.leaving.clone() };
            let roster = E::roster(&state);
            let resolution = E::resolve(&state, &typed, dice)?;
            let mut report = resolution.report;
            report.press = press_in_roster_order(&roster, press);
            Ok(Resolved { state: to_json(self, "state", &resolution.state)?, report })
        })
    }

    pub fn view(self, state: &Value, viewer: Viewer) -> Result<View, GameError> {
        dispatch!(self, E => Ok(E::view(&from_json(self, "state", state)?, viewer)))
    }

    /// The views of several viewers, reading the state once (a turn mails every player their
    /// own view, and a state is as large as its game).
    pub fn views(self, state: &Value, viewers: &[Viewer]) -> Result<Vec<View>, GameError> {
        dispatch!(self, E => {
            let state: <E as Engine>::State = from_json(self, "state", state)?;
            Ok(viewers.iter().map(|viewer| E::view(&state, *viewer)).collect())
        })
    }

    /// Each player's private lines (`Engine::private_lines`), reading the state once.
    pub fn private_lines(
        self,
        state: &Value,
        players: &[PlayerId],
    ) -> Result<Vec<Vec<String>>, GameError> {
        dispatch!(self, E => {
            let state: <E as Engine>::State = from_json(self, "state", state)?;
            Ok(players.iter().map(|player| E::private_lines(&state, *player)).collect())
        })
    }

    pub fn outcome(self, state: &Value) -> Result<Outcome, GameError> {
        dispatch!(self, E => Ok(E::outcome(&from_json(self, "state", state)?)))
    }

    pub fn turn(self, state: &Value) -> Result<u32, GameError> {
        dispatch!(self, E => Ok(E::turn(&from_json(self, "state", state)?)))
    }

    pub fn roster(self, state: &Value) -> Result<Vec<Player>, GameError> {
        dispatch!(self, E => Ok(E::roster(&from_json(self, "state", state)?)))
    }

    pub fn order_help(self, state: &Value) -> Result<String, GameError> {
        dispatch!(self, E => Ok(E::order_help(&from_json(self, "state", state)?)))
    }
}

fn press_in_roster_order(roster: &[Player], press: &[PressItem]) -> Vec<engine::Press> {
    let mut items: Vec<(usize, usize, engine::Press)> = press
        .iter()
        .enumerate()
        .filter_map(|(received, item)| {
            let at = roster.iter().position(|p| p.id == item.player)?;
            let text = engine::report::one_line(&item.text);
            let name = roster.get(at)?.name.clone();
            (!text.is_empty()).then_some((at, received, engine::Press { name, text }))
        })
        .collect();
    items.sort_by_key(|(at, received, _)| (*at, *received));
    items.into_iter().map(|(_, _, press)| press).collect()
}
