//! The schedule's fields, on the new-game form and the game's page: the deadline rule, the
//! reminders, the grace period, early resolution and the time zone, read back with every error
//! named; and a deadline typed in the game's zone.

use chrono::{DateTime, Utc};
use schedule::{ScheduleError, ScheduleSettings};

use super::{MAX_SCHEDULE_DAYS, field};
use crate::turns::Schedule;
use crate::web::field_errors::FieldErrors;

/// The deadline rule from the form: `schedule` is `manual`, `every_days` (with `days`) or
/// `weekly` (with `weekday`, `time` as HH:MM and `zone`, an IANA time zone name); each error
/// tied to its field.
pub(super) fn schedule_from_form(pairs: &[(String, String)]) -> Result<Schedule, FieldErrors> {
    rule_from_form("schedule", pairs)
}

/// A rule whose kind is the field `kind` (`manual`, `every_days` or `weekly`), the other
/// fields as [`schedule_from_form`] reads them: the game's schedule and the zine's issue
/// rhythm are chosen with the same fields.
pub(crate) fn rule_from_form(
    kind: &'static str,
    pairs: &[(String, String)],
) -> Result<Schedule, FieldErrors> {
    match field(pairs, kind) {
        "manual" | "" => Ok(Schedule::Manual),
        "every_days" => match field(pairs, "days").trim().parse::<u32>() {
            Ok(days) if (1..=MAX_SCHEDULE_DAYS).contains(&days) => Ok(Schedule::EveryDays(days)),
            _ => Err(FieldErrors::one(
                "days",
                format!(
                    "Schedule: the days between deadlines must be a whole number from 1 to {MAX_SCHEDULE_DAYS}, not {:?}.",
                    field(pairs, "days")
                ),
            )),
        },
        "weekly" => weekly_from_form(pairs),
        other => Err(FieldErrors::one(
            kind,
            format!("Unknown kind of schedule {other:?}: choose one of the list."),
        )),
    }
}

/// A weekly rule: every error of its day, time and zone at once.
fn weekly_from_form(pairs: &[(String, String)]) -> Result<Schedule, FieldErrors> {
    let mut errors = FieldErrors::default();
    let weekday = field(pairs, "weekday")
        .parse::<chrono::Weekday>()
        .map_err(|_| {
            errors.push(
                "weekday",
                "Weekly: choose the day of the week, e.g. Friday.",
            )
        })
        .ok();
    let typed = field(pairs, "time").trim();
    let time = chrono::NaiveTime::parse_from_str(typed, "%H:%M")
        .map_err(|_| {
            errors.push(
                "time",
                format!("Weekly: {typed:?} is not a time of day: write HH:MM on the 24-hour clock, e.g. 18:00."),
            );
        })
        .ok();
    let zone = match zone_from_form(pairs) {
        Ok(Some(zone)) => Some(zone),
        Ok(None) => {
            errors.push(
                "zone",
                "Time zone: a weekly schedule needs one, e.g. Europe/London.",
            );
            None
        }
        Err(error) => {
            errors.extend(error);
            None
        }
    };
    match (weekday, time, zone) {
        (Some(weekday), Some(time), Some(zone)) => schedule::Weekly::new(
            weekday,
            chrono::Timelike::hour(&time),
            chrono::Timelike::minute(&time),
            zone,
        )
        .map(Schedule::Weekly)
        .map_err(|e| FieldErrors::one("time", format!("Weekly: {e}."))),
        _ => Err(errors),
    }
}

/// The whole schedule from the game page's form: the deadline rule, the reminders (`48h, 6h`),
/// the grace period (`0`, `2h`) and early resolution (a checkbox); every field's error at once.
pub(super) fn settings_from_form(
    pairs: &[(String, String)],
) -> Result<ScheduleSettings, FieldErrors> {
    let mut errors = FieldErrors::default();
    let deadlines = schedule_from_form(pairs).map_err(|e| errors.extend(e)).ok();
    let reminders = reminders_from_form(field(pairs, "reminders"))
        .map_err(|e| errors.push("reminders", e))
        .ok();
    let grace = match field(pairs, "grace").trim() {
        "" | "0" => Some(chrono::Duration::zero()),
        text => schedule::parse_duration(text)
            .map_err(|e| errors.push("grace", format!("Grace: {e}.")))
            .ok(),
    };
    let early = field(pairs, "early") == "on";
    // A weekly rule has named its zone's error already: `extend` keeps one.
    let zone = match zone_from_form(pairs) {
        Ok(zone) => zone.unwrap_or(chrono_tz::Tz::UTC),
        Err(error) => {
            errors.extend(error);
            chrono_tz::Tz::UTC
        }
    };
    let (Some(deadlines), Some(reminders), Some(grace)) = (deadlines, reminders, grace) else {
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    ScheduleSettings::new(deadlines, &reminders, grace, early)
        .map(|settings| settings.with_zone(zone))
        .map_err(|e| {
            let field = match e {
                ScheduleError::GraceRange(_) => "grace",
                _ => "reminders",
            };
            FieldErrors::one(field, format!("{e}."))
        })
}

/// `48h, 6h` (or `48h 6h`): each reminder a duration; the error names the piece as typed
/// (`"2 days"`, not `"2"`).
fn reminders_from_form(text: &str) -> Result<Vec<chrono::Duration>, String> {
    let mut reminders = Vec::new();
    for piece in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        for word in piece.split_whitespace() {
            let reminder = schedule::parse_duration(word).map_err(|_| {
                format!(
                    "Reminders: {piece:?} is not a duration: write e.g. 2d, 48h, 6h or 90m, several separated by commas (48h, 6h)."
                )
            })?;
            reminders.push(reminder);
        }
    }
    Ok(reminders)
}

