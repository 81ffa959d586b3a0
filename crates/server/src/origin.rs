//! Which web pages may open a WebSocket here: the server's own, and the
//! origins the operator allows ([`Config::allowed_origins`]).
//!
//! A browser sends the page's origin (`Origin: https://example.com`) with
//! every WebSocket request, and a page's script cannot change it or add
//! headers. So a request whose origin is another site is a page of that
//! site acting in its visitor's name (and from the visitor's address);
//! it is refused. A request without `Origin` is not from a browser page
//! and is not concerned; the server's own pages have the origin the
//! request is addressed to (`Host`, or `X-Forwarded-Host` behind a proxy
//! that rewrites `Host`).
//!
//! [`Config::allowed_origins`]: crate::Config::allowed_origins

use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};

/// Whether a WebSocket request with `headers` may go on, given the
/// operator's `allowed` origins (`*`: any). `Err` names the origin refused.
pub(crate) fn check(headers: &HeaderMap, allowed: &[String]) -> Result<(), String> {
    let Some(origin) = headers.get(ORIGIN) else {
        return Ok(());
    };
    let origin = String::from_utf8_lossy(origin.as_bytes());
    let origin = origin.trim().trim_end_matches('/');
    if allowed
        .iter()
        .any(|a| a == "*" || a.trim_end_matches('/').eq_ignore_ascii_case(origin))
    {
        return Ok(());
    }
    let authority = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"));
    let addressed = [headers.get(HOST), headers.get("x-forwarded-host")]
        .into_iter()
        .flatten()
        .filter_map(|h| h.to_str().ok())
        // A proxy may list several hosts: the first is the client's.
        .filter_map(|h| h.split(',').next())
        .map(str::trim);
    let own = authority.is_some_and(|a| addressed.clone().any(|h| h.eq_ignore_ascii_case(a)));
    if own { Ok(()) } else { Err(origin.to_owned()) }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn the_servers_own_pages_and_clients_that_are_not_browsers_may_connect() {
        let none: &[String] = &[];
        assert!(check(&headers(&[("host", "oxo.example:8080")]), none).is_ok());
        let own = headers(&[
            ("host", "oxo.example:8080"),
            ("origin", "http://OXO.example:8080"),
        ]);
        assert!(check(&own, none).is_ok());
        let proxied = headers(&[
            ("host", "10.0.0.5:8080"),
            ("x-forwarded-host", "play.example"),
            ("origin", "https://play.example"),
        ]);
        assert!(check(&proxied, none).is_ok());
    }

    #[test]
    fn another_sites_pages_may_not_unless_allowed() {
        let evil = headers(&[("host", "oxo.example"), ("origin", "https://evil.example")]);
        assert_eq!(check(&evil, &[]), Err("https://evil.example".to_owned()));
        let null = headers(&[("host", "oxo.example"), ("origin", "null")]);
        assert!(check(&null, &[]).is_err());
        assert!(check(&evil, &["https://evil.example/".to_owned()]).is_ok());
        assert!(check(&evil, &["*".to_owned()]).is_ok());
    }
}
