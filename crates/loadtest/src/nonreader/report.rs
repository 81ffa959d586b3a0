//! What the non-readers of a run did, as the report shows it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What the non-readers of a run did, and what the server did to them.
///
/// `ready == closed_during_run + closed_at_end + open_at_end + unchecked`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NonReaderReport {
    /// Non-readers asked for.
    pub requested: usize,
    /// Time between two pings, in milliseconds, if they pinged.
    pub ping_interval_ms: Option<u64>,
    /// The receive buffer asked for each socket (`SO_RCVBUF`), in bytes.
    pub recv_buffer_bytes: u32,
    /// Non-readers that got `welcome` and sent `watch_lobby`.
    pub ready: u64,
    /// Non-readers that never got that far.
    pub setup_failures: u64,
    /// Set-up failures by kind (`connect`, `refused:server_full`, …).
    pub setup_failures_by_kind: BTreeMap<String, u64>,
    /// Pings written (none of their `pong`s were read).
    pub pings_sent: u64,
    /// Closed by the server, noticed during the run (hang-up or failed
    /// write).
    pub closed_during_run: u64,
    /// Closed by the server, found by the final read.
    pub closed_at_end: u64,
    /// Still open at the end of the window.
    pub open_at_end: u64,
    /// Abandoned before the final check (the drain ran out).
    pub unchecked: u64,
    /// How each close was noticed: `hangup`, `write:KIND`, `final_read`.
    pub noticed_by: BTreeMap<String, u64>,
    /// What reading a closed connection found: `close:CODE` (a close
    /// frame), `eof` (end of stream without one), `reset`, `error`, or
    /// `open` when the hang-up came with no end on the read side yet.
    pub closed_how: BTreeMap<String, u64>,
    /// From `hello` to the close being noticed, in milliseconds, over the
    /// closes noticed during the run: the fastest, the median and the
    /// slowest.
    pub ms_to_close: Option<CloseTimes>,
    /// Bytes the final read found waiting, over all connections.
    pub backlog_bytes_total: u64,
    /// The most bytes the final read found waiting on one connection.
    pub backlog_bytes_max: u64,
}

/// The spread of times from `hello` to a close, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloseTimes {
    /// The fastest.
    pub min: u64,
    /// The median.
    pub p50: u64,
    /// The slowest.
    pub max: u64,
}

impl CloseTimes {
    /// The spread of `ms`, if there is any.
    pub(super) fn of(mut ms: Vec<u64>) -> Option<CloseTimes> {
        ms.sort_unstable();
        Some(CloseTimes {
            min: *ms.first()?,
            p50: ms[ms.len() / 2],
            max: *ms.last()?,
        })
    }
}

impl fmt::Display for NonReaderReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pings = match self.ping_interval_ms {
            Some(ms) => format!("{} pings sent every {ms} ms", self.pings_sent),
            None => "no pings".to_owned(),
        };
        writeln!(
            f,
            "  non-read   {} of {} ready ({pings}, {} B receive buffer)",
            self.ready, self.requested, self.recv_buffer_bytes
        )?;
        let times = self.ms_to_close.map_or_else(String::new, |t| {
            format!(
                " ({} ms after hello median, {}..{} ms)",
                t.p50, t.min, t.max
            )
        });
        writeln!(
            f,
            "    closed by the server: {} during the run{times}, {} found at the end; {} still open, {} unchecked",
            self.closed_during_run, self.closed_at_end, self.open_at_end, self.unchecked
        )?;
        writeln!(
            f,
            "    backlog read at the end: {} B in all, {} B at most on one",
            self.backlog_bytes_total, self.backlog_bytes_max
        )?;
        for (label, map) in [
            ("noticed by", &self.noticed_by),
            ("closed how", &self.closed_how),
            ("set-up failed", &self.setup_failures_by_kind),
        ] {
            if !map.is_empty() {
                let parts: Vec<String> = map.iter().map(|(k, n)| format!("{k} {n}")).collect();
                writeln!(f, "    {label}: {}", parts.join(", "))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_times_spread() {
        assert_eq!(CloseTimes::of(Vec::new()), None);
        assert_eq!(
            CloseTimes::of(vec![30, 10, 20]),
            Some(CloseTimes {
                min: 10,
                p50: 20,
                max: 30
            })
        );
        assert_eq!(CloseTimes::of(vec![5]).map(|t| t.p50), Some(5));
    }
}