/// The `zone` field: an IANA name (chrono-tz's list, the form's `<datalist>`), or none when
/// left empty.
pub(super) fn zone_from_form(
    pairs: &[(String, String)],
) -> Result<Option<chrono_tz::Tz>, FieldErrors> {
    match field(pairs, "zone").trim() {
        "" => Ok(None),
        name => name.parse::<chrono_tz::Tz>().map(Some).map_err(|_| {
            FieldErrors::one(
                "zone",
                format!(
                    "Time zone: {name:?} is not a time zone: choose one from the list, such as Europe/London or America/New_York."
                ),
            )
        }),
    }
}

/// The schedule form as saved, so that the page shows it and a second save keeps it.
pub(crate) struct ScheduleForm {
    /// `manual`, `every_days` or `weekly`.
    pub kind: &'static str,
    /// As typed: a form sent back keeps "seven" to show it beside its error.
    pub days: String,
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
    /// The form as the GM sent it, to show again beside its errors.
    pub(crate) fn typed(pairs: &[(String, String)]) -> ScheduleForm {
        ScheduleForm::typed_rule("schedule", pairs)
    }

    /// The form as sent, its kind in the field `kind_field` (the issue rhythm's may be `off`).
    pub(crate) fn typed_rule(kind_field: &str, pairs: &[(String, String)]) -> ScheduleForm {
        let kind = match field(pairs, kind_field) {
            "manual" => "manual",
            "weekly" => "weekly",
            "off" => "off",
            _ => "every_days",
        };
        let weekday = WEEKDAYS
            .iter()
            .find(|day| day.eq_ignore_ascii_case(field(pairs, "weekday")))
            .copied()
            .unwrap_or("Friday");
        ScheduleForm {
            kind,
            days: field(pairs, "days").to_owned(),
            weekday,
            time: field(pairs, "time").to_owned(),
            zone: field(pairs, "zone").to_owned(),
            reminders: field(pairs, "reminders").to_owned(),
            grace: field(pairs, "grace").to_owned(),
            early: field(pairs, "early") == "on",
        }
    }

    pub(crate) fn of(settings: &ScheduleSettings) -> ScheduleForm {
        ScheduleForm {
            zone: settings.zone().name().to_owned(),
            reminders: settings
                .reminders()
                .iter()
                .map(|r| schedule::format_duration(*r))
                .collect::<Vec<_>>()
                .join(", "),
            grace: schedule::format_duration(settings.grace()),
            early: settings.early_resolution(),
            ..ScheduleForm::of_rule(Some(settings.deadlines()))
        }
    }

    /// A rule's fields (`off` for none: a zine without issues); the zone a weekly rule's.
    pub(crate) fn of_rule(rule: Option<Schedule>) -> ScheduleForm {
        let mut zone = String::new();
        let (kind, days, weekday, time) = match rule {
            None => ("off", 7, "Friday", "18:00".to_owned()),
            Some(Schedule::Manual) => ("manual", 7, "Friday", "18:00".to_owned()),
            Some(Schedule::EveryDays(days)) => ("every_days", days, "Friday", "18:00".to_owned()),
            Some(Schedule::Weekly(weekly)) => {
                zone = weekly.zone().name().to_owned();
                (
                    "weekly",
                    7,
                    WEEKDAYS
                        .get(weekly.weekday().num_days_from_monday() as usize)
                        .copied()
                        .unwrap_or("Friday"),
                    weekly.time().format("%H:%M").to_string(),
                )
            }
        };
        ScheduleForm {
            kind,
            days: days.to_string(),
            weekday,
            time,
            zone,
            reminders: String::new(),
            grace: String::new(),
            early: false,
        }
    }
}

/// A deadline typed as a local date and time (`datetime-local`) in the game's zone. A time
/// the clocks skip is refused; in the hour they go back, the earlier of the two is taken.
pub(super) fn local_deadline_from_form(
    text: &str,
    zone: chrono_tz::Tz,
) -> Result<DateTime<Utc>, String> {
    schedule::local_deadline(text, zone)
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
        .map(|r| schedule::format_duration(*r))
        .collect();
    format!(
        "{rule}; reminders {}; grace {}; early resolution {}",
        if reminders.is_empty() {
            "none".to_owned()
        } else {
            format!("{} before", reminders.join(", "))
        },
        schedule::format_duration(settings.grace()),
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
