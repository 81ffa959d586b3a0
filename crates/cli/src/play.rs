//! `oxo play`: the terminal game. The game itself lives in `oxo-tui`; this
//! module only turns the flags into an [`oxo_tui::Config`].

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use oxo_core::{ByPlayer, Starter};
use oxo_tui::{Config, Seat};

/// Arguments of `oxo play`.
///
/// Giving any of `--x`, `--o` or `--first` skips the set-up screen.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {
    /// Who plays X: a name, or a bot as bot:random, bot:easy, bot:medium or
    /// bot:perfect [default: "Player 1"].
    #[arg(long, value_name = "NAME|bot:LEVEL")]
    x: Option<Seat>,
    /// Who plays O: a name, or a bot as bot:random, bot:easy, bot:medium or
    /// bot:perfect [default: "Player 2"].
    #[arg(long, value_name = "NAME|bot:LEVEL")]
    o: Option<Seat>,
    /// Who starts each round: x or o (always), toss (a coin toss each round)
    /// or alternate (X first, then taking turns) [default: alternate].
    #[arg(long, value_name = "x|o|toss|alternate")]
    first: Option<Starter>,
    /// Use the plain line mode even on a terminal: the board as text, one
    /// move (b2 or 5) or command (undo, restart, scores, hint, quit) per line.
    /// It is also used whenever standard input or output is not a terminal.
    #[arg(long)]
    plain: bool,
    /// Seed for the bots and the coin toss; the same seed and moves replay the
    /// same games [default: from the clock].
    #[arg(long)]
    seed: Option<u64>,
}

pub(crate) fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let defaults = Config::default();
    let setup = args.x.is_none() && args.o.is_none() && args.first.is_none();
    let config = Config {
        players: ByPlayer {
            x: args.x.unwrap_or(defaults.players.x),
            o: args.o.unwrap_or(defaults.players.o),
        },
        first: args.first.unwrap_or(defaults.first),
        seed: args.seed,
        setup,
        plain: args.plain,
    };
    oxo_tui::run(config).context("the terminal game failed")?;
    Ok(ExitCode::SUCCESS)
}
