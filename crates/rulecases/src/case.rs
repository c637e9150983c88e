//! The rule case every engine shares, and how one is played.
//!
//! A case is a JSON object: `name`, the `rules` it checks, the `players` (in roster order, ids
//! 1, 2, …) and the `turns` to play, plus the keys its engine reads to set up the position
//! before play ([`CaseTable::Start`]). Each turn gives the order texts, the scripted dice, who
//! joins and who leaves, and what must hold afterwards: the shared [`Expect`] and the engine's
//! own [`CaseTable::Expect`], written side by side in one `expect` object.
//!
//! A turn that fails ends its case (later turns would start from a position the case did not
//! mean), and the failure lists everything that turn got wrong.

use std::collections::BTreeMap;

use engine::{Engine, GameSecret, LineIssue, ParsedOrders, Player, PlayerId, Report, TurnInput};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::Rules;
use crate::dice;
use crate::expect::{self, IssueExpect, RowExpect};

/// One engine's part of the case table: how it sets a case up, and what it checks besides the
/// shared expectations. Each engine's `tests/rules.rs` implements it on a unit struct and runs
/// [`crate::main`] with it.
pub trait CaseTable: 'static {
    type Engine: Engine;
    /// The case's keys besides `name`, `rules`, `players` and `turns`: what the engine reads to
    /// set up the position before play. Written with `#[serde(deny_unknown_fields)]`, so that a
    /// misspelt key fails its case.
    type Start: DeserializeOwned;
    /// The engine's own expectations after a turn, beside the shared ones in the same `expect`
    /// object; also `deny_unknown_fields`.
    type Expect: DeserializeOwned + Default;

    const RULES: Rules;
    /// Does every die the engine draws show in the roll log, but the picks a turn declares
    /// (`picks`)? Then the log must hold exactly the scripted dice less the picks.
    const LOGS_EVERY_ROLL: bool = true;
    /// Does every warning, as every error does, show an example of what the line should be?
    const WARNINGS_SHOW_EXAMPLES: bool = false;
    /// How many `<PREFIX>-GM-nn` rulings the catalogue has, when the rulings document answers
    /// each one on its line as followed, adapted or overruled.
    const GM_RULINGS_ANSWERED: Option<usize> = None;

    /// The players of a case that names none.
    fn players(start: &Self::Start) -> Vec<String> {
        let _ = start;
        vec!["Alice".into(), "Bob".into()]
    }

    /// The position before the first turn.
    fn start(start: &Self::Start, players: &[Player]) -> Result<State<Self>, String>;

    /// A player's running score as the case writes it, if the engine keeps one.
    fn score(state: &State<Self>, player: PlayerId) -> Option<String> {
        let _ = (state, player);
        None
    }

    /// What differs from the engine's own expectations after a turn (empty: all held). Also the
    /// place for what must hold after every turn.
    fn check(wanted: &Self::Expect, after: &After<'_, Self>) -> Vec<String> {
        let _ = (wanted, after);
        Vec::new()
    }

    /// What the resolved turn did not do of what the confirmation promised one player (issue
    /// 28's one judge): each action their set was understood as must be carried out, or be
    /// reported as stopped by something that happened in the turn. Empty: every promise kept
    /// (the default checks nothing).
    fn unkept(promise: &Promise<'_, Self>) -> Vec<String> {
        let _ = promise;
        Vec::new()
    }

    /// The report as a failure shows it.
    fn report_text(report: &Report) -> String {
        report.to_text()
    }

    /// What must hold of the game the setup example in the rulings document starts, besides
    /// that it starts.
    fn check_docs_setup(state: &State<Self>) -> Vec<String> {
        let _ = state;
        Vec::new()
    }
}

/// The state of a table's engine.
pub type State<T> = <<T as CaseTable>::Engine as Engine>::State;

/// A turn just played, for [`CaseTable::check`].
pub struct After<'a, T: CaseTable + ?Sized> {
    pub state: &'a State<T>,
    pub report: &'a Report,
    /// Every player of the case by name, joiners included.
    pub ids: &'a BTreeMap<String, PlayerId>,
}

impl<T: CaseTable + ?Sized> After<'_, T> {
    /// The id of a player the case names.
    pub fn id(&self, name: &str) -> Result<PlayerId, String> {
        id(self.ids, name)
    }
}

