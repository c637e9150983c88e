//! Time as a parameter: the service reads the time only through a [`Clock`], so tests can
//! set it.

use std::sync::{Arc, Mutex, PoisonError};

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

/// Test-only: `ADMIRALTY_NOW=2026-03-27T18:00:00Z` fixes the time a `gm` process sees, so a
/// test can run the real binary at a moment of its choosing. Never set it in production.
pub const FIXED_NOW_VAR: &str = "ADMIRALTY_NOW";

/// The clock `gm` runs on: the wall clock, or the fixed time of `ADMIRALTY_NOW` (test-only).
pub fn service_clock() -> Result<Arc<dyn Clock>, String> {
    match std::env::var(FIXED_NOW_VAR) {
        Ok(text) if !text.trim().is_empty() => {
            let at = DateTime::parse_from_rfc3339(text.trim())
                .map_err(|e| format!("{FIXED_NOW_VAR}={text:?} is not an RFC 3339 time: {e}"))?;
            Ok(Arc::new(ManualClock::new(at.with_timezone(&Utc))))
        }
        _ => Ok(Arc::new(SystemClock)),
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
