//! `gm adjudicate`: a game, a turn's orders and its seeds as JSON in; the new state and the
//! rendered report as JSON out. GMs use it to try rulings offline; `gm verify`, the tests and
//! the benchmarks use it to replay turns.

use std::collections::BTreeMap;

use engine::{
    GameSecret, LineIssue, Outcome, Player, PlayerId, Report, TurnDice, TurnInput, TurnSeed,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::{AnyState, EngineKind, GameError, PressItem};

/// Start a game: `{"engine", "setup", "players", "secret"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGameRequest {
    pub engine: EngineKind,
    #[serde(default)]
    pub setup: Option<Value>,
    pub players: Vec<Player>,
    /// The game's secret, 64 hex digits. Turn 0's seeds (the setup's dice) derive from it.
    pub secret: String,
}

#[derive(Debug, Serialize)]
pub struct NewGameResponse {
    pub engine: EngineKind,
    pub setup: Value,
    pub state: AnyState,
    /// The public commitments to the next turn's seeds.
    pub next_turn: u32,
    pub commitment: String,
    pub sealed_commitment: String,
}

/// Resolve one turn: the game, each player's order text, press, roster changes, and either the
/// game's secret or the turn's revealed seeds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolveRequest {
    pub engine: EngineKind,
    /// Read straight into the engine's typed state: a big game's state is megabytes.
    pub state: Box<RawValue>,
    /// Order text per player id; a player missing here sent nothing (NMR).
    #[serde(default)]
    pub orders: BTreeMap<PlayerId, String>,
    /// Press besides what the order texts carry, in the order received.
    #[serde(default)]
    pub press: Vec<PressItem>,
    #[serde(default)]
    pub joining: Vec<Player>,
    #[serde(default)]
    pub leaving: Vec<PlayerId>,
    /// Seats that changed hands with this turn: each player id with its new holder's name.
    #[serde(default)]
    pub renames: Vec<Player>,
    /// The game's secret (the GM's view): the turn's seeds are derived from it. Or else:
    #[serde(default)]
    pub secret: Option<String>,
    /// The turn's revealed seeds (anyone's view, to check a published turn).
    #[serde(default)]
    pub seed: Option<TurnSeed>,
    #[serde(default)]
    pub sealed_seed: Option<TurnSeed>,
}

#[derive(Debug, Serialize)]
pub struct ResolveResponse {
    pub engine: EngineKind,
    pub turn: u32,
    pub seed: TurnSeed,
    pub sealed_seed: TurnSeed,
    pub state: AnyState,
    pub report: Report,
    pub text: String,
    pub markdown: String,
    pub html: String,
    /// How each player's order text was read.
    pub orders: BTreeMap<PlayerId, OrderReading>,
    pub outcome: Outcome,
}

#[derive(Debug, Serialize)]
pub struct OrderReading {
    pub understood: Vec<String>,
    pub errors: Vec<LineIssue>,
    pub warnings: Vec<LineIssue>,
    /// Lines set aside as not orders (closings, names, chat: `engine::chat`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<LineIssue>,
}

#[derive(Debug, thiserror::Error)]
pub enum AdjudicateError {
    #[error("the input is not valid JSON for this command: {0}")]
    Input(serde_json::Error),
    #[error("the secret must be 64 hexadecimal digits")]
    Secret,
    #[error("give either \"secret\" or both \"seed\" and \"sealed_seed\"")]
    Dice,
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("could not write the answer: {0}")]
    Output(serde_json::Error),
}

pub fn parse_secret(text: &str) -> Result<GameSecret, AdjudicateError> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(text.trim(), &mut bytes).map_err(|_| AdjudicateError::Secret)?;
    Ok(GameSecret::from_bytes(bytes))
}

pub fn new_game(request: NewGameRequest) -> Result<NewGameResponse, AdjudicateError> {
    let secret = parse_secret(&request.secret)?;
    let engine = request.engine;
    let setup = match &request.setup {
        Some(setup) => engine.parse_setup(setup)?,
        None => engine.default_setup(),
    };
    let state = setup.new_game(&request.players, &mut secret.turn_dice(0))?;
    let next_turn = state.turn();
    Ok(NewGameResponse {
        engine,
        setup: setup.to_json()?,
        state,
        next_turn,
        commitment: secret.turn_seed(next_turn).commitment(),
        sealed_commitment: secret.sealed_seed(next_turn).commitment(),
    })
}

pub fn resolve(request: ResolveRequest) -> Result<ResolveResponse, AdjudicateError> {
    let engine = request.engine;
    // Read once: every player's orders are checked against this one typed state.
    let state = engine.parse_state_text(request.state.get())?;
    let turn = state.turn();
    let (seed, sealed_seed) = match (&request.secret, request.seed, request.sealed_seed) {
        (Some(secret), None, None) => {
            let secret = parse_secret(secret)?;
            (secret.turn_seed(turn), secret.sealed_seed(turn))
        }
        (None, Some(seed), Some(sealed_seed)) => (seed, sealed_seed),
        _ => return Err(AdjudicateError::Dice),
    };
    let mut input = TurnInput {
        orders: BTreeMap::new(),
        joining: request.joining,
        leaving: request.leaving,
        excused: Vec::new(),
        renames: request.renames,
    };
    let mut press: Vec<PressItem> = Vec::new();
    let mut readings = BTreeMap::new();
    for (player, text) in &request.orders {
        let parsed = state.parse_orders(*player, text);
        press.extend(parsed.press.iter().map(|text| PressItem {
            player: *player,
            text: text.clone(),
        }));
        input.orders.insert(*player, parsed.orders);
        readings.insert(
            *player,
            OrderReading {
                understood: parsed.understood,
                errors: parsed.errors,
                warnings: parsed.warnings,
                chat: parsed.chat,
            },
        );
    }
    press.extend(request.press);
    let resolved = state.resolve(
        input,
        &press,
        &mut TurnDice::from_seeds(&seed, &sealed_seed),
    )?;
    let outcome = resolved.state.outcome();
    Ok(ResolveResponse {
        engine,
        turn,
        seed,
        sealed_seed,
        text: resolved.report.to_text(),
        markdown: resolved.report.to_markdown(),
        html: resolved.report.to_html(),
        state: resolved.state,
        report: resolved.report,
        orders: readings,
        outcome,
    })
}

/// `gm adjudicate new-game`: JSON text in, pretty JSON text out.
pub fn new_game_json(input: &str) -> Result<String, AdjudicateError> {
    let request = serde_json::from_str(input).map_err(AdjudicateError::Input)?;
    serde_json::to_string_pretty(&new_game(request)?).map_err(AdjudicateError::Output)
}

/// `gm adjudicate`: JSON text in, pretty JSON text out.
pub fn resolve_json(input: &str) -> Result<String, AdjudicateError> {
    let request = serde_json::from_str(input).map_err(AdjudicateError::Input)?;
    serde_json::to_string_pretty(&resolve(request)?).map_err(AdjudicateError::Output)
}
