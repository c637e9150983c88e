//! When a game's turns fall due: the deadline rule (manual, every N days, or a fixed weekday and
//! time in a named time zone), the reminders before each deadline, the grace period after it,
//! and whether a turn may resolve early. Pure: every function takes the time it needs.
//!
//! Stored as one JSON object in `games.schedule` (and a [`Schedule`] alone in
//! `zines.issue_rhythm`), read and written through serde (the `stored` module): a stored value
//! that does not parse is an error, never a default. `store::turns::claim_due_turn` reads the
//! `grace_minutes` and `early_resolution` keys in SQL, so those names are part of the schema.

mod stored;

use std::fmt;
use std::str::FromStr;

use chrono::{
    DateTime, Datelike, Days, Duration, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone, Utc,
    Weekday,
};
pub use chrono_tz::Tz;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error(
        "{0:?} is not a schedule: write `manual`, `every N days`, or `weekly DAY HH:MM ZONE` \
         (e.g. `weekly Friday 18:00 Europe/London`)"
    )]
    Unknown(String),
    #[error("{0:?} is not a day of the week (Monday … Sunday, or Mon … Sun)")]
    Weekday(String),
    #[error("{0:?} is not a time of day: write HH:MM on the 24-hour clock, e.g. 18:00")]
    Time(String),
    #[error("{0:?} is not a time zone: use an IANA name such as Europe/London or America/New_York")]
    Zone(String),
    #[error("every N days: N must be between 1 and 365, not {0}")]
    Days(String),
    #[error("{0:?} is not a duration: write e.g. 48h, 6h, 90m, 2d or 1h30m")]
    Duration(String),
    #[error("a reminder must come between 1 minute and 30 days before the deadline, not {0}")]
    ReminderRange(String),
    #[error("at most {MAX_REMINDERS} reminders per turn")]
    TooManyReminders,
    #[error("the grace period must be between 0 and 7 days, not {0}")]
    GraceRange(String),
    #[error("the stored schedule is not valid: {0}")]
    Stored(String),
}

const MAX_REMINDERS: usize = 10;

/// How each turn's deadline follows from the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "stored::StoredRule", into = "stored::StoredRule")]
pub enum Schedule {
    /// The GM sets each deadline.
    Manual,
    /// Each deadline falls this many days after the one before.
    EveryDays(u32),
    /// Each deadline is the next given weekday at the given local time.
    Weekly(Weekly),
}

/// A fixed weekday and time of day in a named time zone, e.g. Friday 18:00 Europe/London:
/// 18:00 on the local clock summer and winter alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weekly {
    weekday: Weekday,
    time: NaiveTime,
    zone: Tz,
}

impl Weekly {
    /// `hour:minute` on the local clock of `zone`, every `weekday`.
    pub fn new(
        weekday: Weekday,
        hour: u32,
        minute: u32,
        zone: Tz,
    ) -> Result<Weekly, ScheduleError> {
        let time = NaiveTime::from_hms_opt(hour, minute, 0)
            .ok_or_else(|| ScheduleError::Time(format!("{hour}:{minute}")))?;
        Ok(Weekly {
            weekday,
            time,
            zone,
        })
    }

    pub fn weekday(&self) -> Weekday {
        self.weekday
    }

    pub fn time(&self) -> NaiveTime {
        self.time
    }

    pub fn zone(&self) -> Tz {
        self.zone
    }

    /// The first deadline strictly after `after`.
    pub fn next_after(&self, after: DateTime<Utc>) -> DateTime<Utc> {
        let start = after.with_timezone(&self.zone).date_naive();
        // Eight days always hold the weekday twice over; the later one is past `after`.
        (0..=8)
            .filter_map(|offset| start.checked_add_days(Days::new(offset)))
            .filter(|date| date.weekday() == self.weekday)
            .filter_map(|date| self.on(date))
            .find(|at| *at > after)
            .unwrap_or(after + Duration::days(7))
    }

    /// The deadline on a local date.
    fn on(&self, date: NaiveDate) -> Option<DateTime<Utc>> {
        local_instant(self.zone, date.and_time(self.time))
    }
}

