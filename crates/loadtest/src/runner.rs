//! A load run from start to report: set-up, warm-up, the measured window
//! and the drain, each bounded in time, so a run always ends by
//! [`Config::hard_limit`] whatever the server does.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::config::{Config, Target, resolve_target};
use crate::ctx::{Ctx, player};
use crate::error::Error;
use crate::game::run_game;
use crate::hellocycle::{self, Cycles, Tally};
use crate::latency::Latency;
use crate::nonreader::{self, NonReaders, Plan};
use crate::procstat::{self, ProcessStats};
use crate::report::{Report, Setup};
use crate::sockstat::{self, TcpMemory};
use crate::stats::Stats;

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Opening connections and seating players.
    Setup,
    /// Playing, not yet measured.
    Warmup,
    /// The measured window.
    Measure,
    /// Finishing the last requests and closing.
    Drain,
}

impl Phase {
    /// The phase's name, for people.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Warmup => "warm-up",
            Phase::Measure => "measuring",
            Phase::Drain => "drain",
        }
    }
}

/// A look at a run in progress, a few times a second (for a progress bar).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Progress {
    /// The phase.
    pub phase: Phase,
    /// Time spent in this phase.
    pub elapsed: Duration,
    /// The phase's length (set-up: its time limit).
    pub length: Duration,
    /// Games seated and playing, of `games`.
    pub games_ready: u64,
    /// Games asked for.
    pub games: u64,
    /// Idle connections ready, of `idle`.
    pub idle_ready: u64,
    /// Idle connections asked for.
    pub idle: u64,
    /// Non-readers ready, of `non_readers`.
    pub non_readers_ready: u64,
    /// Non-readers asked for.
    pub non_readers: u64,
    /// Hello cycles done, of `hello_cycles`.
    pub hello_done: u64,
    /// Hello cycles asked for.
    pub hello_cycles: u64,
    /// Connections open.
    pub open: u64,
    /// Moves accepted since the start.
    pub moves: u64,
    /// Moves per second over the last tick.
    pub moves_per_sec: f64,
    /// Errors since the start.
    pub errors: u64,
}

/// How often progress is reported.
const TICK: Duration = Duration::from_millis(250);

