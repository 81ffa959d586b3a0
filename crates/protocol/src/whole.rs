//! Whole numbers read from a client's frame (request ids, time options)
//! whose refusal says the range the field takes, not the range of the Rust
//! integer that holds it: `1.5`, `-1`, `"5"` or a number past that integer
//! is told "a whole number from 0 to 9007199254740991 for id".

use std::fmt;

use serde::Deserializer;
use serde::de::{Error, Unexpected, Visitor};

use crate::limits::{MAX_BOT_THINK_MS, MAX_MOVE_TIME_MS, MIN_MOVE_TIME_MS};

/// A field holding an optional whole number: its name as a client writes
/// it, the range it takes, and the largest value read at all (a larger one
/// is refused here; one in between is the caller's to check).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Whole {
    /// The field, as a client writes it (`options.move_time_ms`).
    pub(crate) field: &'static str,
    /// What the number counts, after "a whole number" (` of milliseconds`).
    pub(crate) unit: &'static str,
    /// The least value the field takes.
    pub(crate) min: u64,
    /// The greatest value the field takes.
    pub(crate) max: u64,
    /// The greatest value read; larger ones are refused as too large.
    pub(crate) limit: u64,
}

impl Whole {
    /// Reads the field: `null` (or absent, with `#[serde(default)]`) is
    /// `None`.
    pub(crate) fn read<'de, D: Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for Whole {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Whole {
            field,
            unit,
            min,
            max,
            ..
        } = self;
        write!(f, "a whole number{unit} from {min} to {max} for {field}")
    }

    fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_u64(self)
    }

    fn visit_u64<E: Error>(self, value: u64) -> Result<Self::Value, E> {
        if value > self.limit {
            return Err(E::custom(format_args!(
                "{} {value} is too large: expected {}",
                self.field,
                Expected(self)
            )));
        }
        Ok(Some(value))
    }

    fn visit_i64<E: Error>(self, value: i64) -> Result<Self::Value, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::invalid_value(Unexpected::Signed(value), &self)),
        }
    }
}

/// A [`Whole`]'s `expecting` text, to write in a message of our own.
struct Expected(Whole);

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }
}

/// `options.move_time_ms`: read up to `u32::MAX` (the range,
/// [`MIN_MOVE_TIME_MS`]..=[`MAX_MOVE_TIME_MS`], is checked with the other
/// options, by [`TableOptions::validate`](crate::TableOptions::validate)).
pub(crate) fn move_time_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let whole = Whole {
        field: "options.move_time_ms",
        unit: " of milliseconds",
        min: MIN_MOVE_TIME_MS.into(),
        max: MAX_MOVE_TIME_MS.into(),
        limit: u32::MAX.into(),
    };
    whole
        .read(d)?
        .map(|ms| u32::try_from(ms).map_err(D::Error::custom))
        .transpose()
}

/// `options.bot.think_ms`, `null` or absent as 0: read up to `u32::MAX`
/// (the limit, [`MAX_BOT_THINK_MS`], is checked with the other options).
pub(crate) fn think_ms<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let whole = Whole {
        field: "options.bot.think_ms",
        unit: " of milliseconds",
        min: 0,
        max: MAX_BOT_THINK_MS.into(),
        limit: u32::MAX.into(),
    };
    let ms = whole.read(d)?.unwrap_or_default();
    u32::try_from(ms).map_err(D::Error::custom)
}