/// A local date and time in `zone` as an instant. In the hour the clocks go back, the first of
/// the two; in the hour they go forward (a local time that does not exist), the moment the
/// clock would have shown it had it not jumped.
fn local_instant(zone: Tz, local: NaiveDateTime) -> Option<DateTime<Utc>> {
    if let Some(at) = zone.from_local_datetime(&local).earliest() {
        return Some(at.with_timezone(&Utc));
    }
    let standard = zone
        .from_local_datetime(&(local - Duration::hours(3)))
        .earliest()?;
    // The offset in force before the gap says which instant "local" would have been.
    let offset = standard.offset().fix();
    offset
        .from_local_datetime(&local)
        .single()
        .map(|at| at.with_timezone(&Utc))
}

/// The first of `start`, `start` + N local days, + 2N … that is after `now`, counting days on
/// the calendar of `zone` so that the local time of day holds across a clock change.
fn every_days_after(
    start: DateTime<Utc>,
    days: u32,
    now: DateTime<Utc>,
    zone: Tz,
) -> DateTime<Utc> {
    let days = u64::from(days.max(1));
    let local = start.with_timezone(&zone).naive_local();
    // Whole steps surely missed (an hour of clock change either way), then step on.
    let elapsed_days = u64::try_from((now - start).num_days()).unwrap_or(0);
    let mut steps = (elapsed_days / days).saturating_sub(1).max(1);
    loop {
        let stepped = local
            .checked_add_days(Days::new(steps.saturating_mul(days)))
            .and_then(|at| local_instant(zone, at));
        match stepped {
            Some(at) if at > now => return at,
            Some(_) => steps += 1,
            // Beyond the calendar: no local slot, keep the plain rhythm.
            None => return now + Duration::days(i64::try_from(days).unwrap_or(365)),
        }
    }
}

impl Schedule {
    /// The deadline of the turn after one whose deadline was `previous`, never at or before
    /// `now` (a turn that opens late, after a pause or an early resolution, still gets a
    /// deadline in the future on the game's rhythm: the first slot after `previous` that is
    /// after `now`). Days are counted in UTC; a game counts them in its own zone
    /// ([`ScheduleSettings::next_deadline`]). `None` for a manual schedule.
    pub fn next_deadline(
        self,
        previous: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        self.next_deadline_in(previous, now, Tz::UTC)
    }

    /// [`Schedule::next_deadline`] with every N days counted on the local calendar of `zone`:
    /// a deadline at 12:00 local stays at 12:00 local across a clock change.
    pub fn next_deadline_in(
        self,
        previous: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
        zone: Tz,
    ) -> Option<DateTime<Utc>> {
        match self {
            Schedule::Manual => None,
            Schedule::EveryDays(days) => {
                Some(every_days_after(previous.unwrap_or(now), days, now, zone))
            }
            Schedule::Weekly(weekly) => {
                let after = previous.map_or(now, |previous| previous.max(now));
                Some(weekly.next_after(after))
            }
        }
    }
}

fn weekday_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "Monday",
        Weekday::Tue => "Tuesday",
        Weekday::Wed => "Wednesday",
        Weekday::Thu => "Thursday",
        Weekday::Fri => "Friday",
        Weekday::Sat => "Saturday",
        Weekday::Sun => "Sunday",
    }
}

fn every_days(days: &str) -> Result<Schedule, ScheduleError> {
    match days.parse::<u32>() {
        Ok(days @ 1..=365) => Ok(Schedule::EveryDays(days)),
        _ => Err(ScheduleError::Days(days.to_owned())),
    }
}

fn weekly(day: &str, time: &str, zone: &str) -> Result<Weekly, ScheduleError> {
    let weekday: Weekday = day
        .parse()
        .map_err(|_| ScheduleError::Weekday(day.to_owned()))?;
    let time_error = || ScheduleError::Time(time.to_owned());
    let (hour, minute) = time.split_once(':').ok_or_else(time_error)?;
    let hour: u32 = hour.parse().map_err(|_| time_error())?;
    let minute: u32 = minute.parse().map_err(|_| time_error())?;
    if minute > 59 {
        return Err(time_error());
    }
    let zone: Tz = zone
        .parse()
        .map_err(|_| ScheduleError::Zone(zone.to_owned()))?;
    Weekly::new(weekday, hour, minute, zone).map_err(|_| time_error())
}

