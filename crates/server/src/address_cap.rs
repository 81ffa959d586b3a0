//! A cap on what one client address holds open at once: connections that
//! are still plain HTTP (a request head, a response being written) and
//! WebSockets. Without it one address could take every file descriptor
//! (HTTP connections that pipeline requests and never read the answers)
//! or every WebSocket slot (sockets that say `hello` with one token over
//! and over), and nobody else could connect.
//!
//! Addresses are grouped as the per-address rate limits group them (IPv6
//! by /64). A connection holds its place for as long as it is open.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use crate::rate::group;

/// How many connections each address may hold open, and how many it does.
#[derive(Debug)]
pub(crate) struct AddressCap {
    /// The most per address; 0: no cap.
    max: u32,
    open: Mutex<HashMap<IpAddr, u32>>,
}

/// One connection's place under its address's cap; given back when
/// dropped.
#[derive(Debug)]
pub(crate) struct Place {
    cap: Arc<AddressCap>,
    addr: IpAddr,
}

impl AddressCap {
    /// A cap of `max` open connections per address (0: none).
    pub(crate) fn new(max: u32) -> Arc<AddressCap> {
        Arc::new(AddressCap {
            max,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A place for one more connection from `addr`: `Ok(None)` when there
    /// is no cap (nothing to give back), `Err(())` when the address holds
    /// its most already.
    pub(crate) fn take(self: &Arc<Self>, addr: IpAddr) -> Result<Option<Place>, ()> {
        if self.max == 0 {
            return Ok(None);
        }
        let addr = group(addr);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(addr).or_insert(0);
        if *n >= self.max {
            return Err(());
        }
        *n += 1;
        Ok(Some(Place {
            cap: Arc::clone(self),
            addr,
        }))
    }

    /// The most per address (0: no cap).
    pub(crate) fn max(&self) -> u32 {
        self.max
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self.cap.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.addr);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_places_back() {
        let cap = AddressCap::new(2);
        let a: IpAddr = "10.0.0.1".parse().expect("an address");
        let b: IpAddr = "10.0.0.2".parse().expect("an address");
        let first = cap.take(a).expect("a place");
        let second = cap.take(a).expect("a place");
        assert!(cap.take(a).is_err(), "a third from one address");
        assert!(cap.take(b).is_ok(), "another address has its own");
        drop(first);
        let third = cap.take(a).expect("a place given back");
        drop((second, third));
        assert!(
            cap.open.lock().expect("unpoisoned").is_empty(),
            "nothing kept for addresses with nothing open"
        );
    }

    #[test]
    fn ipv6_goes_by_64_and_no_cap_holds_nothing() {
        let cap = AddressCap::new(1);
        let _held = cap.take("2001:db8::1".parse().expect("v6"));
        assert!(cap.take("2001:db8::2".parse().expect("v6")).is_err());
        let none = AddressCap::new(0);
        assert!(matches!(
            none.take("10.0.0.1".parse().expect("v4")),
            Ok(None)
        ));
    }
}
