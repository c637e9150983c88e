//! The one way into argon2: at most `workers` hashes at once (each fills 19 MiB), run on the
//! blocking threads, each in a buffer of blocks kept for reuse. Without it every concurrent
//! login took 19 MiB of its own, and the allocator kept most of it afterwards (100 logins took
//! the process from 27 MiB to 1.9 GiB, for good). With it, argon2 never holds more than
//! `workers` buffers, allocated once: the peak is bounded and stays put.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use argon2::Block;
use tokio::sync::{Semaphore, TryAcquireError};

use super::argon::BLOCKS;

/// How a caller waits for its turn at the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// A web request: waits only if fewer than the gate's `queue` are waiting already,
    /// otherwise is refused at once ([`Busy`]), so a flood of logins gets quick refusals
    /// rather than a queue that grows without end.
    Queue,
    /// Mail and the command line: waits for its turn (their own workers bound how many wait).
    Always,
}

/// Refused: every worker is busy and the queue is full. Try again in a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("every password check is busy: try again in a few seconds")]
pub struct Busy;

/// See the module's comment. One per process ([`super::gate`]); tests make their own.
pub struct Gate {
    permits: Arc<Semaphore>,
    queue: usize,
    waiting: AtomicUsize,
    /// The blocks of finished hashes, for the next ones: never more than `workers`.
    buffers: Arc<Mutex<Vec<Box<[Block]>>>>,
    /// How many hashes and checks ran, for tests and logs.
    runs: Arc<AtomicU64>,
}

/// A place in the queue, given back however the wait ends (a client that goes away too).
struct Waiting<'g>(&'g AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Gate {
    /// A gate running at most `workers` (at least 1) hashes at once, with at most `queue` web
    /// requests waiting for one.
    pub fn new(workers: usize, queue: usize) -> Gate {
        Gate {
            permits: Arc::new(Semaphore::new(workers.max(1))),
            queue,
            waiting: AtomicUsize::new(0),
            buffers: Arc::new(Mutex::new(Vec::new())),
            runs: Arc::new(AtomicU64::new(0)),
        }
    }

    /// How many hashes and checks have run through this gate.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Acquire)
    }

    /// Runs `work` in a buffer of [`BLOCKS`] blocks on a blocking thread once a worker is free.
    /// The worker stays taken until `work` ends, even if the caller stops waiting for it.
    pub(super) async fn run<T: Send + 'static>(
        &self,
        wait: Wait,
        work: impl FnOnce(&mut [Block]) -> T + Send + 'static,
    ) -> Result<T, Busy> {
        let permit = match self.permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::Closed) => return Err(Busy),
            Err(TryAcquireError::NoPermits) => {
                let _place = match wait {
                    Wait::Always => None,
                    Wait::Queue => {
                        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.queue {
                            self.waiting.fetch_sub(1, Ordering::AcqRel);
                            return Err(Busy);
                        }
                        Some(Waiting(&self.waiting))
                    }
                };
                self.permits
                    .clone()
                    .acquire_owned()
                    .await
                    .map_err(|_| Busy)?
            }
        };
        let buffers = self.buffers.clone();
        let runs = self.runs.clone();
        let done = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let spare = buffers.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let mut buffer =
                spare.unwrap_or_else(|| vec![Block::default(); BLOCKS].into_boxed_slice());
            let out = work(&mut buffer);
            runs.fetch_add(1, Ordering::AcqRel);
            buffers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(buffer);
            out
        })
        .await;
        // A panic in argon2 is a bug, not a busy gate; but the caller can only be told "not now".
        done.map_err(|error| {
            tracing::error!(%error, "a password check stopped");
            Busy
        })
    }

    /// The buffers kept for reuse (at most `workers`).
    #[cfg(test)]
    fn buffers_kept(&self) -> usize {
        self.buffers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn no_more_than_the_workers_run_and_the_queue_beyond_is_refused() {
        let gate = Arc::new(Gate::new(2, 3));
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let (release, released) = tokio::sync::watch::channel(false);
        let mut tasks = Vec::new();
        for _ in 0..5 {
            let (gate, running, most) = (gate.clone(), running.clone(), most.clone());
            let mut released = released.clone();
            tasks.push(tokio::spawn(async move {
                gate.run(Wait::Queue, move |memory| {
                    assert_eq!(memory.len(), BLOCKS);
                    let now = running.fetch_add(1, Ordering::AcqRel) + 1;
                    most.fetch_max(now, Ordering::AcqRel);
                    // Held until the test lets go.
                    tokio::runtime::Handle::current()
                        .block_on(released.wait_for(|go| *go))
                        .ok();
                    running.fetch_sub(1, Ordering::AcqRel);
                })
                .await
            }));
        }
        // Two run, three wait: a sixth web request is refused at once, mail still waits.
        while gate.waiting.load(Ordering::Acquire) < 3 || running.load(Ordering::Acquire) < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(gate.run(Wait::Queue, |_| ()).await, Err(Busy));
        let mail = tokio::spawn({
            let gate = gate.clone();
            async move { gate.run(Wait::Always, |_| ()).await }
        });
        release.send(true).unwrap();
        for task in tasks {
            assert_eq!(task.await.unwrap(), Ok(()));
        }
        assert_eq!(mail.await.unwrap(), Ok(()));
        assert_eq!(most.load(Ordering::Acquire), 2);
        assert_eq!(gate.runs(), 6);
        assert!(gate.buffers_kept() <= 2, "{}", gate.buffers_kept());
        assert_eq!(gate.waiting.load(Ordering::Acquire), 0);
    }

    #[tokio::test]
    async fn a_caller_that_stops_waiting_gives_its_place_back() {
        let gate = Arc::new(Gate::new(1, 1));
        let (release, released) = std::sync::mpsc::channel::<()>();
        let holding = tokio::spawn({
            let gate = gate.clone();
            async move {
                gate.run(Wait::Queue, move |_| {
                    released.recv().ok();
                })
                .await
            }
        });
        while gate.permits.available_permits() > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gate.run(Wait::Queue, |_| ()).await }
        });
        while gate.waiting.load(Ordering::Acquire) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        waiting.abort();
        let _ = waiting.await;
        assert_eq!(gate.waiting.load(Ordering::Acquire), 0);
        release.send(()).unwrap();
        assert_eq!(holding.await.unwrap(), Ok(()));
    }
}
