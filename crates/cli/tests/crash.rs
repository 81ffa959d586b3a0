//! Crash safety: play under load, SIGKILL `oxo serve` at random moments,
//! restart it on the same database, and check that no acknowledged move is
//! lost, every game is legal and in order, no table is stuck and every
//! reconnecting player gets its seat back.
//!
//! `crash_short` (5 kills) runs with the normal test command;
//! `crash_full` (20 kills by default) is run by `scripts/crash-test`.

mod common;

use std::path::PathBuf;

use common::env_or;
use oxo_loadtest::{CrashConfig, CrashReport, crash_test};

fn run(name: &str, kills: u32, games: usize, seed: u64) -> CrashReport {
    let dir = std::env::temp_dir().join(format!("oxo-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a temporary directory");
    let config = CrashConfig {
        server_bin: PathBuf::from(env!("CARGO_BIN_EXE_oxo")),
        db: dir.join("oxo.db"),
        server_args: ["--rate-limit", "0"].map(String::from).to_vec(),
        server_log: Some(dir.join("server.log")),
        kills,
        games,
        seed,
        ..CrashConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let report = runtime
        .block_on(crash_test(&config, |line| eprintln!("crash-test: {line}")))
        .expect("the crash test runs");
    println!("{report}");
    if report.passed() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("database and server log kept in {}", dir.display());
    }
    report
}

#[test]
fn crash_short() {
    let report = run("short", 5, 20, 5);
    assert!(report.passed(), "{report}");
    assert_eq!(report.kills, 5);
    assert_eq!(report.lost_moves, 0);
}

/// `OXO_CRASH_KILLS` (default 20), `OXO_CRASH_GAMES` (100) and
/// `OXO_CRASH_SEED` tune it.
#[test]
#[ignore = "long: run by scripts/crash-test"]
fn crash_full() {
    let kills = env_or("OXO_CRASH_KILLS", 20);
    let games = env_or("OXO_CRASH_GAMES", 100);
    let seed = env_or("OXO_CRASH_SEED", 20);
    let report = run("full", kills, games, seed);
    assert!(report.passed(), "{report}");
    assert!(report.kills >= kills);
    assert_eq!(report.lost_moves, 0);
}
