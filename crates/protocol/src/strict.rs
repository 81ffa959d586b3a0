//! Reading a client's frame more strictly than serde's derived readers,
//! which take more than the protocol says: a message kind given as a
//! number (the index of the variant) and an object given as an array of
//! its fields in order. Clients that depend on either would break on any
//! change of the message types' order, so neither is accepted.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::Request;

/// Reads one client frame as a [`Request`]: what `serde_json` reads, less a
/// `type` that is not a string and objects written as arrays.
///
/// ```
/// use oxo_protocol::{ClientMsg, parse_request};
///
/// let req = parse_request(r#"{"type":"ping","id":1}"#).unwrap();
/// assert_eq!((req.id, req.msg), (Some(1), ClientMsg::Ping));
/// assert!(parse_request(r#"{"type":0,"version":1}"#).is_err());
/// ```
///
/// # Errors
///
/// What is wrong with the frame, in `serde_json`'s words or ours.
pub fn parse_request(text: &str) -> Result<Request, serde_json::Error> {
    if text.trim().is_empty() {
        return Err(serde_json::Error::custom(
            "the message is empty: send one JSON object with a \"type\", such as {\"type\":\"ping\"}",
        ));
    }
    // A missing `type` is left to the derived reader ("missing field"); a
    // `null` one, like any other value that is not a string, is refused
    // here with words that say what `type` must be.
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow, default)]
        _kind: Cow<'a, str>,
    }
    if let Err(e) = serde_json::from_str::<Kind<'_>>(text) {
        // Let serde_json's own message say what is wrong when the frame is
        // not an object at all, or names its type twice.
        let value: serde_json::Value = serde_json::from_str(text).map_err(half_a_character)?;
        if e.to_string().starts_with("duplicate field") {
            return Err(e);
        }
        if value.is_object() {
            return Err(serde_json::Error::custom(
                "\"type\" must be a string naming the message, such as \"hello\"",
            ));
        }
    }
    serde_json::from_str(text)
        .map_err(half_a_character)
        .map_err(plain_words)
}

/// Rust's names for the types serde expected, in a client author's words.
const TYPE_WORDS: [(&str, &str); 6] = [
    ("expected u8", "expected a whole number from 0 to 255"),
    ("expected u16", "expected a whole number from 0 to 65535"),
    (
        "expected u32",
        "expected a whole number from 0 to 4294967295",
    ),
    (
        "expected u64",
        "expected a whole number from 0 to 18446744073709551615",
    ),
    ("expected i64", "expected a whole number"),
    // serde_json's words for an enum given anything but its name.
    ("expected string or map", "expected a string"),
];

/// serde's message with Rust's type names (`expected u32`) put in words
/// that say what JSON is accepted; its position stays.
fn plain_words(e: serde_json::Error) -> serde_json::Error {
    let said = e.to_string();
    let Some((rust, words)) = TYPE_WORDS.iter().find(|(rust, _)| {
        said.match_indices(rust).any(|(at, _)| {
            // A whole word: not `u32` in `u320`, or one value's text.
            !said[at + rust.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        })
    }) else {
        return e;
    };
    serde_json::Error::custom(said.replacen(rust, words, 1))
}

/// serde_json's words for a `\u` escape of half a UTF-16 surrogate pair
/// ("unexpected end of hex escape", "lone leading surrogate in hex escape",
/// whichever half it is) replaced by words a client author understands:
/// such a string is what JavaScript's `JSON.stringify` writes for a string
/// cut in the middle of an emoji.
fn half_a_character(e: serde_json::Error) -> serde_json::Error {
    let said = e.to_string();
    if said.starts_with("unexpected end of hex escape")
        || said.starts_with("lone leading surrogate in hex escape")
    {
        return serde_json::Error::custom(format!(
            "a string holds half of a character at line {} column {}: a \\u escape of a \
             lone UTF-16 surrogate (such as \\ud83d without the \\ude00 that completes it); \
             send whole characters",
            e.line(),
            e.column()
        ));
    }
    e
}

/// A field whose `null` means it is absent: its type's default.
pub(crate) fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A flag whose `null` means it is absent, and absent means `true`.
pub(crate) fn null_as_true<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(d)?.unwrap_or(true))
}

/// A struct read from a JSON object, or from `null` as its default.
pub(crate) fn object_or_null<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(optional_object(d)?.unwrap_or_default())
}

/// A struct read from a JSON object only, for `#[serde(deserialize_with)]`.
pub(crate) fn object<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_map(ObjectVisitor(PhantomData))
}

/// An optional struct read from a JSON object or `null` only.
pub(crate) fn optional_object<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_option(OptionalObjectVisitor(PhantomData))
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map))
    }
}

struct OptionalObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for OptionalObjectVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object or null")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        object(d).map(Some)
    }
}
