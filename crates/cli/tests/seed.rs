//! `--seed` through the real binary, for every command that takes one: a
//! seed replays the same games, and what is not a seed is refused as a bad
//! argument (exit status 2) saying what a seed is.

mod common;

use common::oxo;

#[test]
fn the_same_seed_replays_the_same_selfplay() {
    let args = [
        "selfplay", "--x", "random", "--o", "random", "--games", "50",
    ];
    let run = |seed: &str| {
        let (code, out, err) = oxo(&[&args[..], &["--seed", seed]].concat());
        assert_eq!(code, Some(0), "{err}");
        // The results, not the speed line.
        out.lines()
            .filter(|l| !l.contains("games/s"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(run("7"), run("7"));
}

#[test]
fn what_is_not_a_seed_is_said_so_by_every_command() {
    for command in [
        &["selfplay"][..],
        &["loadtest", "--url", "ws://127.0.0.1:9/ws"],
        &["play", "--plain"],
    ] {
        for bad in ["abc", "-1", "1.5"] {
            let (code, _, err) = oxo(&[command, &["--seed", bad]].concat());
            assert_eq!(code, Some(2), "{command:?} --seed {bad}: {err}");
            assert!(
                err.contains(&format!("'{bad}' is not a seed: use a whole number")),
                "{command:?} --seed {bad}: {err}"
            );
        }
    }
}
