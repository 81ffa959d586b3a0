//! `oxo serve`: the game server (being built: see issue 4).

use std::process::ExitCode;

use clap::Args;

/// Arguments of `oxo serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {}

pub(crate) fn run(_args: ServeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("the server is coming (issue 4); `oxo analyze`, `perft` and `selfplay` work now")
}
