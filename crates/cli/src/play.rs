//! `oxo play`: the terminal game (being built: see issue 3).

use std::process::ExitCode;

use clap::Args;

/// Arguments of `oxo play`.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {}

pub(crate) fn run(_args: PlayArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("the terminal game is not built yet")
}
