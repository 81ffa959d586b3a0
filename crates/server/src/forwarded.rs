//! The client's address behind a reverse proxy (HAProxy, nginx): taken
//! from `X-Forwarded-For` only when the connection comes from a proxy the
//! operator named ([`Config::trusted_proxies`]); never by default, since any
//! client can send the header.
//!
//! The header lists the addresses a request passed through, the client
//! first; each proxy appends the address it received the request from. So
//! the list is read from the right: trusted proxies are skipped, and the
//! first address that is not one is the client as far as anyone trusted can
//! tell (what the client itself wrote further left is not believed).
//!
//! [`Config::trusted_proxies`]: crate::Config::trusted_proxies

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;

/// The address that the per-address limits use for a request that
/// came from `peer` with `headers`.
///
/// ```
/// # use oxo_server::client_address;
/// use axum::http::HeaderMap;
///
/// let proxy: std::net::SocketAddr = "10.0.0.2:40000".parse()?;
/// let mut headers = HeaderMap::new();
/// headers.insert("x-forwarded-for", "203.0.113.7, 10.0.0.9".parse()?);
/// let trusted = ["10.0.0.2".parse()?, "10.0.0.9".parse()?];
/// assert_eq!(client_address(proxy, &headers, &trusted).ip().to_string(), "203.0.113.7");
/// // Not from a trusted proxy: the header is ignored.
/// assert_eq!(client_address(proxy, &headers, &[]), proxy);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn client_address(peer: SocketAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> SocketAddr {
    if !is_trusted(peer.ip(), trusted) {
        return peer;
    }
    // Every X-Forwarded-For header, in order, as one list.
    let mut hops: Vec<&str> = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        let Ok(text) = value.to_str() else {
            // Not text: nothing in it can be believed.
            return peer;
        };
        hops.extend(text.split(',').map(str::trim));
    }
    for hop in hops.into_iter().rev() {
        let Some(ip) = parse_hop(hop) else {
            // A trusted proxy wrote something that is not an address: stop
            // at the last address known to be right.
            return peer;
        };
        if !is_trusted(ip, trusted) {
            return SocketAddr::new(ip, 0);
        }
    }
    peer
}

/// Whether `ip` is one of the `trusted` proxies (an IPv4 address also as
/// its IPv6-mapped form).
fn is_trusted(ip: IpAddr, trusted: &[IpAddr]) -> bool {
    let ip = ip.to_canonical();
    trusted.iter().any(|t| t.to_canonical() == ip)
}

/// One entry of `X-Forwarded-For`: an address, possibly with a port
/// (`1.2.3.4:5678`, `[2001:db8::1]:443`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|a| a.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(
                "x-forwarded-for",
                v.parse().unwrap_or_else(|e| panic!("{v}: {e}")),
            );
        }
        map
    }

    #[test]
    fn the_header_counts_only_from_a_trusted_proxy() {
        let proxy = addr("127.0.0.1:5000");
        let h = headers(&["198.51.100.4"]);
        assert_eq!(client_address(proxy, &h, &[]), proxy, "trusted by nobody");
        assert_eq!(
            client_address(proxy, &h, &[ip("10.1.1.1")]),
            proxy,
            "another proxy is trusted"
        );
        assert_eq!(
            client_address(proxy, &h, &[ip("127.0.0.1")]).ip(),
            ip("198.51.100.4")
        );
    }

    #[test]
    fn the_list_is_read_from_the_right_past_trusted_proxies() {
        let proxy = addr("10.0.0.2:1");
        let trusted = [ip("10.0.0.2"), ip("10.0.0.3")];
        // The client claims 1.1.1.1; the first proxy saw 203.0.113.9.
        let h = headers(&["1.1.1.1, 203.0.113.9", "10.0.0.3"]);
        assert_eq!(client_address(proxy, &h, &trusted).ip(), ip("203.0.113.9"));
        // Ports and IPv6 in brackets are read too.
        let h = headers(&["[2001:db8::7]:443, 10.0.0.3:80"]);
        assert_eq!(client_address(proxy, &h, &trusted).ip(), ip("2001:db8::7"));
    }

    #[test]
    fn without_a_usable_header_the_peer_is_the_client() {
        let proxy = addr("127.0.0.1:5000");
        let trusted = [ip("127.0.0.1")];
        assert_eq!(client_address(proxy, &headers(&[]), &trusted), proxy);
        assert_eq!(
            client_address(proxy, &headers(&["not an address"]), &trusted),
            proxy
        );
        assert_eq!(
            client_address(proxy, &headers(&["127.0.0.1"]), &trusted),
            proxy,
            "only trusted hops"
        );
        // An IPv6-mapped peer is its IPv4 address.
        let mapped = addr("[::ffff:127.0.0.1]:5000");
        assert_eq!(
            client_address(mapped, &headers(&["192.0.2.1"]), &trusted).ip(),
            ip("192.0.2.1")
        );
    }
}
