//! One judge (issue 28, item 1): every set of orders of the case corpus (`tests/cases/`) and
//! of the phrasings corpus is resolved as the deadline would, and the attack and fleet the
//! confirmation promised must be carried out: never `order void` (SALVO-ADM-12: stored orders
//! are checked again at the deadline, but orders checked against the same state must not
//! fail that check), every confirmed shot's square in the player's row of the report, and a
//! confirmed placement never "ignored". Only a player leaving with the turn may stop them, or
//! an attack on them (void, with the reason in the report).

use std::collections::BTreeMap;

use engine::{Engine, GameSecret, ParsedOrders, Player, PlayerId, Report, TurnInput};
use salvo::{Attack, FleetOrder, Orders, Salvo, Setup, ShipKind, Special, Square, State};
use serde_json::Value;

use crate::common::*;

/// What the confirmation promised that the report does not show done.
/// `left`: the players leaving with the turn, whose going may void an attack on them.
fn unkept(
    name: &str,
    parsed: &ParsedOrders<Orders>,
    report: &Report,
    left: &[String],
) -> Vec<String> {
    let mut failures = Vec::new();
    let row = report
        .rows
        .iter()
        .find(|r| r.name == name || r.name.starts_with(&format!("{name} → ")));
    let attack = &parsed.orders.attack;
    if *attack != Attack::Pass {
        match row {
            None => failures.push(format!("{name}: {attack:?} confirmed, but no row")),
            Some(row)
                if row.result.contains("order void")
                    && !left
                        .iter()
                        .any(|l| row.result.contains(&format!("{l} is out"))) =>
            {
                failures.push(format!(
                    "{name}: {:?} confirmed, but the turn reads {:?}",
                    parsed.understood, row.result
                ));
            }
            Some(row) if row.result.contains("order void") => {}
            Some(row) => {
                if let Attack::Fire { shots } = attack {
                    for shot in shots {
                        let square = shot.square.to_string();
                        let named = row
                            .result
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|w| w == square);
                        if !named {
                            failures.push(format!(
                                "{name}: a shot at {square} confirmed, but the row reads {:?}",
                                row.result
                            ));
                        }
                    }
                }
            }
        }
    }
    if matches!(parsed.orders.fleet, Some(FleetOrder::Placed(_)))
        && report
            .notes
            .iter()
            .any(|n| n.starts_with(&format!("{name}'s placement was ignored")))
    {
        failures.push(format!("{name}: a placement confirmed, but ignored"));
    }
    failures
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn numbers(value: &Value) -> Vec<u32> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_u64().and_then(|n| u32::try_from(n).ok()))
                .collect()
        })
        .unwrap_or_default()
}

/// The position before play, as the rule tests set it up (`tests/rules.rs`).
fn start(case: &Value, ids: &BTreeMap<String, PlayerId>) -> State {
    let setup: Setup = case
        .get("setup")
        .map(|v| serde_json::from_value(v.clone()).unwrap())
        .unwrap_or_default();
    let players: Vec<Player> = ids
        .iter()
        .map(|(name, id)| Player {
            id: *id,
            name: name.clone(),
        })
        .collect::<Vec<_>>();
    let mut players = players;
    players.sort_by_key(|p| p.id);
    let mut dice = GameSecret::from_bytes([7; 32]).turn_dice(0);
    let mut state = Salvo::new_game(&setup, &players, &mut dice).unwrap();
    if let Some(fleets) = case["fleets"].as_object() {
        for (name, text) in fleets {
            place(&mut state, ids[name], text.as_str().unwrap());
        }
    }
    let before = &case["before"];
    if let Some(hit) = before["hit"].as_object() {
        for (name, squares) in hit {
            let squares: Vec<Square> = serde_json::from_value(squares.clone()).unwrap();
            state.hit_squares(ids[name], &squares);
        }
    }
    if let Some(sunk) = before["sunk"].as_object() {
        for (name, ships) in sunk {
            let ships: Vec<ShipKind> = serde_json::from_value(ships.clone()).unwrap();
            for ship in ships {
                state.sink_ship(ids[name], ship);
            }
        }
    }
    if let Some(captured) = before["captured"].as_object() {
        for (name, ships) in captured {
            let ships: BTreeMap<ShipKind, String> = serde_json::from_value(ships.clone()).unwrap();
            for (ship, captor) in ships {
                state.capture_ship(ids[name], ship, ids[&captor]);
            }
        }
    }
    if let Some(uses) = before["uses"].as_object() {
        for (name, uses) in uses {
            let uses: BTreeMap<Special, u8> = serde_json::from_value(uses.clone()).unwrap();
            for (special, left) in uses {
                state.set_uses_left(ids[name], special, left);
            }
        }
    }
    if let Some(turn) = before["turn"].as_u64() {
        state.set_turn(u32::try_from(turn).unwrap());
    }
    state
}

