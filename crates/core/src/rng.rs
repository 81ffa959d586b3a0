//! A small seeded random number generator for the bots.
//!
//! SplitMix64: tiny, fast, and good enough to pick among nine squares. Bots
//! are deterministic for a given seed, which the tests and replays rely on.

use crate::{Bitboard, Square};

/// A seeded pseudo-random number generator (SplitMix64).
///
/// ```
/// use oxo_core::Rng;
///
/// let (mut a, mut b) = (Rng::new(7), Rng::new(7));
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(9) < 9);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 if `n` is 0), by multiply-shift.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// `true` with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u32, denominator: u32) -> bool {
        self.below(denominator) < numerator
    }

    /// A uniformly chosen square of `set`, or `None` if it is empty.
    pub fn pick(&mut self, set: Bitboard) -> Option<Square> {
        let set = set & Bitboard::FULL;
        let n = self.below(set.count());
        set.nth(n)
    }
}
