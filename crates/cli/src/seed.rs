//! `--seed`, as `oxo play`, `oxo selfplay` and `oxo loadtest` read it.

/// Reads a seed: a whole number from 0 to 2^64-1, and says so when `text`
/// is not one (clap's own message would be "invalid digit found in string").
///
/// ```text
/// --seed 42    ok
/// --seed abc   'abc' is not a seed: use a whole number from 0 to 18446744073709551615
/// ```
pub(crate) fn parse(text: &str) -> Result<u64, String> {
    text.trim().parse().map_err(|_| {
        format!(
            "'{text}' is not a seed: use a whole number from 0 to {}",
            u64::MAX
        )
    })
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn a_seed_is_a_whole_number_and_anything_else_is_said_to_be_none() {
        assert_eq!(parse("42"), Ok(42));
        assert_eq!(parse(&u64::MAX.to_string()), Ok(u64::MAX));
        for bad in ["abc", "-1", "1.5", "18446744073709551616", ""] {
            let why = parse(bad).expect_err(bad);
            assert!(why.contains("is not a seed: use a whole number"), "{why}");
        }
    }
}
