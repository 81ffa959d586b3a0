//! `oxo analyze`: the solver's view of one position.

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::Args;
use oxo_core::{Position, solver};

/// Arguments of `oxo analyze`.
#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// The position: 9 cells of X, O or `.` row by row from the top left,
    /// optionally with `/` between rows and a side to move (`x` or `o`) after
    /// a space, e.g. `X.O.X....` or `"X.O/.X./... o"`.
    // Parsed by clap: a position that is not one is refused as a bad
    // argument (exit status 2), saying why.
    #[arg(value_parser = str::parse::<Position>)]
    position: Position,
}

pub(crate) fn run(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    print!("{}", report(&args.position));
    Ok(ExitCode::SUCCESS)
}

/// The text `oxo analyze` prints for `position`.
pub(crate) fn report(position: &Position) -> String {
    let mut out = position.board().diagram();
    let _ = writeln!(out);
    let turn = position.turn();
    match position.outcome() {
        Some(outcome) => {
            let _ = writeln!(out, "game over: {outcome}");
        }
        None => {
            let value = solver::value(position);
            let _ = writeln!(out, "{turn} to move: {}", value.describe(turn));
            let _ = writeln!(out);
            for mv in solver::analyze(position) {
                let _ = writeln!(out, "{}  {}", mv.square, mv.value.describe(turn));
            }
        }
    }
    out
}
