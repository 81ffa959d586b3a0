//! A follower's connections (cluster): relayed, bytes as they are, to the
//! leader, which serves every client (see `cluster`).
//!
//! Only a connection's first request line is looked at (peeked, not read):
//! `/healthz` and `/metrics` are this node's own and served here; anything
//! else, the WebSocket and the HTTP API alike, goes to the leader on a TCP
//! connection of its own, request head included, so the leader sees what
//! the client (or the load balancer) sent, `X-Forwarded-For` too. While no
//! leader is known, or it cannot be reached, the client gets `503` with
//! `Retry-After: 1`.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use crate::node::{Leader, Node};

/// How much of a request line is looked at, at most.
const LINE: usize = 256;

/// How long connecting to the leader may take.
const CONNECT: Duration = Duration::from_secs(2);

/// What to do with a new connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Serve it here.
    Serve,
    /// Relay it to the leader at this address.
    Relay(SocketAddr),
    /// No leader is known: `503`.
    Unavailable,
}

/// Where `tcp`'s requests go, looking at its first request line for at
/// most `wait`, and waiting up to `settle` for a leader to be known.
pub(crate) async fn route(tcp: &TcpStream, node: &Node, wait: Duration, settle: Duration) -> Route {
    if node.holds_now() {
        return Route::Serve;
    }
    if is_local(&first_line(tcp, wait).await) {
        return Route::Serve;
    }
    match node.known_leader(settle).await {
        // This node leads, but has not renewed its leases for most of a
        // lease (it was paused, or lost the database): it may have lost
        // them. The client retries in a moment.
        Leader::Me if !node.holds_now() => Route::Unavailable,
        Leader::Me => Route::Serve,
        Leader::Other(addr) => Route::Relay(addr),
        Leader::Unknown => Route::Unavailable,
    }
}

/// Whether a request line asks for something each node answers itself.
fn is_local(line: &[u8]) -> bool {
    [&b"GET /healthz"[..], b"GET /metrics", b"HEAD /healthz"]
        .iter()
        .any(|p| line.starts_with(p))
}

/// The first bytes of `tcp`, up to the end of the first line, without
/// consuming them; what has arrived after `wait` otherwise.
async fn first_line(tcp: &TcpStream, wait: Duration) -> Vec<u8> {
    let mut buf = vec![0; LINE];
    let deadline = tokio::time::Instant::now() + wait;
    let mut seen = 0;
    loop {
        let peeked = tokio::time::timeout_at(deadline, tcp.peek(&mut buf)).await;
        match peeked {
            Ok(Ok(n)) if n > seen && n < LINE && !buf[..n].contains(&b'\n') => {
                seen = n;
                // More of the line is on its way.
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Ok(Ok(n)) => {
                buf.truncate(n);
                return buf;
            }
            _ => {
                buf.truncate(seen);
                return buf;
            }
        }
    }
}

/// Relays `client` to the leader at `leader` until either side closes,
/// `stop` fires (the leader changed, or shutdown), or this node's view of
/// the cluster goes stale; `false` if the leader could not be reached (the
/// client got `503`).
///
/// # Nothing a client gave up on is delivered late
///
/// Bytes from the client are passed on only while the node's view is
/// fresh ([`Node::fresh`]). A follower that was paused holds whatever its
/// clients sent meanwhile; they have long given up on that connection (the
/// load balancer closed it) and re-sent their requests elsewhere. On waking
/// it drops those bytes and the connection, instead of delivering a move
/// that its sender saw fail, seconds later, on top of the game.
pub(crate) async fn relay(
    client: TcpStream,
    leader: SocketAddr,
    node: &Node,
    stop: CancellationToken,
) -> bool {
    let upstream = tokio::time::timeout(CONNECT, TcpStream::connect(leader)).await;
    let Ok(Ok(upstream)) = upstream else {
        tracing::debug!(%leader, "the leader cannot be reached");
        unavailable(client).await;
        return false;
    };
    let _ = upstream.set_nodelay(true);
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_leader, mut to_leader) = upstream.into_split();
    let up = async {
        let mut buf = vec![0; 16 * 1024];
        loop {
            let n = match from_client.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            if !node.fresh() || to_leader.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    let down = tokio::io::copy(&mut from_leader, &mut to_client);
    tokio::select! {
        () = up => {}
        _ = down => {}
        () = stop.cancelled() => {}
    }
    true
}

/// Answers `503` (no leader to serve the request) and closes.
pub(crate) async fn unavailable(mut client: TcpStream) {
    let body = "No node of the cluster is serving right now; retry in a second.\n";
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(response.as_bytes()).await;
    let _ = client.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_and_metrics_are_each_nodes_own() {
        assert!(is_local(b"GET /healthz HTTP/1.1\r\n"));
        assert!(is_local(b"GET /metrics HTTP/1.1\r\n"));
        assert!(!is_local(b"GET /ws HTTP/1.1\r\n"));
        assert!(!is_local(b"GET /api/tables HTTP/1.1\r\n"));
        assert!(!is_local(b""));
    }
}
