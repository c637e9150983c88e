//! The schedule's fields, on the new-game form and the game's page: the deadline rule, the
//! reminders, the grace period, early resolution and the time zone, read back with every error
//! named; and a deadline typed in the game's zone.

use chrono::{DateTime, Utc};
use schedule::ScheduleSettings;

use super::{MAX_SCHEDULE_DAYS, field};
use crate::turns::Schedule;

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
            schedule::Weekly::new(
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
        .map(|r| schedule::parse_duration(r.trim()).map_err(|e| format!("Reminders: {e}.")))
        .collect::<Result<Vec<_>, _>>()?;
    let grace = match field(pairs, "grace").trim() {
        "" | "0" => chrono::Duration::zero(),
        text => schedule::parse_duration(text).map_err(|e| format!("Grace: {e}."))?,
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
                .map(|r| schedule::format_duration(*r))
                .collect::<Vec<_>>()
                .join(", "),
            grace: schedule::format_duration(settings.grace()),
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
