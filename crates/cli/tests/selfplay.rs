//! `oxo selfplay` through the real binary: its help names what each option
//! takes, and a value it does not take is refused saying what it does.

mod common;

use common::oxo;

#[test]
fn help_names_the_values_of_every_choice() {
    let (code, out, err) = oxo(&["selfplay", "--help"]);
    assert_eq!(code, Some(0), "{err}");
    for (option, values) in [
        ("--x", "random, easy, medium or perfect"),
        ("--o", "random, easy, medium or perfect"),
        ("--first", "x or o"),
    ] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(option))
            .unwrap_or_else(|| panic!("no {option} in {out}"));
        assert!(line.contains(values), "{option}: {line}");
    }
}

#[test]
fn a_starter_it_does_not_take_is_refused_saying_what_it_takes() {
    let (code, _, err) = oxo(&["selfplay", "--first", "toss", "--games", "1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("'toss' is not a player: use x or o"), "{err}");
}
