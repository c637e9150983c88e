//! Time as a parameter: the service reads the time only through a [`Clock`], so tests can
//! set it.

use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Duration, Utc};

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The wall clock: the one place in the service allowed to read it.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(clippy::disallowed_methods)]
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that moves only when told to.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<DateTime<Utc>>,
}

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        ManualClock {
            now: Mutex::new(start),
        }
    }

    pub fn set(&self, to: DateTime<Utc>) {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner) = to;
    }

    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let start = DateTime::parse_from_rfc3339("1805-10-21T11:45:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(Duration::minutes(15));
        assert_eq!(clock.now(), start + Duration::minutes(15));
        clock.set(start);
        assert_eq!(clock.now(), start);
    }
}
