//! The accept loop: HTTP/1.1 with WebSocket upgrades, a deadline for
//! request heads, and graceful shutdown.
//!
//! `axum::serve` does all of this except the deadline: it gives hyper no
//! timer, so hyper waits forever for a request head, and a slowloris client
//! (thousands of connections that never send a byte, or that stop halfway
//! through their head) holds sockets and file descriptors for as long as it
//! likes. This is `axum::serve`'s loop plus hyper's `header_read_timeout`
//! ([`Config::handshake_timeout`](crate::Config::handshake_timeout)), which
//! runs from the moment a connection is accepted, and again while a
//! kept-alive connection waits for its next request. Once a connection is a
//! WebSocket, the connection's idle timeout takes over. A plain HTTP
//! connection lives at most [`Config::http_lifetime`](crate::Config::http_lifetime):
//! one that pipelines requests and never reads the answers would
//! otherwise hold its socket for good.

use std::io;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::address_cap::{AddressCap, Full};
use crate::forwarded::client_address;
use crate::head;
use crate::linger::Linger;
use crate::metrics::Metrics;
use crate::node::Node;
use crate::relay::{self, Route};
use crate::throttle::{ReadLimit, Throttled};

/// The kernel send buffer of each connection, in bytes (Linux doubles it
/// for its own bookkeeping).
const SEND_BUFFER: usize = 32 * 1024;

/// How long, once the server shuts down, a connection that is not
/// answering a request is given to end by itself: an idle one closes at
/// once, a response just made goes out, and one that is still sending its
/// request head (slowly, or never to finish) is closed then, rather than
/// holding the shutdown until its head timeout. A request being answered
/// is let finish, for at most [`Settings::drain`].
const SHUTDOWN_GRACE: Duration = Duration::from_millis(200);

/// What the accept loop needs of the server besides the app.
#[derive(Debug)]
pub(crate) struct Settings {
    /// How long a request head may take.
    pub(crate) head_timeout: Duration,
    /// How long a plain HTTP connection may stay open.
    pub(crate) lifetime: Duration,
    /// How long it has to finish the request in flight after that.
    pub(crate) finish: Duration,
    /// Plain HTTP connections per client address (trusted proxies aside).
    pub(crate) http_per_address: Arc<AddressCap>,
    /// How long shutdown waits for requests in flight.
    pub(crate) drain: Duration,
    /// Proxies whose `X-Forwarded-For` is believed.
    pub(crate) trusted_proxies: Arc<[IpAddr]>,
    /// The byte rate every connection's reads are held to.
    pub(crate) read_limit: Arc<ReadLimit>,
    pub(crate) metrics: Arc<Metrics>,
    /// In a cluster, this node's view of it: a follower relays.
    pub(crate) node: Option<Arc<Node>>,
}

