//! CPU and memory of a process, from `/proc` (Linux).
//!
//! CPU time comes from `/proc/PID/stat` (`utime + stime`, in clock ticks of
//! 1/100 s: `USER_HZ` is 100 on every Linux configuration that exposes
//! `/proc`), memory from `/proc/PID/status`: `VmRSS` now and `VmHWM`, the
//! peak resident set since the process started.
//!
//! Besides the window's figures, the resident set is read at the start of
//! the run (before the load's connections open) and after the drain (with
//! them closed), so that what a load costs, and whether the memory comes
//! back, can be read off one run.

use serde::{Deserialize, Serialize};

/// Clock ticks per second in `/proc/PID/stat`.
const USER_HZ: f64 = 100.0;

/// One reading of a process's counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sample {
    /// User plus system CPU time, in clock ticks.
    pub(crate) cpu_ticks: u64,
    /// Resident set now, in KiB.
    pub(crate) rss_kib: u64,
    /// Peak resident set, in KiB.
    pub(crate) hwm_kib: u64,
    /// Threads.
    pub(crate) threads: u64,
}

/// Reads `/proc/{pid}` (`pid` may be `"self"`).
pub(crate) fn sample(pid: &str) -> std::io::Result<Sample> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    parse(&stat, &status).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("unreadable /proc/{pid}/stat or status"),
        )
    })
}

fn parse(stat: &str, status: &str) -> Option<Sample> {
    // The command name may hold spaces and parentheses: fields start after
    // the last ')'. Field 3 (state) is index 0 here.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    let threads: u64 = fields.get(17)?.parse().ok()?;
    let kib = |key: &str| -> Option<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    };
    Some(Sample {
        cpu_ticks: utime + stime,
        rss_kib: kib("VmRSS:")?,
        hwm_kib: kib("VmHWM:")?,
        threads,
    })
}

/// A process's use of the machine over the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessStats {
    /// The process id (`None` for the load tool itself).
    pub pid: Option<u32>,
    /// Mean CPU over the window, in percent of one core.
    pub cpu_percent: f64,
    /// Resident memory at the start of the run, before the load's
    /// connections opened, in MiB.
    pub rss_start_mib: Option<f64>,
    /// Resident memory at the end of the window, in MiB.
    pub rss_mib: f64,
    /// Resident memory after the drain, with the load's connections closed,
    /// in MiB.
    pub rss_after_close_mib: Option<f64>,
    /// Peak resident memory since the process started, in MiB.
    pub peak_rss_mib: f64,
    /// Threads at the end of the window.
    pub threads: u64,
    /// CPU time per accepted move over the window, in microseconds (all
    /// of the process's work divided by the moves: set-up, pings and
    /// refusals included), when moves were made.
    #[serde(default)]
    pub cpu_us_per_move: Option<f64>,
}

impl ProcessStats {
    /// The use between two samples taken `secs` apart.
    pub(crate) fn between(pid: Option<u32>, start: Sample, end: Sample, secs: f64) -> ProcessStats {
        let ticks = end.cpu_ticks.saturating_sub(start.cpu_ticks) as f64;
        ProcessStats {
            pid,
            cpu_percent: if secs > 0.0 {
                ticks / USER_HZ / secs * 100.0
            } else {
                0.0
            },
            rss_start_mib: None,
            rss_mib: mib(end.rss_kib),
            rss_after_close_mib: None,
            peak_rss_mib: mib(end.hwm_kib.max(start.hwm_kib)),
            threads: end.threads,
            cpu_us_per_move: None,
        }
    }

    /// Adds the CPU time per move, given the moves per second of the same
    /// window.
    #[must_use]
    pub(crate) fn per_move(self, moves_per_sec: f64) -> ProcessStats {
        let cpu_us_per_move =
            (moves_per_sec > 0.0).then(|| self.cpu_percent / 100.0 / moves_per_sec * 1e6);
        ProcessStats {
            cpu_us_per_move,
            ..self
        }
    }

    /// Adds the resident set at the start of the run and after the drain
    /// (either may be missing), and the peak over both.
    pub(crate) fn with_run_edges(
        mut self,
        run_start: Option<Sample>,
        after_close: Option<Sample>,
    ) -> ProcessStats {
        self.rss_start_mib = run_start.map(|s| mib(s.rss_kib));
        self.rss_after_close_mib = after_close.map(|s| mib(s.rss_kib));
        if let Some(s) = after_close {
            self.peak_rss_mib = self.peak_rss_mib.max(mib(s.hwm_kib));
        }
        self
    }
}

/// KiB in MiB.
fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_files() {
        let stat = "1234 (oxo (serve)) S 1 1234 1234 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 7 0 100 1000000 2000 18446744073709551615";
        let status = "Name:\toxo\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\nThreads:\t7\n";
        assert_eq!(
            parse(stat, status),
            Some(Sample {
                cpu_ticks: 300,
                rss_kib: 40960,
                hwm_kib: 51200,
                threads: 7
            })
        );
        let s = ProcessStats::between(
            Some(1234),
            Sample {
                cpu_ticks: 100,
                rss_kib: 1,
                hwm_kib: 2048,
                threads: 1,
            },
            Sample {
                cpu_ticks: 300,
                rss_kib: 1024,
                hwm_kib: 4096,
                threads: 7,
            },
            2.0,
        );
        assert!((s.cpu_percent - 100.0).abs() < 1e-9);
        assert!((s.peak_rss_mib - 4.0).abs() < 1e-9);
        assert_eq!(s.rss_start_mib, None);
        let edge = |rss_kib, hwm_kib| Sample {
            cpu_ticks: 0,
            rss_kib,
            hwm_kib,
            threads: 1,
        };
        let s = s.with_run_edges(Some(edge(512, 512)), Some(edge(2048, 8192)));
        assert_eq!(s.rss_start_mib, Some(0.5));
        assert_eq!(s.rss_after_close_mib, Some(2.0));
        assert!((s.peak_rss_mib - 8.0).abs() < 1e-9);
        // One core busy (100 %) for 20,000 moves a second: 50 µs a move.
        let per_move = s.clone().per_move(20_000.0).cpu_us_per_move;
        assert!(
            per_move.is_some_and(|us| (us - 50.0).abs() < 1e-9),
            "{per_move:?}"
        );
        assert_eq!(s.per_move(0.0).cpu_us_per_move, None);
    }

    #[test]
    fn reads_itself() {
        let s = sample("self").expect("/proc/self is readable on Linux");
        assert!(s.rss_kib > 0 && s.threads >= 1);
    }
}
