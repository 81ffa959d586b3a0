//! `oxo analyze` through the real binary: a position's report, and a bad
//! position refused as a bad argument.

mod common;

fn analyze(position: &str) -> (Option<i32>, String, String) {
    common::oxo(&["analyze", position])
}

#[test]
fn a_position_gets_its_value_and_every_moves() {
    let (code, out, _) = analyze("X.O.X....");
    assert_eq!(code, Some(0));
    assert!(out.contains("O to move"), "{out}");
    // One line per empty cell: its name, then its value.
    let moves = out.lines().filter(|l| {
        let b = l.as_bytes();
        b.len() > 4 && b"abc".contains(&b[0]) && b"123".contains(&b[1]) && &b[2..4] == b"  "
    });
    assert_eq!(moves.count(), 6, "every legal move is listed: {out}");
}

#[test]
fn a_bad_position_is_a_bad_argument_that_says_why() {
    let (code, _, err) = analyze("X");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("found 1 cell, expected 9 cells"), "{err}");
    let (code, _, err) = analyze("XXXXXXXXX");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("impossible position"), "{err}");
}