/// Serves `app` on `listener` until `shutdown` is cancelled; then stops
/// accepting, lets requests in flight finish (for at most `drain`) and
/// returns. Upgraded WebSockets are not waited for here: their connections
/// are tracked by the state's task tracker.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    settings: Settings,
    shutdown: CancellationToken,
) {
    let Settings {
        head_timeout,
        lifetime,
        finish,
        http_per_address,
        drain,
        trusted_proxies,
        read_limit,
        metrics,
        node,
    } = settings;
    let connections = TaskTracker::new();
    loop {
        let (tcp, peer) = tokio::select! {
            biased;
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_error(e).await;
                    continue;
                }
            },
        };
        // Small frames both ways: Nagle's algorithm would only add latency.
        let _ = tcp.set_nodelay(true);
        // A small, fixed kernel send buffer: a client that stops reading
        // pins at most this much kernel memory before its writes stall
        // (and the writer's deadline closes it), instead of the megabytes
        // the kernel's autotuning would grant. Ample for our small frames.
        let _ = socket2::SockRef::from(&tcp).set_send_buffer_size(SEND_BUFFER);
        // Handlers see the client's address (`ConnectInfo`): the peer's,
        // or the one a trusted proxy forwarded.
        let trusted = Arc::clone(&trusted_proxies);
        // Whether a request is being answered: one is from the moment its
        // head has come until its response is made (see `SHUTDOWN_GRACE`).
        let answering = Arc::new(AtomicBool::new(false));
        let (started, answered) = (Arc::clone(&answering), Arc::clone(&answering));
        let service = TowerToHyperService::new(
            tower::ServiceBuilder::new()
                .map_request(move |mut req: hyper::Request<hyper::body::Incoming>| {
                    started.store(true, Relaxed);
                    let client = client_address(peer, req.headers(), &trusted);
                    req.extensions_mut()
                        .insert(axum::extract::ConnectInfo(client));
                    req
                })
                .map_response(move |response: axum::response::Response| {
                    answered.store(false, Relaxed);
                    response
                })
                .service(app.clone()),
        );
        let shutdown = shutdown.clone();
        let read_limit = Arc::clone(&read_limit);
        let metrics = Arc::clone(&metrics);
        let node = node.clone();
        let trusted = trusted_proxies.contains(&peer.ip());
        let http_per_address = Arc::clone(&http_per_address);
        connections.spawn(async move {
            // One address holds at most so many connections in their HTTP
            // phase (a WebSocket counts under its own cap once upgraded);
            // more wait their turn, for as long as a request head may
            // take, and past the queue or that time are closed unanswered.
            // A trusted proxy speaks for many clients.
            let _place = if trusted {
                None
            } else {
                let waited = tokio::select! {
                    waited = http_per_address.wait(peer.ip(), head_timeout) => waited,
                    () = shutdown.cancelled() => return,
                };
                match waited {
                    Ok(place) => place,
                    Err(Full) => {
                        metrics.address_refusals.fetch_add(1, Relaxed);
                        return;
                    }
                }
            };
            // A follower in a cluster relays its clients to the leader.
            if let Some(node) = node {
                match relay::route(&tcp, &node, head_timeout, drain).await {
                    Route::Serve => {}
                    Route::Relay(leader) => {
                        metrics.relayed.fetch_add(1, Relaxed);
                        if !relay::relay(tcp, leader, &node, node.term()).await {
                            metrics.unavailable.fetch_add(1, Relaxed);
                        }
                        return;
                    }
                    Route::Unavailable => {
                        metrics.unavailable.fetch_add(1, Relaxed);
                        return relay::unavailable(tcp).await;
                    }
                }
            }
            let mut conn = pin!(
                http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(head_timeout)
                    // Room for more fields than a request may have, so
                    // that one over `head`'s limit is told why.
                    .max_headers(head::FIELDS_READ)
                    .serve_connection(
                        TokioIo::new(Throttled::new(Linger::new(tcp), read_limit)),
                        service
                    )
                    .with_upgrades()
            );
            let result = tokio::select! {
                result = conn.as_mut() => result,
                () = shutdown.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    if answering.load(Relaxed) {
                        conn.await
                    } else {
                        // Idle, or still sending a request head (which hyper
                        // would wait for): nothing in flight to let finish.
                        match tokio::time::timeout(SHUTDOWN_GRACE, conn).await {
                            Ok(result) => result,
                            Err(_) => return,
                        }
                    }
                }
                // Kept alive long enough, or stuck writing to a client
                // that does not read: the request in flight may finish,
                // for a while.
                () = tokio::time::sleep(lifetime) => {
                    conn.as_mut().graceful_shutdown();
                    match tokio::time::timeout(finish, conn).await {
                        Ok(result) => result,
                        Err(_) => {
                            metrics.http_expired.fetch_add(1, Relaxed);
                            return;
                        }
                    }
                }
            };
            if let Err(e) = result {
                if e.is_timeout() {
                    metrics.header_timeouts.fetch_add(1, Relaxed);
                }
                // Timeouts, resets and malformed requests: the client's
                // doing, not worth more than a debug line.
                tracing::debug!(error = %e, "HTTP connection ended with an error");
            }
        });
    }
    drop(listener);
    connections.close();
    if tokio::time::timeout(drain, connections.wait())
        .await
        .is_err()
    {
        tracing::warn!("shutdown timed out waiting for HTTP requests in flight");
    }
}

/// What `axum::serve` does on an accept error: go on after a connection's
/// own error; otherwise (such as running out of file descriptors) log it
/// and pause for a second, so that the loop does not spin while the process
/// is out of resources.
async fn accept_error(e: io::Error) {
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "accept failed; pausing for a second");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
