//! The reports' text form shares two kinds of lines: counts by kind, and
//! details one per line. A leaf every report's `Display` uses.

use std::collections::BTreeMap;
use std::fmt;

/// One line per kind: `{prefix}{kind}: {n}`.
pub(crate) fn counts(
    f: &mut fmt::Formatter<'_>,
    prefix: &str,
    counts: &BTreeMap<String, u64>,
) -> fmt::Result {
    for (kind, n) in counts {
        writeln!(f, "{prefix}{kind}: {n}")?;
    }
    Ok(())
}

/// One line per item: `{prefix}{item}`.
pub(crate) fn lines(f: &mut fmt::Formatter<'_>, prefix: &str, items: &[String]) -> fmt::Result {
    for item in items {
        writeln!(f, "{prefix}{item}")?;
    }
    Ok(())
}
