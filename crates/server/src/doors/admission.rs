//! Who may hold a connection: at most so many in all and so many per peer, so that one client
//! cannot take every file descriptor and starve the others (or the health check). When a door
//! is full, the slowest connection makes room for the newcomer ("shed the slow ones first"):
//! the one of the same peer (when that peer is at its cap) or of the peer holding the most
//! connections (when the door is full), that has been idle the longest, or, failing that, whose
//! request has run the longest. So a flood sheds its own connections, and a new client,
//! including a health check from the same address, still gets in.
//!
//! A peer is an IPv4 address, or an IPv6 /64 (what one subscriber line usually gets).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Which connections may be shed to make room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shedding {
    /// Any: idle ones first (longest idle first), then busy ones (longest busy first).
    Slowest,
    /// Only connections idle for at least this long (a mail transaction in progress is kept).
    IdleFor(Duration),
}

/// The connections of one door.
pub struct Admission {
    total_cap: usize,
    peer_cap: usize,
    shedding: Shedding,
    registry: Mutex<Registry>,
    /// Woken whenever a connection leaves, for those waiting for room.
    released: Notify,
    epoch: Instant,
}

#[derive(Default)]
struct Registry {
    peers: HashMap<IpAddr, Vec<Arc<Slot>>>,
    total: usize,
    next_id: u64,
    /// Connections waiting for room, per peer and in all: no more than the caps, so that
    /// waiting costs bounded descriptors too.
    waiting: HashMap<IpAddr, usize>,
    waiting_total: usize,
}

/// One admitted connection, as the registry sees it.
struct Slot {
    id: u64,
    /// Milliseconds from the door's epoch to the last change between idle and busy.
    since: AtomicU64,
    busy: AtomicBool,
    shed: Notify,
}

/// An admitted connection: dropping it gives its place back.
pub struct Ticket {
    admission: Arc<Admission>,
    peer: IpAddr,
    slot: Arc<Slot>,
}

impl Admission {
    pub fn new(total_cap: usize, peer_cap: usize, shedding: Shedding) -> Arc<Admission> {
        Arc::new(Admission {
            total_cap: total_cap.max(1),
            peer_cap: peer_cap.max(1),
            shedding,
            registry: Mutex::default(),
            released: Notify::new(),
            epoch: Instant::now(),
        })
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> MutexGuard<'_, Registry> {
        // Nothing panics while the lock is held; a poisoned lock still holds good data.
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many connections are admitted now.
    pub fn len(&self) -> usize {
        self.lock().total
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Admits a connection from `peer`, shedding another to make room if need be; `None` when
    /// the door is full and nothing may be shed.
    pub fn try_admit(self: &Arc<Self>, peer: IpAddr) -> Option<Ticket> {
        self.try_admit_capped(peer, true)
    }

    /// As [`Admission::try_admit`]; a peer not `per_peer` capped (a trusted proxy) is held to
    /// the total cap only.
    pub fn try_admit_capped(self: &Arc<Self>, peer: IpAddr, per_peer: bool) -> Option<Ticket> {
        let peer = peer_key(peer);
        let now = self.now_ms();
        let mut registry = self.lock();
        let of_peer = registry.peers.get(&peer).map_or(0, Vec::len);
        if per_peer && of_peer >= self.peer_cap {
            self.shed_one(&mut registry, peer, now)?;
        } else if registry.total >= self.total_cap {
            let largest = registry
                .peers
                .iter()
                .max_by_key(|(_, slots)| slots.len())
                .map(|(peer, _)| *peer)?;
            self.shed_one(&mut registry, largest, now)?;
        }
        registry.next_id += 1;
        let slot = Arc::new(Slot {
            id: registry.next_id,
            since: AtomicU64::new(now),
            busy: AtomicBool::new(false),
            shed: Notify::new(),
        });
        registry.peers.entry(peer).or_default().push(slot.clone());
        registry.total += 1;
        Some(Ticket {
            admission: self.clone(),
            peer,
            slot,
        })
    }

    /// As [`Admission::try_admit`], but waits up to `wait` for room when the door is full (as
    /// many connections may wait as may be admitted, per peer and in all; beyond that, `None`
    /// at once).
    pub async fn admit(self: &Arc<Self>, peer: IpAddr, wait: Duration) -> Option<Ticket> {
        if let Some(ticket) = self.try_admit(peer) {
            return Some(ticket);
        }
        let _waiting = Waiting::enter(self, peer_key(peer))?;
        let deadline = Instant::now() + wait;
        loop {
            let released = self.released.notified();
            if let Some(ticket) = self.try_admit(peer) {
                return Some(ticket);
            }
            if tokio::time::timeout_at(deadline, released).await.is_err() {
                return self.try_admit(peer);
            }
        }
    }

    /// Sheds the connection of `peer` that may best go; `None` if none may.
    fn shed_one(&self, registry: &mut Registry, peer: IpAddr, now: u64) -> Option<()> {
        let slots = registry.peers.get_mut(&peer)?;
        let victim = slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| match self.shedding {
                Shedding::Slowest => true,
                Shedding::IdleFor(idle) => {
                    !slot.busy.load(Ordering::Relaxed)
                        && now.saturating_sub(slot.since.load(Ordering::Relaxed))
                            >= u64::try_from(idle.as_millis()).unwrap_or(u64::MAX)
                }
            })
            .min_by_key(|(_, slot)| {
                (
                    slot.busy.load(Ordering::Relaxed),
                    slot.since.load(Ordering::Relaxed),
                )
            })
            .map(|(index, _)| index)?;
        let slot = slots.swap_remove(victim);
        if slots.is_empty() {
            registry.peers.remove(&peer);
        }
        registry.total -= 1;
        // Stored if the connection is not waiting yet: it sees it at its next look.
        slot.shed.notify_one();
        Some(())
    }

    fn release(&self, peer: IpAddr, id: u64) {
        let mut registry = self.lock();
        if let Some(slots) = registry.peers.get_mut(&peer)
            && let Some(index) = slots.iter().position(|slot| slot.id == id)
        {
            slots.swap_remove(index);
            if slots.is_empty() {
                registry.peers.remove(&peer);
            }
            registry.total -= 1;
        }
        drop(registry);
        self.released.notify_waiters();
    }
}

/// A connection waiting for room, counted while it waits.
struct Waiting<'a> {
    admission: &'a Admission,
    peer: IpAddr,
}

