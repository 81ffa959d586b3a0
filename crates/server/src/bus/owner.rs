//! The node that runs a table, for clients connected to other nodes.
//!
//! Each such client at a table is a *proxy* here: an ordinary connection
//! ([`Conn`]) as far as the table's actor knows, whose frames a pump task
//! numbers and publishes to the client's node instead of writing them to a
//! socket. So the actor is the same whether its players sit on this node
//! or on another.
//!
//! A proxy lives until its client detaches (the connection closed, or left
//! the table), its table closes it, or the client's node stops sending
//! heartbeats (it died, or restarted): it holds a bounded queue, like any
//! connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::link::Link;
use super::wire::{self, Ack, FrameHeader, FrameKind, RemoteCmd, ToTable, Who};
use crate::accounts::Account;
use crate::close;
use crate::conn::{Conn, Outbox};
use crate::handle::{TableCmd, TableRequest};
use crate::state::Shared;

/// A proxy's key: the client's node, its connection there, the table.
type Key = (u16, u64, Arc<str>);

#[derive(Debug)]
struct Proxy {
    conn: Conn,
    /// The run of the client's node it belongs to.
    run: u64,
    /// When it was made (a node not heard from yet is given time).
    made: Instant,
    /// Stops its pump once what is queued has gone.
    stop: CancellationToken,
}

/// The proxies of this node's tables.
#[derive(Debug, Default)]
pub(crate) struct Proxies(Mutex<HashMap<Key, Proxy>>);

impl Proxies {
    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Proxy>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes the proxy under `key` if it is still `outbox`'s.
    fn remove_if(&self, key: &Key, outbox: &Arc<Outbox>) {
        let mut map = self.lock();
        if map
            .get(key)
            .is_some_and(|p| Arc::ptr_eq(&p.conn.outbox, outbox))
        {
            map.remove(key);
        }
    }

    /// Lets go of every proxy (this node was cut off from the bus).
    pub(crate) async fn drop_all(&self, shared: &Shared) {
        self.sweep(shared, |_, _, _| true).await;
    }

    /// Lets go of the proxies that `gone` says have lost their client's
    /// node (given the node, the run the proxy belongs to, and when it was
    /// made): their tables hear that they left.
    pub(crate) async fn sweep(&self, shared: &Shared, gone: impl Fn(u16, u64, Instant) -> bool) {
        let dead: Vec<(Key, Proxy)> = {
            let mut map = self.lock();
            let keys: Vec<Key> = map
                .iter()
                .filter(|((node, _, _), p)| gone(*node, p.run, p.made))
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter()
                .filter_map(|k| map.remove(&k).map(|p| (k, p)))
                .collect()
        };
        for ((_, _, table), proxy) in dead {
            proxy.stop.cancel();
            if let Some(handle) = shared.table(&table) {
                let _ = handle.send(TableCmd::Detach(proxy.conn.id())).await;
            }
        }
    }
}

/// The account of `who`, as this node has it.
fn account(shared: &Shared, who: &Who) -> Arc<Account> {
    let account = shared.accounts.insert(Account::new(
        Arc::clone(&who.id),
        who.token_hash,
        Arc::clone(&who.name),
    ));
    if *account.name() != *who.name {
        account.set_name(Arc::clone(&who.name));
    }
    account
}

/// Acts on a command from a client on another node; the answer for its
/// node.
pub(crate) async fn handle(
    shared: &Arc<Shared>,
    link: &Arc<Link>,
    proxies: &Arc<Proxies>,
    msg: ToTable,
) -> Ack {
    let key: Key = (msg.origin, msg.conn, Arc::clone(&msg.table));
    let Some(who) = msg.who else {
        // Detach: the only command without a player.
        let proxy = proxies.lock().remove(&key);
        if let Some(proxy) = proxy {
            proxy.stop.cancel();
            if let Some(table) = shared.table(&msg.table) {
                let _ = table.send(TableCmd::Detach(proxy.conn.id())).await;
            }
        }
        return Ack::Queued;
    };
    let Some(table) = shared.table(&msg.table) else {
        return Ack::NotHere;
    };
    if let RemoteCmd::Renamed = msg.cmd {
        let account = account(shared, &who);
        return if table.send(TableCmd::renamed(account, None)).await {
            Ack::Queued
        } else {
            Ack::NotHere
        };
    }
    let conn = proxy(shared, link, proxies, &key, msg.origin_run, &who);
    let sent = match msg.cmd {
        RemoteCmd::Attach => table.send(TableCmd::Attach(Box::new(conn.clone()))).await,
        RemoteCmd::Request { id, req } => {
            let leaving = req.detaches();
            conn.outbox.owe_reply();
            let request = Box::new(TableRequest {
                conn: conn.clone(),
                id,
                req,
                at: Instant::now(),
                // Spent, if at all, on the client's own node.
                spent: None,
            });
            let sent = table.send(TableCmd::Request(request)).await;
            if sent && leaving {
                release(shared, proxies, key.clone(), conn.clone());
            }
            sent
        }
        RemoteCmd::Detach | RemoteCmd::Renamed => true,
    };
    if sent {
        Ack::Queued
    } else {
        if let Some(proxy) = proxies.lock().remove(&key) {
            proxy.stop.cancel();
        }
        Ack::NotHere
    }
}