/// `manual`, `every 7 days` (or `every day`), `weekly Friday 18:00 Europe/London` (the word
/// `weekly` may be left out). Words are separated by spaces; case does not matter but for the
/// time zone.
impl FromStr for Schedule {
    type Err = ScheduleError;
    fn from_str(text: &str) -> Result<Schedule, ScheduleError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
        let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
        match (lower.as_slice(), words.as_slice()) {
            (["manual"], _) => Ok(Schedule::Manual),
            (["every", "day"], _) | (["daily"], _) => Ok(Schedule::EveryDays(1)),
            (["every", n, "days" | "day"], _) => every_days(n),
            (["weekly", _, _, _], [_, day, time, zone]) | ([_, _, _], [day, time, zone]) => {
                Ok(Schedule::Weekly(weekly(day, time, zone)?))
            }
            _ => Err(ScheduleError::Unknown(text.to_owned())),
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Manual => f.write_str("manual"),
            Schedule::EveryDays(1) => f.write_str("every day"),
            Schedule::EveryDays(days) => write!(f, "every {days} days"),
            Schedule::Weekly(weekly) => write!(
                f,
                "weekly {} {} {}",
                weekday_name(weekly.weekday),
                weekly.time.format("%H:%M"),
                weekly.zone.name()
            ),
        }
    }
}

/// Everything a GM sets about a game's deadlines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "stored::StoredSettings", into = "stored::StoredSettings")]
pub struct ScheduleSettings {
    deadlines: Schedule,
    /// How long before the deadline each reminder goes out, longest first, whole minutes.
    reminders: Vec<Duration>,
    grace: Duration,
    early_resolution: bool,
    /// The game's time zone when the rule has none of its own (manual, every N days): how its
    /// deadlines are shown and typed. A weekly rule's zone is the game's zone.
    zone: Tz,
}

impl From<Schedule> for ScheduleSettings {
    fn from(deadlines: Schedule) -> Self {
        ScheduleSettings {
            deadlines,
            reminders: Vec::new(),
            grace: Duration::zero(),
            early_resolution: false,
            zone: rule_zone(deadlines),
        }
    }
}

/// A weekly rule's own zone; UTC for the others until one is chosen.
fn rule_zone(deadlines: Schedule) -> Tz {
    match deadlines {
        Schedule::Weekly(weekly) => weekly.zone,
        Schedule::Manual | Schedule::EveryDays(_) => Tz::UTC,
    }
}

impl ScheduleSettings {
    /// `reminders`: how long before the deadline each reminder is sent (1 minute to 30 days,
    /// at most ten; duplicates count once). `grace`: how long after the deadline orders are
    /// still taken and the turn waits (0 to 7 days). `early_resolution`: the turn resolves as
    /// soon as every active player has orders in. Durations are kept to the whole minute.
    pub fn new(
        deadlines: Schedule,
        reminders: &[Duration],
        grace: Duration,
        early_resolution: bool,
    ) -> Result<ScheduleSettings, ScheduleError> {
        let mut kept = Vec::new();
        for reminder in reminders {
            let minutes = reminder.num_minutes();
            if !(1..=30 * 24 * 60).contains(&minutes) {
                return Err(ScheduleError::ReminderRange(format_duration(*reminder)));
            }
            kept.push(Duration::minutes(minutes));
        }
        kept.sort_by(|a, b| b.cmp(a));
        kept.dedup();
        if kept.len() > MAX_REMINDERS {
            return Err(ScheduleError::TooManyReminders);
        }
        let grace_minutes = grace.num_minutes();
        if !(0..=7 * 24 * 60).contains(&grace_minutes) || grace < Duration::zero() {
            return Err(ScheduleError::GraceRange(format_duration(grace)));
        }
        Ok(ScheduleSettings {
            deadlines,
            reminders: kept,
            grace: Duration::minutes(grace_minutes),
            early_resolution,
            zone: rule_zone(deadlines),
        })
    }

    /// The same settings in time zone `zone` (a weekly rule keeps its own zone).
    #[must_use]
    pub fn with_zone(mut self, zone: Tz) -> ScheduleSettings {
        self.zone = match self.deadlines {
            Schedule::Weekly(weekly) => weekly.zone,
            Schedule::Manual | Schedule::EveryDays(_) => zone,
        };
        self
    }

    /// The game's time zone: the weekly rule's, or the one set beside any other rule (UTC
    /// unless the GM chose one). Deadlines are shown and typed in it.
    pub fn zone(&self) -> Tz {
        self.zone
    }

    pub fn deadlines(&self) -> Schedule {
        self.deadlines
    }

    /// Longest first.
    pub fn reminders(&self) -> &[Duration] {
        &self.reminders
    }

    pub fn grace(&self) -> Duration {
        self.grace
    }

