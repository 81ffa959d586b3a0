//! `oxo perft`: counts of the game tree per depth.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use oxo_core::{Player, Position, perft};

/// Arguments of `oxo perft`.
#[derive(Debug, Args)]
pub(crate) struct PerftArgs {
    /// Show depths 0 to N (the tree ends at depth 9).
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u8).range(0..=9))]
    depth: u8,
}

pub(crate) fn run(args: &PerftArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let stats = perft::enumerate(&Position::new());
    let elapsed = start.elapsed();
    println!(
        "{:>5} {:>10} {:>10} {:>10} {:>10}",
        "depth", "nodes", "X wins", "O wins", "draws"
    );
    for d in 0..=usize::from(args.depth) {
        println!(
            "{:>5} {:>10} {:>10} {:>10} {:>10}",
            d,
            stats.nodes[d],
            stats.wins[Player::X][d],
            stats.wins[Player::O][d],
            stats.draws[d]
        );
    }
    println!(
        "total {:>10} {:>10} {:>10} {:>10}",
        stats.nodes[..=usize::from(args.depth)].iter().sum::<u64>(),
        stats.wins[Player::X][..=usize::from(args.depth)]
            .iter()
            .sum::<u64>(),
        stats.wins[Player::O][..=usize::from(args.depth)]
            .iter()
            .sum::<u64>(),
        stats.draws[..=usize::from(args.depth)].iter().sum::<u64>(),
    );
    println!(
        "games: {} (full tree enumerated in {:.3} ms)",
        stats.total_games(),
        elapsed.as_secs_f64() * 1e3
    );
    Ok(ExitCode::SUCCESS)
}
