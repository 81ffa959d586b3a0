//! A cap on what one client address holds open at once: connections that
//! are still plain HTTP (a request head, a response being written) and
//! WebSockets. Without it one address could take every file descriptor
//! (HTTP connections that pipeline requests and never read the answers)
//! or every WebSocket slot (sockets that say `hello` with one token over
//! and over), and nobody else could connect.
//!
//! A connection over the cap may wait its turn ([`AddressCap::wait`]):
//! a client that opens a few hundred WebSockets in the same instant has
//! them upgraded 64 at a time rather than the rest closed. The wait is
//! bounded too, in time and in how many may wait, first come first served.
//!
//! Addresses are grouped as the per-address rate limits group them (IPv6
//! by /64). A connection holds its place for as long as it is open.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::rate::group;

/// How many connections each address may hold open, and how many it does.
#[derive(Debug)]
pub(crate) struct AddressCap {
    /// The most per address; 0: no cap.
    max: u32,
    /// The most that may wait for a place, per address.
    queue: u32,
    /// The addresses holding places or waiting for one, and nobody else.
    gates: Mutex<HashMap<IpAddr, Gate>>,
}

/// One address's places, and how many of its connections wait for one.
#[derive(Debug)]
struct Gate {
    places: Arc<Semaphore>,
    waiting: u32,
}

/// One connection's place under its address's cap; given back when
/// dropped.
#[derive(Debug)]
pub(crate) struct Place {
    cap: Arc<AddressCap>,
    addr: IpAddr,
    /// Always `Some` until dropped.
    permit: Option<OwnedSemaphorePermit>,
}

/// The address holds its most already (and, for [`AddressCap::wait`],
/// its queue is full or its turn did not come in time).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Full;

impl AddressCap {
    /// A cap of `max` open connections per address (0: none), with
    /// nobody waiting.
    pub(crate) fn new(max: u32) -> Arc<AddressCap> {
        AddressCap::queued(max, 0)
    }

    /// A cap of `max` open connections per address (0: none), and up to
    /// `queue` more that may [`wait`](AddressCap::wait) for a place.
    pub(crate) fn queued(max: u32, queue: u32) -> Arc<AddressCap> {
        Arc::new(AddressCap {
            max,
            queue,
            gates: Mutex::new(HashMap::new()),
        })
    }

    /// A place for one more connection from `addr`: `Ok(None)` when there
    /// is no cap (nothing to give back), `Err(Full)` when the address
    /// holds its most already.
    pub(crate) fn take(self: &Arc<Self>, addr: IpAddr) -> Result<Option<Place>, Full> {
        if self.max == 0 {
            return Ok(None);
        }
        let addr = group(addr);
        let mut gates = self.lock();
        match self.try_place(&mut gates, addr) {
            Ok(place) => Ok(Some(place)),
            Err(_) => {
                forget_if_unused(&mut gates, addr);
                Err(Full)
            }
        }
    }

    /// Like [`take`](AddressCap::take), but when the address holds its
    /// most already, waits in line (if fewer than the queue's size wait)
    /// for at most `within` until one of its connections closes.
    pub(crate) async fn wait(
        self: &Arc<Self>,
        addr: IpAddr,
        within: Duration,
    ) -> Result<Option<Place>, Full> {
        if self.max == 0 {
            return Ok(None);
        }
        let addr = group(addr);
        let places = {
            let mut gates = self.lock();
            let gate = match self.try_place(&mut gates, addr) {
                Ok(place) => return Ok(Some(place)),
                Err(gate) => gate,
            };
            if gate.waiting >= self.queue {
                forget_if_unused(&mut gates, addr);
                return Err(Full);
            }
            gate.waiting += 1;
            Arc::clone(&gate.places)
        };
        // In line; leaving it, however (a place, the time up, or this
        // future dropped), is counted and cleaned up by the guard, once
        // the wait (and its hold on the semaphore) is gone.
        let in_line = InLine { cap: self, addr };
        let permit = tokio::time::timeout(within, places.acquire_owned()).await;
        drop(in_line);
        match permit {
            Ok(Ok(permit)) => Ok(Some(self.place(addr, permit))),
            // The time is up (the semaphore is never closed).
            _ => Err(Full),
        }
    }

    /// The most per address (0: no cap).
    pub(crate) fn max(&self) -> u32 {
        self.max
    }

