//! `oxo loadtest`: load a running oxo server with real games and report
//! throughput, latency and errors (the work is done by `oxo-loadtest`).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use oxo_loadtest::{Config, Progress, parse_duration};

use crate::fds;

/// Arguments of `oxo loadtest`.
///
/// Each game is two WebSocket clients at a private table playing random legal
/// moves (and a few moves meant to be refused), with a rematch after every
/// round so the load stays constant. The server must not throttle the load
/// tool: start it with its per-connection rate limit lifted or raised (see
/// `oxo serve --help`, `--rate-limit`), and with an open-files limit above
/// the number of connections. Exits with 1 if any error was counted.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    oxo loadtest --games 1000 --duration 30s --server-pid $(pgrep -n oxo)\n  \
    oxo loadtest --games 1000 --rate 30000 --duration 30s\n  \
    oxo loadtest --games 10000 --think-ms 1000 --duration 60s\n  \
    oxo loadtest --idle 10000 --games 0 --duration 10s --json\n  \
    oxo loadtest --games 100 --non-readers 1000 --non-reader-pings --duration 60s --server-pid PID\n  \
    oxo loadtest --games 0 --hello-cycles 100000 --duration 10m --server-pid PID")]
pub(crate) struct LoadtestArgs {
    /// The server's WebSocket URL. Loopback only, unless --allow-remote.
    #[arg(long, default_value = "ws://127.0.0.1:8080/ws")]
    url: String,
    /// Load a server outside 127.0.0.0/8, ::1 and localhost.
    #[arg(long)]
    allow_remote: bool,
    /// Concurrent games (two player connections each).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// The measured window (e.g. 30s, 2m), after set-up and warm-up.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    duration: Duration,
    /// Play before measuring (not counted).
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    warmup: Duration,
    /// Spectator connections per game, watching its table.
    #[arg(long, default_value_t = 0)]
    spectators: usize,
    /// Mean think time before each move, in milliseconds (each pause is
    /// drawn from half to one and a half times this).
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Pace the games to offer this many moves per second in all, instead
    /// of a think time (each game moves at most every games/rate seconds).
    /// Zero think time is a closed loop: every game always has a move in
    /// flight, so the mean round trip is the game count over the throughput;
    /// a paced run measures latency at a given load.
    #[arg(long, conflicts_with = "think_ms")]
    rate: Option<f64>,
    /// Percentage of turns that first send a move the server must refuse
    /// (counted as refusals, not errors).
    #[arg(long, default_value_t = 2.0)]
    refusals: f64,
    /// Extra connections that only say hello and stay idle (for memory).
    #[arg(long, default_value_t = 0)]
    idle: usize,
    /// Connections that say hello, send watch_lobby, and then never read
    /// their socket again (kept open, with a small receive buffer). The
    /// report says how many the server closed, and when.
    #[arg(long, default_value_t = 0)]
    non_readers: usize,
    /// Non-readers also send a ping every --non-reader-ping-interval,
    /// never reading the pongs.
    #[arg(long)]
    non_reader_pings: bool,
    /// Time between two pings of one non-reader.
    #[arg(long, default_value = "1s", value_parser = parse_duration, requires = "non_reader_pings")]
    non_reader_ping_interval: Duration,
    /// Receive buffer asked for each non-reader's socket (SO_RCVBUF), in
    /// bytes.
    #[arg(long, default_value_t = 4096)]
    non_reader_rcvbuf: u32,
    /// Hello cycles during the window: connect, hello as a new player
    /// (no token), wait for welcome or a refusal, close. A run with only
    /// hello cycles ends when they are done (or at --duration).
    #[arg(long, default_value_t = 0)]
    hello_cycles: u64,
    /// Hello cycles run at once.
    #[arg(long, default_value_t = 4)]
    hello_concurrency: usize,
    /// Hello cycles come back as a returning player: each of the
    /// --hello-concurrency workers makes a player in its first cycle and
    /// says hello with that player's token in every later one.
    #[arg(long, requires = "hello_cycles")]
    hello_returning: bool,
    /// The server's process id: report its CPU and peak memory.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Connections being opened at once while ramping up.
    #[arg(long, default_value_t = 256)]
    connect_concurrency: usize,
    /// The longest a request may wait for its reply.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    timeout: Duration,
    /// The longest set-up may take.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    setup_timeout: Duration,
    /// After the window, how long to wait for the last replies (and for
    /// non-readers to read their backlog: up to this less 1.5 s).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    drain: Duration,
    /// Worker threads of the load tool (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the players' random moves.
    #[arg(long, default_value_t = 0x6f78_6f21, value_parser = crate::seed::parse, allow_negative_numbers = true)]
    seed: u64,
}

