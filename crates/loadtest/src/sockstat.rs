//! The host's TCP socket counters, from `/proc/net/sockstat` (Linux).
//!
//! The `TCP:` line counts sockets in use, orphans (closed by their process
//! but still sending), sockets in TIME_WAIT, allocated sockets and `mem`,
//! the pages the kernel holds for TCP buffers. A client that never reads
//! makes the server's kernel keep its unsent data, so `mem` shows what
//! non-readers cost outside the server process, where its RSS cannot see.
//! The figures are host-wide: everything on the machine counts, the load
//! tool's own sockets included.
//!
//! `mem` is in pages. The page size is read once from the kernel page size
//! of the tool's own mappings (`/proc/self/smaps`), and taken as 4 KiB if
//! that cannot be read.

use serde::{Deserialize, Serialize};

/// The page size assumed when `/proc/self/smaps` says nothing.
const DEFAULT_PAGE_BYTES: u64 = 4096;

/// One reading of the host's `TCP:` line in `/proc/net/sockstat`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpSockstat {
    /// TCP sockets in use (not counting TIME_WAIT).
    pub inuse: u64,
    /// Orphaned sockets: closed by their process, still held by the kernel.
    pub orphan: u64,
    /// Sockets in TIME_WAIT.
    pub tw: u64,
    /// Allocated TCP sockets.
    pub alloc: u64,
    /// Pages of buffer memory the kernel holds for TCP.
    pub mem_pages: u64,
}

/// The host's TCP sockets over a run: at the start (before the load's
/// connections opened), at the end of the measured window (with them still
/// open), and after the tool closed everything.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpMemory {
    /// Bytes per page of `mem_pages`.
    pub page_bytes: u64,
    /// Before the load's connections opened.
    pub start: TcpSockstat,
    /// At the end of the measured window.
    pub end: TcpSockstat,
    /// After the drain, with the tool's connections closed.
    pub after_close: Option<TcpSockstat>,
}

impl TcpMemory {
    /// `pages` in MiB.
    #[must_use]
    pub fn mib(&self, pages: u64) -> f64 {
        pages.saturating_mul(self.page_bytes) as f64 / (1024.0 * 1024.0)
    }
}

/// Reads the `TCP:` line of `/proc/net/sockstat`.
pub(crate) fn sample() -> std::io::Result<TcpSockstat> {
    let text = std::fs::read_to_string("/proc/net/sockstat")?;
    parse(&text).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "no readable TCP line in /proc/net/sockstat",
        )
    })
}

/// The kernel's page size, in bytes.
pub(crate) fn page_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/smaps")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("KernelPageSize:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .filter(|&kib| kib > 0)
        .map_or(DEFAULT_PAGE_BYTES, |kib| kib * 1024)
}

/// Reads `TCP: inuse 5 orphan 0 tw 2 alloc 7 mem 1` (in any order; unknown
/// keys are skipped, missing ones are zero, but `mem` must be there).
fn parse(text: &str) -> Option<TcpSockstat> {
    let line = text.lines().find_map(|l| l.strip_prefix("TCP:"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut s = TcpSockstat::default();
    let mut saw_mem = false;
    for pair in words.chunks(2) {
        let [key, value] = pair else { return None };
        let value: u64 = value.parse().ok()?;
        match *key {
            "inuse" => s.inuse = value,
            "orphan" => s.orphan = value,
            "tw" => s.tw = value,
            "alloc" => s.alloc = value,
            "mem" => {
                s.mem_pages = value;
                saw_mem = true;
            }
            _ => {}
        }
    }
    saw_mem.then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_tcp_line() {
        let text =
            "sockets: used 11\nTCP: inuse 3 orphan 1 tw 6408 alloc 5 mem 258\nUDP: inuse 0 mem 0\n";
        assert_eq!(
            parse(text),
            Some(TcpSockstat {
                inuse: 3,
                orphan: 1,
                tw: 6408,
                alloc: 5,
                mem_pages: 258
            })
        );
        assert_eq!(parse("UDP: inuse 0 mem 0\n"), None);
        assert_eq!(parse("TCP: inuse 3 orphan\n"), None);
        assert_eq!(parse("TCP: inuse x mem 1\n"), None);
        assert_eq!(parse("TCP: inuse 3\n"), None, "mem is required");
    }

    #[test]
    fn reads_the_host() {
        assert!(sample().is_ok(), "/proc/net/sockstat is readable on Linux");
        assert!(page_bytes() >= 4096);
    }
}
