//! Where a server is: what people type or copy (`http://host:port`, a
//! table's link `http://host:port/t/ID`, `ws://host:port/ws`, or
//! `host:port`) turned into the WebSocket URL and the table, if any. A
//! link's query or fragment (`?ref=x`, `#chat`) is ignored, and schemes
//! are case-insensitive.

use std::fmt;
use std::str::FromStr;

use oxo_protocol::TableId;

/// A server to connect to, and the table a link pointed at.
///
/// ```
/// use oxo_client::Address;
///
/// let link: Address = "http://127.0.0.1:8080/t/0f3a".parse()?;
/// assert_eq!(link.ws_url(), "ws://127.0.0.1:8080/ws");
/// assert_eq!(link.http_url(), "http://127.0.0.1:8080");
/// assert_eq!(link.table().map(|t| t.as_str()), Some("0f3a"));
/// assert_eq!("localhost:9000".parse::<Address>()?.ws_url(), "ws://localhost:9000/ws");
/// assert!("https://example.org".parse::<Address>().is_err());
/// # Ok::<_, oxo_client::AddressError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    /// `host:port` (or `host`, for port 80).
    authority: String,
    table: Option<TableId>,
}

/// Why a text is not a server address; says what is accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{text}' is not a server address ({why}): use http://HOST:PORT, a table link \
     http://HOST:PORT/t/TABLE_ID, ws://HOST:PORT/ws or HOST:PORT"
)]
pub struct AddressError {
    text: String,
    why: &'static str,
}

impl Address {
    /// The WebSocket URL of the protocol (`ws://host:port/ws`).
    #[must_use]
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.authority)
    }

    /// The server's HTTP base (`http://host:port`), for the HTTP API and
    /// the links to give to others.
    #[must_use]
    pub fn http_url(&self) -> String {
        format!("http://{}", self.authority)
    }

    /// The link to a table at this server, as the browser shows it.
    #[must_use]
    pub fn table_link(&self, table: &TableId) -> String {
        format!("{}/t/{table}", self.http_url())
    }

    /// `host:port` to open a TCP connection to (port 80 when the address
    /// named none).
    pub(crate) fn host_port(&self) -> String {
        let has_port = self
            .authority
            .rsplit_once(':')
            .is_some_and(|(_, port)| !port.is_empty() && !port.contains(']'));
        if has_port {
            self.authority.clone()
        } else {
            format!("{}:80", self.authority)
        }
    }

    /// The table a link pointed at, if it did.
    #[must_use]
    pub const fn table(&self) -> Option<&TableId> {
        self.table.as_ref()
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.table {
            Some(table) => f.write_str(&self.table_link(table)),
            None => f.write_str(&self.http_url()),
        }
    }
}

impl FromStr for Address {
    type Err = AddressError;

    fn from_str(text: &str) -> Result<Address, AddressError> {
        let refuse = |why| AddressError {
            text: text.chars().take(100).collect(),
            why,
        };
        // A link copied with a query (`?ref=x`) or a fragment (`#chat`)
        // is the same link: both are dropped.
        let trimmed = text.trim();
        let trimmed = trimmed.split(['?', '#']).next().unwrap_or(trimmed);
        // Schemes are case-insensitive (RFC 3986, 3.1).
        let rest = match trimmed.split_once("://") {
            Some((scheme, rest)) => match scheme.to_ascii_lowercase().as_str() {
                "http" | "ws" => rest,
                "https" | "wss" => return Err(refuse("TLS is not supported yet")),
                _ => return Err(refuse("unknown scheme")),
            },
            None => trimmed,
        };
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
        if authority.is_empty() || !authority.chars().all(valid) {
            return Err(refuse("no host"));
        }
        check_authority(authority).map_err(refuse)?;
        let path = path.trim_end_matches('/');
        let table = match path.split_once('/') {
            None if path.is_empty() || path == "ws" => None,
            Some(("t", id)) if !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric()) => {
                Some(TableId::from(id))
            }
            _ => return Err(refuse("an unknown path")),
        };
        Ok(Address {
            authority: authority.to_owned(),
            table,
        })
    }
}

