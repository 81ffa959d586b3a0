//! `oxo selfplay`: bots against bots.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use oxo_core::{BotLevel, ByPlayer, Game, Player};

/// Arguments of `oxo selfplay`.
#[derive(Debug, Args)]
pub(crate) struct SelfplayArgs {
    /// The bot playing X: random, easy, medium or perfect.
    #[arg(long, default_value = "perfect", value_name = "LEVEL")]
    x: BotLevel,
    /// The bot playing O: random, easy, medium or perfect.
    #[arg(long, default_value = "random", value_name = "LEVEL")]
    o: BotLevel,
    /// How many games to play.
    #[arg(long, default_value_t = 10_000)]
    games: u64,
    /// Seed for the bots' choices; the same seed replays the same games.
    #[arg(long, default_value_t = 1, value_parser = crate::seed::parse, allow_negative_numbers = true)]
    seed: u64,
    /// Who moves first in every game: x or o.
    #[arg(long, default_value = "x", value_name = "x|o")]
    first: Player,
}

/// Results of a self-play run.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) wins: ByPlayer<u64>,
    pub(crate) draws: u64,
}

/// Plays `games` games and returns the tally; `tick` is called after each game.
pub(crate) fn play_games(args: &SelfplayArgs, mut tick: impl FnMut()) -> Tally {
    let mut bots = ByPlayer {
        x: args.x.bot(args.seed),
        o: args.o.bot(args.seed ^ 0x5eed_f00d_0f00),
    };
    let mut tally = Tally::default();
    for _ in 0..args.games {
        let mut game = Game::with_first(args.first);
        while let Some(player) = game.to_move() {
            let Some(sq) = bots[player].choose(game.position()) else {
                break;
            };
            if game.play(sq).is_err() {
                break;
            }
        }
        match game.outcome().and_then(|o| o.winner()) {
            Some(p) => tally.wins[p] += 1,
            None => tally.draws += 1,
        }
        tick();
    }
    tally
}

pub(crate) fn run(args: &SelfplayArgs) -> anyhow::Result<ExitCode> {
    let bar = if args.games >= 10_000 {
        ProgressBar::new(args.games)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {per_sec}, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    let mut n = 0u64;
    let tally = play_games(args, || {
        n += 1;
        if n.is_multiple_of(1024) {
            bar.set_position(n);
        }
    });
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    let games = args.games.max(1) as f64;
    let pct = |n: u64| 100.0 * n as f64 / games;
    println!(
        "{} games, X = {}, O = {}, {} first",
        args.games, args.x, args.o, args.first
    );
    for (player, level) in [(Player::X, args.x), (Player::O, args.o)] {
        let (won, lost) = (tally.wins[player], tally.wins[!player]);
        println!(
            "{player} ({level:>7}): {won:>8} wins ({:5.1}%) {lost:>8} losses ({:5.1}%)",
            pct(won),
            pct(lost)
        );
    }
    println!(
        "draws:       {:>8}      ({:5.1}%)",
        tally.draws,
        pct(tally.draws)
    );
    println!(
        "{:.0} games/s ({:.3} s)",
        args.games as f64 / secs.max(1e-9),
        secs
    );
    Ok(ExitCode::SUCCESS)
}
