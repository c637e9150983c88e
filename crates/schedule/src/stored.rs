//! The stored (JSON) form of a schedule, read strictly: a key that is not ours, a value of the
//! wrong type or out of range is an error. Keys added after a game was made
//! (`reminder_minutes`, `grace_minutes`, `early_resolution`, `zone`) may be absent and then
//! mean none, no grace, off and UTC, as they did when the game was made.

use chrono::Duration;
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::{Schedule, ScheduleError, ScheduleSettings, weekday_name, weekly};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Manual,
    EveryDays,
    Weekly,
}

/// A [`Schedule`] as `zines.issue_rhythm` holds it: `{"kind": "manual"}`,
/// `{"kind": "every_days", "days": 7}`, or
/// `{"kind": "weekly", "weekday": "Friday", "time": "18:00", "zone": "Europe/London"}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoredRule {
    kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    days: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weekday: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    zone: Option<String>,
}

/// [`ScheduleSettings`] as `games.schedule` holds them: the rule's keys, and beside them the
/// reminders, the grace period, early resolution and the game's zone (a weekly rule's own).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoredSettings {
    kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    days: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weekday: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time: Option<String>,
    #[serde(default)]
    zone: Option<String>,
    #[serde(default)]
    reminder_minutes: Vec<i64>,
    #[serde(default)]
    grace_minutes: i64,
    #[serde(default)]
    early_resolution: bool,
}

fn rule(
    kind: Kind,
    days: Option<u32>,
    weekday: Option<&str>,
    time: Option<&str>,
    zone: Option<&str>,
) -> Result<Schedule, ScheduleError> {
    let missing = |key: &str| ScheduleError::Stored(format!("a {kind:?} schedule needs {key:?}"));
    match kind {
        Kind::Manual => Ok(Schedule::Manual),
        Kind::EveryDays => match days {
            Some(days @ 1..=365) => Ok(Schedule::EveryDays(days)),
            Some(days) => Err(ScheduleError::Days(days.to_string())),
            None => Err(missing("days")),
        },
        Kind::Weekly => Ok(Schedule::Weekly(weekly(
            weekday.ok_or_else(|| missing("weekday"))?,
            time.ok_or_else(|| missing("time"))?,
            zone.ok_or_else(|| missing("zone"))?,
        )?)),
    }
}

impl TryFrom<StoredRule> for Schedule {
    type Error = ScheduleError;
    fn try_from(stored: StoredRule) -> Result<Self, Self::Error> {
        rule(
            stored.kind,
            stored.days,
            stored.weekday.as_deref(),
            stored.time.as_deref(),
            stored.zone.as_deref(),
        )
    }
}

/// The rule's own keys: `(kind, days, weekday, time, zone)`.
type RuleKeys = (
    Kind,
    Option<u32>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn rule_keys(schedule: Schedule) -> RuleKeys {
    match schedule {
        Schedule::Manual => (Kind::Manual, None, None, None, None),
        Schedule::EveryDays(days) => (Kind::EveryDays, Some(days), None, None, None),
        Schedule::Weekly(weekly) => (
            Kind::Weekly,
            None,
            Some(weekday_name(weekly.weekday()).to_owned()),
            Some(weekly.time().format("%H:%M").to_string()),
            Some(weekly.zone().name().to_owned()),
        ),
    }
}

impl From<Schedule> for StoredRule {
    fn from(schedule: Schedule) -> Self {
        let (kind, days, weekday, time, zone) = rule_keys(schedule);
        StoredRule {
            kind,
            days,
            weekday,
            time,
            zone,
        }
    }
}

impl TryFrom<StoredSettings> for ScheduleSettings {
    type Error = ScheduleError;
    fn try_from(stored: StoredSettings) -> Result<Self, Self::Error> {
        let deadlines = rule(
            stored.kind,
            stored.days,
            stored.weekday.as_deref(),
            stored.time.as_deref(),
            stored.zone.as_deref(),
        )?;
        let reminders: Vec<Duration> = stored
            .reminder_minutes
            .iter()
            .map(|minutes| Duration::minutes(*minutes))
            .collect();
        let zone = match stored.zone.as_deref() {
            None => Tz::UTC,
            Some(name) => name
                .parse::<Tz>()
                .map_err(|_| ScheduleError::Zone(name.to_owned()))?,
        };
        Ok(ScheduleSettings::new(
            deadlines,
            &reminders,
            Duration::minutes(stored.grace_minutes),
            stored.early_resolution,
        )?
        .with_zone(zone))
    }
}

impl From<ScheduleSettings> for StoredSettings {
    fn from(settings: ScheduleSettings) -> Self {
        let (kind, days, weekday, time, _) = rule_keys(settings.deadlines());
        StoredSettings {
            kind,
            days,
            weekday,
            time,
            zone: Some(settings.zone().name().to_owned()),
            reminder_minutes: settings
                .reminders()
                .iter()
                .map(Duration::num_minutes)
                .collect(),
            grace_minutes: settings.grace().num_minutes(),
            early_resolution: settings.early_resolution(),
        }
    }
}