/// Whether `authority` (of the characters an address may hold) is a host
/// with an optional port: a name or IPv4 address, or an IPv6 address in
/// brackets, then `:` and a port of 1 to 65535. The error is why not, in a
/// few words, caught here rather than by a failed connection.
fn check_authority(authority: &str) -> Result<(), &'static str> {
    const IPV6: &str = "an IPv6 address goes in brackets";
    let (host, port) = if let Some(inside) = authority.strip_prefix('[') {
        let (ip, after) = inside.split_once(']').ok_or(IPV6)?;
        let is_ipv6 = ip.contains(':')
            && ip
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'));
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':').ok_or(IPV6)?),
        };
        if !is_ipv6 {
            return Err(IPV6);
        }
        (None, port)
    } else {
        match authority.split_once(':') {
            Some((_, port)) if port.contains(':') => return Err(IPV6),
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(authority), None),
        }
    };
    if let Some(host) = host {
        let name = host.strip_suffix('.').unwrap_or(host);
        if name.is_empty() || name.contains(['[', ']']) {
            return Err("no host");
        }
        if name
            .split('.')
            .any(|label| label.is_empty() || label.starts_with('-') || label.ends_with('-'))
        {
            return Err("not a host name");
        }
        if port.is_none() && name.chars().all(|c| c.is_ascii_digit()) {
            return Err("a port without a host");
        }
    }
    match port {
        None => Ok(()),
        Some("") => Err("no port after ':'"),
        Some(port) => match port.parse::<u16>() {
            Ok(p) if p > 0 && port.chars().all(|c| c.is_ascii_digit()) => Ok(()),
            _ => Err("the port must be 1 to 65535"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_people_type_or_copy() {
        for (text, ws, table) in [
            ("http://h:1", "ws://h:1/ws", None),
            ("http://h:1/", "ws://h:1/ws", None),
            ("ws://h:1/ws", "ws://h:1/ws", None),
            ("h:1", "ws://h:1/ws", None),
            (
                "  http://[::1]:8080/t/ab12/ ",
                "ws://[::1]:8080/ws",
                Some("ab12"),
            ),
        ] {
            let a: Address = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(a.ws_url(), ws, "{text}");
            assert_eq!(a.table().map(TableId::as_str), table, "{text}");
        }
        for (text, host_port) in [
            ("http://h:1", "h:1"),
            ("http://h", "h:80"),
            ("[::1]:9", "[::1]:9"),
            ("http://[::1]", "[::1]:80"),
        ] {
            let a: Address = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(a.host_port(), host_port, "{text}");
        }
        for bad in [
            "",
            "http://",
            "ftp://h",
            "http://h/x",
            "http://h/t/",
            "h:1/t/a b",
            "wss://h",
        ] {
            let e = bad.parse::<Address>().expect_err(bad);
            assert!(e.to_string().contains("use http://HOST:PORT"), "{e}");
        }
    }

    #[test]
    fn a_bad_host_or_port_is_refused_before_connecting() {
        for (bad, why) in [
            ("8501", "a port without a host"),
            (":8501", "no host"),
            ("http://:8501", "no host"),
            ("localhost:", "no port after ':'"),
            ("localhost:99999", "the port must be 1 to 65535"),
            ("localhost:0", "the port must be 1 to 65535"),
            ("localhost:abc", "the port must be 1 to 65535"),
            ("h::1", "an IPv6 address goes in brackets"),
            ("[::1", "an IPv6 address goes in brackets"),
            ("[::1]x", "an IPv6 address goes in brackets"),
            ("[zz]:80", "an IPv6 address goes in brackets"),
            ("a..b:80", "not a host name"),
        ] {
            let e = bad.parse::<Address>().expect_err(bad).to_string();
            assert!(e.contains(&format!("({why})")), "{bad}: {e}");
            assert!(e.contains("use http://HOST:PORT"), "{bad}: {e}");
        }
        for good in [
            "h:1",
            "h:65535",
            "127.0.0.1:8080",
            "[::1]:80",
            "[::1]",
            "a-b.c",
        ] {
            assert!(good.parse::<Address>().is_ok(), "{good}");
        }
    }

    #[test]
    fn a_query_or_fragment_is_ignored_and_schemes_are_case_insensitive() {
        for (text, ws, table) in [
            ("http://h:1/t/ab12?ref=x", "ws://h:1/ws", Some("ab12")),
            ("http://h:1/t/ab12#chat", "ws://h:1/ws", Some("ab12")),
            ("http://h:1/t/ab12/?ref=x#chat", "ws://h:1/ws", Some("ab12")),
            ("http://h:1?x=1", "ws://h:1/ws", None),
            ("http://h:1/#top", "ws://h:1/ws", None),
            ("HTTP://127.0.0.1:9601", "ws://127.0.0.1:9601/ws", None),
            ("Ws://h:1/ws", "ws://h:1/ws", None),
        ] {
            let a: Address = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(a.ws_url(), ws, "{text}");
            assert_eq!(a.table().map(TableId::as_str), table, "{text}");
        }
        for bad in ["HTTPS://h", "http://h/x?t/ab", "http://?x", "#x"] {
            let e = bad.parse::<Address>().expect_err(bad);
            assert!(e.to_string().contains("use http://HOST:PORT"), "{e}");
        }
        let e = "HTTPS://h".parse::<Address>().expect_err("TLS");
        assert!(e.to_string().contains("TLS"), "{e}");
    }
}
