//! The game forms' fields: an engine's setup as inputs built from its default settings, and the
//! schedule, read back with every error named.

use chrono::{DateTime, NaiveDateTime, Utc};
use games::EngineKind;
use serde_json::{Map, Value};

use super::field;
use crate::schedule::ScheduleSettings;
use crate::turns::Schedule;

use super::MAX_SCHEDULE_DAYS;

/// One input of an engine's setup form, built from the engine's default setup.
pub(crate) struct SetupField {
    /// The setup's key; the input is named `setup.KEY`.
    pub key: String,
    pub label: String,
    /// `number`, `text`, `bool`, `optional` (empty for none) or `json` (lists and tables).
    pub kind: &'static str,
    pub value: String,
}

fn label(key: &str) -> String {
    let spaced = key.replace('_', " ");
    let mut chars = spaced.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "text",
        Value::Null => "optional",
        Value::Array(_) | Value::Object(_) => "json",
    }
}

fn show(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Bool(on) => on.to_string(),
        Value::Number(n) => n.to_string(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// The engine's form: one input per key of its default setup, filled with what the GM typed
/// when the form comes back with errors.
pub(super) fn setup_fields(
    engine: EngineKind,
    entered: Option<&[(String, String)]>,
) -> Vec<SetupField> {
    let Value::Object(defaults) = engine.default_setup() else {
        return Vec::new();
    };
    defaults
        .iter()
        .map(|(key, default)| {
            let kind = kind_of(default);
            let value = match entered {
                Some(pairs) if kind == "bool" => {
                    if field(pairs, &format!("setup.{key}")).is_empty() {
                        "false".into()
                    } else {
                        "true".into()
                    }
                }
                Some(pairs) => field(pairs, &format!("setup.{key}")).to_owned(),
                None => show(default),
            };
            SetupField {
                key: key.clone(),
                label: label(key),
                kind,
                value,
            }
        })
        .collect()
}

/// The setup the form describes, as JSON for the engine; each input that cannot be read
/// gives an error naming it. The engine's own checks come after (`parse_setup`, `new_game`).
pub(super) fn setup_from_form(
    engine: EngineKind,
    pairs: &[(String, String)],
) -> Result<Value, Vec<String>> {
    let mut setup = Map::new();
    let mut errors = Vec::new();
    for input in setup_fields(engine, None) {
        let text = field(pairs, &format!("setup.{}", input.key));
        let value = match input.kind {
            "bool" => Value::Bool(!text.is_empty()),
            "number" => match serde_json::from_str::<serde_json::Number>(text) {
                Ok(n) => Value::Number(n),
                Err(_) => {
                    errors.push(format!(
                        "{}: a number is needed, not {text:?}.",
                        input.label
                    ));
                    continue;
                }
            },
            "text" => Value::String(text.to_owned()),
            "optional" if text.is_empty() => Value::Null,
            "optional" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(|v| v.is_number() || v.is_boolean())
                .unwrap_or_else(|| Value::String(text.to_owned())),
            _ => match serde_json::from_str::<Value>(text) {
                Ok(value) => value,
                Err(error) => {
                    errors.push(format!("{}: not valid JSON ({error}).", input.label));
                    continue;
                }
            },
        };
        setup.insert(input.key, value);
    }
    let extra = field(pairs, "setup_extra");
    if !extra.is_empty() {
        match serde_json::from_str::<Value>(extra) {
            Ok(Value::Object(more)) => setup.extend(more),
            Ok(_) => errors.push("More settings: a JSON object ({...}) is needed.".into()),
            Err(error) => errors.push(format!("More settings: not valid JSON ({error}).")),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    engine.parse_setup(&Value::Object(setup)).map_err(|error| {
        vec![format!(
            "The {} engine refused the setup: {error}.",
            engine.name()
        )]
    })
}

/// The deadline rule from the form: `schedule` is `manual`, `every_days` (with `days`) or
/// `weekly` (with `weekday`, `time` as HH:MM and `zone`, an IANA time zone name).
pub(super) fn schedule_from_form(pairs: &[(String, String)]) -> Result<Schedule, String> {
    match field(pairs, "schedule") {
        "manual" | "" => Ok(Schedule::Manual),
        "every_days" => match field(pairs, "days").parse::<u32>() {
            Ok(days) if (1..=MAX_SCHEDULE_DAYS).contains(&days) => Ok(Schedule::EveryDays(days)),
            _ => Err(format!(
                "Schedule: the days between deadlines must be a whole number from 1 to {MAX_SCHEDULE_DAYS}."
            )),
        },
        "weekly" => {
            let weekday = field(pairs, "weekday")
                .parse::<chrono::Weekday>()
                .map_err(|_| {
                    "Schedule: the weekday must be a day's name, e.g. Friday.".to_owned()
                })?;
            let time = chrono::NaiveTime::parse_from_str(field(pairs, "time"), "%H:%M")
                .map_err(|_| "Schedule: the time must be HH:MM, e.g. 18:00.".to_owned())?;
            let zone = zone_from_form(pairs)?.ok_or_else(|| {
                "Schedule: a weekly schedule needs a time zone, e.g. Europe/London.".to_owned()
            })?;
            crate::schedule::Weekly::new(
                weekday,
                chrono::Timelike::hour(&time),
                chrono::Timelike::minute(&time),
                zone,
            )
            .map(Schedule::Weekly)
            .map_err(|e| format!("Schedule: {e}."))
        }
        other => Err(format!("Schedule: unknown kind {other:?}.")),
    }
}

/// The whole schedule from the game page's form: the deadline rule, the reminders (`48h, 6h`),
/// the grace period (`0`, `2h`) and early resolution (a checkbox).
pub(super) fn settings_from_form(pairs: &[(String, String)]) -> Result<ScheduleSettings, String> {
    let deadlines = schedule_from_form(pairs)?;
    let reminders = field(pairs, "reminders")
        .split([',', ' '])
        .filter(|r| !r.trim().is_empty())
        .map(|r| crate::schedule::parse_duration(r.trim()).map_err(|e| format!("Reminders: {e}.")))
        .collect::<Result<Vec<_>, _>>()?;
    let grace = match field(pairs, "grace").trim() {
        "" | "0" => chrono::Duration::zero(),
        text => crate::schedule::parse_duration(text).map_err(|e| format!("Grace: {e}."))?,
    };
    let early = field(pairs, "early") == "on";
    let zone = zone_from_form(pairs)?.unwrap_or(chrono_tz::Tz::UTC);
    ScheduleSettings::new(deadlines, &reminders, grace, early)
        .map(|settings| settings.with_zone(zone))
        .map_err(|e| format!("Schedule: {e}."))
}

/// The `zone` field: an IANA name, or none when left empty.
fn zone_from_form(pairs: &[(String, String)]) -> Result<Option<chrono_tz::Tz>, String> {
    match field(pairs, "zone") {
        "" => Ok(None),
        name => name.parse::<chrono_tz::Tz>().map(Some).map_err(|_| {
            format!("Schedule: {name:?} is not a time zone: use a name such as Europe/London.")
        }),
    }
}

/// The schedule form as saved, so that the page shows it and a second save keeps it.
pub(crate) struct ScheduleForm {
    /// `manual`, `every_days` or `weekly`.
    pub kind: &'static str,
    pub days: u32,
    /// `Monday` … `Sunday`; Friday when the rule is not weekly.
    pub weekday: &'static str,
    pub time: String,
    pub zone: String,
    pub reminders: String,
    pub grace: String,
    pub early: bool,
}

pub(crate) const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

impl ScheduleForm {
    pub(crate) fn of(settings: &ScheduleSettings) -> ScheduleForm {
        let (kind, days, weekday, time) = match settings.deadlines() {
            Schedule::Manual => ("manual", 7, "Friday", "18:00".to_owned()),
            Schedule::EveryDays(days) => ("every_days", days, "Friday", "18:00".to_owned()),
            Schedule::Weekly(weekly) => (
                "weekly",
                7,
                WEEKDAYS
                    .get(weekly.weekday().num_days_from_monday() as usize)
                    .copied()
                    .unwrap_or("Friday"),
                weekly.time().format("%H:%M").to_string(),
            ),
        };
        ScheduleForm {
            kind,
            days,
            weekday,
            time,
            zone: settings.zone().name().to_owned(),
            reminders: settings
                .reminders()
                .iter()
                .map(|r| crate::schedule::format_duration(*r))
                .collect::<Vec<_>>()
                .join(", "),
            grace: crate::schedule::format_duration(settings.grace()),
            early: settings.early_resolution(),
        }
    }
}

/// A deadline typed as a local date and time (`datetime-local`) in the game's zone. A time
/// the clocks skip is refused; in the hour they go back, the earlier of the two is taken.
pub(super) fn local_deadline_from_form(
    text: &str,
    zone: chrono_tz::Tz,
) -> Result<DateTime<Utc>, String> {
    use chrono::TimeZone;
    let naive = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text.trim(), format).ok())
        .ok_or_else(|| {
            format!("Deadline: {text:?} is not a date and time (YYYY-MM-DD HH:MM, {zone}).")
        })?;
    zone.from_local_datetime(&naive)
        .earliest()
        .map(|at| at.with_timezone(&Utc))
        .ok_or_else(|| format!("Deadline: {text} does not exist in {zone} (the clocks skip it)."))
}

pub(super) fn schedule_text(settings: &ScheduleSettings) -> String {
    let rule = match settings.deadlines() {
        Schedule::Manual => "manual: the GM sets each deadline".to_owned(),
        Schedule::EveryDays(1) => "every day".to_owned(),
        Schedule::EveryDays(days) => format!("every {days} days"),
        Schedule::Weekly(weekly) => format!(
            "every {:?} at {} ({})",
            weekly.weekday(),
            weekly.time().format("%H:%M"),
            weekly.zone()
        ),
    };
    let reminders: Vec<String> = settings
        .reminders()
        .iter()
        .map(|r| crate::schedule::format_duration(*r))
        .collect();
    format!(
        "{rule}; reminders {}; grace {}; early resolution {}",
        if reminders.is_empty() {
            "none".to_owned()
        } else {
            format!("{} before", reminders.join(", "))
        },
        crate::schedule::format_duration(settings.grace()),
        if settings.early_resolution() {
            "on"
        } else {
            "off"
        }
    )
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
                if f.kind == "bool" {
                    if f.value == "true" {
                        form.push((format!("setup.{}", f.key), "on".to_owned()));
                    }
                } else {
                    form.push((format!("setup.{}", f.key), f.value.clone()));
                }
            }
            let read = setup_from_form(engine, &form).unwrap();
            assert_eq!(
                read,
                engine.parse_setup(&engine.default_setup()).unwrap(),
                "{engine}"
            );
        }
    }

    #[test]
    fn bad_inputs_are_named() {
        let errors = setup_from_form(
            EngineKind::Barmy,
            &pairs(&[("setup.width", "wide"), ("setup.height", "19")]),
        )
        .unwrap_err();
        assert_eq!(
            errors,
            vec!["Width: a number is needed, not \"wide\".".to_owned()]
        );
        let errors = setup_from_form(
            EngineKind::Barmy,
            &pairs(&[("setup.width", "19"), ("setup.height", "-4")]),
        )
        .unwrap_err();
        assert!(
            errors[0].starts_with("The barmy engine refused the setup"),
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
        assert!(errors[0].starts_with("More settings"), "{errors:?}");
    }

    #[test]
    fn schedules_from_the_form() {
        assert_eq!(
            schedule_from_form(&pairs(&[("schedule", "manual")])),
            Ok(Schedule::Manual)
        );
        assert_eq!(
            schedule_from_form(&pairs(&[("schedule", "every_days"), ("days", "3")])),
            Ok(Schedule::EveryDays(3))
        );
        assert!(schedule_from_form(&pairs(&[("schedule", "every_days"), ("days", "0")])).is_err());
        assert!(schedule_from_form(&pairs(&[("schedule", "weekly")])).is_err());
    }
}
