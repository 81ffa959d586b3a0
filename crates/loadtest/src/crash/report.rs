//! What the crash test found, and whether it passed.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::text;

/// What the crash test found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CrashReport {
    /// Times the server was killed with SIGKILL.
    pub kills: u32,
    /// Concurrent games.
    pub games: usize,
    /// Moves whose `ok` the load tool received.
    pub acknowledged_moves: u64,
    /// Acknowledged moves missing from the database (must be 0).
    pub lost_moves: u64,
    /// Moves in flight at a kill, neither acknowledged nor counted.
    pub in_doubt_moves: u64,
    /// Game records fetched and checked.
    pub games_checked: u64,
    /// Moves in those records.
    pub moves_checked: u64,
    /// Records whose moves are out of order, illegal or by the wrong player.
    pub bad_games: u64,
    /// Tables being played at the end.
    pub tables: u64,
    /// Tables that made no progress after the last restart.
    pub stuck_tables: u64,
    /// Seats taken back after a reconnect.
    pub seat_resumes: u64,
    /// Seats the server did not give back.
    pub seat_resume_failures: u64,
    /// Time from spawning the server to its listening line, in milliseconds:
    /// median over the restarts.
    pub restart_ms_median: f64,
    /// The same, the slowest.
    pub restart_ms_max: f64,
    /// Client-side errors by kind (protocol violations fail the test).
    pub client_errors: BTreeMap<String, u64>,
    /// What went wrong, in detail (the first few of each kind).
    pub problems: Vec<String>,
}

impl CrashReport {
    /// Whether nothing was lost and every check passed.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.acknowledged_moves > 0
            && self.lost_moves == 0
            && self.bad_games == 0
            && self.stuck_tables == 0
            && self.seat_resume_failures == 0
            && self.problems.is_empty()
    }
}

impl fmt::Display for CrashReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "oxo crash test: {}",
            if self.passed() { "PASSED" } else { "FAILED" }
        )?;
        writeln!(f, "  kills (SIGKILL)      {}", self.kills)?;
        writeln!(f, "  games                {}", self.games)?;
        writeln!(f, "  acknowledged moves   {}", self.acknowledged_moves)?;
        writeln!(f, "  lost moves           {}", self.lost_moves)?;
        writeln!(
            f,
            "  in doubt at a kill   {} (sent, not acknowledged; not counted)",
            self.in_doubt_moves
        )?;
        writeln!(
            f,
            "  games checked        {} ({} moves replayed), {} bad",
            self.games_checked, self.moves_checked, self.bad_games
        )?;
        writeln!(
            f,
            "  stuck tables         {} of {}",
            self.stuck_tables, self.tables
        )?;
        writeln!(
            f,
            "  seats resumed        {} ({} lost)",
            self.seat_resumes, self.seat_resume_failures
        )?;
        writeln!(
            f,
            "  restart to listening median {:.1} ms, max {:.1} ms",
            self.restart_ms_median, self.restart_ms_max
        )?;
        text::counts(f, "  client error ", &self.client_errors)?;
        text::lines(f, "  problem: ", &self.problems)
    }
}