/// Runs the load described by `config` and reports what it measured,
/// calling `progress` a few times a second.
///
/// # Errors
///
/// A bad or non-loopback URL (without `allow_remote`), a server that cannot
/// be reached at all, or arguments that make no sense. Trouble during the
/// run is counted in the report instead.
pub async fn run(config: &Config, mut progress: impl FnMut(&Progress)) -> Result<Report, Error> {
    config.check()?;
    let target = resolve_target(&config.url, config.allow_remote).await?;
    let mut warnings = Vec::new();
    let needed = config.connections() as u64 + 64;
    let open_files_limit = config.open_files_limit.unwrap_or(0);
    if open_files_limit != 0 && open_files_limit < needed {
        warnings.push(format!(
            "the open-files limit is {open_files_limit} but the run needs about {needed} sockets; \
             raise the hard limit (ulimit -Hn) or expect connect errors"
        ));
    }
    probe(&target, config.request_timeout).await?;

    let (plain, controls) = Ctx::new(target.clone());
    let ctx = Arc::new(Ctx {
        think: config.think,
        pace: config.pace(),
        refusal_permille: (config.refusal_percent * 10.0).round() as u32,
        timeout: config.request_timeout,
        spectators: config.spectators,
        setup: Arc::new(Semaphore::new(config.connect_concurrency.max(1))),
        seed: config.seed,
        ..plain
    });
    let stats = Arc::clone(&ctx.stats);

    // Before the load's connections open: the baseline.
    let server_pid = config.server_pid.map(|p| p.to_string());
    let server_run_start = server_pid.as_deref().and_then(|p| procstat::sample(p).ok());
    let client_run_start = procstat::sample("self").ok();
    let tcp_start = sockstat::sample();

    let mut tasks = JoinSet::new();
    let started = Instant::now();
    for i in 0..config.games {
        tasks.spawn(run_game(Arc::clone(&ctx), i));
    }
    for i in 0..config.idle {
        tasks.spawn(idle(Arc::clone(&ctx), i));
    }
    let non_readers = Arc::new(NonReaders::new(Plan {
        count: config.non_readers,
        pings: config.non_reader_pings,
        recv_buffer: config.non_reader_recv_buffer,
        final_read: Plan::final_read_within(config.drain),
    }));
    for i in 0..config.non_readers {
        tasks.spawn(nonreader::non_reader(
            Arc::clone(&ctx),
            Arc::clone(&non_readers),
            i,
        ));
    }
    let cycles = Arc::new(Cycles::new(config.hello_cycles));
    let mut hello_tasks = JoinSet::new();
    let mut ticker = Ticker::new(&stats, &cycles, &non_readers, config);

    // Set-up: until every game, idle connection and non-reader is ready (or
    // failed, for non-readers), or time is up.
    let setup_deadline = started + config.setup_timeout;
    let mut next_tick = started + TICK;
    loop {
        let ready = stats.games_ready.load(Relaxed) as usize >= config.games
            && stats.idle_ready.load(Relaxed) as usize >= config.idle
            && non_readers.set_up();
        let now = Instant::now();
        if ready || now >= setup_deadline {
            break;
        }
        if now >= next_tick {
            next_tick = now + TICK;
            progress(&ticker.tick(Phase::Setup, started, config.setup_timeout));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let setup = Setup {
        seconds: started.elapsed().as_secs_f64(),
        games_ready: stats.games_ready.load(Relaxed),
        idle_ready: stats.idle_ready.load(Relaxed),
        non_readers_ready: non_readers.ready.load(Relaxed),
        connections_open: 0,
    };
    if setup.games_ready < config.games as u64
        || setup.idle_ready < config.idle as u64
        || !non_readers.set_up()
    {
        warnings.push(format!(
            "set-up did not finish in {:?}: {} of {} games, {} of {} idle connections \
             and {} of {} non-readers ready",
            config.setup_timeout,
            setup.games_ready,
            config.games,
            setup.idle_ready,
            config.idle,
            setup.non_readers_ready,
            config.non_readers
        ));
    }

    sleep_with_progress(
        Phase::Warmup,
        config.warmup,
        &mut ticker,
        &mut progress,
        || false,
    )
    .await;

    // The window.
    let server_start = server_pid.as_deref().map(procstat::sample);
    let client_start = procstat::sample("self").ok();
    let window_start = Instant::now();
    stats.set_measuring(true);
    for _ in 0..config.hello_workers() {
        hello_tasks.spawn(hellocycle::worker(
            Arc::clone(&ctx),
            Arc::clone(&cycles),
            config.hello_returning,
        ));
    }
    // A run of hello cycles alone ends when they are done.
    let done_early = || !config.holds_connections() && cycles.finished();
    sleep_with_progress(
        Phase::Measure,
        config.duration,
        &mut ticker,
        &mut progress,
        done_early,
    )
    .await;
    stats.set_measuring(false);
    let window = window_start.elapsed().as_secs_f64();
    let server_end = server_pid.as_deref().map(procstat::sample);
    let client_end = procstat::sample("self").ok();
    let tcp_end = sockstat::sample();
    let connections_open = stats.open.load(Relaxed);

    // Drain: no new requests; wait for the last replies, then abandon.
    controls.stop();
    let drain_start = Instant::now();
    let drain_deadline = drain_start + config.drain;
    let mut hello = Tally::new();
    while !tasks.is_empty() || !hello_tasks.is_empty() {
        tokio::select! {
            Some(done) = hello_tasks.join_next(), if !hello_tasks.is_empty() => {
                if let Ok(tally) = done {
                    hello.merge(tally);
                }
            }
            _ = tasks.join_next(), if !tasks.is_empty() => {}
            () = tokio::time::sleep_until(drain_deadline) => {
                warnings.push(format!(
                    "{} tasks still busy after the {:?} drain; abandoned",
                    tasks.len() + hello_tasks.len(),
                    config.drain
                ));
                tasks.abort_all();
                hello_tasks.abort_all();
                break;
            }
            () = tokio::time::sleep(TICK) => progress(&ticker.tick(Phase::Drain, drain_start, config.drain)),
        }
    }
    let non_readers = (config.non_readers > 0).then(|| non_readers.report());
    if non_readers.as_ref().is_some_and(|n| n.unchecked > 0) {
        warnings.push(
            "some non-readers were abandoned before their final check; give a longer --drain"
                .to_owned(),
        );
    }
    let hello_cycles = (config.hello_cycles > 0).then(|| {
        hello.report(
            config.hello_cycles,
            config.hello_workers(),
            config.hello_returning,
            Some(window_start),
        )
    });
    if let Some(h) = &hello_cycles {
        if h.done < h.requested {
            warnings.push(format!(
                "only {} of {} hello cycles were done in the {:.1} s window; give a longer --duration",
                h.done, h.requested, window
            ));
        }
    }
    let server_after = server_pid.as_deref().and_then(|p| procstat::sample(p).ok());
    let client_after = procstat::sample("self").ok();
    let tcp = match (tcp_start, tcp_end) {
        (Ok(start), Ok(end)) => Some(TcpMemory {
            page_bytes: sockstat::page_bytes(),
            start,
            end,
            after_close: sockstat::sample().ok(),
        }),
        (Err(e), _) | (_, Err(e)) => {
            warnings.push(format!("cannot read /proc/net/sockstat: {e}"));
            None
        }
    };
    let server = match (server_start, server_end) {
        (Some(Ok(a)), Some(Ok(b))) => Some(
            ProcessStats::between(config.server_pid, a, b, window)
                .with_run_edges(server_run_start, server_after),
        ),
        (Some(Err(e)), _) | (_, Some(Err(e))) => {
            warnings.push(format!("cannot read the server's /proc entry: {e}"));
            None
        }
        _ => None,
    };
    let client = match (client_start, client_end) {
        (Some(a), Some(b)) => Some(
            ProcessStats::between(None, a, b, window)
                .with_run_edges(client_run_start, client_after),
        ),
        _ => None,
    };
    let moves = stats.moves.load(Relaxed);
    let moves_per_sec = moves as f64 / window;
    let server = server.map(|p| p.per_move(moves_per_sec));
    let client = client.map(|p| p.per_move(moves_per_sec));
    let games_finished = stats.rounds.load(Relaxed);
    Ok(Report {
        url: target.url.clone(),
        games: config.games,
        spectators_per_game: config.spectators,
        idle: config.idle,
        non_readers,
        hello_cycles,
        think_ms: u64::try_from(config.think.as_millis()).unwrap_or(u64::MAX),
        offered_rate: config.rate,
        refusal_percent: config.refusal_percent,
        setup: Setup {
            connections_open,
            ..setup
        },
        warmup_seconds: config.warmup.as_secs_f64(),
        window_seconds: window,
        moves,
        moves_per_sec,
        games_finished,
        games_per_sec: games_finished as f64 / window,
        latency_us: Latency::of(&stats.latency()),
        refusals: stats.refusals.load(Relaxed),
        spectator_events: stats.spectator_events.load(Relaxed),
        errors: stats.errors_total.load(Relaxed),
        errors_by_kind: stats.errors(),
        first_errors: stats.first_errors(),
        server,
        client,
        tcp,
        open_files_limit,
        warnings,
    })
}

/// One connection and `hello`, to fail fast with a clear message when
/// there is no server.
async fn probe(target: &Target, timeout: Duration) -> Result<(), Error> {
    let unreachable = |reason: String| Error::Unreachable {
        url: target.url.clone(),
        reason,
    };
    let mut conn = target
        .connect(timeout, None)
        .await
        .map_err(|e| unreachable(e.to_string()))?;
    let hello = conn.hello(None, Some("loadprobe".into()), timeout).await;
    conn.close().await;
    hello.map(|_| ()).map_err(|e| unreachable(e.to_string()))
}

/// An idle player: `hello`, then nothing until the run stops (answering
/// WebSocket pings as it reads).
async fn idle(ctx: Arc<Ctx>, index: usize) {
    let conn = {
        let Ok(_permit) = ctx.setup.acquire().await else {
            return;
        };
        match player(&ctx, format!("idle{index}")).await {
            Ok((conn, _, _)) => conn,
            Err(e) => {
                ctx.stats
                    .error(&format!("idle:{}", e.kind()), || e.to_string());
                return;
            }
        }
    };
    ctx.stats.idle_ready.fetch_add(1, Relaxed);
    let mut conn = conn;
    let mut stop = ctx.stop.clone();
    loop {
        tokio::select! {
            msg = conn.recv() => if let Err(e) = msg {
                ctx.stats.open.fetch_sub(1, Relaxed);
                if !*ctx.stop.borrow() {
                    ctx.stats.error(&format!("idle:{}", e.kind()), || e.to_string());
                }
                return;
            },
            _ = stop.changed() => break,
        }
    }
    ctx.stats.open.fetch_sub(1, Relaxed);
    conn.close().await;
}

/// Builds [`Progress`] values, with the recent move rate.
struct Ticker<'a> {
    stats: &'a Stats,
    cycles: &'a Cycles,
    non_readers: &'a NonReaders,
    games: u64,
    idle: u64,
    last: Instant,
    last_moves: u64,
}

impl<'a> Ticker<'a> {
    fn new(
        stats: &'a Stats,
        cycles: &'a Cycles,
        non_readers: &'a NonReaders,
        config: &Config,
    ) -> Ticker<'a> {
        Ticker {
            stats,
            cycles,
            non_readers,
            games: config.games as u64,
            idle: config.idle as u64,
            last: Instant::now(),
            last_moves: 0,
        }
    }

    fn tick(&mut self, phase: Phase, since: Instant, length: Duration) -> Progress {
        let now = Instant::now();
        let moves = self.stats.moves_total.load(Relaxed);
        let dt = now.duration_since(self.last).as_secs_f64();
        let rate = if dt > 0.0 {
            (moves - self.last_moves) as f64 / dt
        } else {
            0.0
        };
        self.last = now;
        self.last_moves = moves;
        Progress {
            phase,
            elapsed: now.duration_since(since),
            length,
            games_ready: self.stats.games_ready.load(Relaxed),
            games: self.games,
            idle_ready: self.stats.idle_ready.load(Relaxed),
            idle: self.idle,
            non_readers_ready: self.non_readers.ready.load(Relaxed),
            non_readers: self.non_readers.requested() as u64,
            hello_done: self.cycles.done.load(Relaxed),
            hello_cycles: self.cycles.requested(),
            open: self.stats.open.load(Relaxed),
            moves,
            moves_per_sec: rate,
            errors: self.stats.errors_total.load(Relaxed),
        }
    }
}

/// Waits `length`, or until `done` says so (checked every tick), reporting
/// progress.
async fn sleep_with_progress(
    phase: Phase,
    length: Duration,
    ticker: &mut Ticker<'_>,
    progress: &mut impl FnMut(&Progress),
    done: impl Fn() -> bool,
) {
    let start = Instant::now();
    let end = start + length;
    loop {
        let now = Instant::now();
        if now >= end || done() {
            return;
        }
        tokio::time::sleep((end - now).min(TICK)).await;
        progress(&ticker.tick(phase, start, length));
    }
}