pub(crate) fn run(args: LoadtestArgs) -> anyhow::Result<ExitCode> {
    let open_files = fds::raise_open_files_limit(None);
    let config = Config {
        url: args.url,
        allow_remote: args.allow_remote,
        games: args.games,
        spectators: args.spectators,
        idle: args.idle,
        non_readers: args.non_readers,
        non_reader_pings: args
            .non_reader_pings
            .then_some(args.non_reader_ping_interval),
        non_reader_recv_buffer: args.non_reader_rcvbuf,
        hello_cycles: args.hello_cycles,
        hello_concurrency: args.hello_concurrency,
        hello_returning: args.hello_returning,
        think: Duration::from_millis(args.think_ms),
        rate: args.rate,
        refusal_percent: args.refusals,
        duration: args.duration,
        warmup: args.warmup,
        setup_timeout: args.setup_timeout,
        drain: args.drain,
        request_timeout: args.timeout,
        connect_concurrency: args.connect_concurrency,
        server_pid: args.server_pid,
        seed: args.seed,
        open_files_limit: open_files.as_ref().ok().copied(),
    };
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.threads {
        builder.worker_threads(n.max(1));
    }
    let runtime = builder
        .enable_all()
        .build()
        .context("start the async runtime")?;
    let bar = progress_bar();
    // Every phase is bounded; this is the backstop.
    let limit = config.hard_limit() + Duration::from_secs(10);
    let result = runtime.block_on(async {
        tokio::time::timeout(limit, oxo_loadtest::run(&config, |p| show(&bar, p))).await
    });
    bar.finish_and_clear();
    runtime.shutdown_timeout(Duration::from_secs(1));
    let mut report = result
        .map_err(|_| anyhow::anyhow!("the run did not end within {limit:?}"))?
        .context("load test")?;
    if let Err(e) = open_files {
        // The first thing the run would have been warned about.
        report
            .warnings
            .insert(0, format!("cannot raise the open-files limit: {e}"));
    }
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{report}");
    }
    Ok(if report.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn progress_bar() -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(1), target);
    bar.set_style(
        ProgressStyle::with_template("{prefix:>9} [{bar:30}] {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar
}

fn show(bar: &ProgressBar, p: &Progress) {
    bar.set_prefix(p.phase.as_str());
    bar.set_length(p.length.as_millis().max(1) as u64);
    bar.set_position(p.elapsed.as_millis().min(p.length.as_millis()) as u64);
    let mut idle = String::new();
    if p.idle > 0 {
        idle.push_str(&format!(" idle {}/{}", p.idle_ready, p.idle));
    }
    if p.non_readers > 0 {
        idle.push_str(&format!(
            " non-readers {}/{}",
            p.non_readers_ready, p.non_readers
        ));
    }
    if p.hello_cycles > 0 {
        idle.push_str(&format!(" hello {}/{}", p.hello_done, p.hello_cycles));
    }
    bar.set_message(format!(
        "games {}/{}{idle} conns {} moves {} ({:.0}/s) errors {}",
        p.games_ready, p.games, p.open, p.moves, p.moves_per_sec, p.errors
    ));
}
