//! Checks on `oxo serve`'s flags beyond their types: a value that parses
//! but cannot be meant (a server that takes no connection, a rate that is
//! not a number, an origin no browser sends) is refused at start, with
//! what is accepted, rather than making a server that quietly misbehaves.

use std::time::Duration;

use oxo_loadtest::parse_duration;

/// `--max-connections`: a whole number, at least 1.
pub(super) fn connection_limit(s: &str) -> Result<usize, String> {
    at_least_one(
        s,
        "connections",
        " (leave the flag out for what the open-files limit allows)",
    )
}

/// `--max-tables-per-player`: a whole number, at least 1 (with 0 nobody
/// could sit anywhere).
pub(super) fn seat_limit(s: &str) -> Result<usize, String> {
    at_least_one(s, "tables", "")
}

fn at_least_one(s: &str, what: &str, hint: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "expected a whole number of {what}, at least 1{hint}, not {s:?}"
        )),
    }
}

/// `--new-players-per-minute` and `--max-connections-per-address`: a
/// whole number from 0, which turns the limit off (`off` says so).
pub(super) fn count(s: &str, off: &str) -> Result<u32, String> {
    s.trim()
        .parse::<u32>()
        .map_err(|_| format!("expected a whole number, 0 or more (0: {off}), not {s:?}"))
}

/// `--addr`: `HOST:PORT`, the host a name or an IP address (IPv6 in
/// brackets), the port 0 to 65535. Whether the host resolves, and the
/// address can be had, is found when listening.
pub(super) fn addr(s: &str) -> Result<String, String> {
    let s = s.trim();
    let named = s.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty()
            && !host.contains([':', '[', ']', '/'])
            && !host.chars().any(char::is_whitespace)
            && port.parse::<u16>().is_ok()
    });
    if named || s.parse::<std::net::SocketAddr>().is_ok() {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "expected HOST:PORT, such as 127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080 or \
             localhost:8080 (port 0 picks a free port), not {s:?}"
        ))
    }
}

/// `--rate-limit`: messages per second, a number from 0 (0: no rate
/// limits at all).
pub(super) fn rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 0.0 => Ok(r),
        _ => Err(format!(
            "expected messages per second, a number such as 50 or 2.5 (0: no rate limits), \
             not {s:?}"
        )),
    }
}

/// `--idle-timeout`: a duration of at least a second (the server pings
/// every half idle timeout, and keeps time to within a second).
pub(super) fn idle_timeout(s: &str) -> Result<Duration, String> {
    at_least(s, Duration::from_secs(1), "1s")
}

/// `--lease`: a duration of at least 100 ms (a node renews its lease
/// several times a lease).
pub(super) fn lease(s: &str) -> Result<Duration, String> {
    at_least(s, Duration::from_millis(100), "100ms")
}

fn at_least(s: &str, min: Duration, shown: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d < min {
        return Err(format!("{}: at least {shown}", s.trim()));
    }
    Ok(d)
}

/// `--allowed-origin`: `*` (any), or a web origin as browsers send it,
/// `http(s)://host[:port]`, with no path (a trailing `/` is dropped).
pub(super) fn origin(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s == "*" {
        return Ok(s.to_owned());
    }
    let origin = s.strip_suffix('/').unwrap_or(s);
    let host = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"));
    let fine = host.is_some_and(|h| {
        !h.is_empty()
            && !h.starts_with(':')
            && h.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
    });
    if fine {
        Ok(origin.to_ascii_lowercase())
    } else {
        Err(format!(
            "expected a web origin such as https://example.com or http://localhost:3000 \
             (scheme and host, no path), or * for any, not {s:?}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_whole_numbers_from_one() {
        assert_eq!(connection_limit("1"), Ok(1));
        assert_eq!(seat_limit(" 20 "), Ok(20));
        for bad in ["0", "-5", "1.5", "lots", ""] {
            let e = connection_limit(bad).expect_err(bad);
            assert!(e.contains("at least 1"), "{bad}: {e}");
            assert!(seat_limit(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_are_whole_numbers_from_zero() {
        assert_eq!(count("0", "no limit"), Ok(0));
        assert_eq!(count(" 30 ", "no limit"), Ok(30));
        for bad in ["-1", "1.5", "many", ""] {
            let e = count(bad, "no limit").expect_err(bad);
            assert!(
                e.contains("whole number") && e.contains("0: no limit"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn an_address_is_host_and_port() {
        for good in [
            "127.0.0.1:8080",
            "0.0.0.0:0",
            "[::1]:8080",
            "localhost:8080",
        ] {
            assert_eq!(addr(good), Ok(good.to_owned()));
        }
        for bad in [
            "8080",
            "127.0.0.1",
            "127.0.0.1:99999",
            ":8080",
            "::1:8080",
            "a b:1",
            "",
        ] {
            let e = addr(bad).expect_err(bad);
            assert!(e.contains("HOST:PORT"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_rate_is_a_number_from_zero() {
        assert_eq!(rate("0"), Ok(0.0));
        assert_eq!(rate("2.5"), Ok(2.5));
        for bad in ["nan", "NaN", "inf", "-1", "fast", ""] {
            let e = rate(bad).expect_err(bad);
            assert!(e.contains("messages per second"), "{bad}: {e}");
        }
    }

    #[test]
    fn timeouts_have_a_floor() {
        assert_eq!(idle_timeout("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(lease("250ms"), Ok(Duration::from_millis(250)));
        assert!(idle_timeout("0s").is_err_and(|e| e.contains("at least 1s")));
        assert!(idle_timeout("500ms").is_err());
        assert!(lease("0").is_err_and(|e| e.contains("at least 100ms")));
        assert!(lease("soon").is_err());
    }

    #[test]
    fn origins_are_scheme_and_host() {
        assert_eq!(origin("*"), Ok("*".into()));
        assert_eq!(
            origin("https://Play.Example.com/"),
            Ok("https://play.example.com".into())
        );
        assert_eq!(
            origin("http://localhost:3000"),
            Ok("http://localhost:3000".into())
        );
        assert_eq!(origin("http://[::1]:8080"), Ok("http://[::1]:8080".into()));
        for bad in [
            "example.com",
            "notanorigin",
            "https://",
            "https://example.com/play",
            "ftp://example.com",
            "https://exa mple.com",
            "https://example.com?x=1",
        ] {
            let e = origin(bad).expect_err(bad);
            assert!(e.contains("web origin"), "{bad}: {e}");
        }
    }
}
