//! Reading the two request headers that decide how an asset is answered:
//! `Accept-Encoding` (which of its precompressed encodings to send) and
//! `If-None-Match` (whether the client's copy is current, for a `304`).
//!
//! Hand-written because the assets are embedded bytes: tower-http's
//! `ServeDir` negotiates the same way, but only for files on disk. Both
//! parsers are lenient: whatever they cannot read counts as "not accepted"
//! or "no match", so a malformed header costs the client at most an
//! uncompressed or a full answer, never an error.

use axum::http::HeaderMap;
use axum::http::header::{ACCEPT_ENCODING, IF_NONE_MATCH};

/// A content coding the server can send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoding {
    /// Brotli: the smallest, preferred when accepted.
    Br,
    /// Gzip: understood by every client.
    Gzip,
    /// The file as it is.
    Identity,
}

impl Encoding {
    /// The `Content-Encoding` token; `None` for identity, which is not sent.
    pub(super) fn token(self) -> Option<&'static str> {
        match self {
            Encoding::Br => Some("br"),
            Encoding::Gzip => Some("gzip"),
            Encoding::Identity => None,
        }
    }

    /// The ETag of this encoding of the file whose content hash is `hash`.
    ///
    /// Each encoding is its own representation with its own bytes, so a
    /// strong ETag must differ between them (RFC 9110, 8.8.3).
    pub(super) fn etag(self, hash: &str) -> String {
        match self.token() {
            Some(token) => format!("\"{hash}-{token}\""),
            None => format!("\"{hash}\""),
        }
    }
}

/// The encoding to send, among `available` (compressed encodings, in the
/// server's order of preference): the one with the highest q-value in the
/// request's `Accept-Encoding`, ties going to the earlier one; identity if
/// none is accepted (`q=0` or not listed) or if the client explicitly
/// prefers it. Identity is the answer even when the client refuses it: a
/// `406` would help no one.
pub(super) fn choose(headers: &HeaderMap, available: &[Encoding]) -> Encoding {
    let accepted = Accepted::parse(headers);
    let mut best = (Encoding::Identity, 0);
    for &encoding in available {
        let q = accepted.q(encoding);
        if q > best.1 {
            best = (encoding, q);
        }
    }
    if accepted.q(Encoding::Identity) > best.1 {
        return Encoding::Identity;
    }
    best.0
}

/// Whether `If-None-Match` names `etag` (or is `*`): the client's copy is
/// current. Uses the weak comparison that RFC 9110 (13.1.2) prescribes for
/// this header, so `W/"abc"` matches `"abc"`.
pub(super) fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// The q-values of `Accept-Encoding`, in thousandths.
struct Accepted {
    /// `(coding, q)` for each entry, coding in lower case.
    entries: Vec<(String, u16)>,
}

impl Accepted {
    fn parse(headers: &HeaderMap) -> Accepted {
        let entries = headers
            .get_all(ACCEPT_ENCODING)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .filter_map(|entry| {
                let mut parts = entry.split(';');
                let coding = parts.next()?.trim().to_ascii_lowercase();
                if coding.is_empty() {
                    return None;
                }
                let q = parts
                    .map(str::trim)
                    .find(|param| param.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("q=")))
                    .map_or(Some(1000), |param| parse_q(&param[2..]));
                Some((coding, q.unwrap_or(0)))
            })
            .collect();
        Accepted { entries }
    }

    /// The q-value for `encoding`: its own entry, else `*`'s, else 0.
    fn q(&self, encoding: Encoding) -> u16 {
        let names: &[&str] = match encoding {
            Encoding::Br => &["br"],
            Encoding::Gzip => &["gzip", "x-gzip"],
            Encoding::Identity => &["identity"],
        };
        let own = self
            .entries
            .iter()
            .find(|(coding, _)| names.contains(&coding.as_str()));
        let any = || self.entries.iter().find(|(coding, _)| coding == "*");
        own.or_else(any).map_or(0, |&(_, q)| q)
    }
}

