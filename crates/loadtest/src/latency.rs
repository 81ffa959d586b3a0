//! Latency percentiles, as every report gives them. A leaf: the run's
//! report and the hello cycles' report both use it.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Latency percentiles, in microseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Moves timed.
    pub samples: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// The slowest.
    pub max: u64,
    /// The mean.
    pub mean: f64,
}

impl Latency {
    /// The percentiles of `h`.
    pub(crate) fn of(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        Latency {
            samples: h.len(),
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            mean: h.mean(),
        }
    }
}

/// Microseconds as milliseconds with two decimals: `1.25 ms`.
pub(crate) fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}