impl<'a> Waiting<'a> {
    fn enter(admission: &'a Admission, peer: IpAddr) -> Option<Waiting<'a>> {
        let mut registry = admission.lock();
        let of_peer = registry.waiting.get(&peer).copied().unwrap_or(0);
        if of_peer >= admission.peer_cap || registry.waiting_total >= admission.total_cap {
            return None;
        }
        *registry.waiting.entry(peer).or_default() += 1;
        registry.waiting_total += 1;
        Some(Waiting { admission, peer })
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut registry = self.admission.lock();
        registry.waiting_total = registry.waiting_total.saturating_sub(1);
        if let Some(count) = registry.waiting.get_mut(&self.peer) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                registry.waiting.remove(&self.peer);
            }
        }
    }
}

impl Ticket {
    /// The connection is serving a request (or a mail transaction): shed it last.
    pub fn busy(&self) {
        self.mark(true);
    }

    /// The connection waits for its client.
    pub fn idle(&self) {
        self.mark(false);
    }

    fn mark(&self, busy: bool) {
        self.slot
            .since
            .store(self.admission.now_ms(), Ordering::Relaxed);
        self.slot.busy.store(busy, Ordering::Relaxed);
    }

    /// Completes when the connection was shed to make room for another: close it.
    pub async fn shed(&self) {
        self.slot.shed.notified().await;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.admission.release(self.peer, self.slot.id);
    }
}