/// A qvalue (`0`, `0.5`, `1.000`) in thousandths; `None` if malformed.
fn parse_q(text: &str) -> Option<u16> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{frac:0<3}").parse::<u16>().ok()?;
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const BOTH: &[Encoding] = &[Encoding::Br, Encoding::Gzip];

    fn with(name: axum::http::HeaderName, value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_static(value));
        headers
    }

    fn pick(accept: &'static str, available: &[Encoding]) -> Encoding {
        choose(&with(ACCEPT_ENCODING, accept), available)
    }

    /// `Accept-Encoding` values and the encoding each gets, out of brotli
    /// and gzip.
    const CASES: &[(&str, Encoding)] = &[
        // Brotli beats gzip beats identity.
        ("gzip, deflate, br, zstd", Encoding::Br),
        ("gzip, deflate", Encoding::Gzip),
        ("GZIP", Encoding::Gzip),
        ("x-gzip", Encoding::Gzip),
        ("deflate", Encoding::Identity),
        ("", Encoding::Identity),
        // q-values are respected.
        ("br;q=0, gzip", Encoding::Gzip),
        ("br;q=0.0, gzip;q=0", Encoding::Identity),
        ("br;q=0.5, gzip;q=0.8", Encoding::Gzip),
        ("br ; q=0.5 , gzip ; Q=0.8", Encoding::Gzip),
        ("*", Encoding::Br),
        ("*;q=0", Encoding::Identity),
        ("br;q=0, *", Encoding::Gzip),
        ("gzip;q=0.5, identity", Encoding::Identity),
        ("gzip, identity", Encoding::Gzip),
        // Malformed q-values mean "not accepted".
        ("br;q=2, gzip", Encoding::Gzip),
        ("br;q=abc, gzip;q=1.5", Encoding::Identity),
        ("br;q=0.0001", Encoding::Identity),
        (",,; ;", Encoding::Identity),
    ];

    #[test]
    fn each_request_gets_the_best_encoding_it_accepts() {
        for &(accept, expected) in CASES {
            assert_eq!(pick(accept, BOTH), expected, "{accept:?}");
        }
        assert_eq!(choose(&HeaderMap::new(), BOTH), Encoding::Identity);
    }

    #[test]
    fn only_available_encodings_are_chosen() {
        assert_eq!(pick("br, gzip", &[Encoding::Gzip]), Encoding::Gzip);
        assert_eq!(pick("br", &[Encoding::Gzip]), Encoding::Identity);
        assert_eq!(pick("br, gzip", &[]), Encoding::Identity);
    }

    #[test]
    fn qvalues_parse_as_thousandths() {
        assert_eq!(parse_q("1"), Some(1000));
        assert_eq!(parse_q("1.000"), Some(1000));
        assert_eq!(parse_q("0.25"), Some(250));
        assert_eq!(parse_q("0"), Some(0));
        assert_eq!(parse_q("0."), Some(0));
        assert_eq!(parse_q("1.5"), None);
        assert_eq!(parse_q(""), None);
        assert_eq!(parse_q("-0"), None);
    }

    #[test]
    fn etags_differ_by_encoding() {
        assert_eq!(Encoding::Identity.etag("abc"), "\"abc\"");
        assert_eq!(Encoding::Gzip.etag("abc"), "\"abc-gzip\"");
        assert_eq!(Encoding::Br.etag("abc"), "\"abc-br\"");
    }

    #[test]
    fn if_none_match_uses_weak_comparison_over_lists() {
        let etag = "\"abc\"";
        let matches = |value| not_modified(&with(IF_NONE_MATCH, value), etag);
        assert!(matches("\"abc\""));
        assert!(matches("W/\"abc\""));
        assert!(matches("\"x\", W/\"abc\""));
        assert!(matches("*"));
        assert!(!matches("\"abc-br\""));
        assert!(!matches("abc"));
        assert!(!matches(""));
        assert!(!not_modified(&HeaderMap::new(), etag));
    }
}
