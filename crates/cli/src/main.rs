//! `oxo`: the one binary. Each subcommand lives in its own module; the work
//! itself is done by the library crates.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod analyze;
mod arenas;
mod fds;
mod loadtest;
mod perft;
mod play;
mod seed;
mod selfplay;
mod serve;

/// oxo: tic-tac-toe done properly — a perfect-play engine, bots, a terminal
/// game and a multiplayer server.
#[derive(Debug, Parser)]
#[command(name = "oxo", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play in the terminal: two people on one keyboard, or against a bot.
    Play(play::PlayArgs),
    /// Run the multiplayer game server (WebSocket, HTTP API and browser UI).
    Serve(serve::ServeArgs),
    /// Show the perfect-play value of a position and of each legal move.
    Analyze(analyze::AnalyzeArgs),
    /// Enumerate the game tree: nodes and finished games per depth.
    Perft(perft::PerftArgs),
    /// Play bots against each other and count the results.
    Selfplay(selfplay::SelfplayArgs),
    /// Load a running server with real games and report throughput and latency.
    Loadtest(loadtest::LoadtestArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(args) => play::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Analyze(args) => analyze::run(&args),
        Command::Perft(args) => perft::run(&args),
        Command::Selfplay(args) => selfplay::run(&args),
        Command::Loadtest(args) => loadtest::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("oxo: {err:#}");
            ExitCode::FAILURE
        }
    }
}
