//! The new-game form's setup: an engine's setup as inputs built from its default settings,
//! read back with every error named.

use std::collections::BTreeSet;

use engine::SetupProblem;
use engine::settings::{Setting, SettingKind};
use games::{AnySetup, EngineKind};
use serde_json::{Map, Value};

use super::field;
use crate::web::field_errors::FieldErrors;

/// One input of an engine's setup form: a setting the engine describes
/// (`games::EngineKind::settings`), or a list or table of its default setup that the engine
/// leaves to JSON.
pub(crate) struct SetupField {
    /// Where the value sits in the setup's JSON (`board.columns`); the input is named
    /// `setup.PATH`.
    pub key: String,
    /// The input's id: the path with dots as hyphens.
    pub id: String,
    pub label: String,
    pub help: String,
    pub rule: Option<String>,
    /// `number`, `optional` (a number or empty), `switch`, `choice`, `several` or `json`.
    pub kind: &'static str,
    /// What the input holds (for `switch`: "true" when ticked).
    pub value: String,
    pub min: i64,
    pub max: i64,
    /// For `choice` and `several`: each value, its words, and whether it is chosen.
    pub choices: Vec<(String, String, bool)>,
}

/// Every value the form sent for `name` (a `several` field sends one per ticked box).
fn all<'a>(pairs: &'a [(String, String)], name: &str) -> Vec<&'a str> {
    pairs
        .iter()
        .filter(|(key, _)| key == name)
        .map(|(_, value)| value.trim())
        .collect()
}

fn show(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// The engine's form: its described settings, then each list or table of its default setup
/// as JSON; filled with the defaults, or with what the GM typed when the form comes back.
pub(super) fn setup_fields(
    engine: EngineKind,
    entered: Option<&[(String, String)]>,
) -> Vec<SetupField> {
    let mut fields: Vec<SetupField> = engine
        .settings()
        .into_iter()
        .map(|setting| described_field(&setting, entered))
        .collect();
    let described: BTreeSet<&str> = fields
        .iter()
        .map(|f| f.key.split('.').next().unwrap_or_default())
        .collect::<BTreeSet<_>>();
    let described: BTreeSet<String> = described.into_iter().map(str::to_owned).collect();
    if let Some(Value::Object(defaults)) = standard_setup(engine) {
        for (key, default) in &defaults {
            if described.contains(key) {
                continue;
            }
            let name = format!("setup.{key}");
            fields.push(SetupField {
                id: format!("setup-{key}"),
                label: key.replace('_', " "),
                help: format!("As JSON: see the {} rules page.", engine.title()),
                rule: None,
                kind: "json",
                value: entered
                    .map_or_else(|| show(default), |pairs| field(pairs, &name).to_owned()),
                min: 0,
                max: 0,
                choices: Vec::new(),
                key: key.clone(),
            });
        }
    }
    fields
}

fn described_field(setting: &Setting, entered: Option<&[(String, String)]>) -> SetupField {
    let name = format!("setup.{}", setting.path);
    let typed = |default: String| entered.map_or(default, |pairs| field(pairs, &name).to_owned());
    let (kind, value, min, max, choices) = match &setting.kind {
        SettingKind::Number { min, max, default } => {
            ("number", typed(default.to_string()), *min, *max, Vec::new())
        }
        SettingKind::OptionalNumber {
            min, max, default, ..
        } => (
            "optional",
            typed(default.map(|d| d.to_string()).unwrap_or_default()),
            *min,
            *max,
            Vec::new(),
        ),
        SettingKind::Switch { default } => {
            let on = entered.map_or(*default, |pairs| !field(pairs, &name).is_empty());
            ("switch", on.to_string(), 0, 0, Vec::new())
        }
        SettingKind::Choice { choices, default } => {
            let chosen = typed((*default).to_owned());
            let options = choices
                .iter()
                .map(|(value, words)| ((*value).to_owned(), (*words).to_owned(), *value == chosen))
                .collect();
            ("choice", chosen, 0, 0, options)
        }
        SettingKind::Several { choices, default } => {
            let chosen: Vec<&str> =
                entered.map_or_else(|| default.to_vec(), |pairs| all(pairs, &name));
            let options = choices
                .iter()
                .map(|(value, words)| {
                    (
                        (*value).to_owned(),
                        (*words).to_owned(),
                        chosen.contains(value),
                    )
                })
                .collect();
            ("several", String::new(), 0, 0, options)
        }
    };
    let help = match &setting.kind {
        SettingKind::OptionalNumber { none, .. } => format!("{} Empty: {none}.", setting.help),
        _ => setting.help.to_owned(),
    };
    SetupField {
        key: setting.path.to_owned(),
        id: format!("setup-{}", setting.path.replace('.', "-")),
        label: setting.label.to_owned(),
        help,
        rule: setting.rule.map(str::to_owned),
        kind,
        value,
        min,
        max,
        choices,
    }
}

/// `setup` with `value` at `path` (object keys and array positions joined by dots); false
/// when the path does not fit the setup's shape.
fn put(setup: &mut Value, path: &str, value: Value) -> bool {
    let mut at = setup;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        let next = match at {
            Value::Object(map) if last => {
                map.insert(part.to_owned(), value);
                return true;
            }
            Value::Object(map) => map
                .entry(part.to_owned())
                .or_insert_with(|| Value::Object(Map::new())),
            Value::Array(items) => {
                match part.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                    Some(item) if last => {
                        *item = value;
                        return true;
                    }
                    Some(item) => item,
                    None => return false,
                }
            }
            _ => return false,
        };
        at = next;
    }
    false
}