    /// A place for `addr` now if one is free, else its gate (made if need
    /// be, and left for the caller to forget if unused).
    fn try_place<'g>(
        self: &Arc<Self>,
        gates: &'g mut HashMap<IpAddr, Gate>,
        addr: IpAddr,
    ) -> Result<Place, &'g mut Gate> {
        let gate = gates.entry(addr).or_insert_with(|| Gate {
            places: Arc::new(Semaphore::new(self.max as usize)),
            waiting: 0,
        });
        match Arc::clone(&gate.places).try_acquire_owned() {
            Ok(permit) => Ok(self.place(addr, permit)),
            Err(_) => Err(gate),
        }
    }

    fn place(self: &Arc<Self>, addr: IpAddr, permit: OwnedSemaphorePermit) -> Place {
        Place {
            cap: Arc::clone(self),
            addr,
            permit: Some(permit),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<IpAddr, Gate>> {
        self.gates.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An address's gate is dropped once no connection holds or waits for one
/// of its places, so addresses seen once cost nothing afterwards. Places
/// and their semaphore are only taken with the gates locked, so nobody
/// else can be about to.
fn forget_if_unused(gates: &mut HashMap<IpAddr, Gate>, addr: IpAddr) {
    if let Some(gate) = gates.get(&addr)
        && Arc::strong_count(&gate.places) == 1
        && gate.waiting == 0
    {
        gates.remove(&addr);
    }
}

/// A connection waiting in its address's line.
struct InLine<'a> {
    cap: &'a AddressCap,
    addr: IpAddr,
}

impl Drop for InLine<'_> {
    fn drop(&mut self) {
        let mut gates = self.cap.lock();
        if let Some(gate) = gates.get_mut(&self.addr) {
            gate.waiting -= 1;
        }
        forget_if_unused(&mut gates, self.addr);
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut gates = self.cap.lock();
        drop(self.permit.take());
        forget_if_unused(&mut gates, self.addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> IpAddr {
        s.parse().expect("an address")
    }

    fn nothing_kept(cap: &AddressCap) -> bool {
        cap.lock().is_empty()
    }

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_places_back() {
        let cap = AddressCap::new(2);
        let (a, b) = (v4("10.0.0.1"), v4("10.0.0.2"));
        let first = cap.take(a).expect("a place");
        let second = cap.take(a).expect("a place");
        assert_eq!(cap.take(a).err(), Some(Full), "a third from one address");
        assert!(cap.take(b).is_ok(), "another address has its own");
        drop(first);
        let third = cap.take(a).expect("a place given back");
        drop((second, third));
        assert!(
            nothing_kept(&cap),
            "nothing kept for addresses with nothing open"
        );
    }

    #[test]
    fn ipv6_goes_by_64_and_no_cap_holds_nothing() {
        let cap = AddressCap::new(1);
        let _held = cap.take("2001:db8::1".parse().expect("v6"));
        assert!(cap.take("2001:db8::2".parse().expect("v6")).is_err());
        let none = AddressCap::new(0);
        assert!(matches!(none.take(v4("10.0.0.1")), Ok(None)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_over_the_cap_waits_its_turn_first_come_first_served() {
        let cap = AddressCap::queued(1, 2);
        let a = v4("10.0.0.1");
        let held = cap.take(a).expect("a place");
        let (first, second) = {
            let cap = Arc::clone(&cap);
            let first = tokio::spawn({
                let cap = Arc::clone(&cap);
                async move { cap.wait(a, Duration::from_secs(10)).await }
            });
            tokio::task::yield_now().await;
            let second = tokio::spawn(async move { cap.wait(a, Duration::from_secs(10)).await });
            tokio::task::yield_now().await;
            (first, second)
        };
        assert_eq!(
            cap.wait(a, Duration::from_secs(10)).await.err(),
            Some(Full),
            "a third in line is more than the queue takes"
        );
        drop(held);
        let place = first
            .await
            .expect("joined")
            .expect("the first in line gets the place");
        assert!(!second.is_finished(), "the second waits for the next place");
        drop(place);
        let place = second.await.expect("joined").expect("then the second");
        drop(place);
        assert!(nothing_kept(&cap));
    }

    #[tokio::test(start_paused = true)]
    async fn a_wait_ends_in_time_and_leaves_nothing_behind() {
        let cap = AddressCap::queued(1, 5);
        let a = v4("10.0.0.1");
        let held = cap.take(a).expect("a place");
        let waited = cap.wait(a, Duration::from_secs(10)).await;
        assert_eq!(waited.err(), Some(Full), "nobody left in 10 s");
        // One given up on (its connection closed) counts no more either.
        let gave_up = tokio::spawn({
            let cap = Arc::clone(&cap);
            async move { cap.wait(a, Duration::from_secs(10)).await }
        });
        tokio::task::yield_now().await;
        gave_up.abort();
        assert!(gave_up.await.is_err(), "aborted");
        drop(held);
        assert!(nothing_kept(&cap));
    }
}
