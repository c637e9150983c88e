//! The network doors, HTTP and SMTP, against clients that never finish: what both share. Each
//! door admits connections through an [`admission::Admission`] (caps per peer and in all,
//! shedding the slowest), and both stop together on one [`Stop`]: no new connection from the
//! moment a stop is asked for, open ones asked to finish, and after the grace period closed
//! whatever they are doing.

pub mod admission;
pub mod http;

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Running,
    /// Take no new connection; let the open ones finish.
    Draining,
    /// Close every connection now.
    Closed,
}

/// Where the doors learn that the process is stopping. Cheap to clone.
#[derive(Clone)]
pub struct Stop {
    phase: watch::Receiver<Phase>,
}

impl Stop {
    /// A stop that starts when `signal` completes, and closes every connection `grace` later.
    pub fn on(signal: impl Future<Output = ()> + Send + 'static, grace: Duration) -> Stop {
        let (switch, phase) = watch::channel(Phase::Running);
        tokio::spawn(async move {
            signal.await;
            switch.send_replace(Phase::Draining);
            tokio::time::sleep(grace).await;
            switch.send_replace(Phase::Closed);
        });
        Stop { phase }
    }

    /// A stop that never comes (the doors run until their task is dropped).
    pub fn never() -> Stop {
        let (_, phase) = watch::channel(Phase::Running);
        Stop { phase }
    }

    async fn reached(&self, phase: Phase) {
        let mut watching = self.phase.clone();
        if watching.wait_for(|now| *now >= phase).await.is_err() {
            // The switch is gone without reaching it: it never will.
            std::future::pending::<()>().await;
        }
    }

    /// Completes once the doors must take no new connection.
    pub async fn draining(&self) {
        self.reached(Phase::Draining).await;
    }

    /// Completes once every connection must be closed.
    pub async fn closed(&self) {
        self.reached(Phase::Closed).await;
    }

    pub fn is_draining(&self) -> bool {
        *self.phase.borrow() >= Phase::Draining
    }
}

/// Raises the soft limit on open files to the hard limit, so that the doors' caps, not the
/// kernel, decide how many connections are held (a soft limit of 1,024 is common). Returns the
/// limit now in force.
pub fn raise_open_file_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    // Linux refuses an infinite soft limit on open files: take a large finite one.
    let wanted = limit.maximum.unwrap_or(1 << 20);
    if limit.current.is_some_and(|current| current >= wanted) {
        return limit.current;
    }
    let raised = Rlimit {
        current: Some(wanted),
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => {
            tracing::info!(from = ?limit.current, to = wanted, "raised the open-file limit");
            Some(wanted)
        }
        Err(error) => {
            tracing::warn!(%error, limit = ?limit.current, "cannot raise the open-file limit");
            limit.current
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stop_drains_then_closes_after_its_grace() {
        let (tell, told) = tokio::sync::oneshot::channel::<()>();
        let stop = Stop::on(
            async {
                let _ = told.await;
            },
            Duration::from_millis(50),
        );
        assert!(!stop.is_draining());
        tell.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(1), stop.draining())
            .await
            .unwrap();
        assert!(stop.is_draining());
        let started = tokio::time::Instant::now();
        tokio::time::timeout(Duration::from_secs(1), stop.closed())
            .await
            .unwrap();
        assert!(started.elapsed() >= Duration::from_millis(30));
        assert!(
            tokio::time::timeout(Duration::from_millis(20), Stop::never().draining())
                .await
                .is_err()
        );
    }
}
