//! The crash test: play under load, SIGKILL the server at random moments,
//! restart it on the same database, and check that nothing acknowledged was
//! lost.
//!
//! The game drivers run in crash mode: a dropped connection is expected, so
//! each seat waits for the server to come back, says `hello` with its token,
//! checks that the `welcome` lists its table (the seat survived), syncs and
//! plays on. Every move whose `ok` arrived is written in the [`Ledger`] with
//! its game id, ply and cell; a move in flight when the server died is "in
//! doubt" (it may or may not have been applied) and is not counted.
//!
//! After the last restart the games must make progress again (a table that
//! does not is *stuck*). Then the test fetches every game it saw through the
//! server's HTTP API (`GET /api/games/{id}`) and checks that the moves are
//! numbered 1..n, legal when replayed through [`oxo_core::Game`], made by the
//! right player, and that every acknowledged move is there at its ply.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_core::{Game, Rng};
use oxo_protocol::GameRecord;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::config::Target;
use crate::game::{Ctx, run_game};
use crate::ledger::Ledger;
use crate::stats::Stats;
use crate::{Error, http};

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
        for (kind, n) in &self.client_errors {
            writeln!(f, "  client error {kind}: {n}")?;
        }
        for p in &self.problems {
            writeln!(f, "  problem: {p}")?;
        }
        Ok(())
    }
}

/// A running `oxo serve`.
#[derive(Debug)]
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts `oxo serve` on `127.0.0.1:port` and waits for its listening
    /// line.
    async fn start(config: &CrashConfig, port: u16) -> Result<(Server, Duration), Error> {
        let stderr = match &config.server_log {
            Some(path) => Stdio::from(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| Error::io(format!("open {}", path.display()), e))?,
            ),
            None => Stdio::null(),
        };
        let started = Instant::now();
        let mut child = Command::new(&config.server_bin)
            .arg("serve")
            .arg("--addr")
            .arg(format!("127.0.0.1:{port}"))
            .arg("--db")
            .arg(&config.db)
            .args(&config.server_args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::io(format!("spawn {}", config.server_bin.display()), e))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::Server("no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        let wait = async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(addr) = listening_addr(&line) {
                    return Some(addr);
                }
            }
            None
        };
        let addr = tokio::time::timeout(Duration::from_secs(10), wait).await;
        let took = started.elapsed();
        let Ok(Some(addr)) = addr else {
            let _ = child.start_kill();
            let status = child.wait().await.ok();
            return Err(Error::Server(format!(
                "`{} serve` did not print its listening line within 10 s (exit: {status:?})",
                config.server_bin.display()
            )));
        };
        // Keep reading stdout so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok((Server { child, addr }, took))
    }

    /// SIGKILL, and wait for the process to be gone.
    async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

/// The address in `oxo listening on http://127.0.0.1:PORT`.
fn listening_addr(line: &str) -> Option<SocketAddr> {
    let rest = line.split("listening on http://").nth(1)?;
    let addr = rest.split(|c: char| c == '/' || c.is_whitespace()).next()?;
    addr.parse().ok()
}