/// One player's set as the confirmation read it, and the turn it was resolved in, for
/// [`CaseTable::unkept`].
pub struct Promise<'a, T: CaseTable + ?Sized> {
    /// The position the set was read against.
    pub before: &'a State<T>,
    pub after: &'a State<T>,
    pub report: &'a Report,
    pub player: &'a Player,
    pub parsed: &'a ParsedOrders<<T::Engine as Engine>::Orders>,
    /// The players who left with this turn: their going may stop what was ordered (a player's
    /// own orders, or an attack on them).
    pub left: &'a [String],
}

impl<T: CaseTable + ?Sized> Promise<'_, T> {
    /// The player of the set left with this turn: their orders were stopped by that.
    pub fn leaves(&self) -> bool {
        self.left.contains(&self.player.name)
    }
}

fn id(ids: &BTreeMap<String, PlayerId>, name: &str) -> Result<PlayerId, String> {
    ids.get(name)
        .copied()
        .ok_or_else(|| format!("no player {name} in the case"))
}

/// One case, read.
pub struct Case<T: CaseTable> {
    pub name: String,
    pub rules: Vec<String>,
    pub players: Vec<String>,
    pub start: T::Start,
    pub turns: Vec<Turn<T::Expect>>,
}

/// The keys every case has.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Shared {
    name: String,
    rules: Vec<String>,
    players: Option<Vec<String>>,
    turns: Vec<Value>,
}

/// One turn of a case.
pub struct Turn<X> {
    /// Order text per player name. A player missing here sent nothing (NMR).
    pub orders: BTreeMap<String, String>,
    /// The open dice, in the order the engine must draw them; all must be drawn.
    pub dice: Vec<u32>,
    /// The sealed dice, likewise.
    pub sealed: Vec<u32>,
    /// How many of `dice` are picks (random indices), which the roll log does not show.
    pub picks: usize,
    /// Players who join with this turn; they take the next ids.
    pub joining: Vec<String>,
    pub leaving: Vec<String>,
    /// What must hold afterwards, as every engine checks it.
    pub expect: Expect,
    /// What must hold afterwards, as only this engine checks it.
    pub own: X,
}

/// A turn's keys but `expect`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnFields {
    #[serde(default)]
    orders: BTreeMap<String, String>,
    #[serde(default)]
    dice: Vec<u32>,
    #[serde(default)]
    sealed: Vec<u32>,
    #[serde(default)]
    picks: usize,
    #[serde(default)]
    joining: Vec<String>,
    #[serde(default)]
    leaving: Vec<String>,
}

/// The expectations every engine checks the same way. Players are named as in the case.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The errors of each player's orders, in order (a player not listed must have none): a
    /// substring of the problem, or `{"line", "problem_has", "expected_has"}`.
    #[serde(default, deserialize_with = "issues")]
    pub errors: BTreeMap<String, Vec<IssueExpect>>,
    /// The warnings, likewise.
    #[serde(default, deserialize_with = "issues")]
    pub warnings: BTreeMap<String, Vec<IssueExpect>>,
    /// Substrings each of which some line of the orders as understood must contain.
    #[serde(default)]
    pub understood: BTreeMap<String, Vec<String>>,
    /// The press the orders carried, exactly.
    #[serde(default)]
    pub press: BTreeMap<String, Vec<String>>,
    /// The parsed orders, as JSON, exactly.
    #[serde(default)]
    pub orders: BTreeMap<String, Value>,
    /// The resolution fails with this in its error (the position stays as it was).
    pub error: Option<String>,
    /// Report rows, found by name: `[Name, Co-ord, Result, Score, Own Status]` exactly, or an
    /// object giving some columns (see [`RowExpect`]).
    #[serde(default, deserialize_with = "rows")]
    pub rows: Vec<RowExpect>,
    /// Rows that must not be there.
    #[serde(default)]
    pub no_rows: Vec<String>,
    pub row_count: Option<usize>,
    /// The row names in order.
    pub row_order: Option<Vec<String>>,
    /// Substrings of the report's notes.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Running scores per player, as [`CaseTable::score`] writes them (a number or a string).
    #[serde(default, deserialize_with = "scores")]
    pub scores: BTreeMap<String, String>,
    pub finished: Option<bool>,
    pub winners: Option<Vec<String>>,
    /// The turn the game stands at afterwards.
    pub next_turn: Option<u32>,
}

fn issues<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, Vec<IssueExpect>>, D::Error> {
    let map = BTreeMap::<String, Vec<Value>>::deserialize(deserializer)?;
    map.into_iter()
        .map(|(name, items)| {
            let items = items
                .into_iter()
                .map(|item| IssueExpect::from_value(item).map_err(D::Error::custom))
                .collect::<Result<_, _>>()?;
            Ok((name, items))
        })
        .collect()
}

