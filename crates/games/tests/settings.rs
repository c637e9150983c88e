#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests"
)]
//! Each engine's description of its setup for the GM's form (`Engine::settings`, issue 20)
//! agrees with the engine: every default is the standard setup's, every number's limits and
//! every choice are accepted by the engine's own check, and a number beyond its limits is a
//! value the form refuses before the engine sees it.

use engine::settings::SettingKind;
use games::EngineKind;
use serde_json::{Value, json};

/// `setup` with `value` at `path` (keys and array positions joined by dots).
fn with(setup: &Value, path: &str, value: Value) -> Value {
    let mut setup = setup.clone();
    let mut at = &mut setup;
    let parts: Vec<&str> = path.split('.').collect();
    for (index, part) in parts.iter().enumerate() {
        let last = index + 1 == parts.len();
        at = match at {
            Value::Array(items) => {
                let i: usize = part.parse().unwrap();
                if last {
                    items[i] = value;
                    return setup;
                }
                &mut items[i]
            }
            Value::Object(map) => {
                if last {
                    map.insert((*part).to_owned(), value);
                    return setup;
                }
                map.entry((*part).to_owned()).or_insert_with(|| json!({}))
            }
            other => panic!("{path}: {other} holds no {part}"),
        };
    }
    setup
}

fn at<'a>(setup: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(setup, |value, part| match value {
        Value::Array(items) => items.get(part.parse::<usize>().ok()?),
        Value::Object(map) => map.get(part),
        _ => None,
    })
}

#[test]
fn every_engine_describes_its_setup_as_the_engine_reads_it() {
    for engine in EngineKind::ALL {
        let defaults = engine.default_setup().to_json().unwrap();
        let settings = engine.settings();
        assert!(!settings.is_empty(), "{engine} describes no setting");
        for setting in settings {
            let path = setting.path;
            let default = match &setting.kind {
                SettingKind::Number { default, .. } => json!(default),
                SettingKind::OptionalNumber { default, .. } => json!(default),
                SettingKind::Switch { default } => json!(default),
                SettingKind::Choice { default, .. } => json!(default),
                SettingKind::Several { default, .. } => json!(default),
            };
            // A switch at its default may be left out of the stored setup.
            if let Some(stored) = at(&defaults, path) {
                assert_eq!(stored, &default, "{engine}.{path}: the default");
            }
            let accepted = |value: Value| {
                engine
                    .parse_setup(&with(&defaults, path, value.clone()))
                    .map(|setup| setup.rulings())
                    .unwrap_or_else(|e| panic!("{engine}.{path} = {value}: {e}"));
            };
            accepted(default);
            match setting.kind {
                SettingKind::Number { min, max, .. } => {
                    accepted(json!(min));
                    accepted(json!(max));
                }
                SettingKind::OptionalNumber { min, max, .. } => {
                    accepted(json!(min));
                    accepted(json!(max));
                    accepted(Value::Null);
                }
                SettingKind::Switch { .. } => {
                    accepted(json!(true));
                    accepted(json!(false));
                }
                SettingKind::Choice { choices, .. } | SettingKind::Several { choices, .. } => {
                    for (value, _) in choices {
                        let one = if matches!(setting.kind, SettingKind::Several { .. }) {
                            json!([value])
                        } else {
                            json!(value)
                        };
                        accepted(one);
                    }
                }
            }
        }
    }
}
