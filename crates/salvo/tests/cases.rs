//! The case table: every `tests/cases/*.json` file holds cases of {name, rules, setup,
//! players, fleets, position before play, turns of order text and scripted dice, expected
//! rows, squares, ships, tallies and outcome}. One generic harness runs them all; each case
//! names the catalogue IDs (`SALVO-...`) it checks.

use std::collections::BTreeMap;

use engine::{Engine, GameSecret, Player, PlayerId, TurnInput};
use rulecases::Rules;
use rulecases::expect::RowExpect;
use rulecases::table::RuleCase;
use salvo::{FleetOrder, Orders, Salvo, Setup, ShipKind, ShipStatus, Special, Square, State};
use serde::Deserialize;

const RULES: Rules = Rules {
    engine: "salvo",
    prefix: "SALVO",
    crate_dir: env!("CARGO_MANIFEST_DIR"),
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rules: Vec<String>,
    #[serde(default)]
    setup: Option<serde_json::Value>,
    #[serde(default = "two_players")]
    players: Vec<String>,
    /// PLACE lines per player, applied before play.
    #[serde(default)]
    fleets: BTreeMap<String, String>,
    #[serde(default)]
    before: Before,
    turns: Vec<TurnCase>,
}

fn two_players() -> Vec<String> {
    vec!["Ann".into(), "Bob".into()]
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Before {
    #[serde(default)]
    hit: BTreeMap<String, Vec<Square>>,
    #[serde(default)]
    sunk: BTreeMap<String, Vec<ShipKind>>,
    /// owner -> ship -> captor
    #[serde(default)]
    captured: BTreeMap<String, BTreeMap<ShipKind, String>>,
    #[serde(default)]
    uses: BTreeMap<String, BTreeMap<Special, u8>>,
    #[serde(default)]
    turn: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnCase {
    /// Order text per player; a player left out sent nothing (NMR).
    #[serde(default)]
    orders: BTreeMap<String, String>,
    #[serde(default)]
    dice: Vec<u32>,
    #[serde(default)]
    sealed: Vec<u32>,
    /// How many of `dice` are picks (NMR auto-shots), which the roll log does not show.
    #[serde(default)]
    picks: usize,
    #[serde(default)]
    joining: Vec<String>,
    #[serde(default)]
    leaving: Vec<String>,
    #[serde(default)]
    expect: Expect,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    rows: Vec<RowExpect>,
    /// Parse errors per player; a player not listed must have none.
    #[serde(default)]
    issues: BTreeMap<String, Vec<IssueExpect>>,
    #[serde(default)]
    warnings: BTreeMap<String, Vec<IssueExpect>>,
    /// Substrings each of which some "understood" line must contain.
    #[serde(default)]
    understood: BTreeMap<String, Vec<String>>,
    /// The parsed orders, as JSON.
    #[serde(default)]
    orders: BTreeMap<String, serde_json::Value>,
    /// The exact set of hit squares on a player's ocean after the turn.
    #[serde(default)]
    hits: BTreeMap<String, Vec<Square>>,
    /// attacker -> target -> exact squares called so far.
    #[serde(default)]
    calls: BTreeMap<String, BTreeMap<String, Vec<Square>>>,
    /// owner -> ship -> "afloat" | "sunk" | "captured by <name>".
    #[serde(default)]
    ships: BTreeMap<String, BTreeMap<ShipKind, String>>,
    /// owner -> ship spans as the owner's view describes them ("Carrier A1-A5").
    #[serde(default)]
    fleet: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    uses: BTreeMap<String, BTreeMap<Special, u8>>,
    #[serde(default)]
    outcome: Option<OutcomeExpect>,
    #[serde(default)]
    notes_have: Vec<String>,
    /// The resolution must fail with this text in its error.
    #[serde(default)]
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IssueExpect {
    line: usize,
    problem_has: String,
    #[serde(default)]
    expected_has: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutcomeExpect {
    finished: bool,
    #[serde(default)]
    winners: Vec<String>,
}

struct Game {
    state: State,
    ids: BTreeMap<String, PlayerId>,
}

impl Game {
    fn id(&self, name: &str) -> Result<PlayerId, String> {
        self.ids
            .get(name)
            .copied()
            .ok_or_else(|| format!("no player {name} in the case"))
    }
}

fn start(case: &Case) -> Result<Game, String> {
    let setup: Setup = match &case.setup {
        Some(value) => serde_json::from_value(value.clone()).map_err(|e| format!("setup: {e}"))?,
        None => Setup::default(),
    };
    let players: Vec<Player> = case
        .players
        .iter()
        .enumerate()
        .map(|(i, name)| Player {
            id: PlayerId(i as u64 + 1),
            name: name.clone(),
        })
        .collect();
    let ids = players.iter().map(|p| (p.name.clone(), p.id)).collect();
    let mut dice = GameSecret::from_bytes([7; 32]).turn_dice(0);
    let state = Salvo::new_game(&setup, &players, &mut dice).map_err(|e| e.to_string())?;
    let mut game = Game { state, ids };
    for (name, text) in &case.fleets {
        let id = game.id(name)?;
        let parsed = Salvo::parse_orders(&game.state, id, text);
        if !parsed.errors.is_empty() {
            return Err(format!("fleet of {name}: {:?}", parsed.errors));
        }
        match parsed.orders.fleet {
            Some(FleetOrder::Placed(plan)) => {
                game.state.set_fleet(id, &plan);
            }
            other => return Err(format!("fleet of {name} is not a placement: {other:?}")),
        }
    }
    let before = &case.before;
    for (name, squares) in &before.hit {
        let id = game.id(name)?;
        game.state.hit_squares(id, squares);
    }
    for (name, ships) in &before.sunk {
        let id = game.id(name)?;
        for ship in ships {
            game.state.sink_ship(id, *ship);
        }
    }
    for (name, ships) in &before.captured {
        let id = game.id(name)?;
        for (ship, captor) in ships {
            let captor = game.id(captor)?;
            game.state.capture_ship(id, *ship, captor);
        }
    }
    for (name, uses) in &before.uses {
        let id = game.id(name)?;
        for (special, left) in uses {
            game.state.set_uses_left(id, *special, *left);
        }
    }
    if let Some(turn) = before.turn {
        game.state.set_turn(turn);
    }
    Ok(game)
}

fn ship_word(state: &State, status: ShipStatus) -> String {
    match status {
        ShipStatus::Afloat => "afloat".into(),
        ShipStatus::Sunk { .. } => "sunk".into(),
        ShipStatus::Captured { by, .. } => format!("captured by {}", state.name_of(by)),
    }
}

fn run_turn(game: &mut Game, turn: &TurnCase, number: usize) -> Vec<String> {
    let mut failures = Vec::new();
    let mut fail = |text: String| failures.push(format!("turn {number}: {text}"));
    let mut input: TurnInput<Orders> = TurnInput::default();
    for (name, text) in &turn.orders {
        let Ok(id) = game.id(name) else {
            fail(format!("orders from unknown player {name}"));
            continue;
        };
        let parsed = Salvo::parse_orders(&game.state, id, text);
        let expected_issues = turn.expect.issues.get(name);
        match expected_issues {
            None if !parsed.errors.is_empty() => {
                fail(format!("{name}'s orders had errors: {:#?}", parsed.errors));
            }
            None => {}
            Some(expected) => {
                if expected.len() != parsed.errors.len() {
                    fail(format!(
                        "{name}: expected {} errors, got {:#?}",
                        expected.len(),
                        parsed.errors
                    ));
                }
                for issue in expected {
                    let found = parsed.errors.iter().any(|e| {
                        e.line == issue.line
                            && e.problem.contains(&issue.problem_has)
                            && issue
                                .expected_has
                                .as_ref()
                                .is_none_or(|x| e.expected.contains(x))
                    });
                    if !found {
                        fail(format!(
                            "{name}: no error on line {} with '{}' (expected '{:?}'); got {:#?}",
                            issue.line, issue.problem_has, issue.expected_has, parsed.errors
                        ));
                    }
                }
            }
        }
        if let Some(expected) = turn.expect.warnings.get(name) {
            for issue in expected {
                let found = parsed
                    .warnings
                    .iter()
                    .any(|e| e.line == issue.line && e.problem.contains(&issue.problem_has));
                if !found {
                    fail(format!(
                        "{name}: no warning on line {} with '{}'; got {:#?}",
                        issue.line, issue.problem_has, parsed.warnings
                    ));
                }
            }
        }
        if let Some(expected) = turn.expect.understood.get(name) {
            for piece in expected {
                if !parsed.understood.iter().any(|u| u.contains(piece)) {
                    fail(format!(
                        "{name}: nothing understood as '{piece}'; understood {:#?}",
                        parsed.understood
                    ));
                }
            }
        }
        if let Some(expected) = turn.expect.orders.get(name) {
            let actual = serde_json::to_value(&parsed.orders).unwrap_or_default();
            if &actual != expected {
                fail(format!(
                    "{name}'s orders: expected {expected}, got {actual}"
                ));
            }
        }
        input.orders.insert(id, parsed.orders);
    }
    let next_id = game.ids.len() as u64 + 1;
    for (offset, name) in turn.joining.iter().enumerate() {
        let id = PlayerId(next_id + offset as u64);
        game.ids.insert(name.clone(), id);
        input.joining.push(Player {
            id,
            name: name.clone(),
        });
    }
    for name in &turn.leaving {
        match game.id(name) {
            Ok(id) => input.leaving.push(id),
            Err(e) => fail(e),
        }
    }
    let mut dice = rulecases::dice::scripted(&turn.dice, &turn.sealed);
    let resolution = match Salvo::resolve(&game.state, &input, &mut dice) {
        Ok(resolution) => resolution,
        Err(error) => {
            match &turn.expect.error {
                Some(wanted) if error.to_string().contains(wanted) => {}
                _ => fail(format!("resolve failed: {error}")),
            }
            return failures;
        }
    };
    if let Some(wanted) = &turn.expect.error {
        fail(format!(
            "expected the error '{wanted}', but the turn resolved"
        ));
    }
    let rolled = dice.open.rolls().len() + turn.picks;
    if rolled != turn.dice.len() {
        fail(format!(
            "{} dice scripted but {rolled} used: {:?}",
            turn.dice.len(),
            dice.open.rolls()
        ));
    }
    if let Err(e) = rulecases::dice::all_used(&mut dice) {
        fail(e);
    }
    let report = &resolution.report;
    if std::env::var_os("SALVO_SHOW_REPORTS").is_some() {
        eprintln!("{}", report.to_text());
    }
    for problem in rulecases::expect::rows(report, &turn.expect.rows) {
        fail(problem);
    }
    let state = &resolution.state;
    for (name, squares) in &turn.expect.hits {
        let Ok(id) = game.id(name) else { continue };
        let mut actual: Vec<Square> = state
            .admiral(id)
            .map(|a| {
                a.fleet()
                    .ships()
                    .iter()
                    .flat_map(|s| s.damage().keys().copied())
                    .collect()
            })
            .unwrap_or_default();
        actual.sort();
        let mut wanted = squares.clone();
        wanted.sort();
        if actual != wanted {
            fail(format!(
                "{name}'s hit squares: expected {wanted:?}, got {actual:?}"
            ));
        }
    }
    for (attacker, targets) in &turn.expect.calls {
        let Ok(attacker_id) = game.id(attacker) else {
            continue;
        };
        for (target, squares) in targets {
            let Ok(target_id) = game.id(target) else {
                continue;
            };
            let actual: Vec<Square> = state
                .admiral(attacker_id)
                .and_then(|a| a.calls_on(target_id))
                .map(|c| c.iter().copied().collect())
                .unwrap_or_default();
            let mut wanted = squares.clone();
            wanted.sort();
            if actual != wanted {
                fail(format!(
                    "{attacker}'s calls on {target}: expected {wanted:?}, got {actual:?}"
                ));
            }
        }
    }
    for (owner, ships) in &turn.expect.ships {
        let Ok(id) = game.id(owner) else { continue };
        for (kind, wanted) in ships {
            let actual = state
                .admiral(id)
                .and_then(|a| a.fleet().ship(*kind))
                .map(|s| ship_word(state, s.status()))
                .unwrap_or_default();
            if &actual != wanted {
                fail(format!("{owner}'s {kind}: expected {wanted}, got {actual}"));
            }
        }
    }
    for (owner, spans) in &turn.expect.fleet {
        let Ok(id) = game.id(owner) else { continue };
        let actual: Vec<String> = state
            .admiral(id)
            .map(|a| {
                a.fleet()
                    .ships()
                    .iter()
                    .map(|s| s.placement().describe())
                    .collect()
            })
            .unwrap_or_default();
        if &actual != spans {
            fail(format!(
                "{owner}'s fleet: expected {spans:?}, got {actual:?}"
            ));
        }
    }
    for (owner, uses) in &turn.expect.uses {
        let Ok(id) = game.id(owner) else { continue };
        for (special, wanted) in uses {
            let actual = state.admiral(id).map(|a| a.uses_left().of(*special));
            if actual != Some(*wanted) {
                fail(format!(
                    "{owner}'s {special} uses left: expected {wanted}, got {actual:?}"
                ));
            }
        }
    }
    if let Some(expected) = &turn.expect.outcome {
        let outcome = Salvo::outcome(state);
        let winners: Vec<String> = outcome.winners.iter().map(|w| state.name_of(*w)).collect();
        if outcome.finished != expected.finished || winners != expected.winners {
            fail(format!(
                "outcome: expected finished={} winners={:?}, got finished={} winners={winners:?}",
                expected.finished, expected.winners, outcome.finished
            ));
        }
    }
    for piece in &turn.expect.notes_have {
        if !report.notes.iter().any(|n| n.contains(piece)) {
            fail(format!("no note with '{piece}': {:#?}", report.notes));
        }
    }
    game.state = resolution.state;
    failures
}

fn run_case(case: &Case) -> Vec<String> {
    let mut game = match start(case) {
        Ok(game) => game,
        Err(error) => return vec![format!("setting up: {error}")],
    };
    let mut failures = Vec::new();
    for (index, turn) in case.turns.iter().enumerate() {
        // A panic in one turn ends the case but keeps the failures of the turns before it.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_turn(&mut game, turn, index + 1)
        }));
        match outcome {
            Ok(turn_failures) => failures.extend(turn_failures),
            Err(panic) => {
                let message = rulecases::table::panic_text(panic.as_ref());
                failures.push(format!("turn {}: panicked: {message}", index + 1));
                break;
            }
        }
    }
    failures
}

impl RuleCase for Case {
    fn name(&self) -> &str {
        &self.name
    }
    fn rules(&self) -> &[String] {
        &self.rules
    }
}

#[test]
fn the_case_table() {
    rulecases::table::run(&RULES, run_case);
}
