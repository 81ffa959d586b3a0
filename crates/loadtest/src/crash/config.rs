//! What the crash test is asked to do.

use std::path::PathBuf;
use std::time::Duration;

/// What the crash test does.
#[derive(Clone, Debug)]
pub struct CrashConfig {
    /// The `oxo` binary to run as `oxo serve`.
    pub server_bin: PathBuf,
    /// The database file, kept across restarts.
    pub db: PathBuf,
    /// More arguments for `oxo serve` (e.g. to lift the rate limit).
    pub server_args: Vec<String>,
    /// Where the server's stderr goes (appended); `None`: discarded.
    pub server_log: Option<PathBuf>,
    /// How many times to kill the server.
    pub kills: u32,
    /// Concurrent games.
    pub games: usize,
    /// Shortest time the server runs between a restart and the next kill.
    pub up_min: Duration,
    /// Longest time the server runs between a restart and the next kill.
    pub up_max: Duration,
    /// How long the games play after the last restart before the checks.
    pub settle: Duration,
    /// Mean think time before each move.
    pub think: Duration,
    /// Seed for the kill moments and the moves.
    pub seed: u64,
}

impl Default for CrashConfig {
    fn default() -> CrashConfig {
        CrashConfig {
            server_bin: PathBuf::from("oxo"),
            db: PathBuf::from("oxo-crash.db"),
            server_args: Vec::new(),
            server_log: None,
            kills: 20,
            games: 50,
            up_min: Duration::from_millis(200),
            up_max: Duration::from_millis(1500),
            settle: Duration::from_secs(3),
            think: Duration::ZERO,
            seed: 0x00c0_ffee,
        }
    }
}
