//! Engine speed: enumerating the game tree, solving every position, a
//! perfect move, a random playout and parsing notation.
//!
//! Run with `cargo bench -p oxo-core --bench engine`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use oxo_core::{BotLevel, Position, Rng, bot::random_playout, perft, solver};

fn tree(c: &mut Criterion) {
    let start = Position::new();
    c.bench_function("perft/count_nodes", |b| {
        b.iter(|| perft::count_nodes(black_box(&start)))
    });
    c.bench_function("perft/enumerate", |b| {
        b.iter(|| perft::enumerate(black_box(&start)))
    });
}

fn solve(c: &mut Criterion) {
    c.bench_function("solver/solve", |b| b.iter(solver::Table::solve));
}

/// Positions for the move benchmarks: the empty board, an opening, a
/// middle game and a forced block.
const POSITIONS: [&str; 4] = [".........", "....X....", "X...O...X", "X.O.X...."];

fn perfect_move(c: &mut Criterion) {
    let positions: Vec<Position> = POSITIONS
        .iter()
        .map(|s| s.parse().expect("legal position"))
        .collect();
    let mut bot = BotLevel::Perfect.bot(1);
    // Solve the table before measuring.
    let _ = bot.choose(&positions[0]);
    let mut group = c.benchmark_group("perfect_move");
    for (text, pos) in POSITIONS.iter().zip(&positions) {
        group.bench_function(*text, |b| b.iter(|| bot.choose(black_box(pos))));
    }
    group.finish();
}

fn playout(c: &mut Criterion) {
    let start = Position::new();
    let mut rng = Rng::new(1);
    c.bench_function("random_playout", |b| {
        b.iter(|| random_playout(black_box(&start), &mut rng))
    });
}

fn notation(c: &mut Criterion) {
    let mut group = c.benchmark_group("notation");
    for text in ["X.O.X....", "X.O/.X./...", "X.O.X...O o"] {
        group.bench_function(text, |b| b.iter(|| black_box(text).parse::<Position>()));
    }
    let pos: Position = "X.O.X...O o".parse().expect("legal position");
    group.bench_function("display", |b| b.iter(|| black_box(pos).to_string()));
    group.finish();
}

criterion_group!(benches, tree, solve, perfect_move, playout, notation);
criterion_main!(benches);
