//! Failed GM logins counted per client address, besides the per-name count kept in the
//! database (`accounts::log_in`): one address trying many names is stopped too. Kept in the
//! process (a client's failures are forgotten on restart, and each process counts its own):
//! it is a brake on guessing, and the per-name limit stays the durable one.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Duration, Utc};

/// Failed GM logins one client address may make within the window, by default.
pub const DEFAULT_MAX_FAILURES_PER_CLIENT: u32 = 30;

/// Beyond this many addresses, those whose failures are all out of the window are forgotten.
const SWEEP_ABOVE: usize = 10_000;

pub struct ClientFailures {
    max: u32,
    window: Duration,
    recent: Mutex<HashMap<IpAddr, VecDeque<DateTime<Utc>>>>,
}

/// A login attempt counted against its client until it is withdrawn (it did not fail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reserved {
    client: IpAddr,
    at: DateTime<Utc>,
}

impl ClientFailures {
    pub fn new(max: u32, window: Duration) -> ClientFailures {
        ClientFailures {
            max: max.max(1),
            window,
            recent: Mutex::new(HashMap::new()),
        }
    }

    /// Counts an attempt from `client` before its password is checked (so attempts arriving
    /// together cannot each see room for one more); `None` when the client had its failures
    /// for the window already.
    pub fn reserve(&self, client: IpAddr, now: DateTime<Utc>) -> Option<Reserved> {
        let client = key(client);
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if recent.len() > SWEEP_ABOVE {
            let since = now - self.window;
            recent.retain(|_, times| times.back().is_some_and(|last| *last > since));
        }
        let times = recent.entry(client).or_default();
        while times
            .front()
            .is_some_and(|first| *first <= now - self.window)
        {
            times.pop_front();
        }
        if times.len() >= usize::try_from(self.max).unwrap_or(usize::MAX) {
            return None;
        }
        times.push_back(now);
        Some(Reserved { client, at: now })
    }

    /// Takes back an attempt that did not fail (the password matched, or was never checked).
    pub fn withdraw(&self, reserved: Reserved) {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(times) = recent.get_mut(&reserved.client)
            && let Some(at) = times.iter().position(|t| *t == reserved.at)
        {
            times.remove(at);
        }
    }

    /// The window, for telling a locked-out client how long to wait.
    pub fn window(&self) -> Duration {
        self.window
    }
}

impl Default for ClientFailures {
    fn default() -> Self {
        ClientFailures::new(
            DEFAULT_MAX_FAILURES_PER_CLIENT,
            Duration::minutes(crate::secrets::DEFAULT_GM_LOGIN_WINDOW_MINUTES),
        )
    }
}

/// One subscriber line usually gets an IPv6 /64: count it as one client.
fn key(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => {
            let [a, b, c, d, ..] = v6.segments();
            IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_has_its_own_budget_within_the_window() {
        let failures = ClientFailures::new(2, Duration::minutes(15));
        let now = DateTime::<Utc>::UNIX_EPOCH;
        let (a, b): (IpAddr, IpAddr) = (
            "203.0.113.7".parse().unwrap(),
            "2001:db8::1".parse().unwrap(),
        );
        assert!(failures.reserve(a, now).is_some());
        let second = failures.reserve(a, now).unwrap();
        assert!(failures.reserve(a, now).is_none(), "a third is refused");
        assert!(failures.reserve(b, now).is_some(), "another client is not");
        // The same /64 is the same client.
        assert!(
            failures
                .reserve("2001:db8::2".parse().unwrap(), now)
                .is_some()
        );
        assert!(
            failures
                .reserve("2001:db8::3".parse().unwrap(), now)
                .is_none()
        );
        failures.withdraw(second);
        assert!(
            failures.reserve(a, now).is_some(),
            "a withdrawn attempt is not counted"
        );
        assert!(
            failures.reserve(a, now + Duration::minutes(15)).is_some(),
            "the window passed"
        );
    }
}