/// The proxy under `key`, made if needed.
fn proxy(
    shared: &Arc<Shared>,
    link: &Arc<Link>,
    proxies: &Arc<Proxies>,
    key: &Key,
    run: u64,
    who: &Who,
) -> Conn {
    let mut map = proxies.lock();
    if let Some(p) = map.get(key).filter(|p| p.run == run) {
        return p.conn.clone();
    }
    let outbox = shared.new_outbox();
    let conn = Conn {
        outbox: Arc::clone(&outbox),
        account: account(shared, who),
    };
    let stop = CancellationToken::new();
    map.insert(
        key.clone(),
        Proxy {
            conn: conn.clone(),
            run,
            made: Instant::now(),
            stop: stop.clone(),
        },
    );
    drop(map);
    let pump = Pump {
        link: Arc::clone(link),
        proxies: Arc::clone(proxies),
        key: key.clone(),
        outbox,
        stop,
    };
    shared.tasks.spawn(pump.run());
    conn
}

/// After a client left the table: its proxy goes once the reply has.
fn release(shared: &Shared, proxies: &Arc<Proxies>, key: Key, conn: Conn) {
    let proxies = Arc::clone(proxies);
    shared.tasks.spawn(async move {
        let flushed = tokio::time::timeout(Duration::from_secs(5), conn.outbox.flushed());
        tokio::select! {
            _ = flushed => {}
            // Closed (or the server stops): its pump has ended already.
            () = conn.outbox.closed() => {}
        }
        let proxy = {
            let mut map = proxies.lock();
            match map.get(&key) {
                Some(p) if Arc::ptr_eq(&p.conn.outbox, &conn.outbox) => map.remove(&key),
                _ => None,
            }
        };
        if let Some(proxy) = proxy {
            proxy.stop.cancel();
        }
    });
}

/// Publishes a proxy's frames, numbered, to its client's node.
struct Pump {
    link: Arc<Link>,
    proxies: Arc<Proxies>,
    key: Key,
    outbox: Arc<Outbox>,
    stop: CancellationToken,
}

impl Pump {
    async fn run(self) {
        let (origin, conn, _) = self.key.clone();
        let subject = wire::frames_subject(origin);
        let mut header = FrameHeader {
            conn,
            owner: self.link.node,
            stream: rand::random(),
            seq: 0,
            kind: FrameKind::Event,
        };
        loop {
            let (frame, reply) = tokio::select! {
                biased;
                frame = self.outbox.recv_marked() => frame,
                () = self.outbox.closed() => {
                    let (code, reason) = self.outbox.close_frame().unwrap_or((
                        close::TRY_AGAIN,
                        "the table's node is stopping; reconnect with your token".into(),
                    ));
                    let mut body = code.to_be_bytes().to_vec();
                    body.extend_from_slice(reason.as_bytes());
                    header.seq += 1;
                    header.kind = FrameKind::Close;
                    self.publish(&subject, &header, &body).await;
                    break;
                }
                () = self.stop.cancelled() => {
                    while let Some((frame, reply)) = self.outbox.try_recv_marked() {
                        header.seq += 1;
                        header.kind = if reply { FrameKind::Reply } else { FrameKind::Event };
                        self.publish(&subject, &header, frame.as_bytes()).await;
                        self.outbox.taken(frame.len());
                    }
                    break;
                }
            };
            header.seq += 1;
            header.kind = if reply {
                FrameKind::Reply
            } else {
                FrameKind::Event
            };
            self.publish(&subject, &header, frame.as_bytes()).await;
            self.outbox.taken(frame.len());
        }
        self.outbox.shut();
        self.proxies.remove_if(&self.key, &self.outbox);
    }

    async fn publish(&self, subject: &str, header: &FrameHeader, body: &[u8]) {
        let payload = header.encode(body);
        if let Err(e) = self
            .link
            .client
            .publish(subject.to_owned(), payload.into())
            .await
        {
            tracing::debug!(error = %e, "could not relay a frame");
        }
    }
}