/// The address a peer is counted under: IPv4 as is (also when mapped into IPv6), IPv6 by its
/// /64.
fn peer_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[tokio::test]
    async fn a_peer_at_its_cap_sheds_its_own_longest_idle_connection() {
        let door = Admission::new(10, 2, Shedding::Slowest);
        let first = door.try_admit(ip("10.0.0.1")).unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        let second = door.try_admit(ip("10.0.0.1")).unwrap();
        second.busy();
        let other = door.try_admit(ip("10.0.0.2")).unwrap();
        let third = door.try_admit(ip("10.0.0.1")).unwrap();
        assert_eq!(door.len(), 3);
        // The idle one went, although the busy one is younger.
        tokio::time::timeout(Duration::from_millis(100), first.shed())
            .await
            .unwrap();
        drop(first);
        assert_eq!(door.len(), 3);
        // Then the idle newcomer before the busy one; a busy one only when all are busy.
        let fourth = door.try_admit(ip("10.0.0.1")).unwrap();
        tokio::time::timeout(Duration::from_millis(100), third.shed())
            .await
            .unwrap();
        drop(third);
        fourth.busy();
        let fifth = door.try_admit(ip("10.0.0.1")).unwrap();
        tokio::time::timeout(Duration::from_millis(100), second.shed())
            .await
            .unwrap();
        drop((second, fourth, fifth, other));
        assert!(door.is_empty());
    }

    #[tokio::test]
    async fn a_trusted_proxy_is_held_to_the_total_cap_only() {
        let door = Admission::new(4, 2, Shedding::IdleFor(Duration::from_secs(60)));
        let proxy = ip("10.0.0.1");
        let held: Vec<Ticket> = (0..4)
            .map(|_| door.try_admit_capped(proxy, false).unwrap())
            .collect();
        assert_eq!(door.len(), 4, "beyond the per-peer cap of 2");
        assert!(
            door.try_admit_capped(proxy, false).is_none(),
            "not beyond the total"
        );
        drop(held);
        // Capped, the same peer gets its two only (nothing idle long enough to shed).
        let _a = door.try_admit(proxy).unwrap();
        let _b = door.try_admit(proxy).unwrap();
        assert!(door.try_admit(proxy).is_none());
    }

    #[tokio::test]
    async fn a_full_door_sheds_the_largest_peer_not_a_small_one() {
        let door = Admission::new(3, 3, Shedding::Slowest);
        let small = door.try_admit(ip("10.0.0.9")).unwrap();
        let hogs: Vec<Ticket> = (0..2)
            .map(|_| door.try_admit(ip("10.0.0.1")).unwrap())
            .collect();
        let newcomer = door.try_admit(ip("10.0.0.5")).unwrap();
        assert_eq!(door.len(), 3);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), small.shed())
                .await
                .is_err(),
            "the small peer kept its connection"
        );
        drop((small, hogs, newcomer));
        assert!(door.is_empty());
    }

    #[tokio::test]
    async fn busy_or_recently_active_mail_sessions_are_not_shed_and_the_newcomer_waits() {
        let door = Admission::new(10, 1, Shedding::IdleFor(Duration::from_secs(60)));
        let session = door.try_admit(ip("10.0.0.1")).unwrap();
        assert!(door.try_admit(ip("10.0.0.1")).is_none());
        let waiting = tokio::spawn({
            let door = door.clone();
            async move {
                door.admit(ip("10.0.0.1"), Duration::from_secs(5))
                    .await
                    .is_some()
            }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(session);
        assert!(waiting.await.unwrap());
        let timed_out = door.admit(ip("10.0.0.2"), Duration::from_millis(10)).await;
        assert!(timed_out.is_some(), "another peer is not held up");
    }

    #[tokio::test]
    async fn no_more_may_wait_than_may_be_admitted() {
        let door = Admission::new(10, 1, Shedding::IdleFor(Duration::from_secs(60)));
        let _session = door.try_admit(ip("10.0.0.1")).unwrap();
        let waiter = tokio::spawn({
            let door = door.clone();
            async move {
                door.admit(ip("10.0.0.1"), Duration::from_secs(5))
                    .await
                    .is_some()
            }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        let started = Instant::now();
        assert!(
            door.admit(ip("10.0.0.1"), Duration::from_secs(5))
                .await
                .is_none()
        );
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "refused at once"
        );
        waiter.abort();
    }

    #[test]
    fn ipv6_peers_are_counted_by_their_64() {
        assert_eq!(
            peer_key(ip("2001:db8:1:2:aaaa::1")),
            peer_key(ip("2001:db8:1:2:bbbb::2"))
        );
        assert_ne!(
            peer_key(ip("2001:db8:1:2::1")),
            peer_key(ip("2001:db8:1:3::1"))
        );
        assert_eq!(peer_key(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
    }
}
