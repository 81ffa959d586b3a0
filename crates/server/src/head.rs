//! Limits on a request head, and its one `Host`, refused with a JSON
//! error like every other refusal of the HTTP API, before any route sees
//! the request.
//!
//! hyper refuses a head it will not read (a request target of 64 KiB, more
//! header fields than it has room for, a head that overflows its read
//! buffer) with the bare status and no body, and offers no hook to write
//! one: its automatic response is written inside the connection, which
//! then ends. So the limits a client meets are these, well under hyper's:
//! hyper reads a head up to its own limits ([`FIELDS_READ`], its
//! 64 KiB target and some 400 KiB buffer), and this layer refuses what is
//! over ours with a body saying what was wrong and what is accepted. Only
//! a head past hyper's limits, which no client means to send, still gets
//! the bare status (as does one hyper cannot parse at all: `400`).

use axum::extract::Request;
use axum::http::header::HOST;
use axum::http::{Uri, Version};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::ApiError;

/// The longest request target (path and query) taken, in bytes.
pub(crate) const MAX_TARGET: usize = 8 * 1024;

/// The most header fields a request may have.
pub(crate) const MAX_FIELDS: usize = 100;

/// The largest request head taken, in bytes as sent (about: whitespace
/// around values is not counted).
pub(crate) const MAX_HEAD: usize = 64 * 1024;

/// The header fields hyper makes room for: past [`MAX_FIELDS`], so that a
/// request over ours reaches this layer and is told why.
pub(crate) const FIELDS_READ: usize = 4 * MAX_FIELDS;

/// Refuses a request whose head is over the limits (`414`, `431`), or an
/// HTTP/1.1 one that does not name one host (`400`, as RFC 9112 3.2
/// asks: two hosts are how a request is read one way by a proxy and
/// another by us); passes the others on.
pub(crate) async fn limits(req: Request, next: Next) -> Response {
    match check(&req) {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

/// Whether `req`'s head is within the limits, or why not.
fn check(req: &Request) -> Result<(), ApiError> {
    let target = target_len(req.uri());
    if target > MAX_TARGET {
        return Err(ApiError::UriTooLong(format!(
            "the request target (path and query) is {target} bytes long; at most {MAX_TARGET} are accepted"
        )));
    }
    let fields = req.headers().len();
    if fields > MAX_FIELDS {
        return Err(ApiError::HeadTooLarge(format!(
            "the request has {fields} header fields; at most {MAX_FIELDS} are accepted"
        )));
    }
    // "GET /path HTTP/1.1\r\n", each "name: value\r\n", and "\r\n".
    let line = req.method().as_str().len() + target + 12;
    let head = line
        + req
            .headers()
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 4)
            .sum::<usize>()
        + 2;
    if head > MAX_HEAD {
        return Err(ApiError::HeadTooLarge(format!(
            "the request head is about {head} bytes; at most {MAX_HEAD} are accepted"
        )));
    }
    let hosts = req.headers().get_all(HOST).iter().count();
    if req.version() == Version::HTTP_11 && hosts != 1 {
        return Err(ApiError::BadRequest(format!(
            "an HTTP/1.1 request needs exactly one Host header; this one has {hosts}"
        )));
    }
    Ok(())
}

/// The length of the request target as sent: the path and query, or the
/// whole URI in absolute form.
fn target_len(uri: &Uri) -> usize {
    match uri.path_and_query() {
        Some(pq) if uri.scheme().is_none() => pq.as_str().len(),
        _ => uri.to_string().len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_measured_as_sent() {
        let len = |s: &str| target_len(&s.parse::<Uri>().expect("a URI"));
        assert_eq!(len("/api/games?limit=5"), 18);
        assert_eq!(len("http://h:1/api?x=1"), 18);
        assert_eq!(len("*"), 1);
    }
}
