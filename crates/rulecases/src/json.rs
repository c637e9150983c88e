//! Cases that write state as JSON: a patch merged into the state before play, and a part of the
//! state that must hold after a turn.

use std::collections::BTreeMap;

use serde_json::Value;

/// How arrays (and a few other things) are read in patches and partial matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrays {
    /// A patch's array replaces the whole array; a wanted array matches item for item and has
    /// the same length. A wanted `null` for a key also matches the key being absent.
    Whole,
    /// A patch's array is merged index by index (`null` keeps the item); a wanted array checks
    /// a prefix, a `null` item skips one. A wanted `null` or `false` matches an absent key, and
    /// numbers compare by value (12 and 12.0 are the same length).
    ByIndex,
}

/// Merges `patch` into `target`: objects key by key, arrays as `arrays` says, anything else
/// replaced.
pub fn merge(target: &mut Value, patch: &Value, arrays: Arrays) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                match t.get_mut(k) {
                    Some(slot)
                        if arrays == Arrays::ByIndex || (v.is_object() && slot.is_object()) =>
                    {
                        merge(slot, v, arrays)
                    }
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Value::Array(t), Value::Array(p)) if arrays == Arrays::ByIndex => {
            for (index, v) in p.iter().enumerate() {
                if v.is_null() {
                    continue;
                }
                match t.get_mut(index) {
                    Some(slot) => merge(slot, v, arrays),
                    None => t.push(v.clone()),
                }
            }
        }
        (slot, value) => *slot = value.clone(),
    }
}

/// Where `actual` first fails to contain `wanted`, as a path and the two values; `None` when it
/// contains all of it.
pub fn difference(wanted: &Value, actual: &Value, arrays: Arrays) -> Option<String> {
    walk(wanted, actual, arrays, "")
}

fn walk(wanted: &Value, actual: &Value, arrays: Arrays, path: &str) -> Option<String> {
    let differs = || Some(format!("{}: wanted {wanted}, got {actual}", at(path)));
    match (wanted, actual) {
        (Value::Object(w), Value::Object(a)) => w.iter().find_map(|(k, v)| {
            let here = format!("{path}.{k}");
            match a.get(k) {
                Some(av) => walk(v, av, arrays, &here),
                None if v.is_null() => None,
                None if arrays == Arrays::ByIndex && v == &Value::Bool(false) => None,
                None => Some(format!(
                    "{}: wanted {v}, but there is no such key",
                    at(&here)
                )),
            }
        }),
        (Value::Array(w), Value::Array(a)) => {
            let length_ok = match arrays {
                Arrays::Whole => w.len() == a.len(),
                Arrays::ByIndex => w.len() <= a.len(),
            };
            if !length_ok {
                return Some(format!(
                    "{}: wanted {} items, got {}: {actual}",
                    at(path),
                    w.len(),
                    a.len()
                ));
            }
            w.iter().zip(a).enumerate().find_map(|(index, (wv, av))| {
                if arrays == Arrays::ByIndex && wv.is_null() {
                    None
                } else {
                    walk(wv, av, arrays, &format!("{path}[{index}]"))
                }
            })
        }
        (Value::Number(w), Value::Number(a)) if arrays == Arrays::ByIndex => {
            if w.as_f64() == a.as_f64() {
                None
            } else {
                differs()
            }
        }
        _ if wanted == actual => None,
        _ => differs(),
    }
}

fn at(path: &str) -> &str {
    if path.is_empty() { "the value" } else { path }
}

/// The item of a JSON array whose `key` is `name` (a ship or unit by name).
pub fn named<'a>(items: &'a Value, key: &str, name: &str) -> Option<&'a Value> {
    items
        .as_array()?
        .iter()
        .find(|item| item.get(key).and_then(Value::as_str) == Some(name))
}

/// As [`named`], for patching.
pub fn named_mut<'a>(items: &'a mut Value, key: &str, name: &str) -> Option<&'a mut Value> {
    items
        .as_array_mut()?
        .iter_mut()
        .find(|item| item.get(key).and_then(Value::as_str) == Some(name))
}

/// Merges each patch into the item of the array `items` of that `name` (a `what`: ship, unit).
pub fn patch_named(
    items: &mut Value,
    what: &str,
    patches: &BTreeMap<String, Value>,
    arrays: Arrays,
) -> Result<(), String> {
    for (name, patch) in patches {
        let item = named_mut(items, "name", name).ok_or_else(|| format!("no {what} {name}"))?;
        merge(item, patch, arrays);
    }
    Ok(())
}

/// Where the items of the array `items` of each `name` (a `what`: ship, unit) fail to contain
/// what is wanted of them, each with the item as it is.
pub fn named_matches(
    items: &Value,
    what: &str,
    wanted: &BTreeMap<String, Value>,
    arrays: Arrays,
) -> Vec<String> {
    wanted
        .iter()
        .filter_map(|(name, want)| match named(items, "name", name) {
            None => Some(format!("no {what} {name}")),
            Some(actual) => difference(want, actual, arrays)
                .map(|difference| format!("{name}: {difference}\n{name} is {actual:#}")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_arrays_match_item_for_item() {
        let actual = json!({"hp": [3, 2], "name": "A", "fire": 1});
        assert_eq!(
            difference(&json!({"hp": [3, 2]}), &actual, Arrays::Whole),
            None
        );
        assert_eq!(
            difference(&json!({"hp": [3]}), &actual, Arrays::Whole),
            Some(".hp: wanted 1 items, got 2: [3,2]".into())
        );
        assert_eq!(
            difference(&json!({"fire": 1.0}), &actual, Arrays::Whole),
            Some(".fire: wanted 1.0, got 1".into())
        );
        assert_eq!(
            difference(&json!({"gone": null}), &actual, Arrays::Whole),
            None
        );
        assert!(difference(&json!({"gone": false}), &actual, Arrays::Whole).is_some());
    }

    #[test]
    fn by_index_checks_a_prefix_and_skips_nulls() {
        let actual = json!({"parts": [{"hp": 3}, {"hp": 2}, {"hp": 1}], "at": 12});
        let wanted = json!({"parts": [null, {"hp": 2}], "at": 12.0, "destroyed": false});
        assert_eq!(difference(&wanted, &actual, Arrays::ByIndex), None);
        assert_eq!(
            difference(
                &json!({"parts": [null, {"hp": 1}]}),
                &actual,
                Arrays::ByIndex
            ),
            Some(".parts[1].hp: wanted 1, got 2".into())
        );
    }

    #[test]
    fn patches_merge_objects_and_treat_arrays_as_told() {
        let mut whole = json!({"a": {"b": 1, "c": [1, 2, 3]}});
        merge(&mut whole, &json!({"a": {"c": [9]}}), Arrays::Whole);
        assert_eq!(whole, json!({"a": {"b": 1, "c": [9]}}));
        let mut by_index = json!({"a": {"b": 1, "c": [1, 2, 3]}});
        merge(
            &mut by_index,
            &json!({"a": {"c": [null, 9]}}),
            Arrays::ByIndex,
        );
        assert_eq!(by_index, json!({"a": {"b": 1, "c": [1, 9, 3]}}));
    }
}
