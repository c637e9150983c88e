//! A game's portable record (docs/record.md) and the one verifier of it.
//!
//! The record is a JSON file (`format` = [`FORMAT`], `version` = [`VERSION`]) that `gm game ID
//! export` writes and the public page of a game offers for download. It holds what any reader
//! may see — each published report, each turn's commitments and revealed seeds — and, once the
//! game is finished, each turn's starting state, orders, press and roster changes, so that
//! anyone can re-run every turn with the engine and compare. [`verify`] does that with no
//! database and no network; `gm verify --record` and the `admiralty-verify` binary both call it.

use std::collections::BTreeMap;

use engine::{Player, PlayerId, TurnDice, TurnInput, TurnSeed};
use games::{AnyState, EngineKind, PressItem};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// The `format` field of every record.
pub const FORMAT: &str = "admiralty-game-record";
/// The version of the schema this crate writes and reads (docs/record.md).
pub const VERSION: u32 = 1;

/// A game's record: the file's top level.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    pub format: String,
    pub version: u32,
    pub game: GameInfo,
    /// Every published turn, in order.
    pub turns: Vec<TurnRecord>,
    /// The open turn's commitments, while the game runs (public before the turn resolves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_turn: Option<OpenTurn>,
    /// The state after the last turn: only in the record of a finished game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_state: Option<Box<RawValue>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameInfo {
    pub id: i64,
    pub name: String,
    /// The slug of the zine that runs it.
    pub zine: String,
    pub engine: EngineKind,
    /// Whether the game is over: only then does the record carry states and orders.
    pub finished: bool,
}

/// One published turn.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnRecord {
    pub number: u32,
    /// SHA-256 of the open seed, published before the turn resolved (hex).
    pub seed_commitment: String,
    /// The open seed, revealed with the report (hex).
    pub revealed_seed: String,
    /// SHA-256 of the sealed seed (hidden dice), published before the turn resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_commitment: Option<String>,
    /// The sealed seed: revealed when the game ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed_sealed_seed: Option<String>,
    /// The report exactly as published (its text form).
    pub report: String,
    /// What the turn resolved from: only in the record of a finished game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replay>,
}

/// Everything besides the seeds that the engine read to resolve a turn.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replay {
    /// The game's state as the turn opened (the engine's JSON).
    pub state_before: Box<RawValue>,
    /// Each player's orders as the engine read them (stored JSON), by engine player id; a
    /// player missing sent none.
    pub orders: BTreeMap<PlayerId, Value>,
    #[serde(default)]
    pub joining: Vec<Player>,
    #[serde(default)]
    pub leaving: Vec<PlayerId>,
    #[serde(default)]
    pub excused: Vec<PlayerId>,
    /// Seats that changed hands with this turn, under their new holder's name.
    #[serde(default)]
    pub renames: Vec<Player>,
    /// Press published under the report, in the order received.
    #[serde(default)]
    pub press: Vec<PressItem>,
    /// How the report names seats that changed hands by this turn ("New (replacing Old)").
    #[serde(default)]
    pub report_names: Vec<ReportName>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportName {
    pub player: PlayerId,
    pub name: String,
    pub replacing: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenTurn {
    pub number: u32,
    pub seed_commitment: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_commitment: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("not a game record: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a game record: the format is {0:?}, not {FORMAT:?}")]
    Format(String),
    #[error("this is version {0} of the record's format; this verifier reads version {VERSION}")]
    Version(u32),
}

impl GameRecord {
    /// Reads a record, refusing another format or version.
    pub fn parse(text: &str) -> Result<Self, RecordError> {
        // The two identifying fields first, so a newer record says so rather than failing on
        // a field this version does not know.
        #[derive(Deserialize)]
        struct Head {
            format: String,
            version: u32,
        }
        let head: Head = serde_json::from_str(text)?;
        if head.format != FORMAT {
            return Err(RecordError::Format(head.format));
        }
        if head.version != VERSION {
            return Err(RecordError::Version(head.version));
        }
        Ok(serde_json::from_str(text)?)
    }

    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

/// What the verifier found wrong with one turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnFault {
    #[error("the revealed {which} seed is not 64 hexadecimal digits")]
    SeedNotHex { which: &'static str },
    #[error(
        "the revealed {which} seed does not match its commitment: its SHA-256 is {actual}, the commitment published before the turn is {committed}"
    )]
    Commitment {
        which: &'static str,
        actual: String,
        committed: String,
    },
    #[error("the sealed seed is not revealed, though the record says the game is finished")]
    SealedNotRevealed,
    #[error("the record of a finished game carries no states and orders for this turn")]
    NoReplay,
    #[error("the turn's number is {found}, but the state it starts from is at turn {expected}")]
    Number { expected: u32, found: u32 },
    #[error("the engine cannot read this turn's input: {0}")]
    Input(String),
    #[error("the engine refused the turn: {0}")]
    Engine(String),
    #[error(
        "the replayed report differs from the published one at line {line}:\n  published: {published}\n  replayed:  {replayed}"
    )]
    Report {
        line: usize,
        published: String,
        replayed: String,
    },
    #[error("the replayed state differs from {next}")]
    State { next: String },
}