fn rows<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<RowExpect>, D::Error> {
    Vec::<Value>::deserialize(deserializer)?
        .into_iter()
        .map(|row| RowExpect::from_value(row).map_err(D::Error::custom))
        .collect()
}

fn scores<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    BTreeMap::<String, Value>::deserialize(deserializer)?
        .into_iter()
        .map(|(name, score)| match score {
            Value::String(text) => Ok((name, text)),
            Value::Number(number) => Ok((name, number.to_string())),
            other => Err(D::Error::custom(format!(
                "{name}'s score: a number or a string, not {other}"
            ))),
        })
        .collect()
}

/// The names of a struct's fields as serde reads them: `T` is asked to read itself from a
/// source that answers nothing but records which fields were asked for.
fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Fields(&'static [&'static str]);
    impl<'de> Deserializer<'de> for &mut Fields {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: serde::de::Visitor<'de>>(
            self,
            _: V,
        ) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("no data: field names only"))
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = fields;
            Err(Self::Error::custom("no data: field names only"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut fields = Fields(&[]);
    let _ = T::deserialize(&mut fields);
    fields.0
}

/// Splits `object` into the keys `T` reads and the rest.
fn split<'de, T: Deserialize<'de>>(object: Map<String, Value>) -> (Value, Map<String, Value>) {
    let names = field_names::<T>();
    let (ours, rest): (Map<String, Value>, Map<String, Value>) = object
        .into_iter()
        .partition(|(key, _)| names.contains(&key.as_str()));
    (Value::Object(ours), rest)
}

fn object(value: Value, what: &str) -> Result<Map<String, Value>, String> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(format!("{what} is not a JSON object: {other}")),
    }
}

impl<T: CaseTable> Case<T> {
    /// Reads one case from its JSON.
    pub fn from_value(value: Value) -> Result<Self, String> {
        let (shared, own) = split::<Shared>(object(value, "the case")?);
        let shared: Shared = serde_json::from_value(shared).map_err(|e| e.to_string())?;
        let start: T::Start = serde_json::from_value(Value::Object(own)).map_err(|e| {
            format!("{e} (besides the keys of every case: name, rules, players, turns)")
        })?;
        let turns = shared
            .turns
            .into_iter()
            .enumerate()
            .map(|(index, turn)| Self::turn(turn).map_err(|e| format!("turn {}: {e}", index + 1)))
            .collect::<Result<_, _>>()?;
        let players = shared.players.unwrap_or_else(|| T::players(&start));
        Ok(Self {
            name: shared.name,
            rules: shared.rules,
            players,
            start,
            turns,
        })
    }

    fn turn(value: Value) -> Result<Turn<T::Expect>, String> {
        let mut fields = object(value, "the turn")?;
        let wanted = fields.remove("expect").unwrap_or(Value::Null);
        let fields: TurnFields = serde_json::from_value(Value::Object(fields))
            .map_err(|e| format!("{e} (or expect)"))?;
        let wanted = match wanted {
            Value::Null => Map::new(),
            other => object(other, "expect")?,
        };
        let (shared, own) = split::<Expect>(wanted);
        let expect = serde_json::from_value(shared).map_err(|e| format!("expect: {e}"))?;
        let own = serde_json::from_value(Value::Object(own)).map_err(|e| {
            format!(
                "expect: {e} (besides the shared {:?})",
                field_names::<Expect>()
            )
        })?;
        Ok(Turn {
            orders: fields.orders,
            dice: fields.dice,
            sealed: fields.sealed,
            picks: fields.picks,
            joining: fields.joining,
            leaving: fields.leaving,
            expect,
            own,
        })
    }

    /// Plays the case; the failures of its first failing turn, or of its setup (empty: it
    /// held).
    pub fn play(&self) -> Vec<String> {
        let players: Vec<Player> = (1..)
            .zip(&self.players)
            .map(|(number, name)| Player {
                id: PlayerId(number),
                name: name.clone(),
            })
            .collect();
        let mut ids: BTreeMap<String, PlayerId> =
            players.iter().map(|p| (p.name.clone(), p.id)).collect();
        let mut state = match T::start(&self.start, &players) {
            Ok(state) => state,
            Err(e) => return vec![format!("setting up: {e}")],
        };
        for (number, turn) in (1..).zip(&self.turns) {
            let failures = play_turn::<T>(&mut state, &mut ids, turn);
            if !failures.is_empty() {
                return failures
                    .into_iter()
                    .map(|failure| format!("turn {number}: {failure}"))
                    .collect();
            }
        }
        Vec::new()
    }
}

