//! Rate limits: a token bucket per connection (messages) and per player
//! (chat and new games, kept in the player's `Account`), a count of
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

/// A token bucket, kept as the one moment it will be full again (the
/// "theoretical arrival time" of GCRA, the generic cell rate algorithm):
/// at `now` it lacks one token for every refill interval (`1 / rate`) that
/// moment is still ahead. The same limit as counting tokens, in one
/// `Instant`: every connection has one, and an idle connection's
/// memory is mostly such small things. Its limit is the caller's (the
/// server's settings), not a copy in every connection's buckets.
#[derive(Debug)]
pub(crate) struct Bucket {
    full_at: Instant,
}

/// The slowest refill counted: one token a year (a slower rate takes as
/// long, and keeps the arithmetic on `Instant`s far from overflowing).
const LONGEST_INTERVAL: Duration = Duration::from_secs(365 * 24 * 3600);

impl Bucket {
    /// A full bucket.
    pub(crate) fn new(now: Instant) -> Bucket {
        Bucket { full_at: now }
    }

    /// Takes a token if there is one.
    pub(crate) fn take(&mut self, limit: RateLimit, now: Instant) -> bool {
        if limit.per_second.is_infinite() {
            return true;
        }
        let interval = interval(limit);
        // Full again one interval later than it would be without this
        // token; taking it may leave at most `burst` tokens lacking.
        let Some(after) = self.full_at.max(now).checked_add(interval) else {
            return false;
        };
        if after.duration_since(now) > interval.saturating_mul(limit.burst) {
            return false;
        }
        self.full_at = after;
        true
    }

    /// Puts back a token taken with [`Bucket::take`] (for a request that
    /// was then refused). A bucket that has refilled since stays full.
    pub(crate) fn give_back(&mut self, limit: RateLimit) {
        if limit.per_second.is_infinite() {
            return;
        }
        if let Some(before) = self.full_at.checked_sub(interval(limit)) {
            self.full_at = before;
        }
    }

    /// Whether the bucket has refilled completely by `now`.
    fn is_full(&self, now: Instant) -> bool {
        self.full_at <= now
    }

    /// Seconds from `now` until the next token.
    pub(crate) fn wait_secs(&self, limit: RateLimit, now: Instant) -> f64 {
        let interval = interval(limit);
        // A token is there once at most `burst - 1` are lacking.
        let lacking_then = interval.saturating_mul(limit.burst.saturating_sub(1));
        let next = self.full_at.checked_sub(lacking_then).unwrap_or(now);
        next.saturating_duration_since(now).as_secs_f64()
    }
}

/// How long `limit` takes to refill one token.
fn interval(limit: RateLimit) -> Duration {
    Duration::try_from_secs_f64(1.0 / limit.per_second)
        .map_or(LONGEST_INTERVAL, |d| d.min(LONGEST_INTERVAL))
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
            buckets.retain(|_, b| !b.is_full(now));
            if buckets.len() >= MAX_ADDRESSES {
                // Every tracked address is busy: an attack from very many
                // addresses. Forgetting them all only lets each one start
                // over with a full bucket.
                buckets.clear();
            }
            buckets.shrink_to(MAX_ADDRESSES);
        }
        let bucket = buckets.entry(key).or_insert_with(|| Bucket::new(now));
        if bucket.take(self.limit, now) {
            Ok(())
        } else {
            Err(bucket.wait_secs(self.limit, now))
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
    fn a_bucket_gives_its_burst_at_once_then_refills_at_its_rate() {
        let limit = RateLimit::new(4.0, 3);
        let now = Instant::now();
        let ms = |n| now + Duration::from_millis(n);
        let mut bucket = Bucket::new(now);
        assert!((0..3).all(|_| bucket.take(limit, now)), "the burst");
        assert!(!bucket.take(limit, now), "then empty");
        assert!((bucket.wait_secs(limit, now) - 0.25).abs() < 1e-9);
        assert!(!bucket.take(limit, ms(249)), "a token takes 250 ms");
        assert!(bucket.take(limit, ms(250)));
        assert!(!bucket.take(limit, ms(250)));
        // Idle long enough, it is full again, and holds no more than full.
        assert!(bucket.is_full(ms(1000)));
        assert_eq!((0..10).filter(|_| bucket.take(limit, ms(5000))).count(), 3);
        assert_eq!(bucket.wait_secs(limit, ms(5000)), 0.25);
    }

    #[test]
    fn a_token_given_back_can_be_taken_again_but_never_beyond_the_burst() {
        let limit = RateLimit::new(1.0, 2);
        let now = Instant::now();
        let mut bucket = Bucket::new(now);
        assert!(bucket.take(limit, now) && bucket.take(limit, now));
        bucket.give_back(limit);
        assert!(bucket.take(limit, now), "the token given back");
        assert!(!bucket.take(limit, now));
        // Given back once refilled, it stays full, no fuller.
        let later = now + Duration::from_secs(10);
        bucket.give_back(limit);
        assert_eq!((0..5).filter(|_| bucket.take(limit, later)).count(), 2);
    }

    #[test]
    fn a_bucket_with_a_rate_too_slow_to_count_refills_once_a_year() {
        let now = Instant::now();
        for per_second in [0.0, 1e-300, -1.0] {
            let limit = RateLimit::new(per_second, 2);
            let mut bucket = Bucket::new(now);
            assert!(bucket.take(limit, now) && bucket.take(limit, now));
            assert!(!bucket.take(limit, now + Duration::from_secs(3600)));
            assert!(bucket.wait_secs(limit, now) > 364.0 * 24.0 * 3600.0);
        }
        let mut none = Bucket::new(now);
        assert!(
            !none.take(RateLimit::new(1.0, 0), now),
            "a burst of 0 gives nothing"
        );
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