/// A whole number from the form, within `min..=max`.
fn whole_number(label: &str, text: &str, min: i64, max: i64) -> Result<i64, String> {
    match text.parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!("{label}: {text} is not from {min} to {max}.")),
        Err(_) if text.is_empty() => {
            Err(format!("{label}: a number from {min} to {max} is needed."))
        }
        Err(_) => Err(format!(
            "{label}: a whole number from {min} to {max} is needed, not {text:?}."
        )),
    }
}

/// The engine's standard setup as JSON, the form's starting point.
fn standard_setup(engine: EngineKind) -> Option<Value> {
    engine.default_setup().to_json().ok()
}

/// The setup the form describes, read by the engine: the standard setup with each field
/// of the form put in. Every field that cannot be read is named, all at once, each beside its
/// field; the engine's own checks come after (`parse_setup`, then `new_game` when the game is
/// made: [`setup_refused`]).
pub(super) fn setup_from_form(
    engine: EngineKind,
    pairs: &[(String, String)],
) -> Result<AnySetup, FieldErrors> {
    let mut setup = match standard_setup(engine) {
        Some(Value::Object(map)) => Value::Object(map),
        _ => Value::Object(Map::new()),
    };
    let mut errors = FieldErrors::default();
    for input in setup_fields(engine, None) {
        let name = format!("setup.{}", input.key);
        let text = field(pairs, &name);
        let label = &input.label;
        let value = match input.kind {
            "switch" => Ok(Value::Bool(!text.is_empty())),
            "number" => whole_number(label, text, input.min, input.max).map(Value::from),
            "optional" if text.is_empty() => Ok(Value::Null),
            "optional" => whole_number(label, text, input.min, input.max).map(Value::from),
            "choice" => input
                .choices
                .iter()
                .find(|(value, _, _)| value == text)
                .map(|(value, _, _)| Value::String(value.clone()))
                .ok_or_else(|| format!("{label}: {text:?} is not one of the choices.")),
            "several" => {
                let ticked = all(pairs, &name);
                match ticked
                    .iter()
                    .find(|t| !input.choices.iter().any(|(value, _, _)| value == *t))
                {
                    Some(unknown) => {
                        Err(format!("{label}: {unknown:?} is not one of the choices."))
                    }
                    None => Ok(Value::from(ticked)),
                }
            }
            _ => serde_json::from_str::<Value>(text)
                .map_err(|error| format!("{label}: not valid JSON ({error}).")),
        };
        match value {
            Ok(value) => {
                if !put(&mut setup, &input.key, value) {
                    errors.push(
                        input.id,
                        format!("{label}: does not fit this engine's setup."),
                    );
                }
            }
            Err(error) => errors.push(input.id, error),
        }
    }
    let extra = field(pairs, "setup_extra");
    if !extra.is_empty() {
        match serde_json::from_str::<Value>(extra) {
            Ok(Value::Object(more)) => {
                if let Value::Object(map) = &mut setup {
                    map.extend(more);
                }
            }
            Ok(_) => errors.push(EXTRA_ID, "More settings: a JSON object ({...}) is needed."),
            Err(error) => errors.push(
                EXTRA_ID,
                format!("More settings: not valid JSON ({error})."),
            ),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    engine.parse_setup(&setup).map_err(|error| {
        FieldErrors::one(
            EXTRA_ID,
            format!("The {} engine refused the setup: {error}.", engine.name()),
        )
    })
}

/// The id of the "More settings" field (JSON over the fields above).
const EXTRA_ID: &str = "setup-extra";

/// The engine's refusal of a setup when the game was to start (`Engine::new_game`), each problem
/// beside the setting it is about: its own field, or More settings for a setting with none;
/// only a problem of no one setting above the form.
pub(super) fn setup_refused(engine: EngineKind, problems: &[SetupProblem]) -> FieldErrors {
    let fields = setup_fields(engine, None);
    // Each field's problems, in the order found, to be said together beside it.
    let mut beside: Vec<(String, String, Vec<&str>)> = Vec::new();
    let mut errors = FieldErrors::default();
    for problem in problems {
        let field = problem
            .setting
            .and_then(|setting| fields.iter().find(|f| f.key == setting));
        let (id, label) = match (field, problem.setting) {
            (Some(field), _) => (field.id.clone(), field.label.clone()),
            // A setting with no field of its own (an empty list the standard setup leaves
            // out, such as Barmy's placements) can only have come from More settings.
            (None, Some(setting)) => (EXTRA_ID.to_owned(), format!("More settings, {setting}")),
            (None, None) => {
                errors.push_form(format!(
                    "The {} engine refused the settings: {}.",
                    engine.name(),
                    problem.problem
                ));
                continue;
            }
        };
        match beside
            .iter_mut()
            .find(|(at, said, _)| *at == id && *said == label)
        {
            Some((_, _, said)) => said.push(&problem.problem),
            None => beside.push((id, label, vec![&problem.problem])),
        }
    }
    for (id, label, said) in beside {
        errors.push(id, format!("{label}: {}.", said.join("; ")));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn every_engine_has_a_form_that_reads_back_its_defaults() {
        for engine in EngineKind::ALL {
            let fields = setup_fields(engine, None);
            let mut form = Vec::new();
            for f in &fields {
                let name = format!("setup.{}", f.key);
                match f.kind {
                    "switch" if f.value == "true" => form.push((name, "on".to_owned())),
                    "switch" => {}
                    "several" => form.extend(
                        f.choices
                            .iter()
                            .filter(|(_, _, chosen)| *chosen)
                            .map(|(value, _, _)| (name.clone(), value.clone())),
                    ),
                    _ => form.push((name, f.value.clone())),
                }
            }
            let read = setup_from_form(engine, &form).unwrap();
            assert_eq!(
                read.to_json().unwrap(),
                engine.default_setup().to_json().unwrap(),
                "{engine}"
            );
        }
    }

    #[test]
    fn bad_inputs_are_named() {
        // Every field that cannot be read is named, all at once.
        let errors = setup_from_form(
            EngineKind::Barmy,
            &pairs(&[
                ("setup.width", "wide"),
                ("setup.height", "1000"),
                ("setup.final_turn", "0"),
            ]),
        )
        .unwrap_err();
        assert_eq!(
            errors.all(),
            vec![
                (
                    "setup-width",
                    "Columns: a whole number from 4 to 702 is needed, not \"wide\"."
                ),
                ("setup-height", "Rows: 1000 is not from 4 to 999."),
                ("setup-final_turn", "Last turn: 0 is not from 1 to 10000."),
            ]
        );
        let errors = setup_from_form(
            EngineKind::Salvo,
            &pairs(&[
                ("setup.dice_mode", "d100"),
                ("setup.specials_enabled", "laser"),
                ("setup.uses.nuke", "1"),
            ]),
        )
        .unwrap_err();
        assert!(
            errors
                .of("setup-dice_mode")
                .is_some_and(|e| e.starts_with("Dice: \"d100\"")),
            "{errors:?}"
        );
        assert!(
            errors
                .of("setup-specials_enabled")
                .is_some_and(|e| e.starts_with("Extras in play")),
            "{errors:?}"
        );
        let errors = setup_from_form(
            EngineKind::Barmy,
            &pairs(&[
                ("setup.width", "19"),
                ("setup.height", "19"),
                ("setup_extra", "[1]"),
            ]),
        )
        .unwrap_err();
        assert!(
            errors
                .of("setup-extra")
                .is_some_and(|e| e.starts_with("More settings")),
            "{errors:?}"
        );
    }

    /// Issue 27 item 6: what an engine refuses when the game starts comes back beside the
    /// setting it is about, in every engine, not only above the form.
    #[test]
    fn each_engines_refusal_lands_beside_its_setting() {
        use engine::{Player, PlayerId, TurnDice, TurnSeed};
        use serde_json::json;

        let refused = [
            // BARMY-06: a ship is four squares in a line.
            (
                EngineKind::Barmy,
                json!({"placements": [{"player": 1, "ship": ["A1", "C1", "E1", "G1"]}]}),
                "setup-extra",
            ),
            (
                EngineKind::Salvo,
                json!({"uses": {"nuke": 120, "scuba": 2, "torpedo": 2, "experimental": 2, "bomber": 2}}),
                "setup-uses-nuke",
            ),
            (
                EngineKind::Ironclad,
                json!({"turn_limit": 0}),
                "setup-turn_limit",
            ),
            (
                EngineKind::Forever,
                json!({"meteor_hit_faces": 7}),
                "setup-meteor_hit_faces",
            ),
            (
                EngineKind::Skyfleet,
                json!({"max_elevation": 0}),
                "setup-max_elevation",
            ),
        ];
        let players: Vec<Player> = (1..=2)
            .map(|id| Player {
                id: PlayerId(id),
                name: format!("Player {id}"),
            })
            .collect();
        for (engine, changes, field) in refused {
            let mut setup = engine.default_setup().to_json().unwrap();
            if let (Value::Object(setup), Value::Object(changes)) = (&mut setup, changes) {
                setup.extend(changes);
            }
            let setup = engine.parse_setup(&setup).unwrap();
            let seed = TurnSeed::from_bytes([7; 32]);
            let mut dice = TurnDice::from_seeds(&seed, &seed);
            let Err(games::GameError::Setup(engine::SetupError::Settings(problems))) =
                setup.new_game(&players, &mut dice)
            else {
                panic!("{engine} started a game it should refuse");
            };
            let errors = setup_refused(engine, &problems);
            let listed = errors.all();
            assert!(
                listed.iter().all(|(at, _)| !at.is_empty()),
                "{engine}: a problem above the form: {listed:?}"
            );
            assert!(
                errors.of(field).is_some(),
                "{engine}: nothing beside {field}: {listed:?}"
            );
        }
    }
}
