use super::*;
use serde_json::{Value, json};

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    serde_json::from_value(serde_json::to_value(value).unwrap()).unwrap()
}

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn friday_six_london() -> Schedule {
    "weekly Friday 18:00 Europe/London".parse().unwrap()
}

#[test]
fn weekly_deadlines_keep_the_local_time_across_both_clock_changes() {
    let schedule = friday_six_london();
    // Friday 28 March 2025 is GMT (UTC+0); the clocks go forward on the 30th, so Friday
    // 4 April is BST (UTC+1).
    let spring = schedule.next_deadline(
        Some(utc("2025-03-28T18:00:00Z")),
        utc("2025-03-28T18:00:00Z"),
    );
    assert_eq!(spring, Some(utc("2025-04-04T17:00:00Z")));
    // Friday 24 October 2025 is BST; Friday 31 October is GMT again.
    let autumn = schedule.next_deadline(
        Some(utc("2025-10-24T17:00:00Z")),
        utc("2025-10-24T17:00:00Z"),
    );
    assert_eq!(autumn, Some(utc("2025-10-31T18:00:00Z")));
}

#[test]
fn a_weekly_deadline_is_the_next_slot_after_now_when_the_last_one_is_long_gone() {
    let schedule = friday_six_london();
    // Tuesday 1 July 2025: the next Friday 18:00 BST is 4 July, 17:00 UTC.
    assert_eq!(
        schedule.next_deadline(
            Some(utc("2025-06-06T17:00:00Z")),
            utc("2025-07-01T09:00:00Z")
        ),
        Some(utc("2025-07-04T17:00:00Z"))
    );
    // On the Friday itself, before 18:00, the deadline is that evening; after it, next week.
    assert_eq!(
        schedule.next_deadline(None, utc("2025-07-04T16:59:00Z")),
        Some(utc("2025-07-04T17:00:00Z"))
    );
    assert_eq!(
        schedule.next_deadline(None, utc("2025-07-04T17:00:00Z")),
        Some(utc("2025-07-11T17:00:00Z"))
    );
}

#[test]
fn local_times_the_clock_skips_or_repeats_have_one_deadline() {
    // Sunday 30 March 2025, London: 01:00 GMT jumps to 02:00 BST; 01:30 never shows.
    let gap: Schedule = "Sunday 01:30 Europe/London".parse().unwrap();
    assert_eq!(
        gap.next_deadline(None, utc("2025-03-29T12:00:00Z")),
        Some(utc("2025-03-30T01:30:00Z"))
    );
    // Sunday 26 October 2025: 01:30 shows twice (BST, then GMT); the first counts.
    let twice: Schedule = "Sunday 01:30 Europe/London".parse().unwrap();
    assert_eq!(
        twice.next_deadline(None, utc("2025-10-25T12:00:00Z")),
        Some(utc("2025-10-26T00:30:00Z"))
    );
}

#[test]
fn every_n_days_keeps_its_rhythm_and_never_falls_in_the_past() {
    let every = Schedule::EveryDays(7);
    let last = utc("2025-01-03T18:00:00Z");
    assert_eq!(
        every.next_deadline(Some(last), last),
        Some(utc("2025-01-10T18:00:00Z"))
    );
    assert_eq!(
        every.next_deadline(Some(last), utc("2025-01-20T00:00:00Z")),
        Some(utc("2025-01-24T18:00:00Z"))
    );
    assert_eq!(Schedule::Manual.next_deadline(Some(last), last), None);
}

#[test]
fn schedules_read_and_write_the_same_text_and_json() {
    for text in [
        "manual",
        "every day",
        "every 7 days",
        "weekly Friday 18:00 Europe/London",
    ] {
        let schedule: Schedule = text.parse().unwrap();
        assert_eq!(schedule.to_string(), text);
        assert_eq!(round_trip(&schedule), schedule);
    }
    assert_eq!(
        "fri 18:00 Europe/London".parse::<Schedule>().unwrap(),
        friday_six_london()
    );
    for bad in [
        "",
        "weekly",
        "every 0 days",
        "every 400 days",
        "Funday 18:00 Europe/London",
        "Friday 25:00 Europe/London",
        "Friday 18:60 Europe/London",
        "Friday 18:00 Europe/Narnia",
    ] {
        assert!(bad.parse::<Schedule>().is_err(), "{bad:?}");
    }
    let settings = ScheduleSettings::new(
        friday_six_london(),
        &[Duration::hours(6), Duration::hours(48), Duration::hours(6)],
        Duration::hours(2),
        true,
    )
    .unwrap();
    assert_eq!(
        settings.reminders(),
        [Duration::hours(48), Duration::hours(6)]
    );
    assert_eq!(round_trip(&settings), settings);
    // A schedule stored before reminders existed reads as having none.
    assert_eq!(
        serde_json::from_value::<ScheduleSettings>(json!({ "kind": "every_days", "days": 7 }))
            .unwrap(),
        ScheduleSettings::from(Schedule::EveryDays(7))
    );
    assert!(
        ScheduleSettings::new(
            Schedule::Manual,
            &[Duration::zero()],
            Duration::zero(),
            false
        )
        .is_err()
    );
    assert!(ScheduleSettings::new(Schedule::Manual, &[], Duration::days(8), false).is_err());
}