/// Plays one turn into `state`; what went wrong (empty: all held). The last failure is the
/// turn's report, for context.
fn play_turn<T: CaseTable>(
    state: &mut State<T>,
    ids: &mut BTreeMap<String, PlayerId>,
    turn: &Turn<T::Expect>,
) -> Vec<String> {
    let wanted = &turn.expect;
    let mut failures = Vec::new();
    let mut input: TurnInput<<T::Engine as Engine>::Orders> = TurnInput::default();
    let mut promised = Vec::new();
    let first = ids.values().map(|id| id.0).max().unwrap_or(0) + 1;
    for (number, name) in (first..).zip(&turn.joining) {
        let player = Player {
            id: PlayerId(number),
            name: name.clone(),
        };
        ids.insert(name.clone(), player.id);
        input.joining.push(player);
    }
    for name in &turn.leaving {
        match id(ids, name) {
            Ok(player) => input.leaving.push(player),
            Err(e) => failures.push(e),
        }
    }
    for (name, text) in &turn.orders {
        let player = match id(ids, name) {
            Ok(player) => player,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let parsed = T::Engine::parse_orders(state, player, text);
        let mut problems = orders_issues::<T>(wanted, name, &parsed.errors, &parsed.warnings);
        for want in wanted.understood.get(name).into_iter().flatten() {
            if !parsed.understood.iter().any(|u| u.contains(want.as_str())) {
                problems.push(format!(
                    "nothing understood as {want:?}; understood {:#?}",
                    parsed.understood
                ));
            }
        }
        if let Some(press) = wanted.press.get(name)
            && &parsed.press != press
        {
            problems.push(format!("press {:?}, wanted {press:?}", parsed.press));
        }
        if let Some(orders) = wanted.orders.get(name) {
            let got = serde_json::to_value(&parsed.orders).unwrap_or_default();
            if &got != orders {
                problems.push(format!("the orders are {got}, wanted {orders}"));
            }
        }
        // Issue 28: every example a refusal offers is accepted in the refused line's place.
        for broken in engine::corrections::failures::<T::Engine>(state, player, text) {
            problems.push(format!(
                "line {} {:?} is refused ({}) with the example `{}`, which is refused in its turn: {}",
                broken.refused.line,
                broken.refused.text,
                broken.refused.problem,
                broken.example,
                broken
                    .still
                    .iter()
                    .map(|e| e.problem.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        failures.extend(
            problems
                .into_iter()
                .map(|problem| format!("{name}'s orders: {problem}")),
        );
        input.orders.insert(player, parsed.orders.clone());
        let player = Player {
            id: player,
            name: name.clone(),
        };
        promised.push((player, parsed));
    }
    let mut dice = dice::scripted(&turn.dice, &turn.sealed);
    let resolution = match T::Engine::resolve(state, &input, &mut dice) {
        Ok(resolution) => resolution,
        Err(error) => {
            match &wanted.error {
                Some(want) if error.to_string().contains(want.as_str()) => {}
                _ => failures.push(format!("the turn did not resolve: {error}")),
            }
            return failures;
        }
    };
    if let Some(want) = &wanted.error {
        failures.push(format!(
            "the turn resolved, but {want:?} was wanted in its error"
        ));
    }
    let report = &resolution.report;
    if T::LOGS_EVERY_ROLL {
        let rolled = dice.open.rolls().len();
        if rolled + turn.picks != turn.dice.len() {
            failures.push(format!(
                "{} dice scripted, {rolled} rolled and {} picks declared: {:?}",
                turn.dice.len(),
                turn.picks,
                dice.open.rolls()
            ));
        }
    }
    if let Err(e) = dice::all_used(&mut dice) {
        failures.push(e);
    }
    failures.extend(expect::rows(report, &wanted.rows));
    failures.extend(expect::row_names(
        report,
        &wanted.no_rows,
        wanted.row_count,
        wanted.row_order.as_deref(),
    ));
    failures.extend(expect::notes(report, &wanted.notes));
    for (player, parsed) in &promised {
        let promise = Promise {
            before: state,
            after: &resolution.state,
            report,
            player,
            parsed,
            left: &turn.leaving,
        };
        failures.extend(
            T::unkept(&promise)
                .into_iter()
                .map(|unkept| format!("{}'s confirmed orders: {unkept}", player.name)),
        );
    }
    *state = resolution.state;
    for (name, score) in &wanted.scores {
        match id(ids, name).map(|player| T::score(state, player)) {
            Err(e) => failures.push(e),
            Ok(None) => failures.push(format!("{name} has no score")),
            Ok(Some(got)) if &got != score => {
                failures.push(format!("{name}'s score is {got}, wanted {score}"));
            }
            Ok(Some(_)) => {}
        }
    }
    if let Some(next) = wanted.next_turn {
        let at = T::Engine::turn(state);
        if at != next {
            failures.push(format!("the next turn is {at}, wanted {next}"));
        }
    }
    let outcome = T::Engine::outcome(state);
    if let Some(finished) = wanted.finished
        && outcome.finished != finished
    {
        failures.push(format!(
            "finished is {}, wanted {finished}",
            outcome.finished
        ));
    }
    if let Some(winners) = &wanted.winners {
        match winners
            .iter()
            .map(|name| id(ids, name))
            .collect::<Result<Vec<_>, _>>()
        {
            Err(e) => failures.push(e),
            Ok(want) if outcome.winners != want => {
                let names = |players: &[PlayerId]| -> Vec<String> {
                    players
                        .iter()
                        .map(|p| {
                            ids.iter()
                                .find(|(_, id)| *id == p)
                                .map_or_else(|| format!("{p:?}"), |(name, _)| name.clone())
                        })
                        .collect()
                };
                failures.push(format!(
                    "the winners are {:?}, wanted {:?}",
                    names(&outcome.winners),
                    winners
                ));
            }
            Ok(_) => {}
        }
    }
    failures.extend(T::check(&turn.own, &After { state, report, ids }));
    let text = T::report_text(report);
    if std::env::var_os(SHOW_VAR).is_some() {
        eprintln!("{text}");
    }
    if !failures.is_empty() {
        failures.push(format!("the report:\n{text}"));
    }
    failures
}

/// Set, each turn's report is printed as the case plays.
pub const SHOW_VAR: &str = "RULECASES_SHOW";

/// The issues of one player's orders against the case: errors and warnings as wanted, each
/// with a line number from 1, and each error (each warning too, if the engine says so) with an
/// example of what the line should be.
fn orders_issues<T: CaseTable>(
    wanted: &Expect,
    name: &str,
    errors: &[LineIssue],
    warnings: &[LineIssue],
) -> Vec<String> {
    let mut problems = expect::issues(
        "errors",
        errors,
        wanted.errors.get(name).map_or(&[], Vec::as_slice),
        true,
    );
    problems.extend(expect::issues(
        "warnings",
        warnings,
        wanted.warnings.get(name).map_or(&[], Vec::as_slice),
        T::WARNINGS_SHOW_EXAMPLES,
    ));
    problems
}

/// The game the first ```` ```json ```` block of the rulings document starts with two
/// players: `Ok` when it starts and holds what [`CaseTable::check_docs_setup`] wants.
pub fn check_docs_setup<T: CaseTable>() -> Result<(), String> {
    let docs = std::fs::read_to_string(T::RULES.docs_path())
        .map_err(|e| format!("cannot read {}: {e}", T::RULES.docs_path().display()))?;
    let opening = "```json\n";
    let block = docs
        .find(opening)
        .and_then(|start| docs.get(start + opening.len()..))
        .and_then(|rest| rest.find("```").and_then(|end| rest.get(..end)))
        .ok_or_else(|| {
            format!(
                "{} has no ```json block (the setup example)",
                T::RULES.docs_path().display()
            )
        })?;
    let setup: <T::Engine as Engine>::Setup =
        serde_json::from_str(block).map_err(|e| format!("the setup example: {e}"))?;
    let players = [1, 2].map(|id| Player {
        id: PlayerId(id),
        name: format!("P{id}"),
    });
    let mut dice = GameSecret::from_bytes([7; 32]).turn_dice(0);
    let state = T::Engine::new_game(&setup, &players, &mut dice)
        .map_err(|e| format!("the setup example starts no game: {e}"))?;
    let failures = T::check_docs_setup(&state);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_are_what_serde_reads() {
        assert_eq!(
            field_names::<Shared>(),
            ["name", "rules", "players", "turns"]
        );
        let names = field_names::<Expect>();
        assert!(names.contains(&"errors") && names.contains(&"next_turn"));
        assert_eq!(names.len(), 15);
    }

    #[test]
    fn split_keeps_the_rest_for_the_engine() {
        let object = serde_json::json!({"name": "x", "setup": 1, "turns": []});
        let Value::Object(object) = object else {
            unreachable!()
        };
        let (shared, rest) = split::<Shared>(object);
        assert_eq!(shared, serde_json::json!({"name": "x", "turns": []}));
        assert_eq!(Value::Object(rest), serde_json::json!({"setup": 1}));
    }
}