/// Plays one case as the rule tests do; what the confirmations promised and the turns did not
/// do.
fn play_case(label: &str, case: &Value) -> Vec<String> {
    let names = match case.get("players") {
        Some(players) => strings(players),
        None => vec!["Ann".to_string(), "Bob".to_string()],
    };
    let mut ids: BTreeMap<String, PlayerId> = (1..)
        .zip(names)
        .map(|(number, name)| (name, PlayerId(number)))
        .collect();
    let mut state = start(case, &ids);
    let mut failures = Vec::new();
    for (number, turn) in (1..).zip(case["turns"].as_array().unwrap()) {
        let mut input: TurnInput<Orders> = TurnInput::default();
        for name in strings(&turn["joining"]) {
            let id = PlayerId(ids.values().map(|id| id.0).max().unwrap_or(0) + 1);
            ids.insert(name.clone(), id);
            input.joining.push(Player { id, name });
        }
        let leaving = strings(&turn["leaving"]);
        for name in &leaving {
            input.leaving.push(ids[name]);
        }
        let mut promised = Vec::new();
        if let Some(orders) = turn["orders"].as_object() {
            for (name, text) in orders {
                let id = ids[name];
                let parsed = Salvo::parse_orders(&state, id, text.as_str().unwrap());
                input.orders.insert(id, parsed.orders.clone());
                if !leaving.contains(name) {
                    promised.push((name.clone(), parsed));
                }
            }
        }
        let mut dice =
            rulecases::dice::scripted(&numbers(&turn["dice"]), &numbers(&turn["sealed"]));
        let Ok(resolution) = Salvo::resolve(&state, &input, &mut dice) else {
            break; // a turn the case wants refused: nothing was carried out
        };
        for (name, parsed) in &promised {
            for failure in unkept(name, parsed, &resolution.report, &leaving) {
                failures.push(format!("{label} turn {number}: {failure}"));
            }
        }
        state = resolution.state;
    }
    failures
}

#[test]
fn every_confirmed_attack_of_the_case_corpus_is_carried_out() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut played = 0;
    for path in files {
        let cases: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for (index, case) in (1..).zip(cases.as_array().unwrap()) {
            failures.extend(play_case(&format!("{file} (case {index})"), case));
            played += 1;
        }
    }
    assert!(played > 50, "the case corpus is read ({played} cases)");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_confirmed_attack_of_the_phrasings_is_carried_out() {
    let corpus: Value = serde_json::from_str(include_str!("../phrasings.json")).unwrap();
    let games = [
        new_game(&Setup::default(), 2, 5),
        new_game(&Setup::default(), 3, 5),
    ];
    let mut failures = Vec::new();
    for phrasing in corpus["phrasings"].as_array().unwrap() {
        let text = phrasing["text"].as_str().unwrap();
        let state = &games[usize::from(phrasing["players"].as_u64() == Some(3))];
        let parsed = Salvo::parse_orders(state, ANN, text);
        let mut dice = GameSecret::from_bytes([3; 32]).turn_dice(1);
        let resolution =
            Salvo::resolve(state, &input(vec![(ANN, parsed.orders.clone())]), &mut dice).unwrap();
        for failure in unkept("Ann", &parsed, &resolution.report, &[]) {
            failures.push(format!("{text:?}: {failure}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