#[test]
fn durations_read_as_written() {
    for (text, minutes) in [
        ("48h", 2880),
        ("6h", 360),
        ("90m", 90),
        ("2d", 2880),
        ("1h30m", 90),
        ("0", 0),
    ] {
        assert_eq!(
            parse_duration(text).unwrap(),
            Duration::minutes(minutes),
            "{text}"
        );
    }
    for bad in ["", "h", "6", "6x", "30m1h", "-6h", "6h6h"] {
        assert!(parse_duration(bad).is_err(), "{bad:?}");
    }
    assert_eq!(format_duration(Duration::minutes(90)), "1h30m");
    assert_eq!(format_duration(Duration::hours(48)), "2d");
}

#[test]
fn the_stored_form_keeps_its_keys() {
    let settings = ScheduleSettings::new(
        friday_six_london(),
        &[Duration::hours(6)],
        Duration::minutes(30),
        true,
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&settings).unwrap(),
        json!({
            "kind": "weekly", "weekday": "Friday", "time": "18:00", "zone": "Europe/London",
            "reminder_minutes": [360], "grace_minutes": 30, "early_resolution": true,
        })
    );
    let every = ScheduleSettings::from(Schedule::EveryDays(7)).with_zone(chrono_tz::Europe::Paris);
    assert_eq!(
        serde_json::to_value(&every).unwrap(),
        json!({
            "kind": "every_days", "days": 7, "zone": "Europe/Paris",
            "reminder_minutes": [], "grace_minutes": 0, "early_resolution": false,
        })
    );
    assert_eq!(
        serde_json::to_value(Schedule::Manual).unwrap(),
        json!({ "kind": "manual" })
    );
}

#[test]
fn a_bad_stored_schedule_is_an_error_never_a_default() {
    let bad: [Value; 8] = [
        // A reminder that is not a number of minutes was once dropped without a word.
        json!({ "kind": "manual", "reminder_minutes": [360, "2 days"] }),
        json!({ "kind": "manual", "reminder_minutes": [0] }),
        json!({ "kind": "manual", "grace_minutes": "an hour" }),
        json!({ "kind": "manual", "early_resolution": "yes" }),
        json!({ "kind": "manual", "zone": "London" }),
        json!({ "kind": "every_days" }),
        json!({ "kind": "weekly", "weekday": "Friday", "time": "18:00" }),
        json!({ "kind": "fortnightly" }),
    ];
    for value in bad {
        assert!(
            serde_json::from_value::<ScheduleSettings>(value.clone()).is_err(),
            "{value}"
        );
    }
    assert!(
        serde_json::from_value::<ScheduleSettings>(json!({ "kind": "manual", "remind": [60] }))
            .is_err()
    );
    assert!(
        serde_json::from_value::<Schedule>(json!({ "kind": "manual", "grace_minutes": 0 }))
            .is_err()
    );
}

/// Issue 27: every N days is counted on the game's local calendar, so a 12:00 deadline in
/// London stays at 12:00 on the London clock across both changes (not 13:00 or 11:00, as
/// adding 7 × 24 hours gives).
#[test]
fn every_n_days_keeps_the_local_time_of_day_across_both_clock_changes() {
    let london: Tz = "Europe/London".parse().unwrap();
    let settings = ScheduleSettings::from(Schedule::EveryDays(7)).with_zone(london);
    // Saturday 2025-03-29 12:00 GMT; the clocks go forward on the Sunday.
    let before_spring = utc("2025-03-29T12:00:00Z");
    assert_eq!(
        settings.next_deadline(Some(before_spring), before_spring),
        Some(utc("2025-04-05T11:00:00Z")),
        "12:00 BST"
    );
    // Saturday 2025-10-25 12:00 BST; the clocks go back on the Sunday.
    let before_autumn = utc("2025-10-25T11:00:00Z");
    assert_eq!(
        settings.next_deadline(Some(before_autumn), before_autumn),
        Some(utc("2025-11-01T12:00:00Z")),
        "12:00 GMT"
    );
    // Long gone: the first slot after now, still at 12:00 local.
    assert_eq!(
        settings.next_deadline(Some(before_spring), utc("2025-07-01T00:00:00Z")),
        Some(utc("2025-07-05T11:00:00Z"))
    );
    // A weekly 12:00 slot likewise.
    let weekly = ScheduleSettings::from(
        "weekly Saturday 12:00 Europe/London"
            .parse::<Schedule>()
            .unwrap(),
    );
    assert_eq!(
        weekly.next_deadline(Some(before_spring), before_spring),
        Some(utc("2025-04-05T11:00:00Z"))
    );
    assert_eq!(
        weekly.next_deadline(Some(before_autumn), before_autumn),
        Some(utc("2025-11-01T12:00:00Z"))
    );
}
