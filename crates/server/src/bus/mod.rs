//! The bus of a cluster (`--bus nats://…`): how nodes that each run their
//! own share of the tables serve any client on any node.
//!
//! - A client's request for a table that runs on another node is
//!   forwarded to that node ([`link::RemoteTable`], subject
//!   `oxo.node.N.tables`), which answers at once that it has it; its
//!   table's actor then treats the client like one of its own
//!   (`owner`'s proxies), and the table's frames for the client (state,
//!   chat, the reply) come back numbered on `oxo.node.M.frames`, where
//!   the client's node checks the numbering and writes them to the socket.
//! - Every node sends a heartbeat (`oxo.alive`): a node that stops sending
//!   them loses the proxies it had on other nodes.
//! - Every node sends its public tables (`oxo.lobby`) every second; each
//!   node's lobby holds everyone's.
//! - A node that takes tables over says so (`oxo.taken`): clients at them
//!   on other nodes reconnect and find them at their new node.
//!
//! Why NATS: plain publish/subscribe and request/reply with no state to
//! keep, which is all this needs (what must last is in PostgreSQL); one
//! small binary to run; `async-nats` is the maintainers' own Tokio client.
//! See docs/cluster.md.

pub(crate) mod link;
pub(crate) mod owner;
pub(crate) mod peers;
#[cfg(test)]
pub(crate) mod testbus;
pub(crate) mod wire;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use self::link::Link;
use self::owner::Proxies;
use self::wire::{Alive, FrameHeader, LobbyNews, Taken, ToTable};
use crate::state::Shared;

/// How often a node sends its lobby tables.
const LOBBY_EVERY: Duration = Duration::from_secs(1);

/// A node's lobby tables are dropped when it has not sent them for this long.
const LOBBY_STALE: Duration = Duration::from_millis(3_500);