    pub fn early_resolution(&self) -> bool {
        self.early_resolution
    }

    /// The deadline of the turn after one whose deadline was `previous`, never at or before
    /// `now`, days counted in the game's zone. `None` for a manual schedule.
    pub fn next_deadline(
        &self,
        previous: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        self.deadlines.next_deadline_in(previous, now, self.zone)
    }

    /// When orders stop being taken and the turn resolves: the deadline plus the grace period.
    pub fn closes_at(&self, deadline: DateTime<Utc>) -> DateTime<Utc> {
        deadline + self.grace
    }
}

impl fmt::Display for ScheduleSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.deadlines)?;
        if !self.reminders.is_empty() {
            let list: Vec<String> = self.reminders.iter().map(|d| format_duration(*d)).collect();
            write!(f, "; reminders {} before", list.join(", "))?;
        }
        if self.grace > Duration::zero() {
            write!(f, "; grace {}", format_duration(self.grace))?;
        }
        if self.early_resolution {
            f.write_str("; resolves early once every active player has ordered")?;
        }
        Ok(())
    }
}

/// A moment as the game's players read it: the local date and time in `zone` with its
/// abbreviation, and UTC beside it when the zone is not UTC (`2026-11-27 18:00 GMT (18:00 UTC)`,
/// the UTC date added when it differs).
pub fn local_time(at: DateTime<Utc>, zone: Tz) -> String {
    let local = at.with_timezone(&zone);
    let shown = local.format("%Y-%m-%d %H:%M %Z").to_string();
    if zone == Tz::UTC {
        return shown;
    }
    if local.date_naive() == at.date_naive() {
        format!("{shown} ({} UTC)", at.format("%H:%M"))
    } else {
        format!("{shown} ({} UTC)", at.format("%Y-%m-%d %H:%M"))
    }
}

/// A deadline typed as a local date and time (`YYYY-MM-DD HH:MM`, or the form's
/// `datetime-local`) in the game's zone. A time the clocks skip is refused; in the hour they
/// go back, the earlier of the two is taken. The error is in words, for the form and `gm`.
pub fn local_deadline(text: &str, zone: Tz) -> Result<DateTime<Utc>, String> {
    use chrono::TimeZone;
    let naive = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|format| chrono::NaiveDateTime::parse_from_str(text.trim(), format).ok())
        .ok_or_else(|| {
            format!("Deadline: {text:?} is not a date and time (YYYY-MM-DD HH:MM, {zone}).")
        })?;
    zone.from_local_datetime(&naive)
        .earliest()
        .map(|at| at.with_timezone(&Utc))
        .ok_or_else(|| format!("Deadline: {text} does not exist in {zone} (the clocks skip it)."))
}

/// `48h`, `6h`, `90m`, `2d`, `1h30m`, `0`: days, hours and minutes, in that order.
pub fn parse_duration(text: &str) -> Result<Duration, ScheduleError> {
    let error = || ScheduleError::Duration(text.to_owned());
    let trimmed = text.trim().to_ascii_lowercase();
    if trimmed == "0" {
        return Ok(Duration::zero());
    }
    let mut total = Duration::zero();
    let mut digits = String::new();
    let mut last_unit = 0;
    for c in trimmed.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let (rank, unit) = match c {
            'd' => (1, Duration::days(1)),
            'h' => (2, Duration::hours(1)),
            'm' => (3, Duration::minutes(1)),
            _ => return Err(error()),
        };
        let count: i32 = digits.parse().map_err(|_| error())?;
        if rank <= last_unit || count > 100_000 {
            return Err(error());
        }
        last_unit = rank;
        total += unit * count;
        digits.clear();
    }
    if !digits.is_empty() || last_unit == 0 {
        return Err(error());
    }
    Ok(total)
}

/// The inverse of [`parse_duration`] for whole minutes: `2d`, `6h`, `1h30m`.
pub fn format_duration(duration: Duration) -> String {
    let minutes = duration.num_minutes();
    if minutes <= 0 {
        return minutes.to_string();
    }
    let (days, hours, minutes) = (minutes / 1440, minutes % 1440 / 60, minutes % 60);
    let mut text = String::new();
    for (count, unit) in [(days, 'd'), (hours, 'h'), (minutes, 'm')] {
        if count > 0 {
            text.push_str(&format!("{count}{unit}"));
        }
    }
    text
}

#[cfg(test)]
mod tests;
