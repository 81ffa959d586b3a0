//! Non-readers: clients that say `hello`, subscribe to the lobby, and then
//! never read their socket again, while keeping it open.
//!
//! A server that queues messages for such a client without a bound, or
//! waits on it, pays in memory (its own, and the kernel's TCP buffers) or
//! in stalls; a server that bounds its queue closes it. The report says how
//! many the server closed and how long after their `hello`.
//!
//! How a non-reader is made:
//!
//! - Its socket asks for a small receive buffer (`SO_RCVBUF`, set before
//!   connecting so the window the server sees is small from the start), so
//!   the server's data backs up after a few KiB.
//! - It reads the handshake and the `welcome` (to know the server took it
//!   as a player), then never again. `watch_lobby` and the optional `ping`s
//!   are written as masked text frames straight to the TCP socket, so the
//!   WebSocket library never gets a chance to read on the way.
//! - A close by the server is noticed without reading a byte: every tick
//!   the socket's readiness is checked for a hang-up (a FIN that reached
//!   the socket, a reset, an error), and a write that fails (with pings)
//!   counts too. Both leave the received data where it is. A FIN queued
//!   behind data the client has not read cannot be seen that way; the
//!   final check finds it.
//!
//! At the end of the window each survivor reads what is waiting, until
//! nothing arrives for [`QUIET`](hangup::QUIET) or the drain is nearly over
//! (the backlog can be megabytes: the server's kernel keeps sending what
//! its socket buffer holds even after the server closed): a close frame,
//! end of stream or a reset means the server had closed it
//! (`closed_at_end`, with no time: it happened at some point in the run);
//! otherwise it was still open. The bytes read then are the backlog the
//! server and the kernels held for it. Then the tool closes what is left.
//!
//! Split by job: [`raw`] writes frames behind the WebSocket library's back,
//! [`hangup`] tells whether the server closed a connection, [`counters`]
//! counts what happened and [`report`] says it. This file runs each
//! non-reader.

mod counters;
mod hangup;
mod raw;
mod report;

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_protocol::ClientMsg;
use tokio::time::{Instant, MissedTickBehavior};

pub(crate) use counters::{NonReaders, Plan};
use hangup::{final_read, hung_up};
use raw::RawSender;
pub use report::{CloseTimes, NonReaderReport};

use crate::ctx::Ctx;
use oxo_client::Link;

/// How often a non-reader looks for a hang-up (and sends a due ping).
const CHECK_EVERY: Duration = Duration::from_millis(250);
/// The longest a non-reader waits at the end to finish writing a frame it
/// had begun.
const FINISH_WRITE: Duration = Duration::from_millis(500);

/// Non-reader number `index`: set up, then hold the socket without reading
/// until the server closes it or the run stops.
pub(crate) async fn non_reader(ctx: Arc<Ctx>, shared: Arc<NonReaders>, index: usize) {
    let Some((mut conn, hello_at)) = set_up(&ctx, &shared, index).await else {
        return;
    };
    shared.ready.fetch_add(1, Relaxed);
    let mut out = RawSender::new(ctx.seed ^ (index as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    out.queue(ClientMsg::WatchLobby);
    let open = match hold(&ctx, &shared, &conn, &mut out).await {
        Held::Closed(noticed_by) => {
            let after = hello_at.elapsed();
            let (how, bytes) = final_read(&mut conn, shared.plan.final_read).await;
            shared.backlog(bytes);
            shared.closed(
                noticed_by,
                how.unwrap_or_else(|| "open".to_owned()),
                Some(after),
            );
            false
        }
        Held::Stopped => check_at_end(&shared, &mut conn, &mut out).await,
    };
    ctx.stats.open.fetch_sub(1, Relaxed);
    if open {
        conn.close().await;
    }
}

/// Connects with a small receive buffer and says `hello`; counts a failure.
async fn set_up(ctx: &Ctx, shared: &NonReaders, index: usize) -> Option<(Link, Instant)> {
    let _permit = ctx.setup.acquire().await.ok()?;
    let target = ctx.target().await?;
    let mut conn = match target
        .connect(ctx.timeout, Some(shared.plan.recv_buffer))
        .await
    {
        Ok(conn) => conn,
        Err(e) => {
            shared.setup_failed(e.kind());
            return None;
        }
    };
    ctx.stats.open.fetch_add(1, Relaxed);
    let hello_at = Instant::now();
    match conn
        .hello(None, Some(format!("nonreader{index}")), ctx.timeout)
        .await
    {
        Ok(_) => Some((conn, hello_at)),
        Err(e) => {
            shared.setup_failed(e.kind());
            ctx.stats.open.fetch_sub(1, Relaxed);
            conn.close().await;
            None
        }
    }
}

/// How holding a connection ended.
enum Held {
    /// The server closed it; how that was noticed.
    Closed(String),
    /// The run stopped.
    Stopped,
}

/// Writes what is queued and a ping when due, and looks for a hang-up,
/// every tick, never reading, until the server closes or the run stops.
async fn hold(ctx: &Ctx, shared: &NonReaders, conn: &Link, out: &mut RawSender) -> Held {
    let tcp = conn.tcp();
    let mut tick = tokio::time::interval(
        shared
            .plan
            .pings
            .map_or(CHECK_EVERY, |p| p.min(CHECK_EVERY)),
    );
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut next_ping = shared.plan.pings.map(|p| Instant::now() + p);
    let mut stop = ctx.stop.clone();
    loop {
        if let (Some(at), Some(every)) = (next_ping, shared.plan.pings) {
            if Instant::now() >= at {
                next_ping = Some(at + every);
                if out.queue(ClientMsg::Ping) {
                    shared.pings.fetch_add(1, Relaxed);
                }
            }
        }
        if let Err(e) = out.flush(tcp) {
            return Held::Closed(format!("write:{:?}", e.kind()));
        }
        if hung_up(tcp) {
            return Held::Closed("hangup".to_owned());
        }
        if *stop.borrow() {
            return Held::Stopped;
        }
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return Held::Stopped,
        }
    }
}

/// At the end of the window: finishes a frame begun, then reads what is
/// waiting to learn whether the server had closed the connection. Returns
/// whether it is still open.
async fn check_at_end(shared: &NonReaders, conn: &mut Link, out: &mut RawSender) -> bool {
    match tokio::time::timeout(FINISH_WRITE, out.finish(conn.tcp())).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            // The write side is gone: the server closed (a reset).
            let (how, bytes) = final_read(conn, shared.plan.final_read).await;
            shared.backlog(bytes);
            let how = how.unwrap_or_else(|| "open".to_owned());
            shared.closed(format!("write:{:?}", e.kind()), how, None);
            return false;
        }
        Err(_) => {
            // The server is not reading either: reading now could not tell
            // a close, and the WebSocket library must not write into a
            // half-written frame. Count it as open and drop it.
            shared.open_at_end.fetch_add(1, Relaxed);
            return false;
        }
    }
    let (how, bytes) = final_read(conn, shared.plan.final_read).await;
    shared.backlog(bytes);
    match how {
        Some(how) => {
            shared.closed("final_read".to_owned(), how, None);
            false
        }
        None => {
            shared.open_at_end.fetch_add(1, Relaxed);
            true
        }
    }
}