/// Connects to the bus at `url` (retrying until it answers or the server
/// shuts down), then serves it until shutdown.
pub(crate) async fn run(shared: Arc<Shared>, url: String, node: u16) {
    let lease = shared.config.lease_ttl;
    // Whether the connection is up, as it changes.
    let (events, mut cut) = tokio::sync::mpsc::unbounded_channel::<bool>();
    let client = loop {
        let events = events.clone();
        let options = async_nats::ConnectOptions::new()
            .name(format!("oxo node {node}"))
            .request_timeout(Some(lease))
            .event_callback(move |event| {
                let events = events.clone();
                async move {
                    match event {
                        async_nats::Event::Disconnected => {
                            let _ = events.send(false);
                        }
                        async_nats::Event::Connected => {
                            let _ = events.send(true);
                        }
                        _ => {}
                    }
                }
            })
            .retry_on_initial_connect();
        let connecting = options.connect(url.as_str());
        tokio::select! {
            () = shared.shutdown.cancelled() => return,
            connected = connecting => match connected {
                Ok(client) => break client,
                Err(e) => {
                    tracing::warn!(error = %e, "could not reach the bus; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            },
        }
    };
    let link = Arc::new(Link::new(client, node, lease, Arc::clone(&shared.metrics)));
    let subscribed = async {
        Ok::<_, async_nats::SubscribeError>((
            link.client.subscribe(wire::tables_subject(node)).await?,
            link.client.subscribe(wire::frames_subject(node)).await?,
            link.client.subscribe(wire::ALIVE).await?,
            link.client.subscribe(wire::LOBBY).await?,
            link.client.subscribe(wire::TAKEN).await?,
        ))
    };
    let (tables, frames, alive, lobby, taken) = match subscribed.await {
        Ok(subs) => subs,
        Err(e) => {
            tracing::error!(error = %e, "could not subscribe on the bus");
            return;
        }
    };
    if shared.bus.set(Arc::clone(&link)).is_err() {
        return;
    }
    tracing::info!(node, "on the bus");
    let proxies = Arc::new(Proxies::default());
    let stop = shared.shutdown.clone();
    let tasks = shared.tasks.clone();
    tasks.spawn(until(
        stop.clone(),
        serve_tables(
            Arc::clone(&shared),
            Arc::clone(&link),
            Arc::clone(&proxies),
            tables,
        ),
    ));
    tasks.spawn(until(stop.clone(), serve_frames(Arc::clone(&link), frames)));
    tasks.spawn(until(
        stop.clone(),
        heartbeats(
            Arc::clone(&shared),
            Arc::clone(&link),
            Arc::clone(&proxies),
            alive,
        ),
    ));
    tasks.spawn(until(
        stop.clone(),
        lobbies(Arc::clone(&shared), Arc::clone(&link), lobby),
    ));
    tasks.spawn(until(stop.clone(), moves(Arc::clone(&link), taken)));
    // Cut off from the bus, a node cannot tell which frames its clients
    // missed, nor its proxies' nodes which of theirs: both let go, and the
    // clients come back and re-sync once the bus is back.
    shared.metrics.bus_up.store(1, Relaxed);
    let cut_off = async move {
        while let Some(up) = cut.recv().await {
            shared.metrics.bus_up.store(u64::from(up), Relaxed);
            if !up {
                tracing::warn!("cut off from the bus: clients of other nodes' tables re-sync");
                link.reset();
                proxies.drop_all(&shared).await;
            }
        }
    };
    tasks.spawn(until(stop, cut_off));
}

/// Runs `task` until `stop` is cancelled.
async fn until(stop: tokio_util::sync::CancellationToken, task: impl Future<Output = ()>) {
    tokio::select! {
        () = stop.cancelled() => {}
        () = task => {}
    }
}

/// Commands for this node's tables from clients on other nodes.
async fn serve_tables(
    shared: Arc<Shared>,
    link: Arc<Link>,
    proxies: Arc<Proxies>,
    mut sub: async_nats::Subscriber,
) {
    while let Some(msg) = sub.next().await {
        let Ok(cmd) = serde_json::from_slice::<ToTable>(&msg.payload) else {
            tracing::warn!("an unreadable command on the bus");
            continue;
        };
        // One at a time, in order: one connection's commands (a request,
        // then its detach) must not overtake each other.
        let ack = owner::handle(&shared, &link, &proxies, cmd).await;
        if let Some(reply) = msg.reply {
            let _ = link
                .client
                .publish(reply, bytes::Bytes::from_static(ack.to_bytes()))
                .await;
        }
    }
}

/// Frames from other nodes' tables for this node's clients.
async fn serve_frames(link: Arc<Link>, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        if let Some((header, body)) = FrameHeader::decode(&msg.payload) {
            link.deliver(header, body);
        }
    }
}

/// Sends this node's heartbeat every third of a lease; lets go of the
/// proxies of nodes that stopped sending theirs for two leases (or
/// restarted, or were never heard from in two leases).
async fn heartbeats(
    shared: Arc<Shared>,
    link: Arc<Link>,
    proxies: Arc<Proxies>,
    mut sub: async_nats::Subscriber,
) {
    let lease = shared.config.lease_ttl;
    let mut tick = tokio::time::interval(lease / 3);
    let me = Alive {
        node: link.node,
        run: link.run,
    };
    loop {
        tokio::select! {
            _ = tick.tick() => {
                if let Ok(payload) = serde_json::to_vec(&me) {
                    let _ = link.client.publish(wire::ALIVE, payload.into()).await;
                }
                let live = link.peers.live(link.node, lease).len();
                shared.metrics.bus_peers.store(live as u64, Relaxed);
                let now = Instant::now();
                let gone = |node: u16, run: u64, made: Instant| {
                    match link.peers.last(node) {
                        // Silent for two leases.
                        Some((r, at)) if r == run => now.duration_since(at) > lease * 2,
                        // Heard from in another run: restarted since the
                        // proxy was made (or the proxy is of the new run,
                        // not heard from yet: given two leases).
                        Some((_, at)) => at > made || now.duration_since(made) > lease * 2,
                        // Never heard from: given two leases from the
                        // proxy's making (this node may have just started).
                        None => now.duration_since(made) > lease * 2,
                    }
                };
                proxies.sweep(&shared, gone).await;
                // A reply that never came (its frame lost with the bus, or
                // its node stalled): the client re-syncs.
                link.overdue(lease * 3);
            }
            msg = sub.next() => {
                let Some(msg) = msg else { return };
                if let Ok(alive) = serde_json::from_slice::<Alive>(&msg.payload) {
                    link.peers.heard(alive.node, alive.run);
                }
            }
        }
    }
}

/// Sends this node's public tables every second; keeps every other
/// node's in this node's lobby, and drops those of a node gone quiet.
async fn lobbies(shared: Arc<Shared>, link: Arc<Link>, mut sub: async_nats::Subscriber) {
    let mut tick = tokio::time::interval(LOBBY_EVERY);
    let mut heard: HashMap<u16, Instant> = HashMap::new();
    let max = shared.config.lobby_max_tables;
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let news = LobbyNews {
                    node: link.node,
                    tables: shared.lobby.local_snapshot(max),
                };
                if let Ok(payload) = serde_json::to_vec(&news) {
                    let _ = link.client.publish(wire::LOBBY, payload.into()).await;
                }
                let now = Instant::now();
                heard.retain(|&node, at| {
                    let fresh = now.duration_since(*at) < LOBBY_STALE;
                    if !fresh {
                        shared.lobby.replace_remote(node, Vec::new());
                    }
                    fresh
                });
            }
            msg = sub.next() => {
                let Some(msg) = msg else { return };
                let Ok(news) = serde_json::from_slice::<LobbyNews>(&msg.payload) else {
                    continue;
                };
                if news.node != link.node {
                    heard.insert(news.node, Instant::now());
                    shared.lobby.replace_remote(news.node, news.tables);
                }
            }
        }
    }
}

/// Tables other nodes took over: this node's clients at them re-sync.
async fn moves(link: Arc<Link>, mut sub: async_nats::Subscriber) {
    while let Some(msg) = sub.next().await {
        if let Ok(taken) = serde_json::from_slice::<Taken>(&msg.payload) {
            if taken.node != link.node {
                link.moved(taken.node, &taken.tables);
            }
        }
    }
}

/// Tells every node, this one included, that this node has taken `tables`
/// over: clients at them whose frames came from their old node re-sync.
pub(crate) async fn announce_taken(link: &Link, tables: Vec<Arc<str>>) {
    link.moved(link.node, &tables);
    let taken = Taken {
        node: link.node,
        tables,
    };
    if let Ok(payload) = serde_json::to_vec(&taken) {
        let _ = link.client.publish(wire::TAKEN, payload.into()).await;
    }
}