/// Runs the crash test, writing what happens to `log` (one line per call).
///
/// # Errors
///
/// If the server cannot be started at all. Lost moves and failed checks are
/// in the report ([`CrashReport::passed`]), not errors.
pub async fn crash_test(
    config: &CrashConfig,
    mut log: impl FnMut(&str),
) -> Result<CrashReport, Error> {
    let mut rng = Rng::new(config.seed);
    let mut restarts = Vec::new();
    let (mut server, took) = Server::start(config, 0).await?;
    restarts.push(took);
    let port = server.addr.port();
    log(&format!(
        "server up at {} in {:.1} ms",
        server.addr,
        took.as_secs_f64() * 1e3
    ));

    let stats = Arc::new(Stats::new());
    let ledger = Arc::new(Ledger::default());
    let (target_tx, target_rx) = watch::channel(Some(Target::local(server.addr)));
    let (stop_tx, stop_rx) = watch::channel(false);
    let ctx = Arc::new(Ctx {
        stats: Arc::clone(&stats),
        target: target_rx,
        stop: stop_rx,
        think: config.think,
        pace: None,
        refusal_permille: 0,
        timeout: Duration::from_secs(5),
        spectators: 0,
        setup: Arc::new(Semaphore::new(64)),
        seed: config.seed,
        ledger: Some(Arc::clone(&ledger)),
    });
    stats.set_measuring(true);
    let mut tasks = JoinSet::new();
    for i in 0..config.games {
        tasks.spawn(run_game(Arc::clone(&ctx), i));
    }
    let ready_by = Instant::now() + Duration::from_secs(20);
    while (stats.games_ready.load(Relaxed) as usize) < config.games && Instant::now() < ready_by {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    log(&format!(
        "{} games playing",
        stats.games_ready.load(Relaxed)
    ));

    let mut kills = 0;
    while kills < config.kills {
        let up = if rng.chance(1, 5) {
            // Now and then right after start-up, while clients reconnect.
            Duration::from_millis(u64::from(rng.below(100)))
        } else {
            let span = config.up_max.saturating_sub(config.up_min);
            config.up_min + span.mul_f64(f64::from(rng.below(1000)) / 1000.0)
        };
        tokio::time::sleep(up).await;
        let before = stats.moves_total.load(Relaxed);
        server.kill().await;
        let _ = target_tx.send(None);
        kills += 1;
        let (next, took) = match Server::start(config, port).await {
            Ok(s) => s,
            // The old port may be held a moment longer; any port will do.
            Err(_) => Server::start(config, 0).await?,
        };
        server = next;
        restarts.push(took);
        let _ = target_tx.send(Some(Target::local(server.addr)));
        log(&format!(
            "kill {kills}/{}: after {:.0} ms up, {before} moves acknowledged so far; back in {:.1} ms",
            config.kills,
            up.as_secs_f64() * 1e3,
            took.as_secs_f64() * 1e3
        ));
    }

    // The games must move again after the last restart.
    let mark = ledger.progress();
    tokio::time::sleep(config.settle).await;
    let end = ledger.progress();
    let open: Vec<String> = ledger.lock().open.iter().cloned().collect();
    let stuck: Vec<&String> = open
        .iter()
        .filter(|t| end.get(*t).copied().unwrap_or(0) <= mark.get(*t).copied().unwrap_or(0))
        .collect();

    let _ = stop_tx.send(true);
    let drain_by = Instant::now() + Duration::from_secs(10);
    while !tasks.is_empty() {
        tokio::select! {
            _ = tasks.join_next() => {}
            () = tokio::time::sleep_until(drain_by) => { tasks.abort_all(); break; }
        }
    }

    let mut report = CrashReport {
        kills,
        games: config.games,
        tables: open.len() as u64,
        stuck_tables: stuck.len() as u64,
        ..CrashReport::default()
    };
    for t in stuck.iter().take(5) {
        report.problems.push(format!(
            "table {t} made no progress in {:?} after the last restart",
            config.settle
        ));
    }
    verify(&ledger, server.addr, &mut report).await;
    server.kill().await;

    {
        let inner = ledger.lock();
        report.in_doubt_moves = inner.in_doubt;
        report.seat_resumes = inner.resumed;
        report.seat_resume_failures = inner.resume_failed;
    }
    restarts.sort();
    let ms = |d: &Duration| d.as_secs_f64() * 1e3;
    report.restart_ms_median = restarts.get(restarts.len() / 2).map(ms).unwrap_or(0.0);
    report.restart_ms_max = restarts.last().map(ms).unwrap_or(0.0);
    report.client_errors = stats.errors();
    for (kind, n) in &report.client_errors {
        if kind.starts_with("protocol:") || kind.starts_with("seat") {
            report
                .problems
                .push(format!("{n} client errors of kind {kind}"));
        }
    }
    report.problems.extend(
        stats
            .first_errors()
            .into_iter()
            .filter(|e| e.starts_with("protocol:")),
    );
    Ok(report)
}

/// Fetches every game seen and checks it, and every acknowledged move.
async fn verify(ledger: &Ledger, addr: SocketAddr, report: &mut CrashReport) {
    let (games, acked) = {
        let inner = ledger.lock();
        (inner.games.clone(), inner.acked.clone())
    };
    report.acknowledged_moves = acked.len() as u64;
    let mut records: HashMap<String, GameRecord> = HashMap::new();
    let mut problems: Vec<String> = Vec::new();
    for (game_id, (table_id, round, token)) in &games {
        let path = format!("/api/games/{game_id}");
        let record = match http::get(addr, &path, Some(token), Duration::from_secs(10)).await {
            Ok(r) if r.status == 200 => match serde_json::from_slice::<GameRecord>(&r.body) {
                Ok(rec) => rec,
                Err(e) => {
                    problems.push(format!("GET {path}: unreadable record: {e}"));
                    continue;
                }
            },
            Ok(r) => {
                problems.push(format!("GET {path}: HTTP {}", r.status));
                continue;
            }
            Err(e) => {
                problems.push(format!("GET {path}: {e}"));
                continue;
            }
        };
        report.games_checked += 1;
        report.moves_checked += record.moves.len() as u64;
        if let Err(why) = check_record(&record, table_id, *round) {
            report.bad_games += 1;
            problems.push(format!("game {game_id}: {why}"));
        }
        records.insert(game_id.clone(), record);
    }
    for a in &acked {
        let Some(game_id) = &a.game_id else {
            report.lost_moves += 1;
            problems.push(format!(
                "table {} round {} ply {}: acknowledged, but the state never named its game",
                a.table_id, a.round, a.ply
            ));
            continue;
        };
        let found = records
            .get(game_id)
            .and_then(|r| r.moves.get(a.ply as usize - 1))
            .map(|m| (m.ply, m.cell));
        if found != Some((a.ply, a.cell)) {
            report.lost_moves += 1;
            problems.push(format!(
                "game {game_id} (table {} round {}): acknowledged move {} at ply {} is missing (found {found:?})",
                a.table_id, a.round, a.cell, a.ply
            ));
        }
    }
    // Keep the report readable: the first few problems and a count.
    let total = problems.len();
    report.problems.extend(problems.into_iter().take(20));
    if total > 20 {
        report.problems.push(format!("… and {} more", total - 20));
    }
}

/// Checks one record: its table and round, moves numbered 1..n, legal in
/// order, each by the player whose turn it was.
fn check_record(record: &GameRecord, table_id: &str, round: u32) -> Result<(), String> {
    if record.table_id.as_deref() != Some(table_id) || record.round != round {
        return Err(format!(
            "recorded at table {} round {}, seen at table {table_id} round {round}",
            record.table_id.as_deref().unwrap_or("(not shown)"),
            record.round
        ));
    }
    let mut game = Game::with_first(record.first);
    for (i, m) in record.moves.iter().enumerate() {
        if m.ply as usize != i + 1 {
            return Err(format!("move {} is numbered {}", i + 1, m.ply));
        }
        if m.player != game.player_of_ply(i) {
            return Err(format!(
                "ply {} was played by {} out of turn",
                m.ply, m.player
            ));
        }
        game.play(m.cell)
            .map_err(|e| format!("ply {} ({}) is illegal: {e}", m.ply, m.cell))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use oxo_core::{ByPlayer, Player, Square};
    use oxo_protocol::{RecordPlayer, RecordedMove};

    use super::*;

    #[test]
    fn listening_line() {
        assert_eq!(
            listening_addr("oxo listening on http://127.0.0.1:4321"),
            "127.0.0.1:4321".parse().ok()
        );
        assert_eq!(
            listening_addr("oxo listening on http://127.0.0.1:4321/ (db x)"),
            "127.0.0.1:4321".parse().ok()
        );
        assert_eq!(listening_addr("starting"), None);
    }

    fn record(first: Player, cells: &[(u32, Player, Square)]) -> GameRecord {
        let p = |id: &str| RecordPlayer {
            id: id.into(),
            name: id.into(),
            bot: None,
        };
        GameRecord {
            id: "g".into(),
            table_id: Some("t".into()),
            round: 1,
            players: ByPlayer {
                x: p("a"),
                o: p("b"),
            },
            first,
            moves: cells
                .iter()
                .map(|&(ply, player, cell)| RecordedMove {
                    ply,
                    player,
                    cell,
                    at_ms: 0,
                })
                .collect(),
            outcome: None,
            started_at_ms: 0,
            ended_at_ms: None,
        }
    }

    #[test]
    fn records_are_checked() {
        use Player::{O, X};
        use Square::{A1, B2};
        assert!(check_record(&record(X, &[(1, X, B2), (2, O, A1)]), "t", 1).is_ok());
        assert!(check_record(&record(O, &[(1, O, B2)]), "t", 1).is_ok());
        assert!(check_record(&record(X, &[(1, X, B2)]), "u", 1).is_err());
        assert!(check_record(&record(X, &[(2, X, B2)]), "t", 1).is_err());
        assert!(check_record(&record(X, &[(1, O, B2)]), "t", 1).is_err());
        assert!(check_record(&record(X, &[(1, X, B2), (2, O, B2)]), "t", 1).is_err());
    }

    /// The checks catch a missing move and a missing game, against a tiny
    /// HTTP server that knows one game with two moves.
    #[tokio::test]
    async fn verify_finds_lost_moves() {
        use Player::{O, X};
        use Square::{A1, B2, C3};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let mut rec = record(X, &[(1, X, B2), (2, O, A1)]);
        rec.id = "g1".into();
        let body = serde_json::to_string(&rec).expect("serializes");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            while let Ok((mut tcp, _)) = listener.accept().await {
                let mut buf = [0u8; 1024];
                let n = tcp.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let (status, body) = if head.starts_with("GET /api/games/g1 ") {
                    ("200 OK", body.clone())
                } else {
                    ("404 Not Found", r#"{"error":"no such game"}"#.to_owned())
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
                let _ = tcp.write_all(reply.as_bytes()).await;
            }
        });
        let ledger = Ledger::default();
        ledger.seen("t", &Some("g1".into()), 1, "token");
        ledger.ack("t", Some("g1".into()), 1, 1, B2);
        ledger.ack("t", Some("g1".into()), 1, 2, A1);
        ledger.ack("t", Some("g1".into()), 1, 3, C3);
        ledger.seen("t", &Some("g2".into()), 2, "token");
        ledger.ack("t", Some("g2".into()), 2, 1, B2);
        let mut report = CrashReport::default();
        verify(&ledger, addr, &mut report).await;
        assert_eq!(report.acknowledged_moves, 4);
        assert_eq!(report.lost_moves, 2, "{report}");
        assert_eq!(report.games_checked, 1);
        assert_eq!(report.moves_checked, 2);
        assert_eq!(report.bad_games, 0);
        assert!(!report.passed());
        assert!(
            report.problems.iter().any(|p| p.contains("HTTP 404")),
            "{report}"
        );
    }
}