/// One turn's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnVerdict {
    pub turn: u32,
    /// Whether the engine re-ran the turn (only a finished game's record allows it); `false`
    /// means only the open seed was checked against its commitment.
    pub replayed: bool,
    pub fault: Option<TurnFault>,
}

/// The verdict on a whole record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub game: GameInfo,
    pub turns: Vec<TurnVerdict>,
}

impl Verdict {
    pub fn holds(&self) -> bool {
        self.turns.iter().all(|t| t.fault.is_none())
    }

    /// The first turn that failed.
    pub fn first_fault(&self) -> Option<&TurnVerdict> {
        self.turns.iter().find(|t| t.fault.is_some())
    }
}

/// Checks every turn of a record: each revealed seed against its commitment, and for a finished
/// game each turn re-run by the engine from its state, orders and seeds, giving the published
/// report byte for byte and the state the next turn starts from (the final state after the
/// last). Stops at the first turn that fails: later turns rest on it.
pub fn verify(record: &GameRecord) -> Verdict {
    let mut turns = Vec::new();
    for (index, turn) in record.turns.iter().enumerate() {
        let next_state = match record.turns.get(index + 1) {
            Some(next) => next.replay.as_ref().map(|r| {
                (
                    format!("the state turn {} starts from", next.number),
                    &*r.state_before,
                )
            }),
            None => record
                .final_state
                .as_ref()
                .map(|s| ("the game's final state".to_owned(), &**s)),
        };
        let checked = check_turn(record.game.engine, record.game.finished, turn, next_state);
        let failed = checked.is_err();
        turns.push(TurnVerdict {
            turn: turn.number,
            replayed: matches!(checked, Ok(true)),
            fault: checked.err(),
        });
        if failed {
            break;
        }
    }
    Verdict {
        game: record.game.clone(),
        turns,
    }
}

fn seed(which: &'static str, hex: &str, committed: &str) -> Result<TurnSeed, TurnFault> {
    let seed = TurnSeed::parse_hex(hex).map_err(|_| TurnFault::SeedNotHex { which })?;
    if !seed.matches(committed) {
        return Err(TurnFault::Commitment {
            which,
            actual: seed.commitment(),
            committed: committed.to_owned(),
        });
    }
    Ok(seed)
}

/// `Ok(true)` when the turn was re-run and matched, `Ok(false)` when only its open seed could
/// be checked (a running game).
fn check_turn(
    engine: EngineKind,
    finished: bool,
    turn: &TurnRecord,
    next_state: Option<(String, &RawValue)>,
) -> Result<bool, TurnFault> {
    let open = seed("open", &turn.revealed_seed, &turn.seed_commitment)?;
    if !finished {
        return Ok(false);
    }
    let sealed = match (&turn.revealed_sealed_seed, &turn.sealed_commitment) {
        (Some(hex), Some(committed)) => seed("sealed", hex, committed)?,
        // Turns from before sealed dice existed were resolved with the open seed only; the
        // engines draw no sealed dice then, so any seed does.
        (Some(hex), None) => {
            TurnSeed::parse_hex(hex).map_err(|_| TurnFault::SeedNotHex { which: "sealed" })?
        }
        (None, _) => return Err(TurnFault::SealedNotRevealed),
    };
    let replay = turn.replay.as_ref().ok_or(TurnFault::NoReplay)?;
    let state = engine
        .parse_state_text(replay.state_before.get())
        .map_err(|e| TurnFault::Input(e.to_string()))?;
    if state.turn() != turn.number {
        return Err(TurnFault::Number {
            expected: state.turn(),
            found: turn.number,
        });
    }
    let input = turn_input(engine, replay)?;
    let roster = state.roster();
    let mut resolved = state
        .resolve(
            input,
            &replay.press,
            &mut TurnDice::from_seeds(&open, &sealed),
        )
        .map_err(|e| TurnFault::Engine(e.to_string()))?;
    let names: Vec<(i64, String, String)> = replay
        .report_names
        .iter()
        .filter_map(|n| {
            let id = i64::try_from(n.player.0).ok()?;
            Some((id, n.name.clone(), n.replacing.clone()))
        })
        .collect();
    games::renames::rename_rows(
        &mut resolved.report,
        &roster,
        &resolved.state.roster(),
        &names,
    );
    compare_reports(&turn.report, &resolved.report.to_text())?;
    if let Some((next, expected)) = next_state {
        compare_states(&resolved.state, expected, next)?;
    }
    Ok(true)
}

