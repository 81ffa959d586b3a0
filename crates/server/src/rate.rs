//! Rate limits: a token bucket per connection (messages, chat), a count of
//! refusals that tells a flood, and a bucket per client address for
//! creating players.
//!
//! The per-address buckets live in one map that can never grow without
//! bound: a bucket that has refilled completely carries no information and
//! is dropped when the map is swept, and the map is swept whenever it
//! reaches its cap. IPv6 clients are grouped by /64, the block one
//! subscriber usually gets, so that rotating addresses within it buys
//! nothing.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::config::RateLimit;

/// A token bucket. Its limit is the caller's (the server's settings), not
/// a copy in every connection's buckets.
#[derive(Debug)]
pub(crate) struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket.
    pub(crate) fn new(limit: RateLimit, now: Instant) -> Bucket {
        Bucket {
            tokens: f64::from(limit.burst),
            last: now,
        }
    }

    fn refill(&mut self, limit: RateLimit, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * limit.per_second).min(f64::from(limit.burst));
    }

    /// Takes a token if there is one.
    pub(crate) fn take(&mut self, limit: RateLimit, now: Instant) -> bool {
        if limit.per_second.is_infinite() {
            return true;
        }
        self.refill(limit, now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Whether the bucket has refilled completely by `now`.
    fn is_full(&mut self, limit: RateLimit, now: Instant) -> bool {
        self.refill(limit, now);
        self.tokens >= f64::from(limit.burst)
    }

    /// Seconds until the next token.
    pub(crate) fn wait_secs(&self, limit: RateLimit) -> f64 {
        ((1.0 - self.tokens) / limit.per_second).max(0.0)
    }
}

/// Refusals counted per window: a client that keeps sending after it has
/// been told to slow down is flooding, and is disconnected.
#[derive(Debug)]
pub(crate) struct Flood {
    /// When the current window began, and the refusals in it.
    start: Instant,
    count: u32,
}

impl Flood {
    /// No refusals yet.
    pub(crate) fn new(now: Instant) -> Flood {
        Flood {
            start: now,
            count: 0,
        }
    }

    /// Counts a refusal at `now`; `true` if it makes a flood: `max`
    /// refusals within `window`.
    pub(crate) fn refused(&mut self, window: Duration, max: u32, now: Instant) -> bool {
        if now.saturating_duration_since(self.start) > window {
            self.start = now;
            self.count = 0;
        }
        self.count += 1;
        self.count >= max
    }
}

/// The most addresses tracked at once.
const MAX_ADDRESSES: usize = 65_536;

/// One bucket per client address.
#[derive(Debug)]
pub(crate) struct PerAddress {
    limit: RateLimit,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

impl PerAddress {
    /// No buckets yet; each address starts with a full one.
    pub(crate) fn new(limit: RateLimit) -> PerAddress {
        PerAddress {
            limit,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `addr`; `Err` with the seconds until the next one
    /// when there is none.
    pub(crate) fn take(&self, addr: IpAddr, now: Instant) -> Result<(), f64> {
        if self.limit.per_second.is_infinite() {
            return Ok(());
        }
        let key = group(addr);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= MAX_ADDRESSES && !buckets.contains_key(&key) {
            buckets.retain(|_, b| !b.is_full(self.limit, now));
            if buckets.len() >= MAX_ADDRESSES {
                // Every tracked address is busy: an attack from very many
                // addresses. Forgetting them all only lets each one start
                // over with a full bucket.
                buckets.clear();
            }
            buckets.shrink_to(MAX_ADDRESSES);
        }
        let bucket = buckets
            .entry(key)
            .or_insert_with(|| Bucket::new(self.limit, now));
        if bucket.take(self.limit, now) {
            Ok(())
        } else {
            Err(bucket.wait_secs(self.limit))
        }
    }
}

/// The address as limited: IPv4 as is, IPv6 by its /64.
pub(crate) fn group(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(_) => addr,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn addresses_have_their_own_buckets_and_v6_goes_by_64() {
        let limit = PerAddress::new(RateLimit::new(1.0, 2));
        let now = Instant::now();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(limit.take(a, now).is_ok());
        assert!(limit.take(a, now).is_ok());
        let wait = limit.take(a, now).unwrap_err();
        assert!((0.9..=1.0).contains(&wait), "{wait}");
        assert!(limit.take(b, now).is_ok());
        assert!(limit.take(a, now + Duration::from_secs(1)).is_ok());
        let v6a: IpAddr = "2001:db8::1".parse().unwrap();
        let v6b: IpAddr = "2001:db8::ffff:1".parse().unwrap();
        assert!(limit.take(v6a, now).is_ok());
        assert!(limit.take(v6b, now).is_ok());
        assert!(limit.take(v6a, now).is_err(), "one /64, one bucket");
    }

    #[test]
    fn a_flood_is_too_many_refusals_in_one_window() {
        let now = Instant::now();
        let mut flood = Flood::new(now);
        let mut refused = |at| flood.refused(Duration::from_secs(10), 3, at);
        assert!(!refused(now));
        assert!(!refused(now + Duration::from_secs(5)));
        assert!(!refused(now + Duration::from_secs(11)), "a new window");
        assert!(!refused(now + Duration::from_secs(12)));
        assert!(refused(now + Duration::from_secs(13)));
    }

    #[test]
    fn the_map_never_outgrows_its_cap() {
        let limit = PerAddress::new(RateLimit::new(1.0, 5));
        let now = Instant::now();
        for i in 0..(MAX_ADDRESSES as u32 + 10) {
            let _ = limit.take(IpAddr::V4(i.into()), now);
        }
        assert!(limit.buckets.lock().unwrap().len() <= MAX_ADDRESSES);
    }
}