fn turn_input(
    engine: EngineKind,
    replay: &Replay,
) -> Result<TurnInput<games::AnyOrders>, TurnFault> {
    let mut orders = BTreeMap::new();
    for (player, stored) in &replay.orders {
        let typed = engine
            .parse_stored_orders(stored)
            .map_err(|e| TurnFault::Input(format!("player {}'s orders: {e}", player.0)))?;
        orders.insert(*player, typed);
    }
    Ok(TurnInput {
        orders,
        joining: replay.joining.clone(),
        leaving: replay.leaving.clone(),
        excused: replay.excused.clone(),
        renames: replay.renames.clone(),
    })
}

fn compare_reports(published: &str, replayed: &str) -> Result<(), TurnFault> {
    if published == replayed {
        return Ok(());
    }
    let mut theirs = published.split('\n');
    let mut ours = replayed.split('\n');
    let mut line = 1;
    loop {
        match (theirs.next(), ours.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                let show =
                    |l: Option<&str>| l.map_or("(no more lines)".to_owned(), |l| format!("{l:?}"));
                return Err(TurnFault::Report {
                    line,
                    published: show(a),
                    replayed: show(b),
                });
            }
        }
    }
}

/// The same JSON value: key order and spacing of the stored text do not matter.
fn compare_states(replayed: &AnyState, expected: &RawValue, next: String) -> Result<(), TurnFault> {
    let ours = replayed
        .to_json()
        .map_err(|e| TurnFault::Engine(e.to_string()))?;
    let theirs: Value =
        serde_json::from_str(expected.get()).map_err(|e| TurnFault::Input(e.to_string()))?;
    if ours == theirs {
        Ok(())
    } else {
        Err(TurnFault::State { next })
    }
}

/// The verdict in words, one line per turn and a last line for the whole game: what
/// `admiralty-verify` and `gm verify --record` print.
pub fn describe(verdict: &Verdict) -> String {
    use std::fmt::Write;
    let game = &verdict.game;
    let mut out = format!(
        "game {} \"{}\" ({}, zine {}): {}\n",
        game.id,
        game.name,
        game.engine,
        game.zine,
        if game.finished {
            "finished"
        } else {
            "still running"
        }
    );
    for turn in &verdict.turns {
        let _ = match (&turn.fault, turn.replayed) {
            (Some(fault), _) => writeln!(out, "turn {}: FAILED: {fault}", turn.turn),
            (None, true) => writeln!(
                out,
                "turn {}: ok (seeds match their commitments; report and state replayed byte for byte)",
                turn.turn
            ),
            (None, false) => writeln!(
                out,
                "turn {}: ok (open seed matches its commitment)",
                turn.turn
            ),
        };
    }
    let _ = match verdict.first_fault() {
        Some(failed) => writeln!(out, "NOT VERIFIED: turn {} fails", failed.turn),
        None if verdict.turns.is_empty() => writeln!(out, "no published turn to verify"),
        None if game.finished => writeln!(
            out,
            "verified: all {} turns replay to their published reports",
            verdict.turns.len()
        ),
        None => writeln!(
            out,
            "verified so far: {} seeds match their commitments; the turns can be replayed once the game is finished and its record carries states and orders",
            verdict.turns.len()
        ),
    };
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "tests")]

    use super::*;

    fn running(seed: &str, commitment: &str) -> String {
        serde_json::json!({
            "format": FORMAT,
            "version": VERSION,
            "game": { "id": 7, "name": "G", "zine": "z", "engine": "barmy", "finished": false },
            "turns": [{
                "number": 1,
                "seed_commitment": commitment,
                "revealed_seed": seed,
                "report": "text",
            }],
        })
        .to_string()
    }

    #[test]
    fn another_format_or_version_is_refused_by_name() {
        let other = r#"{"format": "something-else", "version": 1}"#;
        assert!(
            matches!(GameRecord::parse(other), Err(RecordError::Format(f)) if f == "something-else")
        );
        let newer = format!(r#"{{"format": "{FORMAT}", "version": 2, "new": true}}"#);
        assert!(matches!(
            GameRecord::parse(&newer),
            Err(RecordError::Version(2))
        ));
    }

    #[test]
    fn a_running_games_seeds_are_checked_against_their_commitments() {
        let seed = TurnSeed::from_bytes([3; 32]);
        let good = GameRecord::parse(&running(&seed.to_hex(), &seed.commitment())).unwrap();
        let verdict = verify(&good);
        assert!(verdict.holds());
        assert!(!verdict.turns[0].replayed);
        let other = TurnSeed::from_bytes([4; 32]);
        let bad = GameRecord::parse(&running(&other.to_hex(), &seed.commitment())).unwrap();
        let verdict = verify(&bad);
        assert_eq!(verdict.first_fault().unwrap().turn, 1);
        assert!(
            describe(&verdict).contains("turn 1: FAILED: the revealed open seed does not match")
        );
    }
}
